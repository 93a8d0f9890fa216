//===- Npy.cpp - f32 .npy files (format versions 1 to 3) -----------------===//
//
// A .npy file is a magic string, a version, the length of its header, the
// header (a Python dict literal: 'descr', 'fortran_order', 'shape') and the
// raw elements. Every way a file can fail to be the array a program takes
// is reported with the file's name, so that a wrong --inputs list reads as
// such rather than as a crash or a shape error further on.
//
//===----------------------------------------------------------------------===//

#include "Npy.h"

#include "../host/HostWorkers.h"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <vector>

namespace {
/// f32 elements converted per read or write: a few hundred megabytes of
/// staging at most, each step large enough to spread over every worker.
constexpr int64_t kStagedElements = 1 << 25;
/// Elements per worker's share of a conversion.
constexpr int64_t kConvertedElements = 1 << 18;

std::string shapeText(const fuser::Shape &shape) {
  std::ostringstream text;
  text << "(";
  for (size_t dim = 0; dim < shape.size(); ++dim)
    text << shape[dim] << (shape.size() == 1 || dim + 1 < shape.size() ? "," : "")
         << (dim + 1 < shape.size() ? " " : "");
  text << ")";
  return text.str();
}

/// Where the value of `'key':` starts in a header dict (spaces skipped), or
/// npos when the header has no such key.
size_t findValue(const std::string &header, const std::string &key) {
  size_t position = header.find("'" + key + "':");
  if (position == std::string::npos)
    return position;
  position += key.size() + 3;
  while (position < header.size() && header[position] == ' ')
    ++position;
  return position;
}

/// The quoted string at `position`, or nothing.
std::optional<std::string> readQuoted(const std::string &header,
                                      size_t position) {
  if (position >= header.size() ||
      (header[position] != '\'' && header[position] != '"'))
    return std::nullopt;
  size_t end = header.find(header[position], position + 1);
  if (end == std::string::npos)
    return std::nullopt;
  return header.substr(position + 1, end - position - 1);
}

/// The tuple of non-negative integers at `position` ("(8, 64)", "(5,)",
/// "()"), or nothing.
std::optional<fuser::Shape> readShape(const std::string &header,
                                      size_t position) {
  if (position >= header.size() || header[position] != '(')
    return std::nullopt;
  size_t end = header.find(')', position);
  if (end == std::string::npos)
    return std::nullopt;
  fuser::Shape shape;
  std::istringstream items(header.substr(position + 1, end - position - 1));
  std::string item;
  while (std::getline(items, item, ',')) {
    size_t first = item.find_first_not_of(' ');
    if (first == std::string::npos)
      continue;
    size_t last = item.find_last_not_of(' ');
    int64_t size = -1;
    auto [stop, problem] =
        std::from_chars(item.data() + first, item.data() + last + 1, size);
    if (problem != std::errc() || stop != item.data() + last + 1 || size < 0)
      return std::nullopt;
    shape.push_back(size);
  }
  return shape;
}

/// Checks the header dict against a C-order f32 array of `shape`.
bool checkHeader(const std::string &path, const std::string &header,
                 const fuser::Shape &shape, std::string &error) {
  std::optional<std::string> descr =
      readQuoted(header, findValue(header, "descr"));
  size_t order = findValue(header, "fortran_order");
  std::optional<fuser::Shape> stored =
      readShape(header, findValue(header, "shape"));
  if (!descr || order == std::string::npos || !stored) {
    // The header ends with padding and a newline.
    error = path +
            " has a header that is not a .npy dict with 'descr', "
            "'fortran_order' and 'shape': " +
            header.substr(0, header.find_last_not_of(" \n") + 1);
    return false;
  }
  if (*descr != "<f4") {
    error = path + " holds '" + *descr +
            "' elements; fuser-exec reads little-endian float32 ('<f4') "
            "arrays";
    return false;
  }
  if (header.compare(order, 5, "False") != 0) {
    error = path + " holds a Fortran-order array; fuser-exec reads C-order "
                   "arrays";
    return false;
  }
  if (*stored != shape) {
    error = path + " has shape " + shapeText(*stored) +
            " but the program takes " + shapeText(shape);
    return false;
  }
  return true;
}
} // namespace

bool fuser::readNpy(const std::string &path, const Shape &shape,
                    HostTensor &values, std::string &error) {
  std::ifstream file(path, std::ios::binary);
  if (!file) {
    error = "cannot open " + path + ": " + std::strerror(errno);
    return false;
  }
  char magic[8];
  if (!file.read(magic, 8) || std::string(magic, 6) != "\x93NUMPY") {
    error = path + " is not a .npy file (it does not start with \\x93NUMPY)";
    return false;
  }
  // Version 1 has a 2-byte header length, versions 2 and 3 a 4-byte one.
  int major = static_cast<unsigned char>(magic[6]);
  if (major < 1 || major > 3) {
    error = path + " is in version " + std::to_string(major) +
            " of the .npy format; fuser-exec reads versions 1 to 3";
    return false;
  }
  unsigned char length[4] = {0, 0, 0, 0};
  std::string header;
  if (file.read(reinterpret_cast<char *>(length), major == 1 ? 2 : 4)) {
    std::streamoff headerStart = file.tellg();
    file.seekg(0, std::ios::end);
    std::streamoff rest = file.tellg() - headerStart;
    file.seekg(headerStart);
    std::streamoff headerLength = length[0] | length[1] << 8 | length[2] << 16 |
                                  static_cast<std::streamoff>(length[3]) << 24;
    // A length past the end of the file is not read (nor allocated).
    if (headerLength <= rest) {
      header.resize(headerLength);
      file.read(header.data(), headerLength);
    } else {
      file.setstate(std::ios::failbit);
    }
  }
  if (!file) {
    error = path + " ends inside its header";
    return false;
  }
  if (!checkHeader(path, header, shape, error))
    return false;
  std::streamoff dataStart = file.tellg();
  file.seekg(0, std::ios::end);
  std::streamoff present = file.tellg() - dataStart;
  std::streamoff expected =
      static_cast<std::streamoff>(values.size() * sizeof(float));
  if (present != expected) {
    error = path + (present < expected ? " ends after " : " has ") +
            std::to_string(present) + " bytes of data; its shape " +
            shapeText(shape) + " takes " + std::to_string(expected);
    return false;
  }
  file.seekg(dataStart);
  // f32 elements are read into place; others through an f32 staging
  // buffer, a step at a time.
  if (values.dtype == FUSER_F32) {
    if (!file.read(values.bytes.data(), expected)) {
      error = "cannot read " + path;
      return false;
    }
    return true;
  }
  int64_t count = values.size();
  std::vector<float> staged(std::min(count, kStagedElements));
  for (int64_t step = 0; step < count; step += kStagedElements) {
    int64_t length = std::min(count - step, kStagedElements);
    if (!file.read(reinterpret_cast<char *>(staged.data()),
                   static_cast<std::streamsize>(length * sizeof(float)))) {
      error = "cannot read " + path;
      return false;
    }
    fuser::runtime::host::forEachBlock(
        length, kConvertedElements, [&](int64_t begin, int64_t end) {
          for (int64_t i = begin; i < end; ++i)
            values.set(step + i, staged[i]);
        });
  }
  return true;
}

bool fuser::writeNpy(const std::string &path, const Shape &shape,
                     const HostTensor &values, std::string &error) {
  std::string header = "{'descr': '<f4', 'fortran_order': False, 'shape': " +
                       shapeText(shape) + ", }";
  // Magic (6) + version (2) + length (2) + header + newline, a multiple of 64.
  while ((10 + header.size() + 1) % 64 != 0)
    header += ' ';
  header += '\n';
  std::ofstream file(path, std::ios::binary);
  uint16_t length = static_cast<uint16_t>(header.size());
  file.write("\x93NUMPY\x01\x00", 8);
  file.write(reinterpret_cast<const char *>(&length), 2);
  file << header;
  int64_t count = values.size();
  if (values.dtype == FUSER_F32) {
    file.write(values.bytes.data(),
               static_cast<std::streamsize>(values.bytes.size()));
  } else {
    std::vector<float> staged(std::min(count, kStagedElements));
    for (int64_t step = 0; step < count && file; step += kStagedElements) {
      int64_t length = std::min(count - step, kStagedElements);
      fuser::runtime::host::forEachBlock(
          length, kConvertedElements, [&](int64_t begin, int64_t end) {
            for (int64_t i = begin; i < end; ++i)
              staged[i] = static_cast<float>(values.get(step + i));
          });
      file.write(reinterpret_cast<const char *>(staged.data()),
                 static_cast<std::streamsize>(length * sizeof(float)));
    }
  }
  if (!file) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}
