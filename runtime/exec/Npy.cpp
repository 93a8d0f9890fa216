//===- Npy.cpp - f32 .npy files (format version 1.0) ---------------------===//

#include "Npy.h"

#include <cstdint>
#include <fstream>
#include <sstream>

namespace {
std::string shapeText(const fuser::Shape &shape) {
  std::ostringstream text;
  text << "(";
  for (size_t dim = 0; dim < shape.size(); ++dim)
    text << shape[dim] << (shape.size() == 1 || dim + 1 < shape.size() ? "," : "")
         << (dim + 1 < shape.size() ? " " : "");
  text << ")";
  return text.str();
}
} // namespace

bool fuser::readNpy(const std::string &path, const Shape &shape,
                    std::vector<float> &values, std::string &error) {
  std::ifstream file(path, std::ios::binary);
  char magic[8];
  if (!file.read(magic, 8) || std::string(magic, 6) != "\x93NUMPY") {
    error = path + " is not a .npy file";
    return false;
  }
  uint16_t length = 0;
  file.read(reinterpret_cast<char *>(&length), 2);
  std::string header(length, ' ');
  file.read(header.data(), length);
  if (header.find("'descr': '<f4'") == std::string::npos ||
      header.find("'fortran_order': False") == std::string::npos) {
    error = path + " does not hold a C-order float32 array";
    return false;
  }
  std::string wanted = "'shape': " + shapeText(shape);
  if (header.find(wanted) == std::string::npos) {
    size_t start = header.find("'shape': ");
    error = path + " has shape " +
            (start == std::string::npos
                 ? std::string("?")
                 : header.substr(start + 9, header.find(')', start) - start - 8)) +
            " but the program takes " + shapeText(shape);
    return false;
  }
  if (!file.read(reinterpret_cast<char *>(values.data()),
                 static_cast<std::streamsize>(values.size() * sizeof(float)))) {
    error = path + " ends before its data does";
    return false;
  }
  return true;
}

bool fuser::writeNpy(const std::string &path, const Shape &shape,
                     const std::vector<float> &values, std::string &error) {
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
  file.write(reinterpret_cast<const char *>(values.data()),
             static_cast<std::streamsize>(values.size() * sizeof(float)));
  if (!file) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}
