//===- FuserAttrs.cpp - #fuser.mesh and #fuser.sharding -------------------===//

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::fuser;

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

//===----------------------------------------------------------------------===//
// #fuser.sharding syntax: the custom directives of its assembly format,
// <MESH, [[axes], ...] (, partial = {axis : kind, ...})?
//  (, stream = {dim : chunks chunked?})? (, order = [...])?
//  (, contiguity = [true|false, ...])?>, the optional fields in any order.
//===----------------------------------------------------------------------===//

/// The layout attribute of `order` and `contiguity` for `rank` dims in
/// canonical form: row-major order and all-contiguous dims unstated, none
/// when both are. Lists of another length stay for the verifier to report.
static LayoutAttr getStatedLayout(MLIRContext *context, int64_t rank,
                                  ArrayRef<int64_t> order,
                                  ArrayRef<bool> contiguity) {
  if (static_cast<int64_t>(order.size()) == rank && isIdentityOrder(order))
    order = {};
  if (static_cast<int64_t>(contiguity.size()) == rank &&
      llvm::all_of(contiguity, [](bool c) { return c; }))
    contiguity = {};
  if (order.empty() && contiguity.empty())
    return {};
  return LayoutAttr::get(context, order, contiguity);
}

/// The mesh, reporting only its own diagnostic when it is invalid.
static ParseResult parseMesh(AsmParser &parser, MeshAttr &mesh) {
  return parser.parseAttribute(mesh);
}

static void printMesh(AsmPrinter &printer, MeshAttr mesh) {
  printer.printAttribute(mesh);
}

static ParseResult parseIntList(AsmParser &parser,
                                SmallVectorImpl<int64_t> &into) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
    return parser.parseInteger(into.emplace_back());
  });
}

static ParseResult parseDimAxes(AsmParser &parser,
                                SmallVector<DenseI64ArrayAttr> &dims) {
  return parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&]() {
    SmallVector<int64_t> axes;
    if (parseIntList(parser, axes))
      return failure();
    dims.push_back(DenseI64ArrayAttr::get(parser.getContext(), axes));
    return success();
  });
}

static void printDimAxes(AsmPrinter &printer,
                         ArrayRef<DenseI64ArrayAttr> dims) {
  printer << "[";
  llvm::interleaveComma(dims, printer, [&](DenseI64ArrayAttr axes) {
    printer << "[";
    llvm::interleaveComma(axes.asArrayRef(), printer);
    printer << "]";
  });
  printer << "]";
}

/// `{axis : kind, ...}`; every axis of one kind. No axes: not partial.
static ParseResult parsePartial(AsmParser &parser, PartialAttr &partial) {
  SMLoc loc = parser.getCurrentLocation();
  SmallVector<int64_t> axes;
  std::optional<ReductionKind> kind;
  if (parser.parseCommaSeparatedList(
          AsmParser::Delimiter::Braces, [&]() -> ParseResult {
            SMLoc axisLoc = parser.getCurrentLocation();
            int64_t axis;
            StringRef keyword;
            if (parser.parseInteger(axis) || parser.parseColon() ||
                parser.parseKeyword(&keyword))
              return failure();
            std::optional<ReductionKind> axisKind =
                symbolizeReductionKind(keyword);
            if (!axisKind)
              return parser.emitError(axisLoc)
                     << "unknown reduction kind '" << keyword
                     << "' for partial mesh axis " << axis;
            if (kind && *kind != *axisKind)
              return parser.emitError(axisLoc)
                     << "partial mesh axes " << axes.back() << " ("
                     << stringifyReductionKind(*kind) << ") and " << axis
                     << " (" << keyword << ") have different reduction kinds";
            kind = axisKind;
            axes.push_back(axis);
            return success();
          }))
    return failure();
  if (axes.empty())
    return success();
  // An ArrayRef selects the sorting builder over the base class's generic one.
  partial = parser.getChecked<PartialAttr>(loc, parser.getContext(),
                                           ArrayRef<int64_t>(axes), *kind);
  return success(static_cast<bool>(partial));
}

/// `{dim : chunks}` or `{dim : chunks chunked}`; at most one dim.
static ParseResult parseStream(AsmParser &parser, StreamAttr &stream) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Braces, [&]() -> ParseResult {
        SMLoc loc = parser.getCurrentLocation();
        int64_t dim, chunks;
        if (parser.parseInteger(dim) || parser.parseColon() ||
            parser.parseInteger(chunks))
          return failure();
        if (stream)
          return parser.emitError(loc)
                 << "stream split on two dims (" << stream.getDim() << " and "
                 << dim << "); at most one dim can be stream-split";
        bool chunked = succeeded(parser.parseOptionalKeyword("chunked"));
        stream = StreamAttr::get(parser.getContext(), dim, chunks, chunked);
        return success();
      });
}

static ParseResult parseContiguity(AsmParser &parser,
                                   SmallVectorImpl<bool> &contiguity) {
  return parser.parseCommaSeparatedList(
      AsmParser::Delimiter::Square, [&]() -> ParseResult {
        SMLoc loc = parser.getCurrentLocation();
        StringRef keyword;
        if (parser.parseKeyword(&keyword))
          return failure();
        if (keyword != "true" && keyword != "false")
          return parser.emitError(loc)
                 << "expected 'true' or 'false' in contiguity, got '" << keyword
                 << "'";
        contiguity.push_back(keyword == "true");
        return success();
      });
}

static ParseResult parseShardingFields(AsmParser &parser,
                                       ArrayRef<DenseI64ArrayAttr> dims,
                                       PartialAttr &partial, StreamAttr &stream,
                                       LayoutAttr &layout) {
  SmallVector<int64_t> order;
  SmallVector<bool> contiguity;
  llvm::StringSet<> seen;
  while (succeeded(parser.parseOptionalComma())) {
    SMLoc loc = parser.getCurrentLocation();
    StringRef field;
    if (parser.parseKeyword(&field) || parser.parseEqual())
      return failure();
    if (!seen.insert(field).second)
      return parser.emitError(loc)
             << "sharding field '" << field << "' given twice";
    ParseResult result = failure();
    if (field == "partial")
      result = parsePartial(parser, partial);
    else if (field == "stream")
      result = parseStream(parser, stream);
    else if (field == "order")
      result = parseIntList(parser, order);
    else if (field == "contiguity")
      result = parseContiguity(parser, contiguity);
    else
      return parser.emitError(loc)
             << "unknown sharding field '" << field
             << "'; expected partial, stream, order or contiguity";
    if (failed(result))
      return failure();
  }
  layout = getStatedLayout(parser.getContext(), dims.size(), order, contiguity);
  return success();
}

static void printShardingFields(AsmPrinter &printer,
                                ArrayRef<DenseI64ArrayAttr> /*dims*/,
                                PartialAttr partial, StreamAttr stream,
                                LayoutAttr layout) {
  if (partial) {
    printer << ", partial = {";
    llvm::interleaveComma(partial.getAxes(), printer, [&](int64_t axis) {
      printer << axis << " : " << stringifyReductionKind(partial.getKind());
    });
    printer << "}";
  }
  if (stream)
    printer << ", stream = {" << stream.getDim() << " : " << stream.getChunks()
            << (stream.getChunked() ? " chunked" : "") << "}";
  if (!layout)
    return;
  if (!layout.getOrder().empty()) {
    printer << ", order = [";
    llvm::interleaveComma(layout.getOrder(), printer);
    printer << "]";
  }
  if (!layout.getContiguity().empty()) {
    printer << ", contiguity = [";
    llvm::interleaveComma(layout.getContiguity(), printer,
                          [&](bool c) { printer << (c ? "true" : "false"); });
    printer << "]";
  }
}

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

LogicalResult GPUScheduleAttr::verify(
    function_ref<InFlightDiagnostic()> emitError, GPUScheduleKind kind,
    int64_t blocks, int64_t threads, int64_t vectorWidth, int64_t rowsPerBlock,
    int64_t slices, std::optional<int64_t> loadDim,
    std::optional<int64_t> storeDim, int64_t groupsPerStep) {
  if (blocks < 1)
    return emitError() << "a GPU schedule launches at least one block, not "
                       << blocks;
  // CUDA's limit on a block, whatever the device.
  if (threads < 1 || threads > 1024)
    return emitError() << "a block of " << threads
                       << " threads; blocks hold 1 to 1024";
  if (vectorWidth < 1 || !llvm::isPowerOf2_64(vectorWidth))
    return emitError() << "vector width " << vectorWidth
                       << " is not a power of two";
  bool rows = kind == GPUScheduleKind::Rows;
  bool outer = kind == GPUScheduleKind::OuterReduction;
  bool transpose = kind == GPUScheduleKind::Transpose;
  if (rowsPerBlock < 1 || (!rows && rowsPerBlock != 1) ||
      threads % rowsPerBlock != 0)
    return emitError() << "rows_per_block = " << rowsPerBlock
                       << " is for a rows schedule whose threads it divides";
  if (slices < 1 || (!outer && slices != 1) || threads % slices != 0)
    return emitError() << "slices = " << slices
                       << " is for an outer_reduction schedule whose "
                          "threads it divides";
  if (transpose != (loadDim && storeDim) || transpose != (loadDim || storeDim))
    return emitError() << "load_dim and store_dim belong to transpose "
                          "schedules, which need both";
  if (groupsPerStep < 1 ||
      (kind != GPUScheduleKind::Pointwise && groupsPerStep != 1))
    return emitError() << "groups_per_step = " << groupsPerStep
                       << " is for a pointwise schedule, at least 1";
  if (transpose && (*loadDim < 0 || *storeDim < 0 || *loadDim == *storeDim))
    return emitError() << "a transpose tile spans two different dims, not "
                       << *loadDim << " and " << *storeDim;
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

static SmallVector<DenseI64ArrayAttr>
getDimAttrs(MLIRContext *context, ArrayRef<SmallVector<int64_t>> dimAxes) {
  return llvm::map_to_vector(dimAxes, [&](const SmallVector<int64_t> &axes) {
    return DenseI64ArrayAttr::get(context, axes);
  });
}

ShardingAttr ShardingAttr::get(MeshAttr mesh,
                               ArrayRef<SmallVector<int64_t>> dimAxes,
                               PartialAttr partial, StreamAttr stream,
                               LayoutAttr layout) {
  MLIRContext *context = mesh.getContext();
  return get(context, mesh, getDimAttrs(context, dimAxes), partial, stream,
             layout);
}

ShardingAttr
ShardingAttr::getChecked(function_ref<InFlightDiagnostic()> emitError,
                         MeshAttr mesh, ArrayRef<SmallVector<int64_t>> dimAxes,
                         PartialAttr partial, StreamAttr stream,
                         LayoutAttr layout) {
  // The mesh gives the context; without one there is nothing to build.
  if (!mesh) {
    emitError() << "sharding needs a #fuser.mesh";
    return {};
  }
  MLIRContext *context = mesh.getContext();
  return getChecked(emitError, context, mesh, getDimAttrs(context, dimAxes),
                    partial, stream, layout);
}

//===----------------------------------------------------------------------===//
// Verification
//===----------------------------------------------------------------------===//

LogicalResult PartialAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                  ArrayRef<int64_t> axes, ReductionKind) {
  if (axes.empty())
    return emitError() << "a partial state needs at least one mesh axis";
  if (!llvm::is_sorted(axes))
    return emitError() << "partial mesh axes must be sorted";
  return success();
}

LogicalResult LayoutAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                 ArrayRef<int64_t> order,
                                 ArrayRef<bool> contiguity) {
  if (order.empty() && contiguity.empty())
    return emitError() << "a layout stating neither order nor contiguity; "
                          "omit it";
  return success();
}

LogicalResult ShardingAttr::verify(function_ref<InFlightDiagnostic()> emitError,
                                   MeshAttr mesh,
                                   ArrayRef<DenseI64ArrayAttr> dims,
                                   PartialAttr partial, StreamAttr stream,
                                   LayoutAttr layout) {
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
  if (partial)
    for (int64_t axis : partial.getAxes())
      if (failed(claim(axis, "the partial state")))
        return failure();

  // The parts' rules that depend on the rank or come first in the text are
  // checked here, in the order the fields are written.
  int64_t rank = dims.size();
  if (stream) {
    if (stream.getDim() < 0 || stream.getDim() >= rank)
      return emitError() << "stream split of dim " << stream.getDim()
                         << ", but the sharding has " << rank << " dims";
    if (stream.getChunks() < 1)
      return emitError() << "stream split of dim " << stream.getDim()
                         << " into " << stream.getChunks()
                         << " chunks; need at least 1";
  }
  if (!layout)
    return success();
  ArrayRef<int64_t> order = layout.getOrder();
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
    if (isIdentityOrder(order))
      return emitError() << "the identity order is the default; omit it";
  }
  ArrayRef<bool> contiguity = layout.getContiguity();
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

int64_t mlir::fuser::getElementBytes(Type elementType) {
  if (!elementType.isIntOrFloat())
    return 8;
  return std::max<int64_t>(
      1, llvm::divideCeil(elementType.getIntOrFloatBitWidth(), 8));
}

LogicalResult ShardingAttr::verifyEncoding(
    ArrayRef<int64_t> shape, Type elementType,
    function_ref<InFlightDiagnostic()> emitError) const {
  std::string problem = checkShape(shape);
  if (!problem.empty())
    return emitError() << problem;
  // Buffer sizes, strides and offsets are int64 byte and element counts.
  // (The parser verifies a tensor type whose element type it could not
  // read with a null one, before it reports that.)
  int64_t bytes = elementType ? getElementBytes(elementType) : 1;
  for (int64_t size : shape)
    if (!ShapedType::isDynamic(size) && llvm::MulOverflow(bytes, size, bytes))
      return emitError() << "a tensor of shape [" << shape << "] and element "
                         << "type " << elementType
                         << " holds more than 2^63 bytes";
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

SmallVector<SmallVector<int64_t>> ShardingAttr::getDimAxesList() const {
  return llvm::map_to_vector(getDims(), [](DenseI64ArrayAttr axes) {
    return llvm::to_vector(axes.asArrayRef());
  });
}

ShardingAttr
ShardingAttr::withDims(ArrayRef<SmallVector<int64_t>> dimAxes) const {
  return get(getMesh(), dimAxes, getPartial(), getStream(), getLayout());
}

ShardingAttr ShardingAttr::withMesh(MeshAttr mesh) const {
  return get(getContext(), mesh, getDims(), getPartial(), getStream(),
             getLayout());
}

ShardingAttr ShardingAttr::withPartial(ArrayRef<int64_t> axes,
                                       ReductionKind kind) const {
  PartialAttr partial =
      axes.empty() ? PartialAttr() : PartialAttr::get(getContext(), axes, kind);
  return get(getContext(), getMesh(), getDims(), partial, getStream(),
             getLayout());
}

ShardingAttr ShardingAttr::withoutPartialAxis(int64_t axis) const {
  SmallVector<int64_t> axes(getPartialAxes());
  llvm::erase(axes, axis);
  return withPartial(axes, getPartialKind());
}

ShardingAttr ShardingAttr::withStream(std::optional<int64_t> dim,
                                      int64_t chunks, bool chunked) const {
  StreamAttr stream =
      dim ? StreamAttr::get(getContext(), *dim, chunks, chunked) : StreamAttr();
  return get(getContext(), getMesh(), getDims(), getPartial(), stream,
             getLayout());
}

ShardingAttr ShardingAttr::withLayout(ArrayRef<int64_t> order,
                                      ArrayRef<bool> contiguity) const {
  return get(getContext(), getMesh(), getDims(), getPartial(), getStream(),
             getStatedLayout(getContext(), getRank(), order, contiguity));
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
