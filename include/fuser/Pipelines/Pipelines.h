//===- Pipelines.h - named pass pipelines -----------------------*- C++ -*-===//

#ifndef FUSER_PIPELINES_PIPELINES_H
#define FUSER_PIPELINES_PIPELINES_H

#include "fuser/Conversion/HostIRToLLVM/HostIRToLLVM.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace fuser {

struct FuserToHostIRPipelineOptions
    : public mlir::PassPipelineOptions<FuserToHostIRPipelineOptions> {
  Option<std::string> backend{*this, "backend",
                              llvm::cl::desc("Communication library: nccl, "
                                             "mpi or cuda_ipc (reductions "
                                             "through NCCL)"),
                              llvm::cl::init("nccl")};
  Option<std::string> reshardPlacement{
      *this, "reshard-placement",
      llvm::cl::desc("Where resharding moves data: auto, before or after"),
      llvm::cl::init("auto")};
  Option<std::string> pipelining{
      *this, "pipelining",
      llvm::cl::desc("How pipelined allgathers and reduce_scatters move "
                     "chunks: collective or ring"),
      llvm::cl::init("collective")};
  Option<int64_t> streams{
      *this, "streams",
      llvm::cl::desc("Pool streams of pipelined loops (0: one per chunk)"),
      llvm::cl::init(0)};
  Option<bool> cacheAllocations{
      *this, "cache-allocations",
      llvm::cl::desc("Keep intermediate buffers alive across executions"),
      llvm::cl::init(false)};
};

/// Annotated fuser functions to host programs: propagation, decomposition,
/// layouts, segmentation, lowering, allocation caching (optional) and
/// deallocation placement, each stage's contract checked.
void buildFuserToHostIRPipeline(mlir::OpPassManager &pm,
                                const FuserToHostIRPipelineOptions &options);

/// The kernel module to LLVM for CPU ranks: fuser ops to linalg, one-shot
/// bufferization, loops, and the LLVM dialect (libm for erf and tanh, bf16
/// conversions as integer arithmetic).
void buildKernelsToLLVMPipeline(mlir::OpPassManager &pm);

/// Host programs to the LLVM dialect for `target`
/// (hostir-expand-alias-selects, upstream's scf, strided-metadata and
/// affine lowerings on each program, then fuser-lower-host-to-llvm); for
/// CPU ranks their kernel module must already be in it.
void buildHostToLLVMPipeline(mlir::OpPassManager &pm,
                             mlir::fuser::HostTarget target);

/// Host programs and their kernel module to the LLVM dialect for CPU
/// ranks: the kernels as above, the host programs as runtime calls.
void buildCPUToLLVMPipeline(mlir::OpPassManager &pm);

/// Host programs to the LLVM dialect for GPUs, one per rank (the CUDA
/// backend). Kernels have no GPU code generation yet: programs that launch
/// any are refused.
void buildCUDAHostToLLVMPipeline(mlir::OpPassManager &pm);

/// Registers `fuser-to-hostir-pipeline`, `fuser-kernels-to-llvm`,
/// `fuser-cpu-to-llvm` and `fuser-cuda-host-to-llvm` for command-line use.
void registerFuserPipelines();

} // namespace fuser

#endif // FUSER_PIPELINES_PIPELINES_H
