//===- GenerateVjp.cpp - reverse-mode derivative programs -----------------===//
//
// For a function @f: @f__vjp recomputes the forward and sweeps back
// through it (ReverseSweep); @f__fwd and @f__bwd split that program where
// the backward starts, the values crossing the split (or the ops that
// recompute them, per `save`) chosen from what the backward reads.
//
//===----------------------------------------------------------------------===//

#include "ReverseSweep.h"

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"

#include "mlir/IR/IRMapping.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_GENERATEVJP
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {

SmallVector<unsigned> floatPositions(TypeRange types) {
  SmallVector<unsigned> positions;
  for (auto [index, type] : llvm::enumerate(types))
    if (isFloatTensor(type))
      positions.push_back(index);
  return positions;
}

/// The attribute that names, on an op of a propagated copy, the position of
/// the op it copies.
constexpr StringLiteral kOriginalAttr = "fuser.vjp_original";

/// `value` as a value of `type` (same global type): itself, or a fuser.set
/// that places it so.
Value placedAs(OpBuilder &builder, Value value, Type type) {
  if (value.getType() == type || !getSharding(type))
    return value;
  return SetOp::create(builder, value.getLoc(), type, value);
}

/// Erases the ops of `function` whose results nothing reads (every fuser
/// op is pure), and drops them from `tracked`.
void eraseDeadOps(func::FuncOp function,
                  llvm::SmallPtrSetImpl<Operation *> &tracked) {
  Block &body = function.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(body)))
    if (isOpTriviallyDead(&op)) {
      tracked.erase(&op);
      op.erase();
    }
}

/// A derivative program of `f` named `f` + `suffix`, of `inputs` ->
/// `results`, after `anchor`; its body is an empty entry block, where
/// `builder` is left.
func::FuncOp createFunction(OpBuilder &builder, func::FuncOp f,
                            func::FuncOp anchor, StringRef suffix,
                            TypeRange inputs, TypeRange results) {
  builder.setInsertionPointAfter(anchor);
  auto function = func::FuncOp::create(
      builder, f.getLoc(), (f.getName() + suffix).str(),
      builder.getFunctionType(inputs, results));
  function->setAttr("fuser.derivative_of", builder.getStringAttr(f.getName()));
  Block *entry = function.addEntryBlock();
  builder.setInsertionPointToEnd(entry);
  return function;
}

struct GenerateVjp : mlir::fuser::impl::GenerateVjpBase<GenerateVjp> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    SmallVector<func::FuncOp> targets;
    if (failed(findTargets(module, targets)))
      return signalPassFailure();
    for (func::FuncOp function : targets)
      if (failed(differentiate(function)))
        return signalPassFailure();
  }

private:
  LogicalResult findTargets(ModuleOp module,
                            SmallVectorImpl<func::FuncOp> &targets) {
    if (functions.empty()) {
      for (auto function : module.getOps<func::FuncOp>())
        if (!function.isDeclaration() &&
            !function->hasAttr("fuser.derivative_of") &&
            !floatPositions(function.getArgumentTypes()).empty())
          targets.push_back(function);
      return success();
    }
    for (const std::string &name : functions) {
      auto function = module.lookupSymbol<func::FuncOp>(name);
      if (!function || function.isDeclaration())
        return module.emitError("fuser-generate-vjp: no function @")
               << name << " to differentiate";
      if (floatPositions(function.getArgumentTypes()).empty())
        return function.emitError("has no floating-point input to "
                                  "differentiate with respect to");
      targets.push_back(function);
    }
    return success();
  }

  /// The argument and result types `function`'s boundary has after
  /// sharding propagation: where its caller's pieces are. With
  /// `pendingSums`, also the values of `function` propagation leaves
  /// pending a reduction.
  LogicalResult propagatedSignature(func::FuncOp function,
                                    FunctionType &signature,
                                    llvm::DenseSet<Value> *pendingSums = nullptr) {
    OpBuilder builder(function);
    builder.setInsertionPointAfter(function);
    auto copy = cast<func::FuncOp>(builder.clone(*function));
    copy.setName((function.getName() + "__placement").str());
    // Each op of the copy names the function's op it copies: propagation
    // may fold some away.
    SmallVector<Operation *> originals;
    for (auto [original, copied] :
         llvm::zip_equal(function.getBody().front(), copy.getBody().front())) {
      copied.setAttr(kOriginalAttr,
                     builder.getI64IntegerAttr(originals.size()));
      originals.push_back(&original);
    }
    OpPassManager pipeline(func::FuncOp::getOperationName());
    pipeline.addPass(createPropagateShardings());
    LogicalResult result = runPipeline(pipeline, copy);
    signature = copy.getFunctionType();
    if (succeeded(result) && pendingSums)
      for (Operation &placed : copy.getBody().front())
        if (auto index = placed.getAttrOfType<IntegerAttr>(kOriginalAttr))
          for (auto [value, placedValue] :
               llvm::zip_equal(originals[index.getInt()]->getResults(),
                               placed.getResults()))
            if (ShardingAttr sharding = getSharding(placedValue);
                sharding && sharding.isPartial())
              pendingSums->insert(value);
    copy.erase();
    return result;
  }

  LogicalResult differentiate(func::FuncOp f) {
    for (StringRef suffix : {"__vjp", "__fwd", "__bwd"})
      if (SymbolTable::lookupNearestSymbolFrom(
              f, StringAttr::get(f.getContext(), f.getName() + suffix)))
        return f.emitError("cannot add its derivative programs: @")
               << f.getName() << suffix << " exists already";
    FunctionType signature;
    llvm::DenseSet<Value> pendingSums;
    if (failed(propagatedSignature(f, signature, &pendingSums)))
      return failure();
    ArrayRef<Type> argTypes = signature.getInputs();
    ArrayRef<Type> resultTypes = signature.getResults();
    SmallVector<unsigned> inputs = floatPositions(argTypes);
    SmallVector<unsigned> outputs = floatPositions(resultTypes);
    SmallVector<Type> cotangentTypes, gradientTypes;
    for (unsigned j : outputs)
      cotangentTypes.push_back(resultTypes[j]);
    for (unsigned i : inputs)
      gradientTypes.push_back(argTypes[i]);

    // @f__vjp: f's body, then the sweep back through it.
    OpBuilder builder(f);
    SmallVector<Type> vjpInputs(argTypes);
    llvm::append_range(vjpInputs, cotangentTypes);
    func::FuncOp vjp = createFunction(builder, f, f, "__vjp", vjpInputs,
                                      gradientTypes);
    IRMapping primal;
    for (auto [from, to] : llvm::zip(f.getArguments(), vjp.getArguments()))
      primal.map(from, to);
    SmallVector<Operation *> forward;
    auto fReturn = cast<func::ReturnOp>(f.getBody().front().getTerminator());
    for (Operation &op : f.getBody().front().without_terminator())
      forward.push_back(builder.clone(op, primal));
    SmallVector<std::pair<Value, Value>> seeds;
    for (auto [k, j] : llvm::enumerate(outputs))
      seeds.push_back({primal.lookup(fReturn.getOperand(j)),
                       vjp.getArgument(argTypes.size() + k)});
    SmallVector<Value> differentiable, wanted;
    for (unsigned i : inputs) {
      differentiable.push_back(vjp.getArgument(i));
      wanted.push_back(vjp.getArgument(i));
    }
    FailureOr<SmallVector<Value>> gradients =
        buildCotangents(builder, forward, differentiable, seeds, wanted);
    if (failed(gradients)) {
      vjp.erase();
      return f.emitError("cannot be differentiated: see the op above");
    }
    SmallVector<Value> results;
    for (auto [gradient, type] : llvm::zip_equal(*gradients, gradientTypes)) {
      // An input no output depends on has a zero gradient.
      auto tensor = cast<RankedTensorType>(type);
      Value value =
          gradient ? gradient
                   : FullOp::create(builder, f.getLoc(),
                                    RankedTensorType::get(tensor.getShape(),
                                                          tensor.getElementType()),
                                    builder.getF64FloatAttr(0.0));
      results.push_back(placedAs(builder, value, type));
    }
    func::ReturnOp::create(builder, f.getLoc(), results);
    updateFunctionType(vjp);
    llvm::SmallPtrSet<Operation *, 16> forwardOps(forward.begin(),
                                                  forward.end());
    eraseDeadOps(vjp, forwardOps);
    return splitForwardAndBackward(f, signature, pendingSums, vjp, primal,
                                   forwardOps, outputs.size());
  }

  /// @f__fwd and @f__bwd from @f__vjp, whose ops in `forwardOps` are
  /// f's (cloned through `primal`) and the rest the backward.
  /// `pendingSums` are the values of f propagation leaves pending.
  LogicalResult splitForwardAndBackward(
      func::FuncOp f, FunctionType signature,
      const llvm::DenseSet<Value> &pendingSums, func::FuncOp vjp,
      const IRMapping &primal,
      const llvm::SmallPtrSetImpl<Operation *> &forwardOps,
      size_t numCotangents) {
    DenseMap<Value, Value> fValueOf;
    for (auto [from, to] : primal.getValueMap())
      fValueOf[to] = from;
    auto isPending = [&](Value value) {
      return pendingSums.contains(fValueOf.lookup(value));
    };
    Block &vjpBody = vjp.getBody().front();
    unsigned numPrimals = signature.getNumInputs();
    auto isForward = [&](Value value) {
      if (auto argument = dyn_cast<BlockArgument>(value))
        return argument.getArgNumber() < numPrimals;
      return forwardOps.contains(value.getDefiningOp());
    };
    // What the backward reads of the forward, and how each value crosses.
    llvm::SetVector<Value> read;
    for (Operation &op : vjpBody)
      if (!forwardOps.contains(&op))
        for (Value operand : op.getOperands())
          if (isForward(operand))
            read.insert(operand);
    llvm::SetVector<Value> saved;
    llvm::SmallPtrSet<Operation *, 16> recomputed;
    SmallVector<unsigned> inputsRead;
    SmallVector<Value> worklist(read.begin(), read.end());
    llvm::DenseSet<Value> seen(read.begin(), read.end());
    while (!worklist.empty()) {
      Value value = worklist.pop_back_val();
      if (auto argument = dyn_cast<BlockArgument>(value)) {
        inputsRead.push_back(argument.getArgNumber());
        continue;
      }
      Operation *producer = value.getDefiningOp();
      bool expensive =
          producer->hasTrait<mlir::fuser::OpTrait::LibraryCall>() ||
          isa<SetOp, CommunicationOpInterface>(producer);
      // A pending sum (a row-parallel product) crosses the boundary only
      // resolved whole; the first value computed from it once resolved
      // crosses as placed (a reduce-scatter's block, not an allreduce).
      bool resolvesPendingSum =
          !isPending(value) &&
          llvm::any_of(producer->getOperands(), [&](Value operand) {
            Operation *source = operand.getDefiningOp();
            return source &&
                   source->hasTrait<mlir::fuser::OpTrait::LibraryCall>() &&
                   isPending(operand);
          });
      if (save == SavedValues::All || expensive || resolvesPendingSum) {
        saved.insert(value);
        continue;
      }
      recomputed.insert(producer);
      for (Value operand : producer->getOperands())
        if (seen.insert(operand).second)
          worklist.push_back(operand);
    }
    llvm::sort(inputsRead);
    // Saved values in program order, so that @f__fwd lists them so.
    SmallVector<Value> savedInOrder(saved.begin(), saved.end());
    llvm::sort(savedInOrder, [](Value a, Value b) {
      return a.getDefiningOp()->isBeforeInBlock(b.getDefiningOp());
    });

    // @f__fwd: f's body returning, after f's outputs, the saved values.
    OpBuilder builder(f);
    SmallVector<Type> fwdResults(signature.getResults());
    for (Value value : savedInOrder)
      fwdResults.push_back(value.getType());
    func::FuncOp fwd =
        createFunction(builder, f, vjp, "__fwd", signature.getInputs(),
                       fwdResults);
    IRMapping fwdMapping;
    for (auto [from, to] : llvm::zip(f.getArguments(), fwd.getArguments()))
      fwdMapping.map(from, to);
    for (Operation &op : f.getBody().front().without_terminator())
      builder.clone(op, fwdMapping);
    auto fReturn = cast<func::ReturnOp>(f.getBody().front().getTerminator());
    SmallVector<Value> fwdReturned;
    for (auto [value, type] :
         llvm::zip_equal(fReturn.getOperands(), signature.getResults()))
      fwdReturned.push_back(placedAs(builder, fwdMapping.lookup(value), type));
    for (Value value : savedInOrder)
      fwdReturned.push_back(fwdMapping.lookup(fValueOf.lookup(value)));
    auto fwdReturn = func::ReturnOp::create(builder, f.getLoc(), fwdReturned);
    // Each saved value crosses placed as the forward computes it.
    FunctionType fwdSignature;
    if (failed(propagatedSignature(fwd, fwdSignature)))
      return failure();
    builder.setInsertionPoint(fwdReturn);
    for (auto [operand, type] :
         llvm::zip_equal(fwdReturn->getOpOperands(), fwdSignature.getResults()))
      operand.set(placedAs(builder, operand.get(), type));
    fwd.setType(builder.getFunctionType(signature.getInputs(),
                                        fwdSignature.getResults()));

    // @f__bwd: the inputs read, the saved values, the cotangents.
    SmallVector<Type> bwdInputs;
    for (unsigned i : inputsRead)
      bwdInputs.push_back(signature.getInput(i));
    ArrayRef<Type> savedTypes =
        fwdSignature.getResults().drop_front(signature.getNumResults());
    llvm::append_range(bwdInputs, savedTypes);
    llvm::append_range(bwdInputs,
                       vjp.getArgumentTypes().take_back(numCotangents));
    func::FuncOp bwd =
        createFunction(builder, f, fwd, "__bwd", bwdInputs,
                       vjp.getResultTypes());
    bwd->setAttr("fuser.vjp_inputs",
                 builder.getDenseI64ArrayAttr(llvm::map_to_vector(
                     inputsRead, [](unsigned i) { return int64_t(i); })));
    IRMapping bwdMapping;
    unsigned position = 0;
    for (unsigned i : inputsRead)
      bwdMapping.map(vjp.getArgument(i), bwd.getArgument(position++));
    for (Value value : savedInOrder)
      bwdMapping.map(value, bwd.getArgument(position++));
    for (BlockArgument cotangent :
         vjp.getArguments().take_back(numCotangents))
      bwdMapping.map(cotangent, bwd.getArgument(position++));
    for (Operation &op : vjpBody)
      if (!forwardOps.contains(&op) || recomputed.contains(&op))
        builder.clone(op, bwdMapping);
    updateFunctionType(bwd);
    return success();
  }
};

} // namespace
