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

/// Every option of fuser-compile. Empty strings, empty lists and zero
/// numbers take its defaults (fuserCompileOptionsGetDefault).
typedef struct FuserCompileOptions {
  FuserCompileTarget target;
  /// mpi, nccl or cuda_ipc.
  MlirStringRef backend;
  /// auto, collective, ring or none.
  MlirStringRef pipelining;
  /// The machine's calibration for pipelining=auto: a JSON file, a folder
  /// of them or "builtin".
  MlirStringRef pipeliningCalibration;
  /// Ranks of each node (consecutive).
  int64_t ranksPerNode;
  /// Pool streams of pipelined loops.
  int64_t streams;
  /// auto, before or after.
  MlirStringRef reshardPlacement;
  /// Keep intermediate buffers across executions (fuser-compile's default:
  /// true).
  bool cacheAllocations;
  /// The functions to compile (all when empty).
  const MlirStringRef *programs;
  intptr_t numPrograms;
  /// Where the bytes each rank communicates are written as JSON ("-":
  /// stdout).
  MlirStringRef reportCommunication;
  /// Also compile @f__vjp, @f__fwd and @f__bwd of `vjpFunctions` (of every
  /// function with a floating-point input when empty); what @f__fwd saves:
  /// library-calls or all.
  bool vjp;
  const MlirStringRef *vjpFunctions;
  intptr_t numVjpFunctions;
  MlirStringRef vjpSave;
  /// sm_<number> for CUDA, and the PTX version as an NVPTX feature.
  MlirStringRef chip;
  MlirStringRef ptxFeatures;
  /// The CUDA toolkit providing libdevice.
  MlirStringRef cudaPath;
  /// Where the kernels' PTX is also written (CUDA).
  MlirStringRef ptxOutput;
  /// The directory holding libFuserRuntime.so.
  MlirStringRef runtimeDir;
} FuserCompileOptions;

/// fuser-compile's defaults: the CPU target, allocations cached, empty
/// strings and lists, zero numbers.
MLIR_CAPI_EXPORTED FuserCompileOptions fuserCompileOptionsGetDefault(void);

/// Compiles `module`, which it changes, into the shared library at
/// `libraryPath` (and its metadata at `libraryPath`.json), each written
/// whole or not at all: processes compiling to one path at once, or
/// loading it meanwhile, see one complete library. Errors are diagnostics
/// on the module's context.
MLIR_CAPI_EXPORTED MlirLogicalResult
fuserCompileToLibrary(MlirModule module, const FuserCompileOptions *options,
                      MlirStringRef libraryPath);

#ifdef __cplusplus
}
#endif

#endif // FUSER_C_COMPILE_H
