//===- LowerFuserToHostIR.cpp - segmented functions to host programs ------===//

#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_LOWERFUSERTOHOSTIR
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// Builds the host program of one segmented function.
class HostLowering {
public:
  HostLowering(func::FuncOp function, hostir::Backend backend)
      : function(function), backend(backend), builder(function) {}
  LogicalResult run();

private:
  LogicalResult lower(Operation *op);
  LogicalResult lowerCommunication(Operation *op);
  template <typename HostOp, typename... Attributes>
  LogicalResult post(Operation *op, MeshAttr mesh, int64_t axis,
                     Attributes... attributes);
  LogicalResult lowerView(Operation *op);

  Value bufferOf(Value tensor) const { return buffers.lookup(tensor); }
  /// A fresh device buffer for the local piece of `tensor`.
  Value allocate(Location loc, Value tensor) {
    return hostir::AllocateOp::create(
        builder, loc,
        getLocalBufferType(cast<RankedTensorType>(tensor.getType())),
        ValueRange(), hostir::MemoryKind::Device, /*zeroed=*/false);
  }
  Value index(Location loc, int64_t value) {
    return arith::ConstantIndexOp::create(builder, loc, value);
  }
  /// The executing rank's team along `axis` of `mesh`.
  Value team(Location loc, MeshAttr mesh, int64_t axis);

  func::FuncOp function;
  hostir::Backend backend;
  OpBuilder builder;
  IRMapping buffers;
  Value rank;
};
} // namespace

Value HostLowering::team(Location loc, MeshAttr mesh, int64_t axis) {
  if (!rank) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(builder.getInsertionBlock());
    rank = hostir::RankOp::create(builder, loc, builder.getIndexType());
  }
  auto type = hostir::TeamType::get(builder.getContext(), mesh.getAxisSize(axis));
  return hostir::TeamOp::create(builder, loc, type, rank, mesh,
                                ArrayRef<int64_t>{axis});
}

/// Posts `HostOp` from the operand's buffer into a fresh output buffer on
/// the rank's team along `axis`, waits for it, and maps the result.
template <typename HostOp, typename... Attributes>
LogicalResult HostLowering::post(Operation *op, MeshAttr mesh, int64_t axis,
                                 Attributes... attributes) {
  Location loc = op->getLoc();
  Value result = op->getResult(0);
  Value output = allocate(loc, result);
  Value work = HostOp::create(builder, loc,
                              hostir::WorkType::get(builder.getContext()),
                              bufferOf(op->getOperand(0)), output,
                              team(loc, mesh, axis), backend, attributes...);
  hostir::WaitOp::create(builder, loc, work);
  buffers.map(result, output);
  return success();
}

LogicalResult HostLowering::lowerCommunication(Operation *op) {
  Location loc = op->getLoc();
  Value input = bufferOf(op->getOperand(0));
  Value result = op->getResult(0);
  ShardingAttr source = getSharding(op->getOperand(0));
  // Broadcast and scatter start on a slice: their team is on the full mesh.
  MeshAttr mesh = isa<BroadcastCommOp, ScatterOp>(op)
                      ? getSharding(result).getMesh()
                      : source.getMesh();
  ReductionKind kind = source.getPartialKind();
  return TypeSwitch<Operation *, LogicalResult>(op)
      .Case([&](AllgatherOp comm) {
        return post<hostir::AllgatherOp>(op, mesh, comm.getAxis());
      })
      .Case([&](AllreduceOp comm) {
        return post<hostir::AllreduceOp>(op, mesh, comm.getAxis(), kind);
      })
      .Case([&](ReduceScatterOp comm) {
        return post<hostir::ReduceScatterOp>(op, mesh, comm.getAxis(), kind);
      })
      .Case([&](ReduceOp comm) {
        return post<hostir::ReduceOp>(op, mesh, comm.getAxis(), kind,
                                      comm.getRoot());
      })
      .Case([&](BroadcastCommOp comm) {
        return post<hostir::BroadcastOp>(op, mesh, comm.getAxis(),
                                         comm.getRoot());
      })
      .Case([&](GatherOp comm) {
        return post<hostir::GatherOp>(op, mesh, comm.getAxis(), comm.getRoot());
      })
      .Case([&](ScatterOp comm) {
        return post<hostir::ScatterOp>(op, mesh, comm.getAxis(),
                                       comm.getRoot());
      })
      .Case([&](AllToAllOp comm) {
        return post<hostir::AllToAllOp>(op, mesh, comm.getAxis());
      })
      .Case([&](AllSliceOp comm) -> LogicalResult {
        // No data moves: each rank keeps the block its team index selects.
        int64_t axis = comm.getAxis();
        int64_t dim = *getSharding(result).getDimSplitBy(axis);
        Value teamValue = team(loc, mesh, axis);
        Value position = hostir::TeamIndexOp::create(
            builder, loc, builder.getIndexType(), teamValue);
        MemRefType source = cast<MemRefType>(input.getType());
        SmallVector<int64_t> chunkShape(source.getShape());
        chunkShape[dim] /= mesh.getAxisSize(axis);
        SmallVector<int64_t> strides;
        int64_t offset;
        if (failed(source.getStridesAndOffset(strides, offset)))
          return comm.emitError("cannot slice a buffer without strides");
        auto view = MemRefType::get(
            chunkShape, source.getElementType(),
            StridedLayoutAttr::get(builder.getContext(), ShapedType::kDynamic,
                                   strides));
        buffers.map(result, hostir::AliasSelectOp::create(
                                builder, loc, view, input, position,
                                static_cast<uint64_t>(dim),
                                static_cast<uint64_t>(mesh.getAxisSize(axis))));
        return success();
      })
      .Default([&](Operation *other) {
        return other->emitError("lowering of this communication to host IR is "
                                "not implemented yet");
      });
}

LogicalResult HostLowering::lowerView(Operation *op) {
  Location loc = op->getLoc();
  Value source = bufferOf(op->getOperand(0));
  Value result = op->getResult(0);
  MemRefType wanted = getLocalBufferType(cast<RankedTensorType>(result.getType()));
  if (source.getType() == wanted) {
    buffers.map(result, source);
    return success();
  }
  auto sourceType = cast<MemRefType>(source.getType());
  if (auto permute = dyn_cast<PermuteOp>(op)) {
    auto map = AffineMap::getPermutationMap(
        llvm::map_to_vector(permute.getPerm(),
                            [](int64_t d) { return static_cast<unsigned>(d); }),
        builder.getContext());
    Value view = memref::TransposeOp::create(builder, loc, source,
                                             AffineMapAttr::get(map));
    if (view.getType() == wanted) {
      buffers.map(result, view);
      return success();
    }
    view.getDefiningOp()->erase();
  } else if (sourceType.getLayout().isIdentity() &&
             wanted.getLayout().isIdentity() && wanted.hasStaticShape()) {
    SmallVector<int64_t> strides(wanted.getRank(), 1);
    for (int64_t dim = wanted.getRank() - 2; dim >= 0; --dim)
      strides[dim] = strides[dim + 1] * wanted.getDimSize(dim + 1);
    Value view = memref::ReinterpretCastOp::create(
        builder, loc, wanted, source, 0, wanted.getShape(), strides);
    buffers.map(result, view);
    return success();
  }
  return op->emitError("lowering of this view to a buffer view is not "
                       "implemented yet");
}

LogicalResult HostLowering::lower(Operation *op) {
  Location loc = op->getLoc();
  if (auto kernel = dyn_cast<KernelOp>(op)) {
    SmallVector<Value> arguments = llvm::map_to_vector(
        kernel.getInputs(), [&](Value input) { return bufferOf(input); });
    int64_t elements = 1;
    for (Value output : kernel.getOutputs()) {
      Value buffer = allocate(loc, output);
      buffers.map(output, buffer);
      arguments.push_back(buffer);
      auto type = cast<MemRefType>(buffer.getType());
      if (type.hasStaticShape())
        elements = std::max(elements, type.getNumElements());
    }
    // One thread per element of the largest output, in blocks of 128; the
    // code generator may tile differently within that grid.
    constexpr int64_t threadsPerBlock = 128;
    Value one = index(loc, 1);
    hostir::LaunchOp::create(
        builder, loc, kernel.getKernel(),
        index(loc, (elements + threadsPerBlock - 1) / threadsPerBlock), one,
        one, index(loc, threadsPerBlock), one, one, arguments, Value());
    return success();
  }
  if (auto matmul = dyn_cast<MatmulOp>(op)) {
    Value out = allocate(loc, matmul.getResult());
    hostir::MatmulOp::create(builder, loc, bufferOf(matmul.getLhs()),
                             bufferOf(matmul.getRhs()), out);
    buffers.map(matmul.getResult(), out);
    return success();
  }
  if (auto linear = dyn_cast<LinearOp>(op)) {
    Value out = allocate(loc, linear.getResult());
    Value bias = linear.getBias() ? bufferOf(linear.getBias()) : Value();
    hostir::LinearOp::create(builder, loc, bufferOf(linear.getInput()),
                             bufferOf(linear.getWeight()), bias, out);
    buffers.map(linear.getResult(), out);
    return success();
  }
  if (isa<CommunicationOpInterface>(op))
    return lowerCommunication(op);
  if (isa<ViewOpInterface>(op))
    return lowerView(op);
  if (auto ret = dyn_cast<func::ReturnOp>(op)) {
    func::ReturnOp::create(
        builder, loc,
        llvm::map_to_vector(ret.getOperands(),
                            [&](Value value) { return bufferOf(value); }));
    return success();
  }
  return op->emitError("cannot lower this op to host IR: segment the "
                       "function first (fuser-segment)");
}

LogicalResult HostLowering::run() {
  auto localTypes = [](TypeRange types) {
    return llvm::map_to_vector(types, [](Type type) -> Type {
      if (auto tensor = dyn_cast<RankedTensorType>(type))
        return getLocalBufferType(tensor);
      return type;
    });
  };
  auto host = func::FuncOp::create(
      builder, function.getLoc(), (function.getSymName() + ".host").str(),
      builder.getFunctionType(localTypes(function.getArgumentTypes()),
                              localTypes(function.getResultTypes())));
  Block *entry = host.addEntryBlock();
  for (auto [tensor, buffer] :
       llvm::zip(function.getArguments(), entry->getArguments()))
    buffers.map(tensor, buffer);
  builder.setInsertionPointToStart(entry);
  for (Operation &op : function.getBody().front())
    if (failed(lower(&op))) {
      host.erase();
      return failure();
    }
  StringAttr name = function.getSymNameAttr();
  function.erase();
  host.setSymNameAttr(name);
  return success();
}

namespace {
struct LowerFuserToHostIRPass
    : public mlir::fuser::impl::LowerFuserToHostIRBase<LowerFuserToHostIRPass> {
  using LowerFuserToHostIRBase::LowerFuserToHostIRBase;

  void runOnOperation() override {
    std::optional<hostir::Backend> chosen = hostir::symbolizeBackend(backend);
    if (!chosen) {
      getOperation().emitError("backend must be nccl, mpi or cuda_ipc, got '")
          << backend << "'";
      return signalPassFailure();
    }
    SmallVector<func::FuncOp> functions(getOperation().getOps<func::FuncOp>());
    for (func::FuncOp function : functions)
      if (!function.isExternal() &&
          failed(HostLowering(function, *chosen).run()))
        return signalPassFailure();
  }
};
} // namespace
