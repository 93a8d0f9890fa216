//===- Layout.h - allocation order and contiguity of local buffers -*- C++ -*-===//
//
// The layout of a value's local buffer, as the `order` and `contiguity` of
// its sharding describe it: the logical dims from outermost to innermost in
// memory, and for each of them (in that order) whether it is contiguous with
// the next inner one (the innermost: whether its stride is 1). An empty
// order means row-major; empty contiguity means all contiguous.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_FUSER_IR_LAYOUT_H
#define FUSER_DIALECT_FUSER_IR_LAYOUT_H

#include "fuser/Dialect/Fuser/IR/FuserAttrs.h"

namespace mlir::fuser {

struct Layout {
  SmallVector<int64_t> order;
  SmallVector<bool> contiguity;

  /// Row-major and contiguous.
  static Layout rowMajor(int64_t rank);
  /// The layout `sharding` states, defaults filled in.
  static Layout of(ShardingAttr sharding);

  bool isContiguous() const {
    return llvm::all_of(contiguity, [](bool c) { return c; });
  }
  bool isRowMajor() const;
  /// Same order, and contiguous wherever `required` is (a contiguous buffer
  /// serves where a non-contiguous one is asked for, not the reverse).
  bool compliesWith(const Layout &required) const;
  bool operator==(const Layout &other) const {
    return order == other.order && contiguity == other.contiguity;
  }
  bool operator!=(const Layout &other) const { return !(*this == other); }
};

/// `sharding` with its order and contiguity replaced by `layout`.
ShardingAttr withLayout(ShardingAttr sharding, const Layout &layout);

/// Whether a value's layout is the program's to choose: it has a sharding
/// that states no order, and it is not a function argument (the caller's
/// buffer). Results returned by the function are free until a pass fixes
/// them.
bool hasFreeLayout(Value value);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_IR_LAYOUT_H
