//===- OuterReductionSchedule.cpp - reductions over the leading dims ------===//
//
// For kernels whose reductions all fold the same leading dims (column sums,
// statistics over the batch) and whose outputs are indexed by the kept
// dims: a block owns kColumnThreads consecutive lane groups of kept
// elements, and its kRowThreads slices of threads fold every
// kRowThreads-th reduced row of them in a loop; the slices' partial
// values meet in shared memory, where the first slice folds them in order.
// A thread per lane group alone (1536 threads for a bias gradient of 12288
// bf16 columns) leaves most of the GPU idle while each folds thousands of
// rows. Consecutive threads own consecutive groups, so every step of the
// loop reads whole 16-byte lane groups of kColumnThreads consecutive
// addresses per row. The order of the fold depends on the launch only.
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

static constexpr int64_t kColumnThreads = 8;
static constexpr int64_t kRowThreads = 32;
static constexpr int64_t kThreads = kColumnThreads * kRowThreads;
/// Partial values staged in shared memory, per block, at most.
static constexpr int64_t kSharedBytes = 48 * 1024;

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

/// What `reduction` folds its values into.
static Type getAccumulatorType(linalg::GenericOp reduction) {
  return reduction.getBody()->getArguments().back().getType();
}

/// Each reduction's shared memory: kRowThreads rows of partial values of
/// kColumnThreads lane groups of `width` accumulators.
static SmallVector<Value> addPartialBuffers(Kernel &kernel, int64_t width) {
  MLIRContext *context = kernel.gpuFunction.getContext();
  auto workgroup = gpu::AddressSpaceAttr::get(
      context, gpu::GPUDialect::getWorkgroupAddressSpace());
  SmallVector<Value> buffers;
  for (linalg::GenericOp reduction : kernel.reductions)
    buffers.push_back(kernel.gpuFunction.addWorkgroupAttribution(
        MemRefType::get({kRowThreads, kColumnThreads * width},
                        getAccumulatorType(reduction),
                        MemRefLayoutAttrInterface(), workgroup),
        kernel.function.getLoc()));
  return buffers;
}

static FailureOr<SmallVector<Value>>
emitColumns(Kernel &kernel, OpBuilder &builder, const ColumnShape &shape,
            int64_t width, ArrayRef<Value> partials) {
  Location loc = kernel.function.getLoc();
  MLIRContext *context = builder.getContext();
  ElementEmitter emitter(builder, loc, kernel.values, width);
  AffineExpr thread = emitter.bind(
      gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr block = emitter.bind(
      gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr column = thread % kColumnThreads;
  AffineExpr slice = thread.floorDiv(kColumnThreads);
  AffineExpr group = block * kColumnThreads + column;
  int64_t groups = product(shape.kept) / width;
  Value inside = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::ult, emitter.materialize(group),
      arith::ConstantIndexOp::create(builder, loc, groups));
  SmallVector<AffineExpr> kept =
      delinearize(group * width + emitter.lane(), shape.kept);
  auto partialIndex = [&](AffineExpr row) {
    return ValueRange{emitter.materialize(row),
                      emitter.materialize(column * width + emitter.lane())};
  };

  // Phase 1: each slice's partial value of each reduction, lane by lane,
  // for this thread's group (identities outside the kept elements).
  for (auto [reduction, partial] : llvm::zip(kernel.reductions, partials)) {
    Combiner combiner = *matchCombiner(reduction);
    Type type = getAccumulatorType(reduction);
    SmallVector<Type> types(width, type);
    auto branch = scf::IfOp::create(builder, loc, types, inside,
                                    /*withElseRegion=*/true);
    {
      OpBuilder::InsertionGuard guard(builder);
      builder.setInsertionPointToStart(branch.thenBlock());
      SmallVector<Value> identities(width,
                                    combiner.identity(builder, loc, type));
      auto loop = scf::ForOp::create(
          builder, loc, emitter.materialize(slice),
          arith::ConstantIndexOp::create(builder, loc, product(shape.reduced)),
          arith::ConstantIndexOp::create(builder, loc, kRowThreads), identities);
      {
        OpBuilder::InsertionGuard inLoop(builder);
        builder.setInsertionPointToStart(loop.getBody());
        SmallVector<AffineExpr> iteration = delinearize(
            emitter.bind(loop.getInductionVar()), shape.reduced);
        llvm::append_range(iteration, kept);
        SmallVector<Value> next;
        for (int64_t lane = 0; lane < width; ++lane) {
          emitter.setLane(lane);
          FailureOr<Value> value = emitter.applyBody(
              reduction, iteration, loop.getRegionIterArg(lane));
          if (failed(value))
            return failure();
          next.push_back(*value);
        }
        scf::YieldOp::create(builder, loc, next);
      }
      scf::YieldOp::create(builder, loc, loop.getResults());
      builder.setInsertionPointToStart(branch.elseBlock());
      scf::YieldOp::create(
          builder, loc,
          SmallVector<Value>(width, combiner.identity(builder, loc, type)));
    }
    for (int64_t lane = 0; lane < width; ++lane) {
      emitter.setLane(lane);
      memref::StoreOp::create(builder, loc, branch.getResult(lane), partial,
                              partialIndex(slice));
    }
  }
  gpu::BarrierOp::create(builder, loc);

  // Phase 2: the first slice folds the slices' values in order, then the
  // reduction's initial value, and computes the outputs.
  Value first = arith::AndIOp::create(
      builder, loc, inside,
      arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::eq, emitter.materialize(slice),
          arith::ConstantIndexOp::create(builder, loc, 0)));
  auto branch = scf::IfOp::create(builder, loc, TypeRange{}, first, false);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(branch.thenBlock()->getTerminator());
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
  for (auto [reduction, partial] : llvm::zip(kernel.reductions, partials)) {
    Combiner combiner = *matchCombiner(reduction);
    int64_t rank = reduction.getIndexingMapsArray().back().getNumResults();
    SmallVector<Value> results;
    for (int64_t lane = 0; lane < width; ++lane) {
      emitter.setLane(lane);
      Value value = memref::LoadOp::create(
          builder, loc, partial,
          partialIndex(getAffineConstantExpr(0, context)));
      for (int64_t row = 1; row < kRowThreads; ++row)
        value = combiner.combine(
            builder, value,
            memref::LoadOp::create(
                builder, loc, partial,
                partialIndex(getAffineConstantExpr(row, context))));
      FailureOr<Value> initial = emitter.element(
          reduction.getDpsInits().front(), keptIndex(kept, rank, context));
      if (failed(initial))
        return failure();
      results.push_back(combiner.combine(builder, *initial, value));
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
  int64_t sharedBytes = 0;
  for (linalg::GenericOp reduction : kernel.reductions)
    sharedBytes += kThreads * widest *
                   llvm::divideCeil(
                       getAccumulatorType(reduction).getIntOrFloatBitWidth(), 8);
  if (sharedBytes > kSharedBytes)
    return failure();
  SmallVector<Value> partials = addPartialBuffers(kernel, widest);
  LogicalResult emitted = emitVectorOrScalar(
      builder, kernel.function.getLoc(), widest, [&](int64_t width) {
        return emitColumns(kernel, builder, *shape, width, partials);
      });
  if (failed(emitted))
    return failure();
  // The scalar path owns `widest` times fewer elements per thread: the
  // launch covers it.
  return LaunchShape{ceilDiv(product(shape->kept), kColumnThreads), kThreads};
}
