//===- Segment.cpp - kernels, library calls, communications, views --------===//

#include "fuser/Dialect/Fuser/Analysis/AliasAnalysis.h"
#include "fuser/Dialect/Fuser/Analysis/Resharding.h"
#include "fuser/Dialect/Fuser/Analysis/StageContracts.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_SEGMENT
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// Outlines the kernel segments of the functions of one module.
class Segmentation {
public:
  explicit Segmentation(ModuleOp module) : module(module) {}
  LogicalResult run(func::FuncOp function);

private:
  LogicalResult flush(func::FuncOp function, SmallVectorImpl<Operation *> &run,
                      bool hasCompute);
  ModuleOp getKernelModule();

  ModuleOp module;
  ModuleOp kernels;
  unsigned kernelCount = 0;
};
} // namespace

ModuleOp Segmentation::getKernelModule() {
  if (kernels)
    return kernels;
  kernels = dyn_cast_or_null<ModuleOp>(SymbolTable::lookupSymbolIn(module, "kernels"));
  if (!kernels) {
    OpBuilder builder(module.getBodyRegion());
    builder.setInsertionPointToEnd(module.getBody());
    kernels = ModuleOp::create(builder, module.getLoc(), StringRef("kernels"));
  }
  return kernels;
}

static RankedTensorType localTensorType(Type type) {
  MemRefType buffer = getLocalBufferType(cast<RankedTensorType>(type));
  return RankedTensorType::get(buffer.getShape(), buffer.getElementType());
}

LogicalResult Segmentation::flush(func::FuncOp function,
                                  SmallVectorImpl<Operation *> &run,
                                  bool hasCompute) {
  llvm::scope_exit clear([&] { run.clear(); });
  // Views alone stay views.
  if (run.empty() || !hasCompute)
    return success();
  DenseSet<Operation *> inRun(run.begin(), run.end());
  SetVector<Value> inputs;
  SmallVector<Value> outputs;
  for (Operation *op : run) {
    if (auto ruled = dyn_cast<ShardingRuleOpInterface>(op);
        ruled && isResharding(ruled))
      return op->emitError("reshards, so it cannot compute on local pieces; "
                           "run fuser-decompose-reshardings first");
    for (Value operand : op->getOperands())
      if (!inRun.contains(operand.getDefiningOp()))
        inputs.insert(operand);
    // Values of ops without operands depend on global positions (iota,
    // random draws): computing a split one locally needs the rank's offset.
    if (op->getNumOperands() == 0)
      for (Value result : op->getResults())
        if (ShardingAttr sharding = getSharding(result);
            sharding && llvm::any_of(sharding.getDims(), [](DenseI64ArrayAttr axes) {
              return !axes.empty();
            }))
          return op->emitError("a split value of an op without operands cannot "
                               "be computed by a kernel yet: its elements "
                               "depend on their global positions");
    for (Value result : op->getResults())
      if (llvm::any_of(result.getUsers(), [&](Operation *user) {
            return !inRun.contains(user);
          }))
        outputs.push_back(result);
  }

  // The kernel function: buffers of the inputs, then of the outputs.
  SmallVector<Type> buffers;
  for (Value value : inputs)
    buffers.push_back(getLocalBufferType(cast<RankedTensorType>(value.getType())));
  for (Value value : outputs)
    buffers.push_back(getLocalBufferType(cast<RankedTensorType>(value.getType())));
  Location loc = run.front()->getLoc();
  std::string name =
      (function.getSymName() + "_kernel_" + Twine(kernelCount++)).str();
  ModuleOp kernelModule = getKernelModule();
  OpBuilder builder(kernelModule.getBodyRegion());
  builder.setInsertionPointToEnd(kernelModule.getBody());
  auto kernel = func::FuncOp::create(builder, loc, name,
                                     builder.getFunctionType(buffers, {}));
  SymbolTable(kernelModule).insert(kernel);
  Block *body = kernel.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  for (auto [value, buffer] : llvm::zip(inputs, body->getArguments()))
    mapping.map(value, bufferization::ToTensorOp::create(
                           builder, loc, localTensorType(value.getType()),
                           buffer, /*restrict=*/true));
  for (Operation *op : run) {
    Operation *local = builder.clone(*op, mapping);
    for (Value result : local->getResults())
      result.setType(localTensorType(result.getType()));
  }
  for (auto [value, buffer] :
       llvm::zip(outputs, body->getArguments().drop_front(inputs.size())))
    bufferization::MaterializeInDestinationOp::create(
        builder, loc, TypeRange(), mapping.lookup(value), buffer,
        /*restrict=*/true, /*writable=*/true);
  func::ReturnOp::create(builder, loc);

  // The host function runs the kernel in place of the ops.
  OpBuilder host(run.back());
  host.setInsertionPointAfter(run.back());
  auto reference = SymbolRefAttr::get(
      builder.getContext(), kernelModule.getSymNameAttr().getValue(),
      {FlatSymbolRefAttr::get(kernel.getSymNameAttr())});
  SmallVector<Type> resultTypes =
      llvm::map_to_vector(outputs, [](Value value) { return value.getType(); });
  auto launch = KernelOp::create(host, loc, resultTypes, reference,
                                 inputs.getArrayRef());
  for (auto [value, result] : llvm::zip(outputs, launch.getResults()))
    value.replaceAllUsesWith(result);
  for (Operation *op : llvm::reverse(run))
    op->erase();
  return success();
}

LogicalResult Segmentation::run(func::FuncOp function) {
  // Segments are ranges of one block: fuser ops nested in regions would
  // need a segment per region.
  WalkResult nested = function.walk([&](Operation *op) {
    if (op->getBlock() != &function.getBody().front() &&
        isa<FuserDialect>(op->getDialect()) &&
        op->getParentOp() != function) {
      op->emitError("segmentation handles fuser ops in the function body only, "
                    "not nested in regions");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (nested.wasInterrupted())
    return failure();

  AliasAnalysis analysis(function);
  SmallVector<Operation *> run;
  bool hasCompute = false;
  for (Operation &op : llvm::make_early_inc_range(function.getBody().front())) {
    // Kernel ops and views that need no copy form a run; anything else
    // ends it.
    SegmentRole role = getSegmentRole(&op, analysis);
    if (role == SegmentRole::Other) {
      if (failed(flush(function, run, hasCompute)))
        return failure();
      hasCompute = false;
      continue;
    }
    run.push_back(&op);
    hasCompute |= role == SegmentRole::Kernel;
  }
  return success();
}

namespace {
struct SegmentPass : public mlir::fuser::impl::SegmentBase<SegmentPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    Segmentation segmentation(module);
    SmallVector<func::FuncOp> functions(module.getOps<func::FuncOp>());
    for (func::FuncOp function : functions)
      if (!function.isExternal() && failed(segmentation.run(function)))
        return signalPassFailure();
  }
};
} // namespace
