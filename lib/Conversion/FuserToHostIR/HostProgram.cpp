//===- HostProgram.cpp - what a function's patterns share ----------------===//
//
// Every rank runs the same host program. When a function's values live on
// several meshes, an op runs only on the devices of its mesh. Consecutive
// ops stream-split into the same chunks on one mesh form a pipeline group,
// lowered together (StreamPipeline.cpp).
//
//===----------------------------------------------------------------------===//

#include "FuserToHostIRPatterns.h"

using namespace mlir;
using namespace mlir::fuser;

HostProgram::HostProgram(func::FuncOp function, hostir::Backend backend,
                         Pipelining pipelining)
    : backend(backend), pipelining(pipelining) {
  auto addMesh = [&](Value value) {
    if (ShardingAttr sharding = getSharding(value))
      llvm::append_range(devices, sharding.getMesh().getDeviceIds());
  };
  for (Value argument : function.getArguments())
    addMesh(argument);
  function.walk([&](Operation *op) {
    for (Value result : op->getResults())
      addMesh(result);
  });
  llvm::sort(devices);
  devices.erase(llvm::unique(devices), devices.end());

  PipelineGroup *open = nullptr;
  for (Operation &op : function.getBody().front()) {
    SmallVector<Value> split;
    std::optional<int64_t> chunks = getPipelineChunks(&op, split);
    if (!chunks) {
      open = nullptr;
      continue;
    }
    chunked.insert(split.begin(), split.end());
    if (!open || open->chunks != *chunks ||
        getExecutingMesh(&op) != getExecutingMesh(open->ops.front())) {
      open = &groups[&op];
      open->chunks = *chunks;
    }
    open->ops.push_back(&op);
    grouped.insert(&op);
  }

  OpBuilder builder = OpBuilder::atBlockBegin(&function.getBody().front());
  rank = hostir::RankOp::create(builder, function.getLoc(),
                                builder.getIndexType());
}

MeshAttr HostProgram::getExecutingMesh(Operation *op) const {
  if (isa<ViewOpInterface, SendRecvOp, AllSliceOp>(op) ||
      op->getNumResults() == 0)
    return {};
  // Broadcast and scatter start on a slice: their team is on the full mesh.
  Value value =
      isa<CommunicationOpInterface>(op) && !isa<BroadcastCommOp, ScatterOp>(op)
          ? op->getOperand(0)
          : op->getResult(0);
  ShardingAttr sharding = getSharding(value);
  return sharding ? sharding.getMesh() : MeshAttr();
}

bool HostProgram::hasDevicesOutside(MeshAttr mesh) const {
  SmallVector<int64_t> own = mesh.getDeviceIds();
  llvm::sort(own);
  return own != devices;
}

Pipelining HostProgram::getPipelining(const PipelineGroup &group) const {
  for (Operation *op : group.ops)
    if (auto plan = op->getAttrOfType<PipeliningAttr>(
            FuserDialect::getPipeliningAttrName()))
      return plan.getValue();
  return pipelining;
}

/// An op runs in stream chunks when its result is stream-split and every
/// operand holding the same data is split into the same chunks (a library
/// call's other operands are read whole). A communication qualifies when it
/// moves blocks of another dim than the stream dim; whether its chunk
/// buffers suit the library is checked once the whole pipeline is known.
std::optional<int64_t>
HostProgram::getPipelineChunks(Operation *op, SmallVectorImpl<Value> &split) {
  bool library = op->hasTrait<mlir::fuser::OpTrait::LibraryCall>();
  if (!library &&
      !isa<AllgatherOp, AllreduceOp, ReduceScatterOp, AllToAllOp>(op))
    return std::nullopt;
  Value result = op->getResult(0);
  ShardingAttr sharding = getSharding(result);
  if (!sharding || !sharding.getStreamDim())
    return std::nullopt;
  int64_t dim = *sharding.getStreamDim(), chunks = sharding.getStreamChunks();
  split.push_back(result);
  if (!library) {
    if (!cast<CommunicationOpInterface>(op).getChunkwiseStreamDim())
      return std::nullopt;
    split.push_back(op->getOperand(0));
    return chunks;
  }
  ShardingRule rule = cast<ShardingRuleOpInterface>(op).getShardingRule();
  if (rule.results.front()[dim].empty())
    return std::nullopt;
  int64_t factor = rule.results.front()[dim].front();
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    const DimFactors &dims = rule.operands[index];
    auto it = llvm::find_if(dims, [&](const SmallVector<int64_t, 2> &f) {
      return llvm::is_contained(f, factor);
    });
    if (it == dims.end())
      continue;
    ShardingAttr other = getSharding(operand);
    int64_t operandDim = it - dims.begin();
    if (it->front() != factor || !other || other.getStreamDim() != operandDim ||
        other.getStreamChunks() != chunks)
      return std::nullopt;
    split.push_back(operand);
  }
  return chunks;
}
