//===- CommunicationOps.cpp - verifiers of hostir collectives -------------===//
//
// Collectives see local buffers: element types must agree, buffers must be
// contiguous (the libraries read them as flat arrays), and with static
// shapes the element counts must relate through the team size as the kind
// requires.
//
//===----------------------------------------------------------------------===//

#include "fuser/Dialect/HostIR/IR/HostIR.h"

using namespace mlir;
using namespace mlir::hostir;

namespace {
/// How the output's element count relates to the input's.
enum class CountRule { Equal, OutputIsTeamTimesInput, InputIsTeamTimesOutput,
                       EqualAndDivisibleByTeam };
} // namespace

static LogicalResult verifyCollective(Operation *op, MemRefType input,
                                      MemRefType output, TeamType team,
                                      CountRule rule,
                                      std::optional<int64_t> root) {
  if (input.getElementType() != output.getElementType())
    return op->emitOpError("input element type ")
           << input.getElementType() << " differs from output element type "
           << output.getElementType();
  for (auto [name, type] : {std::pair<StringRef, MemRefType>{"input", input},
                            {"output", output}})
    if (!isDense(type))
      return op->emitOpError() << name << " buffer " << type
                               << " has gaps; communication buffers must be "
                                  "dense";
  int64_t size = team.getSize();
  if (root && (*root < 0 || *root >= size))
    return op->emitOpError("root ")
           << *root << " is out of range for a team of " << size;
  if (!input.hasStaticShape() || !output.hasStaticShape())
    return success();
  int64_t in = input.getNumElements(), out = output.getNumElements();
  bool ok = false;
  StringRef expectation;
  switch (rule) {
  case CountRule::Equal:
    ok = in == out;
    expectation = "the same number of elements as the input";
    break;
  case CountRule::OutputIsTeamTimesInput:
    ok = out == size * in;
    expectation = "team size times the input's elements";
    break;
  case CountRule::InputIsTeamTimesOutput:
    ok = in == size * out;
    expectation = "the input's elements divided by the team size";
    break;
  case CountRule::EqualAndDivisibleByTeam:
    ok = in == out && in % size == 0;
    expectation = "as many elements as the input, a multiple of the team size";
    break;
  }
  if (!ok)
    return op->emitOpError("output has ")
           << out << " elements but needs " << expectation << " (input "
           << in << " elements, team of " << size << ")";
  return success();
}

LogicalResult AllgatherOp::verify() {
  return verifyCollective(*this, getInput().getType(), getOutput().getType(),
                          getTeam().getType(),
                          CountRule::OutputIsTeamTimesInput, std::nullopt);
}

LogicalResult AllreduceOp::verify() {
  return verifyCollective(*this, getInput().getType(), getOutput().getType(),
                          getTeam().getType(), CountRule::Equal, std::nullopt);
}

LogicalResult ReduceScatterOp::verify() {
  return verifyCollective(*this, getInput().getType(), getOutput().getType(),
                          getTeam().getType(),
                          CountRule::InputIsTeamTimesOutput, std::nullopt);
}

LogicalResult ReduceOp::verify() {
  return verifyCollective(*this, getInput().getType(), getOutput().getType(),
                          getTeam().getType(), CountRule::Equal, getRoot());
}

LogicalResult BroadcastOp::verify() {
  return verifyCollective(*this, getInput().getType(), getOutput().getType(),
                          getTeam().getType(), CountRule::Equal, getRoot());
}

LogicalResult GatherOp::verify() {
  return verifyCollective(*this, getInput().getType(), getOutput().getType(),
                          getTeam().getType(),
                          CountRule::OutputIsTeamTimesInput, getRoot());
}

LogicalResult ScatterOp::verify() {
  return verifyCollective(*this, getInput().getType(), getOutput().getType(),
                          getTeam().getType(),
                          CountRule::InputIsTeamTimesOutput, getRoot());
}

LogicalResult AllToAllOp::verify() {
  return verifyCollective(*this, getInput().getType(), getOutput().getType(),
                          getTeam().getType(),
                          CountRule::EqualAndDivisibleByTeam, std::nullopt);
}

LogicalResult CoalesceOp::verifyRegions() {
  for (Operation &op : getBody().front()) {
    if (!isa<SendOp, RecvOp>(op))
      return op.emitOpError("cannot be coalesced; hostir.coalesce groups "
                            "hostir.send and hostir.recv only");
    if (!op.getResult(0).use_empty())
      return op.emitOpError("work handle is used inside hostir.coalesce; wait "
                            "on the group's handle instead");
  }
  return success();
}
