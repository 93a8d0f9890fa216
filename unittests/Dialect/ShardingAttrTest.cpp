//===- ShardingAttrTest.cpp - mesh and sharding attribute helpers ---------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/InitAllDialects.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/MLIRContext.h"

#include <gtest/gtest.h>

using namespace mlir;
using namespace mlir::fuser;

namespace {

class ShardingAttrTest : public ::testing::Test {
protected:
  ShardingAttrTest() {
    DialectRegistry registry;
    ::fuser::registerFuserDialects(registry);
    context.appendDialectRegistry(registry);
    context.loadAllAvailableDialects();
  }

  template <typename AttrT> AttrT parse(StringRef text) {
    return dyn_cast_or_null<AttrT>(parseAttribute(text, &context));
  }

  std::string print(Attribute attr) {
    std::string text;
    llvm::raw_string_ostream os(text);
    attr.print(os);
    return text;
  }

  MLIRContext context;
};

TEST_F(ShardingAttrTest, MeshDefaultsToRowMajorDeviceIds) {
  auto mesh = parse<MeshAttr>("#fuser.mesh<[2, 4]>");
  ASSERT_TRUE(mesh);
  EXPECT_EQ(mesh.getNumDevices(), 8);
  EXPECT_EQ(mesh.getDeviceIds(), (SmallVector<int64_t>{0, 1, 2, 3, 4, 5, 6, 7}));
  // An explicit identity order is the same mesh.
  EXPECT_EQ(parse<MeshAttr>("#fuser.mesh<[2, 4], devices = [0, 1, 2, 3, 4, 5, "
                            "6, 7]>"),
            mesh);
}

TEST_F(ShardingAttrTest, MeshSliceKeepsAxisNumbering) {
  auto mesh = parse<MeshAttr>("#fuser.mesh<[2, 2], devices = [0, 2, 1, 3]>");
  ASSERT_TRUE(mesh);
  MeshAttr row = mesh.getSlice(0, 1);
  EXPECT_EQ(row.getShape(), (ArrayRef<int64_t>{1, 2}));
  EXPECT_EQ(row.getDeviceIds(), (SmallVector<int64_t>{1, 3}));
  MeshAttr column = mesh.getSlice(1, 0);
  EXPECT_EQ(column.getDeviceIds(), (SmallVector<int64_t>{0, 1}));
  EXPECT_EQ(print(column), "#fuser.mesh<[2, 1]>");
}

TEST_F(ShardingAttrTest, MeshOfDevicesIsCanonical) {
  MeshAttr identity = MeshAttr::getOfDevices(&context, {3}, {0, 1, 2});
  EXPECT_EQ(identity, MeshAttr::get(&context, {3}));
  EXPECT_EQ(print(MeshAttr::getOfDevices(&context, {2}, {2, 3})),
            "#fuser.mesh<[2], devices = [2, 3]>");
}

TEST_F(ShardingAttrTest, AxisMovesBetweenDims) {
  auto sharding = parse<ShardingAttr>(
      "#fuser.sharding<#fuser.mesh<[2, 2]>, [[0, 1], []], stream = {1 : 2}>");
  ASSERT_TRUE(sharding);
  // Taken off dim 0 and appended to dim 1; the stream split stays.
  EXPECT_EQ(print(sharding.withAxisOnDim(1, 1, 1)),
            "#fuser.sharding<#fuser.mesh<[2, 2]>, [[0], [1]], stream = {1 : 2}>");
  // Inserted in front of the axes already there.
  EXPECT_EQ(print(sharding.withAxisOnDim(1, 0, 0)),
            "#fuser.sharding<#fuser.mesh<[2, 2]>, [[1, 0], []], stream = {1 : 2}>");
  EXPECT_EQ(print(sharding.withoutAxis(0)),
            "#fuser.sharding<#fuser.mesh<[2, 2]>, [[1], []], stream = {1 : 2}>");
}

TEST_F(ShardingAttrTest, LocalShapeAndQueries) {
  auto sharding = parse<ShardingAttr>(
      "#fuser.sharding<#fuser.mesh<[2, 4]>, [[0, 1], [], []], "
      "partial = {}, stream = {2 : 4}>");
  ASSERT_TRUE(sharding);
  EXPECT_EQ(sharding.getLocalShape({16, 3, 8}),
            (SmallVector<int64_t>{2, 3, 8}));
  EXPECT_EQ(sharding.getDimSplitBy(1), std::optional<int64_t>(0));
  EXPECT_EQ(sharding.getDimSplitBy(2), std::nullopt);
  EXPECT_EQ(sharding.getNumShards(0), 8);
  EXPECT_EQ(sharding.getNumShards(1), 1);
  EXPECT_FALSE(sharding.isPartial());
  EXPECT_EQ(sharding.getStreamDim(), std::optional<int64_t>(2));
}

TEST_F(ShardingAttrTest, DerivedShardingsAreCanonical) {
  auto mesh = MeshAttr::get(&context, {2, 2});
  ShardingAttr sharding =
      ShardingAttr::get(mesh, {{0}, {}}).withLayout({0, 1}, {true, true});
  // Identity order and all-true contiguity are the defaults, not stored.
  EXPECT_FALSE(sharding.statesLayout());
  EXPECT_EQ(sharding, parse<ShardingAttr>(
                          "#fuser.sharding<#fuser.mesh<[2, 2]>, [[0], []]>"));
  EXPECT_EQ(sharding.withLayout({1, 0}, {true, true}).getOrder(),
            ArrayRef<int64_t>({1, 0}));

  // Rebuilding from the stored fields gives back the same attribute.
  EXPECT_EQ(sharding.withDims({{0}, {}}), sharding);
  ShardingAttr partial = sharding.withPartial({1}, ReductionKind::Max);
  EXPECT_TRUE(partial.isPartialOver(1));
  EXPECT_EQ(print(partial),
            "#fuser.sharding<#fuser.mesh<[2, 2]>, [[0], []], partial = {1 : max}>");
  EXPECT_FALSE(partial.hasSamePlacement(sharding));
  EXPECT_EQ(partial.withPartial({}, ReductionKind::Sum), sharding);
  EXPECT_EQ(sharding.withStream(1, 2, /*chunked=*/true)
                .withStream(std::nullopt, 0, /*chunked=*/false),
            sharding);

  ShardingAttr moved = sharding.withDims({{}, {0}});
  EXPECT_EQ(moved.getDimSplitBy(0), std::optional<int64_t>(1));
}

TEST_F(ShardingAttrTest, CheckedBuilderVerifies) {
  std::string message;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&context)); };
  auto mesh = MeshAttr::get(&context, {2, 2});
  // Partial axes are sorted whichever way they are given.
  ShardingAttr sharding = ShardingAttr::getChecked(
      emitError, mesh, {{}, {}},
      PartialAttr::get(&context, {1, 0}, ReductionKind::Max));
  ASSERT_TRUE(sharding);
  EXPECT_EQ(print(sharding), "#fuser.sharding<#fuser.mesh<[2, 2]>, [[], []], "
                             "partial = {0 : max, 1 : max}>");
  EXPECT_FALSE(ShardingAttr::getChecked(emitError, mesh, {{1}, {1}}));
  EXPECT_EQ(message, "mesh axis 1 is used twice: by dim 0 and by dim 1");
  EXPECT_FALSE(ShardingAttr::getChecked(emitError, MeshAttr(), {{}}));
  EXPECT_EQ(message, "sharding needs a #fuser.mesh");
}

TEST_F(ShardingAttrTest, PlacementIgnoresStreamAndLayout) {
  auto plain = parse<ShardingAttr>("#fuser.sharding<#fuser.mesh<[2]>, [[0], []]>");
  auto laidOut = parse<ShardingAttr>(
      "#fuser.sharding<#fuser.mesh<[2]>, [[0], []], stream = {1 : 2}, "
      "order = [1, 0], contiguity = [true, false]>");
  ASSERT_TRUE(plain && laidOut);
  EXPECT_NE(plain, laidOut);
  EXPECT_TRUE(plain.hasSamePlacement(laidOut));
}

TEST_F(ShardingAttrTest, InvalidShardingIsRejected) {
  // Parse failures are reported through the context's diagnostic handler;
  // silence them and check only that parsing fails.
  ScopedDiagnosticHandler silence(&context, [](Diagnostic &) {
    return success();
  });
  EXPECT_FALSE(parse<ShardingAttr>(
      "#fuser.sharding<#fuser.mesh<[2]>, [[0], [0]]>"));
  EXPECT_FALSE(parse<ShardingAttr>(
      "#fuser.sharding<#fuser.mesh<[2]>, [[1]]>"));
  EXPECT_FALSE(parse<MeshAttr>("#fuser.mesh<[2], devices = [1, 1]>"));
}

// Rules that the parser's canonicalization makes unreachable from text but
// that C++ callers of getChecked can still break.
TEST_F(ShardingAttrTest, NonCanonicalSpellingsAreRejectedInCpp) {
  std::string message;
  ScopedDiagnosticHandler capture(&context, [&](Diagnostic &diag) {
    message = diag.str();
    return success();
  });
  auto emitError = [&] { return mlir::emitError(UnknownLoc::get(&context)); };
  EXPECT_FALSE(MeshAttr::getChecked(emitError, &context, {2}, {0, 1}));
  EXPECT_EQ(message, "explicit device ids in the default order; omit them");

  auto mesh = MeshAttr::get(&context, {2, 2});
  SmallVector<DenseI64ArrayAttr> replicated(
      2, DenseI64ArrayAttr::get(&context, {}));
  EXPECT_FALSE(ShardingAttr::getChecked(emitError, &context, MeshAttr(),
                                        replicated, {}, {}, {}));
  EXPECT_EQ(message, "sharding needs a #fuser.mesh");
  EXPECT_FALSE(
      PartialAttr::getChecked(emitError, &context, {}, ReductionKind::Max));
  EXPECT_EQ(message, "a partial state needs at least one mesh axis");
  EXPECT_FALSE(LayoutAttr::getChecked(emitError, &context, {}, {}));
  EXPECT_EQ(message, "a layout stating neither order nor contiguity; omit it");
  EXPECT_FALSE(ShardingAttr::getChecked(emitError, &context, mesh, replicated,
                                        {}, {},
                                        LayoutAttr::get(&context, {0, 1}, {})));
  EXPECT_EQ(message, "the identity order is the default; omit it");
  EXPECT_FALSE(
      ShardingAttr::getChecked(emitError, &context, mesh, replicated, {}, {},
                               LayoutAttr::get(&context, {}, {true, true})));
  EXPECT_EQ(message, "all-true contiguity is the default; omit it");
}

} // namespace
