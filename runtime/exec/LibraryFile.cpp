//===- LibraryFile.cpp - a library file before the loader maps it ---------===//

#include "LibraryFile.h"

#include <elf.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <vector>

std::string fuser::checkLibraryFile(const std::string &path) {
  std::ifstream file(path, std::ios::binary | std::ios::ate);
  if (!file)
    return "";
  uint64_t size = static_cast<uint64_t>(file.tellg());
  Elf64_Ehdr header;
  file.seekg(0);
  if (!file.read(reinterpret_cast<char *>(&header), sizeof(header)) ||
      std::memcmp(header.e_ident, ELFMAG, SELFMAG) != 0 ||
      header.e_ident[EI_CLASS] != ELFCLASS64 ||
      header.e_phentsize != sizeof(Elf64_Phdr))
    return "";
  // The end of the headers, then of every segment's contents in the file.
  uint64_t described =
      std::max(header.e_phoff + uint64_t(header.e_phnum) * header.e_phentsize,
               header.e_shoff + uint64_t(header.e_shnum) * header.e_shentsize);
  if (described <= size) {
    std::vector<Elf64_Phdr> segments(header.e_phnum);
    file.seekg(static_cast<std::streamoff>(header.e_phoff));
    file.read(
        reinterpret_cast<char *>(segments.data()),
        static_cast<std::streamsize>(segments.size() * sizeof(Elf64_Phdr)));
    for (const Elf64_Phdr &segment : segments)
      described = std::max(described, segment.p_offset + segment.p_filesz);
  }
  if (described <= size)
    return "";
  return path + " is cut short: it has " + std::to_string(size) +
         " bytes but its ELF headers describe " + std::to_string(described);
}
