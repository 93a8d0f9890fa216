/*===- fuser-c/Compile.h - programs to shared libraries from C ----*- C -*-===*\
|*                                                                            *|
|* The ahead-of-time compiler of fuser-compile: every function of a module    *|
|* becomes a C entry point of one shared library that links the runtime, run  *|
|* with fuser-exec or the runtime's loader.                                   *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef FUSER_C_COMPILE_H
#define FUSER_C_COMPILE_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum FuserCompileTarget {
  FuserCompileTargetCPU = 0,
  FuserCompileTargetCUDA = 1,
} FuserCompileTarget;

/// Empty strings take fuser-compile's defaults.
typedef struct FuserCompileOptions {
  FuserCompileTarget target;
  /// mpi, nccl or cuda_ipc.
  MlirStringRef backend;
  /// auto, collective, ring or none.
  MlirStringRef pipelining;
  /// sm_<number> for CUDA.
  MlirStringRef chip;
  /// Where the kernels' PTX is also written (CUDA).
  MlirStringRef ptxOutput;
  /// The directory holding libFuserRuntime.so.
  MlirStringRef runtimeDir;
} FuserCompileOptions;

/// fuser-compile's defaults: the CPU target and empty strings.
MLIR_CAPI_EXPORTED FuserCompileOptions fuserCompileOptionsGetDefault(void);

/// Compiles `module`, which it changes, into the shared library at
/// `libraryPath` (and its metadata at `libraryPath`.json). Errors are
/// diagnostics on the module's context.
MLIR_CAPI_EXPORTED MlirLogicalResult
fuserCompileToLibrary(MlirModule module, const FuserCompileOptions *options,
                      MlirStringRef libraryPath);

#ifdef __cplusplus
}
#endif

#endif // FUSER_C_COMPILE_H
