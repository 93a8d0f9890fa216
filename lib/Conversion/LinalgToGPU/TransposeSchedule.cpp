//===- TransposeSchedule.cpp - transposing kernels through shared memory --===//
//
// When an input's fastest dim is not the output's, a pointwise loop reads
// or writes with a stride. Here a block computes a warp-wide square tile
// of the output spanning the schedule's load and store dims: it computes
// the elements with consecutive threads along the load dim (coalesced
// loads), parks them in shared memory, and stores them with consecutive
// threads along the store dim (coalesced stores). Rows are padded by one
// element so that neither phase has bank conflicts.
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

LogicalResult
mlir::fuser::gpu_schedule::emitTransposeSchedule(Kernel &kernel,
                                                 OpBuilder &builder) {
  ArrayRef<int64_t> shape = bufferShape(kernel.outputs.front().second);
  int64_t outputDim = *kernel.schedule.getStoreDim();
  int64_t inputDim = *kernel.schedule.getLoadDim();
  // A warp-wide square tile, `threads / tile` of its rows at once.
  int64_t tile = kernel.target.warpSize;
  int64_t tileRows = kernel.schedule.getThreads() / tile;

  Location loc = kernel.function.getLoc();
  MLIRContext *context = builder.getContext();
  // Tiles over the two dims, every other dim one block each.
  SmallVector<int64_t> grid(shape);
  grid[inputDim] = llvm::divideCeil(shape[inputDim], tile);
  grid[outputDim] = llvm::divideCeil(shape[outputDim], tile);

  auto workgroup = gpu::AddressSpaceAttr::get(
      context, gpu::GPUDialect::getWorkgroupAddressSpace());
  SmallVector<Value> tiles;
  for (auto output : kernel.outputs)
    tiles.push_back(kernel.gpuFunction.addWorkgroupAttribution(
        MemRefType::get({tile, tile + 1},
                        cast<MemRefType>(output.second.getType())
                            .getElementType(),
                        MemRefLayoutAttrInterface(), workgroup),
        loc));

  ElementEmitter emitter(builder, loc, kernel.values, 1);
  AffineExpr thread = emitter.bind(
      gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr block = emitter.bind(
      gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr column = thread % tile, row = thread.floorDiv(tile);
  SmallVector<AffineExpr> tileIndex =
      delinearize(block, computeSuffixProduct(grid));
  auto inBounds = [&](ArrayRef<AffineExpr> index) {
    Value inside;
    for (int64_t dim : {inputDim, outputDim}) {
      if (shape[dim] % tile == 0)
        continue;
      Value check = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ult,
          emitter.materialize(index[dim]),
          arith::ConstantIndexOp::create(builder, loc, shape[dim]));
      inside = inside ? arith::AndIOp::create(builder, loc, inside, check)
                            .getResult()
                      : check;
    }
    return inside;
  };
  auto under = [&](Value condition, function_ref<LogicalResult()> body) {
    if (!condition)
      return body();
    auto branch = scf::IfOp::create(builder, loc, TypeRange{}, condition,
                                    /*withElseRegion=*/false);
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPoint(branch.thenBlock()->getTerminator());
    return body();
  };
  // The element at tile position (along the input's fastest dim, along
  // the output's).
  auto elementAt = [&](AffineExpr alongInput, AffineExpr alongOutput) {
    SmallVector<AffineExpr> index(tileIndex);
    index[inputDim] = tileIndex[inputDim] * tile + alongInput;
    index[outputDim] = tileIndex[outputDim] * tile + alongOutput;
    return index;
  };

  // Phase 1: consecutive threads along the input's fastest dim.
  for (int64_t step = 0; step < tile; step += tileRows) {
    SmallVector<AffineExpr> index = elementAt(column, row + step);
    LogicalResult computed = under(inBounds(index), [&]() -> LogicalResult {
      for (auto [output, tile] : llvm::zip(kernel.outputs, tiles)) {
        FailureOr<Value> value = emitter.element(output.first, index);
        if (failed(value))
          return failure();
        memref::StoreOp::create(builder, loc, *value, tile,
                                ValueRange{emitter.materialize(column),
                                           emitter.materialize(row + step)});
      }
      return success();
    });
    if (failed(computed))
      return failure();
  }
  gpu::BarrierOp::create(builder, loc);
  // Phase 2: consecutive threads along the output's fastest dim.
  for (int64_t step = 0; step < tile; step += tileRows) {
    SmallVector<AffineExpr> index = elementAt(row + step, column);
    LogicalResult stored = under(inBounds(index), [&]() -> LogicalResult {
      for (auto [output, tile] : llvm::zip(kernel.outputs, tiles)) {
        Value value = memref::LoadOp::create(
            builder, loc, tile,
            ValueRange{emitter.materialize(row + step),
                       emitter.materialize(column)});
        if (failed(emitter.storeLanes(output.second, index, value)))
          return failure();
      }
      return success();
    });
    if (failed(stored))
      return failure();
  }
  return success();
}
