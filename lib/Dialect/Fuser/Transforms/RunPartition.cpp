//===- RunPartition.cpp - the kernels a run of kernel ops becomes ---------===//
//
// A schedule maps one iteration space onto the GPU: the rows of a row
// reduction, the columns of an outer one, the elements of a pointwise
// kernel. Work of another shape in the same kernel is folded again for
// every element of that space. Two splits keep each kernel to one space.
//
// Independent work: ops of the run that share no value (the cast of an
// allreduced weight gradient beside a layer norm's backward, a GELU over
// [s, 4e] beside a dropout over [s, e]) become kernels of their own, one
// per shape of the largest value they compute.
//
// Outer reductions: a reduction folding the leading dims of its input (a
// bias or layer-norm weight gradient: a sum over [batch, sequence]) is
// scheduled by walking down the rows of each kept column; a row reduction
// or a full-size output in the same kernel is scheduled along the rows
// instead, where the outer reduction can only be folded again for every
// element. So each group of outer reductions over the same input shape and
// dims becomes a kernel of its own, recomputing the pointwise ops it reads
// from the run (cheaper than writing them out and reading them back),
// after the kernel of the rest of the run.
//
//===----------------------------------------------------------------------===//

#include "Segmentation.h"

#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/IRMapping.h"
#include "llvm/ADT/EquivalenceClasses.h"
#include "llvm/ADT/MapVector.h"
#include "llvm/ADT/SetVector.h"

using namespace mlir;
using namespace mlir::fuser;

/// The input and folded dims of a reduction op, or nullopt.
static std::optional<std::pair<Value, ArrayRef<int64_t>>>
getReduction(Operation *op) {
  if (auto sum = dyn_cast<SumOp>(op))
    return std::make_pair(sum.getInput(), sum.getDims());
  if (auto max = dyn_cast<MaxOp>(op))
    return std::make_pair(max.getInput(), max.getDims());
  if (auto min = dyn_cast<MinOp>(op))
    return std::make_pair(min.getInput(), min.getDims());
  if (auto mean = dyn_cast<MeanOp>(op))
    return std::make_pair(mean.getInput(), mean.getDims());
  if (auto varMean = dyn_cast<VarMeanOp>(op))
    return std::make_pair(varMean.getInput(), varMean.getDims());
  return std::nullopt;
}

/// Whether `dims` fold the leading dims of `input` and keep the others,
/// unit dims aside: a sum over [1] of [1, s, e] folds leading dims.
static bool foldsLeadingDims(RankedTensorType input, ArrayRef<int64_t> dims) {
  bool folds = false, keeps = false;
  for (auto [dim, size] : llvm::enumerate(input.getShape())) {
    if (size == 1)
      continue;
    bool folded = llvm::is_contained(dims, static_cast<int64_t>(dim));
    if (folded && keeps)
      return false;
    folds |= folded;
    keeps |= !folded;
  }
  return folds && keeps;
}

namespace {
/// Outer reductions over one input shape and dims.
struct OuterGroup {
  /// The reductions, and the ops of the run that read them (transitively),
  /// all of the reduced shape: what the group's kernel computes last.
  SetVector<Operation *> results;
  /// The ops of the run those read, transitively, up to another reduction.
  SetVector<Operation *> producers;
};
} // namespace

/// The ops of `run` that read `reduction` (transitively), or nullopt when
/// one of them is not of the reduced shape (a broadcast back, a full-size
/// product): then the reduction stays with the run.
static std::optional<SetVector<Operation *>>
getReducedShapeReaders(Operation *reduction, const DenseSet<Operation *> &inRun) {
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(reduction->getResult(0).getType()).getShape();
  SetVector<Operation *> readers;
  SmallVector<Operation *> worklist{reduction};
  while (!worklist.empty()) {
    Operation *op = worklist.pop_back_val();
    for (Operation *user : op->getUsers()) {
      if (!inRun.contains(user) || readers.contains(user))
        continue;
      bool reducedShape = llvm::all_of(user->getResultTypes(), [&](Type type) {
        auto tensor = dyn_cast<RankedTensorType>(type);
        return tensor && tensor.getShape() == shape;
      });
      if (!reducedShape)
        return std::nullopt;
      readers.insert(user);
      worklist.push_back(user);
    }
  }
  return readers;
}

/// The shape of the largest tensor `op` computes.
static ArrayRef<int64_t> getLargestResultShape(Operation *op) {
  ArrayRef<int64_t> largest;
  int64_t elements = -1;
  for (Type type : op->getResultTypes()) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    if (tensor && tensor.hasStaticShape() &&
        tensor.getNumElements() > elements) {
      largest = tensor.getShape();
      elements = tensor.getNumElements();
    }
  }
  return largest;
}

SmallVector<SmallVector<Operation *>>
mlir::fuser::splitIndependentWork(ArrayRef<Operation *> run) {
  // Ops that share a value (one reads what the other computes) are one
  // piece of work.
  DenseSet<Operation *> inRun(run.begin(), run.end());
  llvm::EquivalenceClasses<Operation *> pieces;
  for (Operation *op : run) {
    pieces.insert(op);
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp();
          producer && inRun.contains(producer))
        pieces.unionSets(producer, op);
  }
  // Pieces over one shape stay together: their kernel maps one space.
  DenseMap<Operation *, ArrayRef<int64_t>> pieceShapes;
  for (Operation *op : run) {
    Operation *leader = pieces.getLeaderValue(op);
    ArrayRef<int64_t> shape = getLargestResultShape(op);
    ArrayRef<int64_t> &largest = pieceShapes[leader];
    if (computeProduct(shape) > computeProduct(largest) || largest.empty())
      largest = shape;
  }
  llvm::MapVector<ArrayRef<int64_t>, SmallVector<Operation *>> kernels;
  for (Operation *op : run)
    kernels[pieceShapes.lookup(pieces.getLeaderValue(op))].push_back(op);
  SmallVector<SmallVector<Operation *>> runs;
  for (auto &entry : kernels)
    runs.push_back(std::move(entry.second));
  return runs;
}

SmallVector<SmallVector<Operation *>>
mlir::fuser::splitOuterReductions(SmallVectorImpl<Operation *> &run) {
  DenseSet<Operation *> inRun(run.begin(), run.end());
  llvm::MapVector<std::pair<Type, ArrayRef<int64_t>>, OuterGroup> groups;
  for (Operation *op : run) {
    std::optional<std::pair<Value, ArrayRef<int64_t>>> reduction =
        getReduction(op);
    if (!reduction)
      continue;
    auto input = cast<RankedTensorType>(reduction->first.getType());
    if (!foldsLeadingDims(input, reduction->second))
      continue;
    std::optional<SetVector<Operation *>> readers =
        getReducedShapeReaders(op, inRun);
    // What reads the reductions of two groups (their sum) would be
    // computed by both: the second reduction stays with the run, which
    // computes it before the first group's kernel reads it.
    std::pair<Type, ArrayRef<int64_t>> key{input, reduction->second};
    if (!readers || llvm::any_of(groups, [&](auto &entry) {
          return entry.first != key &&
                 llvm::any_of(*readers, [&](Operation *reader) {
                   return entry.second.results.contains(reader);
                 });
        }))
      continue;
    OuterGroup &group = groups[key];
    group.results.insert(op);
    group.results.insert(readers->begin(), readers->end());
  }
  SmallVector<SmallVector<Operation *>> runs;
  if (groups.empty()) {
    runs.emplace_back(run.begin(), run.end());
    return runs;
  }

  for (auto &entry : groups) {
    OuterGroup &group = entry.second;
    SmallVector<Operation *> worklist(group.results.begin(),
                                      group.results.end());
    while (!worklist.empty()) {
      Operation *op = worklist.pop_back_val();
      for (Value operand : op->getOperands()) {
        Operation *producer = operand.getDefiningOp();
        if (!producer || !inRun.contains(producer) ||
            group.results.contains(producer) || getReduction(producer))
          continue;
        if (group.producers.insert(producer))
          worklist.push_back(producer);
      }
    }
  }

  // A run that is one group and what it reads, read by nothing else, is
  // already an outer-reduction kernel.
  auto isMember = [](const OuterGroup &group, Operation *op) {
    return group.results.contains(op) || group.producers.contains(op);
  };
  if (groups.size() == 1) {
    const OuterGroup &group = groups.front().second;
    bool whole = llvm::all_of(run, [&](Operation *op) {
      if (group.results.contains(op))
        return true;
      return group.producers.contains(op) &&
             llvm::all_of(op->getUsers(), [&](Operation *user) {
               return isMember(group, user);
             });
    });
    if (whole) {
      runs.emplace_back(run.begin(), run.end());
      return runs;
    }
  }

  // Each group's ops again, in run order, after the run; what the group
  // computes last is read from there.
  OpBuilder builder(run.back()->getContext());
  builder.setInsertionPointAfter(run.back());
  SmallVector<SmallVector<Operation *>> groupRuns;
  for (auto &entry : groups) {
    OuterGroup &group = entry.second;
    IRMapping mapping;
    SmallVector<Operation *> &cloned = groupRuns.emplace_back();
    for (Operation *op : run)
      if (inRun.contains(op) && isMember(group, op))
        cloned.push_back(builder.clone(*op, mapping));
    for (Operation *op : llvm::reverse(run)) {
      if (!group.results.contains(op))
        continue;
      op->replaceAllUsesWith(mapping.lookup(op)->getResults());
      op->erase();
      inRun.erase(op);
    }
  }
  // What only the groups read is gone from the rest of the run.
  SmallVector<Operation *> rest;
  for (Operation *op : llvm::reverse(run)) {
    if (!inRun.contains(op))
      continue;
    if (op->use_empty()) {
      op->erase();
      continue;
    }
    rest.push_back(op);
  }
  std::reverse(rest.begin(), rest.end());
  if (!rest.empty())
    runs.push_back(std::move(rest));
  llvm::append_range(runs, groupRuns);
  return runs;
}
