//===- IRModule.cpp - contexts, modules, pass managers over the C API -----===//
//
// fuser_mlir._ir: the IR side of the Python bindings, built on the C API
// (libFuserMLIRCAPI.so) only, in upstream's conventions: contexts and
// modules expose the interop capsules (_CAPIPtr, _CAPICreate) that other
// bindings on the same libMLIR.so exchange, a pass pipeline is parsed from
// its textual form, and every error diagnostic an operation emits comes
// back as one fuser_mlir.ir.MLIRError carrying the messages and locations.
//
//===----------------------------------------------------------------------===//

#include "fuser-c/Compile.h"
#include "fuser-c/Dialects.h"

#include "mlir-c/Bindings/Python/Interop.h"
#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Pass.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "mlir-c/Transforms.h"

#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace py = pybind11;

namespace {

/// Appends printed text to a std::string (the C API prints by callback).
void appendTo(MlirStringRef text, void *userData) {
  static_cast<std::string *>(userData)->append(text.data, text.length);
}

struct Diagnostic {
  std::string severity, location, message;
};

const char *describe(MlirDiagnosticSeverity severity) {
  switch (severity) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  case MlirDiagnosticRemark:
    return "remark";
  }
  return "error";
}

/// An MLIR context with every dialect our pipelines use loaded, which
/// records the diagnostics emitted while an operation runs.
class Context {
public:
  Context() : context(mlirContextCreate()), owned(true) { setUp(); }
  explicit Context(MlirContext borrowed) : context(borrowed), owned(false) {
    setUp();
  }
  ~Context() {
    live().erase(context.ptr);
    mlirContextDetachDiagnosticHandler(context, handler);
    if (owned)
      mlirContextDestroy(context);
  }
  Context(const Context &) = delete;
  Context &operator=(const Context &) = delete;

  MlirContext get() const { return context; }

  /// Starts recording the diagnostics of one operation.
  void beginOperation() { diagnostics.clear(); }

  /// Raises fuser_mlir.ir.MLIRError with `what` and the recorded
  /// diagnostics.
  [[noreturn]] void raise(const std::string &what) {
    py::list records;
    std::string message = what;
    for (const Diagnostic &diagnostic : diagnostics) {
      records.append(py::make_tuple(diagnostic.severity, diagnostic.location,
                                    diagnostic.message));
      message += "\n  " + diagnostic.location + ": " + diagnostic.severity +
                 ": " + diagnostic.message;
    }
    py::object error = py::module_::import("fuser_mlir.ir")
                           .attr("MLIRError")(message, records);
    PyErr_SetObject(error.get_type().ptr(), error.ptr());
    throw py::error_already_set();
  }

  /// The Context object of `context`: the live one if there is one (a
  /// capsule round trip gives back the same object), else a new one that
  /// borrows it from its owner.
  static std::shared_ptr<Context> of(MlirContext context) {
    std::weak_ptr<Context> &known = live()[context.ptr];
    std::shared_ptr<Context> found = known.lock();
    if (!found) {
      found = std::make_shared<Context>(context);
      known = found;
    }
    return found;
  }

  static std::shared_ptr<Context> create() {
    auto context = std::make_shared<Context>();
    live()[context->get().ptr] = context;
    return context;
  }

private:
  static std::unordered_map<void *, std::weak_ptr<Context>> &live() {
    static std::unordered_map<void *, std::weak_ptr<Context>> contexts;
    return contexts;
  }

  void setUp() {
    MlirDialectRegistry registry = mlirDialectRegistryCreate();
    fuserRegisterAllDialects(registry);
    mlirContextAppendDialectRegistry(context, registry);
    mlirDialectRegistryDestroy(registry);
    mlirContextLoadAllAvailableDialects(context);
    handler = mlirContextAttachDiagnosticHandler(context, record, this,
                                                 /*deleteUserData=*/nullptr);
  }

  static MlirLogicalResult record(MlirDiagnostic diagnostic, void *userData) {
    Diagnostic entry;
    entry.severity = describe(mlirDiagnosticGetSeverity(diagnostic));
    mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), appendTo,
                      &entry.location);
    mlirDiagnosticPrint(diagnostic, appendTo, &entry.message);
    static_cast<Context *>(userData)->diagnostics.push_back(std::move(entry));
    return mlirLogicalResultSuccess();
  }

  MlirContext context;
  bool owned;
  MlirDiagnosticHandlerID handler = 0;
  std::vector<Diagnostic> diagnostics;
};

/// A module and the context that keeps it alive; a module borrowed from
/// another binding stays its owner's to destroy.
class Module {
public:
  Module(std::shared_ptr<Context> context, MlirModule module, bool owned = true)
      : context(std::move(context)), module(module), owned(owned) {}
  ~Module() {
    if (owned)
      mlirModuleDestroy(module);
  }
  Module(const Module &) = delete;
  Module &operator=(const Module &) = delete;

  static std::unique_ptr<Module> parse(const std::string &text,
                                       std::shared_ptr<Context> context) {
    context->beginOperation();
    MlirModule module = mlirModuleCreateParse(
        context->get(), mlirStringRefCreate(text.data(), text.size()));
    if (mlirModuleIsNull(module))
      context->raise("the module does not parse");
    return std::make_unique<Module>(std::move(context), module);
  }

  MlirOperation operation() const { return mlirModuleGetOperation(module); }

  std::string str() const {
    std::string text;
    mlirOperationPrint(operation(), appendTo, &text);
    return text;
  }

  void verify() const {
    context->beginOperation();
    if (!mlirOperationVerify(operation()))
      context->raise("the module does not verify");
  }

  std::unique_ptr<Module> clone() const {
    MlirOperation copy = mlirOperationClone(operation());
    return std::make_unique<Module>(context, mlirModuleFromOperation(copy));
  }

  std::shared_ptr<Context> context;
  MlirModule module;
  bool owned;
};

/// Upstream's generic transforms (canonicalize, cse, ...) and ours. Once:
/// registering an upstream pass again builds it again to compare.
void registerPasses() {
  static bool registered = (mlirRegisterTransformsPasses(), true);
  (void)registered;
  fuserRegisterPasses();
}

/// A pass manager parsed from a textual pipeline, e.g.
/// "builtin.module(fuser-to-hostir-pipeline)".
class PassManager {
public:
  PassManager(std::shared_ptr<Context> context)
      : context(std::move(context)),
        manager(mlirPassManagerCreate(this->context->get())) {}
  ~PassManager() { mlirPassManagerDestroy(manager); }
  PassManager(const PassManager &) = delete;
  PassManager &operator=(const PassManager &) = delete;

  static std::unique_ptr<PassManager> parse(const std::string &pipeline,
                                            std::shared_ptr<Context> context) {
    registerPasses();
    auto passes = std::make_unique<PassManager>(context);
    std::string error;
    context->beginOperation();
    if (mlirLogicalResultIsFailure(mlirParsePassPipeline(
            mlirPassManagerGetAsOpPassManager(passes->manager),
            mlirStringRefCreate(pipeline.data(), pipeline.size()), appendTo,
            &error)))
      context->raise("the pass pipeline '" + pipeline +
                     "' does not parse: " + error);
    return passes;
  }

  void run(Module &module) {
    if (module.context.get() != context.get())
      throw py::value_error(
          "the module belongs to another context than the pass manager");
    context->beginOperation();
    if (mlirLogicalResultIsFailure(
            mlirPassManagerRunOnOp(manager, module.operation())))
      context->raise("the pass pipeline failed");
  }

  std::shared_ptr<Context> context;
  MlirPassManager manager;
};

/// fuser-compile's options, as Python passes them.
struct CompileArguments {
  std::string target, backend, pipelining, pipeliningCalibration;
  int64_t ranksPerNode, streams;
  std::string reshardPlacement;
  bool cacheAllocations;
  std::vector<std::string> programs;
  std::string reportCommunication;
  bool vjp;
  std::vector<std::string> vjpFunctions;
  std::string vjpSave, chip, ptxFeatures, cudaPath, ptxOutput, runtimeDir;
};

MlirStringRef refer(const std::string &text) {
  return mlirStringRefCreate(text.data(), text.size());
}

std::vector<MlirStringRef> refer(const std::vector<std::string> &texts) {
  std::vector<MlirStringRef> refs;
  for (const std::string &text : texts)
    refs.push_back(refer(text));
  return refs;
}

/// Compiles a copy of `module`: the caller's module stays as it was, and
/// compiles again.
void compile(const Module &module, const std::string &path,
             const CompileArguments &arguments) {
  FuserCompileOptions options = fuserCompileOptionsGetDefault();
  if (arguments.target == "cuda")
    options.target = FuserCompileTargetCUDA;
  else if (arguments.target != "cpu")
    throw py::value_error("the target is 'cpu' or 'cuda', got '" +
                          arguments.target + "'");
  std::vector<MlirStringRef> programs = refer(arguments.programs),
                             vjpFunctions = refer(arguments.vjpFunctions);
  options.backend = refer(arguments.backend);
  options.pipelining = refer(arguments.pipelining);
  options.pipeliningCalibration = refer(arguments.pipeliningCalibration);
  options.ranksPerNode = arguments.ranksPerNode;
  options.streams = arguments.streams;
  options.reshardPlacement = refer(arguments.reshardPlacement);
  options.cacheAllocations = arguments.cacheAllocations;
  options.programs = programs.data();
  options.numPrograms = static_cast<intptr_t>(programs.size());
  options.reportCommunication = refer(arguments.reportCommunication);
  options.vjp = arguments.vjp;
  options.vjpFunctions = vjpFunctions.data();
  options.numVjpFunctions = static_cast<intptr_t>(vjpFunctions.size());
  options.vjpSave = refer(arguments.vjpSave);
  options.chip = refer(arguments.chip);
  options.ptxFeatures = refer(arguments.ptxFeatures);
  options.cudaPath = refer(arguments.cudaPath);
  options.ptxOutput = refer(arguments.ptxOutput);
  options.runtimeDir = refer(arguments.runtimeDir);
  std::unique_ptr<Module> copy = module.clone();
  module.context->beginOperation();
  if (mlirLogicalResultIsFailure(
          fuserCompileToLibrary(copy->module, &options, refer(path))))
    module.context->raise("compiling to " + path + " failed");
}

} // namespace

PYBIND11_MODULE(_ir, m) {
  m.doc() = "Contexts, modules and pass managers of Fuser-MLIR (C API)";

  py::class_<Context, std::shared_ptr<Context>>(m, "Context")
      .def(py::init(&Context::create))
      .def_property_readonly(MLIR_PYTHON_CAPI_PTR_ATTR,
                             [](const Context &context) {
                               return py::reinterpret_steal<py::object>(
                                   mlirPythonContextToCapsule(context.get()));
                             })
      .def_static(
          MLIR_PYTHON_CAPI_FACTORY_ATTR,
          [](py::object capsule) {
            MlirContext context = mlirPythonCapsuleToContext(capsule.ptr());
            if (mlirContextIsNull(context))
              throw py::error_already_set();
            return Context::of(context);
          },
          "A context of another binding on the same libMLIR.so (borrowed: "
          "its owner must outlive it)");

  py::class_<Module>(m, "Module")
      .def_static("parse", &Module::parse, py::arg("text"), py::arg("context"))
      .def("__str__", &Module::str)
      .def("verify", &Module::verify,
           "Raises MLIRError with the verifier's diagnostics")
      .def("clone", &Module::clone)
      .def_property_readonly(
          "context", [](const Module &module) { return module.context; })
      .def_property_readonly(MLIR_PYTHON_CAPI_PTR_ATTR,
                             [](const Module &module) {
                               return py::reinterpret_steal<py::object>(
                                   mlirPythonModuleToCapsule(module.module));
                             })
      .def_static(
          MLIR_PYTHON_CAPI_FACTORY_ATTR,
          [](py::object capsule) {
            MlirModule module = mlirPythonCapsuleToModule(capsule.ptr());
            if (mlirModuleIsNull(module))
              throw py::error_already_set();
            return std::make_unique<Module>(
                Context::of(mlirModuleGetContext(module)), module,
                /*owned=*/false);
          },
          "A module of another binding on the same libMLIR.so (borrowed: "
          "its owner must outlive it)");

  py::class_<PassManager>(m, "PassManager")
      .def_static("parse", &PassManager::parse, py::arg("pipeline"),
                  py::arg("context"))
      .def("run", &PassManager::run, py::arg("module"));

  m.def(
      "compile",
      [](const Module &module, const std::string &path,
         const std::string &target, const std::string &backend,
         const std::string &pipelining,
         const std::string &pipeliningCalibration, int64_t ranksPerNode,
         int64_t streams, const std::string &reshardPlacement,
         bool cacheAllocations, const std::vector<std::string> &programs,
         const std::string &reportCommunication, bool vjp,
         const std::vector<std::string> &vjpFunctions,
         const std::string &vjpSave, const std::string &chip,
         const std::string &ptxFeatures, const std::string &cudaPath,
         const std::string &ptxOutput, const std::string &runtimeDir) {
        compile(module, path,
                {target, backend, pipelining, pipeliningCalibration,
                 ranksPerNode, streams, reshardPlacement, cacheAllocations,
                 programs, reportCommunication, vjp, vjpFunctions, vjpSave,
                 chip, ptxFeatures, cudaPath, ptxOutput, runtimeDir});
      },
      py::arg("module"), py::arg("path"), py::kw_only(),
      py::arg("target") = "cpu", py::arg("backend") = "",
      py::arg("pipelining") = "", py::arg("pipelining_calibration") = "",
      py::arg("ranks_per_node") = 0, py::arg("streams") = 0,
      py::arg("reshard_placement") = "", py::arg("cache_allocations") = true,
      py::arg("programs") = std::vector<std::string>(),
      py::arg("report_communication") = "", py::arg("vjp") = false,
      py::arg("vjp_functions") = std::vector<std::string>(),
      py::arg("vjp_save") = "", py::arg("chip") = "",
      py::arg("ptx_features") = "", py::arg("cuda_path") = "",
      py::arg("ptx_output") = "", py::arg("runtime_dir") = "",
      "Compiles a copy of `module` (which stays as it was) into the shared "
      "library `path`, with fuser-compile's options; raises MLIRError with "
      "the compiler's diagnostics");
}
