//===- HostIRToLLVM.h - host programs as calls into the runtime -*- C++ -*-===//
//
// The patterns of fuser-lower-host-to-llvm, for passes that lower host
// programs together with other dialects.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_CONVERSION_HOSTIRTOLLVM_HOSTIRTOLLVM_H
#define FUSER_CONVERSION_HOSTIRTOLLVM_HOSTIRTOLLVM_H

namespace mlir {
class LLVMTypeConverter;
class RewritePatternSet;
} // namespace mlir

namespace mlir::fuser {

/// Adds to `converter` the LLVM types of hostir's handles (teams, work,
/// streams: opaque pointers of the runtime) and to `patterns`
/// the lowering of hostir ops to calls of the runtime's C ABI, each memref
/// passed as a FuserBuffer built from its descriptor. Views, loops and
/// affine maps must already be gone (hostir-expand-alias-selects,
/// convert-scf-to-cf, expand-strided-metadata, lower-affine); kernel
/// launches call LLVM functions of the same module.
void populateHostIRToLLVMConversionPatterns(LLVMTypeConverter &converter,
                                            RewritePatternSet &patterns);

} // namespace mlir::fuser

#endif // FUSER_CONVERSION_HOSTIRTOLLVM_HOSTIRTOLLVM_H
