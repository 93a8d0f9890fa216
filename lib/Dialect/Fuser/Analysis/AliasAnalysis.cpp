//===- AliasAnalysis.cpp - which values can be views of others ------------===//

#include "fuser/Dialect/Fuser/Analysis/AliasAnalysis.h"
#include "fuser/Dialect/Fuser/Analysis/Resharding.h"
#include "fuser/Dialect/Fuser/Analysis/StageContracts.h"

using namespace mlir;
using namespace mlir::fuser;

AliasAnalysis::AliasAnalysis(Operation *root) {
  // Ops come in dominance order, so a view's operand is analysed first.
  root->walk([&](ViewOpInterface view) { analyze(view); });
}

Layout AliasAnalysis::getLayout(Value value) const {
  if (std::optional<Alias> alias = getAlias(value))
    return alias->layout;
  // An all_slice's block is a view of its operand's buffer, whatever its
  // type states: the operand's order, with a gap outside the split dim
  // unless that dim is outermost.
  if (auto slice = value.getDefiningOp<AllSliceOp>()) {
    Layout layout = getLayout(slice.getInput());
    if (std::optional<int64_t> dim =
            getSharding(value).getDimSplitBy(slice.getAxis())) {
      auto position = llvm::find(layout.order, *dim) - layout.order.begin();
      if (position > 0)
        layout.contiguity[position - 1] = false;
    }
    return layout;
  }
  if (ShardingAttr sharding = getSharding(value))
    return Layout::of(sharding);
  return Layout::rowMajor(cast<RankedTensorType>(value.getType()).getRank());
}

/// Why a reader of `value` that a library serves (a communication, a
/// library call) cannot read it as a view laid out as `layout`, if it
/// cannot.
static std::optional<StringRef>
whyLibraryReaderNeedsCopy(Value value, const Layout &layout, bool repeatsData) {
  for (Operation *user : value.getUsers()) {
    auto comm = dyn_cast<CommunicationOpInterface>(user);
    if (comm && !layoutServesCommunication(comm, /*resultSide=*/false, layout))
      return StringRef("a communication reads it as one contiguous buffer");
    if (repeatsData && user->hasTrait<mlir::fuser::OpTrait::LibraryCall>())
      return StringRef("a library call reads it, and it repeats data");
  }
  return std::nullopt;
}

void AliasAnalysis::analyze(ViewOpInterface view) {
  Operation *op = view.getOperation();
  Value source = op->getOperand(0);
  Value result = op->getResult(0);
  auto ruled = dyn_cast<ShardingRuleOpInterface>(op);
  if (ruled && (getSharding(source) || getSharding(result)) &&
      isResharding(ruled)) {
    notAliases[result] = "the op reshards: its data moves between ranks";
    return;
  }
  std::string whyNot;
  std::optional<Layout> layout = view.inferViewLayout(getLayout(source), whyNot);
  if (!layout) {
    notAliases[result] = whyNot;
    return;
  }
  // A stated layout must describe the view's memory: same order, and not
  // claiming contiguity the view lacks.
  ShardingAttr stated = getSharding(result);
  if (stated && stated.statesLayout() &&
      !layout->compliesWith(Layout::of(stated))) {
    notAliases[result] =
        "the result's stated layout differs from the view's layout";
    return;
  }
  std::optional<Alias> sourceAlias = getAlias(source);
  bool repeatsData = (ruled && ruled.getShardingRule().repeatsOperandData()) ||
                     (sourceAlias && sourceAlias->repeatsData);
  if (std::optional<StringRef> whyCopy =
          whyLibraryReaderNeedsCopy(result, *layout, repeatsData)) {
    notAliases[result] = whyCopy->str();
    return;
  }
  aliases[result] = Alias{source, *layout, repeatsData};
}

std::optional<AliasAnalysis::Alias>
AliasAnalysis::getAlias(Value value) const {
  auto it = aliases.find(value);
  if (it == aliases.end())
    return std::nullopt;
  return it->second;
}

Value AliasAnalysis::getRoot(Value value) const {
  while (std::optional<Alias> alias = getAlias(value))
    value = alias->source;
  return value;
}

StringRef AliasAnalysis::getReasonNotAlias(Value value) const {
  auto it = notAliases.find(value);
  return it == notAliases.end() ? StringRef() : StringRef(it->second);
}
