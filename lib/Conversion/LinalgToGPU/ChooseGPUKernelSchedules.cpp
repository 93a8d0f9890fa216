//===- ChooseGPUKernelSchedules.cpp - a schedule per kernel, as an attribute ===//
//
// The schedule of each kernel follows from the kernel analysis and the
// target's description: the most specific schedule whose conditions the
// kernel meets (rows, outer reduction, transpose), else the pointwise one
// that takes any kernel. What a schedule needs to be correct is checked
// by verifyGPUSchedule, for chosen and hand-written schedules alike.
//
//===----------------------------------------------------------------------===//

#include "Schedules.h"

#include "fuser/Conversion/LinalgToGPU/GPUKernelSchedules.h"
#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/KernelModule.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CHOOSEGPUKERNELSCHEDULES
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;
using namespace mlir::fuser::gpu_schedule;
using llvm::divideCeil;

/// Rows of at most this many lane groups per thread of a warp go to one
/// warp; longer rows get a block with as many threads as hold this many
/// groups each. Two measured faster than four (fewer registers, more
/// threads to a row) and one far slower at rows of 8192, on an H100
/// (bench/results/2026-12-06-pointwise-grids-on-h100.md).
static constexpr int64_t kGroupsPerRowThread = 2;
/// Rows a block holds when a warp computes each.
static constexpr int64_t kWarpRowsPerBlock = 4;
/// Register budget: elements one thread keeps per computed row value.
static constexpr int64_t kMaxRowElementsPerThread = 64;
/// Outer reductions: threads over consecutive lane groups, and slices of
/// them folding every kSlices-th reduced row.
static constexpr int64_t kColumnThreads = 8;
static constexpr int64_t kSlices = 32;
/// Transposes: rows of a warp-wide square tile a block's threads cover at
/// once.
static constexpr int64_t kTileRowsAtOnce = 8;
/// Pointwise: threads per block.
static constexpr int64_t kPointwiseThreads = 256;

/// Every NVIDIA chip from Volta on has the description GPUTarget holds.
static constexpr llvm::StringLiteral kKnownChips[] = {
    "sm_70",  "sm_75",  "sm_80",   "sm_86",  "sm_89",  "sm_90",
    "sm_90a", "sm_100", "sm_100a", "sm_120", "sm_120a"};

FailureOr<GPUTarget> GPUTarget::forChip(StringRef chip) {
  if (!llvm::is_contained(kKnownChips, chip))
    return failure();
  return GPUTarget();
}

std::string GPUTarget::knownChips() {
  return llvm::join(ArrayRef<llvm::StringLiteral>(kKnownChips), ", ");
}

FailureOr<GPUTarget> GPUTarget::fromOptions(Operation *op, StringRef chip) {
  FailureOr<GPUTarget> target = forChip(chip);
  if (failed(target))
    return op->emitError("no GPU description of chip '")
           << chip << "' (known: " << knownChips() << ")";
  return target;
}

namespace {
/// How threads cover rows.
struct RowMapping {
  int64_t threadsPerRow;
  int64_t rowsPerBlock;
};
} // namespace

static RowMapping mapRows(int64_t laneGroups, const GPUTarget &target) {
  if (laneGroups <= target.warpSize * kGroupsPerRowThread)
    return {target.warpSize, kWarpRowsPerBlock};
  int64_t threads =
      divideCeil(divideCeil(laneGroups, kGroupsPerRowThread), target.warpSize) *
      target.warpSize;
  return {std::min(threads, target.maxThreadsPerBlock), 1};
}

/// Shared memory an outer reduction's slices stage their partial values
/// in.
static int64_t partialValueBytes(const KernelStructure &kernel,
                                 int64_t threads, int64_t width) {
  int64_t bytes = 0;
  for (linalg::GenericOp reduction : kernel.reductions)
    bytes += threads * width *
             divideCeil(reduction.getBody()
                            ->getArguments()
                            .back()
                            .getType()
                            .getIntOrFloatBitWidth(),
                        8);
  return bytes;
}

/// Blocks of square tiles over the two dims, every other dim one block
/// each.
static int64_t transposeBlocks(ArrayRef<int64_t> shape, TransposeDims dims,
                               int64_t tile) {
  SmallVector<int64_t> grid(shape);
  grid[dims.load] = divideCeil(shape[dims.load], tile);
  grid[dims.store] = divideCeil(shape[dims.store], tile);
  return computeProduct(grid);
}

FailureOr<GPUScheduleAttr>
mlir::fuser::chooseGPUSchedule(func::FuncOp function, const GPUTarget &target) {
  FailureOr<KernelStructure> kernel = analyzeKernel(function);
  if (failed(kernel))
    return failure();
  MLIRContext *context = function.getContext();
  if (FailureOr<RowShape> rows = matchRows(*kernel); succeeded(rows)) {
    int64_t width =
        vectorWidth(function, rows->columns(), target.vectorBytes);
    RowMapping mapping = mapRows(rows->columns() / width, target);
    // Both paths keep the same launch; the scalar one owns `width` times
    // as many groups per thread.
    if (divideCeil(rows->columns(), mapping.threadsPerRow) <=
        kMaxRowElementsPerThread)
      return GPUScheduleAttr::get(
          context, GPUScheduleKind::Rows,
          divideCeil(rows->rows(), mapping.rowsPerBlock),
          mapping.threadsPerRow * mapping.rowsPerBlock, width,
          mapping.rowsPerBlock, /*slices=*/1, std::nullopt, std::nullopt,
          /*groupsPerStep=*/1);
  }
  if (FailureOr<ColumnShape> columns = matchColumns(*kernel);
      succeeded(columns)) {
    int64_t width =
        vectorWidth(function, columns->kept.back(), target.vectorBytes);
    int64_t threads = kColumnThreads * kSlices;
    // The scalar path owns `width` times fewer elements per thread: the
    // launch covers it.
    if (partialValueBytes(*kernel, threads, width) <=
        target.sharedMemoryPerBlock)
      return GPUScheduleAttr::get(
          context, GPUScheduleKind::OuterReduction,
          divideCeil(computeProduct(columns->kept), kColumnThreads), threads,
          width, /*rowsPerBlock=*/1, kSlices, std::nullopt, std::nullopt,
          /*groupsPerStep=*/1);
  }
  if (FailureOr<TransposeDims> dims = matchTranspose(*kernel);
      succeeded(dims))
    return GPUScheduleAttr::get(
        context, GPUScheduleKind::Transpose,
        transposeBlocks(bufferShape(kernel->outputs.front().second), *dims,
                        target.warpSize),
        target.warpSize * kTileRowsAtOnce, /*vectorWidth=*/1,
        /*rowsPerBlock=*/1, /*slices=*/1, dims->load, dims->store,
        /*groupsPerStep=*/1);
  int64_t widest = 1, iterations = 1;
  for (const OutputGroup &group : groupOutputs(*kernel)) {
    int64_t width = vectorWidth(function, group.fastest(), target.vectorBytes);
    widest = std::max(widest, width);
    iterations = std::max(iterations, group.elements() / width);
  }
  // A thread per lane group, blocks enough for all (the grid-stride loop
  // runs once) up to the grid's limit: on an H100 this was 5-10% faster
  // than grids of 8 or 16 blocks per multiprocessor looping over the
  // elements, with one or more groups per step, with or without registers
  // capped for full occupancy
  // (bench/results/2026-12-06-pointwise-grids-on-h100.md).
  return GPUScheduleAttr::get(
      context, GPUScheduleKind::Pointwise,
      std::min<int64_t>(divideCeil(iterations, kPointwiseThreads),
                        target.maxBlocksPerGrid),
      kPointwiseThreads, widest,
      /*rowsPerBlock=*/1, /*slices=*/1, std::nullopt, std::nullopt,
      /*groupsPerStep=*/1);
}

LogicalResult mlir::fuser::verifyGPUSchedule(func::FuncOp function,
                                             GPUScheduleAttr schedule,
                                             const GPUTarget &target) {
  FailureOr<KernelStructure> kernel = analyzeKernel(function);
  if (failed(kernel))
    return failure();
  return verifyScheduleFits(function, *kernel, schedule, target);
}

LogicalResult mlir::fuser::gpu_schedule::verifyScheduleFits(
    func::FuncOp function, const KernelStructure &kernel,
    GPUScheduleAttr schedule, const GPUTarget &target) {
  auto misfit = [&]() {
    return function.emitError("schedule ")
           << schedule << " does not fit kernel @" << function.getName()
           << ": ";
  };
  int64_t threads = schedule.getThreads();
  int64_t width = schedule.getVectorWidth();
  if (threads > target.maxThreadsPerBlock)
    return misfit() << "blocks of this target hold at most "
                    << target.maxThreadsPerBlock << " threads";
  if (schedule.getBlocks() > target.maxBlocksPerGrid)
    return misfit() << "grids of this target hold at most "
                    << target.maxBlocksPerGrid << " blocks";
  // The lanes the kernel's element types allow along any extent.
  int64_t widest = vectorWidth(function, width, target.vectorBytes);
  if (widest != width)
    return misfit() << "its buffers allow at most " << widest
                    << " lanes of " << target.vectorBytes << " bytes";
  switch (schedule.getKind()) {
  case GPUScheduleKind::Rows: {
    FailureOr<RowShape> rows = matchRows(kernel);
    if (failed(rows))
      return misfit() << "its reductions do not all fold one row read only "
                         "at the row its readers compute";
    int64_t rowsPerBlock = schedule.getRowsPerBlock();
    int64_t threadsPerRow = threads / rowsPerBlock;
    if (rows->columns() % width != 0)
      return misfit() << "rows of " << rows->columns()
                      << " elements are not whole groups of " << width
                      << " lanes";
    if (threadsPerRow % target.warpSize != 0)
      return misfit() << "a row's " << threadsPerRow
                      << " threads are not whole warps";
    if (rowsPerBlock > 1 && threadsPerRow != target.warpSize)
      return misfit() << "a block holds several rows only with a warp per row";
    int64_t blocks = divideCeil(rows->rows(), rowsPerBlock);
    if (schedule.getBlocks() != blocks)
      return misfit() << rows->rows() << " rows need " << blocks << " blocks";
    if (divideCeil(rows->columns(), threadsPerRow) > kMaxRowElementsPerThread)
      return misfit() << "each thread would keep more than "
                      << kMaxRowElementsPerThread
                      << " elements of a row in registers";
    return success();
  }
  case GPUScheduleKind::OuterReduction: {
    FailureOr<ColumnShape> columns = matchColumns(kernel);
    if (failed(columns))
      return misfit() << "its reductions do not all fold the leading dims "
                         "of outputs indexed by the kept ones";
    if (columns->kept.back() % width != 0)
      return misfit() << "kept rows of " << columns->kept.back()
                      << " elements are not whole groups of " << width
                      << " lanes";
    int64_t columnThreads = threads / schedule.getSlices();
    int64_t kept = computeProduct(columns->kept);
    int64_t blocks = divideCeil(kept, columnThreads);
    if (schedule.getBlocks() != blocks)
      return misfit() << kept << " kept elements need " << blocks << " blocks";
    if (partialValueBytes(kernel, threads, width) > target.sharedMemoryPerBlock)
      return misfit() << "the slices' partial values exceed "
                      << target.sharedMemoryPerBlock
                      << " bytes of shared memory";
    return success();
  }
  case GPUScheduleKind::Transpose: {
    if (!kernel.reductions.empty() || kernel.outputs.empty() ||
        llvm::any_of(kernel.outputs, [&](auto output) {
          return output.second.getType() !=
                 kernel.outputs.front().second.getType();
        }))
      return misfit() << "a transpose computes outputs of one layout and no "
                         "reduction";
    ArrayRef<int64_t> shape = bufferShape(kernel.outputs.front().second);
    TransposeDims dims{*schedule.getLoadDim(), *schedule.getStoreDim()};
    if (dims.load >= static_cast<int64_t>(shape.size()) ||
        dims.store >= static_cast<int64_t>(shape.size()))
      return misfit() << "its outputs have " << shape.size() << " dims";
    if (width != 1)
      return misfit() << "a transpose moves one element per thread at a time";
    if (threads % target.warpSize != 0 ||
        target.warpSize % (threads / target.warpSize) != 0)
      return misfit() << "a tile of " << target.warpSize
                      << " rows is not whole steps of "
                      << threads / target.warpSize << " rows";
    int64_t blocks = transposeBlocks(shape, dims, target.warpSize);
    if (schedule.getBlocks() != blocks)
      return misfit() << "its tiles need " << blocks << " blocks";
    return success();
  }
  case GPUScheduleKind::Pointwise:
    // The grid-stride loop covers the outputs with any launch.
    return success();
  }
  llvm_unreachable("every schedule kind is handled");
}

namespace {
struct ChooseGPUKernelSchedulesPass
    : public mlir::fuser::impl::ChooseGPUKernelSchedulesBase<
          ChooseGPUKernelSchedulesPass> {
  using Base::Base;
  void runOnOperation() override;
};
} // namespace

void ChooseGPUKernelSchedulesPass::runOnOperation() {
  ModuleOp kernels = lookupKernelModule(getOperation());
  if (!kernels)
    return;
  FailureOr<GPUTarget> target = GPUTarget::fromOptions(getOperation(), chip);
  if (failed(target))
    return signalPassFailure();
  bool failedAny = false;
  for (auto function : kernels.getOps<func::FuncOp>()) {
    FailureOr<GPUScheduleAttr> schedule = chooseGPUSchedule(function, *target);
    if (failed(schedule)) {
      failedAny = true;
      continue;
    }
    function->setAttr(FuserDialect::getGPUScheduleAttrName(), *schedule);
  }
  if (failedAny)
    signalPassFailure();
}
