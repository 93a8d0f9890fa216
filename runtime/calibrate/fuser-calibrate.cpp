//===- fuser-calibrate.cpp - measure the machine for pipelining=auto ------===//
//
//   mpirun -np N fuser-calibrate [--backend cuda|host] [--output FILE]
//       [--repetitions R]
//
// Measures, on the machine and ranks at hand, what the pipelining cost
// model weighs (docs/stream-pipelining.md, "Calibrations"): GEMM rates per
// shape class, the call overhead and the sustained rate of long GEMMs,
// device memory bandwidth, and each link's rate, latency and interference
// with a GEMM beside it: NCCL between the ranks of a node, CUDA IPC copies
// between the GPUs of a node, NCCL between nodes (FUSER_RANKS_PER_NODE
// simulates nodes). Rank 0 writes the calibration to FILE, or to
// <folder>/<gpu>-<N>gpu-<nodes>node.json in the folder the compiler reads
// by default ($FUSER_CALIBRATION where it names a folder, else
// ${XDG_DATA_HOME:-~/.local/share}/fuser/calibrations), so that
// fuser-compile --pipelining=auto for N devices finds it without a flag.
// The backend is cuda where a GPU is present, else host (CPU ranks, MPI).
//
//===----------------------------------------------------------------------===//

#include "BoundedCollectives.h"
#include "CalibrationFile.h"
#include "Measurements.h"

#include "fuser/Runtime/Runtime.h"

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <stdexcept>

using namespace fuser;
using namespace fuser::calibrate;

namespace {
struct Options {
  std::string backend, output;
  int repetitions = 5;
};

Options parseOptions(int argc, char **argv) {
  Options options;
  for (int i = 1; i < argc; ++i) {
    std::string argument = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc)
        throw std::invalid_argument(argument + " needs a value");
      return argv[++i];
    };
    if (argument == "--backend") {
      options.backend = value();
      if (options.backend != "cuda" && options.backend != "host")
        throw std::invalid_argument("--backend is cuda or host, got " +
                                    options.backend);
    } else if (argument == "--output") {
      options.output = value();
    } else if (argument == "--repetitions") {
      std::string text = value();
      char *end = nullptr;
      long count = std::strtol(text.c_str(), &end, 10);
      if (end == text.c_str() || *end || count < 1 || count > 1000)
        throw std::invalid_argument(
            "--repetitions takes a count from 1 to 1000, got " + text);
      options.repetitions = int(count);
    } else {
      throw std::invalid_argument(
          "unknown argument " + argument +
          " (usage: fuser-calibrate [--backend cuda|host] [--output FILE] "
          "[--repetitions R])");
    }
  }
  return options;
}

/// What is measured on a backend: GPUs at the sizes of a transformer
/// layer's pipelines, CPU ranks at sizes they run in a few seconds.
struct Sizes {
  FuserDType dtype;
  /// {min_dim, m, n, k}: min(m, n, k) = min_dim but for the smallest class.
  /// On GPUs, 4096 rows by 8192 columns: a pipeline step's GEMM on 2 to 4
  /// GPUs. A class's rate depends on the rows and columns too (at k = 512,
  /// 4096 rows ran at 520 TFLOP/s on an H200 and 16384 at 700:
  /// bench/results/2026-12-02-calibration-and-nodes-on-h200.md); the
  /// steps' GEMMs are what the plans differ by.
  std::vector<std::array<int64_t, 4>> gemmClasses;
  /// A GEMM short enough that its time is the call's overhead.
  int64_t tinyGemm;
  /// The side of a GEMM long enough to run into the power limit (0: none).
  int64_t sustainedGemm;
  double sustainedAboveFlop;
  int64_t copyElements;
  /// Elements each rank sends, per transfer measured.
  std::vector<int64_t> messageElements;
};

Sizes getSizes(bool cuda) {
  if (cuda)
    return {FUSER_BF16,
            {{2048, 4096, 8192, 2048},
             {1024, 4096, 8192, 1024},
             {512, 4096, 8192, 512},
             {0, 4096, 8192, 256}},
            128,
            16384,
            4e12,
            int64_t(1) << 29,
            {int64_t(1) << 20, int64_t(1) << 23, int64_t(1) << 26}};
  return {FUSER_F32,
          {{128, 256, 256, 128}, {0, 256, 256, 32}},
          4,
          0,
          0,
          int64_t(1) << 22,
          {int64_t(1) << 16, int64_t(1) << 20, int64_t(1) << 23}};
}

/// The calls of a GEMM timed together, for the time of one of them.
constexpr int64_t kBackToBack = 8;

/// Ends every rank unless every rank's `ok`, naming `what` and the error.
void require(bool ok, const std::string &what) {
  exitOnAnyRankError(ok ? "" : what + ": " + fuser_last_error());
}

/// FLOP/s of a GEMM that took `seconds`, its call overhead aside.
double getRate(const Gemm &gemm, double seconds, double overhead) {
  // A GEMM is timed at many times the overhead; where not (a slow
  // overhead sample), the whole time is the GEMM's.
  double busy = seconds > 2 * overhead ? seconds - overhead : seconds;
  return gemm.flop() / busy;
}

/// Everything measured of one link: its transfers of each message size
/// fitted, and its interference with `gemm` beside its largest transfer.
template <typename Transfer, typename Make>
std::optional<Link> measureLink(const std::string &name, const Sizes &sizes,
                                const Gemm &gemm, double gemmSeconds,
                                int repetitions, Make make) {
  std::vector<std::pair<double, double>> samples;
  double largestSeconds = 0;
  std::unique_ptr<Transfer> largest;
  for (int64_t elements : sizes.messageElements) {
    std::unique_ptr<Transfer> transfer = make(elements);
    double seconds = timeWork(transfer->work(), 1, repetitions);
    samples.push_back({transfer->receivedBytes(), seconds});
    largestSeconds = seconds;
    largest = std::move(transfer);
  }
  std::optional<Link> link = fitLink(samples);
  if (!link) {
    if (fuser_rank() == 0)
      std::printf("fuser-calibrate: %s: times do not grow with the bytes "
                  "moved; not measured\n",
                  name.c_str());
    return std::nullopt;
  }
  // As many GEMMs as take about as long as the transfer: the overlap of
  // the two is what a pipeline step has.
  int64_t times =
      std::max<int64_t>(1, std::llround(largestSeconds / gemmSeconds));
  double gemms = timeWork(gemm.work(times), 1, repetitions);
  double both = timeTogether(gemm.work(times), largest->work(), repetitions);
  double shorter = std::min(gemms, largestSeconds);
  link->interference =
      std::clamp((both - std::max(gemms, largestSeconds)) / shorter, 0.0, 1.0);
  if (fuser_rank() == 0)
    std::printf("fuser-calibrate: %s: %.4g B/s, latency %.3g s, "
                "interference %.2f (GEMMs %.3g s beside %.3g s: %.3g s)\n",
                name.c_str(), link->bytesPerSecond, link->latency,
                link->interference, gemms, largestSeconds, both);
  return link;
}

std::string getDate() {
  std::time_t now = std::time(nullptr);
  char text[32];
  std::strftime(text, sizeof(text), "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return text;
}

/// Writes `calibration` where the options say; the path, or empty with
/// `error` set.
std::string write(const Calibration &calibration, const Options &options,
                  std::string &error) {
  std::filesystem::path path = options.output;
  if (path.empty()) {
    std::string folder = getOutputFolder();
    if (folder.empty()) {
      error = "no folder for calibrations: set HOME, XDG_DATA_HOME or "
              "FUSER_CALIBRATION, or give --output";
      return "";
    }
    path = std::filesystem::path(folder) / getCalibrationFileName(calibration);
  }
  std::error_code code;
  if (path.has_parent_path())
    std::filesystem::create_directories(path.parent_path(), code);
  std::ofstream file(path);
  file << writeCalibration(calibration);
  file.close();
  if (code || !file) {
    error = "cannot write the calibration " + path.string() +
            (code ? ": " + code.message() : std::string());
    return "";
  }
  return path.string();
}

/// Everything the cost model weighs, measured on the current backend
/// (cuda or host) with `repetitions` of each time.
Calibration measure(bool cuda, int repetitions) {
  Sizes sizes = getSizes(cuda);
  bool root = fuser_rank() == 0;
  Calibration calibration;
  calibration.gpu = fuser_device_name();
  calibration.devices = fuser_world_size();
  calibration.nodes = fuser_node_count();
  calibration.ranksPerNode = fuser_ranks_per_node();
  calibration.backend = cuda ? "cuda" : "host";
  if (!calibration.ranksPerNode)
    exitOnAnyRankError(
        "the nodes are not groups of consecutive ranks of one size, which "
        "the compiler's --ranks-per-node describes: launch each node's ranks "
        "as consecutive ranks");

  Gemm tiny(sizes.tinyGemm, sizes.tinyGemm, sizes.tinyGemm, sizes.dtype);
  require(tiny.valid(), "allocating a GEMM");
  // GEMMs issued back to back, as a pipeline's stream issues them: each
  // one's launch hides behind the one before, and what is left per call is
  // the kernel's own ramp-up and tail.
  calibration.gemmCallOverhead =
      timeWork(tiny.work(kBackToBack), 2, repetitions) / kBackToBack;
  if (root)
    std::printf("fuser-calibrate: GEMM call overhead: %.3g s\n",
                calibration.gemmCallOverhead);
  std::vector<std::unique_ptr<Gemm>> classes;
  std::vector<double> classSeconds;
  for (auto [minDim, m, n, k] : sizes.gemmClasses) {
    auto gemm = std::make_unique<Gemm>(m, n, k, sizes.dtype);
    require(gemm->valid(), "allocating a GEMM");
    double seconds =
        timeWork(gemm->work(kBackToBack), 2, repetitions) / kBackToBack;
    double rate = getRate(*gemm, seconds, calibration.gemmCallOverhead);
    calibration.gemmClasses.push_back({minDim, rate});
    classSeconds.push_back(seconds);
    classes.push_back(std::move(gemm));
    if (root)
      std::printf("fuser-calibrate: GEMM %lldx%lldx%lld: %.4g FLOP/s\n",
                  (long long)m, (long long)n, (long long)k, rate);
  }
  if (sizes.sustainedGemm) {
    int64_t side = sizes.sustainedGemm;
    Gemm gemm(side, side, side, sizes.dtype);
    require(gemm.valid(), "allocating a GEMM");
    double rate = getRate(gemm, timeWork(gemm.work(), 1, repetitions),
                          calibration.gemmCallOverhead);
    calibration.sustained = {{sizes.sustainedAboveFlop, rate}};
    if (root)
      std::printf("fuser-calibrate: GEMM %lld^3: %.4g FLOP/s sustained\n",
                  (long long)side, rate);
  }
  {
    Tensor source({sizes.copyElements}, sizes.dtype),
        target({sizes.copyElements}, sizes.dtype);
    require(source.valid() && target.valid(), "allocating a copy");
    double seconds = timeWork(
        [&] {
          return fuser_copy(&source.buffer(), &target.buffer()) == FUSER_OK;
        },
        1, repetitions);
    // A copy reads and writes every byte.
    calibration.memoryBytesPerSecond = 2.0 * double(source.bytes()) / seconds;
    if (root)
      std::printf("fuser-calibrate: device memory: %.4g B/s\n",
                  calibration.memoryBytesPerSecond);
  }

  // Links: between the ranks of each node (along axis 1 of the mesh
  // [nodes, ranks per node]) and between nodes (axis 0). The GEMM beside a
  // transfer is the largest class's, as a pipeline step's is.
  const Gemm &stepGemm = *classes.front();
  double stepSeconds = classSeconds.front();
  int64_t mesh[2] = {calibration.nodes, calibration.ranksPerNode};
  auto team = [&](int64_t axis) {
    FuserTeam *members = fuser_team(fuser_rank(), mesh, 2, nullptr, &axis, 1);
    require(members != nullptr, "forming a team");
    return members;
  };
  // The allgathers of each message size over `members`.
  auto allgathersOver = [&](FuserTeam *members) {
    return [&sizes, members](int64_t elements) {
      auto transfer =
          std::make_unique<Allgather>(members, elements, sizes.dtype);
      require(transfer->valid(), "allocating an allgather");
      return transfer;
    };
  };
  std::string collectives = cuda ? "NCCL" : "MPI";
  if (calibration.ranksPerNode > 1) {
    FuserTeam *node = team(1);
    calibration.nccl =
        measureLink<Allgather>(collectives + " within a node", sizes, stepGemm,
                               stepSeconds, repetitions, allgathersOver(node));
    if (cuda)
      calibration.copyEngine = measureLink<IpcPull>(
          "CUDA IPC within a node", sizes, stepGemm, stepSeconds, repetitions,
          [&](int64_t elements) {
            auto transfer =
                std::make_unique<IpcPull>(node, elements, sizes.dtype);
            require(transfer->share(), "sharing a buffer through CUDA IPC");
            return transfer;
          });
  }
  if (calibration.nodes > 1) {
    calibration.network = measureLink<Allgather>(
        collectives + " between nodes", sizes, stepGemm, stepSeconds,
        repetitions, allgathersOver(team(0)));
  }
  return calibration;
}
} // namespace

int main(int argc, char **argv) {
  if (fuser_init(&argc, &argv) != FUSER_OK) {
    std::fprintf(stderr, "fuser-calibrate: %s\n", fuser_last_error());
    return 1;
  }
  std::string error;
  Options options;
  try {
    options = parseOptions(argc, argv);
  } catch (const std::invalid_argument &usage) {
    error = usage.what();
  }
  exitOnAnyRankError(error);
  bool cuda = options.backend.empty()
                  ? fuser_backend_available(FUSER_BACKEND_CUDA) != 0
                  : options.backend == "cuda";
  require(fuser_use_backend(cuda ? FUSER_BACKEND_CUDA : FUSER_BACKEND_HOST) ==
              FUSER_OK,
          "starting the backend");
  auto start = std::chrono::steady_clock::now();
  Calibration calibration = measure(cuda, options.repetitions);
  calibration.seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count();
  calibration.date = getDate();
  bool root = fuser_rank() == 0;
  std::string path = root ? write(calibration, options, error) : "";
  exitOnAnyRankError(error);
  if (root) {
    std::printf("fuser-calibrate: %s, %lld %s on %lld node%s, measured in "
                "%.1f s: wrote %s\n",
                calibration.gpu.c_str(), (long long)calibration.devices,
                cuda ? "GPUs" : "ranks", (long long)calibration.nodes,
                calibration.nodes == 1 ? "" : "s", calibration.seconds,
                path.c_str());
    std::fflush(stdout);
  }
  fuser_finalize();
  return 0;
}
