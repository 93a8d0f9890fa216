//===- MarkAliases.cpp - view chains at function boundaries ---------------===//

#include "fuser/Dialect/Fuser/Analysis/AliasAnalysis.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/IR/Builders.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_MARKALIASES
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
class AliasMarking {
public:
  AliasMarking(func::FuncOp function, const AliasAnalysis &analysis)
      : function(function), analysis(analysis) {}

  void materializeViewLayouts();
  void bookendOutputs();
  void bookendInputs();

private:
  bool isAlias(Value value) const {
    return static_cast<bool>(analysis.getAlias(value));
  }
  /// Users that are view ops whose result is an alias of `value`.
  bool isViewUse(OpOperand &use) const {
    Operation *user = use.getOwner();
    return isa<ViewOpInterface>(user) && user->getNumResults() == 1 &&
           isAlias(user->getResult(0)) && use.getOperandNumber() == 0;
  }
  /// Whether a kernel may take the view `value` as its buffer: its type
  /// can state the view's order. A value without a sharding is row-major,
  /// which a broadcast along the fastest dim is not; compute reads such a
  /// view in its own kernel, through the view's index arithmetic.
  bool mayBeKernelBuffer(Value value) const {
    return getSharding(value) ||
           analysis.getLayout(value).order ==
               Layout::rowMajor(analysis.getLayout(value).order.size()).order;
  }
  static bool isReturn(Operation *op) {
    return op->hasTrait<mlir::OpTrait::ReturnLike>();
  }
  /// Separates `value` from `users` with a segment_set of its own type.
  void insertBoundary(Value value, ArrayRef<OpOperand *> users);
  void hoistArgumentViews();

  func::FuncOp function;
  const AliasAnalysis &analysis;
};
} // namespace

/// A view's type must describe the view: alias values whose layout nothing
/// stated get the layout of the view (returned ones too: the function's
/// result type follows).
void AliasMarking::materializeViewLayouts() {
  function.walk([&](ViewOpInterface view) {
    Value result = view->getResult(0);
    std::optional<AliasAnalysis::Alias> alias = analysis.getAlias(result);
    ShardingAttr sharding = getSharding(result);
    if (!alias || !sharding || !hasUnstatedLayout(result))
      return;
    result.setType(cast<RankedTensorType>(result.getType())
                       .cloneWithEncoding(sharding.withLayout(
                           alias->layout.order, alias->layout.contiguity)));
  });
  updateFunctionType(function);
}

void AliasMarking::insertBoundary(Value value, ArrayRef<OpOperand *> users) {
  if (users.empty() || isa_and_nonnull<SegmentSetOp>(value.getDefiningOp()))
    return;
  OpBuilder builder(function.getContext());
  builder.setInsertionPointAfterValue(value);
  Value boundary =
      SegmentSetOp::create(builder, value.getLoc(), value.getType(), value);
  for (OpOperand *use : users)
    use->set(boundary);
}

/// From each returned value, walk up the views that only views and the
/// return use; the buffer they view is computed by a kernel, which a
/// boundary separates from them.
void AliasMarking::bookendOutputs() {
  SmallVector<Value> returned;
  function.walk([&](func::ReturnOp ret) {
    llvm::append_range(returned, ret.getOperands());
  });
  for (Value value : returned) {
    Value top = value;
    while (std::optional<AliasAnalysis::Alias> alias = analysis.getAlias(top)) {
      bool onlyViewsAndReturns = llvm::all_of(top.getUses(), [&](OpOperand &use) {
        return isViewUse(use) || isReturn(use.getOwner());
      });
      if (!onlyViewsAndReturns)
        break;
      top = alias->source;
    }
    // Walking stops at the first buffer something other than these views
    // reads: a kernel's result, or a view that feeds compute (it stays with
    // that compute). Views of an argument need no boundary: no kernel.
    if (top == value || isa<BlockArgument>(analysis.getRoot(top)))
      continue;
    SmallVector<OpOperand *> viewUses;
    for (OpOperand &use : top.getUses())
      if (isViewUse(use))
        viewUses.push_back(&use);
    insertBoundary(top, viewUses);
  }
}

/// From each function argument, follow the views; where a view's value is
/// read by compute, a boundary puts the views in a segment of their own.
/// They and their boundaries then move to the top of the function: no
/// compute precedes them, and in place a boundary would end the kernel
/// segment around it (segments are runs in program order).
void AliasMarking::bookendInputs() {
  SmallVector<Value> frontier(function.getArguments().begin(),
                              function.getArguments().end());
  while (!frontier.empty()) {
    Value value = frontier.pop_back_val();
    SmallVector<OpOperand *> computeUses;
    for (OpOperand &use : value.getUses()) {
      if (isViewUse(use))
        frontier.push_back(use.getOwner()->getResult(0));
      else if (!isReturn(use.getOwner()) &&
               !isa<SegmentSetOp>(use.getOwner()))
        computeUses.push_back(&use);
    }
    if (isAlias(value) && mayBeKernelBuffer(value))
      insertBoundary(value, computeUses);
  }
  hoistArgumentViews();
}

/// Moves the views of arguments and their boundaries, in order, before the
/// function's first other op.
void AliasMarking::hoistArgumentViews() {
  Block &body = function.getBody().front();
  DenseSet<Value> hoisted(body.getArguments().begin(),
                          body.getArguments().end());
  Operation *insertionPoint = nullptr;
  for (Operation &op : llvm::make_early_inc_range(body)) {
    bool argumentView =
        (isa<SegmentSetOp>(op) || (isa<ViewOpInterface>(op) &&
                                   op.getNumResults() == 1 &&
                                   isAlias(op.getResult(0)))) &&
        llvm::all_of(op.getOperands(),
                     [&](Value operand) { return hoisted.contains(operand); });
    if (!argumentView) {
      if (!insertionPoint)
        insertionPoint = &op;
      continue;
    }
    hoisted.insert(op.getResults().begin(), op.getResults().end());
    if (insertionPoint)
      op.moveBefore(insertionPoint);
  }
}

namespace {
struct MarkAliasesPass
    : public mlir::fuser::impl::MarkAliasesBase<MarkAliasesPass> {
  void runOnOperation() override {
    // A declaration has no views to mark (and its type no body to follow).
    if (getOperation().isExternal())
      return;
    AliasMarking marking(getOperation(), getAnalysis<AliasAnalysis>());
    marking.materializeViewLayouts();
    marking.bookendOutputs();
    marking.bookendInputs();
  }
};
} // namespace
