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

/// The layout a communication needs for a buffer laid out as `current`:
/// fully contiguous and, when it concatenates or splits blocks of
/// `outerDim`, with that dim outermost (other dims keep their order).
Layout communicationLayout(const Layout &current,
                           std::optional<int64_t> outerDim);

/// Whether a buffer of `localShape` laid out as `current` already serves a
/// communication: contiguous, and no dim of local size above 1 before
/// `outerDim` (size-1 dims may sit anywhere).
bool servesCommunication(const Layout &current, ArrayRef<int64_t> localShape,
                         std::optional<int64_t> outerDim);

/// Whether a buffer of `localShape` laid out as `current` serves a
/// communication run chunk by chunk along `streamDim`: every one of the
/// `chunks` chunks is one contiguous piece (the stream dim outermost) that
/// serves the communication on its own.
bool servesChunkwiseCommunication(const Layout &current,
                                  ArrayRef<int64_t> localShape,
                                  int64_t streamDim, int64_t chunks,
                                  std::optional<int64_t> outerDim);

/// The per-rank buffer of a tensor: its local shape (global without a
/// sharding) and strides from its layout; a dim that is not contiguous has
/// a dynamic stride, as have all dims outside it, and a dynamic offset.
MemRefType getLocalBufferType(RankedTensorType type);

/// Whether a value has a sharding that states no layout and is not a
/// function argument (whose layout is the caller's). Such a value is
/// row-major until a pass chooses otherwise.
bool hasUnstatedLayout(Value value);

/// Whether a value's layout is the program's to choose freely: unstated
/// and not returned (a returned value's layout is the function's result
/// type, which a pass may only choose when it also updates the function).
bool hasFreeLayout(Value value);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_IR_LAYOUT_H
