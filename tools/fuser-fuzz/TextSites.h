//===- TextSites.h - where an MLIR text can be edited -----------*- C++ -*-===//
//
// Lexical sites of MLIR text the mutator edits: dims of shapes, integer
// literals, words (element types, op names, keywords), SSA values, op
// lines, and the parts of `#fuser.mesh` and `#fuser.sharding` attributes.
// Scanning is lexical, not parsing: a site found in a comment is edited
// like any other.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TOOLS_FUZZ_TEXTSITES_H
#define FUSER_TOOLS_FUZZ_TEXTSITES_H

#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace fuzz {

/// A range [begin, end) of a text.
struct Span {
  size_t begin = 0, end = 0;
  llvm::StringRef in(llvm::StringRef text) const {
    return text.slice(begin, end);
  }
};

/// `text` with `span` replaced by `replacement`.
std::string replaced(llvm::StringRef text, Span span,
                     llvm::StringRef replacement);
/// `text` with every span of `spans` (sorted, disjoint) replaced by
/// `replacement`.
std::string replacedAll(llvm::StringRef text, const std::vector<Span> &spans,
                        llvm::StringRef replacement);

/// Dims of shaped types and of `shape = ` lists: `8` and `?` in
/// `tensor<8x?xf32>`.
std::vector<Span> shapeDims(llvm::StringRef text);
/// Integer literals outside identifiers and shapes (`-1`, `4` in `[2, 4]`).
std::vector<Span> integers(llvm::StringRef text);
/// Whole words (identifiers not after `%`, `#`, `^`, `@`, `!` or `.`),
/// an element type after a shape's `x` included.
std::vector<Span> words(llvm::StringRef text);
/// Op names: `dialect.op` words of the dialects programs use.
std::vector<Span> opNames(llvm::StringRef text);
/// SSA values (`%x`, `%arg0`; not their `#n` result numbers).
std::vector<Span> ssaValues(llvm::StringRef text);
/// The spans of the lines that hold an op or a value (a `%`), comments
/// excluded.
std::vector<Span> opLines(llvm::StringRef text);

/// A `#fuser.sharding<mesh, [[axes]...], fields>` attribute.
struct ShardingSite {
  /// The whole attribute.
  Span attribute;
  /// Its per-dim axes, `[[0], []]`, and their values.
  Span dims;
  std::vector<std::vector<int64_t>> axes;
  /// What follows the dims up to the closing `>`: `, partial = {...}`...
  Span fields;
};
std::vector<ShardingSite> shardings(llvm::StringRef text);
std::string printAxes(const std::vector<std::vector<int64_t>> &axes);

/// The axis sizes of a `#fuser.mesh<[2, 4], ...>` attribute and its
/// fields (`, devices = [...]`).
struct MeshSite {
  Span sizesList;
  std::vector<int64_t> sizes;
  Span fields;
};
std::vector<MeshSite> meshes(llvm::StringRef text);

/// The top-level comma-separated items of `text` (`, a = {..}, b = [..]`):
/// brackets and braces nest.
std::vector<std::string> splitFields(llvm::StringRef text);

} // namespace fuzz

#endif // FUSER_TOOLS_FUZZ_TEXTSITES_H
