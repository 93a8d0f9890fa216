//===- InitAllPasses.h - passes available in fuser-opt ----------*- C++ -*-===//
#ifndef FUSER_INITALLPASSES_H
#define FUSER_INITALLPASSES_H

namespace fuser {
/// Registers our passes and pipelines (fuser-to-hostir-pipeline, ...) for
/// command-line use; calls after the first do nothing.
void registerFuserPasses();
/// Registers those and the generic upstream transforms (canonicalize, cse,
/// symbol-dce, ...): the passes of fuser-opt.
void registerAllPasses();
} // namespace fuser

#endif // FUSER_INITALLPASSES_H
