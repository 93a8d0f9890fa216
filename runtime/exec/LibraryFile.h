//===- LibraryFile.h - a library file before the loader maps it -*- C++ -*-===//
#ifndef FUSER_RUNTIME_EXEC_LIBRARYFILE_H
#define FUSER_RUNTIME_EXEC_LIBRARYFILE_H

#include <string>

namespace fuser {

/// Why the ELF file at `path` cannot be loaded safely, or empty: a file cut
/// short of what its headers describe (a copy that did not finish, say),
/// which the dynamic loader would map anyway and then crash reading past
/// its end (SIGBUS). Files that are not 64-bit ELF, or cannot be read, are
/// left to the loader, which reports them.
std::string checkLibraryFile(const std::string &path);

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_LIBRARYFILE_H
