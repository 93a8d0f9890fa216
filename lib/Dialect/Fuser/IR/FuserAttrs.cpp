//===- FuserAttrs.cpp - #fuser.mesh and #fuser.sharding -------------------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

#define GET_ATTRDEF_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserAttrs.cpp.inc"

void FuserDialect::registerAttributes() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "fuser/Dialect/Fuser/IR/FuserAttrs.cpp.inc"
      >();
}

//===----------------------------------------------------------------------===//
// MeshAttr
//===----------------------------------------------------------------------===//

static bool isIdentityOrder(ArrayRef<int64_t> values) {
  for (auto [index, value] : llvm::enumerate(values))
    if (value != static_cast<int64_t>(index))
      return false;
  return true;
}

static int64_t numPositions(ArrayRef<int64_t> shape) {
  int64_t count = 1;
  for (int64_t size : shape)
    count *= size;
  return count;
}

/// `<[2, 4]>` or `<[2, 2], devices = [0, 2, 1, 3]>`.
Attribute MeshAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> shape, devices;
  auto parseInt = [&](SmallVectorImpl<int64_t> &into) {
    return parser.parseCommaSeparatedList(
        AsmParser::Delimiter::Square,
        [&]() { return parser.parseInteger(into.emplace_back()); });
  };
  if (parser.parseLess() || parseInt(shape))
    return {};
  if (succeeded(parser.parseOptionalComma())) {
    if (parser.parseKeyword("devices") || parser.parseEqual() ||
        parseInt(devices))
      return {};
  }
  if (parser.parseGreater())
    return {};
  // The default order is spelled by omitting `devices`: one mesh, one form.
  // (Only for a shape the verifier accepts: its count cannot overflow.)
  if (!devices.empty() &&
      ::fuser::checkMesh({shape.begin(), shape.end()}, {}).empty() &&
      static_cast<int64_t>(devices.size()) == numPositions(shape) &&
      isIdentityOrder(devices))
    devices.clear();
  return parser.getChecked<MeshAttr>(loc, parser.getContext(), shape, devices);
}

void MeshAttr::print(AsmPrinter &printer) const {
  printer << "<[";
  llvm::interleaveComma(getShape(), printer);
  printer << "]";
  if (!getDevices().empty()) {
    printer << ", devices = [";
    llvm::interleaveComma(getDevices(), printer);
    printer << "]";
  }
  printer << ">";
}

LogicalResult
MeshPositionAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                         MeshAttr mesh, int64_t axis) {
  if (axis < 0 || axis >= mesh.getRank())
    return emitError() << "axis " << axis << " is out of range for mesh "
                       << mesh;
  return success();
}

LogicalResult MeshAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                               ArrayRef<int64_t> shape,
                               ArrayRef<int64_t> devices) {
  std::string problem = ::fuser::checkMesh({shape.begin(), shape.end()},
                                           {devices.begin(), devices.end()});
  if (!problem.empty())
    return emitError() << problem;
  // The canonical form leaves the default ids implied.
  if (!devices.empty() && isIdentityOrder(devices))
    return emitError() << "explicit device ids in the default order; omit them";
  return success();
}

int64_t MeshAttr::getNumDevices() const { return numPositions(getShape()); }

SmallVector<int64_t> MeshAttr::getDeviceIds() const {
  return llvm::to_vector(toMesh().devices);
}

::fuser::Mesh MeshAttr::toMesh() const {
  ::fuser::Shape shape(getShape().begin(), getShape().end());
  if (getDevices().empty())
    return ::fuser::Mesh::iota(std::move(shape));
  return ::fuser::Mesh{std::move(shape), {getDevices().begin(), getDevices().end()}};
}

MeshAttr MeshAttr::getSlice(int64_t axis, int64_t index) const {
  ::fuser::Mesh mesh = toMesh();
  SmallVector<int64_t> sliceShape(getShape());
  sliceShape[axis] = 1;
  SmallVector<int64_t> sliceDevices;
  for (int64_t position = 0, n = mesh.numDevices(); position < n; ++position) {
    std::optional<::fuser::Shape> coordinates =
        mesh.coordinatesOf(mesh.devices[position]);
    if ((*coordinates)[axis] == index)
      sliceDevices.push_back(mesh.devices[position]);
  }
  return getOfDevices(getContext(), sliceShape, sliceDevices);
}

MeshAttr MeshAttr::getOfDevices(MLIRContext *context, ArrayRef<int64_t> shape,
                                ArrayRef<int64_t> devices) {
  return get(context, shape,
             isIdentityOrder(devices) ? ArrayRef<int64_t>() : devices);
}

//===----------------------------------------------------------------------===//
// ShardingAttr
//===----------------------------------------------------------------------===//

namespace {
/// The parameters of a sharding in their canonical form: partial axes sorted,
/// no identity order, no all-true contiguity, defaults for absent fields.
struct ShardingParts {
  SmallVector<SmallVector<int64_t>> dims;
  SmallVector<int64_t> partialAxes;
  ReductionKind partialKind = ReductionKind::Sum;
  std::optional<int64_t> streamDim;
  int64_t streamChunks = 0;
  SmallVector<int64_t> order;
  SmallVector<bool> contiguity;
  bool streamChunked = false;

  void canonicalize() {
    llvm::sort(partialAxes);
    if (partialAxes.empty())
      partialKind = ReductionKind::Sum;
    if (!streamDim) {
      streamChunks = 0;
      streamChunked = false;
    }
    if (isIdentityOrder(order))
      order.clear();
    if (llvm::all_of(contiguity, [](bool c) { return c; }))
      contiguity.clear();
  }

  SmallVector<DenseI64ArrayAttr> dimAttrs(MLIRContext *context) const {
    return llvm::map_to_vector(dims, [&](const SmallVector<int64_t> &axes) {
      return DenseI64ArrayAttr::get(context, axes);
    });
  }
};
} // namespace

static ShardingParts
canonicalParts(ArrayRef<SmallVector<int64_t>> dimAxes,
               ArrayRef<int64_t> partialAxes, ReductionKind partialKind,
               std::optional<int64_t> streamDim, int64_t streamChunks,
               ArrayRef<int64_t> order, ArrayRef<bool> contiguity,
               bool streamChunked) {
  // Not llvm::to_vector for the bools: its brace-initialization turns two
  // iterators into an initializer_list<bool> of two elements.
  ShardingParts parts{llvm::to_vector(dimAxes), llvm::to_vector(partialAxes),
                      partialKind, streamDim, streamChunks,
                      llvm::to_vector(order),
                      SmallVector<bool>(contiguity.begin(), contiguity.end()),
                      streamChunked};
  parts.canonicalize();
  return parts;
}

ShardingAttr ShardingAttr::get(MeshAttr mesh,
                               ArrayRef<SmallVector<int64_t>> dimAxes,
                               ArrayRef<int64_t> partialAxes,
                               ReductionKind partialKind,
                               std::optional<int64_t> streamDim,
                               int64_t streamChunks, ArrayRef<int64_t> order,
                               ArrayRef<bool> contiguity, bool streamChunked) {
  ShardingParts parts = canonicalParts(dimAxes, partialAxes, partialKind,
                                       streamDim, streamChunks, order,
                                       contiguity, streamChunked);
  MLIRContext *context = mesh.getContext();
  return Base::get(context, mesh, parts.dimAttrs(context), parts.partialAxes,
                   parts.partialKind, parts.streamDim, parts.streamChunks,
                   parts.order, parts.contiguity, parts.streamChunked);
}

ShardingAttr ShardingAttr::getChecked(
    function_ref<InFlightDiagnostic()> emitError, MeshAttr mesh,
    ArrayRef<SmallVector<int64_t>> dimAxes, ArrayRef<int64_t> partialAxes,
    ReductionKind partialKind, std::optional<int64_t> streamDim,
    int64_t streamChunks, ArrayRef<int64_t> order, ArrayRef<bool> contiguity,
    bool streamChunked) {
  // The mesh gives the context; without one there is nothing to build.
  if (!mesh) {
    emitError() << "sharding needs a #fuser.mesh";
    return {};
  }
  ShardingParts parts = canonicalParts(dimAxes, partialAxes, partialKind,
                                       streamDim, streamChunks, order,
                                       contiguity, streamChunked);
  MLIRContext *context = mesh.getContext();
  return Base::getChecked(emitError, context, mesh, parts.dimAttrs(context),
                          parts.partialAxes, parts.partialKind,
                          parts.streamDim, parts.streamChunks, parts.order,
                          parts.contiguity, parts.streamChunked);
}

//===----------------------------------------------------------------------===//
// Syntax: <MESH, [[axes], ...] (, partial = {axis : kind, ...})?
//          (, stream = {dim : chunks})? (, order = [...])?
//          (, contiguity = [true|false, ...])?>
//===----------------------------------------------------------------------===//

static ParseResult parseIntList(AsmParser &parser, SmallVectorImpl<int64_t> &into) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
    return parser.parseInteger(into.emplace_back());
  });
}

static ParseResult parsePartial(AsmParser &parser, ShardingParts &parts) {
  std::optional<ReductionKind> kind;
  std::optional<int64_t> kindAxis;
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Braces, [&]() -> ParseResult {
        SMLoc loc = parser.getCurrentLocation();
        int64_t axis;
        StringRef keyword;
        if (parser.parseInteger(axis) || parser.parseColon() ||
            parser.parseKeyword(&keyword))
          return failure();
        std::optional<ReductionKind> axisKind = symbolizeReductionKind(keyword);
        if (!axisKind)
          return parser.emitError(loc) << "unknown reduction kind '" << keyword
                                       << "' for partial mesh axis " << axis;
        if (kind && *kind != *axisKind)
          return parser.emitError(loc)
                 << "partial mesh axes " << *kindAxis << " ("
                 << stringifyReductionKind(*kind) << ") and " << axis << " ("
                 << keyword << ") have different reduction kinds";
        kind = axisKind;
        kindAxis = axis;
        parts.partialKind = *kind;
        parts.partialAxes.push_back(axis);
        return success();
      });
}

static ParseResult parseStream(AsmParser &parser, ShardingParts &parts) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Braces, [&]() -> ParseResult {
        SMLoc loc = parser.getCurrentLocation();
        int64_t dim, chunks;
        if (parser.parseInteger(dim) || parser.parseColon() ||
            parser.parseInteger(chunks))
          return failure();
        if (parts.streamDim)
          return parser.emitError(loc)
                 << "stream split on two dims (" << *parts.streamDim << " and "
                 << dim << "); at most one dim can be stream-split";
        parts.streamDim = dim;
        parts.streamChunks = chunks;
        parts.streamChunked = succeeded(parser.parseOptionalKeyword("chunked"));
        return success();
      });
}

static ParseResult parseContiguity(AsmParser &parser, ShardingParts &parts) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        SMLoc loc = parser.getCurrentLocation();
        StringRef keyword;
        if (parser.parseKeyword(&keyword))
          return failure();
        if (keyword != "true" && keyword != "false")
          return parser.emitError(loc)
                 << "expected 'true' or 'false' in contiguity, got '"
                 << keyword << "'";
        parts.contiguity.push_back(keyword == "true");
        return success();
      });
}

Attribute ShardingAttr::parse(AsmParser &parser, Type) {
  SMLoc loc = parser.getCurrentLocation();
  MeshAttr mesh;
  ShardingParts parts;
  if (parser.parseLess() || parser.parseAttribute(mesh) || parser.parseComma())
    return {};
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
        return parseIntList(parser, parts.dims.emplace_back());
      }))
    return {};
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc fieldLoc = parser.getCurrentLocation();
    StringRef field;
    if (parser.parseKeyword(&field) || parser.parseEqual())
      return {};
    if (!seen.insert(field).second) {
      parser.emitError(fieldLoc) << "sharding field '" << field
                                 << "' given twice";
      return {};
    }
    ParseResult result = failure();
    if (field == "partial")
      result = parsePartial(parser, parts);
    else if (field == "stream")
      result = parseStream(parser, parts);
    else if (field == "order")
      result = parseIntList(parser, parts.order);
    else if (field == "contiguity")
      result = parseContiguity(parser, parts);
    else
      parser.emitError(fieldLoc)
          << "unknown sharding field '" << field
          << "'; expected partial, stream, order or contiguity";
    if (failed(result))
      return {};
  }
  if (parser.parseGreater())
    return {};
  parts.canonicalize();
  MLIRContext *context = parser.getContext();
  return parser.getChecked<ShardingAttr>(
      loc, context, mesh, parts.dimAttrs(context), parts.partialAxes,
      parts.partialKind, parts.streamDim, parts.streamChunks, parts.order,
      parts.contiguity, parts.streamChunked);
}

void ShardingAttr::print(AsmPrinter &printer) const {
  printer << "<";
  printer.printAttribute(getMesh());
  printer << ", [";
  llvm::interleaveComma(getDims(), printer, [&](DenseI64ArrayAttr axes) {
    printer << "[";
    llvm::interleaveComma(axes.asArrayRef(), printer);
    printer << "]";
  });
  printer << "]";
  if (isPartial()) {
    printer << ", partial = {";
    llvm::interleaveComma(getPartialAxes(), printer, [&](int64_t axis) {
      printer << axis << " : " << stringifyReductionKind(getPartialKind());
    });
    printer << "}";
  }
  if (getStreamDim())
    printer << ", stream = {" << *getStreamDim() << " : " << getStreamChunks()
            << (getStreamChunked() ? " chunked" : "") << "}";
  if (!getOrder().empty()) {
    printer << ", order = [";
    llvm::interleaveComma(getOrder(), printer);
    printer << "]";
  }
  if (!getContiguity().empty()) {
    printer << ", contiguity = [";
    llvm::interleaveComma(getContiguity(), printer,
                          [&](bool c) { printer << (c ? "true" : "false"); });
    printer << "]";
  }
  printer << ">";
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

LogicalResult ShardingAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, MeshAttr mesh,
    ArrayRef<DenseI64ArrayAttr> dims, ArrayRef<int64_t> partialAxes,
    ReductionKind partialKind, std::optional<int64_t> streamDim,
    int64_t streamChunks, ArrayRef<int64_t> order, ArrayRef<bool> contiguity,
    bool streamChunked) {
  if (!mesh)
    return emitError() << "sharding needs a #fuser.mesh";
  int64_t meshRank = mesh.getRank();
  // Who uses each mesh axis, for the "used twice" diagnostic.
  SmallVector<std::string> userOf(meshRank);
  auto claim = [&](int64_t axis, std::string user) -> LogicalResult {
    if (axis < 0 || axis >= meshRank)
      return emitError() << user << " uses mesh axis " << axis
                         << ", but the mesh has " << meshRank << " axes";
    if (!userOf[axis].empty())
      return emitError() << "mesh axis " << axis << " is used twice: by "
                         << userOf[axis] << " and by " << user;
    userOf[axis] = std::move(user);
    return success();
  };
  for (auto [dim, axes] : llvm::enumerate(dims))
    for (int64_t axis : axes.asArrayRef())
      if (failed(claim(axis, "dim " + std::to_string(dim))))
        return failure();
  for (int64_t axis : partialAxes)
    if (failed(claim(axis, "the partial state")))
      return failure();
  if (!llvm::is_sorted(partialAxes))
    return emitError() << "partial mesh axes must be sorted";
  if (partialAxes.empty() && partialKind != ReductionKind::Sum)
    return emitError() << "a reduction kind without partial mesh axes";

  int64_t rank = dims.size();
  if (streamDim) {
    if (*streamDim < 0 || *streamDim >= rank)
      return emitError() << "stream split of dim " << *streamDim
                         << ", but the sharding has " << rank << " dims";
    if (streamChunks < 1)
      return emitError() << "stream split of dim " << *streamDim << " into "
                         << streamChunks << " chunks; need at least 1";
  } else if (streamChunks != 0 || streamChunked) {
    return emitError() << "stream chunks without a stream-split dim";
  }
  if (!order.empty()) {
    SmallVector<bool> seen(rank, false);
    bool isPermutation = static_cast<int64_t>(order.size()) == rank;
    for (int64_t dim : order) {
      if (!isPermutation || dim < 0 || dim >= rank || seen[dim]) {
        isPermutation = false;
        break;
      }
      seen[dim] = true;
    }
    if (!isPermutation) {
      InFlightDiagnostic diag = emitError() << "order [";
      llvm::interleaveComma(order, diag);
      return diag << "] is not a permutation of the " << rank << " dims";
    }
  }
  if (!order.empty() && isIdentityOrder(order))
    return emitError() << "the identity order is the default; omit it";
  if (!contiguity.empty() && static_cast<int64_t>(contiguity.size()) != rank)
    return emitError() << "contiguity has " << contiguity.size()
                       << " entries for " << rank << " dims";
  if (!contiguity.empty() && llvm::all_of(contiguity, [](bool c) { return c; }))
    return emitError() << "all-true contiguity is the default; omit it";
  return success();
}

std::string ShardingAttr::checkShape(ArrayRef<int64_t> shape) const {
  if (static_cast<int64_t>(shape.size()) != getRank())
    return "sharding describes " + std::to_string(getRank()) +
           " dims but the tensor has rank " + std::to_string(shape.size());
  ::fuser::Shape globalShape(shape.begin(), shape.end());
  std::string problem =
      ::fuser::checkDivisible(globalShape, toDimAxes(), getMesh().toMesh());
  if (!problem.empty())
    return problem;
  if (std::optional<int64_t> dim = getStreamDim()) {
    int64_t localSize = getLocalShape(shape)[*dim];
    if (!ShapedType::isDynamic(localSize) && localSize % getStreamChunks() != 0)
      return "stream split of dim " + std::to_string(*dim) + " into " +
             std::to_string(getStreamChunks()) +
             " chunks does not divide its local size " +
             std::to_string(localSize);
  }
  return {};
}

LogicalResult ShardingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type,
    function_ref<InFlightDiagnostic()> emitError) const {
  std::string problem = checkShape(shape);
  if (!problem.empty())
    return emitError() << problem;
  return success();
}

//===----------------------------------------------------------------------===//
// Queries and derived shardings
//===----------------------------------------------------------------------===//

::fuser::DimAxes ShardingAttr::toDimAxes() const {
  ::fuser::DimAxes result;
  for (DenseI64ArrayAttr axes : getDims())
    result.emplace_back(axes.asArrayRef().begin(), axes.asArrayRef().end());
  return result;
}

std::optional<int64_t> ShardingAttr::getDimSplitBy(int64_t axis) const {
  for (auto [dim, axes] : llvm::enumerate(getDims()))
    if (llvm::is_contained(axes.asArrayRef(), axis))
      return dim;
  return std::nullopt;
}

bool ShardingAttr::isPartialOver(int64_t axis) const {
  return llvm::is_contained(getPartialAxes(), axis);
}

int64_t ShardingAttr::getNumUsedAxes() const {
  int64_t count = getPartialAxes().size();
  for (DenseI64ArrayAttr axes : getDims())
    count += axes.size();
  return count;
}

int64_t ShardingAttr::getNumShards(int64_t dim) const {
  return getMesh().toMesh().axesSize(toDimAxes()[dim]);
}

SmallVector<int64_t>
ShardingAttr::getLocalShape(ArrayRef<int64_t> globalShape) const {
  ::fuser::Shape local = ::fuser::localShape(
      {globalShape.begin(), globalShape.end()}, toDimAxes(), getMesh().toMesh());
  return SmallVector<int64_t>(local.begin(), local.end());
}

ShardingAttr
ShardingAttr::withDims(ArrayRef<SmallVector<int64_t>> dimAxes) const {
  return get(getMesh(), dimAxes, getPartialAxes(), getPartialKind(),
             getStreamDim(), getStreamChunks(), getOrder(), getContiguity(),
             getStreamChunked());
}

SmallVector<SmallVector<int64_t>> ShardingAttr::getDimAxesList() const {
  return llvm::map_to_vector(getDims(), [](DenseI64ArrayAttr axes) {
    return llvm::to_vector(axes.asArrayRef());
  });
}

ShardingAttr ShardingAttr::withPartial(ArrayRef<int64_t> axes,
                                       ReductionKind kind) const {
  return get(getMesh(), getDimAxesList(), axes, kind, getStreamDim(),
             getStreamChunks(), getOrder(), getContiguity(),
             getStreamChunked());
}

ShardingAttr ShardingAttr::withoutPartialAxis(int64_t axis) const {
  SmallVector<int64_t> axes(getPartialAxes());
  llvm::erase(axes, axis);
  return withPartial(axes, getPartialKind());
}

ShardingAttr ShardingAttr::withMesh(MeshAttr mesh) const {
  return get(mesh, getDimAxesList(), getPartialAxes(), getPartialKind(),
             getStreamDim(), getStreamChunks(), getOrder(), getContiguity(),
             getStreamChunked());
}

ShardingAttr ShardingAttr::withoutAxis(int64_t axis) const {
  SmallVector<SmallVector<int64_t>> dims = getDimAxesList();
  for (SmallVector<int64_t> &axes : dims)
    llvm::erase(axes, axis);
  return withDims(dims);
}

ShardingAttr ShardingAttr::withAxisOnDim(int64_t axis, int64_t dim,
                                         int64_t position) const {
  SmallVector<SmallVector<int64_t>> dims = withoutAxis(axis).getDimAxesList();
  SmallVector<int64_t> &axes = dims[dim];
  axes.insert(axes.begin() + std::min<int64_t>(position, axes.size()), axis);
  return withDims(dims);
}

ShardingAttr ShardingAttr::withStream(std::optional<int64_t> dim,
                                      int64_t chunks, bool chunked) const {
  return get(getMesh(), getDimAxesList(), getPartialAxes(), getPartialKind(),
             dim, chunks, getOrder(), getContiguity(), chunked);
}

bool ShardingAttr::hasSamePlacement(ShardingAttr other) const {
  return getMesh() == other.getMesh() && getDims() == other.getDims() &&
         getPartialAxes() == other.getPartialAxes() &&
         getPartialKind() == other.getPartialKind();
}
