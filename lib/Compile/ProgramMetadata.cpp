//===- ProgramMetadata.cpp - what a compiled library says of itself -------===//

#include "ProgramMetadata.h"

#include "fuser/Conversion/HostIRToLLVM/RuntimeABI.h"
#include "fuser/Runtime/ProgramMetadataSchema.h"

#include "llvm/Support/JSON.h"

using llvm::ArrayRef;
using llvm::StringRef;
using mlir::RankedTensorType;
using mlir::Type;
using mlir::func::FuncOp;
namespace schema = fuser::metadata;

namespace {
std::optional<fuser::TensorInfo> describe(Type type) {
  auto tensor = mlir::dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  std::optional<FuserDType> dtype =
      mlir::fuser::getRuntimeDType(tensor.getElementType());
  if (!dtype)
    return std::nullopt;
  fuser::TensorInfo info;
  info.dtype = fuser_dtype_name(*dtype);
  info.shape.assign(tensor.getShape().begin(), tensor.getShape().end());
  if (mlir::fuser::ShardingAttr sharding = mlir::fuser::getSharding(tensor)) {
    info.meshShape.assign(sharding.getMesh().getShape().begin(),
                          sharding.getMesh().getShape().end());
    info.devices = sharding.getMesh().getDeviceIds();
    info.dimAxes = sharding.getDimAxesList();
  } else {
    info.meshShape = {1};
    info.devices = {0};
    info.dimAxes.resize(info.shape.size());
  }
  return info;
}

/// Writes one input or output.
void writeJson(llvm::json::OStream &json, const fuser::TensorInfo &info) {
  json.object([&] {
    json.attribute(schema::tensor::kDType, info.dtype);
    json.attribute(schema::tensor::kShape, llvm::json::Array(info.shape));
    json.attributeObject(schema::tensor::kMesh, [&] {
      json.attribute(schema::tensor::kMeshShape,
                     llvm::json::Array(info.meshShape));
      json.attribute(schema::tensor::kMeshDevices,
                     llvm::json::Array(info.devices));
    });
    json.attributeArray(schema::tensor::kDimAxes, [&] {
      for (const auto &axes : info.dimAxes)
        json.value(llvm::json::Array(axes));
    });
  });
}
} // namespace

std::optional<fuser::ProgramInfo> fuser::describeProgram(FuncOp function) {
  ProgramInfo program;
  program.name = function.getSymName().str();
  for (auto [types, infos] :
       {std::pair<ArrayRef<Type>, std::vector<TensorInfo> *>{
            function.getArgumentTypes(), &program.inputs},
        {function.getResultTypes(), &program.outputs}})
    for (Type type : types) {
      std::optional<TensorInfo> info = describe(type);
      if (!info) {
        function.emitError("a compiled program takes and returns static "
                           "tensors of the runtime's element types (f32, "
                           "f16, bf16, f64, i64, i32, i8, i1), got ")
            << type;
        return std::nullopt;
      }
      infos->push_back(std::move(*info));
    }
  if (auto of = function->getAttrOfType<mlir::StringAttr>("fuser.derivative_of"))
    program.derivativeOf = of.str();
  if (auto inputs =
          function->getAttrOfType<mlir::DenseI64ArrayAttr>("fuser.vjp_inputs"))
    program.vjpInputs.emplace(inputs.asArrayRef().begin(),
                              inputs.asArrayRef().end());
  return program;
}

std::string fuser::writeMetadata(ArrayRef<ProgramInfo> programs,
                                 const CompileOptions &options,
                                 const PlannedFor &machine) {
  bool cuda = options.target == mlir::fuser::HostTarget::CUDA;
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    namespace document = schema::document;
    namespace calibration = schema::calibration;
    namespace field = schema::program;
    json.attribute(document::kFormat, schema::kFormatName);
    json.attribute(document::kVersion, FUSER_PROGRAM_ABI_VERSION);
    json.attribute(document::kTarget,
                   cuda ? schema::kCudaTarget : schema::kCpuTarget);
    if (cuda)
      json.attribute(document::kChip, options.chip);
    json.attribute(document::kRanksPerNode, machine.ranksPerNode);
    if (!machine.calibration.empty())
      json.attributeObject(document::kCalibration, [&] {
        json.attribute(calibration::kUsed, machine.calibration);
        if (!machine.calibrated.gpu.empty())
          json.attribute(calibration::kGpu, machine.calibrated.gpu);
        if (machine.calibrated.devices)
          json.attribute(calibration::kDevices, machine.calibrated.devices);
        if (machine.calibrated.ranksPerNode)
          json.attribute(calibration::kRanksPerNode,
                         machine.calibrated.ranksPerNode);
      });
    json.attributeArray(document::kPrograms, [&] {
      for (const ProgramInfo &program : programs)
        json.object([&] {
          std::string entry =
              std::string(mlir::fuser::kPackedEntryPrefix) + program.name;
          json.attribute(field::kName, program.name);
          json.attribute(field::kEntry, entry);
          json.attribute(field::kReference, entry + "__reference");
          if (!program.derivativeOf.empty())
            json.attribute(field::kDerivativeOf, program.derivativeOf);
          if (program.vjpInputs)
            json.attribute(field::kVjpInputs,
                           llvm::json::Array(*program.vjpInputs));
          for (auto [name, tensors] :
               {std::pair<StringRef, ArrayRef<TensorInfo>>{field::kInputs,
                                                           program.inputs},
                {field::kOutputs, program.outputs}})
            json.attributeArray(name, [&] {
              for (const TensorInfo &info : tensors)
                writeJson(json, info);
            });
        });
    });
  });
  os << "\n";
  return text;
}
