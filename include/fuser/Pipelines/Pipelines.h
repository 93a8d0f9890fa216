//===- Pipelines.h - named pass pipelines -----------------------*- C++ -*-===//

#ifndef FUSER_PIPELINES_PIPELINES_H
#define FUSER_PIPELINES_PIPELINES_H

#include "fuser/Conversion/HostIRToLLVM/HostIRToLLVM.h"

#include "mlir/Pass/PassOptions.h"

namespace mlir {
class OpPassManager;
} // namespace mlir

namespace fuser {

/// $CUDA_HOME, or /usr/local/cuda.
std::string defaultCudaPath();

struct FuserToHostIRPipelineOptions
    : public mlir::PassPipelineOptions<FuserToHostIRPipelineOptions> {
  Option<mlir::hostir::Backend> backend{
      *this, "backend",
      llvm::cl::desc("Communication library: nccl, mpi or cuda_ipc "
                     "(ring pipelines' blocks by CUDA IPC copies, every "
                     "other communication on NCCL)"),
      llvm::cl::init(mlir::hostir::Backend::NCCL),
      mlir::fuser::backendChoices()};
  Option<mlir::fuser::ReshardPlacement> reshardPlacement{
      *this, "reshard-placement",
      llvm::cl::desc("Where resharding moves data: auto, before or after"),
      llvm::cl::init(mlir::fuser::ReshardPlacement::Auto),
      mlir::fuser::reshardPlacementChoices()};
  Option<mlir::fuser::PipeliningPolicy> pipelining{
      *this, "pipelining",
      llvm::cl::desc("How pipelined communications overlap: collective, "
                     "ring, none, or auto (a cost model chooses, with the "
                     "chunk count)"),
      llvm::cl::init(mlir::fuser::PipeliningPolicy::Collective),
      mlir::fuser::pipeliningChoices()};
  Option<std::string> pipeliningCalibration{
      *this, "pipelining-calibration",
      llvm::cl::desc("The machine's calibration for pipelining=auto: a "
                     "JSON file, a folder of them, or 'builtin' (default: "
                     "$FUSER_CALIBRATION, else the default folder, else "
                     "the built-in 2 x H200 machine)"),
      llvm::cl::init("")};
  Option<int64_t> ranksPerNode{
      *this, "ranks-per-node",
      llvm::cl::desc("Ranks of each node (consecutive ranks; 0: the "
                     "calibration's machine's, else one node): teams "
                     "across nodes communicate over NCCL only"),
      llvm::cl::init(0)};
  Option<int64_t> streams{
      *this, "streams",
      llvm::cl::desc("Pool streams of pipelined loops (0: one per pipeline "
                     "step)"),
      llvm::cl::init(0)};
  Option<bool> cacheAllocations{
      *this, "cache-allocations",
      llvm::cl::desc("Keep intermediate buffers alive across executions"),
      llvm::cl::init(false)};
};

/// Where GPU kernels run and where their math functions come from.
struct GPUKernelOptions : public mlir::PassPipelineOptions<GPUKernelOptions> {
  Option<std::string> chip{*this, "chip",
                           llvm::cl::desc("GPU architecture (sm_90: H100, "
                                          "H200)"),
                           llvm::cl::init("sm_90")};
  Option<std::string> ptxFeatures{
      *this, "ptx-features",
      llvm::cl::desc("PTX version of the kernels, as an NVPTX feature "
                     "(+ptx80: PTX 8.0, CUDA 12.0 drivers and later)"),
      llvm::cl::init("+ptx80")};
  Option<std::string> cudaPath{
      *this, "cuda-path",
      llvm::cl::desc("CUDA toolkit whose nvvm/libdevice/libdevice.10.bc "
                     "provides math functions (default: $CUDA_HOME, else "
                     "/usr/local/cuda)"),
      llvm::cl::init(defaultCudaPath())};
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
/// affine lowerings on each program, then convert-hostir-to-llvm); for
/// CPU ranks their kernel module must already be in it.
void buildHostToLLVMPipeline(mlir::OpPassManager &pm,
                             mlir::fuser::HostTarget target);

/// Host programs and their kernel module to the LLVM dialect for CPU
/// ranks: the kernels as above, the host programs as runtime calls.
void buildCPUToLLVMPipeline(mlir::OpPassManager &pm);

/// The kernel module to PTX: fuser ops to linalg (as for CPUs), a GPU
/// schedule per kernel, upstream's NVVM lowering, and
/// gpu-module-to-binary's PTX (libdevice linked), checked for unresolved
/// calls.
void buildKernelsToPTXPipeline(mlir::OpPassManager &pm,
                               const GPUKernelOptions &options);

/// Host programs and their kernels for GPUs, one per rank (the CUDA
/// backend): the kernels to PTX, then the host programs to runtime calls
/// that load it and launch them.
void buildCUDAToLLVMPipeline(mlir::OpPassManager &pm,
                             const GPUKernelOptions &options);

/// Registers `fuser-to-hostir-pipeline`, `fuser-kernels-to-llvm`,
/// `fuser-cpu-to-llvm`, `fuser-kernels-to-ptx` and `fuser-cuda-to-llvm`
/// for command-line use.
void registerFuserPipelines();

} // namespace fuser

#endif // FUSER_PIPELINES_PIPELINES_H
