//===- PointwiseSchedule.cpp - a grid-stride loop over the outputs --------===//
//
// Outputs of one shape are computed together: a grid-stride loop over
// their lane groups in the memory order of the first one's buffer (its
// fastest dim last, so consecutive threads store consecutive addresses),
// each thread computing `width` consecutive elements of the fastest dim,
// in the schedule's number of groups per loop step.
// Reductions left in such kernels are folded by each element's thread.
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

/// The group's loop, computing `width` lanes per lane group where its
/// fastest dim allows, and the schedule's groups per step: group k of a
/// step lies k grid widths after the first. Every group's values are
/// computed before any is stored, so that their loads are in flight
/// together; a group past the end reads the last group again and stores
/// nothing.
static LogicalResult emitGroup(Kernel &kernel, OpBuilder &builder,
                               const OutputGroup &group, int64_t width,
                               SmallVector<Value> &vectors) {
  Location loc = kernel.function.getLoc();
  while (group.fastest() % width != 0)
    width /= 2;
  ElementEmitter emitter(builder, loc, kernel.values, width);
  int64_t iterations = group.elements() / width;
  int64_t gridThreads = kernel.schedule.getBlocks() * kernel.schedule.getThreads();
  int64_t steps = kernel.schedule.getGroupsPerStep();
  auto constant = [&](int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  Value thread = gpu::ThreadIdOp::create(builder, loc, gpu::Dimension::x);
  Value block = gpu::BlockIdOp::create(builder, loc, gpu::Dimension::x);
  Value first = arith::AddIOp::create(
      builder, loc,
      arith::MulIOp::create(builder, loc, block,
                            constant(kernel.schedule.getThreads())),
      thread);
  auto loop = scf::ForOp::create(builder, loc, first, constant(iterations),
                                 constant(gridThreads * steps));
  OpBuilder::InsertionGuard guard(builder);
  builder.setInsertionPoint(loop.getBody()->getTerminator());
  SmallVector<int64_t> walked;
  for (int64_t dim : group.order)
    walked.push_back(group.shape[dim]);
  if (!walked.empty())
    walked.back() /= width;

  struct Step {
    SmallVector<AffineExpr> index;
    /// Whether the group is inside the outputs (null: always).
    Value valid;
    SmallVector<SmallVector<Value>> lanes;
  };
  SmallVector<Step> groups(steps);
  for (auto [k, step] : llvm::enumerate(groups)) {
    Value position = loop.getInductionVar();
    if (k > 0) {
      position = arith::AddIOp::create(builder, loc, position,
                                       constant(k * gridThreads));
      Value last = constant(iterations - 1);
      step.valid = arith::CmpIOp::create(
          builder, loc, arith::CmpIPredicate::ule, position, last);
      position = arith::MinUIOp::create(builder, loc, position, last);
    }
    SmallVector<AffineExpr> walkedIndex =
        delinearize(emitter.bind(position), computeSuffixProduct(walked));
    step.index.resize(group.shape.size());
    for (auto [place, dim] : llvm::enumerate(group.order))
      step.index[dim] = walkedIndex[place];
    if (!step.index.empty())
      step.index[group.order.back()] =
          step.index[group.order.back()] * width + emitter.lane();
    for (auto [tensor, buffer] : group.outputs) {
      FailureOr<SmallVector<Value>> lanes = emitter.lanes(tensor, step.index);
      if (failed(lanes))
        return failure();
      step.lanes.push_back(*lanes);
    }
  }
  for (const Step &step : groups) {
    for (auto [output, lanes] : llvm::zip(group.outputs, step.lanes)) {
      OpBuilder::InsertionGuard storeGuard(builder);
      if (step.valid) {
        auto inside = scf::IfOp::create(builder, loc, TypeRange{}, step.valid,
                                        /*withElseRegion=*/false);
        builder.setInsertionPoint(inside.thenBlock()->getTerminator());
      }
      if (failed(emitter.storeLanes(output.second, step.index, lanes)))
        return failure();
    }
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
