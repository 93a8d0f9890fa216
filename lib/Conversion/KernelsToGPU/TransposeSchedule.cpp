//===- TransposeSchedule.cpp - transposing kernels through shared memory --===//
//
// When an input's fastest dim is not the output's, a pointwise loop reads
// or writes with a stride. Here a block computes a 32x32 tile of the
// output spanning both dims: it computes the elements with consecutive
// threads along the input's fastest dim (coalesced loads), parks them in
// shared memory, and stores them with consecutive threads along the
// output's fastest dim (coalesced stores). Rows are padded to 33 elements
// so that neither phase has bank conflicts.
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

static constexpr int64_t kTile = 32;
static constexpr int64_t kTileRows = 8;

/// The dim of the outputs' index space that some input reads fastest,
/// when it is not the outputs' fastest dim: found by computing the
/// outputs at an index of plain coordinates in a scratch block and reading
/// which coordinate the last index of each load is. None when some output
/// cannot be computed, so that nothing fails once the schedule has added
/// its shared memory.
static std::optional<int64_t> inputFastestDim(Kernel &kernel,
                                              ArrayRef<int64_t> shape,
                                              int64_t outputFastest) {
  // A detached module holds the scratch code; placeholders stand for
  // the coordinates.
  Location loc = kernel.function.getLoc();
  OwningOpRef<ModuleOp> scratch = ModuleOp::create(loc);
  OpBuilder builder = OpBuilder::atBlockEnd(scratch->getBody());
  SmallVector<Value> dims;
  for (size_t dim = 0; dim < shape.size(); ++dim)
    dims.push_back(UnrealizedConversionCastOp::create(
                       builder, loc, builder.getIndexType(), ValueRange())
                       .getResult(0));
  ElementEmitter emitter(builder, loc, kernel.values, 1);
  SmallVector<AffineExpr> index;
  for (Value dim : dims)
    index.push_back(emitter.bind(dim));
  std::optional<int64_t> found;
  bool computable = llvm::all_of(kernel.outputs, [&](auto output) {
    return succeeded(emitter.element(output.first, index));
  });
  if (computable) {
    scratch->walk([&](memref::LoadOp load) {
      if (load.getIndices().empty())
        return;
      auto position = llvm::find(dims, load.getIndices().back());
      if (position != dims.end() && position - dims.begin() != outputFastest)
        found = position - dims.begin();
    });
  }
  // The scratch code uses the gpu.func's values: erase its users first.
  Block *body = scratch->getBody();
  while (!body->empty())
    body->back().erase();
  return found;
}

FailureOr<LaunchShape>
mlir::fuser::gpu_schedule::emitTransposeSchedule(Kernel &kernel,
                                                 OpBuilder &builder) {
  if (!kernel.reductions.empty() || kernel.outputs.empty())
    return failure();
  Value firstBuffer = kernel.outputs.front().second;
  ArrayRef<int64_t> shape = bufferShape(firstBuffer);
  for (auto output : kernel.outputs)
    if (output.second.getType() != firstBuffer.getType())
      return failure();
  if (shape.size() < 2)
    return failure();
  auto [strides, offset] =
      cast<MemRefType>(firstBuffer.getType()).getStridesAndOffset();
  auto fastest = llvm::find(strides, 1);
  if (fastest == strides.end())
    return failure();
  int64_t outputDim = fastest - strides.begin();
  std::optional<int64_t> inputDim =
      inputFastestDim(kernel, shape, outputDim);
  if (!inputDim)
    return failure();

  Location loc = kernel.function.getLoc();
  MLIRContext *context = builder.getContext();
  // Tiles over the two dims, every other dim one block each.
  SmallVector<int64_t> grid(shape);
  grid[*inputDim] = ceilDiv(shape[*inputDim], kTile);
  grid[outputDim] = ceilDiv(shape[outputDim], kTile);
  int64_t blocks = 1;
  for (int64_t size : grid)
    blocks *= size;

  auto workgroup = gpu::AddressSpaceAttr::get(
      context, gpu::GPUDialect::getWorkgroupAddressSpace());
  SmallVector<Value> tiles;
  for (auto output : kernel.outputs)
    tiles.push_back(kernel.gpuFunction.addWorkgroupAttribution(
        MemRefType::get({kTile, kTile + 1},
                        cast<MemRefType>(output.second.getType())
                            .getElementType(),
                        MemRefLayoutAttrInterface(), workgroup),
        loc));

  ElementEmitter emitter(builder, loc, kernel.values, 1);
  AffineExpr thread = emitter.bind(
      gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr block = emitter.bind(
      gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x));
  AffineExpr column = thread % kTile, row = thread.floorDiv(kTile);
  SmallVector<AffineExpr> tileIndex = delinearize(block, grid);
  auto inBounds = [&](ArrayRef<AffineExpr> index) {
    Value inside;
    for (int64_t dim : {*inputDim, outputDim}) {
      if (shape[dim] % kTile == 0)
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
    index[*inputDim] = tileIndex[*inputDim] * kTile + alongInput;
    index[outputDim] = tileIndex[outputDim] * kTile + alongOutput;
    return index;
  };

  // Phase 1: consecutive threads along the input's fastest dim.
  for (int64_t step = 0; step < kTile; step += kTileRows) {
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
  for (int64_t step = 0; step < kTile; step += kTileRows) {
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
  return LaunchShape{blocks, kTile * kTileRows};
}
