//===- Passes.td - conversions between the project's dialects -*- tablegen -*-===//

#ifndef FUSER_CONVERSION_PASSES_TD
#define FUSER_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerFuserToHostIR : Pass<"fuser-lower-to-hostir", "ModuleOp"> {
  let summary = "Turn segmented fuser functions into host programs";
  let description = [{
    Contract. Reads: `segmented` functions (one mesh per function). Writes:
    for each, a host program of the same name over per-rank buffers
    (`memref`s of the local shapes, strided by the layouts): kernel segments
    become an allocation per output and a `hostir.launch` of the outlined
    kernel; library calls become `hostir.matmul`/`hostir.linear` into an
    allocated output; each communication becomes an allocation, the team of
    the executing rank along its mesh axis (`hostir.rank`, `hostir.team`),
    the collective on the chosen backend, and a `hostir.wait`; all_slice is
    an `hostir.alias_select` of the rank's block; views become buffer views.
    The kernel module stays as it is.

    Not yet: stream pipelining, stream assignment, deallocation placement,
    the allocation cache, send_recv between meshes, programs on several
    meshes, and views other than permutes and row-major reshapes.
  }];
  let dependentDialects = ["::mlir::hostir::HostIRDialect",
                           "::mlir::memref::MemRefDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::func::FuncDialect"];
  let options = [
    Option<"backend", "backend", "std::string", /*default=*/"\"nccl\"",
           "Communication library: nccl, mpi or cuda_ipc">
  ];
}

#endif // FUSER_CONVERSION_PASSES_TD
