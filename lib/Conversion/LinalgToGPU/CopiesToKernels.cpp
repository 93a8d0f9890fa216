//===- CopiesToKernels.cpp - copies the copy engine cannot make -----------===//

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/KernelModule.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_COPIESTOKERNELS
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

/// Whether the copy engine moves `type`'s elements: rows contiguous in
/// memory (its last stride 1).
static bool copyEngineMoves(MemRefType type) {
  auto [strides, offset] = type.getStridesAndOffset();
  return strides.empty() || strides.back() == 1;
}

/// A kernel function reading `copy`'s source into its target.
static func::FuncOp buildCopyKernel(hostir::CopyOp copy, ModuleOp kernels,
                                    SymbolTable &symbols) {
  Location loc = copy.getLoc();
  OpBuilder builder = OpBuilder::atBlockEnd(kernels.getBody());
  auto function = func::FuncOp::create(
      builder, loc, "copy",
      builder.getFunctionType(copy->getOperandTypes(), {}));
  symbols.insert(function);
  Block *body = function.addEntryBlock();
  builder.setInsertionPointToStart(body);
  auto source = cast<MemRefType>(copy.getSource().getType());
  Value read = bufferization::ToTensorOp::create(
      builder, loc,
      RankedTensorType::get(source.getShape(), source.getElementType()),
      body->getArgument(0), /*restrict=*/true);
  auto write = bufferization::MaterializeInDestinationOp::create(
      builder, loc, read, body->getArgument(1));
  write.setRestrict(true);
  write.setWritable(true);
  func::ReturnOp::create(builder, loc);
  return function;
}

namespace {
struct CopiesToKernelsPass
    : public mlir::fuser::impl::CopiesToKernelsBase<CopiesToKernelsPass> {
  void runOnOperation() override;
};
} // namespace

void CopiesToKernelsPass::runOnOperation() {
  ModuleOp program = getOperation();
  SmallVector<hostir::CopyOp> copies;
  program.walk([&](hostir::CopyOp copy) {
    auto source = cast<MemRefType>(copy.getSource().getType());
    auto target = cast<MemRefType>(copy.getTarget().getType());
    if ((!copyEngineMoves(source) || !copyEngineMoves(target)) &&
        source.hasStaticShape() && target.hasStaticShape())
      copies.push_back(copy);
  });
  if (copies.empty())
    return;
  ModuleOp kernels = getOrCreateKernelModule(program);
  SymbolTable symbols(kernels);
  for (hostir::CopyOp copy : copies) {
    func::FuncOp function = buildCopyKernel(copy, kernels, symbols);
    // The grid and block are the schedule's, set when it is emitted.
    OpBuilder host(copy);
    Value one = arith::ConstantIndexOp::create(host, copy.getLoc(), 1);
    hostir::LaunchOp::create(
        host, copy.getLoc(),
        SymbolRefAttr::get(kernels.getSymNameAttr(),
                           FlatSymbolRefAttr::get(function.getSymNameAttr())),
        one, one, one, one, one, one, copy->getOperands(), Value());
    copy.erase();
  }
}
