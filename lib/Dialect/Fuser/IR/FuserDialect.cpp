//===- FuserDialect.cpp - fuser dialect registration ----------------------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/IR/DialectImplementation.h"
#include "mlir/Interfaces/ControlFlowInterfaces.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::fuser;

#include "fuser/Dialect/Fuser/IR/FuserDialect.cpp.inc"
#include "fuser/Dialect/Fuser/IR/FuserEnums.cpp.inc"

namespace {
/// Prints meshes and shardings as `#mesh`, `#sharding` aliases so that the
/// tensor types of a program stay readable.
struct FuserOpAsmInterface : public OpAsmDialectInterface {
  using OpAsmDialectInterface::OpAsmDialectInterface;
  AliasResult getAlias(Attribute attr, raw_ostream &os) const override {
    if (isa<MeshAttr>(attr)) {
      os << "mesh";
      return AliasResult::FinalAlias;
    }
    if (isa<ShardingAttr>(attr)) {
      os << "sharding";
      return AliasResult::OverridableAlias;
    }
    return AliasResult::NoAlias;
  }
};
} // namespace

void FuserDialect::initialize() {
  registerAttributes();
  addOperations<
#define GET_OP_LIST
#include "fuser/Dialect/Fuser/IR/FuserOps.cpp.inc"
      >();
  addInterfaces<FuserOpAsmInterface>();
}

bool mlir::fuser::haveSameGlobalTypes(TypeRange lhs, TypeRange rhs) {
  if (lhs.size() != rhs.size())
    return false;
  for (auto [l, r] : llvm::zip_equal(lhs, rhs)) {
    auto lt = dyn_cast<RankedTensorType>(l);
    auto rt = dyn_cast<RankedTensorType>(r);
    if (!lt || !rt) {
      if (l != r)
        return false;
      continue;
    }
    if (lt.getShape() != rt.getShape() ||
        lt.getElementType() != rt.getElementType())
      return false;
  }
  return true;
}

ShardingAttr mlir::fuser::getSharding(Type type) {
  if (auto tensor = dyn_cast<RankedTensorType>(type))
    return dyn_cast_or_null<ShardingAttr>(tensor.getEncoding());
  return {};
}

int64_t mlir::fuser::getRequiredWorldSize(Operation *root) {
  int64_t worldSize = 1;
  auto addMesh = [&](Value value) {
    if (ShardingAttr sharding = getSharding(value))
      for (int64_t device : sharding.getMesh().getDeviceIds())
        worldSize = std::max(worldSize, device + 1);
  };
  root->walk([&](Operation *op) {
    for (Region &region : op->getRegions())
      for (Block &block : region)
        llvm::for_each(block.getArguments(), addMesh);
    llvm::for_each(op->getResults(), addMesh);
  });
  return worldSize;
}

void mlir::fuser::updateFunctionType(Operation *op) {
  auto function = cast<FunctionOpInterface>(op);
  SmallVector<Type> results(function.getResultTypes());
  function->walk([&](Operation *terminator) {
    if (terminator->hasTrait<mlir::OpTrait::ReturnLike>() &&
        terminator->getParentOp() == op)
      for (auto [index, type] : llvm::enumerate(terminator->getOperandTypes()))
        results[index] = type;
  });
  function.setType(FunctionType::get(
      op->getContext(), function.getFunctionBody().getArgumentTypes(),
      results));
}
