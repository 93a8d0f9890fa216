//===- Mutator.h - seeded mutations of lit inputs ---------------*- C++ -*-===//
//
// A mutant is a lit input with one to three edits of the text: a number in
// a shape, a mesh or an attribute; a mesh's axes; a sharding's axes or
// fields (partial, stream, order, contiguity); an element type; an op line
// deleted, duplicated or moved; operands swapped or replaced; an op name
// or a keyword replaced by another of the corpus. Edits of a type or a
// sharding alias apply to one occurrence or to all, so that some mutants
// stay well typed and reach the passes. Mutant i of seed s is the same on
// every run over the same corpus.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_TOOLS_FUZZ_MUTATOR_H
#define FUSER_TOOLS_FUZZ_MUTATOR_H

#include "Corpus.h"

#include "llvm/ADT/ArrayRef.h"

#include <cstdint>
#include <string>
#include <vector>

namespace fuzz {

struct Mutant {
  const Case *source = nullptr;
  std::string text;
  /// What was edited, one description per edit.
  std::vector<std::string> edits;
};

/// The op names (dialect.op) and bare words of a corpus, to splice in.
struct Vocabulary {
  explicit Vocabulary(llvm::ArrayRef<Case> corpus);
  std::vector<std::string> opNames;
  std::vector<std::string> words;
};

class Mutator {
public:
  /// Mutates inputs of `corpus`, which must outlive it.
  explicit Mutator(llvm::ArrayRef<Case> corpus);
  /// Mutant `index` of the run seeded with `seed`.
  Mutant mutate(uint64_t seed, uint64_t index) const;

private:
  llvm::ArrayRef<Case> corpus;
  Vocabulary vocabulary;
};

} // namespace fuzz

#endif // FUSER_TOOLS_FUZZ_MUTATOR_H
