//===- Minimizer.cpp - crashing inputs cut down to what crashes -----------===//

#include "Minimizer.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"

#include <algorithm>
#include <optional>
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

/// The line after the one that closes what line `open` opens (`{` or
/// `(` left unclosed on it), or none when it opens nothing.
std::optional<size_t> blockEnd(ArrayRef<StringRef> lines, size_t open) {
  int depth = 0;
  for (size_t line = open; line < lines.size(); ++line) {
    for (char c : lines[line]) {
      if (c == '{' || c == '(' || c == '[')
        ++depth;
      else if (c == '}' || c == ')' || c == ']')
        --depth;
    }
    if (depth <= 0)
      return line == open ? std::nullopt : std::optional<size_t>(line + 1);
  }
  return std::nullopt;
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
  auto ddmin = [&] {
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
  };
  // Ops with regions and functions span lines that only go together.
  auto dropBlocks = [&] {
    bool dropped = false;
    for (size_t open = 0; open < lines.size() && tries < maxTries;) {
      std::optional<size_t> end = blockEnd(lines, open);
      std::vector<StringRef> candidate;
      if (end)
        candidate = without(lines, open, *end);
      if (end && keeps(candidate)) {
        lines = std::move(candidate);
        dropped = true;
        continue;
      }
      ++open;
    }
    return dropped;
  };
  do
    ddmin();
  while (dropBlocks());
  return joinLines(lines);
}

} // namespace fuzz
