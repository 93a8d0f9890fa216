//===- InferAllocationOrder.cpp - memory order from inputs to outputs -----===//

#include "fuser/Dialect/Fuser/Analysis/AliasAnalysis.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_INFERALLOCATIONORDER
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

static int64_t countNonUnitDims(Value value) {
  return llvm::count_if(cast<RankedTensorType>(value.getType()).getShape(),
                        [](int64_t size) { return size != 1; });
}

/// The expand or broadcast `value` is, seen through the segment boundaries
/// mark-aliases puts after views; null for any other value.
static Operation *getRepeatingView(Value value) {
  Operation *producer = value.getDefiningOp();
  while (auto boundary = dyn_cast_or_null<SegmentSetOp>(producer))
    producer = boundary.getInput().getDefiningOp();
  return isa_and_nonnull<ExpandOp, BroadcastOp>(producer) ? producer : nullptr;
}

/// The order of `resultDims` that follows `reference` (an operand's layout
/// over `operandDims`) through shared factors: result dims the operand does
/// not have first, in logical order, then the others in the operand's
/// memory order, each where its innermost factor lies. A result dim that
/// merges factors apart in memory (attention's heads and head dim, with
/// the sequence between them) then keeps the operand's fastest factor
/// fastest, so that the copy making it reads and writes runs of it rather
/// than transposing.
static SmallVector<int64_t> followOrder(const Layout &reference,
                                        const DimFactors &operandDims,
                                        const DimFactors &resultDims) {
  DenseMap<int64_t, int64_t> resultDimOf;
  for (auto [dim, factors] : llvm::enumerate(resultDims))
    for (int64_t factor : factors)
      resultDimOf[factor] = dim;
  // Each result dim's innermost factor's place in the operand's memory
  // order.
  DenseMap<int64_t, int64_t> innermost;
  int64_t place = 0;
  for (int64_t dim : reference.order)
    for (int64_t factor : operandDims[dim]) {
      auto it = resultDimOf.find(factor);
      if (it != resultDimOf.end())
        innermost[it->second] = place;
      ++place;
    }
  SmallVector<int64_t> order, mapped;
  for (int64_t dim = 0, rank = resultDims.size(); dim < rank; ++dim)
    (innermost.count(dim) ? mapped : order).push_back(dim);
  llvm::stable_sort(mapped, [&](int64_t a, int64_t b) {
    return innermost.lookup(a) < innermost.lookup(b);
  });
  llvm::append_range(order, mapped);
  return order;
}

namespace {
/// Walks the function in program order, keeping the layout each value has
/// or will get, and writes it into the types of results that may take it.
class OrderInference {
public:
  OrderInference(func::FuncOp function, const AliasAnalysis &analysis)
      : function(function), analysis(analysis) {}
  void run();

private:
  Layout layoutOf(Value value) const {
    auto it = inferred.find(value);
    return it != inferred.end() ? it->second : analysis.getLayout(value);
  }
  void visit(ShardingRuleOpInterface op);
  /// A result's layout may be chosen here when nothing stated it, it is not
  /// a view, no view of it was laid out from its current layout, and no
  /// communication reads it: fuser-reorder-sharded-axis laid those out for
  /// it, row-major too, which states no order.
  bool mayChoose(Value result) const {
    return hasUnstatedLayout(result) && !analysis.getAlias(result) &&
           llvm::none_of(result.getUsers(), [&](Operation *user) {
             return isa<CommunicationOpInterface>(user) ||
                    (isa<ViewOpInterface>(user) &&
                     analysis.getAlias(user->getResult(0)));
           });
  }

  func::FuncOp function;
  const AliasAnalysis &analysis;
  DenseMap<Value, Layout> inferred;
};
} // namespace

void OrderInference::visit(ShardingRuleOpInterface op) {
  if (op->hasTrait<mlir::fuser::OpTrait::LibraryCall>())
    return;
  // The reference: the operand with the most dims above size 1 that is not
  // row-major (a row-major one has nothing to pass on); ties go first.
  // An expand or broadcast puts the dims it repeats outermost only because
  // repeated data has no memory order: an expand passes nothing on, a
  // broadcast only its input's order (a layer norm's per-row statistics,
  // broadcast along the row, must not turn the rows' layout around).
  std::optional<unsigned> reference;
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    Operation *repeating = getRepeatingView(operand);
    if (!getSharding(operand) || layoutOf(operand).isRowMajor() ||
        isa_and_nonnull<ExpandOp>(repeating) ||
        (isa_and_nonnull<BroadcastOp>(repeating) &&
         layoutOf(repeating->getOperand(0)).isRowMajor()))
      continue;
    if (!reference ||
        countNonUnitDims(operand) > countNonUnitDims(op->getOperand(*reference)))
      reference = index;
  }
  if (!reference)
    return;
  ShardingRule rule = op.getShardingRule();
  Layout source = layoutOf(op->getOperand(*reference));
  for (auto [index, result] : llvm::enumerate(op->getResults())) {
    ShardingAttr sharding = getSharding(result);
    if (!sharding || !mayChoose(result))
      continue;
    Layout layout;
    layout.order =
        followOrder(source, rule.operands[*reference], rule.results[index]);
    layout.contiguity.assign(layout.order.size(), true);
    inferred[result] = layout;
    result.setType(cast<RankedTensorType>(result.getType())
                       .cloneWithEncoding(sharding.withLayout(
                           layout.order, layout.contiguity)));
  }
}

void OrderInference::run() {
  function.walk([&](ShardingRuleOpInterface op) { visit(op); });
  updateFunctionType(function);
}

namespace {
struct InferAllocationOrderPass
    : public mlir::fuser::impl::InferAllocationOrderBase<
          InferAllocationOrderPass> {
  void runOnOperation() override {
    OrderInference(getOperation(), getAnalysis<AliasAnalysis>()).run();
  }
};
} // namespace
