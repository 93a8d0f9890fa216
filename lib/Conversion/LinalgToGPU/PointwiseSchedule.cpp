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

/// The group's loop, computing `width` lanes per iteration where its
/// fastest dim allows.
static LogicalResult emitGroup(Kernel &kernel, OpBuilder &builder,
                               const OutputGroup &group, int64_t width,
                               SmallVector<Value> &vectors) {
  Location loc = kernel.function.getLoc();
  while (group.fastest() % width != 0)
    width /= 2;
  ElementEmitter emitter(builder, loc, kernel.values, width);
  int64_t iterations = group.elements() / width;
  Value thread = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  Value block = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x);
  int64_t threads = kernel.schedule.getThreads();
  Value first = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, block,
                            arith::ConstantIndexOp::create(builder, loc,
                                                           threads)),
      thread);
  auto loop = scf::ForOp::create(
      builder, loc, first,
      arith::ConstantIndexOp::create(builder, loc, iterations),
      arith::ConstantIndexOp::create(builder, loc,
                                     kernel.schedule.getBlocks() * threads));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(loop.getBody()->getTerminator());
  AffineExpr linear = emitter.bind(loop.getInductionVar());
  SmallVector<int64_t> walked;
  for (int64_t dim : group.order)
    walked.push_back(group.shape[dim]);
  if (!walked.empty())
    walked.back() /= width;
  SmallVector<AffineExpr> position =
      delinearize(linear, computeSuffixProduct(walked));
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

LogicalResult
mlir::fuser::gpu_schedule::emitPointwiseSchedule(Kernel &kernel,
                                                 OpBuilder &builder) {
  SmallVector<OutputGroup> groups = groupOutputs(kernel);
  return emitVectorOrScalar(
      builder, kernel.function.getLoc(), kernel.schedule.getVectorWidth(),
      kernel.target.vectorBytes,
      [&](int64_t width) -> FailureOr<SmallVector<Value>> {
        SmallVector<Value> vectors;
        for (const OutputGroup &group : groups)
          if (failed(emitGroup(kernel, builder, group, width, vectors)))
            return failure();
        return vectors;
      });
}
