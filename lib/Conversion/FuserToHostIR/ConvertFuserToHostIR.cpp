//===- ConvertFuserToHostIR.cpp - segmented functions to host programs ----===//

#include "FuserToHostIRPatterns.h"

#include "fuser/Conversion/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTFUSERTOHOSTIR
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// Sharded tensors -> the per-rank buffers that hold their local pieces,
/// strided by their layouts.
struct LocalBufferTypeConverter : public TypeConverter {
  LocalBufferTypeConverter() {
    addConversion([](Type type) { return type; });
    addConversion(
        [](RankedTensorType type) -> Type { return getLocalBufferType(type); });
  }
};
} // namespace

/// Legal when `legal`, else unknown rather than illegal: a partial
/// conversion reports an illegal op it cannot lower in its own words, and
/// ConvertFuserToHostIRPass says what to do instead.
static std::optional<bool> legalOrUnknown(bool legal) {
  if (legal)
    return true;
  return std::nullopt;
}

/// A kernel launched once takes the buffer view its launch passes as it is
/// (KernelLaunchLowering): its parameter, and the entry block's argument
/// with it, get the view's type. Kernels launched more than once read
/// copies of their own layouts.
static void adoptLaunchedLayouts(ModuleOp module) {
  module.walk([&](hostir::LaunchOp launch) {
    auto kernel = SymbolTable::lookupNearestSymbolFrom<func::FuncOp>(
        launch, launch.getKernel());
    if (!kernel ||
        TypeRange(launch.getKernelOperands()) == kernel.getArgumentTypes())
      return;
    if (!isLaunchedOnce(kernel))
      return;
    SmallVector<Type> parameters(launch.getKernelOperands().getTypes());
    kernel.setType(FunctionType::get(kernel.getContext(), parameters,
                                     kernel.getResultTypes()));
    if (!kernel.isExternal())
      for (auto [argument, type] :
           llvm::zip_equal(kernel.getArguments(), parameters))
        argument.setType(type);
  });
}

namespace {
struct ConvertFuserToHostIRPass
    : public mlir::fuser::impl::ConvertFuserToHostIRBase<
          ConvertFuserToHostIRPass> {
  using ConvertFuserToHostIRBase::ConvertFuserToHostIRBase;

  void runOnOperation() override {
    // Pipelines fuser-expose-pipelined-axes planned carry their plan; with
    // `auto` the others (chunk-wise groups it does not plan) run
    // collectively.
    Pipelining strategy =
        getFixedPipelining(pipelining).value_or(Pipelining::Collective);
    SmallVector<func::FuncOp> functions(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp function : functions)
      if (!function.isExternal() && failed(convert(function, strategy)))
        return signalPassFailure();
    adoptLaunchedLayouts(getOperation());
  }

  LogicalResult convert(func::FuncOp function, Pipelining strategy) {
    MLIRContext *context = &getContext();
    HostProgram program(function, backend, strategy);
    LocalBufferTypeConverter converter;
    RewritePatternSet patterns(context);
    populateFunctionOpInterfaceTypeConversionPattern<func::FuncOp>(patterns,
                                                                   converter);
    populateComputationLoweringPatterns(patterns, program);
    populateCommunicationLoweringPatterns(patterns, program);
    populateViewLoweringPatterns(patterns, program);
    populatePipelineLoweringPatterns(patterns, program);

    // Fuser ops are left unknown rather than illegal: an op no pattern
    // lowers is reported once, below, with what to do about it. Host ops
    // already in the function stay as they are when they take no tensors.
    ConversionTarget target(*context);
    target
        .addDynamicallyLegalDialect<hostir::HostIRDialect, arith::ArithDialect,
                                    memref::MemRefDialect, scf::SCFDialect>(
            [&](Operation *op) {
              return legalOrUnknown(converter.isLegal(op));
            });
    target.addDynamicallyLegalOp<func::FuncOp>([&](func::FuncOp op) {
      return legalOrUnknown(converter.isSignatureLegal(op.getFunctionType()) &&
                            converter.isLegal(&op.getBody()));
    });
    target.addDynamicallyLegalOp<func::ReturnOp>([&](func::ReturnOp op) {
      return legalOrUnknown(converter.isLegal(op));
    });
    ConversionConfig config;
    // The patterns choose each op's host form; folding would bypass them.
    config.foldingMode = DialectConversionFoldingMode::Never;
    // Values are only left unconverted where an op failed to lower, which
    // is reported on its own: their uses keep unrealized casts, since no
    // materialization can mend that.
    config.buildMaterializations = false;
    DenseSet<Operation *> unlowered;
    config.unlegalizedOps = &unlowered;

    bool reported = false;
    ScopedDiagnosticHandler noteErrors(context, [&](Diagnostic &diagnostic) {
      reported |= diagnostic.getSeverity() == DiagnosticSeverity::Error;
      return failure();
    });
    if (failed(applyPartialConversion(function, target, std::move(patterns),
                                      config)) ||
        reported)
      return failure();
    WalkResult leftOver =
        function.walk<WalkOrder::PreOrder>([&](Operation *op) {
          if (!unlowered.contains(op))
            return WalkResult::advance();
          op->emitError("cannot lower this op to host IR: segment the function "
                        "first (fuser-segment)");
          return WalkResult::interrupt();
        });
    if (leftOver.wasInterrupted())
      return failure();
    if (program.rank.use_empty())
      program.rank.getDefiningOp()->erase();
    return success();
  }
};
} // namespace
