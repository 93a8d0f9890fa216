//===- AliasAnalysis.h - which values can be views of others ----*- C++ -*-===//
//
// For every result of a view op (ViewOpInterface), whether it can share its
// operand's buffer and with which layout. Views of views resolve to the root
// buffer. A view must not reshard (a placement change moves data), a
// result whose layout is already stated must agree with the view's layout,
// and the view must be a buffer its library readers can read:
// communications read one contiguous buffer (laid out for them), library
// calls read matrices whose rows or columns lie in memory, never repeated
// data. A view that is not an alias is computed into a buffer of its own.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_FUSER_ANALYSIS_ALIASANALYSIS_H
#define FUSER_DIALECT_FUSER_ANALYSIS_ALIASANALYSIS_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "llvm/ADT/MapVector.h"

namespace mlir::fuser {

class AliasAnalysis {
public:
  /// Analyses every view op nested in `root`. Usable as an MLIR analysis
  /// (`getAnalysis<AliasAnalysis>()`).
  explicit AliasAnalysis(Operation *root);

  struct Alias {
    /// The value whose buffer this one views.
    Value source;
    /// The layout this value has as that view.
    Layout layout;
    /// Whether the view repeats data of the buffer (stride 0), itself or
    /// through the views it views.
    bool repeatsData = false;
  };

  /// The alias `value` is, if it is one.
  std::optional<Alias> getAlias(Value value) const;
  /// The buffer `value` ultimately views: itself when it is not an alias.
  Value getRoot(Value value) const;
  /// Why a result of a view op is not an alias (empty for aliases and for
  /// values not defined by view ops).
  StringRef getReasonNotAlias(Value value) const;
  /// The layout of `value`'s buffer: its view layout if it is an alias, else
  /// the one its sharding states (row-major without one).
  Layout getLayout(Value value) const;

private:
  void analyze(ViewOpInterface view);

  llvm::MapVector<Value, Alias> aliases;
  DenseMap<Value, std::string> notAliases;
};

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_ANALYSIS_ALIASANALYSIS_H
