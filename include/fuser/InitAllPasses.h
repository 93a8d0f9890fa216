//===- InitAllPasses.h - passes available in fuser-opt ----------*- C++ -*-===//
#ifndef FUSER_INITALLPASSES_H
#define FUSER_INITALLPASSES_H

namespace fuser {
/// Registers our passes, the fuser-to-hostir-pipeline and the generic upstream transforms
/// (canonicalize, cse, symbol-dce, ...) for command-line use.
void registerAllPasses();
} // namespace fuser

#endif // FUSER_INITALLPASSES_H
