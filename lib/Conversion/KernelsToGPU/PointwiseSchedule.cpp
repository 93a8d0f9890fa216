//===- PointwiseSchedule.cpp - a grid-stride loop over the outputs --------===//
//
// Outputs of one shape are computed together: a grid-stride loop over
// their lane groups in the memory order of the first one's buffer (its
// fastest dim last, so consecutive threads store consecutive addresses),
// each thread computing `width` consecutive elements of the fastest dim.
// Reductions left in such kernels are folded by each element's thread.
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

static constexpr int64_t kThreads = 256;
/// Enough blocks to fill an H100/H200 several times over; the loop covers
/// the rest.
static constexpr int64_t kMaxBlocks = 132 * 16;

namespace {
/// Outputs sharing one shape, and the order their loop walks the dims.
struct OutputGroup {
  SmallVector<std::pair<Value, Value>> outputs;
  ArrayRef<int64_t> shape;
  /// Dims from slowest to fastest in the first output's buffer.
  SmallVector<int64_t> order;
  int64_t elements() const {
    int64_t count = 1;
    for (int64_t size : shape)
      count *= size;
    return count;
  }
  int64_t fastest() const { return order.empty() ? 1 : shape[order.back()]; }
};
} // namespace

static SmallVector<OutputGroup> groupOutputs(Kernel &kernel) {
  SmallVector<OutputGroup> groups;
  for (auto output : kernel.outputs) {
    ArrayRef<int64_t> shape = bufferShape(output.second);
    auto *group = llvm::find_if(
        groups, [&](const OutputGroup &g) { return g.shape == shape; });
    if (group != groups.end()) {
      group->outputs.push_back(output);
      continue;
    }
    OutputGroup created{{output}, shape, {}};
    auto type = cast<MemRefType>(output.second.getType());
    auto [strides, offset] = type.getStridesAndOffset();
    created.order = llvm::to_vector(llvm::seq<int64_t>(0, shape.size()));
    llvm::stable_sort(created.order, [&](int64_t a, int64_t b) {
      return strides[a] > strides[b];
    });
    groups.push_back(created);
  }
  return groups;
}

/// The group's loop, computing `width` lanes per iteration where its
/// fastest dim allows.
static LogicalResult emitGroup(Kernel &kernel, OpBuilder &builder,
                               const OutputGroup &group, int64_t width,
                               int64_t blocks, SmallVector<Value> &vectors) {
  Location loc = kernel.function.getLoc();
  while (group.fastest() % width != 0)
    width /= 2;
  ElementEmitter emitter(builder, loc, kernel.values, width);
  int64_t iterations = group.elements() / width;
  Value thread = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  Value block = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x);
  Value first = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, block,
                            arith::ConstantIndexOp::create(builder, loc,
                                                           kThreads)),
      thread);
  auto loop = scf::ForOp::create(
      builder, loc, first,
      arith::ConstantIndexOp::create(builder, loc, iterations),
      arith::ConstantIndexOp::create(builder, loc, blocks * kThreads));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(loop.getBody()->getTerminator());
  AffineExpr linear = emitter.bind(loop.getInductionVar());
  SmallVector<int64_t> walked;
  for (int64_t dim : group.order)
    walked.push_back(group.shape[dim]);
  if (!walked.empty())
    walked.back() /= width;
  SmallVector<AffineExpr> position = delinearize(linear, walked);
  SmallVector<AffineExpr> index(group.shape.size());
  for (auto [step, dim] : llvm::enumerate(group.order))
    index[dim] = position[step];
  if (!index.empty())
    index[group.order.back()] =
        index[group.order.back()] * width + emitter.lane();
  for (auto [tensor, buffer] : group.outputs) {
    FailureOr<SmallVector<Value>> lanes = emitter.lanes(tensor, index);
    if (failed(lanes) || failed(emitter.storeLanes(buffer, index, *lanes)))
      return failure();
  }
  llvm::append_range(vectors, emitter.vectorBuffers());
  return success();
}

FailureOr<LaunchShape>
mlir::fuser::gpu_schedule::emitPointwiseSchedule(Kernel &kernel,
                                                 OpBuilder &builder) {
  SmallVector<OutputGroup> groups = groupOutputs(kernel);
  int64_t widest = 1, iterations = 1;
  for (const OutputGroup &group : groups) {
    int64_t width = vectorWidth(kernel, group.fastest());
    widest = std::max(widest, width);
    iterations = std::max(iterations, group.elements() / width);
  }
  LaunchShape launch{std::min(ceilDiv(iterations, kThreads), kMaxBlocks),
                     kThreads};
  LogicalResult emitted = emitVectorOrScalar(
      builder, kernel.function.getLoc(), widest,
      [&](int64_t width) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> vectors;
        for (const OutputGroup &group : groups)
          if (failed(emitGroup(kernel, builder, group, width, launch.blocks,
                               vectors)))
            return failure();
        return vectors;
      });
  if (failed(emitted))
    return failure();
  return launch;
}
