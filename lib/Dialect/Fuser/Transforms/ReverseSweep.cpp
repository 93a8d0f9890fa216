//===- ReverseSweep.cpp - cotangents of a block's values ------------------===//

#include "ReverseSweep.h"

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "llvm/ADT/DenseSet.h"

using namespace mlir;
using namespace mlir::fuser;

bool mlir::fuser::isFloatTensor(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  return tensor && isa<FloatType>(tensor.getElementType());
}

namespace {

class Sweep {
public:
  Sweep(OpBuilder &builder, ArrayRef<Operation *> forward,
        ArrayRef<Value> inputs, ArrayRef<std::pair<Value, Value>> seeds)
      : builder(builder), forward(forward) {
    findActiveValues(inputs, seeds);
    for (auto [value, cotangent] : seeds)
      accumulate(value, cotangent);
  }

  LogicalResult run() {
    for (Operation *op : llvm::reverse(forward))
      if (failed(differentiate(op)))
        return failure();
    return success();
  }

  Value cotangentOf(Value value) const { return cotangents.lookup(value); }

private:
  /// Active values depend on an input (through values of any type) and
  /// reach a seeded value; only floating-point ones carry cotangents.
  void findActiveValues(ArrayRef<Value> inputs,
                        ArrayRef<std::pair<Value, Value>> seeds) {
    varied.insert(inputs.begin(), inputs.end());
    for (Operation *op : forward)
      if (llvm::any_of(op->getOperands(),
                       [&](Value v) { return varied.contains(v); }))
        varied.insert(op->result_begin(), op->result_end());
    for (auto [value, cotangent] : seeds)
      useful.insert(value);
    for (Operation *op : llvm::reverse(forward))
      if (llvm::any_of(op->getResults(),
                       [&](Value v) { return useful.contains(v); }))
        useful.insert(op->operand_begin(), op->operand_end());
  }

  bool isActive(Value value) const {
    return varied.contains(value) && useful.contains(value) &&
           isFloatTensor(value.getType());
  }

  void accumulate(Value value, Value cotangent) {
    assert(haveSameGlobalTypes(value.getType(), cotangent.getType()) &&
           "a cotangent has its value's global type");
    Value &sum = cotangents[value];
    sum = sum ? AddOp::create(builder, cotangent.getLoc(), sum, cotangent)
              : cotangent;
  }

  LogicalResult differentiate(Operation *op) {
    SmallVector<Value> resultCotangents;
    bool any = false;
    for (Value result : op->getResults()) {
      Value cotangent = isActive(result) ? cotangents.lookup(result) : Value();
      resultCotangents.push_back(cotangent);
      any |= static_cast<bool>(cotangent);
    }
    if (!any)
      return success();
    auto rule = dyn_cast<DifferentiableOpInterface>(op);
    if (!rule)
      return op->emitOpError("has no derivative, and the gradient of a "
                             "floating-point input flows through it");
    SmallVector<Value> operandCotangents;
    if (failed(rule.buildVjp(builder, resultCotangents, operandCotangents)))
      return failure();
    assert(operandCotangents.size() == op->getNumOperands() &&
           "a derivative rule gives one cotangent per operand");
    for (auto [operand, cotangent] :
         llvm::zip_equal(op->getOperands(), operandCotangents))
      if (cotangent && isActive(operand))
        accumulate(operand, cotangent);
    return success();
  }

  OpBuilder &builder;
  ArrayRef<Operation *> forward;
  llvm::DenseSet<Value> varied, useful;
  DenseMap<Value, Value> cotangents;
};

} // namespace

FailureOr<SmallVector<Value>>
mlir::fuser::buildCotangents(OpBuilder &builder, ArrayRef<Operation *> forward,
                             ArrayRef<Value> inputs,
                             ArrayRef<std::pair<Value, Value>> seeds,
                             ArrayRef<Value> wanted) {
  Sweep sweep(builder, forward, inputs, seeds);
  if (failed(sweep.run()))
    return failure();
  return llvm::map_to_vector(
      wanted, [&](Value value) { return sweep.cotangentOf(value); });
}
