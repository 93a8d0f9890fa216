//===- ReportCommunication.cpp - bytes each rank communicates -------------===//
//
// Counts, for every fuser.comm op of a decomposed program, the bytes a rank
// of its team sends and receives, from the local shapes of its operand and
// result. The counts are the least any algorithm moves for that
// communication without reducing inside the network (the convention is
// docs/communication-volume.md), so two programs compare by what they must
// move, not by how a library moves it.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/Fuser/Transforms/Passes.h"
#include "fuser/Support/MeshMath.h"

#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Support/FileUtilities.h"

#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

#include <map>

namespace mlir::fuser {
#define GEN_PASS_DEF_REPORTCOMMUNICATION
#include "fuser/Dialect/Fuser/Transforms/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::fuser;

namespace {
/// What one communication moves, per rank of its team. Bytes are absent
/// when a local shape is only known at run time.
struct Volume {
  Operation *op;
  StringRef kind;
  std::optional<int64_t> axis;
  int64_t teamSize;
  std::optional<int64_t> inputBytes, resultBytes, sentBytes, receivedBytes;
};

/// The communications of one function and their sum.
struct FunctionVolume {
  func::FuncOp function;
  SmallVector<Volume> communications;
  int64_t sentBytes = 0, receivedBytes = 0;
  int64_t uncounted = 0;
};
} // namespace

/// Bytes of the local piece of `value` on a rank of its mesh.
static std::optional<int64_t> localBytes(Value value,
                                         const DataLayout &layout) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<int64_t> shape(type.getShape());
  if (ShardingAttr sharding = getSharding(type))
    shape = sharding.getLocalShape(type.getShape());
  if (llvm::any_of(shape, ShapedType::isDynamic))
    return std::nullopt;
  return ShapedType::getNumElements(shape) *
         static_cast<int64_t>(layout.getTypeSize(type.getElementType()));
}

/// Whether `op` is a send_recv between meshes of different shapes, which
/// moves blocks of shards point to point.
static bool movesShardBlocks(Operation *op) {
  auto transfer = dyn_cast<SendRecvOp>(op);
  return transfer && getSharding(transfer.getInput()).getMesh().getShape() !=
                         getSharding(transfer.getResult()).getMesh().getShape();
}

/// The mesh axis `op` acts on and the size of its team: the axis of the
/// larger of the operand's and the result's meshes, since gather, reduce,
/// scatter and broadcast have the slice of the other mesh at one index of
/// it on one side. Only send_recv has no axis: it pairs one rank of each
/// mesh, or, between meshes of different shapes, runs on all their devices.
static std::pair<std::optional<int64_t>, int64_t> teamOf(Operation *op) {
  auto axis = op->getAttrOfType<IntegerAttr>("axis");
  if (movesShardBlocks(op))
    return {std::nullopt,
            static_cast<int64_t>(
                cast<SendRecvOp>(op).getDevicesOfBothMeshes().size())};
  if (!axis)
    return {std::nullopt, 2};
  int64_t size = 1;
  for (Value value : {op->getOperand(0), Value(op->getResult(0))})
    if (ShardingAttr sharding = getSharding(value))
      size = std::max(size, sharding.getMesh().getAxisSize(axis.getInt()));
  return {axis.getInt(), size};
}

/// The most bytes a device sends and the most it receives when a
/// send_recv moves blocks of shards between meshes of different shapes
/// (blocks it holds itself are copied, not sent).
static void countShardBlocks(Volume &volume, SendRecvOp transfer) {
  auto type = cast<RankedTensorType>(transfer.getInput().getType());
  ShardingAttr from = getSharding(transfer.getInput());
  ShardingAttr to = getSharding(transfer.getResult());
  std::map<int64_t, int64_t> sent, received;
  for (const ::fuser::Transfer &block :
       ::fuser::planTransfers({type.getShape().begin(), type.getShape().end()},
                              from.getMesh().toMesh(), from.toDimAxes(),
                              to.getMesh().toMesh(), to.toDimAxes())) {
    if (block.source == block.target)
      continue;
    int64_t elements = ShapedType::getNumElements(block.sizes);
    sent[block.source] += elements;
    received[block.target] += elements;
  }
  auto most = [](const std::map<int64_t, int64_t> &elements) {
    int64_t largest = 0;
    for (auto [device, count] : elements)
      largest = std::max(largest, count);
    return largest;
  };
  int64_t elementBytes =
      DataLayout::closest(transfer).getTypeSize(type.getElementType());
  volume.sentBytes = most(sent) * elementBytes;
  volume.receivedBytes = most(received) * elementBytes;
}

/// Fills in what a rank sends and receives, from its operand piece of
/// `input` bytes and result piece of `result` bytes, over a team of `n`.
/// Where ranks differ (rooted communications), each direction is the most
/// any rank of the team moves. Fails for a communication the convention
/// does not cover.
static LogicalResult countBytes(Volume &volume, int64_t input,
                                int64_t result) {
  int64_t n = volume.teamSize;
  auto both = [&](int64_t bytes) {
    volume.sentBytes = volume.receivedBytes = bytes;
  };
  llvm::TypeSwitch<Operation *>(volume.op)
      // Every rank receives the n-1 pieces it lacks and passes its own on.
      .Case([&](AllgatherOp) { both((n - 1) * input); })
      // Every rank receives the n-1 contributions to its block and sends
      // its contributions to the n-1 other blocks.
      .Case([&](ReduceScatterOp) { both((n - 1) * result); })
      // A reduce_scatter followed by an allgather of the reduced blocks.
      .Case([&](AllreduceOp) {
        both(llvm::divideCeilSigned(2 * (n - 1) * input, n));
      })
      // A rank keeps one n-th of its piece and exchanges the rest.
      .Case(
          [&](AllToAllOp) { both(llvm::divideCeilSigned((n - 1) * input, n)); })
      .Case([&](AllSliceOp) { both(0); })
      .Case([&](SendRecvOp transfer) {
        if (movesShardBlocks(transfer))
          countShardBlocks(volume, transfer);
        else
          both(input);
      })
      // Pipelined along a chain: every rank passes the value (or the
      // running reduction) on once.
      .Case<BroadcastCommOp, ReduceOp>([&](Operation *) { both(input); })
      // Each other rank sends its piece; the root receives them all.
      .Case([&](GatherOp) {
        volume.sentBytes = input;
        volume.receivedBytes = (n - 1) * input;
      })
      // The root sends each other rank its piece.
      .Case([&](ScatterOp) {
        volume.sentBytes = (n - 1) * result;
        volume.receivedBytes = result;
      });
  return success(volume.sentBytes.has_value());
}

static FailureOr<FunctionVolume> countFunction(func::FuncOp function) {
  FunctionVolume total{function, {}};
  DataLayout layout = DataLayout::closest(function);
  WalkResult walked = function.walk([&](CommunicationOpInterface op) {
    Volume &volume = total.communications.emplace_back();
    volume.op = op;
    volume.kind = op->getName().stripDialect().drop_front(strlen("comm."));
    std::tie(volume.axis, volume.teamSize) = teamOf(op);
    volume.inputBytes = localBytes(op->getOperand(0), layout);
    volume.resultBytes = localBytes(op->getResult(0), layout);
    if (!volume.inputBytes || !volume.resultBytes) {
      ++total.uncounted;
      op->emitWarning("the local shapes of this communication are known only "
                      "at run time; its bytes are not counted");
      return WalkResult::advance();
    }
    if (failed(countBytes(volume, *volume.inputBytes, *volume.resultBytes))) {
      op->emitError("no convention counts the bytes of this communication "
                    "(docs/communication-volume.md)");
      return WalkResult::interrupt();
    }
    total.sentBytes += *volume.sentBytes;
    total.receivedBytes += *volume.receivedBytes;
    return WalkResult::advance();
  });
  if (walked.wasInterrupted())
    return failure();
  return total;
}

static void writeJson(llvm::raw_ostream &os, ArrayRef<FunctionVolume> volumes) {
  llvm::json::OStream json(os, /*IndentSize=*/2);
  auto optional = [](std::optional<int64_t> bytes) -> llvm::json::Value {
    if (bytes)
      return *bytes;
    return nullptr;
  };
  json.object([&] {
    json.attribute("format", "fuser-communication");
    json.attribute("version", 1);
    json.attributeArray("functions", [&] {
      for (const FunctionVolume &total : volumes)
        json.object([&] {
          func::FuncOp function = total.function;
          json.attribute("name", function.getSymName());
          json.attribute("sent_bytes", total.sentBytes);
          json.attribute("received_bytes", total.receivedBytes);
          json.attribute("uncounted", total.uncounted);
          json.attributeArray("communications", [&] {
            for (const Volume &volume : total.communications)
              json.object([&] {
                json.attribute("kind", volume.kind);
                json.attribute("axis", optional(volume.axis));
                json.attribute("team_size", volume.teamSize);
                json.attribute("input_bytes", optional(volume.inputBytes));
                json.attribute("result_bytes", optional(volume.resultBytes));
                json.attribute("sent_bytes", optional(volume.sentBytes));
                json.attribute("received_bytes",
                               optional(volume.receivedBytes));
              });
          });
        });
    });
  });
  os << "\n";
}

static void emitRemarks(ArrayRef<FunctionVolume> volumes) {
  for (const FunctionVolume &total : volumes) {
    for (const Volume &volume : total.communications) {
      if (!volume.sentBytes)
        continue;
      InFlightDiagnostic remark = volume.op->emitRemark() << volume.kind;
      if (volume.axis)
        remark << " over mesh axis " << *volume.axis;
      remark << " (" << volume.teamSize << " ranks): sends "
             << *volume.sentBytes << " bytes, receives "
             << *volume.receivedBytes << " bytes per rank";
    }
    func::FuncOp function = total.function;
    InFlightDiagnostic remark = function.emitRemark()
                                << "communicates " << total.sentBytes
                                << " bytes sent, " << total.receivedBytes
                                << " bytes received per rank in "
                                << total.communications.size()
                                << (total.communications.size() == 1
                                        ? " communication"
                                        : " communications");
    if (total.uncounted)
      remark << " (" << total.uncounted << " not counted)";
  }
}

namespace {
struct ReportCommunicationPass
    : public mlir::fuser::impl::ReportCommunicationBase<
          ReportCommunicationPass> {
  using ReportCommunicationBase::ReportCommunicationBase;

  void runOnOperation() override {
    markAllAnalysesPreserved();
    SmallVector<FunctionVolume> volumes;
    for (auto function : getOperation().getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      FailureOr<FunctionVolume> volume = countFunction(function);
      if (failed(volume))
        return signalPassFailure();
      volumes.push_back(std::move(*volume));
    }
    if (output.empty())
      return emitRemarks(volumes);
    std::string error;
    std::unique_ptr<llvm::ToolOutputFile> file = openOutputFile(output, &error);
    if (!file) {
      getOperation().emitError("cannot write the communication report: ")
          << error;
      return signalPassFailure();
    }
    writeJson(file->os(), volumes);
    file->keep();
  }
};
} // namespace
