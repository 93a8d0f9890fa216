//===- AssignStreams.cpp - iterations of stream-parallel loops on streams -===//

#include "fuser/Dialect/HostIR/Transforms/Passes.h"

#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/Builders.h"

namespace mlir::hostir {
#define GEN_PASS_DEF_ASSIGNSTREAMS
#include "fuser/Dialect/HostIR/Transforms/Passes.h.inc"
} // namespace mlir::hostir

using namespace mlir;
using namespace mlir::hostir;

namespace {
struct AssignStreamsPass
    : public mlir::hostir::impl::AssignStreamsBase<AssignStreamsPass> {
  using AssignStreamsBase::AssignStreamsBase;

  void runOnOperation() override;
  LogicalResult assign(scf::ForOp loop);
};
} // namespace

LogicalResult AssignStreamsPass::assign(scf::ForOp loop) {
  loop->removeAttr(HostIRDialect::getStreamParallelAttrName());
  std::optional<int64_t> lower = getConstantIntValue(loop.getLowerBound());
  std::optional<int64_t> upper = getConstantIntValue(loop.getUpperBound());
  std::optional<int64_t> step = getConstantIntValue(loop.getStep());
  if (!lower || !upper || !step || *lower != 0 || *step != 1)
    return loop.emitError("a stream-parallel loop must run from 0 in steps "
                          "of 1 to a constant");
  // One stream per iteration unless fewer are asked for.
  int64_t pool = streams > 0 ? std::min<int64_t>(streams, *upper) : *upper;

  Location loc = loop.getLoc();
  OpBuilder builder(loop);
  auto streamType = StreamType::get(builder.getContext());
  Value main = GetCurrentStreamOp::create(builder, loc, streamType);
  Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
  Value one = arith::ConstantIndexOp::create(builder, loc, 1);
  Value poolSize = arith::ConstantIndexOp::create(builder, loc, pool);
  auto overPool = [&](function_ref<void(Value)> body) {
    auto forOp = scf::ForOp::create(builder, loc, zero, poolSize, one);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(forOp.getBody()->getTerminator());
    body(forOp.getInductionVar());
  };
  overPool([&](Value index) {
    SetCurrentStreamOp::create(
        builder, loc, StreamFromPoolOp::create(builder, loc, streamType, index));
    SynchronizeStreamOp::create(builder, loc, main);
  });
  {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(loop.getBody());
    Value index = loop.getInductionVar();
    if (pool < *upper)
      index = arith::RemUIOp::create(builder, loc, index, poolSize);
    SetCurrentStreamOp::create(
        builder, loc, StreamFromPoolOp::create(builder, loc, streamType, index));
  }
  builder.setInsertionPointAfter(loop);
  SetCurrentStreamOp::create(builder, loc, main);
  overPool([&](Value index) {
    SynchronizeStreamOp::create(
        builder, loc, StreamFromPoolOp::create(builder, loc, streamType, index));
  });
  return success();
}

void AssignStreamsPass::runOnOperation() {
  SmallVector<scf::ForOp> loops;
  getOperation().walk([&](scf::ForOp loop) {
    if (loop->hasAttr(HostIRDialect::getStreamParallelAttrName()))
      loops.push_back(loop);
  });
  for (scf::ForOp loop : loops)
    if (failed(assign(loop)))
      return signalPassFailure();
}
