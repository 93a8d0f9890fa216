//===- TensorShardingRules.cpp - tensor ops as fuser's layout ops ---------===//
//
// expand_shape and collapse_shape split or merge dims: each dim of the
// expanded side is a factor, and a collapsed dim is its group's factors,
// outermost first. extract_slice and pad share the dims they leave whole and
// block the ones they cut or grow, as fuser.slice and fuser.pad do; concat
// blocks the dim it joins along, as fuser.cat does. Reshapes and slices are
// views of their source (ViewOpInterface); pad and concat write new data.
// tensor.empty creates its result, whose undefined contents may be partial.
// Index operands (dynamic sizes, offsets) have no factors.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/ExternalModels/UpstreamShardingRules.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

using namespace mlir;
using namespace mlir::fuser;

/// Gives the operands after the first (index values) no factors.
static ShardingRule withIndexOperands(ShardingRule rule, Operation *op) {
  rule.operands.resize(op->getNumOperands());
  return rule;
}

namespace {
template <typename OpT>
struct ReassociationShardingRule
    : public ShardingRuleOpInterface::ExternalModel<
          ReassociationShardingRule<OpT>, OpT> {
  ShardingRule getShardingRule(Operation *op) const {
    auto reshape = cast<OpT>(op);
    RankedTensorType source = reshape.getSrcType();
    RankedTensorType result = reshape.getResultType();
    bool expands = source.getRank() < result.getRank();
    ArrayRef<int64_t> expanded =
        expands ? result.getShape() : source.getShape();
    ShardingRule rule;
    DimFactors expandedDims(expanded.size()), collapsedDims;
    for (const ReassociationIndices &group :
         reshape.getReassociationIndices()) {
      SmallVector<int64_t, 2> &merged = collapsedDims.emplace_back();
      for (int64_t dim : group) {
        rule.addOwnFactor(expandedDims, dim, expanded[dim]);
        llvm::append_range(merged, expandedDims[dim]);
      }
    }
    rule.operands.push_back(expands ? collapsedDims : expandedDims);
    rule.results.push_back(expands ? expandedDims : collapsedDims);
    return withIndexOperands(std::move(rule), op);
  }
};

template <typename OpT>
struct ReassociationViewLayout
    : public ViewOpInterface::ExternalModel<ReassociationViewLayout<OpT>, OpT> {
};

struct ExtractSliceShardingRule
    : public ShardingRuleOpInterface::ExternalModel<ExtractSliceShardingRule,
                                                    tensor::ExtractSliceOp> {
  ShardingRule getShardingRule(Operation *op) const {
    auto slice = cast<tensor::ExtractSliceOp>(op);
    ArrayRef<int64_t> source = slice.getSourceType().getShape();
    llvm::SmallBitVector dropped = slice.getDroppedDims();
    SmallVector<std::pair<int64_t, int64_t>> mapping;
    for (int64_t dim = 0, resultDim = 0, rank = source.size(); dim < rank;
         ++dim) {
      if (dropped[dim])
        continue;
      if (slice.getStaticOffsets()[dim] == 0 &&
          slice.getStaticSizes()[dim] == source[dim] &&
          !ShapedType::isDynamic(source[dim]) &&
          slice.getStaticStrides()[dim] == 1)
        mapping.emplace_back(dim, resultDim);
      ++resultDim;
    }
    return withIndexOperands(
        ShardingRule::pairedDims(source, slice.getResultType().getShape(),
                                 mapping, FactorKind::Blocked),
        op);
  }
};

struct ExtractSliceViewLayout
    : public ViewOpInterface::ExternalModel<ExtractSliceViewLayout,
                                            tensor::ExtractSliceOp> {
  std::optional<Layout> inferViewLayout(Operation *op,
                                        const Layout &operandLayout,
                                        std::string &whyNot) const {
    auto slice = cast<tensor::ExtractSliceOp>(op);
    if (slice.getDroppedDims().any()) {
      whyNot = "the slice drops dims";
      return std::nullopt;
    }
    return inferSliceLayout(operandLayout, slice.getSourceType().getShape(),
                            slice.getStaticSizes(), slice.getStaticStrides());
  }
};

/// Its contents are undefined, which any partial state may hold.
struct EmptyShardingRule
    : public ShardingRuleOpInterface::ExternalModel<EmptyShardingRule,
                                                    tensor::EmptyOp> {
  ShardingRule getShardingRule(Operation *op) const {
    auto empty = cast<tensor::EmptyOp>(op);
    ShardingRule rule =
        ShardingRule::pointwise(empty.getType().getShape(), 0, 1);
    rule.neutralFor = {ReductionKind::Sum, ReductionKind::Prod,
                       ReductionKind::Max, ReductionKind::Min,
                       ReductionKind::Avg};
    return withIndexOperands(std::move(rule), op);
  }
};

struct PadShardingRule
    : public ShardingRuleOpInterface::ExternalModel<PadShardingRule,
                                                    tensor::PadOp> {
  ShardingRule getShardingRule(Operation *op) const {
    auto pad = cast<tensor::PadOp>(op);
    return withIndexOperands(ShardingRule::keepingUnchangedDims(
                                 pad.getSourceType().getShape(),
                                 pad.getResultType().getShape(),
                                 [&](int64_t dim) {
                                   return pad.getStaticLow()[dim] != 0 ||
                                          pad.getStaticHigh()[dim] != 0;
                                 }),
                             op);
  }
};

struct ConcatShardingRule
    : public ShardingRuleOpInterface::ExternalModel<ConcatShardingRule,
                                                    tensor::ConcatOp> {
  ShardingRule getShardingRule(Operation *op) const {
    auto concat = cast<tensor::ConcatOp>(op);
    SmallVector<ArrayRef<int64_t>> inputs =
        llvm::map_to_vector(concat.getInputs(), [](Value input) {
          return cast<RankedTensorType>(input.getType()).getShape();
        });
    return ShardingRule::concatenation(
        inputs, concat.getResultType().getShape(), concat.getDim());
  }
};
} // namespace

void mlir::fuser::registerTensorShardingRules(DialectRegistry &registry) {
  registry.addExtension(+[](MLIRContext *context, tensor::TensorDialect *) {
    tensor::ExpandShapeOp::attachInterface<
        ReassociationShardingRule<tensor::ExpandShapeOp>,
        ReassociationViewLayout<tensor::ExpandShapeOp>>(*context);
    tensor::CollapseShapeOp::attachInterface<
        ReassociationShardingRule<tensor::CollapseShapeOp>,
        ReassociationViewLayout<tensor::CollapseShapeOp>>(*context);
    tensor::ExtractSliceOp::attachInterface<ExtractSliceShardingRule,
                                            ExtractSliceViewLayout>(*context);
    tensor::EmptyOp::attachInterface<EmptyShardingRule>(*context);
    tensor::PadOp::attachInterface<PadShardingRule>(*context);
    tensor::ConcatOp::attachInterface<ConcatShardingRule>(*context);
  });
}
