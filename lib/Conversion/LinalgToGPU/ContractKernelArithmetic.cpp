//===- ContractKernelArithmetic.cpp - FMA contraction in GPU kernels ------===//

#include "fuser/Conversion/Passes.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONTRACTKERNELARITHMETIC
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

namespace {
struct ContractKernelArithmeticPass
    : public mlir::fuser::impl::ContractKernelArithmeticBase<
          ContractKernelArithmeticPass> {
  void runOnOperation() override {
    getOperation().walk([](arith::ArithFastMathInterface op) {
      arith::FastMathFlagsAttr flags = op.getFastMathFlagsAttr();
      arith::FastMathFlags contracted =
          (flags ? flags.getValue() : arith::FastMathFlags::none) |
          arith::FastMathFlags::contract;
      op->setAttr(op.getFastMathAttrName(),
                  arith::FastMathFlagsAttr::get(op->getContext(), contracted));
    });
  }
};
} // namespace
