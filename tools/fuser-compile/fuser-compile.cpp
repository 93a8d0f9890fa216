//===- fuser-compile.cpp - annotated programs to shared libraries --------===//
//
// fuser-compile prog.mlir -o prog.so [--target=cpu|cuda] [--chip=sm_90]
//                 [--ptx-features=+ptx80] [--cuda-path=DIR] [--program=NAME...]
//                 [--report-communication=FILE|-]
//
// The command line of fuser::compileToLibrary (lib/Compile): every function
// of an annotated fuser program becomes a C entry point of one shared
// library that links the runtime, with its metadata (target, global shapes,
// element types and shardings of inputs and outputs) inside it and next to
// it (prog.so.json).
//
//===----------------------------------------------------------------------===//

#include "fuser/Compile/Compile.h"
#include "fuser/InitAllDialects.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;
using mlir::fuser::HostTarget;
namespace cl = llvm::cl;

static cl::OptionCategory compileOptions("fuser-compile options");

static cl::opt<std::string> inputFile(cl::Positional,
                                      cl::desc("<program.mlir>"), cl::Required,
                                      cl::cat(compileOptions));
static cl::opt<std::string> outputFile("o", cl::desc("shared library to write"),
                                       cl::value_desc("file.so"), cl::Required,
                                       cl::cat(compileOptions));
static cl::opt<std::string> runtimeDir(
    "runtime-dir",
    cl::desc("directory holding libFuserRuntime.so (default: the one "
             "installed next to fuser-compile, else the build tree's)"),
    cl::cat(compileOptions));
static cl::opt<HostTarget> target("target",
                                  cl::desc("what the program runs on"),
                                  mlir::fuser::hostTargetChoices(),
                                  cl::init(HostTarget::CPU),
                                  cl::cat(compileOptions));
static cl::opt<std::string> chip(
    "chip",
    cl::desc("GPU architecture of --target=cuda, recorded in the metadata"),
    cl::init("sm_90"), cl::cat(compileOptions));
static cl::opt<std::string> ptxFeatures(
    "ptx-features",
    cl::desc("PTX version of --target=cuda kernels, as an NVPTX feature"),
    cl::init("+ptx80"), cl::cat(compileOptions));
static cl::opt<std::string> ptxOutput(
    "ptx-output",
    cl::desc("also write the PTX of --target=cuda kernels to this file"),
    cl::value_desc("file.ptx"), cl::cat(compileOptions));
static cl::opt<std::string> cudaPath(
    "cuda-path",
    cl::desc("CUDA toolkit providing libdevice for --target=cuda kernels "
             "(default: $CUDA_HOME, else /usr/local/cuda)"),
    cl::value_desc("dir"), cl::cat(compileOptions));
static cl::opt<hostir::Backend> backend(
    "backend",
    cl::desc("communication library the program posts on: mpi or nccl (the "
             "CPU runtime runs both over MPI), or cuda_ipc for GPUs (default: "
             "mpi for --target=cpu, nccl for --target=cuda)"),
    mlir::fuser::backendChoices(), cl::cat(compileOptions));
static cl::list<std::string> programNames(
    "program",
    cl::desc("compile only this function (repeatable; default: every "
             "function of the input)"),
    cl::value_desc("name"), cl::cat(compileOptions));
static cl::opt<bool> vjp(
    "vjp",
    cl::desc("also compile @f__vjp, @f__fwd and @f__bwd, the reverse-mode "
             "derivative programs of every function with a floating-point "
             "input (docs/differentiation.md)"),
    cl::cat(compileOptions));
static cl::list<std::string> vjpFunctions(
    "vjp-function",
    cl::desc("differentiate only this function (repeatable; implies --vjp)"),
    cl::value_desc("name"), cl::cat(compileOptions));
static cl::opt<mlir::fuser::SavedValues> vjpSave(
    "vjp-save", cl::desc("what @f__fwd saves for @f__bwd"),
    mlir::fuser::savedValuesChoices(),
    cl::init(mlir::fuser::SavedValues::LibraryCalls), cl::cat(compileOptions));
static cl::opt<int64_t> streams("streams",
                                cl::desc("pool streams of pipelined loops"),
                                cl::init(0), cl::cat(compileOptions));
static cl::opt<mlir::fuser::PipeliningPolicy> pipelining(
    "pipelining",
    cl::desc("how pipelined communications overlap (default: auto for "
             "--target=cuda, collective for --target=cpu)"),
    mlir::fuser::pipeliningChoices(), cl::cat(compileOptions));
static cl::opt<std::string> pipeliningCalibration(
    "pipelining-calibration",
    cl::desc("the machine's calibration for --pipelining=auto: a JSON file "
             "(fuser-calibrate writes them), a folder of them, or 'builtin' "
             "(default: $FUSER_CALIBRATION, else "
             "${XDG_DATA_HOME:-~/.local/share}/fuser/calibrations, else the "
             "built-in 2 x H200 machine)"),
    cl::value_desc("file|folder|builtin"), cl::cat(compileOptions));
static cl::opt<int64_t> ranksPerNode(
    "ranks-per-node",
    cl::desc("ranks of each node, consecutive (default: the calibration's "
             "machine's, else one node): teams across nodes communicate "
             "over NCCL only, never CUDA IPC"),
    cl::init(0), cl::cat(compileOptions));
static cl::opt<mlir::fuser::ReshardPlacement> reshardPlacement(
    "reshard-placement", cl::desc("where resharding moves data"),
    mlir::fuser::reshardPlacementChoices(),
    cl::init(mlir::fuser::ReshardPlacement::Auto), cl::cat(compileOptions));
static cl::opt<bool> cacheAllocations(
    "cache-allocations",
    cl::desc("keep intermediate buffers across executions (default on)"),
    cl::init(true), cl::cat(compileOptions));
static cl::opt<std::string> reportCommunication(
    "report-communication",
    cl::desc("write the bytes each rank of each program sends and receives, "
             "per communication, as JSON to this file ('-' for stdout)"),
    cl::value_desc("file"), cl::cat(compileOptions));

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  // --help lists the compiler's own options, not the libraries' (LLVM's
  // code generators register hundreds).
  cl::HideUnrelatedOptions(compileOptions);
  cl::ParseCommandLineOptions(argc, argv,
                              "Fuser-MLIR ahead-of-time compiler\n");
  for (const cl::Option *gpuOption : std::initializer_list<const cl::Option *>{
           &chip, &ptxFeatures, &ptxOutput, &cudaPath}) {
    if (target == HostTarget::CPU && gpuOption->getNumOccurrences()) {
      llvm::errs() << "fuser-compile: --" << gpuOption->ArgStr
                   << " applies to --target=cuda only\n";
      return 1;
    }
  }
  ::fuser::CompileOptions options;
  options.target = target;
  if (backend.getNumOccurrences())
    options.backend = backend;
  options.chip = chip;
  options.ptxFeatures = ptxFeatures;
  options.ptxOutput = ptxOutput;
  options.cudaPath = cudaPath;
  options.programs.assign(programNames.begin(), programNames.end());
  options.vjp = vjp || !vjpFunctions.empty();
  options.vjpFunctions.assign(vjpFunctions.begin(), vjpFunctions.end());
  options.vjpSave = vjpSave;
  options.streams = streams;
  if (pipelining.getNumOccurrences())
    options.pipelining = pipelining;
  options.pipeliningCalibration = pipeliningCalibration;
  options.ranksPerNode = ranksPerNode;
  options.reshardPlacement = reshardPlacement;
  options.cacheAllocations = cacheAllocations;
  options.reportCommunication = reportCommunication;
  options.runtimeDir = runtimeDir;

  DialectRegistry registry;
  ::fuser::registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // A diagnostic names its location in the program; the op it is attached
  // to, printed whole, would bury it in lowered IR.
  context.printOpOnDiagnostic(false);
  llvm::SourceMgr sources;
  SourceMgrDiagnosticHandler diagnostics(sources, &context);
  OwningOpRef<ModuleOp> module =
      parseSourceFile<ModuleOp>(inputFile, sources, &context);
  if (!module ||
      failed(::fuser::compileToLibrary(*module, options, outputFile)))
    return 1;
  return 0;
}
