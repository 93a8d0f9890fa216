//===- Minimizer.cpp - crashing inputs cut down to what crashes -----------===//

#include "Minimizer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <vector>

using namespace llvm;

namespace fuzz {
namespace {
std::string joinLines(ArrayRef<StringRef> lines) {
  std::string text;
  for (StringRef line : lines)
    text += line.str() + "\n";
  return text;
}

/// `lines` without those in [begin, end).
std::vector<StringRef> without(ArrayRef<StringRef> lines, size_t begin,
                               size_t end) {
  std::vector<StringRef> kept(lines.begin(), lines.begin() + begin);
  kept.insert(kept.end(), lines.begin() + end, lines.end());
  return kept;
}
} // namespace

std::string minimizeLines(StringRef text,
                          function_ref<bool(StringRef)> reproduces,
                          unsigned maxTries) {
  SmallVector<StringRef> split;
  text.split(split, '\n');
  std::vector<StringRef> lines;
  for (StringRef line : split)
    if (!line.trim().empty())
      lines.push_back(line);
  unsigned tries = 0;
  auto keeps = [&](ArrayRef<StringRef> candidate) {
    return tries++ < maxTries && reproduces(joinLines(candidate));
  };

  // ddmin: drop one of `parts` chunks at a time; on success go on with
  // fewer chunks, otherwise with twice as many, down to single lines.
  size_t parts = 2;
  while (lines.size() >= 2 && tries < maxTries) {
    size_t chunk = (lines.size() + parts - 1) / parts;
    bool dropped = false;
    for (size_t begin = 0; begin < lines.size(); begin += chunk) {
      std::vector<StringRef> candidate =
          without(lines, begin, std::min(lines.size(), begin + chunk));
      if (keeps(candidate)) {
        lines = std::move(candidate);
        parts = std::max<size_t>(parts - 1, 2);
        dropped = true;
        break;
      }
    }
    if (dropped)
      continue;
    if (chunk == 1)
      break;
    parts = std::min(parts * 2, lines.size());
  }
  return joinLines(lines);
}

} // namespace fuzz
