//===- HostIRToLLVM.h - host programs as calls into the runtime -*- C++ -*-===//
//
// The patterns of convert-hostir-to-llvm, for passes that lower host
// programs together with other dialects.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_CONVERSION_HOSTIRTOLLVM_HOSTIRTOLLVM_H
#define FUSER_CONVERSION_HOSTIRTOLLVM_HOSTIRTOLLVM_H

#include "fuser/PassOptions/PassOptions.h"

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;
} // namespace mlir

namespace mlir::fuser {

/// Adds to `converter` the LLVM types of hostir's handles (teams, work,
/// streams, IPC handles: opaque pointers of the runtime) and to `patterns`
/// the lowering of hostir ops to calls of the runtime's C ABI, each memref
/// passed as a FuserBuffer built from its descriptor. Views, loops and
/// affine maps must already be gone (hostir-expand-alias-selects,
/// convert-scf-to-cf, expand-strided-metadata, lower-affine). For `CPU`,
/// kernel launches call LLVM functions of the same module and CUDA IPC ops
/// have no lowering; for `CUDA`, CUDA IPC ops are calls and launches of
/// kernels in a gpu.binary call fuser_launch_kernel with the binary's
/// image, which the patterns read from the binary: it must stay legal
/// until every launch is lowered.
void populateHostIRToLLVMConversionPatterns(LLVMTypeConverter &converter,
                                            RewritePatternSet &patterns,
                                            HostTarget target);

} // namespace mlir::fuser

#endif // FUSER_CONVERSION_HOSTIRTOLLVM_HOSTIRTOLLVM_H
