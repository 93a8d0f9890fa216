//===- HostIRBase.td - hostir dialect, types and enums -----*- tablegen -*-===//

#ifndef FUSER_DIALECT_HOSTIR_IR_HOSTIRBASE_TD
#define FUSER_DIALECT_HOSTIR_IR_HOSTIRBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def HostIR_Dialect : Dialect {
  let name = "hostir";
  let cppNamespace = "::mlir::hostir";
  let summary = "Host programs that drive kernels and communications";
  let description = [{
    A host program runs on every rank (SPMD). It works on per-rank buffers
    (`memref`), launches kernels and library calls, posts communications on
    teams of ranks through a backend (NCCL, CUDA IPC, MPI) and waits on them,
    and orders all of this on streams. Control flow and index math come from
    `scf` and `arith`; buffers and views from `memref`, with allocation and
    stream-chunk views here because they carry runtime meaning (memory kind,
    IPC registration, stream pipelining).

    An `scf.for` marked `hostir.stream_parallel` may run its iterations on
    different streams; `hostir-assign-streams` gives them their streams.
  }];
  let dependentDialects = ["::mlir::fuser::FuserDialect"];
  let useDefaultTypePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Defined next to the generated storage classes (HostIRTypes.cpp).
    void registerTypes();
    /// Marks an `scf.for` whose iterations may run on different streams.
    static ::llvm::StringRef getStreamParallelAttrName() {
      return "hostir.stream_parallel";
    }
  }];
}

def HostIR_BackendAttr : I32EnumAttr<"Backend", "communication library", [
      I32EnumAttrCase<"NCCL", 0, "nccl">,
      I32EnumAttrCase<"CudaIpc", 1, "cuda_ipc">,
      I32EnumAttrCase<"MPI", 2, "mpi">
    ]> {
  let cppNamespace = "::mlir::hostir";
}

def HostIR_MemoryKindAttr : I32EnumAttr<"MemoryKind", "where a buffer lives", [
      I32EnumAttrCase<"Device", 0, "device">,
      I32EnumAttrCase<"Host", 1, "host">,
      I32EnumAttrCase<"Symmetric", 2, "symmetric">
    ]> {
  let cppNamespace = "::mlir::hostir";
  let description = [{
    `symmetric` buffers are device buffers of the same size on every rank of
    a team, registered for CUDA IPC once and kept alive across executions.
  }];
}

// Buffers hold the element types the runtime has a code for (FuserDType in
// include/fuser/Runtime/Runtime.h, which RuntimeABI.h maps them to), so a
// program with another element type fails to verify instead of reaching
// the runtime with a meaningless type code.
def HostIR_Buffer : MemRefOf<[F32, F16, BF16, F64, I64, I32, I8, I1]> {
  let summary = "memref of an element type the runtime holds (f32, f16, "
                "bf16, f64, i64, i32, i8 or i1)";
}

class HostIR_Type<string name, string typeMnemonic, list<Trait> traits = []>
    : TypeDef<HostIR_Dialect, name, traits> {
  let mnemonic = typeMnemonic;
}

def HostIR_StreamType : HostIR_Type<"Stream", "stream"> {
  let summary = "an ordered queue of device work (a CUDA stream)";
}

def HostIR_WorkType : HostIR_Type<"Work", "work"> {
  let summary = "handle of a posted communication, to wait on";
}

def HostIR_TeamType : HostIR_Type<"Team", "team"> {
  let summary = "an ordered group of ranks that communicate together";
  let description = [{
    The size is static (it comes from the mesh), so buffer sizes of
    collectives can be checked: `!hostir.team<4>`.
  }];
  let parameters = (ins "int64_t":$size);
  let assemblyFormat = "`<` $size `>`";
  let genVerifyDecl = 1;
}

def HostIR_IpcHandlesType : HostIR_Type<"IpcHandles", "ipc_handles"> {
  let summary = "a buffer's CUDA IPC handles exchanged across a team";
  let description = [{
    Every rank of a team exported its buffer of this type and opened those of
    its peers; each handle also carries a semaphore for signal/wait.
  }];
  let parameters = (ins "::mlir::MemRefType":$buffer);
  let assemblyFormat = "`<` $buffer `>`";
}

#endif // FUSER_DIALECT_HOSTIR_IR_HOSTIRBASE_TD
