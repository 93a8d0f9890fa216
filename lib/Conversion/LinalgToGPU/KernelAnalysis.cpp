//===- KernelAnalysis.cpp - what decides a GPU kernel's schedule ----------===//

#include "KernelAnalysis.h"
#include "ViewIndexing.h"

#include "mlir/Analysis/SliceAnalysis.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser::gpu_schedule;

ArrayRef<int64_t> mlir::fuser::gpu_schedule::bufferShape(Value buffer) {
  return cast<MemRefType>(buffer.getType()).getShape();
}

bool mlir::fuser::gpu_schedule::isScalarPrelude(Operation *op) {
  return op->getNumRegions() == 0 && isMemoryEffectFree(op) &&
         !op->hasTrait<mlir::OpTrait::IsTerminator>() &&
         llvm::none_of(op->getResultTypes(),
                       [](Type type) { return isa<ShapedType>(type); });
}

/// Ops whose elements the emitter computes.
static bool isComputable(Operation *op) {
  return isa<bufferization::ToTensorOp, linalg::GenericOp, linalg::FillOp,
             linalg::TransposeOp, tensor::ExtractSliceOp, tensor::InsertSliceOp,
             tensor::ExpandShapeOp, tensor::CollapseShapeOp, tensor::EmptyOp,
             bufferization::MaterializeInDestinationOp, func::ReturnOp,
             arith::ConstantOp>(op);
}

std::optional<Combiner>
mlir::fuser::gpu_schedule::matchCombiner(linalg::GenericOp reduction) {
  if (reduction.getNumDpsInits() != 1)
    return std::nullopt;
  Block *body = reduction.getBody();
  BlockArgument accumulator = body->getArguments().back();
  // Warps combine by shuffling integers and floats of a known width; an
  // index has none.
  if (!accumulator.getType().isIntOrFloat())
    return std::nullopt;
  SmallVector<Operation *> combiners;
  if (!matchReduction(accumulator, /*redPos=*/0, combiners) ||
      combiners.size() != 1)
    return std::nullopt;
  Operation *op = combiners.front();
  std::optional<gpu::AllReduceOperation> kind =
      TypeSwitch<Operation *, std::optional<gpu::AllReduceOperation>>(op)
          .Case<arith::AddFOp, arith::AddIOp>(
              [](auto) { return gpu::AllReduceOperation::ADD; })
          .Case<arith::MulFOp, arith::MulIOp>(
              [](auto) { return gpu::AllReduceOperation::MUL; })
          .Case([](arith::MaximumFOp) {
            return gpu::AllReduceOperation::MAXIMUMF;
          })
          .Case([](arith::MinimumFOp) {
            return gpu::AllReduceOperation::MINIMUMF;
          })
          .Case([](arith::MaxSIOp) { return gpu::AllReduceOperation::MAXSI; })
          .Case([](arith::MinSIOp) { return gpu::AllReduceOperation::MINSI; })
          .Default([](Operation *) { return std::nullopt; });
  if (!kind)
    return std::nullopt;
  return Combiner{op, *kind};
}

int64_t mlir::fuser::gpu_schedule::vectorWidth(func::FuncOp function,
                                               int64_t extent,
                                               int64_t vectorBytes) {
  int64_t narrowest = vectorBytes;
  for (Type type : function.getArgumentTypes()) {
    auto buffer = dyn_cast<MemRefType>(type);
    if (!buffer)
      continue;
    // Vectors of i1 are packed bits, not the bytes memrefs of i1 hold, and
    // index elements have no width before lowering: such kernels move one
    // element at a time.
    Type element = buffer.getElementType();
    if (!element.isIntOrFloat() || element.getIntOrFloatBitWidth() % 8 != 0)
      return 1;
    narrowest =
        std::min<int64_t>(narrowest, element.getIntOrFloatBitWidth() / 8);
  }
  int64_t width = vectorBytes / narrowest;
  while (width > 1 && extent % width != 0)
    width /= 2;
  return width;
}

SmallVector<OutputGroup>
mlir::fuser::gpu_schedule::groupOutputs(const KernelStructure &kernel) {
  SmallVector<OutputGroup> groups;
  for (auto output : kernel.outputs) {
    ArrayRef<int64_t> shape = bufferShape(output.second);
    auto *group = llvm::find_if(
        groups, [&](const OutputGroup &g) { return g.shape == shape; });
    if (group != groups.end()) {
      group->outputs.push_back(output);
      continue;
    }
    OutputGroup created{{output}, shape, {}};
    auto type = cast<MemRefType>(output.second.getType());
    auto [strides, offset] = type.getStridesAndOffset();
    created.order = llvm::to_vector(llvm::seq<int64_t>(0, shape.size()));
    llvm::stable_sort(created.order, [&](int64_t a, int64_t b) {
      return strides[a] > strides[b];
    });
    groups.push_back(created);
  }
  return groups;
}

//===----------------------------------------------------------------------===//
// Which elements a value reads
//===----------------------------------------------------------------------===//

namespace {
/// An element of a kernel buffer or of a reduction's result, at an index
/// of affine expressions over the reader's dims.
struct Read {
  Value source;
  SmallVector<AffineExpr> index;
};

/// Follows values of a kernel back to the elements they read, through the
/// producers ElementEmitter computes, at symbolic indices: dims stand for
/// the coordinates a schedule binds (its rows, columns, loop variables),
/// and new dims for what only the data decides (a gathered row). The
/// first op that cannot be computed stops it, with the reason.
class ElementReads {
public:
  ElementReads(func::FuncOp function, bool foldReductions)
      : function(function), foldReductions(foldReductions) {}

  AffineExpr newDim() {
    return getAffineDimExpr(dims++, function.getContext());
  }
  SmallVector<AffineExpr> newDims(size_t count) {
    SmallVector<AffineExpr> created;
    for (size_t i = 0; i < count; ++i)
      created.push_back(newDim());
    return created;
  }
  /// Reductions are followed through their bodies (as the pointwise
  /// schedule folds them), or read as what the schedule computed.
  void setFoldReductions(bool fold) { foldReductions = fold; }

  /// The elements computing `tensor` at `index` reads.
  LogicalResult read(Value tensor, ArrayRef<AffineExpr> index);
  /// The elements `generic`'s body reads at `iteration` (its output
  /// argument excluded: the schedule supplies the accumulator).
  LogicalResult readBody(linalg::GenericOp generic,
                         ArrayRef<AffineExpr> iteration);

  ArrayRef<Read> bufferReads() const { return buffers; }
  ArrayRef<Read> reductionReads() const { return reductions; }
  /// Why the last read failed: the op, and what it lacks.
  Operation *blocker() const { return blocking; }
  StringRef reason() const { return why; }

private:
  LogicalResult compute(OpResult result, ArrayRef<AffineExpr> index);
  LogicalResult readParallel(linalg::GenericOp generic,
                             ArrayRef<AffineExpr> index);
  LogicalResult readFolded(linalg::GenericOp generic,
                           ArrayRef<AffineExpr> index);
  LogicalResult readInserted(tensor::InsertSliceOp insert,
                             ArrayRef<AffineExpr> index);
  /// A scalar of the kernel: an argument or prelude code.
  bool isKernelScalar(Value value) const;
  LogicalResult fail(Operation *op, const Twine &reason) {
    blocking = op;
    why = reason.str();
    return failure();
  }
  AffineExpr simplified(AffineExpr expr) const {
    return simplifyAffineExpr(expr, dims, 0);
  }

  func::FuncOp function;
  bool foldReductions;
  unsigned dims = 0;
  SmallVector<Read> buffers, reductions;
  /// Each value and index already followed.
  llvm::DenseSet<std::pair<Value, AffineMap>> followed;
  Operation *blocking = nullptr;
  std::string why;
};
} // namespace

bool ElementReads::isKernelScalar(Value value) const {
  Block *entry = &func::FuncOp(function).getBody().front();
  if (auto argument = dyn_cast<BlockArgument>(value))
    return argument.getOwner() == entry;
  Operation *op = value.getDefiningOp();
  return op && op->getBlock() == entry && isScalarPrelude(op);
}

LogicalResult ElementReads::read(Value tensor, ArrayRef<AffineExpr> index) {
  SmallVector<AffineExpr> at =
      llvm::map_to_vector(index, [&](AffineExpr e) { return simplified(e); });
  auto key = std::make_pair(
      tensor, AffineMap::get(dims, 0, at, function.getContext()));
  if (!followed.insert(key).second)
    return success();
  auto result = dyn_cast<OpResult>(tensor);
  if (!result)
    return fail(function, "reads a tensor argument; kernels take buffers");
  return compute(result, at);
}

LogicalResult ElementReads::compute(OpResult result,
                                    ArrayRef<AffineExpr> index) {
  Operation *producer = result.getOwner();
  if (isIndexView(producer)) {
    FailureOr<SourceElement> source = sourceElement(
        producer, index, [](AffineExpr linear, ArrayRef<int64_t> sizes) {
          return delinearize(linear, computeSuffixProduct(sizes));
        });
    if (failed(source))
      return fail(producer, "has offsets or strides known only at run time");
    return read(source->source, source->index);
  }
  return TypeSwitch<Operation *, LogicalResult>(producer)
      .Case([&](bufferization::ToTensorOp op) -> LogicalResult {
        if (!isKernelScalar(op.getBuffer()))
          return fail(op, "reads a buffer that is not a kernel argument");
        buffers.push_back({op.getBuffer(), SmallVector<AffineExpr>(index)});
        return success();
      })
      .Case([&](linalg::GenericOp op) -> LogicalResult {
        if (op.getNumReductionLoops() == 0)
          return readParallel(op, index);
        if (foldReductions)
          return readFolded(op, index);
        reductions.push_back({op.getResult(0), SmallVector<AffineExpr>(index)});
        return success();
      })
      .Case([&](linalg::FillOp op) -> LogicalResult {
        if (!isKernelScalar(op.getInputs().front()))
          return fail(op, "fills with a value computed in the kernel");
        return success();
      })
      .Case([&](tensor::InsertSliceOp op) { return readInserted(op, index); })
      // Elements a later insert_slice overwrites.
      .Case([&](tensor::EmptyOp) { return success(); })
      .Case([&](arith::ConstantOp op) -> LogicalResult {
        if (!isa<SplatElementsAttr>(op.getValue()))
          return fail(op, "is a constant tensor that is not a splat");
        return success();
      })
      .Default([&](Operation *op) {
        return fail(op, "has no GPU code generation");
      });
}

LogicalResult ElementReads::readBody(linalg::GenericOp generic,
                                     ArrayRef<AffineExpr> iteration) {
  for (OpOperand *operand : generic.getDpsInputOperands()) {
    if (!isa<RankedTensorType>(operand->get().getType())) {
      if (!isKernelScalar(operand->get()))
        return fail(generic, "takes a scalar computed in the kernel");
      continue;
    }
    SmallVector<AffineExpr> at;
    for (AffineExpr expr : generic.getMatchingIndexingMap(operand).getResults())
      at.push_back(expr.replaceDims(iteration));
    if (failed(read(operand->get(), at)))
      return failure();
  }
  auto definedInside = [&](Value value) {
    return generic->isAncestor(value.getParentBlock()->getParentOp());
  };
  for (Operation &op : generic.getBody()->without_terminator()) {
    // A lookup (embedding): the captured tensor at indices only the data
    // decides.
    if (auto extract = dyn_cast<tensor::ExtractOp>(op);
        extract && !definedInside(extract.getTensor())) {
      for (Value index : extract.getIndices())
        if (!definedInside(index) && !isKernelScalar(index))
          return fail(extract, "reads at an index computed in the kernel");
      if (failed(read(extract.getTensor(), newDims(extract.getIndices().size()))))
        return failure();
      continue;
    }
    WalkResult walk = op.walk([&](Operation *nested) {
      for (Value operand : nested->getOperands())
        if (!definedInside(operand) && !isKernelScalar(operand))
          return WalkResult::interrupt();
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return fail(&op, "uses a value computed in the kernel outside its body");
  }
  Value yielded = generic.getBody()->getTerminator()->getOperand(0);
  if (!definedInside(yielded) && !isKernelScalar(yielded))
    return fail(generic, "yields a value computed in the kernel");
  return success();
}

LogicalResult ElementReads::readParallel(linalg::GenericOp generic,
                                         ArrayRef<AffineExpr> index) {
  if (generic.getNumDpsInits() != 1)
    return fail(generic, "computes several results");
  AffineMap output = generic.getIndexingMapsArray().back();
  if (!output.isPermutation())
    return fail(generic, "writes its result through a map that is not a "
                         "permutation");
  SmallVector<AffineExpr> iteration = resultIteration(generic, index);
  if (!generic.getBody()->getArguments().back().use_empty() &&
      failed(read(generic.getDpsInits().front(), index)))
    return failure();
  return readBody(generic, iteration);
}

LogicalResult ElementReads::readFolded(linalg::GenericOp generic,
                                       ArrayRef<AffineExpr> index) {
  if (generic.getNumDpsInits() != 1)
    return fail(generic, "computes several results");
  SmallVector<int64_t> ranges = generic.getStaticLoopRanges();
  if (ShapedType::isDynamicShape(ranges))
    return fail(generic, "has loops of dynamic extent");
  SmallVector<AffineExpr> iteration = resultIteration(generic, index);
  SmallVector<unsigned> reduced;
  generic.getReductionDims(reduced);
  for (unsigned dim : reduced)
    iteration[dim] = newDim();
  if (llvm::any_of(iteration, [](AffineExpr expr) { return !expr; }))
    return fail(generic, "leaves a parallel loop out of its result");
  if (failed(read(generic.getDpsInits().front(), index)))
    return failure();
  return readBody(generic, iteration);
}

LogicalResult ElementReads::readInserted(tensor::InsertSliceOp insert,
                                         ArrayRef<AffineExpr> index) {
  RankedTensorType source = insert.getSourceType();
  RankedTensorType dest = insert.getResultType();
  if (source.getRank() != dest.getRank() ||
      ShapedType::isDynamicShape(insert.getStaticOffsets()) ||
      llvm::any_of(insert.getStaticStrides(),
                   [](int64_t stride) { return stride != 1; }))
    return fail(insert, "inserts with a rank change, run-time offsets or "
                        "strides");
  SmallVector<AffineExpr> within;
  bool outside = false, decided = true;
  for (auto [dim, offset] : llvm::enumerate(insert.getStaticOffsets())) {
    within.push_back(index[dim] - offset);
    int64_t size = source.getDimSize(dim);
    if (size == dest.getDimSize(dim))
      continue;
    if (auto constant = dyn_cast<AffineConstantExpr>(index[dim])) {
      outside |= constant.getValue() < offset ||
                 constant.getValue() >= offset + size;
      continue;
    }
    decided = false;
  }
  if (outside)
    return read(insert.getDest(), index);
  if (decided)
    return read(insert.getSource(), within);
  if (failed(read(insert.getSource(), within)))
    return failure();
  return read(insert.getDest(), index);
}

//===----------------------------------------------------------------------===//
// The kernel's structure and the shapes schedules need
//===----------------------------------------------------------------------===//

FailureOr<KernelStructure>
mlir::fuser::gpu_schedule::analyzeKernel(func::FuncOp function) {
  if (function.isExternal())
    return function.emitError("kernel @")
           << function.getName() << " has no body to compile for GPUs";
  for (auto [position, type] : llvm::enumerate(function.getArgumentTypes()))
    if (auto buffer = dyn_cast<MemRefType>(type); buffer && !buffer.hasStaticShape())
      return function.emitError("kernel argument #")
             << position << " has type " << type
             << ": GPU kernels take buffers of static shape";
  KernelStructure kernel;
  kernel.function = function;
  for (Operation &op : function.getBody().front()) {
    if (!isComputable(&op) && !isScalarPrelude(&op))
      return op.emitOpError("has no GPU code generation (in kernel @")
             << function.getName() << ")";
    // Ops that create buffers are refused above: outputs are arguments.
    if (auto output = dyn_cast<bufferization::MaterializeInDestinationOp>(op))
      kernel.outputs.push_back({output.getSource(), output.getDest()});
    if (auto generic = dyn_cast<linalg::GenericOp>(op);
        generic && generic.getNumReductionLoops() > 0)
      kernel.reductions.push_back(generic);
  }
  // Every output at every index, reductions folded: what the pointwise
  // schedule, which takes any kernel, computes.
  ElementReads reads(function, /*foldReductions=*/true);
  for (auto [tensor, buffer] : kernel.outputs)
    if (failed(reads.read(tensor, reads.newDims(bufferShape(buffer).size())))) {
      InFlightDiagnostic diagnostic = reads.blocker()->emitOpError()
                                      << reads.reason();
      diagnostic.attachNote(function.getLoc())
          << "kernel @" << function.getName() << " cannot run on GPUs";
      return failure();
    }
  return kernel;
}

/// Whether `reduction` writes the leading `kept` dims of its iteration
/// space in order, after (`keptLast`) or before the dims it folds, which
/// its result keeps as constant zeros (keepdim) or drops.
static bool writesKeptDimsInOrder(linalg::GenericOp reduction, int64_t first,
                                  int64_t count) {
  int64_t next = first;
  for (AffineExpr expr : reduction.getIndexingMapsArray().back().getResults()) {
    if (auto dim = dyn_cast<AffineDimExpr>(expr)) {
      if (dim.getPosition() != next++)
        return false;
      continue;
    }
    auto constant = dyn_cast<AffineConstantExpr>(expr);
    if (!constant || constant.getValue() != 0)
      return false;
  }
  return next == first + count;
}

/// `kept` followed (or preceded) by zeros, `rank` expressions in all.
static SmallVector<AffineExpr> padded(ArrayRef<AffineExpr> kept, int64_t rank,
                                      bool zerosFirst, MLIRContext *context) {
  SmallVector<AffineExpr> zeros(rank - kept.size(),
                                getAffineConstantExpr(0, context));
  SmallVector<AffineExpr> index = zerosFirst ? zeros : SmallVector<AffineExpr>();
  llvm::append_range(index, kept);
  if (!zerosFirst)
    llvm::append_range(index, zeros);
  return index;
}

/// Whether every read of a reduction is at `kept` (padded with zeros).
static bool readsAtKept(ArrayRef<Read> reads, ArrayRef<AffineExpr> kept,
                        bool zerosFirst, MLIRContext *context) {
  return llvm::all_of(reads, [&](const Read &read) {
    return static_cast<int64_t>(read.index.size()) >=
               static_cast<int64_t>(kept.size()) &&
           read.index == padded(kept, read.index.size(), zerosFirst, context);
  });
}

namespace {
/// The loop ranges a kernel's reductions share: those kept (written) and
/// those folded.
struct ReductionLoops {
  SmallVector<int64_t> kept, reduced;
};
} // namespace

/// The loops every reduction of `kernel` has when each folds one run of
/// consecutive loops, leading (`reducedLeading`) or trailing, with a
/// combiner matchCombiner knows, and writes its kept loops in order;
/// failure when one does not, the loops of two differ or there is none.
static FailureOr<ReductionLoops>
matchReductionLoops(const KernelStructure &kernel, bool reducedLeading) {
  std::optional<ReductionLoops> shared;
  for (linalg::GenericOp reduction : kernel.reductions) {
    SmallVector<int64_t> ranges = reduction.getStaticLoopRanges();
    SmallVector<unsigned> reducedDims;
    reduction.getReductionDims(reducedDims);
    int64_t reduced = reducedDims.size();
    int64_t kept = ranges.size() - reduced;
    int64_t firstReduced = reducedLeading ? 0 : kept;
    int64_t firstKept = reducedLeading ? reduced : 0;
    for (auto [position, dim] : llvm::enumerate(reducedDims))
      if (dim != firstReduced + position)
        return failure();
    if (!matchCombiner(reduction) ||
        !writesKeptDimsInOrder(reduction, firstKept, kept))
      return failure();
    ArrayRef<int64_t> loops(ranges);
    ReductionLoops candidate{
        llvm::to_vector(loops.slice(firstKept, kept)),
        llvm::to_vector(loops.slice(firstReduced, reduced))};
    if (shared && (shared->kept != candidate.kept ||
                   shared->reduced != candidate.reduced))
      return failure();
    shared = std::move(candidate);
  }
  if (!shared)
    return failure();
  return std::move(*shared);
}

FailureOr<RowShape>
mlir::fuser::gpu_schedule::matchRows(const KernelStructure &kernel) {
  FailureOr<ReductionLoops> loops =
      matchReductionLoops(kernel, /*reducedLeading=*/false);
  if (failed(loops))
    return failure();
  RowShape shape{loops->kept, loops->reduced};

  // What each thread of a row computes: the reductions' bodies and the
  // outputs over the row, the reductions' initial values and per-row
  // outputs at the row.
  MLIRContext *context = kernel.function->getContext();
  ElementReads reads(kernel.function, /*foldReductions=*/false);
  SmallVector<AffineExpr> outer = reads.newDims(shape.outer.size());
  SmallVector<AffineExpr> full(outer);
  llvm::append_range(full, reads.newDims(shape.row.size()));
  SmallVector<int64_t> fullShape(shape.outer);
  llvm::append_range(fullShape, shape.row);
  for (linalg::GenericOp reduction : kernel.reductions) {
    Value initial = reduction.getDpsInits().front();
    int64_t rank = cast<RankedTensorType>(initial.getType()).getRank();
    if (failed(reads.readBody(reduction, full)) ||
        failed(reads.read(initial, padded(outer, rank, false, context))))
      return failure();
  }
  for (auto [tensor, buffer] : kernel.outputs) {
    ArrayRef<int64_t> dims = bufferShape(buffer);
    if (dims == ArrayRef(fullShape)) {
      if (failed(reads.read(tensor, full)))
        return failure();
      continue;
    }
    // One value per row: the outer dims, then dims of size 1.
    if (dims.size() < shape.outer.size() ||
        dims.take_front(shape.outer.size()) != ArrayRef(shape.outer) ||
        llvm::any_of(dims.drop_front(shape.outer.size()),
                     [](int64_t size) { return size != 1; }) ||
        failed(reads.read(tensor, padded(outer, dims.size(), false, context))))
      return failure();
  }
  if (!readsAtKept(reads.reductionReads(), outer, /*zerosFirst=*/false,
                   context))
    return failure();
  return shape;
}

FailureOr<ColumnShape>
mlir::fuser::gpu_schedule::matchColumns(const KernelStructure &kernel) {
  FailureOr<ReductionLoops> loops =
      matchReductionLoops(kernel, /*reducedLeading=*/true);
  if (failed(loops) || loops->kept.empty())
    return failure();
  // Zeros of the folded dims (keepdim) come before the kept dims.
  for (linalg::GenericOp reduction : kernel.reductions)
    if (llvm::any_of(
            reduction.getIndexingMapsArray().back().getResults().drop_back(
                loops->kept.size()),
            [](AffineExpr e) { return !isa<AffineConstantExpr>(e); }))
      return failure();
  ColumnShape shape{loops->reduced, loops->kept};
  // Every output is one value per kept element.
  for (auto output : kernel.outputs) {
    ArrayRef<int64_t> dims = bufferShape(output.second);
    if (dims.size() < shape.kept.size() ||
        dims.take_back(shape.kept.size()) != ArrayRef(shape.kept) ||
        computeProduct(dims) != computeProduct(shape.kept))
      return failure();
  }

  // First each slice folds its rows (reductions read inside the bodies
  // fold too), then the first slice computes the outputs at its kept
  // elements from the folded values.
  MLIRContext *context = kernel.function->getContext();
  ElementReads reads(kernel.function, /*foldReductions=*/true);
  SmallVector<AffineExpr> kept = reads.newDims(shape.kept.size());
  for (linalg::GenericOp reduction : kernel.reductions) {
    SmallVector<AffineExpr> iteration = reads.newDims(shape.reduced.size());
    llvm::append_range(iteration, kept);
    if (failed(reads.readBody(reduction, iteration)))
      return failure();
  }
  reads.setFoldReductions(false);
  for (linalg::GenericOp reduction : kernel.reductions) {
    Value initial = reduction.getDpsInits().front();
    int64_t rank = cast<RankedTensorType>(initial.getType()).getRank();
    if (failed(reads.read(initial, padded(kept, rank, true, context))))
      return failure();
  }
  for (auto [tensor, buffer] : kernel.outputs)
    if (failed(reads.read(
            tensor, padded(kept, bufferShape(buffer).size(), true, context))))
      return failure();
  if (!readsAtKept(reads.reductionReads(), kept, /*zerosFirst=*/true, context))
    return failure();
  return shape;
}

FailureOr<TransposeDims>
mlir::fuser::gpu_schedule::matchTranspose(const KernelStructure &kernel) {
  if (!kernel.reductions.empty() || kernel.outputs.empty())
    return failure();
  Value firstBuffer = kernel.outputs.front().second;
  for (auto output : kernel.outputs)
    if (output.second.getType() != firstBuffer.getType())
      return failure();
  ArrayRef<int64_t> shape = bufferShape(firstBuffer);
  if (shape.size() < 2)
    return failure();
  auto [strides, offset] =
      cast<MemRefType>(firstBuffer.getType()).getStridesAndOffset();
  auto fastest = llvm::find(strides, 1);
  if (fastest == strides.end())
    return failure();
  int64_t store = fastest - strides.begin();
  ElementReads reads(kernel.function, /*foldReductions=*/true);
  SmallVector<AffineExpr> index = reads.newDims(shape.size());
  for (auto output : kernel.outputs)
    if (failed(reads.read(output.first, index)))
      return failure();
  // An input read along another of the outputs' dims than theirs: the
  // index of its loads along its stride-1 dim is that dim.
  for (const Read &read : reads.bufferReads()) {
    auto [inputStrides, inputOffset] =
        cast<MemRefType>(read.source.getType()).getStridesAndOffset();
    auto unit = llvm::find(inputStrides, 1);
    if (unit == inputStrides.end())
      continue;
    auto dim = dyn_cast<AffineDimExpr>(read.index[unit - inputStrides.begin()]);
    if (dim && dim.getPosition() < shape.size() &&
        static_cast<int64_t>(dim.getPosition()) != store)
      return TransposeDims{dim.getPosition(), store};
  }
  return failure();
}
