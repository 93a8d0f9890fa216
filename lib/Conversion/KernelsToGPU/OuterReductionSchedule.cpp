//===- OuterReductionSchedule.cpp - reductions over the leading dims ------===//
//
// For kernels whose reductions all fold the same leading dims (column sums,
// statistics over the batch) and whose outputs are indexed by the kept
// dims: each thread owns one lane group of kept elements and folds it down
// the reduced rows in a loop. Consecutive threads own consecutive groups, so
// every step of the loop reads consecutive addresses across a warp.
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

static constexpr int64_t kThreads = 256;

namespace {
/// The iteration space all reductions share: reduced dims, then kept ones.
struct ColumnShape {
  SmallVector<int64_t> reduced, kept;
};
} // namespace

static int64_t product(ArrayRef<int64_t> sizes) {
  int64_t count = 1;
  for (int64_t size : sizes)
    count *= size;
  return count;
}

/// The shape when every reduction folds the same leading dims and writes
/// the kept dims in order (after size-1 dims it keeps).
static FailureOr<ColumnShape> matchColumns(Kernel &kernel) {
  std::optional<ColumnShape> shape;
  for (linalg::GenericOp reduction : kernel.reductions) {
    SmallVector<int64_t> ranges = reduction.getStaticLoopRanges();
    SmallVector<unsigned> reducedDims;
    reduction.getReductionDims(reducedDims);
    int64_t reduced = reducedDims.size();
    for (auto [position, dim] : llvm::enumerate(reducedDims))
      if (dim != position)
        return failure();
    if (failed(matchCombiner(reduction)) || reduction.getNumDpsInits() != 1)
      return failure();
    int64_t next = reduced;
    for (AffineExpr expr :
         reduction.getIndexingMapsArray().back().getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      if (dim ? dim.getPosition() != next++
              : !constant || constant.getValue() != 0 || next != reduced)
        return failure();
    }
    if (next != static_cast<int64_t>(ranges.size()))
      return failure();
    ColumnShape candidate{
        SmallVector<int64_t>(ranges.begin(), ranges.begin() + reduced),
        SmallVector<int64_t>(ranges.begin() + reduced, ranges.end())};
    if (candidate.kept.empty() ||
        (shape && (shape->reduced != candidate.reduced ||
                   shape->kept != candidate.kept)))
      return failure();
    shape = candidate;
  }
  if (!shape)
    return failure();
  // Every output is one value per kept element.
  for (auto output : kernel.outputs) {
    ArrayRef<int64_t> dims = bufferShape(output.second);
    if (dims.size() < shape->kept.size() ||
        dims.take_back(shape->kept.size()) != ArrayRef(shape->kept) ||
        product(dims) != product(shape->kept))
      return failure();
  }
  return *shape;
}

/// Index of a kept-shaped value of `rank` dims at the kept index.
static SmallVector<AffineExpr> keptIndex(ArrayRef<AffineExpr> kept,
                                         int64_t rank, MLIRContext *context) {
  SmallVector<AffineExpr> index(rank - kept.size(),
                                getAffineConstantExpr(0, context));
  llvm::append_range(index, kept);
  return index;
}

static FailureOr<SmallVector<Value>>
emitColumns(Kernel &kernel, OpBuilder &builder, const ColumnShape &shape,
            int64_t width) {
  Location loc = kernel.function.getLoc();
  MLIRContext *context = builder.getContext();
  ElementEmitter emitter(builder, loc, kernel.values, width);
  AffineExpr thread = emitter.bind(
      gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr block = emitter.bind(
      gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr group = block * kThreads + thread;
  int64_t groups = product(shape.kept) / width;
  Value inside = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::ult, emitter.materialize(group),
      arith::ConstantIndexOp::create(builder, loc, groups));
  auto branch = scf::IfOp::create(builder, loc, TypeRange{}, inside, false);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(branch.thenBlock()->getTerminator());
  SmallVector<AffineExpr> kept =
      delinearize(group * width + emitter.lane(), shape.kept);

  // Each reduction's value, lane by lane, for this thread's group.
  DenseMap<Operation *, SmallVector<Value>> folded;
  emitter.setReductionProvider(
      [&](linalg::GenericOp reduction,
          ArrayRef<AffineExpr> index) -> FailureOr<Value> {
        auto values = folded.find(reduction);
        if (values == folded.end())
          return failure();
        SmallVector<AffineExpr> expected =
            keptIndex(kept, index.size(), context);
        for (auto [expr, want] : llvm::zip(index, expected))
          if (emitter.atLane(expr) != emitter.atLane(want))
            return failure();
        return values->second[emitter.laneNumber()];
      });
  for (linalg::GenericOp reduction : kernel.reductions) {
    Combiner combiner = *matchCombiner(reduction);
    Type type = reduction.getBody()->getArguments().back().getType();
    SmallVector<Value> identities(width,
                                  combiner.identity(builder, loc, type));
    auto loop = scf::ForOp::create(
        builder, loc, arith::ConstantIndexOp::create(builder, loc, 0),
        arith::ConstantIndexOp::create(builder, loc, product(shape.reduced)),
        arith::ConstantIndexOp::create(builder, loc, 1), identities);
    {
      OpBuilder::InsertionGuard inLoop(builder);
      builder.setInsertionPointToStart(loop.getBody());
      SmallVector<AffineExpr> iteration = delinearize(
          emitter.bind(loop.getInductionVar()), shape.reduced);
      llvm::append_range(iteration, kept);
      SmallVector<Value> next;
      for (int64_t lane = 0; lane < width; ++lane) {
        emitter.setLane(lane);
        FailureOr<Value> value = emitter.applyBody(reduction, iteration,
                                                   loop.getRegionIterArg(lane));
        if (failed(value))
          return failure();
        next.push_back(*value);
      }
      scf::YieldOp::create(builder, loc, next);
    }
    SmallVector<Value> results;
    int64_t rank = reduction.getIndexingMapsArray().back().getNumResults();
    for (int64_t lane = 0; lane < width; ++lane) {
      emitter.setLane(lane);
      FailureOr<Value> initial = emitter.element(
          reduction.getDpsInits().front(), keptIndex(kept, rank, context));
      if (failed(initial))
        return failure();
      results.push_back(
          combiner.combine(builder, *initial, loop.getResult(lane)));
    }
    folded[reduction] = results;
  }
  for (auto [tensor, buffer] : kernel.outputs) {
    SmallVector<AffineExpr> index =
        keptIndex(kept, bufferShape(buffer).size(), context);
    FailureOr<SmallVector<Value>> lanes = emitter.lanes(tensor, index);
    if (failed(lanes) || failed(emitter.storeLanes(buffer, index, *lanes)))
      return failure();
  }
  return SmallVector<Value>(emitter.vectorBuffers());
}

FailureOr<LaunchShape>
mlir::fuser::gpu_schedule::emitOuterReductionSchedule(Kernel &kernel,
                                                      OpBuilder &builder) {
  if (kernel.reductions.empty())
    return failure();
  FailureOr<ColumnShape> shape = matchColumns(kernel);
  if (failed(shape))
    return failure();
  int64_t widest = vectorWidth(kernel, shape->kept.back());
  LogicalResult emitted = emitVectorOrScalar(
      builder, kernel.function.getLoc(), widest,
      [&](int64_t width) { return emitColumns(kernel, builder, *shape, width); });
  if (failed(emitted))
    return failure();
  // The scalar path owns `widest` times fewer elements per thread: the
  // launch covers it.
  return LaunchShape{ceilDiv(product(shape->kept), kThreads), kThreads};
}
