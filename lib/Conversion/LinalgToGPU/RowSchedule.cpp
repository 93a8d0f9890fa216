//===- RowSchedule.cpp - one block (or warp) per row ----------------------===//
//
// For kernels whose reductions all run over the same trailing dims (the
// row): sums and maxima, softmax, layer and RMS norms, var_mean. A block
// computes one row, or a warp one row when rows are short. Each thread
// owns `groups` lane groups of the row, spread so that consecutive
// threads touch consecutive addresses; every value of the row it needs is
// computed once into registers, so the inputs are read once however many
// reductions use them. A reduction folds the thread's elements, then
// combines the threads: `gpu.subgroup_reduce` (shuffles) within each warp,
// and for a block the warps' values through shared memory behind one
// barrier, every thread folding them in the same order. Row-shaped outputs are
// stored lane group by lane group, per-row outputs by the row's first
// thread.
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

namespace {
/// How threads cover rows, as the schedule says.
struct RowMapping {
  int64_t threadsPerRow;
  int64_t rowsPerBlock;
  /// A warp per row: its threads combine by shuffles alone.
  bool warpPerRow;
};
} // namespace

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
  /// `partial` combined over the block's threads.
  Value reduceBlock(Value partial, const Combiner &combiner);
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
  if (mapping.rowsPerBlock > 1) {
    row = block * mapping.rowsPerBlock + thread.floorDiv(mapping.threadsPerRow);
    threadInRow = thread % mapping.threadsPerRow;
  }
  outerIndex = delinearize(row, computeSuffixProduct(shape.outer));

  // A warp past the last row has nothing to do.
  std::optional<OpBuilder::InsertionGuard> insideRows;
  if (shape.rows() % mapping.rowsPerBlock != 0) {
    Value inside = arith::CmpIOp::create(
        builder, loc, arith::CmpIPredicate::ult, emitter.materialize(row),
        arith::ConstantIndexOp::create(builder, loc, shape.rows()));
    auto branch = scf::IfOp::create(builder, loc, TypeRange{}, inside, false);
    insideRows.emplace(builder);
    builder.setInsertionPoint(branch.thenBlock()->getTerminator());
  }

  int64_t laneGroups = shape.columns() / width;
  int64_t owned = llvm::divideCeil(laneGroups, mapping.threadsPerRow);
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
                       delinearize(group * width + emitter.lane(),
                                   computeSuffixProduct(shape.row)));
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
  Value partial = combinerIdentity(builder, loc, combiner, type);
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
  Value total = mapping.warpPerRow ? gpu::SubgroupReduceOp::create(
                                         builder, loc, partial, combiner.kind,
                                         /*uniform=*/true)
                                         .getResult()
                                   : reduceBlock(partial, combiner);
  // The result starts from the reduction's own initial value.
  SmallVector<AffineExpr> written(outerIndex);
  written.resize(reduction.getIndexingMapsArray().back().getNumResults(),
                 builder.getAffineConstantExpr(0));
  FailureOr<Value> initial =
      emitter.element(reduction.getDpsInits().front(), written);
  if (failed(initial))
    return failure();
  reduced[reduction] = combine(builder, combiner, *initial, total);
  return success();
}

Value RowEmitter::reduceBlock(Value partial, const Combiner &combiner) {
  // Each warp's first thread leaves the warp's value in shared memory; after
  // one barrier every thread folds them all. Each reduction has buffers of
  // its own, so none waits for the others' readers.
  int64_t warpSize = kernel.target.warpSize;
  int64_t warps = mapping.threadsPerRow / warpSize;
  Value warpTotal = gpu::SubgroupReduceOp::create(builder, loc, partial,
                                                  combiner.kind,
                                                  /*uniform=*/true);
  auto workgroup = gpu::AddressSpaceAttr::get(
      builder.getContext(), gpu::GPUDialect::getWorkgroupAddressSpace());
  Value warpTotals = kernel.gpuFunction.addWorkgroupAttribution(
      MemRefType::get({warps}, partial.getType(), MemRefLayoutAttrInterface(),
                      workgroup),
      loc);
  Value warp = emitter.materialize(threadInRow.floorDiv(warpSize));
  Value first = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::eq,
      emitter.materialize(threadInRow % warpSize),
      arith::ConstantIndexOp::create(builder, loc, 0));
  guarded(first, [&] {
    memref::StoreOp::create(builder, loc, warpTotal, warpTotals, warp);
  });
  gpu::BarrierOp::create(builder, loc);
  Value total = memref::LoadOp::create(
      builder, loc, warpTotals,
      ValueRange{arith::ConstantIndexOp::create(builder, loc, 0)});
  for (int64_t other = 1; other < warps; ++other)
    total = combine(builder, combiner, total,
                    memref::LoadOp::create(
                        builder, loc, warpTotals,
                        ValueRange{arith::ConstantIndexOp::create(builder, loc,
                                                                  other)}));
  return total;
}

FailureOr<Value> RowEmitter::rowValue(linalg::GenericOp reduction,
                                      ArrayRef<AffineExpr>) {
  // The analysis found every read of a reduction at its reader's row.
  Value value = reduced.lookup(reduction);
  if (!value)
    return failure();
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

LogicalResult mlir::fuser::gpu_schedule::emitRowSchedule(Kernel &kernel,
                                                       OpBuilder &builder) {
  FailureOr<RowShape> shape = matchRows(kernel);
  if (failed(shape))
    return failure();
  int64_t rowsPerBlock = kernel.schedule.getRowsPerBlock();
  int64_t threadsPerRow = kernel.schedule.getThreads() / rowsPerBlock;
  RowMapping mapping{threadsPerRow, rowsPerBlock,
                     threadsPerRow == kernel.target.warpSize};
  return emitVectorOrScalar(
      builder, kernel.function.getLoc(), kernel.schedule.getVectorWidth(),
      kernel.target.vectorBytes,
      [&](int64_t width) -> FailureOr<SmallVector<Value>> {
        return RowEmitter(kernel, builder, *shape, mapping, width).emit();
      });
}
