//===- RowSchedule.cpp - one block (or warp) per row ----------------------===//
//
// For kernels whose reductions all run over the same trailing dims (the
// row): sums and maxima, softmax, layer and RMS norms, var_mean. A block
// computes one row, or a warp one row when rows are short. Each thread
// owns `groups` lane groups of the row, spread so that consecutive
// threads touch consecutive addresses; every value of the row it needs is
// computed once into registers, so the inputs are read once however many
// reductions use them. A reduction folds the thread's elements, then
// combines the threads: `gpu.all_reduce` for a block (warp shuffles, then
// shared memory), `gpu.subgroup_reduce` for a warp. Row-shaped outputs are
// stored lane group by lane group, per-row outputs by the row's first
// thread.
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

static constexpr int64_t kWarp = 32;
/// Rows of at most this many lane groups per thread of a warp go to one
/// warp.
static constexpr int64_t kGroupsPerWarpThread = 4;
static constexpr int64_t kWarpsPerBlock = 4;
/// Register budget: elements one thread keeps per computed row value.
static constexpr int64_t kMaxElementsPerThread = 64;

namespace {
/// The iteration space all reductions share: outer dims, then the row.
struct RowShape {
  SmallVector<int64_t> outer, row;
  int64_t rows() const { return product(outer); }
  int64_t columns() const { return product(row); }
  static int64_t product(ArrayRef<int64_t> sizes) {
    int64_t count = 1;
    for (int64_t size : sizes)
      count *= size;
    return count;
  }
};

/// How threads cover rows.
struct RowMapping {
  bool warpPerRow;
  int64_t threadsPerRow;
  int64_t rowsPerBlock() const { return warpPerRow ? kWarpsPerBlock : 1; }
};
} // namespace

/// The row shape when every reduction reduces the same trailing dims of
/// the same iteration space and writes the outer dims in order.
static FailureOr<RowShape> matchRows(Kernel &kernel) {
  std::optional<RowShape> shape;
  for (linalg::GenericOp reduction : kernel.reductions) {
    SmallVector<int64_t> ranges = reduction.getStaticLoopRanges();
    SmallVector<unsigned> reduced;
    reduction.getReductionDims(reduced);
    int64_t outer = ranges.size() - reduced.size();
    for (auto [position, dim] : llvm::enumerate(reduced))
      if (dim != outer + position)
        return failure();
    if (failed(matchCombiner(reduction)) || reduction.getNumDpsInits() != 1)
      return failure();
    int64_t next = 0;
    for (AffineExpr expr :
         reduction.getIndexingMapsArray().back().getResults()) {
      auto dim = dyn_cast<AffineDimExpr>(expr);
      auto constant = dyn_cast<AffineConstantExpr>(expr);
      if (dim ? dim.getPosition() != next++
              : !constant || constant.getValue() != 0)
        return failure();
    }
    if (next != outer)
      return failure();
    RowShape candidate{SmallVector<int64_t>(ranges.begin(),
                                            ranges.begin() + outer),
                       SmallVector<int64_t>(ranges.begin() + outer,
                                            ranges.end())};
    if (shape && (shape->outer != candidate.outer ||
                  shape->row != candidate.row))
      return failure();
    shape = candidate;
  }
  if (!shape)
    return failure();
  return *shape;
}

static RowMapping mapRows(int64_t groups) {
  if (groups <= kWarp * kGroupsPerWarpThread)
    return {true, kWarp};
  int64_t threads = ceilDiv(ceilDiv(groups, kGroupsPerWarpThread), kWarp) * kWarp;
  return {false, std::min<int64_t>(threads, 1024)};
}

namespace {
/// One row's computation at one lane width.
class RowEmitter {
public:
  RowEmitter(Kernel &kernel, OpBuilder &builder, const RowShape &shape,
             const RowMapping &mapping, int64_t width)
      : kernel(kernel), builder(builder), loc(kernel.function.getLoc()),
        shape(shape), mapping(mapping), width(width),
        emitter(builder, loc, kernel.values, width) {}

  FailureOr<SmallVector<Value>> emit();

private:
  /// The lane groups this thread owns: their row index and whether the
  /// group is inside the row (null: always).
  struct Group {
    SmallVector<AffineExpr> index;
    Value valid;
  };
  LogicalResult reduce(linalg::GenericOp reduction);
  FailureOr<Value> rowValue(linalg::GenericOp reduction,
                            ArrayRef<AffineExpr> index);
  LogicalResult store(Value tensor, Value buffer);
  /// `then` under `condition` (none: unconditionally).
  void guarded(Value condition, function_ref<void()> then);

  Kernel &kernel;
  OpBuilder &builder;
  Location loc;
  const RowShape &shape;
  const RowMapping &mapping;
  int64_t width;
  ElementEmitter emitter;
  SmallVector<AffineExpr> outerIndex;
  AffineExpr threadInRow;
  SmallVector<Group> groups;
  DenseMap<Operation *, Value> reduced;
};
} // namespace

void RowEmitter::guarded(Value condition, function_ref<void()> then) {
  if (!condition)
    return then();
  auto branch = scf::IfOp::create(builder, loc, TypeRange{}, condition,
                                  /*withElseRegion=*/false);
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(branch.thenBlock()->getTerminator());
  then();
}

FailureOr<SmallVector<Value>> RowEmitter::emit() {
  AffineExpr thread = emitter.bind(
      gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr block = emitter.bind(
      gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr row = block;
  threadInRow = thread;
  if (mapping.warpPerRow) {
    row = block * kWarpsPerBlock + thread.floorDiv(kWarp);
    threadInRow = thread % kWarp;
  }
  outerIndex = delinearize(row, shape.outer);

  // A warp past the last row has nothing to do.
  std::optional<OpBuilder::InsertionGuard> insideRows;
  if (shape.rows() % mapping.rowsPerBlock() != 0) {
    Value inside = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, emitter.materialize(row),
        arith::ConstantIndexOp::create(builder, loc, shape.rows()));
    auto branch = scf::IfOp::create(builder, loc, TypeRange{}, inside, false);
    insideRows.emplace(builder);
    builder.setInsertionPoint(branch.thenBlock()->getTerminator());
  }

  int64_t laneGroups = shape.columns() / width;
  int64_t owned = ceilDiv(laneGroups, mapping.threadsPerRow);
  for (int64_t step = 0; step < owned; ++step) {
    AffineExpr group = threadInRow + step * mapping.threadsPerRow;
    Value valid;
    if ((step + 1) * mapping.threadsPerRow > laneGroups) {
      // Past the row's end the thread reads the last group again (always
      // in bounds) and leaves it out.
      Value position = emitter.materialize(group);
      Value last = arith::ConstantIndexOp::create(builder, loc, laneGroups - 1);
      valid = arith::CmpIOp::create(builder, loc, arith::CmpIPredicate::ule,
                                    position, last);
      group = emitter.bind(arith::MinUIOp::create(builder, loc, position, last));
    }
    SmallVector<AffineExpr> index(outerIndex);
    llvm::append_range(index,
                       delinearize(group * width + emitter.lane(), shape.row));
    groups.push_back({index, valid});
  }

  emitter.setReductionProvider(
      [this](linalg::GenericOp reduction, ArrayRef<AffineExpr> index) {
        return rowValue(reduction, index);
      });
  for (linalg::GenericOp reduction : kernel.reductions)
    if (failed(reduce(reduction)))
      return failure();
  for (auto [tensor, buffer] : kernel.outputs)
    if (failed(store(tensor, buffer)))
      return failure();
  return SmallVector<Value>(emitter.vectorBuffers());
}

LogicalResult RowEmitter::reduce(linalg::GenericOp reduction) {
  Combiner combiner = *matchCombiner(reduction);
  Type type = reduction.getBody()->getArguments().back().getType();
  Value partial = combiner.identity(builder, loc, type);
  for (const Group &group : groups) {
    for (int64_t lane = 0; lane < width; ++lane) {
      emitter.setLane(lane);
      FailureOr<Value> next = emitter.applyBody(reduction, group.index, partial);
      if (failed(next))
        return failure();
      partial = group.valid ? arith::SelectOp::create(builder, loc, group.valid,
                                                      *next, partial)
                                  .getResult()
                            : *next;
    }
  }
  emitter.setLane(0);
  Value total =
      mapping.warpPerRow
          ? gpu::SubgroupReduceOp::create(builder, loc, partial, combiner.kind,
                                          /*uniform=*/true)
                .getResult()
          : gpu::AllReduceOp::create(
                builder, loc, partial,
                gpu::AllReduceOperationAttr::get(builder.getContext(),
                                                 combiner.kind),
                /*uniform=*/true)
                .getResult();
  // The result starts from the reduction's own initial value.
  SmallVector<AffineExpr> written(outerIndex);
  written.resize(reduction.getIndexingMapsArray().back().getNumResults(),
                 builder.getAffineConstantExpr(0));
  FailureOr<Value> initial =
      emitter.element(reduction.getDpsInits().front(), written);
  if (failed(initial))
    return failure();
  reduced[reduction] = combiner.combine(builder, *initial, total);
  return success();
}

FailureOr<Value> RowEmitter::rowValue(linalg::GenericOp reduction,
                                      ArrayRef<AffineExpr> index) {
  Value value = reduced.lookup(reduction);
  if (!value)
    return failure();
  // Only this thread's row is at hand.
  for (auto [position, expr] : llvm::enumerate(index)) {
    AffineExpr expected = position < outerIndex.size()
                              ? outerIndex[position]
                              : builder.getAffineConstantExpr(0);
    if (emitter.atLane(expr) != emitter.atLane(expected))
      return failure();
  }
  return value;
}

LogicalResult RowEmitter::store(Value tensor, Value buffer) {
  ArrayRef<int64_t> bufferDims = bufferShape(buffer);
  SmallVector<int64_t> full(shape.outer);
  llvm::append_range(full, shape.row);
  if (bufferDims == ArrayRef(full)) {
    for (const Group &group : groups) {
      FailureOr<SmallVector<Value>> lanes = emitter.lanes(tensor, group.index);
      if (failed(lanes))
        return failure();
      LogicalResult stored = success();
      guarded(group.valid, [&] {
        stored = emitter.storeLanes(buffer, group.index, *lanes);
      });
      if (failed(stored))
        return failure();
    }
    return success();
  }
  // One value per row: the outer dims, then dims of size 1.
  if (bufferDims.size() < shape.outer.size() ||
      bufferDims.take_front(shape.outer.size()) != ArrayRef(shape.outer) ||
      llvm::any_of(bufferDims.drop_front(shape.outer.size()),
                   [](int64_t size) { return size != 1; }))
    return failure();
  SmallVector<AffineExpr> index(outerIndex);
  index.resize(bufferDims.size(), builder.getAffineConstantExpr(0));
  FailureOr<Value> value = emitter.element(tensor, index);
  if (failed(value))
    return failure();
  Value first = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq,
      emitter.materialize(threadInRow),
      arith::ConstantIndexOp::create(builder, loc, 0));
  LogicalResult stored = success();
  guarded(first, [&] { stored = emitter.storeLanes(buffer, index, *value); });
  return stored;
}

FailureOr<LaunchShape>
mlir::fuser::gpu_schedule::emitRowSchedule(Kernel &kernel, OpBuilder &builder) {
  if (kernel.reductions.empty())
    return failure();
  FailureOr<RowShape> shape = matchRows(kernel);
  if (failed(shape))
    return failure();
  int64_t widest = vectorWidth(kernel, shape->columns());
  RowMapping mapping = mapRows(shape->columns() / widest);
  // Both paths keep the same launch; the scalar one owns `widest` times
  // as many groups per thread.
  if (ceilDiv(shape->columns(), mapping.threadsPerRow) > kMaxElementsPerThread)
    return failure();
  LogicalResult emitted = emitVectorOrScalar(
      builder, kernel.function.getLoc(), widest,
      [&](int64_t width) -> FailureOr<SmallVector<Value>> {
        return RowEmitter(kernel, builder, *shape, mapping, width).emit();
      });
  if (failed(emitted))
    return failure();
  return LaunchShape{ceilDiv(shape->rows(), mapping.rowsPerBlock()),
                     mapping.threadsPerRow * mapping.rowsPerBlock()};
}
