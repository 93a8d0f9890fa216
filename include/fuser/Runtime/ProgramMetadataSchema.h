//===- ProgramMetadataSchema.h - the fields of a library's metadata -*- C++
//-*-===//
//
// The JSON document fuser-compile embeds in each library it writes (the
// string fuser_program_metadata, also written as <library>.json) and the
// runtime reads (fuser-exec, the Python bindings). The compiler writes it
// with LLVM's JSON writer and the runtime, which builds without LLVM,
// reads it with its own: both take the field names from here, so that a
// field renamed on one side is renamed on the other.
//
//   {"format": "fuser-program", "version": FUSER_PROGRAM_ABI_VERSION,
//    "target": "cpu" | "cuda", "chip": "sm_90" (cuda only),
//    "ranks_per_node": N,
//    "calibration": {"used": "...", "gpu": "...", "devices": N,
//                    "ranks_per_node": N}            (pipelining=auto only),
//    "programs": [{"name": "f", "entry": "...", "reference": "...",
//                  "derivative_of": "g", "vjp_inputs": [i, ...] (optional),
//                  "inputs": [TENSOR, ...], "outputs": [TENSOR, ...]}]}
//   TENSOR: {"dtype": "bf16", "shape": [...],
//            "mesh": {"shape": [...], "devices": [...]},
//            "dim_axes": [[axis, ...] per dim]}
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_RUNTIME_PROGRAMMETADATASCHEMA_H
#define FUSER_RUNTIME_PROGRAMMETADATASCHEMA_H

namespace fuser::metadata {

/// The value of the `format` field.
inline constexpr char kFormatName[] = "fuser-program";
/// The values of the `target` field.
inline constexpr char kCpuTarget[] = "cpu";
inline constexpr char kCudaTarget[] = "cuda";

/// Fields of the document.
namespace document {
inline constexpr char kFormat[] = "format";
inline constexpr char kVersion[] = "version";
inline constexpr char kTarget[] = "target";
inline constexpr char kChip[] = "chip";
inline constexpr char kRanksPerNode[] = "ranks_per_node";
inline constexpr char kCalibration[] = "calibration";
inline constexpr char kPrograms[] = "programs";
} // namespace document

/// Fields of `calibration`.
namespace calibration {
inline constexpr char kUsed[] = "used";
inline constexpr char kGpu[] = "gpu";
inline constexpr char kDevices[] = "devices";
inline constexpr char kRanksPerNode[] = "ranks_per_node";
} // namespace calibration

/// Fields of each of `programs`.
namespace program {
inline constexpr char kName[] = "name";
inline constexpr char kEntry[] = "entry";
inline constexpr char kReference[] = "reference";
inline constexpr char kDerivativeOf[] = "derivative_of";
inline constexpr char kVjpInputs[] = "vjp_inputs";
inline constexpr char kInputs[] = "inputs";
inline constexpr char kOutputs[] = "outputs";
} // namespace program

/// Fields of each input and output.
namespace tensor {
inline constexpr char kDType[] = "dtype";
inline constexpr char kShape[] = "shape";
inline constexpr char kMesh[] = "mesh";
inline constexpr char kMeshShape[] = "shape";
inline constexpr char kMeshDevices[] = "devices";
inline constexpr char kDimAxes[] = "dim_axes";
} // namespace tensor

} // namespace fuser::metadata

#endif // FUSER_RUNTIME_PROGRAMMETADATASCHEMA_H
