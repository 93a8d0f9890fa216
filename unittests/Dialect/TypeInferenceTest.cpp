//===- TypeInferenceTest.cpp - ops built with inferred result types -------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/InitAllDialects.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Verifier.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fuser;

namespace {

class TypeInferenceTest : public ::testing::Test {
protected:
  TypeInferenceTest() : builder(&context) {
    DialectRegistry registry;
    ::fuser::registerAllDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
    module = ModuleOp::create(builder.getUnknownLoc());
    builder.setInsertionPointToEnd(module->getBody());
  }

  /// A function whose arguments have the given types; the builder is left
  /// inside its body.
  func::FuncOp makeFunction(TypeRange argumentTypes) {
    auto function = func::FuncOp::create(
        builder, builder.getUnknownLoc(), "f",
        builder.getFunctionType(argumentTypes, {}));
    builder.setInsertionPointToStart(function.addEntryBlock());
    return function;
  }

  RankedTensorType tensor(ArrayRef<int64_t> shape, Attribute encoding = {}) {
    return RankedTensorType::get(shape, builder.getF32Type(), encoding);
  }

  MLIRContext context;
  OpBuilder builder;
  OwningOpRef<ModuleOp> module;
};

TEST_F(TypeInferenceTest, MatmulAndLinearInferGlobalShapes) {
  auto mesh = MeshAttr::get(&context, {2});
  auto rowSharded = ShardingAttr::get(mesh, {{0}, {}});
  func::FuncOp function = makeFunction(
      {tensor({4, 8, 16}, rowSharded.withDims({{0}, {}, {}})),
       tensor({4, 16, 32}), tensor({64, 16}, rowSharded), tensor({64})});
  Location loc = builder.getUnknownLoc();
  Value lhs = function.getArgument(0), rhs = function.getArgument(1);
  auto matmul =
      MatmulOp::create(builder, loc, lhs, rhs, /*activation=*/nullptr);
  // Inferred types carry no sharding: propagation decides it.
  EXPECT_EQ(matmul.getType(), tensor({4, 8, 32}));

  auto linear = LinearOp::create(builder, loc, lhs, function.getArgument(2),
                                 function.getArgument(3),
                                 /*activation=*/nullptr);
  EXPECT_EQ(linear.getType(), tensor({4, 8, 64}));
  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(*module)));
}

TEST_F(TypeInferenceTest, ShardedResultTypeIsCompatible) {
  auto mesh = MeshAttr::get(&context, {2});
  auto sharded = ShardingAttr::get(mesh, {{0}, {}});
  func::FuncOp function = makeFunction({tensor({8, 4}, sharded)});
  Location loc = builder.getUnknownLoc();
  Value input = function.getArgument(0);
  // A result with another sharding but the same global type verifies.
  auto exp = ExpOp::create(builder, loc, tensor({8, 4}, sharded.withDims({{}, {}})),
                           input);
  func::ReturnOp::create(builder, loc);
  EXPECT_TRUE(succeeded(verify(*module)));
  // A wrong global shape does not.
  exp.getResult().setType(tensor({8, 8}));
  ScopedDiagnosticHandler silence(&context, [](Diagnostic &) {
    return success();
  });
  EXPECT_TRUE(failed(verify(*module)));
}

TEST_F(TypeInferenceTest, InferenceReportsBadOperands) {
  func::FuncOp function = makeFunction({tensor({4, 8}), tensor({4, 6})});
  SmallVector<Type> types;
  std::string message;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(AddOp::inferReturnTypes(
      &context, builder.getUnknownLoc(),
      ValueRange{function.getArgument(0), function.getArgument(1)}, nullptr,
      nullptr, {}, types)));
  EXPECT_EQ(message, "operand shapes differ at dim 1: 'lhs' has size 8 and "
                     "'rhs' has size 6; broadcasting is explicit "
                     "(fuser.broadcast, fuser.expand)");
}

TEST_F(TypeInferenceTest, InferenceRejectsNonTensorOperands) {
  auto memref = MemRefType::get({4}, builder.getF32Type());
  func::FuncOp function = makeFunction({memref, tensor({4})});
  SmallVector<Type> types;
  std::string message;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  EXPECT_TRUE(failed(MatmulOp::inferReturnTypes(
      &context, builder.getUnknownLoc(),
      ValueRange{function.getArgument(0), function.getArgument(1)}, nullptr,
      nullptr, {}, types)));
  EXPECT_EQ(message, "operand 'lhs' must be a ranked tensor, got 'memref<4xf32>'");
}

} // namespace
