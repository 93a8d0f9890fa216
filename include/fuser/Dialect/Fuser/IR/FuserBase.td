//===- FuserBase.td - fuser dialect definition and enums ---*- tablegen -*-===//

#ifndef FUSER_DIALECT_FUSER_IR_FUSERBASE_TD
#define FUSER_DIALECT_FUSER_IR_FUSERBASE_TD

include "mlir/IR/OpBase.td"
include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"

def Fuser_Dialect : Dialect {
  let name = "fuser";
  let cppNamespace = "::mlir::fuser";
  let summary = "Distributed tensor programs with global shapes and shardings";
  let description = [{
    The `fuser` dialect expresses a tensor program once, with global
    (unsharded) shapes. How a value is distributed over a device mesh is the
    encoding of its tensor type, a `#fuser.sharding`, so every value shows its
    sharding in printed IR and every op sees the shardings of its operands and
    results through their types.

    Compute ops (pointwise, reductions, creation, layout/meta ops, matmul and
    linear) state global shapes only; they may be resharding until the
    resharding decomposition pass makes every data movement an explicit
    `fuser.comm.*` op that changes exactly one mesh axis.
  }];
  let useDefaultAttributePrinterParser = 1;
  let extraClassDeclaration = [{
    /// Defined next to the attribute storage classes (FuserAttrs.cpp).
    void registerAttributes();
    /// Marks a kernel function's `index` argument that receives the
    /// executing rank's index along a mesh axis (a #fuser.mesh_position).
    static ::llvm::StringRef getMeshPositionAttrName() {
      return "fuser.mesh_position";
    }
    /// The #fuser.pipelining a communication's pipeline was planned with.
    static ::llvm::StringRef getPipeliningAttrName() {
      return "fuser.pipelining";
    }
    /// Marks a pipelined communication whose teams hold ranks of different
    /// nodes: its blocks move over NCCL's network transport, never through
    /// CUDA IPC.
    static ::llvm::StringRef getBetweenNodesAttrName() {
      return "fuser.between_nodes";
    }
    /// The calibration `pipelining=auto` planned a function's pipelines
    /// with (what PipelineCalibration::describe says of it).
    static ::llvm::StringRef getCalibrationAttrName() {
      return "fuser.calibration";
    }
    /// The #fuser.gpu_schedule chosen for a kernel function.
    static ::llvm::StringRef getGPUScheduleAttrName() {
      return "fuser.gpu_schedule";
    }
  }];
}

def Fuser_ReductionKindAttr : I32EnumAttr<"ReductionKind",
    "how partial values across a mesh axis combine", [
      I32EnumAttrCase<"Sum", 0, "sum">,
      I32EnumAttrCase<"Prod", 1, "prod">,
      I32EnumAttrCase<"Max", 2, "max">,
      I32EnumAttrCase<"Min", 3, "min">,
      I32EnumAttrCase<"Avg", 4, "avg">
    ]> {
  let cppNamespace = "::mlir::fuser";
}

def Fuser_CompareKindAttr : I32EnumAttr<"CompareKind", "elementwise comparison", [
      I32EnumAttrCase<"EQ", 0, "eq">,
      I32EnumAttrCase<"NE", 1, "ne">,
      I32EnumAttrCase<"LT", 2, "lt">,
      I32EnumAttrCase<"LE", 3, "le">,
      I32EnumAttrCase<"GT", 4, "gt">,
      I32EnumAttrCase<"GE", 5, "ge">
    ]> {
  let cppNamespace = "::mlir::fuser";
}

def Fuser_GeluApproximationAttr : I32EnumAttr<"GeluApproximation",
    "formula used by gelu", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Tanh", 1, "tanh">
    ]> {
  let cppNamespace = "::mlir::fuser";
}

def Fuser_ActivationAttr : I32EnumAttr<"Activation",
    "elementwise function a library product applies to its result", [
      I32EnumAttrCase<"GeluTanh", 1, "gelu_tanh">,
      I32EnumAttrCase<"Relu", 2, "relu">
    ]> {
  let cppNamespace = "::mlir::fuser";
}

def Fuser_Pipelining : I32EnumAttr<"Pipelining",
    "how a pipelined communication overlaps the library calls beside it", [
      I32EnumAttrCase<"None", 0, "none">,
      I32EnumAttrCase<"Collective", 1, "collective">,
      I32EnumAttrCase<"Ring", 2, "ring">
    ]> {
  let cppNamespace = "::mlir::fuser";
  let genSpecializedAttr = 0;
}

def Fuser_GPUScheduleKind : I32EnumAttr<"GPUScheduleKind",
    "how a GPU kernel's elements map to threads", [
      I32EnumAttrCase<"Rows", 0, "rows">,
      I32EnumAttrCase<"OuterReduction", 1, "outer_reduction">,
      I32EnumAttrCase<"Transpose", 2, "transpose">,
      I32EnumAttrCase<"Pointwise", 3, "pointwise">
    ]> {
  let cppNamespace = "::mlir::fuser";
  let genSpecializedAttr = 0;
}

#endif // FUSER_DIALECT_FUSER_IR_FUSERBASE_TD
