//===- ProgramMetadataTest.cpp - the compiler's metadata, the runtime's reading -===//
//
// What fuser-compile writes into a library is what the runtime reads back:
// every field of the schema (fuser/Runtime/ProgramMetadataSchema.h) survives
// the compiler's writer and the runtime's reader, and a document the runtime
// cannot run is refused with the field that stops it.
//
//===----------------------------------------------------------------------===//

#include "ProgramMetadata.h"

#include "../../lib/Compile/ProgramMetadata.h"

#include <gtest/gtest.h>

namespace {

fuser::TensorInfo tensor(std::string dtype, llvm::ArrayRef<int64_t> shape,
                         llvm::ArrayRef<int64_t> meshShape,
                         llvm::ArrayRef<int64_t> devices,
                         llvm::ArrayRef<llvm::SmallVector<int64_t>> dimAxes) {
  fuser::TensorInfo info;
  info.dtype = std::move(dtype);
  info.shape.assign(shape.begin(), shape.end());
  info.meshShape.assign(meshShape.begin(), meshShape.end());
  info.devices.assign(devices.begin(), devices.end());
  info.dimAxes.assign(dimAxes.begin(), dimAxes.end());
  return info;
}

/// A forward program on a 2x2 mesh and its generated backward.
std::vector<fuser::ProgramInfo> programs() {
  fuser::ProgramInfo forward;
  forward.name = "mlp";
  forward.inputs = {tensor("bf16", {8, 256}, {2, 2}, {0, 1, 2, 3}, {{0}, {}}),
                    tensor("f32", {256, 64}, {2, 2}, {0, 1, 2, 3}, {{}, {1}})};
  forward.outputs = {tensor("bf16", {8, 64}, {2, 2}, {0, 1, 2, 3}, {{0}, {1}})};
  fuser::ProgramInfo backward;
  backward.name = "mlp__bwd";
  backward.derivativeOf = "mlp";
  backward.vjpInputs = std::vector<int64_t>{1};
  backward.inputs = {tensor("i64", {4}, {1}, {0}, {{}})};
  backward.outputs = {tensor("f64", {4, 6}, {1}, {0}, {{}, {}})};
  return {forward, backward};
}

TEST(ProgramMetadata, EveryFieldSurvivesTheWriterAndTheReader) {
  fuser::CompileOptions options;
  options.target = mlir::fuser::HostTarget::CUDA;
  options.chip = "sm_90a";
  fuser::PlannedFor machine;
  machine.calibration = "built-in";
  machine.calibrated = {"NVIDIA H200", 2, 2};
  machine.ranksPerNode = 4;
  std::string text = fuser::writeMetadata(programs(), options, machine);

  fuser::ProgramMetadata metadata;
  std::string error;
  ASSERT_TRUE(fuser::parseProgramMetadata(text, metadata, error)) << error;
  EXPECT_EQ(metadata.target, "cuda");
  EXPECT_EQ(metadata.ranksPerNode, 4);
  ASSERT_TRUE(metadata.calibration);
  EXPECT_EQ(metadata.calibration->used, "built-in");
  EXPECT_EQ(metadata.calibration->gpu, "NVIDIA H200");
  EXPECT_EQ(metadata.calibration->devices, 2);
  EXPECT_EQ(metadata.calibration->ranksPerNode, 2);
  ASSERT_EQ(metadata.programs.size(), 2u);

  const fuser::ProgramSpec &forward = metadata.programs[0];
  EXPECT_EQ(forward.name, "mlp");
  EXPECT_NE(forward.entry.find("mlp"), std::string::npos);
  EXPECT_EQ(forward.reference, forward.entry + "__reference");
  EXPECT_TRUE(forward.derivativeOf.empty());
  EXPECT_FALSE(forward.vjpInputs);
  ASSERT_EQ(forward.tensors.size(), 3u);
  const fuser::TensorSpec &x = forward.tensors[0];
  EXPECT_TRUE(x.isInput);
  EXPECT_EQ(x.dtype, "bf16");
  EXPECT_EQ(x.code, FUSER_BF16);
  EXPECT_EQ(x.shape, (fuser::Shape{8, 256}));
  EXPECT_EQ(x.mesh.shape, (fuser::Shape{2, 2}));
  EXPECT_EQ(x.mesh.devices, (std::vector<int64_t>{0, 1, 2, 3}));
  EXPECT_EQ(x.dimAxes, (fuser::DimAxes{{0}, {}}));
  EXPECT_EQ(forward.tensors[1].dimAxes, (fuser::DimAxes{{}, {1}}));
  EXPECT_FALSE(forward.tensors[2].isInput);
  EXPECT_EQ(forward.tensors[2].dimAxes, (fuser::DimAxes{{0}, {1}}));

  const fuser::ProgramSpec &backward = metadata.programs[1];
  EXPECT_EQ(backward.derivativeOf, "mlp");
  ASSERT_TRUE(backward.vjpInputs);
  EXPECT_EQ(*backward.vjpInputs, (std::vector<int64_t>{1}));
  EXPECT_EQ(backward.tensors[0].code, FUSER_I64);
  EXPECT_EQ(backward.tensors[1].code, FUSER_F64);
}

TEST(ProgramMetadata, CpuLibrariesUnderAFixedModeSayNoCalibration) {
  fuser::PlannedFor machine;
  machine.ranksPerNode = 1;
  std::string text =
      fuser::writeMetadata(programs(), fuser::CompileOptions(), machine);
  fuser::ProgramMetadata metadata;
  std::string error;
  ASSERT_TRUE(fuser::parseProgramMetadata(text, metadata, error)) << error;
  EXPECT_EQ(metadata.target, "cpu");
  EXPECT_FALSE(metadata.calibration);
}

TEST(ProgramMetadata, TensorsTheRuntimeCannotRunAreRefused) {
  std::vector<fuser::ProgramInfo> indivisible = programs();
  // 8 rows over an axis of 3 devices.
  indivisible[0].inputs[0] =
      tensor("bf16", {8, 256}, {3}, {0, 1, 2}, {{0}, {}});
  fuser::PlannedFor machine;
  machine.ranksPerNode = 1;
  fuser::ProgramMetadata metadata;
  std::string error;
  EXPECT_FALSE(fuser::parseProgramMetadata(
      fuser::writeMetadata(indivisible, fuser::CompileOptions(), machine),
      metadata, error));
  EXPECT_NE(error.find("program mlp, input #0"), std::string::npos) << error;
}

} // namespace
