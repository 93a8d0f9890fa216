//===- CompileToLibrary.cpp - annotated programs to shared libraries ------===//
//
// Every function of an annotated fuser program is compiled for CPU ranks or
// for GPUs: the sharded program (fuser-to-hostir-pipeline, then
// fuser-cpu-to-llvm or fuser-cuda-to-llvm, kernels as PTX) and, under
// <name>__reference, the same program without shardings, always for the
// CPU, which one rank runs to check the sharded result independently of
// the target. The two are separate modules and objects whose symbols are
// all internal but the C entry points and the metadata, so they cannot
// collide. The shared library links the runtime and carries its metadata
// as the JSON string `fuser_program_metadata`.
//
//===----------------------------------------------------------------------===//

#include "fuser/Compile/Compile.h"

#include "ProgramMetadata.h"

#include "fuser/Conversion/HostIRToLLVM/RuntimeABI.h"
#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Dialect/Fuser/Analysis/PipelineCalibration.h"
#include "fuser/Pipelines/Pipelines.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/IR/AttrTypeSubElements.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Export.h"

#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/IPO/Internalize.h"

#include <dlfcn.h>

using namespace mlir;
using mlir::fuser::HostTarget;

namespace {
/// A copy of `function` in `module` on a single device, named
/// <name>__reference: every tensor replicated on a one-device mesh (so
/// layouts the compiler chooses still have a sharding to live in), nothing
/// to communicate.
void addReference(ModuleOp module, func::FuncOp function) {
  auto single = mlir::fuser::MeshAttr::get(module.getContext(), {1});
  AttrTypeReplacer replicateOnSingle;
  replicateOnSingle.addReplacement(
      [&](RankedTensorType tensor) -> std::pair<Type, WalkResult> {
        SmallVector<SmallVector<int64_t>> replicated(tensor.getRank());
        return {tensor.cloneWithEncoding(
                    mlir::fuser::ShardingAttr::get(single, replicated)),
                WalkResult::skip()};
      });
  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  auto reference = cast<func::FuncOp>(builder.clone(*function));
  reference.setSymName((function.getSymName() + "__reference").str());
  replicateOnSingle.recursivelyReplaceElementsIn(
      reference, /*replaceAttrs=*/true, /*replaceLocs=*/false,
      /*replaceTypes=*/true);
}

/// Writes the kernels' PTX (the gpu.binary's objects) to `path`.
LogicalResult writePTX(ModuleOp module, StringRef path) {
  std::error_code code;
  llvm::raw_fd_ostream ptx(path, code);
  if (code)
    return module.emitError("cannot write ") << path << ": " << code.message();
  module.walk([&](gpu::BinaryOp binary) {
    for (Attribute object : binary.getObjects())
      ptx << cast<gpu::ObjectAttr>(object).getObject().getValue();
  });
  return success();
}

/// How pipelines overlap for `target`: the option's, else auto on GPUs.
mlir::fuser::PipeliningPolicy getPipelining(const ::fuser::CompileOptions &options,
                                            HostTarget target) {
  return options.pipelining.value_or(
      target == HostTarget::CUDA ? mlir::fuser::PipeliningPolicy::Auto
                                 : mlir::fuser::PipeliningPolicy::Collective);
}

/// What the programs were planned for: the calibration `auto` weighs
/// (none for a fixed mode) and the ranks of each node.
struct PlannedMachine {
  std::optional<mlir::fuser::PipelineCalibration> calibration;
  int64_t worldSize;
  int64_t ranksPerNode;
};

/// Finds the calibration once for every program of `module` (they share
/// the world): the programs are planned with it, and the metadata says so.
FailureOr<PlannedMachine> planMachine(ModuleOp module,
                                      const ::fuser::CompileOptions &options) {
  PlannedMachine planned;
  planned.worldSize = mlir::fuser::getRequiredWorldSize(module);
  planned.ranksPerNode = options.ranksPerNode;
  if (getPipelining(options, options.target) !=
      mlir::fuser::PipeliningPolicy::Auto)
    return planned;
  llvm::Expected<mlir::fuser::PipelineCalibration> found =
      mlir::fuser::findCalibration(options.pipeliningCalibration,
                                   planned.worldSize, options.ranksPerNode);
  if (!found)
    return module.emitError(llvm::toString(found.takeError()));
  if (!planned.ranksPerNode)
    planned.ranksPerNode = found->machine.ranksPerNode;
  planned.calibration = std::move(*found);
  return planned;
}

/// Lowers the fuser functions of `module` to the LLVM dialect for
/// `target`, posting communications on `backend`.
LogicalResult lowerToLLVM(ModuleOp module, HostTarget target,
                          hostir::Backend backend,
                          const ::fuser::CompileOptions &options,
                          const PlannedMachine &planned) {
  PassManager pm(module.getContext());
  ::fuser::FuserToHostIRPipelineOptions pipeline;
  pipeline.backend = backend;
  pipeline.streams = options.streams;
  pipeline.pipelining = getPipelining(options, target);
  if (planned.calibration)
    pipeline.pipeliningCalibration = planned.calibration->path.empty()
                                         ? std::string("builtin")
                                         : planned.calibration->path;
  pipeline.ranksPerNode = planned.ranksPerNode;
  pipeline.reshardPlacement = options.reshardPlacement;
  pipeline.cacheAllocations = options.cacheAllocations;
  ::fuser::buildFuserToHostIRPipeline(pm, pipeline);
  switch (target) {
  case HostTarget::CPU:
    ::fuser::buildCPUToLLVMPipeline(pm);
    break;
  case HostTarget::CUDA: {
    ::fuser::GPUKernelOptions kernels;
    kernels.chip = options.chip;
    kernels.ptxFeatures = options.ptxFeatures;
    if (!options.cudaPath.empty())
      kernels.cudaPath = options.cudaPath;
    ::fuser::buildKernelsToPTXPipeline(pm, kernels);
    if (failed(pm.run(module)) || (!options.ptxOutput.empty() &&
                                   failed(writePTX(module, options.ptxOutput))))
      return failure();
    PassManager host(module.getContext());
    ::fuser::buildHostToLLVMPipeline(host, HostTarget::CUDA);
    return host.run(module);
  }
  }
  return pm.run(module);
}

/// Writes `module` (in the LLVM dialect) as an object file at `path`, with
/// every symbol internal but the programs' entry points and the
/// metadata: the two objects of a library each define their own functions
/// and constants, which must neither collide nor be exported.
LogicalResult emitObject(ModuleOp module, StringRef path) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return module.emitError("translation to LLVM IR failed");
  llvm::internalizeModule(*llvmModule, [](const llvm::GlobalValue &value) {
    return value.getName().starts_with(mlir::fuser::kPackedEntryPrefix) ||
           value.getName() == "fuser_program_metadata";
  });
  std::string error;
  llvm::Triple triple(llvm::sys::getDefaultTargetTriple());
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return module.emitError(error);
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, llvm::sys::getHostCPUName(), "", llvm::TargetOptions(),
      llvm::Reloc::PIC_));
  llvmModule->setDataLayout(machine->createDataLayout());
  llvmModule->setTargetTriple(triple);
  std::error_code code;
  llvm::ToolOutputFile object(path, code, llvm::sys::fs::OF_None);
  if (code)
    return module.emitError("cannot write ") << path << ": " << code.message();
  llvm::legacy::PassManager passes;
  if (machine->addPassesToEmitFile(passes, object.os(), nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return module.emitError("the host target cannot emit objects");
  passes.run(*llvmModule);
  object.keep();
  return success();
}

/// Where libFuserRuntime.so is: the directory given, else the one holding
/// the code of this compiler (an installed libFuserMLIR.so sits next to
/// the runtime) or its ../lib (an installed fuser-compile), else the build
/// tree's runtime.
std::string findRuntimeDir(const ::fuser::CompileOptions &options) {
  if (!options.runtimeDir.empty())
    return options.runtimeDir;
  Dl_info image;
  if (dladdr(reinterpret_cast<void *>(&findRuntimeDir), &image) &&
      image.dli_fname) {
    SmallString<256> directory(llvm::sys::path::parent_path(image.dli_fname));
    for (StringRef candidate : {"", "../lib"}) {
      SmallString<256> runtime(directory);
      llvm::sys::path::append(runtime, candidate, "libFuserRuntime.so");
      SmallString<256> resolved;
      if (!llvm::sys::fs::real_path(runtime, resolved))
        return llvm::sys::path::parent_path(resolved).str();
    }
  }
  return FUSER_BUILD_RUNTIME_DIR;
}

/// Links the two objects and the runtime into the shared library at
/// `libraryPath`.
LogicalResult linkLibrary(ModuleOp module, ArrayRef<std::string> objects,
                          StringRef libraryPath, StringRef runtimeDir) {
  llvm::ErrorOr<std::string> linker = llvm::sys::findProgramByName("c++");
  if (!linker)
    return module.emitError("no C++ compiler driver (c++) to link with");
  std::string libraryDir = ("-L" + runtimeDir).str(),
              rpath = ("-Wl,-rpath," + runtimeDir).str();
  SmallVector<StringRef> arguments{*linker, "-shared", "-o", libraryPath};
  arguments.append(objects.begin(), objects.end());
  arguments.append({libraryDir, rpath, "-lFuserRuntime", "-lm"});
  std::string error;
  if (llvm::sys::ExecuteAndWait(*linker, arguments, std::nullopt, {}, 0, 0,
                                &error) != 0)
    return module.emitError("linking ") << libraryPath << " failed " << error;
  return success();
}

/// Whether `name` names a CUDA architecture (sm_<number>).
bool isChipName(StringRef name) {
  unsigned number;
  return name.consume_front("sm_") && !name.getAsInteger(10, number);
}

/// Keeps only the functions `names` lists (all when empty).
LogicalResult selectPrograms(ModuleOp module, ArrayRef<std::string> names) {
  if (names.empty())
    return success();
  for (StringRef name : names)
    if (!module.lookupSymbol<func::FuncOp>(name))
      return module.emitError("no function @") << name << " to compile";
  for (auto function :
       llvm::make_early_inc_range(module.getOps<func::FuncOp>()))
    if (!function.isExternal() &&
        !llvm::is_contained(names, function.getSymName()))
      function.erase();
  return success();
}
} // namespace

namespace fuser {
FailureOr<LLVMDialectPrograms>
compileToLLVMDialect(ModuleOp module, const CompileOptions &options) {
  bool cuda = options.target == HostTarget::CUDA;
  hostir::Backend backend = options.backend.value_or(
      cuda ? hostir::Backend::NCCL : hostir::Backend::MPI);
  if (cuda && backend == hostir::Backend::MPI)
    return module.emitError("MPI collectives on device buffers are not "
                            "supported; compile for the cuda target with the "
                            "nccl or cuda_ipc backend");
  if (!isChipName(options.chip))
    return module.emitError("the chip is a CUDA architecture such as sm_90, "
                            "got '")
           << options.chip << "'";
  if (failed(selectPrograms(module, options.programs)))
    return failure();

  // Metadata from the signatures once propagation has placed every value
  // (unannotated arguments become replicated on the program's mesh), of the
  // derivative programs too when they are asked for, after
  // upstream `shard` annotations, if any, became shardings and upstream
  // compute ops with a fuser equivalent became fuser ops.
  MLIRContext *context = module.getContext();
  {
    PassManager propagate(context);
    propagate.addPass(mlir::fuser::createConvertShardToFuser());
    propagate.addPass(mlir::fuser::createConvertLinalgToFuser());
    if (options.vjp) {
      mlir::fuser::GenerateVjpOptions vjpOptions;
      vjpOptions.functions.assign(options.vjpFunctions.begin(),
                                  options.vjpFunctions.end());
      vjpOptions.save = options.vjpSave;
      propagate.addPass(mlir::fuser::createGenerateVjp(vjpOptions));
    }
    propagate.nest<func::FuncOp>().addPass(
        mlir::fuser::createPropagateShardings());
    if (failed(propagate.run(module)))
      return failure();
  }

  // What the programs communicate, read where every data movement is one
  // communication: on a copy decomposed as the pipeline decomposes them.
  if (!options.reportCommunication.empty()) {
    OwningOpRef<ModuleOp> decomposed = module.clone();
    PassManager report(context);
    mlir::fuser::DecomposeReshardingsOptions decompose;
    decompose.reshardPlacement = options.reshardPlacement;
    report.nest<func::FuncOp>().addPass(
        mlir::fuser::createDecomposeReshardings(decompose));
    mlir::fuser::ReportCommunicationOptions reportOptions;
    reportOptions.output = options.reportCommunication;
    report.addPass(mlir::fuser::createReportCommunication(reportOptions));
    if (failed(report.run(*decomposed)))
      return failure();
  }
  LLVMDialectPrograms lowered;
  lowered.references = ModuleOp::create(module.getLoc());
  std::vector<ProgramInfo> programs;
  for (auto function : module.getOps<func::FuncOp>()) {
    if (function.isExternal())
      continue;
    std::optional<ProgramInfo> program = describeProgram(function);
    if (!program)
      return failure();
    programs.push_back(std::move(*program));
    addReference(*lowered.references, function);
  }

  FailureOr<PlannedMachine> planned = planMachine(module, options);
  if (failed(planned))
    return failure();
  // The references run on one device and communicate nothing.
  PlannedMachine single{mlir::fuser::PipelineCalibration::h200(), 1, 0};
  if (failed(lowerToLLVM(module, options.target, backend, options, *planned)) ||
      failed(lowerToLLVM(*lowered.references, HostTarget::CPU,
                         hostir::Backend::MPI, options, single)))
    return failure();

  // The metadata travels inside the library.
  lowered.metadata = writeMetadata(
      programs, options,
      {planned->calibration ? planned->calibration->describe() : "",
       planned->calibration ? planned->calibration->machine
                            : mlir::fuser::CalibratedMachine(),
       planned->ranksPerNode ? planned->ranksPerNode : planned->worldSize});
  OpBuilder builder(module.getBodyRegion());
  builder.setInsertionPointToEnd(module.getBody());
  auto text = builder.getStringAttr(lowered.metadata + std::string(1, '\0'));
  LLVM::GlobalOp::create(
      builder, module.getLoc(),
      LLVM::LLVMArrayType::get(builder.getI8Type(), text.size()),
      /*isConstant=*/true, LLVM::Linkage::External, "fuser_program_metadata",
      text);
  return lowered;
}

LogicalResult compileToLibrary(ModuleOp module, const CompileOptions &options,
                               StringRef libraryPath) {
  FailureOr<LLVMDialectPrograms> lowered =
      compileToLLVMDialect(module, options);
  if (failed(lowered))
    return failure();

  // Everything is written under a name of this compilation's own, then
  // renamed into place: processes compiling to one path at once (every
  // rank of a job) do not write over one another's objects, and a reader
  // finds the old library whole or the new one whole.
  int descriptor = -1;
  SmallString<128> partial;
  if (std::error_code code = llvm::sys::fs::createUniqueFile(
          libraryPath + ".partial-%%%%%%%%", descriptor, partial))
    return module.emitError("cannot write next to ")
           << libraryPath << ": " << code.message();
  llvm::sys::Process::SafelyCloseFileDescriptor(descriptor);
  std::string staged = partial.str().str();
  std::string programObject = staged + ".o",
              referenceObject = staged + ".reference.o",
              stagedJson = staged + ".json";
  LogicalResult built =
      success(succeeded(emitObject(module, programObject)) &&
              succeeded(emitObject(*lowered->references, referenceObject)) &&
              succeeded(linkLibrary(module, {programObject, referenceObject},
                                    staged, findRuntimeDir(options))));
  llvm::sys::fs::remove(programObject);
  llvm::sys::fs::remove(referenceObject);
  auto discard = [&] {
    llvm::sys::fs::remove(staged);
    llvm::sys::fs::remove(stagedJson);
    return failure();
  };
  if (failed(built))
    return discard();
  {
    std::error_code code;
    llvm::raw_fd_ostream json(stagedJson, code);
    if (code) {
      module.emitError("cannot write ")
          << stagedJson << ": " << code.message();
      return discard();
    }
    json << lowered->metadata;
  }
  // The metadata first: the library embeds its own, and the file beside it
  // is for readers without a loader.
  if (std::error_code code =
          llvm::sys::fs::rename(stagedJson, libraryPath + ".json")) {
    module.emitError("cannot write ")
        << libraryPath << ".json: " << code.message();
    return discard();
  }
  if (std::error_code code = llvm::sys::fs::rename(staged, libraryPath)) {
    module.emitError("cannot write ") << libraryPath << ": " << code.message();
    return discard();
  }
  return success();
}
} // namespace fuser
