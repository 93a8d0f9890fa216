//===- Compile.h - annotated programs to shared libraries ------*- C++ -*-===//
//
// The ahead-of-time compiler behind fuser-compile, the C API and the Python
// bindings: every function of an annotated fuser program becomes a C entry
// point of one shared library that links the runtime, next to a reference
// copy of the program on a single device and the library's metadata.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_COMPILE_COMPILE_H
#define FUSER_COMPILE_COMPILE_H

#include "fuser/Conversion/HostIRToLLVM/HostIRToLLVM.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "mlir/Support/LogicalResult.h"

#include <optional>
#include <string>
#include <vector>

namespace fuser {

struct CompileOptions {
  mlir::fuser::HostTarget target = mlir::fuser::HostTarget::CPU;
  /// mpi or nccl (the CPU runtime runs both over MPI), or cuda_ipc for
  /// GPUs; unset: mpi for the CPU, nccl for CUDA.
  std::optional<mlir::hostir::Backend> backend;
  /// The GPU architecture (sm_<number>) and PTX version of CUDA kernels.
  std::string chip = "sm_90";
  std::string ptxFeatures = "+ptx80";
  /// Where the kernels' PTX is also written (CUDA; empty: nowhere).
  std::string ptxOutput;
  /// The CUDA toolkit providing libdevice; empty: $CUDA_HOME, else
  /// /usr/local/cuda.
  std::string cudaPath;
  /// The functions to compile; empty: every function with a body.
  std::vector<std::string> programs;
  /// Pool streams of pipelined loops (0: one per iteration).
  int64_t streams = 0;
  /// Unset: auto for CUDA, collective for the CPU.
  std::optional<mlir::fuser::PipeliningPolicy> pipelining;
  /// The machine's calibration for `auto`: a JSON file, a folder of them
  /// or "builtin"; empty: $FUSER_CALIBRATION, else the default folder,
  /// else the built-in one (mlir::fuser::findCalibration).
  std::string pipeliningCalibration;
  /// Ranks of each node; 0: the calibration's machine's, else one node.
  int64_t ranksPerNode = 0;
  mlir::fuser::ReshardPlacement reshardPlacement =
      mlir::fuser::ReshardPlacement::Auto;
  bool cacheAllocations = true;
  /// Where the bytes each rank communicates are written as JSON ('-' for
  /// stdout; empty: not reported).
  std::string reportCommunication;
  /// Also compile the derivative programs @f__vjp, @f__fwd and @f__bwd
  /// (fuser-generate-vjp) of `vjpFunctions`, or of every function with a
  /// floating-point input when that is empty.
  bool vjp = false;
  std::vector<std::string> vjpFunctions;
  /// What @f__fwd saves for @f__bwd.
  mlir::fuser::SavedValues vjpSave = mlir::fuser::SavedValues::LibraryCalls;
  /// The directory holding libFuserRuntime.so; empty: the one installed
  /// next to this compiler, else the build tree's.
  std::string runtimeDir;
};

/// A compilation in the LLVM dialect, before objects are emitted: the
/// compiled module itself holds the programs and their metadata global.
struct LLVMDialectPrograms {
  /// The unsharded references of the programs, for the CPU.
  mlir::OwningOpRef<mlir::ModuleOp> references;
  /// The library's metadata, as JSON.
  std::string metadata;
};

/// Compiles `module`, which it changes, to the LLVM dialect: everything
/// compileToLibrary does before it emits objects and links them. Errors
/// are diagnostics at the module's location.
mlir::FailureOr<LLVMDialectPrograms>
compileToLLVMDialect(mlir::ModuleOp module, const CompileOptions &options);

/// Compiles `module`, which it changes, into the shared library
/// `libraryPath` and writes the library's metadata also to
/// `libraryPath`.json. Errors are diagnostics at the module's location.
mlir::LogicalResult compileToLibrary(mlir::ModuleOp module,
                                     const CompileOptions &options,
                                     llvm::StringRef libraryPath);

} // namespace fuser

#endif // FUSER_COMPILE_COMPILE_H
