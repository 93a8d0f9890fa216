//===- PipelineCalibration.cpp - what the machine's GEMMs and links do ---===//

#include "fuser/Dialect/Fuser/Analysis/PipelineCalibration.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Process.h"

#include <algorithm>

using namespace mlir;
using namespace mlir::fuser;

/// The version of the file format fuser-calibrate writes (its "version").
static constexpr int64_t kCalibrationVersion = 1;

PipelineCalibration PipelineCalibration::h200() {
  PipelineCalibration machine;
  // cuBLASLt bf16 on one H200 (the benchmark's compute-only GEMMs and the
  // ring's chunks of them): 680 to 770 TFLOP/s for GEMMs of 2048 and more
  // on every side, 620 to 760 with a side of 1024, 470 with k = 512.
  machine.gemmClasses = {
      {2048, 740e12}, {1024, 720e12}, {512, 470e12}, {0, 250e12}};
  machine.gemmCallOverhead = 5e-6;
  // GEMMs of 4.4 and 8.8 TFLOP ran at 684 to 701 TFLOP/s, those of 0.5 to
  // 2.2 TFLOP at 704 to 766.
  machine.sustainedAboveFlop = 4e12;
  machine.sustainedFlopsPerSecond = 690e12;
  machine.memoryBytesPerSecond = 4.0e12;
  // NCCL over NVLink: collectives run kernels on the SMs, so a GEMM beside
  // one barely overlaps it (a 5.9 ms GEMM beside a 4.6 ms all-gather took
  // 9.8 ms). The copy engine overlaps almost fully (5.9 ms beside a 2.9 ms
  // peer copy took 6.4 ms); a ring's pulls move about 440 GB/s each way
  // (fitted to the ring's times where the transfer dominates,
  // AG+GEMM 16384x8192x1024).
  machine.nccl = {250e9, 20e-6, 0.85};
  machine.copyEngine = {440e9, 15e-6, 0.15};
  // Not measured: a 400 Gb/s InfiniBand port per GPU (DGX H100 and H200),
  // of which NCCL reaches about 45 GB/s; its kernels still run on the SMs.
  machine.network = {45e9, 30e-6, 0.85};
  machine.machine = {"NVIDIA H200", 2, 0};
  return machine;
}

/// Replaces each of `fields` that `object` states (a number, or an error
/// naming `where` and the key).
static llvm::Error readNumbers(
    const llvm::json::Object &object, llvm::StringRef where,
    std::initializer_list<std::pair<llvm::StringRef, double *>> fields) {
  for (auto [key, value] : fields) {
    const llvm::json::Value *field = object.get(key);
    if (!field)
      continue;
    std::optional<double> number = field->getAsNumber();
    if (!number)
      return llvm::createStringError("'" + where + key + "' must be a number");
    *value = *number;
  }
  return llvm::Error::success();
}

static llvm::Error readLink(const llvm::json::Object &object,
                            llvm::StringRef name, LinkCalibration &link) {
  const llvm::json::Object *fields = object.getObject(name);
  if (!fields)
    return llvm::Error::success();
  return readNumbers(*fields, (name + ".").str(),
                     {{"bytes_per_second", &link.bytesPerSecond},
                      {"latency_s", &link.latency},
                      {"interference", &link.interference}});
}

static llvm::Error readMachine(const llvm::json::Object &object,
                               CalibratedMachine &machine) {
  const llvm::json::Object *fields = object.getObject("machine");
  if (!fields)
    return llvm::Error::success();
  if (const llvm::json::Value *gpu = fields->get("gpu")) {
    std::optional<llvm::StringRef> name = gpu->getAsString();
    if (!name)
      return llvm::createStringError("'machine.gpu' must be a string");
    machine.gpu = name->str();
  }
  for (auto [key, count] :
       {std::pair<llvm::StringRef, int64_t *>{"devices", &machine.devices},
        {"ranks_per_node", &machine.ranksPerNode}}) {
    const llvm::json::Value *field = fields->get(key);
    if (!field)
      continue;
    std::optional<int64_t> value = field->getAsInteger();
    if (!value || *value < 1)
      return llvm::createStringError("'machine." + key +
                                     "' must be a positive integer");
    *count = *value;
  }
  return llvm::Error::success();
}

/// Replaces what `object` states in `machine`.
static llvm::Error readCalibration(const llvm::json::Object &object,
                                   PipelineCalibration &machine) {
  if (const llvm::json::Value *version = object.get("version"))
    if (version->getAsInteger() != kCalibrationVersion)
      return llvm::createStringError(
          "it is of another format version (this compiler reads version " +
          std::to_string(kCalibrationVersion) +
          "): measure the machine again with fuser-calibrate");
  machine.machine = {};
  if (llvm::Error error = readMachine(object, machine.machine))
    return error;
  if (const llvm::json::Array *classes = object.getArray("gemm_classes")) {
    machine.gemmClasses.clear();
    for (const llvm::json::Value &entry : *classes) {
      const llvm::json::Object *fields = entry.getAsObject();
      std::optional<int64_t> minDim =
          fields ? fields->getInteger("min_dim") : std::nullopt;
      std::optional<double> rate =
          fields ? fields->getNumber("flops_per_second") : std::nullopt;
      if (!minDim || !rate || *rate <= 0)
        return llvm::createStringError(
            "every entry of 'gemm_classes' needs an integer 'min_dim' and a "
            "positive 'flops_per_second'");
      machine.gemmClasses.push_back({*minDim, *rate});
    }
    if (machine.gemmClasses.empty())
      return llvm::createStringError("'gemm_classes' is empty");
    llvm::sort(machine.gemmClasses, [](const GemmClass &a, const GemmClass &b) {
      return a.minDim > b.minDim;
    });
  }
  if (llvm::Error error = readNumbers(
          object, "",
          {{"gemm_call_overhead_s", &machine.gemmCallOverhead},
           {"sustained_above_flop", &machine.sustainedAboveFlop},
           {"sustained_flops_per_second", &machine.sustainedFlopsPerSecond},
           {"memory_bytes_per_second", &machine.memoryBytesPerSecond}}))
    return error;
  if (llvm::Error error = readLink(object, "nccl", machine.nccl))
    return error;
  if (llvm::Error error = readLink(object, "copy_engine", machine.copyEngine))
    return error;
  if (llvm::Error error = readLink(object, "network", machine.network))
    return error;
  for (auto [name, rate] :
       {std::pair<llvm::StringRef, double>{"sustained_flops_per_second",
                                           machine.sustainedFlopsPerSecond},
        {"memory_bytes_per_second", machine.memoryBytesPerSecond},
        {"nccl.bytes_per_second", machine.nccl.bytesPerSecond},
        {"copy_engine.bytes_per_second", machine.copyEngine.bytesPerSecond},
        {"network.bytes_per_second", machine.network.bytesPerSecond}})
    if (rate <= 0)
      return llvm::createStringError("'" + name + "' must be positive");
  return llvm::Error::success();
}

/// The JSON object the file at `path` holds.
static llvm::Expected<llvm::json::Value> readDocument(llvm::StringRef path) {
  auto text = llvm::MemoryBuffer::getFile(path);
  if (!text)
    return llvm::createStringError("cannot read the calibration '" + path +
                                   "': " + text.getError().message());
  llvm::Expected<llvm::json::Value> document =
      llvm::json::parse((*text)->getBuffer());
  if (!document)
    return llvm::createStringError(
        "the calibration '" + path +
        "' is not JSON: " + llvm::toString(document.takeError()));
  if (!document->getAsObject())
    return llvm::createStringError("the calibration '" + path +
                                   "' must be a JSON object");
  return document;
}

/// The calibration `object`, read from `path`, states.
static llvm::Expected<PipelineCalibration>
fromDocument(llvm::StringRef path, const llvm::json::Object &object) {
  PipelineCalibration machine = PipelineCalibration::h200();
  machine.path = path.str();
  if (llvm::Error error = readCalibration(object, machine))
    return llvm::createStringError("the calibration '" + path +
                                   "': " + llvm::toString(std::move(error)));
  return machine;
}

llvm::Expected<PipelineCalibration>
PipelineCalibration::load(llvm::StringRef path) {
  llvm::Expected<llvm::json::Value> document = readDocument(path);
  if (!document)
    return document.takeError();
  return fromDocument(path, *document->getAsObject());
}

double PipelineCalibration::gemmSeconds(int64_t m, int64_t n, int64_t k) const {
  int64_t smallest = std::min({m, n, k});
  const GemmClass *chosen = &gemmClasses.back();
  for (const GemmClass &shapeClass : gemmClasses)
    if (smallest >= shapeClass.minDim) {
      chosen = &shapeClass;
      break;
    }
  double flop = 2.0 * double(m) * double(n) * double(k);
  double rate = chosen->flopsPerSecond;
  if (flop > sustainedAboveFlop)
    rate = std::min(rate, sustainedFlopsPerSecond);
  return gemmCallOverhead + flop / rate;
}

std::string PipelineCalibration::describe() const {
  if (path.empty())
    return "built-in (2 x NVIDIA H200, NVLink)";
  std::string text = path + " (";
  text += machine.gpu.empty() ? "a machine it does not name" : machine.gpu;
  if (machine.devices)
    text += ", " + std::to_string(machine.devices) + " devices";
  if (machine.ranksPerNode)
    text += ", " + std::to_string(machine.ranksPerNode) + " per node";
  return text + ")";
}

std::string mlir::fuser::getDefaultCalibrationFolder() {
  llvm::SmallString<128> folder;
  if (std::optional<std::string> data =
          llvm::sys::Process::GetEnv("XDG_DATA_HOME");
      data && !data->empty()) {
    folder = *data;
  } else {
    std::optional<std::string> home = llvm::sys::Process::GetEnv("HOME");
    if (!home || home->empty())
      return "";
    folder = *home;
    llvm::sys::path::append(folder, ".local", "share");
  }
  llvm::sys::path::append(folder, "fuser", "calibrations");
  return folder.str().str();
}

/// The calibration of the folder `folder` measured on `devices` devices
/// (and `ranksPerNode` ranks per node, where not 0).
static llvm::Expected<PipelineCalibration>
findInFolder(llvm::StringRef folder, int64_t devices, int64_t ranksPerNode) {
  std::error_code error;
  std::vector<PipelineCalibration> matching;
  for (llvm::sys::fs::directory_iterator entry(folder, error), end;
       !error && entry != end; entry.increment(error)) {
    if (llvm::sys::path::extension(entry->path()) != ".json")
      continue;
    // A folder of calibrations may hold other files too: only documents of
    // format "fuser-calibration" count.
    llvm::Expected<llvm::json::Value> document = readDocument(entry->path());
    if (!document) {
      llvm::consumeError(document.takeError());
      continue;
    }
    const llvm::json::Object &object = *document->getAsObject();
    if (object.getString("format") != "fuser-calibration")
      continue;
    llvm::Expected<PipelineCalibration> loaded =
        fromDocument(entry->path(), object);
    if (!loaded)
      return loaded.takeError();
    const CalibratedMachine &machine = loaded->machine;
    if (machine.devices == devices &&
        (!ranksPerNode || machine.ranksPerNode == ranksPerNode))
      matching.push_back(std::move(*loaded));
  }
  if (error)
    return llvm::createStringError("cannot read the calibrations in '" +
                                   folder + "': " + error.message());
  if (matching.empty())
    return PipelineCalibration::h200();
  if (matching.size() > 1) {
    llvm::sort(matching,
               [](const PipelineCalibration &a, const PipelineCalibration &b) {
                 return a.path < b.path;
               });
    std::string names;
    for (const PipelineCalibration &calibration : matching)
      names += "\n  " + calibration.describe();
    return llvm::createStringError(
        "more than one calibration in '" + folder + "' fits " +
        std::to_string(devices) + " devices" +
        (ranksPerNode ? ", " + std::to_string(ranksPerNode) + " per node"
                      : std::string()) +
        ": name one (--pipelining-calibration, $FUSER_CALIBRATION) or the "
        "ranks per node (--ranks-per-node):" +
        names);
  }
  return std::move(matching.front());
}

/// `choice` (a file, a folder or "builtin") for a program of `devices`.
static llvm::Expected<PipelineCalibration>
resolve(llvm::StringRef choice, int64_t devices, int64_t ranksPerNode) {
  if (choice == "builtin")
    return PipelineCalibration::h200();
  if (llvm::sys::fs::is_directory(choice))
    return findInFolder(choice, devices, ranksPerNode);
  return PipelineCalibration::load(choice);
}

llvm::Expected<PipelineCalibration>
mlir::fuser::findCalibration(llvm::StringRef choice, int64_t devices,
                             int64_t ranksPerNode) {
  if (!choice.empty())
    return resolve(choice, devices, ranksPerNode);
  if (std::optional<std::string> chosen =
          llvm::sys::Process::GetEnv("FUSER_CALIBRATION");
      chosen && !chosen->empty())
    return resolve(*chosen, devices, ranksPerNode);
  std::string folder = getDefaultCalibrationFolder();
  if (!folder.empty() && llvm::sys::fs::is_directory(folder))
    return findInFolder(folder, devices, ranksPerNode);
  return PipelineCalibration::h200();
}
