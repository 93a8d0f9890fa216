//===- CalibrationFile.cpp - what fuser-calibrate measured, as JSON -------===//

#include "CalibrationFile.h"

#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <sys/stat.h>

using namespace fuser::calibrate;

std::optional<Link> fuser::calibrate::fitLink(
    const std::vector<std::pair<double, double>> &samples) {
  if (samples.size() < 2)
    return std::nullopt;
  double count = double(samples.size()), sumBytes = 0, sumSeconds = 0;
  for (auto [bytes, seconds] : samples) {
    sumBytes += bytes;
    sumSeconds += seconds;
  }
  double meanBytes = sumBytes / count, meanSeconds = sumSeconds / count;
  double covariance = 0, variance = 0;
  for (auto [bytes, seconds] : samples) {
    covariance += (bytes - meanBytes) * (seconds - meanSeconds);
    variance += (bytes - meanBytes) * (bytes - meanBytes);
  }
  if (variance <= 0 || covariance <= 0)
    return std::nullopt;
  double secondsPerByte = covariance / variance;
  double latency = meanSeconds - secondsPerByte * meanBytes;
  if (latency < 0) {
    // Through the origin: the slope that fits best without a latency.
    double products = 0, squares = 0;
    for (auto [bytes, seconds] : samples) {
      products += bytes * seconds;
      squares += bytes * bytes;
    }
    secondsPerByte = products / squares;
    latency = 0;
  }
  return Link{1.0 / secondsPerByte, latency, 0.0};
}

namespace {
std::string number(double value) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.4g", value);
  return text;
}

std::string quoted(const std::string &text) {
  std::string out = "\"";
  for (char c : text) {
    if (c == '"' || c == '\\')
      out += '\\';
    out += c;
  }
  return out + "\"";
}

std::string link(const Link &measured) {
  return "{\"bytes_per_second\": " + number(measured.bytesPerSecond) +
         ", \"latency_s\": " + number(measured.latency) +
         ", \"interference\": " + number(measured.interference) + "}";
}
} // namespace

std::string fuser::calibrate::writeCalibration(const Calibration &calibration) {
  std::string json = "{\n";
  auto field = [&](const std::string &key, const std::string &value) {
    json += "  " + quoted(key) + ": " + value + ",\n";
  };
  field("format", quoted("fuser-calibration"));
  field("version", "1");
  field("machine",
        "{\"gpu\": " + quoted(calibration.gpu) + ", \"devices\": " +
            std::to_string(calibration.devices) + ", \"ranks_per_node\": " +
            std::to_string(calibration.ranksPerNode) +
            ", \"nodes\": " + std::to_string(calibration.nodes) + "}");
  field("measured", "{\"backend\": " + quoted(calibration.backend) +
                        ", \"date\": " + quoted(calibration.date) +
                        ", \"seconds\": " + number(calibration.seconds) + "}");
  std::string classes = "[";
  for (auto [minDim, rate] : calibration.gemmClasses)
    classes += std::string(classes.size() > 1 ? ", " : "") +
               "{\"min_dim\": " + std::to_string(minDim) +
               ", \"flops_per_second\": " + number(rate) + "}";
  field("gemm_classes", classes + "]");
  field("gemm_call_overhead_s", number(calibration.gemmCallOverhead));
  std::vector<std::string> notMeasured;
  if (calibration.sustained) {
    field("sustained_above_flop", number(calibration.sustained->first));
    field("sustained_flops_per_second", number(calibration.sustained->second));
  } else {
    notMeasured.push_back("sustained_flops_per_second");
  }
  field("memory_bytes_per_second", number(calibration.memoryBytesPerSecond));
  for (auto [name, measured] :
       {std::pair<const char *, const std::optional<Link> *>{"nccl",
                                                             &calibration.nccl},
        {"copy_engine", &calibration.copyEngine},
        {"network", &calibration.network}}) {
    if (*measured)
      field(name, link(**measured));
    else
      notMeasured.push_back(name);
  }
  std::string list = "[";
  for (const std::string &name : notMeasured)
    list += std::string(list.size() > 1 ? ", " : "") + quoted(name);
  json += "  \"not_measured\": " + list + "]\n}\n";
  return json;
}

std::string
fuser::calibrate::getCalibrationFileName(const Calibration &calibration) {
  std::string slug;
  for (char c : calibration.gpu) {
    if (std::isalnum(static_cast<unsigned char>(c)))
      slug += char(std::tolower(static_cast<unsigned char>(c)));
    else if (!slug.empty() && slug.back() != '-')
      slug += '-';
  }
  while (!slug.empty() && slug.back() == '-')
    slug.pop_back();
  const char *unit = calibration.backend == "cuda" ? "gpu" : "rank";
  return slug + "-" + std::to_string(calibration.devices) + unit + "-" +
         std::to_string(calibration.nodes) + "node.json";
}

std::string fuser::calibrate::getOutputFolder() {
  struct stat status;
  if (const char *chosen = std::getenv("FUSER_CALIBRATION");
      chosen && *chosen && stat(chosen, &status) == 0 &&
      S_ISDIR(status.st_mode))
    return chosen;
  if (const char *data = std::getenv("XDG_DATA_HOME"); data && *data)
    return std::string(data) + "/fuser/calibrations";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.local/share/fuser/calibrations";
  return "";
}
