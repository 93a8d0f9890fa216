//===- fuser-compile.cpp - annotated programs to shared libraries --------===//
//
// fuser-compile prog.mlir -o prog.so [--target=cpu|cuda] [--chip=sm_90]
//                 [--ptx-features=+ptx80] [--cuda-path=DIR] [--program=NAME...]
//                 [--report-communication=FILE|-]
//
// Compiles every function of an annotated fuser program for CPU ranks or
// for GPUs: the sharded program (fuser-to-hostir-pipeline, then
// fuser-cpu-to-llvm or fuser-cuda-to-llvm, kernels as PTX) and, under
// <name>__reference, the same program without shardings, always for the
// CPU, which one rank runs to check the sharded result independently of
// the target. The two are separate modules and objects whose symbols are
// all internal but the C entry points and the metadata, so they cannot
// collide. The shared library links the runtime and carries its metadata
// (target, global shapes, element types and shardings of inputs and
// outputs) as the JSON string `fuser_program_metadata`, also written next
// to it (prog.so.json).
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/HostIRToLLVM/RuntimeABI.h"
#include "fuser/InitAllDialects.h"
#include "fuser/InitAllPasses.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/Builtin/BuiltinToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Dialect/LLVMIR/LLVMToLLVMIRTranslation.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/SourceMgr.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/IPO/Internalize.h"

using namespace mlir;
using mlir::fuser::HostTarget;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<program.mlir>"),
                                      cl::Required);
static cl::opt<std::string> outputFile("o", cl::desc("shared library to write"),
                                       cl::value_desc("file.so"), cl::Required);
static cl::opt<std::string> runtimeDir(
    "runtime-dir", cl::desc("directory holding libFuserRuntime.so"),
    cl::init(FUSER_RUNTIME_DIR));
static cl::opt<HostTarget> target(
    "target", cl::desc("what the program runs on"),
    cl::values(clEnumValN(HostTarget::CPU, "cpu",
                          "CPU ranks (the runtime's host backend)"),
               clEnumValN(HostTarget::CUDA, "cuda",
                          "one GPU per rank (the runtime's CUDA backend)")),
    cl::init(HostTarget::CPU));
static cl::opt<std::string> chip(
    "chip",
    cl::desc("GPU architecture of --target=cuda, recorded in the metadata"),
    cl::init("sm_90"));
static cl::opt<std::string> ptxFeatures(
    "ptx-features",
    cl::desc("PTX version of --target=cuda kernels, as an NVPTX feature"),
    cl::init("+ptx80"));
static cl::opt<std::string> ptxOutput(
    "ptx-output",
    cl::desc("also write the PTX of --target=cuda kernels to this file"),
    cl::value_desc("file.ptx"));
static cl::opt<std::string> cudaPath(
    "cuda-path",
    cl::desc("CUDA toolkit providing libdevice for --target=cuda kernels "
             "(default: $CUDA_HOME, else /usr/local/cuda)"),
    cl::init(::fuser::defaultCudaPath()));
static cl::opt<std::string> backend(
    "backend",
    cl::desc("communication library the program posts on: mpi or nccl (the "
             "CPU runtime runs both over MPI), or cuda_ipc for GPUs (default: "
             "mpi for --target=cpu, nccl for --target=cuda)"));
static cl::list<std::string> programNames(
    "program",
    cl::desc("compile only this function (repeatable; default: every "
             "function of the input)"),
    cl::value_desc("name"));
static cl::opt<int64_t> streams("streams",
                                cl::desc("pool streams of pipelined loops"),
                                cl::init(0));
static cl::opt<std::string> pipelining(
    "pipelining",
    cl::desc("how pipelined communications overlap: auto (the cost model "
             "chooses, with the chunk count; default for --target=cuda), "
             "collective (default for --target=cpu), ring or none"));
static cl::opt<std::string> pipeliningCalibration(
    "pipelining-calibration",
    cl::desc("JSON file of the machine's GEMM rates and links for "
             "--pipelining=auto (default: the measured 2 x H200 machine)"),
    cl::value_desc("file"));
static cl::opt<std::string> reshardPlacement(
    "reshard-placement",
    cl::desc("where resharding moves data: auto, before or after"),
    cl::init("auto"));
static cl::opt<bool> cacheAllocations(
    "cache-allocations",
    cl::desc("keep intermediate buffers across executions (default on)"),
    cl::init(true));
static cl::opt<std::string> reportCommunication(
    "report-communication",
    cl::desc("write the bytes each rank of each program sends and receives, "
             "per communication, as JSON to this file ('-' for stdout)"),
    cl::value_desc("file"));

namespace {
/// One tensor of a program's signature.
struct TensorInfo {
  std::string dtype;
  SmallVector<int64_t> shape;
  SmallVector<int64_t> meshShape;
  SmallVector<int64_t> devices;
  SmallVector<SmallVector<int64_t>> dimAxes;
};

std::optional<TensorInfo> describe(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  std::optional<FuserDType> dtype =
      mlir::fuser::getRuntimeDType(tensor.getElementType());
  if (!dtype)
    return std::nullopt;
  TensorInfo info;
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

/// One program of the library: its name and signature.
struct ProgramInfo {
  std::string name;
  std::vector<TensorInfo> inputs, outputs;
};

/// Writes one input or output, its fields in the order a reader expects.
void writeJson(llvm::json::OStream &json, const TensorInfo &info) {
  json.object([&] {
    json.attribute("dtype", info.dtype);
    json.attribute("shape", llvm::json::Array(info.shape));
    json.attributeObject("mesh", [&] {
      json.attribute("shape", llvm::json::Array(info.meshShape));
      json.attribute("devices", llvm::json::Array(info.devices));
    });
    json.attributeArray("dim_axes", [&] {
      for (const auto &axes : info.dimAxes)
        json.value(llvm::json::Array(axes));
    });
  });
}

/// The metadata of the library: the one document fuser-exec reads, both
/// embedded in the library and written next to it.
std::string writeMetadata(ArrayRef<ProgramInfo> programs) {
  std::string text;
  llvm::raw_string_ostream os(text);
  llvm::json::OStream json(os, /*IndentSize=*/2);
  json.object([&] {
    json.attribute("format", "fuser-program");
    json.attribute("version", FUSER_PROGRAM_ABI_VERSION);
    json.attribute("target", target == HostTarget::CUDA ? "cuda" : "cpu");
    if (target == HostTarget::CUDA)
      json.attribute("chip", chip);
    json.attributeArray("programs", [&] {
      for (const ProgramInfo &program : programs)
        json.object([&] {
          json.attribute("name", program.name);
          json.attribute("entry", "_mlir_ciface_" + program.name);
          json.attribute("reference",
                         "_mlir_ciface_" + program.name + "__reference");
          for (auto [field, tensors] :
               {std::pair<StringRef, ArrayRef<TensorInfo>>{"inputs",
                                                           program.inputs},
                {"outputs", program.outputs}})
            json.attributeArray(field, [&] {
              for (const TensorInfo &info : tensors)
                writeJson(json, info);
            });
        });
    });
  });
  os << "\n";
  return text;
}

/// A copy of `function` in `module` on a single device, named
/// <name>__reference: every tensor replicated on a one-device mesh (so
/// layouts the compiler chooses still have a sharding to live in), nothing
/// to communicate.
void addReference(ModuleOp module, func::FuncOp function) {
  auto single = mlir::fuser::MeshAttr::get(module.getContext(), {1});
  auto strip = [&](Type type) -> Type {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (!tensor)
      return type;
    SmallVector<SmallVector<int64_t>> replicated(tensor.getRank());
    return RankedTensorType::get(
        tensor.getShape(), tensor.getElementType(),
        mlir::fuser::ShardingAttr::get(single, replicated));
  };
  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  auto reference = cast<func::FuncOp>(builder.clone(*function));
  reference.setSymName((function.getSymName() + "__reference").str());
  reference.walk([&](Operation *op) {
    for (Value result : op->getResults())
      result.setType(strip(result.getType()));
    for (Region &region : op->getRegions())
      for (Block &block : region)
        for (BlockArgument argument : block.getArguments())
          argument.setType(strip(argument.getType()));
  });
  reference.setType(builder.getFunctionType(
      llvm::map_to_vector(function.getArgumentTypes(), strip),
      llvm::map_to_vector(function.getResultTypes(), strip)));
}

/// Writes the kernels' PTX (the gpu.binary's object) to --ptx-output, if
/// given.
LogicalResult writePTX(ModuleOp module) {
  if (ptxOutput.empty())
    return success();
  std::error_code code;
  llvm::raw_fd_ostream ptx(ptxOutput, code);
  if (code) {
    llvm::errs() << "fuser-compile: cannot write " << ptxOutput << ": "
                 << code.message() << "\n";
    return failure();
  }
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      ptx << cast<gpu::ObjectAttr>(object).getObject().getValue();
  });
  return success();
}

/// Lowers the fuser functions of `module` to the LLVM dialect for
/// `programTarget`, posting communications on `programBackend`.
LogicalResult lowerToLLVM(ModuleOp module, HostTarget programTarget,
                          StringRef programBackend) {
  PassManager pm(module.getContext());
  ::fuser::FuserToHostIRPipelineOptions options;
  options.backend = programBackend.str();
  options.streams = streams;
  options.pipelining = pipelining.empty()
                           ? std::string(programTarget == HostTarget::CUDA
                                             ? "auto"
                                             : "collective")
                           : pipelining.getValue();
  options.pipeliningCalibration = pipeliningCalibration;
  options.reshardPlacement = reshardPlacement;
  options.cacheAllocations = cacheAllocations;
  ::fuser::buildFuserToHostIRPipeline(pm, options);
  switch (programTarget) {
  case HostTarget::CPU:
    ::fuser::buildCPUToLLVMPipeline(pm);
    break;
  case HostTarget::CUDA: {
    ::fuser::GPUKernelOptions kernels;
    kernels.chip = chip;
    kernels.ptxFeatures = ptxFeatures;
    kernels.cudaPath = cudaPath;
    ::fuser::buildKernelsToPTXPipeline(pm, kernels);
    if (failed(pm.run(module)) || failed(writePTX(module)))
      return failure();
    PassManager host(module.getContext());
    ::fuser::buildHostToLLVMPipeline(host, HostTarget::CUDA);
    return host.run(module);
  }
  }
  return pm.run(module);
}

/// Writes `module` (in the LLVM dialect) as an object file at `path`, with
/// every symbol internal but the programs' C entry points and the
/// metadata: the two objects of a library each define their own functions
/// and constants, which must neither collide nor be exported.
LogicalResult emitObject(ModuleOp module, StringRef path) {
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule) {
    llvm::errs() << "fuser-compile: translation to LLVM IR failed\n";
    return failure();
  }
  llvm::internalizeModule(*llvmModule, [](const llvm::GlobalValue &value) {
    return value.getName().starts_with("_mlir_ciface_") ||
           value.getName() == "fuser_program_metadata";
  });
  std::string error;
  std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!llvmTarget) {
    llvm::errs() << "fuser-compile: " << error << "\n";
    return failure();
  }
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      llvm::Triple(triple), llvm::sys::getHostCPUName(), "",
      llvm::TargetOptions(), llvm::Reloc::PIC_));
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(llvm::Triple(triple));
  std::error_code code;
  llvm::ToolOutputFile object(path, code, llvm::sys::fs::OF_None);
  if (code) {
    llvm::errs() << "fuser-compile: cannot write " << path << ": "
                 << code.message() << "\n";
    return failure();
  }
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, object.os(), nullptr,
                                   llvm::CodeGenFileType::ObjectFile)) {
    llvm::errs() << "fuser-compile: the target cannot emit objects\n";
    return failure();
  }
  passes.run(*llvmModule);
  object.keep();
  return success();
}

/// Whether `name` names a CUDA architecture (sm_<number>).
bool isChipName(StringRef name) {
  unsigned number;
  return name.consume_front("sm_") && !name.getAsInteger(10, number);
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "Fuser-MLIR ahead-of-time compiler\n");
  std::string programBackend = backend;
  if (programBackend.empty())
    programBackend = target == HostTarget::CUDA ? "nccl" : "mpi";
  if (target == HostTarget::CUDA && programBackend == "mpi") {
    llvm::errs() << "fuser-compile: MPI collectives on device buffers are not "
                    "supported; compile for --target=cuda with "
                    "--backend=nccl or --backend=cuda_ipc\n";
    return 1;
  }
  for (const cl::Option *gpuOption :
       std::initializer_list<const cl::Option *>{&chip, &ptxFeatures,
                                                 &ptxOutput, &cudaPath}) {
    if (target == HostTarget::CPU && gpuOption->getNumOccurrences()) {
      llvm::errs() << "fuser-compile: --" << gpuOption->ArgStr
                   << " applies to --target=cuda only\n";
      return 1;
    }
  }
  if (!isChipName(chip)) {
    llvm::errs() << "fuser-compile: --chip takes a CUDA architecture such as "
                    "sm_90, got '"
                 << chip << "'\n";
    return 1;
  }
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();

  DialectRegistry registry;
  ::fuser::registerAllDialects(registry);
  registerBuiltinDialectTranslation(registry);
  registerLLVMDialectTranslation(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  llvm::SourceMgr sources;
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sources, &context);
  if (!module)
    return 1;
  if (!programNames.empty()) {
    for (StringRef name : programNames)
      if (!module->lookupSymbol<func::FuncOp>(name)) {
        llvm::errs() << "fuser-compile: " << inputFile
                     << " has no function @" << name << "\n";
        return 1;
      }
    for (auto function :
         llvm::make_early_inc_range(module->getOps<func::FuncOp>()))
      if (!function.isExternal() &&
          !llvm::is_contained(programNames, function.getSymName()))
        function.erase();
  }

  // Metadata from the signatures once propagation has placed every value
  // (unannotated arguments become replicated on the program's mesh).
  {
    PassManager propagate(&context);
    propagate.nest<func::FuncOp>().addPass(
        mlir::fuser::createPropagateShardings());
    if (failed(propagate.run(*module)))
      return 1;
  }

  // What the programs communicate, read where every data movement is one
  // communication: on a copy decomposed as the pipeline decomposes them.
  if (!reportCommunication.empty()) {
    OwningOpRef<ModuleOp> decomposed = module->clone();
    PassManager report(&context);
    mlir::fuser::DecomposeReshardingsOptions decompose;
    decompose.reshardPlacement = reshardPlacement;
    report.nest<func::FuncOp>().addPass(
        mlir::fuser::createDecomposeReshardings(decompose));
    mlir::fuser::ReportCommunicationOptions options;
    options.output = reportCommunication;
    report.addPass(mlir::fuser::createReportCommunication(options));
    if (failed(report.run(*decomposed)))
      return 1;
  }
  OwningOpRef<ModuleOp> references = ModuleOp::create(module->getLoc());
  std::vector<ProgramInfo> programs;
  for (auto function : module->getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    ProgramInfo &program = programs.emplace_back();
    program.name = function.getSymName().str();
    for (auto [types, infos] :
         {std::pair<ArrayRef<Type>, std::vector<TensorInfo> *>{
              function.getArgumentTypes(), &program.inputs},
          {function.getResultTypes(), &program.outputs}})
      for (Type type : types) {
        std::optional<TensorInfo> info = describe(type);
        if (!info) {
          function.emitError("fuser-compile handles static tensors of the "
                             "runtime's element types (f32, f16, bf16, f64, "
                             "i64, i32, i8, i1), got ")
              << type;
          return 1;
        }
        infos->push_back(std::move(*info));
      }
    addReference(*references, function);
  }

  // The references run on one device and communicate nothing.
  if (failed(lowerToLLVM(*module, target, programBackend)) ||
      failed(lowerToLLVM(*references, HostTarget::CPU, "mpi")))
    return 1;

  // The metadata travels inside the library.
  std::string metadata = writeMetadata(programs);
  OpBuilder builder(module->getBodyRegion());
  builder.setInsertionPointToEnd(module->getBody());
  auto text = builder.getStringAttr(metadata + std::string(1, '\0'));
  LLVM::GlobalOp::create(
      builder, module->getLoc(),
      LLVM::LLVMArrayType::get(builder.getI8Type(), text.size()),
      /*isConstant=*/true, LLVM::Linkage::External, "fuser_program_metadata",
      text);

  std::string programObject = outputFile + ".o",
              referenceObject = outputFile + ".reference.o";
  if (failed(emitObject(*module, programObject)) ||
      failed(emitObject(*references, referenceObject)))
    return 1;
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("c++");
  if (!linker) {
    llvm::errs() << "fuser-compile: no C++ compiler driver to link with\n";
    return 1;
  }
  std::string libraryPath = "-L" + runtimeDir, rpath = "-Wl,-rpath," + runtimeDir;
  SmallVector<StringRef> arguments{
      *linker,         "-shared",   "-o",  outputFile,       programObject,
      referenceObject, libraryPath, rpath, "-lFuserRuntime", "-lm"};
  std::string error;
  if (llvm::sys::ExecuteAndWait(*linker, arguments, std::nullopt, {}, 0, 0,
                                &error) != 0) {
    llvm::errs() << "fuser-compile: linking failed " << error << "\n";
    return 1;
  }
  llvm::sys::fs::remove(programObject);
  llvm::sys::fs::remove(referenceObject);

  std::error_code code;
  llvm::raw_fd_ostream json(outputFile + ".json", code);
  if (code) {
    llvm::errs() << "fuser-compile: cannot write " << outputFile
                 << ".json: " << code.message() << "\n";
    return 1;
  }
  json << metadata;
  return 0;
}
