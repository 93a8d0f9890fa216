//===- ShardingRule.h - factor-based sharding rules of ops ------*- C++ -*-===//
//
// How an op's operand dims relate to its result dims, in the factor form of
// Shardy: every dim is a product of factors, outermost first; a factor that
// appears in an operand and a result is the same data; a reduction factor
// appears only in operands (a result computed from a split reduction factor
// is partial); a blocked factor may not be split (the op needs that dim
// whole, e.g. the sliced dim of a slice). Size-1 dims have no factor.
//
// Sharding propagation, resharding detection and (later) alias analysis read
// ops only through this description.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_FUSER_IR_SHARDINGRULE_H
#define FUSER_DIALECT_FUSER_IR_SHARDINGRULE_H

#include "fuser/Dialect/Fuser/IR/FuserAttrs.h"
#include "fuser/Dialect/Fuser/IR/Layout.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpDefinition.h"

namespace mlir::fuser {

enum class FactorKind {
  /// Present in results: splitting it splits the results the same way.
  Parallel,
  /// Present only in operands: splitting it makes the results partial.
  Reduction,
  /// May not be split at all.
  Blocked,
};

struct Factor {
  /// Static size, or ShapedType::kDynamic.
  int64_t size;
  FactorKind kind;
  /// How partial results of a split reduction factor combine.
  ReductionKind reduction = ReductionKind::Sum;
};

/// Per dim of one tensor, the indices of its factors, outermost first.
using DimFactors = SmallVector<SmallVector<int64_t, 2>>;

class ShardingRule {
public:
  int64_t addFactor(int64_t size, FactorKind kind = FactorKind::Parallel,
                    ReductionKind reduction = ReductionKind::Sum);
  /// A factor of `size` that only `tensor` (operand or result) has in `dim`,
  /// or none for a size-1 dim.
  void addOwnFactor(DimFactors &tensor, int64_t dim, int64_t size,
                    FactorKind kind = FactorKind::Parallel);

  /// Whether a result has a parallel factor that no operand has: the op
  /// repeats its operands' data along it (broadcast, expand), so the result
  /// holds more elements than the operands.
  bool repeatsOperandData() const;

  ArrayRef<Factor> getFactors() const { return factors; }
  const Factor &getFactor(int64_t index) const { return factors[index]; }
  int64_t getNumFactors() const { return factors.size(); }

  SmallVector<DimFactors> operands;
  SmallVector<DimFactors> results;

  /// Per operand, the result whose sharding it must carry exactly, partial
  /// state included; empty when no operand is bound. Upstream ops need it:
  /// a destination-passing op (linalg) computes each result into its init,
  /// whose type must equal the result's, and elementwise arith and math ops
  /// require equal operand and result encodings. Propagation gives bound
  /// operands their result's sharding (through a fuser.set where they keep
  /// another one); decomposition moves the other operands, never the result.
  SmallVector<std::optional<unsigned>> boundResults;
  std::optional<unsigned> getBoundResult(unsigned operand) const {
    return operand < boundResults.size() ? boundResults[operand] : std::nullopt;
  }
  bool hasBoundOperands() const {
    return llvm::any_of(boundResults, [](std::optional<unsigned> result) {
      return result.has_value();
    });
  }

  /// Reduction kinds whose partial values the results already are, although
  /// the op reduces nothing: every rank holds the same copy, which combines
  /// to itself under max, min and avg, and to itself under sum only when it
  /// is zero (a fill of the accumulator a split reduction adds into).
  SmallVector<ReductionKind> neutralFor;

  /// Every dim of every operand and result maps to the same factor: the rule
  /// of pointwise ops over tensors of `shape`.
  static ShardingRule pointwise(ArrayRef<int64_t> shape, unsigned numOperands,
                                unsigned numResults);

  /// The factors common to the row-major decomposition of `from` and `to`
  /// (a reshape). Where the shapes do not factor into each other, the dims
  /// involved get one blocked factor each.
  static ShardingRule reshape(ArrayRef<int64_t> from, ArrayRef<int64_t> to);

  /// One operand and one result where each entry of `mapping` pairs an
  /// operand dim with a result dim that hold the same data; other dims get
  /// factors of their own of kind `ownKind`.
  static ShardingRule pairedDims(ArrayRef<int64_t> operandShape,
                                 ArrayRef<int64_t> resultShape,
                                 ArrayRef<std::pair<int64_t, int64_t>> mapping,
                                 FactorKind ownKind = FactorKind::Parallel);

  /// Same-rank operand and result where the dims for which `changes` holds
  /// are cut or grown (slice, pad): they are blocked on both sides, since
  /// their elements move; the others are shared.
  static ShardingRule keepingUnchangedDims(ArrayRef<int64_t> operandShape,
                                           ArrayRef<int64_t> resultShape,
                                           function_ref<bool(int64_t)> changes);

  /// Operands of the same rank joined along `dim` into the result (cat): the
  /// joined dim is blocked everywhere, the others are shared.
  static ShardingRule concatenation(ArrayRef<ArrayRef<int64_t>> operandShapes,
                                    ArrayRef<int64_t> resultShape, int64_t dim);

private:
  SmallVector<Factor> factors;
};

//===----------------------------------------------------------------------===//
// Shardings seen through factors
//===----------------------------------------------------------------------===//

/// Mesh axes per factor (outermost first), plus the stream split a tensor
/// brings: the pieces of a sharding that carry over between the operands
/// and results of an op.
struct FactorSharding {
  explicit FactorSharding(int64_t numFactors) : axes(numFactors) {}
  SmallVector<SmallVector<int64_t>> axes;
  std::optional<int64_t> streamFactor;
  int64_t streamChunks = 0;

  /// Mesh axes used by any factor.
  SmallVector<int64_t> usedAxes() const;
};

/// Why (part of) a sharding cannot be expressed through an op's factors.
struct FactorMismatch {
  int64_t dim;
  std::string reason;
  /// The dim is split but the op needs it whole (a resharding, not an
  /// error: the op's operand must be gathered first).
  bool blocked = false;
};

/// Assigns the mesh axes of `sharding` (a tensor whose dims are `dims`) to
/// factors: each dim's axes go to its factors outermost first, an axis moving
/// on to the next factor only once the current one is fully split. Axes that
/// would straddle two factors (the split does not follow the outer factor) or
/// fall on a blocked factor are left out and reported in `mismatches`.
FactorSharding projectToFactors(const ShardingRule &rule,
                                const DimFactors &dims, ShardingAttr sharding,
                                SmallVectorImpl<FactorMismatch> &mismatches);

/// The per-dim mesh axes of a tensor whose dims are `dims`, from factor axes.
/// Fails when a dim would be split on an inner factor while an outer one is
/// not fully split (not expressible as nested outer splits).
FailureOr<SmallVector<SmallVector<int64_t>>>
dimAxesFromFactors(const ShardingRule &rule, const DimFactors &dims,
                   const FactorSharding &factors, MeshAttr mesh,
                   FactorMismatch &mismatch);

/// The factor sharding's stream split as a (dim, chunks) of a tensor whose
/// dims are `dims`, if that tensor has the stream factor outermost in a dim.
std::optional<std::pair<int64_t, int64_t>>
streamSplitOf(const DimFactors &dims, const FactorSharding &factors);

/// The rule of `op` if it implements ShardingRuleOpInterface.
std::optional<ShardingRule> getShardingRule(Operation *op);

/// The layout of `op`'s result as a view of its operand 0 laid out as
/// `operandLayout`, following the op's sharding rule (the default of
/// ViewOpInterface::inferViewLayout).
std::optional<Layout> inferViewLayoutFromFactors(Operation *op,
                                                 const Layout &operandLayout,
                                                 std::string &whyNot);

/// The layout of a slice of `shape` with extents `sliced` and `steps` (a
/// dynamic step counts as above 1), as a view of an operand laid out as
/// `operandLayout`: its memory order, not contiguous where it leaves gaps.
Layout inferSliceLayout(const Layout &operandLayout, ArrayRef<int64_t> shape,
                        ArrayRef<int64_t> sliced, ArrayRef<int64_t> steps);

} // namespace mlir::fuser

namespace mlir::fuser::OpTrait {
/// See Fuser_LibraryCall.
template <typename ConcreteType>
class LibraryCall
    : public ::mlir::OpTrait::TraitBase<ConcreteType, LibraryCall> {};
/// See Fuser_SegmentBoundary.
template <typename ConcreteType>
class SegmentBoundary
    : public ::mlir::OpTrait::TraitBase<ConcreteType, SegmentBoundary> {};
} // namespace mlir::fuser::OpTrait

#include "fuser/Dialect/Fuser/Interfaces/FuserInterfaces.h.inc"

#endif // FUSER_DIALECT_FUSER_IR_SHARDINGRULE_H
