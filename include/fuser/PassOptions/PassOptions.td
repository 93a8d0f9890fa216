//===- PassOptions.td - choices of the pass options ------*- tablegen -*-===//
//
// The enum-valued options of the passes, the pipelines and the tools, each
// declared once: Passes.td, the pipeline options, fuser-compile, the C API
// and the fuzzer take their keywords from here (PassOptions.h lists them as
// command-line choices).
// The communication library is hostir's `Backend` (HostIRBase.td).
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_PASSOPTIONS_PASSOPTIONS_TD
#define FUSER_PASSOPTIONS_PASSOPTIONS_TD

include "mlir/IR/EnumAttr.td"

def Fuser_PipeliningPolicy : I32Enum<"PipeliningPolicy",
    "how stream-split groups overlap communication and library calls", [
      I32EnumCase<"Auto", 0, "auto">,
      I32EnumCase<"None", 1, "none">,
      I32EnumCase<"Collective", 2, "collective">,
      I32EnumCase<"Ring", 3, "ring">
    ]> {
  let cppNamespace = "::mlir::fuser";
}

def Fuser_ReshardPlacement : I32Enum<"ReshardPlacement",
    "where a resharding op's data moves", [
      I32EnumCase<"Auto", 0, "auto">,
      I32EnumCase<"Before", 1, "before">,
      I32EnumCase<"After", 2, "after">
    ]> {
  let cppNamespace = "::mlir::fuser";
}

def Fuser_CompilerStage : I32Enum<"CompilerStage",
    "a stage of the compiler whose contract fuser-verify-stage checks", [
      I32EnumCase<"Propagated", 0, "propagated">,
      I32EnumCase<"Decomposed", 1, "decomposed">,
      I32EnumCase<"LaidOut", 2, "laid-out">,
      I32EnumCase<"Segmented", 3, "segmented">
    ]> {
  let cppNamespace = "::mlir::fuser";
}

def Fuser_SavedValues : I32Enum<"SavedValues",
    "what a generated forward program saves for its backward", [
      I32EnumCase<"LibraryCalls", 0, "library-calls">,
      I32EnumCase<"All", 1, "all">
    ]> {
  let cppNamespace = "::mlir::fuser";
}

// The target decides the runtime backend host programs select on entry and
// the ops they may hold. CPU ranks (the runtime's host backend): kernels are
// CPU functions of the same module, no CUDA IPC. One GPU per rank (the
// CUDA backend): kernels are compiled to a gpu.binary, which the program
// embeds and the runtime loads.
def Fuser_HostTarget : I32Enum<"HostTarget",
    "what host programs run on", [
      I32EnumCase<"CPU", 0, "cpu">,
      I32EnumCase<"CUDA", 1, "cuda">
    ]> {
  let cppNamespace = "::mlir::fuser";
}

#endif // FUSER_PASSOPTIONS_PASSOPTIONS_TD
