//===- Minimizer.h - crashing inputs cut down to what crashes ---*- C++ -*-===//

#ifndef FUSER_TOOLS_FUZZ_MINIMIZER_H
#define FUSER_TOOLS_FUZZ_MINIMIZER_H

#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ADT/StringRef.h"

#include <string>

namespace fuzz {

/// The lines of `text` (blank ones dropped) cut down by delta debugging
/// (ddmin) and by dropping whole blocks (a line that opens a bracket up to
/// the line that closes it) to a set from which no line nor block can be
/// dropped while `reproduces` still holds, or as far as `maxTries`
/// candidates go.
std::string minimizeLines(llvm::StringRef text,
                          llvm::function_ref<bool(llvm::StringRef)> reproduces,
                          unsigned maxTries);

} // namespace fuzz

#endif // FUSER_TOOLS_FUZZ_MINIMIZER_H
