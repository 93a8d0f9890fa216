//===- ConvertShardToFuser.cpp - upstream shard annotations as fuser types ===//
//
// Programs annotated for upstream's `shard` dialect state their placements
// as ops beside the values (`shard.shard %x to %s`); fuser states them in
// the tensor types. The import plans every change first and rewrites only
// when the whole module imports, so a refused form leaves the module as it
// was, with every refusal reported.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Shard/IR/ShardDialect.h"
#include "mlir/Dialect/Shard/IR/ShardOps.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTSHARDTOFUSER
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using mlir::fuser::MeshAttr;
using mlir::fuser::ShardingAttr;

namespace {

/// A `shard.sharding` in fuser terms, before it meets a tensor: the mesh
/// and the axes of the leading dims it lists.
struct ImportedSharding {
  MeshAttr mesh;
  SmallVector<SmallVector<int64_t>> dimAxes;
};

/// Every change the import makes, decided before any is made.
class ShardImport {
public:
  explicit ShardImport(ModuleOp module) : module(module), symbols(module) {}

  /// Plans the import, reporting every form that has no fuser equivalent.
  LogicalResult plan();
  /// Rewrites the module as planned.
  void apply();

private:
  LogicalResult planShardingOp(shard::ShardingOp op);
  LogicalResult planResultAnnotation(shard::ShardOp op);
  LogicalResult planUserAnnotation(shard::ShardOp op);
  LogicalResult planSignature(func::FuncOp function);
  LogicalResult importGrid(shard::GridOp grid);
  /// The type `op` gives its operand: the global tensor with the sharding.
  FailureOr<RankedTensorType> annotatedType(shard::ShardOp op);
  /// The value that stands for `value` once annotations are gone.
  Value replacement(Value value) const;
  Type plannedType(Value value) const;

  ModuleOp module;
  SymbolTable symbols;
  /// The grids that import, by grid op.
  DenseMap<Operation *, MeshAttr> meshes;
  DenseMap<Operation *, ImportedSharding> shardings;
  /// Values given a sharding by a `shard.shard` without annotate_for_users.
  DenseMap<Value, RankedTensorType> annotatedValues;
  /// `shard.shard ... annotate_for_users` ops, with the type their users
  /// see.
  DenseMap<Operation *, RankedTensorType> userTypes;
  DenseMap<Operation *, FunctionType> signatures;
  /// Every shard op, in program order.
  SmallVector<Operation *> shardOps;
};

} // namespace

static bool isFunctionArgument(BlockArgument argument) {
  Block *block = argument.getOwner();
  return block->isEntryBlock() && isa<func::FuncOp>(block->getParentOp());
}

LogicalResult ShardImport::importGrid(shard::GridOp grid) {
  for (auto [axis, size] : llvm::enumerate(grid.getShape()))
    if (ShapedType::isDynamic(size))
      return grid.emitError("grid @")
             << grid.getSymName() << " has a dynamic size along axis " << axis
             << ": a #fuser.mesh needs the number of devices";
  MeshAttr mesh =
      MeshAttr::getChecked([&] { return grid.emitError(); }, grid.getContext(),
                           grid.getShape(), ArrayRef<int64_t>{});
  if (!mesh)
    return failure();
  meshes[grid] = mesh;
  return success();
}

LogicalResult ShardImport::planShardingOp(shard::ShardingOp op) {
  auto grid = symbols.lookup<shard::GridOp>(op.getGrid());
  if (!grid)
    return op.emitError("sharding refers to @")
           << op.getGrid() << ", which is no shard.grid of the module";
  if (!op.getStaticHaloSizes().empty() || !op.getDynamicHaloSizes().empty())
    return op.emitError("halo_sizes have no fuser form: every shard of a "
                        "fuser tensor holds only its own block");
  if (!op.getStaticShardedDimsOffsets().empty() ||
      !op.getDynamicShardedDimsOffsets().empty())
    return op.emitError("sharded_dims_offsets have no fuser form: the "
                        "shards of a fuser tensor dim are equal blocks");
  for (Operation *user : op->getUsers())
    if (!isa<shard::ShardOp>(user))
      return op.emitError("sharding used by '")
             << user->getName() << "', which the import cannot rewrite";
  // A refused grid has been reported where it is defined.
  MeshAttr mesh = meshes.lookup(grid);
  if (!mesh)
    return failure();
  ImportedSharding &sharding = shardings[op];
  sharding.mesh = mesh;
  for (shard::GridAxesAttr axes : op.getSplitAxes().getAxes())
    sharding.dimAxes.emplace_back(axes.asArrayRef().begin(),
                                  axes.asArrayRef().end());
  return success();
}

FailureOr<RankedTensorType> ShardImport::annotatedType(shard::ShardOp op) {
  auto shardingOp = op.getSharding().getDefiningOp<shard::ShardingOp>();
  if (!shardingOp)
    return op.emitError("the sharding is not defined by shard.sharding");
  auto sharding = shardings.find(shardingOp);
  // A refused sharding op has been reported where it is defined.
  if (sharding == shardings.end())
    return failure();
  RankedTensorType type = op.getSrc().getType();
  if (type.getEncoding() && !isa<ShardingAttr>(type.getEncoding()))
    return op.emitError("the annotated tensor already has encoding ")
           << type.getEncoding();
  SmallVector<SmallVector<int64_t>> dimAxes = sharding->second.dimAxes;
  if (static_cast<int64_t>(dimAxes.size()) > type.getRank())
    return op.emitError("split_axes lists ")
           << dimAxes.size() << " dims for a tensor of rank " << type.getRank();
  dimAxes.resize(type.getRank());
  auto emitError = [&] { return op.emitError(); };
  ShardingAttr encoding =
      ShardingAttr::getChecked(emitError, sharding->second.mesh, dimAxes);
  if (!encoding)
    return failure();
  RankedTensorType annotated = RankedTensorType::getChecked(
      emitError, type.getShape(), type.getElementType(), encoding);
  if (!annotated)
    return failure();
  return annotated;
}

Value ShardImport::replacement(Value value) const {
  // Result annotations stand for the value they annotate; a user
  // annotation stays a value of its own (a fuser.set or its operand).
  while (auto annotation = value.getDefiningOp<shard::ShardOp>()) {
    if (annotation.getAnnotateForUsers())
      break;
    value = annotation.getSrc();
  }
  return value;
}

Type ShardImport::plannedType(Value value) const {
  if (auto annotation = value.getDefiningOp<shard::ShardOp>();
      annotation && annotation.getAnnotateForUsers())
    return userTypes.lookup(annotation);
  value = replacement(value);
  if (RankedTensorType annotated = annotatedValues.lookup(value))
    return annotated;
  return value.getType();
}

LogicalResult ShardImport::planResultAnnotation(shard::ShardOp op) {
  Value annotatedValue = replacement(op.getSrc());
  if (annotatedValue.getDefiningOp<shard::ShardOp>())
    return op.emitError("annotates the result of a shard.shard with "
                        "annotate_for_users; annotate its operand instead");
  if (auto argument = dyn_cast<BlockArgument>(annotatedValue);
      argument && !isFunctionArgument(argument))
    return op.emitError("annotates a block argument that is not a function "
                        "argument: its type is tied to the region's op");
  FailureOr<RankedTensorType> type = annotatedType(op);
  if (failed(type))
    return failure();
  Type current = plannedType(annotatedValue);
  if (cast<RankedTensorType>(current).getEncoding() && current != *type)
    return op.emitError("gives a value of type ")
           << current << " a second, different sharding: " << *type;
  annotatedValues[annotatedValue] = *type;
  return success();
}

LogicalResult ShardImport::planUserAnnotation(shard::ShardOp op) {
  if (auto user = op.getSrc().getDefiningOp<shard::ShardOp>();
      user && user.getAnnotateForUsers())
    return op.emitError("annotates the result of a shard.shard with "
                        "annotate_for_users; annotate its operand instead");
  FailureOr<RankedTensorType> type = annotatedType(op);
  if (failed(type))
    return failure();
  userTypes[op] = *type;
  return success();
}

LogicalResult ShardImport::planSignature(func::FuncOp function) {
  SmallVector<Type> inputs = llvm::map_to_vector(
      function.getArguments(), [&](Value arg) { return plannedType(arg); });
  SmallVector<Type> results(function.getResultTypes());
  bool firstReturn = true;
  WalkResult walk = function.walk([&](func::ReturnOp ret) {
    auto types = llvm::map_to_vector(
        ret.getOperands(), [&](Value operand) { return plannedType(operand); });
    if (!firstReturn && types != results) {
      ret.emitError("returns other shardings than the function's first "
                    "return; annotate the values every return returns");
      return WalkResult::interrupt();
    }
    results = std::move(types);
    firstReturn = false;
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  auto signature = FunctionType::get(function.getContext(), inputs, results);
  if (signature == function.getFunctionType())
    return success();
  // Calls would keep passing and receiving the unannotated types.
  if (std::optional<SymbolTable::UseRange> uses =
          SymbolTable::getSymbolUses(function, module);
      uses && !uses->empty())
    return uses->begin()->getUser()->emitError("calls @")
           << function.getSymName()
           << ", whose signature the import changes; inline it first";
  signatures[function] = signature;
  return success();
}

LogicalResult ShardImport::plan() {
  SmallVector<shard::ShardOp> resultAnnotations, userAnnotations;
  bool refused = false;
  // Grids first: shardings refer to them wherever they are defined.
  for (auto grid : module.getOps<shard::GridOp>())
    refused |= failed(importGrid(grid));
  module.walk([&](Operation *op) {
    if (!isa<shard::ShardDialect>(op->getDialect()))
      return;
    shardOps.push_back(op);
    if (isa<shard::GridOp>(op))
      return;
    if (auto sharding = dyn_cast<shard::ShardingOp>(op))
      refused |= failed(planShardingOp(sharding));
    else if (auto annotation = dyn_cast<shard::ShardOp>(op))
      (annotation.getAnnotateForUsers() ? userAnnotations : resultAnnotations)
          .push_back(annotation);
    else
      refused |= failed(op->emitError("'")
                        << op->getName()
                        << "' has no fuser form; only shard.grid, "
                           "shard.sharding and shard.shard are imported");
  });
  // Result annotations first: a user annotation compares with them.
  for (shard::ShardOp op : resultAnnotations)
    refused |= failed(planResultAnnotation(op));
  for (shard::ShardOp op : userAnnotations)
    refused |= failed(planUserAnnotation(op));
  if (refused)
    return failure();
  for (auto function : module.getOps<func::FuncOp>())
    if (!function.isExternal())
      refused |= failed(planSignature(function));
  return failure(refused);
}

void ShardImport::apply() {
  for (auto [value, type] : annotatedValues)
    value.setType(type);
  for (Operation *op : shardOps) {
    auto annotation = dyn_cast<shard::ShardOp>(op);
    if (!annotation)
      continue;
    Value value = replacement(annotation.getSrc());
    RankedTensorType userType = userTypes.lookup(annotation);
    if (userType && userType != value.getType()) {
      OpBuilder builder(annotation);
      value = mlir::fuser::SetOp::create(builder, annotation.getLoc(), userType,
                                         value);
    }
    annotation.getResult().replaceAllUsesWith(value);
  }
  // Later ops first: only earlier shard ops define what a shard op uses.
  for (Operation *op : llvm::reverse(shardOps))
    op->erase();
  for (auto [function, signature] : signatures)
    cast<func::FuncOp>(function).setFunctionType(signature);
}

namespace {
struct ConvertShardToFuserPass
    : public mlir::fuser::impl::ConvertShardToFuserBase<
          ConvertShardToFuserPass> {
  void runOnOperation() override {
    ShardImport import(getOperation());
    if (failed(import.plan()))
      return signalPassFailure();
    import.apply();
  }
};
} // namespace
