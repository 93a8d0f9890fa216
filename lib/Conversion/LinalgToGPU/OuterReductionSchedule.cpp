//===- OuterReductionSchedule.cpp - reductions over the leading dims ------===//
//
// For kernels whose reductions all fold the same leading dims (column sums,
// statistics over the batch) and whose outputs are indexed by the kept
// dims: a block owns `threads / slices` consecutive lane groups of kept
// elements (the schedule's numbers), and its `slices` slices of threads
// fold every `slices`-th reduced row of them in a loop; the slices'
// partial values meet in shared memory, where the first slice folds them
// in order.
// A thread per lane group alone (1536 threads for a bias gradient of 12288
// bf16 columns) leaves most of the GPU idle while each folds thousands of
// rows. Consecutive threads own consecutive groups, so every step of the
// loop reads whole 16-byte lane groups of consecutive addresses per row. The order of the fold depends on the launch only.
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

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

/// Each reduction's shared memory: a row of partial values per slice, of
/// the slice's lane groups of `width` accumulators.
static SmallVector<Value> addPartialBuffers(Kernel &kernel, int64_t width) {
  int64_t slices = kernel.schedule.getSlices();
  int64_t columnThreads = kernel.schedule.getThreads() / slices;
  MLIRContext *context = kernel.gpuFunction.getContext();
  auto workgroup = gpu::AddressSpaceAttr::get(
      context, gpu::GPUDialect::getWorkgroupAddressSpace());
  SmallVector<Value> buffers;
  for (linalg::GenericOp reduction : kernel.reductions)
    buffers.push_back(kernel.gpuFunction.addWorkgroupAttribution(
        MemRefType::get({slices, columnThreads * width},
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
  int64_t slices = kernel.schedule.getSlices();
  int64_t columnThreads = kernel.schedule.getThreads() / slices;
  ElementEmitter emitter(builder, loc, kernel.values, width);
  AffineExpr thread = emitter.bind(
      gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr block = emitter.bind(
      gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr column = thread % columnThreads;
  AffineExpr slice = thread.floorDiv(columnThreads);
  AffineExpr group = block * columnThreads + column;
  int64_t groups = computeProduct(shape.kept) / width;
  Value inside = arith::CmpIOp::create(
      builder, loc, arith::CmpIPredicate::ult, emitter.materialize(group),
      arith::ConstantIndexOp::create(builder, loc, groups));
  SmallVector<AffineExpr> kept = delinearize(
      group * width + emitter.lane(), computeSuffixProduct(shape.kept));
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
      SmallVector<Value> identities(
          width, combinerIdentity(builder, loc, combiner, type));
      auto loop = scf::ForOp::create(
          builder, loc, emitter.materialize(slice),
          arith::ConstantIndexOp::create(builder, loc,
                                         computeProduct(shape.reduced)),
          arith::ConstantIndexOp::create(builder, loc, slices), identities);
      {
        OpBuilder::InsertionGuard inLoop(builder);
        builder.setInsertionPointToStart(loop.getBody());
        SmallVector<AffineExpr> iteration =
            delinearize(emitter.bind(loop.getInductionVar()),
                        computeSuffixProduct(shape.reduced));
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
          SmallVector<Value>(width,
                             combinerIdentity(builder, loc, combiner, type)));
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
  // The analysis found every read of a reduction here at its reader's
  // kept element.
  emitter.setReductionProvider(
      [&](linalg::GenericOp reduction,
          ArrayRef<AffineExpr>) -> FailureOr<Value> {
        auto values = folded.find(reduction);
        if (values == folded.end())
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
      for (int64_t row = 1; row < slices; ++row)
        value = combine(
            builder, combiner, value,
            memref::LoadOp::create(
                builder, loc, partial,
                partialIndex(getAffineConstantExpr(row, context))));
      FailureOr<Value> initial = emitter.element(
          reduction.getDpsInits().front(), keptIndex(kept, rank, context));
      if (failed(initial))
        return failure();
      results.push_back(combine(builder, combiner, *initial, value));
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

LogicalResult
mlir::fuser::gpu_schedule::emitOuterReductionSchedule(Kernel &kernel,
                                                      OpBuilder &builder) {
  FailureOr<ColumnShape> shape = matchColumns(kernel);
  if (failed(shape))
    return failure();
  int64_t widest = kernel.schedule.getVectorWidth();
  SmallVector<Value> partials = addPartialBuffers(kernel, widest);
  return emitVectorOrScalar(
      builder, kernel.function.getLoc(), widest, kernel.target.vectorBytes,
      [&](int64_t width) {
        return emitColumns(kernel, builder, *shape, width, partials);
      });
}
