//===- fuser-compile.cpp - annotated programs to shared libraries --------===//
//
// fuser-compile prog.mlir -o prog.so
//
// Compiles every function of an annotated fuser program for CPU ranks: the
// sharded program (fuser-to-hostir-pipeline, fuser-cpu-to-llvm) and, under
// <name>__reference, the same program without shardings, which one rank
// runs to check the sharded result. The shared library links the runtime
// and carries its metadata (global shapes, element types and shardings of
// inputs and outputs) as the string `fuser_program_metadata`; the same is
// written as JSON next to it (prog.so.json).
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/HostIRToLLVM/RuntimeABI.h"
#include "fuser/InitAllDialects.h"
#include "fuser/InitAllPasses.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Pipelines/Pipelines.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
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

#include <sstream>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> inputFile(cl::Positional, cl::desc("<program.mlir>"),
                                      cl::Required);
static cl::opt<std::string> outputFile("o", cl::desc("shared library to write"),
                                       cl::value_desc("file.so"), cl::Required);
static cl::opt<std::string> runtimeDir(
    "runtime-dir", cl::desc("directory holding libFuserRuntime.so"),
    cl::init(FUSER_RUNTIME_DIR));
static cl::opt<std::string> backend(
    "backend", cl::desc("communication library the program posts on (mpi or "
                        "nccl; the CPU runtime runs both over MPI)"),
    cl::init("mpi"));
static cl::opt<int64_t> streams("streams",
                                cl::desc("pool streams of pipelined loops"),
                                cl::init(0));
static cl::opt<std::string> pipelining(
    "pipelining",
    cl::desc("how pipelined allgathers and reduce_scatters move chunks: "
             "collective or ring"),
    cl::init("collective"));
static cl::opt<std::string> reshardPlacement(
    "reshard-placement",
    cl::desc("where resharding moves data: auto, before or after"),
    cl::init("auto"));
static cl::opt<bool> cacheAllocations(
    "cache-allocations",
    cl::desc("keep intermediate buffers across executions (default on)"),
    cl::init(true));

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
  info.dtype = mlir::fuser::getRuntimeDTypeName(*dtype);
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

/// The line form the runner reads:
///   tensor <input|output> <dtype> <rank> <sizes...> mesh <rank> <sizes...>
///   devices <n> <ids...> axes (<count> <axes...>) per dim
void writeLine(llvm::raw_ostream &os, StringRef role, const TensorInfo &info) {
  auto list = [&](ArrayRef<int64_t> values) {
    os << " " << values.size();
    for (int64_t value : values)
      os << " " << value;
  };
  os << "tensor " << role << " " << info.dtype;
  list(info.shape);
  os << " mesh";
  list(info.meshShape);
  os << " devices";
  list(info.devices);
  os << " axes";
  for (const auto &axes : info.dimAxes)
    list(axes);
  os << "\n";
}

llvm::json::Object toJson(const TensorInfo &info) {
  llvm::json::Array axes;
  for (const auto &dim : info.dimAxes)
    axes.push_back(llvm::json::Array(dim));
  return llvm::json::Object{
      {"dtype", info.dtype},
      {"shape", llvm::json::Array(info.shape)},
      {"mesh", llvm::json::Object{{"shape", llvm::json::Array(info.meshShape)},
                                  {"devices", llvm::json::Array(info.devices)}}},
      {"dim_axes", std::move(axes)}};
}

/// A copy of `function` on a single device, named <name>__reference:
/// every tensor replicated on a one-device mesh (so layouts the compiler
/// chooses still have a sharding to live in), nothing to communicate.
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

LogicalResult emitObject(llvm::Module &module, StringRef path) {
  std::string error;
  std::string triple = llvm::sys::getDefaultTargetTriple();
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(llvm::Triple(triple), error);
  if (!target) {
    llvm::errs() << "fuser-compile: " << error << "\n";
    return failure();
  }
  std::unique_ptr<llvm::TargetMachine> machine(target->createTargetMachine(
      llvm::Triple(triple), llvm::sys::getHostCPUName(), "",
      llvm::TargetOptions(), llvm::Reloc::PIC_));
  module.setDataLayout(machine->createDataLayout());
  module.setTargetTriple(llvm::Triple(triple));
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
  passes.run(module);
  object.keep();
  return success();
}
} // namespace

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  cl::ParseCommandLineOptions(argc, argv, "Fuser-MLIR ahead-of-time compiler\n");
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

  // Metadata from the signatures once propagation has placed every value
  // (unannotated arguments become replicated on the program's mesh).
  {
    PassManager propagate(&context);
    propagate.nest<func::FuncOp>().addPass(
        mlir::fuser::createPropagateShardings());
    if (failed(propagate.run(*module)))
      return 1;
  }
  std::string lines;
  llvm::raw_string_ostream metadata(lines);
  metadata << "fuser-program 1\n";
  llvm::json::Array programs;
  SmallVector<func::FuncOp> functions;
  for (auto function : module->getOps<func::FuncOp>())
    if (!function.isExternal())
      functions.push_back(function);
  for (func::FuncOp function : functions) {
    metadata << "program " << function.getSymName() << "\n";
    llvm::json::Array inputs, outputs;
    for (auto [role, types, list] :
         {std::tuple<StringRef, ArrayRef<Type>, llvm::json::Array *>{
              "input", function.getArgumentTypes(), &inputs},
          {"output", function.getResultTypes(), &outputs}})
      for (Type type : types) {
        std::optional<TensorInfo> info = describe(type);
        if (!info) {
          function.emitError("fuser-compile handles static tensors of the "
                             "runtime's element types (f32, f16, bf16, f64, "
                             "i64, i32, i8, i1), got ")
              << type;
          return 1;
        }
        writeLine(metadata, role, *info);
        list->push_back(toJson(*info));
      }
    programs.push_back(llvm::json::Object{
        {"name", function.getSymName()},
        {"entry", ("_mlir_ciface_" + function.getSymName()).str()},
        {"reference",
         ("_mlir_ciface_" + function.getSymName() + "__reference").str()},
        {"inputs", std::move(inputs)},
        {"outputs", std::move(outputs)}});
    addReference(*module, function);
  }
  metadata << "end\n";

  PassManager pm(&context);
  ::fuser::FuserToHostIRPipelineOptions options;
  options.backend = backend;
  options.streams = streams;
  options.pipelining = pipelining;
  options.reshardPlacement = reshardPlacement;
  options.cacheAllocations = cacheAllocations;
  ::fuser::buildFuserToHostIRPipeline(pm, options);
  ::fuser::buildCPUToLLVMPipeline(pm);
  if (failed(pm.run(*module)))
    return 1;

  // The metadata travels inside the library.
  OpBuilder builder(module->getBodyRegion());
  builder.setInsertionPointToEnd(module->getBody());
  auto text = builder.getStringAttr(lines + std::string(1, '\0'));
  LLVM::GlobalOp::create(
      builder, module->getLoc(),
      LLVM::LLVMArrayType::get(builder.getI8Type(), text.size()),
      /*isConstant=*/true, LLVM::Linkage::External, "fuser_program_metadata",
      text);

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*module, llvmContext);
  if (!llvmModule) {
    llvm::errs() << "fuser-compile: translation to LLVM IR failed\n";
    return 1;
  }
  std::string object = outputFile + ".o";
  if (failed(emitObject(*llvmModule, object)))
    return 1;
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("c++");
  if (!linker) {
    llvm::errs() << "fuser-compile: no C++ compiler driver to link with\n";
    return 1;
  }
  std::string libraryPath = "-L" + runtimeDir, rpath = "-Wl,-rpath," + runtimeDir;
  SmallVector<StringRef> arguments{*linker, "-shared", "-o", outputFile,
                                   object, libraryPath, rpath,
                                   "-lFuserRuntime", "-lm"};
  std::string error;
  if (llvm::sys::ExecuteAndWait(*linker, arguments, std::nullopt, {}, 0, 0,
                                &error) != 0) {
    llvm::errs() << "fuser-compile: linking failed " << error << "\n";
    return 1;
  }
  llvm::sys::fs::remove(object);

  std::error_code code;
  llvm::raw_fd_ostream json(outputFile + ".json", code);
  if (code) {
    llvm::errs() << "fuser-compile: cannot write " << outputFile
                 << ".json: " << code.message() << "\n";
    return 1;
  }
  json << llvm::formatv("{0:2}",
                        llvm::json::Value(llvm::json::Object{
                            {"programs", std::move(programs)}}))
       << "\n";
  return 0;
}
