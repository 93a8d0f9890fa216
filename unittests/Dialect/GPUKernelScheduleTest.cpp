//===- GPUKernelScheduleTest.cpp - choosing GPU kernel schedules ----------===//
//
// The choice over families of shapes: which schedule each kernel gets, its
// launch, and that verifyGPUSchedule accepts every chosen schedule and
// rejects what does not fit.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/LinalgToGPU/GPUKernelSchedules.h"
#include "fuser/Conversion/Passes.h"
#include "fuser/InitAllDialects.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/Support/FormatVariadic.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fuser;

namespace {

class GPUKernelScheduleTest : public ::testing::Test {
protected:
  GPUKernelScheduleTest() {
    DialectRegistry registry;
    ::fuser::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  /// Kernel function @k of the kernel module whose body is `body` (fuser
  /// ops on %x, the first argument as a tensor), lowered to linalg.
  func::FuncOp parseKernel(StringRef arguments, StringRef body) {
    std::string source = llvm::formatv(R"mlir(
      module @program {{
        module @kernels {{
          func.func @k({0}) {{
            {1}
            return
          }
        }
      })mlir",
                                       arguments, body);
    module = parseSourceString<ModuleOp>(source, &context);
    if (!module)
      return {};
    PassManager passes(&context);
    passes.addPass(createConvertFuserToLinalg());
    if (failed(passes.run(*module)))
      return {};
    auto kernels = module->lookupSymbol<ModuleOp>("kernels");
    return kernels.lookupSymbol<func::FuncOp>("k");
  }

  /// Softmax's shape of kernel: exp(x - max(x)) over rows of `columns`.
  func::FuncOp rowKernel(int64_t rows, int64_t columns, StringRef element) {
    std::string matrix = llvm::formatv("tensor<{0}x{1}x{2}>", rows, columns,
                                       element);
    std::string buffer = llvm::formatv("memref<{0}x{1}x{2}>", rows, columns,
                                       element);
    std::string row = llvm::formatv("tensor<{0}x{1}>", rows, element);
    return parseKernel(
        llvm::formatv("%in: {0}, %out: {0}", buffer).str(),
        llvm::formatv(R"mlir(
          %x = bufferization.to_tensor %in restrict : {0} to {1}
          %m = fuser.max %x dims = [1] : {1} -> {2}
          %b = fuser.broadcast %m dims = [0] : {2} -> {1}
          %d = fuser.sub %x, %b : ({1}, {1}) -> {1}
          %e = fuser.exp %d : {1} -> {1}
          bufferization.materialize_in_destination %e in restrict writable %out : ({1}, {0}) -> ()
        )mlir",
                      buffer, matrix, row)
            .str());
  }

  /// A bias gradient's shape of kernel: a sum over the leading dim.
  func::FuncOp columnKernel(int64_t rows, int64_t columns, StringRef element) {
    std::string matrix = llvm::formatv("tensor<{0}x{1}x{2}>", rows, columns,
                                       element);
    std::string column = llvm::formatv("tensor<{0}x{1}>", columns, element);
    return parseKernel(
        llvm::formatv("%in: memref<{0}x{1}x{2}>, %out: memref<{1}x{2}>", rows,
                      columns, element)
            .str(),
        llvm::formatv(R"mlir(
          %x = bufferization.to_tensor %in restrict : memref<{0}x{1}x{2}> to {3}
          %s = fuser.sum %x dims = [0] : {3} -> {4}
          bufferization.materialize_in_destination %s in restrict writable %out : ({4}, memref<{1}x{2}>) -> ()
        )mlir",
                      rows, columns, element, matrix, column)
            .str());
  }

  /// A kernel adding two tensors of `shape` (as "AxB").
  func::FuncOp addKernel(StringRef shape, StringRef element) {
    std::string tensor = llvm::formatv("tensor<{0}x{1}>", shape, element);
    std::string buffer = llvm::formatv("memref<{0}x{1}>", shape, element);
    return parseKernel(
        llvm::formatv("%a: {0}, %b: {0}, %out: {0}", buffer).str(),
        llvm::formatv(R"mlir(
          %x = bufferization.to_tensor %a restrict : {0} to {1}
          %y = bufferization.to_tensor %b restrict : {0} to {1}
          %s = fuser.add %x, %y : ({1}, {1}) -> {1}
          bufferization.materialize_in_destination %s in restrict writable %out : ({1}, {0}) -> ()
        )mlir",
                      buffer, tensor)
            .str());
  }

  /// The schedule chosen for `kernel` on `target`, which verifyGPUSchedule
  /// must accept.
  GPUScheduleAttr choose(func::FuncOp kernel, const GPUTarget &target) {
    FailureOr<GPUScheduleAttr> schedule = chooseGPUSchedule(kernel, target);
    if (failed(schedule))
      return {};
    EXPECT_TRUE(succeeded(verifyGPUSchedule(kernel, *schedule, target)))
        << "the chosen schedule does not fit its own kernel";
    return *schedule;
  }

  /// Whether verifyGPUSchedule rejects `schedule` for `kernel`, with a
  /// diagnostic containing `reason`.
  bool rejects(func::FuncOp kernel, GPUScheduleAttr schedule,
               StringRef reason, const GPUTarget &target = GPUTarget()) {
    std::string diagnostics;
    ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diagnostic) {
      diagnostics += diagnostic.str();
      return success();
    });
    return failed(verifyGPUSchedule(kernel, schedule, target)) &&
           StringRef(diagnostics).contains(reason);
  }

  MLIRContext context;
  OwningOpRef<ModuleOp> module;
};

TEST_F(GPUKernelScheduleTest, ShortRowsGoFourToABlockAWarpEach) {
  for (int64_t columns : {32, 256, 512}) {
    func::FuncOp kernel = rowKernel(64, columns, "bf16");
    ASSERT_TRUE(kernel);
    GPUScheduleAttr schedule = choose(kernel, GPUTarget());
    ASSERT_TRUE(schedule) << columns;
    EXPECT_EQ(schedule.getKind(), GPUScheduleKind::Rows);
    EXPECT_EQ(schedule.getThreads(), 128);
    EXPECT_EQ(schedule.getRowsPerBlock(), 4);
    EXPECT_EQ(schedule.getBlocks(), 16);
    EXPECT_EQ(schedule.getVectorWidth(), 8);
  }
}

TEST_F(GPUKernelScheduleTest, LongRowsGetABlockWithTwoLaneGroupsPerThread) {
  // bf16: 8 lanes; threads = groups / 2, in whole warps, at most 1024.
  for (auto [columns, threads] : {std::pair<int64_t, int64_t>{1024, 64},
                                  {2048, 128},
                                  {8192, 512},
                                  {32768, 1024}}) {
    func::FuncOp kernel = rowKernel(8, columns, "bf16");
    ASSERT_TRUE(kernel);
    GPUScheduleAttr schedule = choose(kernel, GPUTarget());
    ASSERT_TRUE(schedule) << columns;
    EXPECT_EQ(schedule.getKind(), GPUScheduleKind::Rows);
    EXPECT_EQ(schedule.getThreads(), threads) << columns;
    EXPECT_EQ(schedule.getRowsPerBlock(), 1);
    EXPECT_EQ(schedule.getBlocks(), 8);
  }
}

TEST_F(GPUKernelScheduleTest, RowsBeyondTheRegisterBudgetArePointwise) {
  // 131072 f32 over 1024 threads: 128 elements a thread keeps.
  func::FuncOp kernel = rowKernel(2, 131072, "f32");
  ASSERT_TRUE(kernel);
  GPUScheduleAttr schedule = choose(kernel, GPUTarget());
  ASSERT_TRUE(schedule);
  EXPECT_EQ(schedule.getKind(), GPUScheduleKind::Pointwise);
}

TEST_F(GPUKernelScheduleTest, RowsOfOddLengthMoveOneElementAtATime) {
  func::FuncOp kernel = rowKernel(16, 1001, "f32");
  ASSERT_TRUE(kernel);
  GPUScheduleAttr schedule = choose(kernel, GPUTarget());
  ASSERT_TRUE(schedule);
  EXPECT_EQ(schedule.getKind(), GPUScheduleKind::Rows);
  EXPECT_EQ(schedule.getVectorWidth(), 1);
}

TEST_F(GPUKernelScheduleTest, LeadingReductionsAreOuterReductions) {
  for (auto [element, width] :
       {std::pair<StringRef, int64_t>{"bf16", 8}, {"f32", 4}}) {
    func::FuncOp kernel = columnKernel(2048, 1024, element);
    ASSERT_TRUE(kernel);
    GPUScheduleAttr schedule = choose(kernel, GPUTarget());
    ASSERT_TRUE(schedule) << element.str();
    EXPECT_EQ(schedule.getKind(), GPUScheduleKind::OuterReduction);
    EXPECT_EQ(schedule.getVectorWidth(), width);
    EXPECT_EQ(schedule.getSlices(), 32);
    EXPECT_EQ(schedule.getThreads(), 256);
    // A block per 8 threads' lane groups of the 1024 kept elements.
    EXPECT_EQ(schedule.getBlocks(), 128);
  }
}

TEST_F(GPUKernelScheduleTest, PointwiseGridsHoldAThreadPerLaneGroup) {
  func::FuncOp kernel = addKernel("4096x65536", "f32");
  ASSERT_TRUE(kernel);
  for (StringRef chip : {"sm_80", "sm_90", "sm_100"}) {
    FailureOr<GPUTarget> target = GPUTarget::forChip(chip);
    ASSERT_TRUE(succeeded(target)) << chip.str();
    GPUScheduleAttr schedule = choose(kernel, *target);
    ASSERT_TRUE(schedule);
    EXPECT_EQ(schedule.getKind(), GPUScheduleKind::Pointwise);
    EXPECT_EQ(schedule.getVectorWidth(), 4);
    EXPECT_EQ(schedule.getGroupsPerStep(), 1);
    EXPECT_EQ(schedule.getBlocks(), 4096 * 65536 / 4 / 256) << chip.str();
  }
  // Beyond the grid's limit, the grid-stride loop covers the rest.
  func::FuncOp huge = addKernel("65536x65536x1024", "f32");
  ASSERT_TRUE(huge);
  GPUScheduleAttr capped = choose(huge, GPUTarget());
  ASSERT_TRUE(capped);
  EXPECT_EQ(capped.getBlocks(), GPUTarget().maxBlocksPerGrid);
  // Small kernels too.
  func::FuncOp small = addKernel("64x1024", "bf16");
  ASSERT_TRUE(small);
  GPUScheduleAttr schedule = choose(small, GPUTarget());
  ASSERT_TRUE(schedule);
  EXPECT_EQ(schedule.getBlocks(), 64 * 1024 / 8 / 256);
}

TEST_F(GPUKernelScheduleTest, TransposesTileTheLoadAndStoreDims) {
  func::FuncOp kernel = parseKernel(
      "%in: memref<64x128xf32>, %out: memref<128x64xf32>",
      R"mlir(
        %x = bufferization.to_tensor %in restrict : memref<64x128xf32> to tensor<64x128xf32>
        %t = fuser.permute %x perm = [1, 0] : tensor<64x128xf32> -> tensor<128x64xf32>
        %c = fuser.set %t : tensor<128x64xf32> -> tensor<128x64xf32>
        bufferization.materialize_in_destination %c in restrict writable %out : (tensor<128x64xf32>, memref<128x64xf32>) -> ()
      )mlir");
  ASSERT_TRUE(kernel);
  GPUScheduleAttr schedule = choose(kernel, GPUTarget());
  ASSERT_TRUE(schedule);
  EXPECT_EQ(schedule.getKind(), GPUScheduleKind::Transpose);
  EXPECT_EQ(schedule.getLoadDim(), 0);
  EXPECT_EQ(schedule.getStoreDim(), 1);
  EXPECT_EQ(schedule.getBlocks(), (128 / 32) * (64 / 32));
  EXPECT_EQ(schedule.getThreads(), 256);
}

TEST_F(GPUKernelScheduleTest, IndexReductionsFoldWithoutWarpShuffles) {
  func::FuncOp kernel = parseKernel(
      "%in: memref<4x8xindex>, %out: memref<4xindex>", R"mlir(
        %x = bufferization.to_tensor %in restrict : memref<4x8xindex> to tensor<4x8xindex>
        %m = fuser.min %x dims = [1] : tensor<4x8xindex> -> tensor<4xindex>
        bufferization.materialize_in_destination %m in restrict writable %out : (tensor<4xindex>, memref<4xindex>) -> ()
      )mlir");
  ASSERT_TRUE(kernel);
  GPUScheduleAttr schedule = choose(kernel, GPUTarget());
  ASSERT_TRUE(schedule);
  EXPECT_EQ(schedule.getKind(), GPUScheduleKind::Pointwise);
  EXPECT_EQ(schedule.getVectorWidth(), 1);
}

TEST_F(GPUKernelScheduleTest, SchedulesThatDoNotFitAreRejected) {
  func::FuncOp rows = rowKernel(64, 1024, "bf16");
  ASSERT_TRUE(rows);
  GPUScheduleAttr chosen = choose(rows, GPUTarget());
  ASSERT_TRUE(chosen);
  auto with = [&](GPUScheduleKind kind, int64_t blocks, int64_t threads,
                  int64_t width, int64_t rowsPerBlock) {
    return GPUScheduleAttr::get(&context, kind, blocks, threads, width,
                                rowsPerBlock, 1, std::nullopt, std::nullopt,
                                /*groupsPerStep=*/1);
  };
  EXPECT_TRUE(rejects(rows, with(GPUScheduleKind::Rows, 17, 128, 8, 4),
                      "64 rows need 16 blocks"));
  EXPECT_TRUE(rejects(rows, with(GPUScheduleKind::Rows, 16, 128, 16, 4),
                      "its buffers allow at most 8 lanes"));
  EXPECT_TRUE(rejects(rows, with(GPUScheduleKind::Rows, 32, 128, 8, 2),
                      "a block holds several rows only with a warp per row"));
  EXPECT_TRUE(rejects(rows, with(GPUScheduleKind::Rows, 64, 48, 8, 1),
                      "a row's 48 threads are not whole warps"));
  // A pointwise schedule takes any kernel.
  EXPECT_TRUE(succeeded(verifyGPUSchedule(
      rows, with(GPUScheduleKind::Pointwise, 1, 32, 1, 1), GPUTarget())));

  func::FuncOp add = addKernel("64x1024", "f32");
  ASSERT_TRUE(add);
  EXPECT_TRUE(rejects(add, with(GPUScheduleKind::Rows, 16, 128, 4, 4),
                      "its reductions do not all fold one row"));
  EXPECT_TRUE(rejects(
      add,
      GPUScheduleAttr::get(&context, GPUScheduleKind::OuterReduction, 8, 256,
                           4, 1, 32, std::nullopt, std::nullopt, 1),
      "its reductions do not all fold the leading dims"));
  EXPECT_TRUE(rejects(add,
                      GPUScheduleAttr::get(&context, GPUScheduleKind::Transpose,
                                           64, 256, 1, 1, 1, 0, 2, 1),
                      "its outputs have 2 dims"));
  GPUTarget smallBlocks;
  smallBlocks.maxThreadsPerBlock = 512;
  EXPECT_TRUE(rejects(add, with(GPUScheduleKind::Pointwise, 8, 1024, 4, 1),
                      "blocks of this target hold at most 512 threads",
                      smallBlocks));
  GPUTarget smallGrids;
  smallGrids.maxBlocksPerGrid = 4;
  EXPECT_TRUE(rejects(add, with(GPUScheduleKind::Pointwise, 8, 256, 4, 1),
                      "grids of this target hold at most 4 blocks",
                      smallGrids));
}

TEST_F(GPUKernelScheduleTest, ChipsAreDescribedOrRefused) {
  FailureOr<GPUTarget> hopper = GPUTarget::forChip("sm_90a");
  ASSERT_TRUE(succeeded(hopper));
  EXPECT_EQ(hopper->warpSize, 32);
  EXPECT_EQ(hopper->vectorBytes, 16);
  EXPECT_TRUE(succeeded(GPUTarget::forChip("sm_80")));
  EXPECT_TRUE(failed(GPUTarget::forChip("sm_91")));
  EXPECT_TRUE(failed(GPUTarget::forChip("gfx942")));
}

} // namespace
