//===- HostIROps.cpp - hostir op verifiers --------------------------------===//

#include "fuser/Dialect/HostIR/IR/HostIR.h"

#include "fuser/Dialect/Fuser/IR/ShapeRules.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

using namespace mlir;
using namespace mlir::hostir;

#define GET_OP_CLASSES
#include "fuser/Dialect/HostIR/IR/HostIROps.cpp.inc"

bool mlir::hostir::isDense(MemRefType type) {
  if (type.getLayout().isIdentity())
    return true;
  SmallVector<int64_t> strides;
  int64_t offset;
  if (failed(type.getStridesAndOffset(strides, offset)) ||
      !type.hasStaticShape())
    return false;
  SmallVector<int64_t> dims;
  for (int64_t dim = 0; dim < type.getRank(); ++dim)
    if (type.getDimSize(dim) != 1)
      dims.push_back(dim);
  if (llvm::any_of(dims, [&](int64_t dim) {
        return ShapedType::isDynamic(strides[dim]);
      }))
    return false;
  llvm::sort(dims, [&](int64_t a, int64_t b) { return strides[a] < strides[b]; });
  int64_t expected = 1;
  for (int64_t dim : dims) {
    if (strides[dim] != expected)
      return false;
    expected *= type.getDimSize(dim);
  }
  return true;
}

bool mlir::hostir::canViewStorage(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset = 0;
  return type.hasStaticShape() && isDense(type) &&
         succeeded(type.getStridesAndOffset(strides, offset)) && offset == 0;
}

int64_t mlir::hostir::getBufferBytes(MemRefType type) {
  return type.getNumElements() * fuser::getElementBytes(type.getElementType());
}

LogicalResult TeamOp::verify() {
  fuser::MeshAttr mesh = getMesh();
  ArrayRef<int64_t> axes = getAxes();
  if (axes.empty())
    return emitOpError("needs at least one mesh axis");
  SmallVector<bool> seen(mesh.getRank(), false);
  int64_t size = 1;
  for (int64_t axis : axes) {
    if (axis < 0 || axis >= mesh.getRank())
      return emitOpError("mesh axis ")
             << axis << " is out of range for a mesh of " << mesh.getRank()
             << " axes";
    if (seen[axis])
      return emitOpError("mesh axis ") << axis << " is listed twice";
    seen[axis] = true;
    size *= mesh.getAxisSize(axis);
  }
  if (getTeam().getType().getSize() != size)
    return emitOpError("team type has size ")
           << getTeam().getType().getSize() << " but mesh axes [" << axes
           << "] span " << size << " ranks";
  return success();
}

/// Whether `type` is what a GPU kernel can declare for a memref parameter:
/// it receives a pointer to the first element, so everything else about
/// the buffer (sizes, strides) must be in the type and the offset is 0.
static bool isFirstElementParameter(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return type.hasStaticShape() &&
         succeeded(type.getStridesAndOffset(strides, offset)) && offset == 0 &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

/// Whether a GPU kernel's memref `parameter` (offset 0) takes `argument`,
/// whose first element the launch passes a pointer to: the same buffer but
/// for the offset or, where the argument's strides are known only at run
/// time, a one-element buffer the kernel rebuilds the view from (with the
/// strides, which it takes as index parameters).
static bool takesFirstElementOf(MemRefType parameter, MemRefType argument) {
  SmallVector<int64_t> parameterStrides, argumentStrides;
  int64_t parameterOffset, argumentOffset;
  if (parameter.getElementType() != argument.getElementType() ||
      parameter.getMemorySpace() != argument.getMemorySpace() ||
      failed(parameter.getStridesAndOffset(parameterStrides,
                                           parameterOffset)) ||
      failed(argument.getStridesAndOffset(argumentStrides, argumentOffset)))
    return false;
  if (llvm::any_of(argumentStrides, ShapedType::isDynamic))
    return parameter.getShape() == ArrayRef<int64_t>{1} &&
           parameter.getLayout().isIdentity();
  return parameter.getShape() == argument.getShape() &&
         parameterStrides == argumentStrides;
}

LogicalResult LaunchOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  // A kernel module compiled to GPU code (gpu-module-to-binary) no longer
  // shows its kernels' signatures.
  if (isa_and_nonnull<gpu::BinaryOp>(symbolTable.lookupNearestSymbolFrom(
          *this, getKernel().getRootReference()))) {
    if (getKernel().getNestedReferences().empty())
      return emitOpError("kernel ")
             << getKernel() << " is a gpu.binary; name a kernel in it";
    return success();
  }
  Operation *kernel = symbolTable.lookupNearestSymbolFrom(*this, getKernel());
  if (!kernel)
    return emitOpError("kernel ") << getKernel() << " not found";
  auto function = dyn_cast<FunctionOpInterface>(kernel);
  if (!function)
    return emitOpError("kernel ") << getKernel() << " is not a function";
  // A kernel already in the LLVM dialect takes each memref as its expanded
  // descriptor; lowering the launch expands the arguments the same way.
  if (isa<LLVM::LLVMFuncOp>(kernel))
    return success();
  auto gpuKernel = dyn_cast<gpu::GPUFuncOp>(kernel);
  if (gpuKernel && !gpuKernel.isKernel())
    return emitOpError("kernel ")
           << getKernel()
           << " is a gpu.func without the gpu.kernel attribute: only "
              "kernels can be launched";
  ArrayRef<Type> parameters = function.getArgumentTypes();
  OperandRange arguments = getKernelOperands();
  if (parameters.size() != arguments.size())
    return emitOpError("kernel ")
           << getKernel() << " takes " << parameters.size()
           << " arguments but the launch passes " << arguments.size();
  for (auto [index, parameter, argument] :
       llvm::enumerate(parameters, arguments.getTypes())) {
    auto memrefParameter = dyn_cast<MemRefType>(parameter);
    auto memrefArgument = dyn_cast<MemRefType>(argument);
    // GPU kernels take each memref as one pointer to its first element.
    if (gpuKernel && memrefParameter) {
      if (!isFirstElementParameter(memrefParameter))
        return emitOpError("kernel ")
               << getKernel() << " parameter #" << index << " has type "
               << parameter
               << ": a GPU kernel receives a pointer to a memref's first "
                  "element, so its memref parameters have static sizes and "
                  "strides and offset 0";
      if (!memrefArgument ||
          !takesFirstElementOf(memrefParameter, memrefArgument))
        return emitOpError("argument #")
               << index << " has type " << argument << " but kernel "
               << getKernel() << " expects " << parameter << " at any offset";
      continue;
    }
    if (parameter != argument)
      return emitOpError("argument #")
             << index << " has type " << argument << " but kernel "
             << getKernel() << " expects " << parameter;
  }
  return success();
}

/// Reports an output buffer whose shape is not `expected`.
static LogicalResult verifyOutputShape(Operation *op, MemRefType input,
                                       MemRefType out,
                                       ArrayRef<int64_t> expected) {
  if (out.getElementType() != input.getElementType())
    return op->emitOpError("output element type ")
           << out.getElementType() << " differs from the inputs' "
           << input.getElementType();
  if (out.getShape() != expected)
    return op->emitOpError("output shape [")
           << out.getShape() << "] differs from the computed shape ["
           << expected << "]";
  return success();
}

LogicalResult MatmulOp::verify() {
  FailureOr<SmallVector<int64_t>> shape = fuser::getMatmulShape(
      getLoc(), getLhs().getType(), getRhs().getType());
  if (failed(shape) || failed(verifyOutputShape(*this, getLhs().getType(),
                                                getOut().getType(), *shape)))
    return failure();
  return fuser::verifyActivation(*this, getActivation(),
                                 getOut().getType().getElementType());
}

LogicalResult LinearOp::verify() {
  ShapedType bias;
  if (getBias())
    bias = cast<ShapedType>(getBias().getType());
  FailureOr<SmallVector<int64_t>> shape = fuser::getLinearShape(
      getLoc(), getInput().getType(), getWeight().getType(), bias);
  if (failed(shape) || failed(verifyOutputShape(*this, getInput().getType(),
                                                getOut().getType(), *shape)))
    return failure();
  return fuser::verifyActivation(*this, getActivation(),
                                 getOut().getType().getElementType());
}

/// `buffer` has `expected`'s shape and `elementType`.
static LogicalResult verifyAttentionBuffer(Operation *op, StringRef name,
                                           MemRefType buffer,
                                           ArrayRef<int64_t> expected,
                                           Type elementType) {
  if (buffer.getShape() != expected)
    return op->emitOpError(name)
           << " has shape [" << buffer.getShape() << "] but attention gives ["
           << expected << "]";
  if (buffer.getElementType() != elementType)
    return op->emitOpError(name) << " has element type "
                                 << buffer.getElementType() << ", expected "
                                 << elementType;
  return success();
}

LogicalResult SdpaOp::verify() {
  FailureOr<fuser::AttentionShapes> shapes = fuser::getAttentionShapes(
      getLoc(), getQuery().getType(), getKey().getType(), getValue().getType());
  Type elementType = getQuery().getType().getElementType();
  if (failed(shapes) ||
      failed(verifyAttentionBuffer(*this, "output", getOutput().getType(),
                                   shapes->output, elementType)) ||
      failed(verifyAttentionBuffer(*this, "log-sum-exp",
                                   getLogsumexp().getType(), shapes->logsumexp,
                                   Float32Type::get(getContext()))))
    return failure();
  return fuser::verifyAttentionSettings(
      *this, getScale().convertToDouble(),
      getDropoutProbability().convertToDouble());
}

LogicalResult SdpaBackwardOp::verify() {
  if (failed(fuser::verifyAttentionBackwardShapes(
          getLoc(), getQuery().getType(), getKey().getType(),
          getValue().getType(), getOutput().getType(),
          getGradOutput().getType(), getLogsumexp().getType())))
    return failure();
  for (auto [name, gradient, primal] :
       {std::tuple<StringRef, MemRefType, MemRefType>{
            "query gradient", getGradQuery().getType(), getQuery().getType()},
        {"key gradient", getGradKey().getType(), getKey().getType()},
        {"value gradient", getGradValue().getType(), getValue().getType()}})
    if (failed(verifyAttentionBuffer(*this, name, gradient, primal.getShape(),
                                     primal.getElementType())))
      return failure();
  return fuser::verifyAttentionSettings(
      *this, getScale().convertToDouble(),
      getDropoutProbability().convertToDouble());
}

LogicalResult ReduceBlocksOp::verify() {
  MemRefType input = getInput().getType(), out = getOut().getType();
  if (input.getElementType() != out.getElementType())
    return emitOpError("input element type ")
           << input.getElementType() << " differs from output element type "
           << out.getElementType();
  for (auto [name, type] : {std::pair<StringRef, MemRefType>{"input", input},
                            {"output", out}}) {
    if (!type.hasStaticShape())
      return emitOpError() << name << " buffer " << type
                           << " needs a static shape";
    if (!isDense(type))
      return emitOpError() << name << " buffer " << type
                           << " has gaps; reduce_blocks needs dense buffers";
  }
  if (input.getRank() == 0 || input.getDimSize(0) == 0)
    return emitOpError("input ") << input << " has no leading dim of blocks";
  int64_t block = input.getNumElements() / input.getDimSize(0);
  if (out.getNumElements() != block)
    return emitOpError("output has ")
           << out.getNumElements() << " elements but a block of the input has "
           << block;
  return success();
}

LogicalResult CopyOp::verify() {
  MemRefType source = getSource().getType(), target = getTarget().getType();
  if (source.getElementType() != target.getElementType() ||
      source.getShape() != target.getShape())
    return emitOpError("source ")
           << source << " and target " << target
           << " differ in shape or element type";
  return success();
}

LogicalResult AllocateOp::verify() {
  MemRefType type = getBuffer().getType();
  if (getDynamicSizes().size() != type.getNumDynamicDims())
    return emitOpError("has ")
           << getDynamicSizes().size() << " dynamic sizes for "
           << type.getNumDynamicDims() << " dynamic dims of " << type;
  if (getMemory() == MemoryKind::Symmetric && !type.getLayout().isIdentity())
    return emitOpError("symmetric buffers are shared whole across ranks and "
                       "need the identity layout, got ")
           << type;
  return success();
}

Value AliasSelectOp::getViewSource() { return getBuffer(); }

LogicalResult AliasSelectOp::verify() {
  MemRefType buffer = getBuffer().getType(), view = getView().getType();
  int64_t dim = getDim(), chunks = getChunks();
  if (buffer.getElementType() != view.getElementType())
    return emitOpError("view element type ")
           << view.getElementType() << " differs from the buffer's "
           << buffer.getElementType();
  if (dim < 0 || dim >= buffer.getRank())
    return emitOpError("dim ") << dim << " is out of range for rank "
                               << buffer.getRank();
  if (chunks < 1)
    return emitOpError("chunks must be at least 1, got ") << chunks;
  if (view.getRank() != buffer.getRank())
    return emitOpError("view rank ")
           << view.getRank() << " differs from buffer rank "
           << buffer.getRank();
  int64_t size = buffer.getDimSize(dim);
  if (!ShapedType::isDynamic(size) && size % chunks != 0)
    return emitOpError("dim ") << dim << " of size " << size
                               << " does not split into " << chunks
                               << " chunks";
  SmallVector<int64_t> expected(buffer.getShape());
  if (!ShapedType::isDynamic(size))
    expected[dim] = size / chunks;
  if (view.getShape() != ArrayRef<int64_t>(expected))
    return emitOpError("view shape [")
           << view.getShape() << "] differs from the chunk shape [" << expected
           << "]";
  return success();
}

SmallVector<Value> mlir::hostir::getPostedBuffers(Operation *poster) {
  SmallVector<Value> buffers;
  auto collect = [&](Operation *op) {
    for (Value operand : op->getOperands())
      if (isa<MemRefType>(operand.getType()))
        buffers.push_back(operand);
  };
  if (!poster)
    return buffers;
  if (auto group = dyn_cast<CoalesceOp>(poster)) {
    for (Block &body : group.getBody())
      for (Operation &member : body)
        collect(&member);
    return buffers;
  }
  collect(poster);
  return buffers;
}

/// Whether `op` posts a communication (the effect collectives and
/// point-to-point transfers declare in ODS), or a group of them.
static bool postsCommunication(Operation *op) {
  if (isa<CoalesceOp>(op))
    return true;
  auto effects = dyn_cast<MemoryEffectOpInterface>(op);
  if (!effects)
    return false;
  SmallVector<MemoryEffects::EffectInstance> posted;
  effects.getEffectsOnResource(CommunicationResource::get(), posted);
  return !posted.empty();
}

LogicalResult WaitOp::verify() {
  // A handle passed through control flow would hide which buffers the
  // communication still uses: the wait goes where the work is posted.
  Operation *poster = getWork().getDefiningOp();
  if (!poster || !postsCommunication(poster))
    return emitOpError("waits on a work handle that no communication of this "
                       "program posted");
  SmallVector<Value> posted = getPostedBuffers(poster);
  if (!llvm::equal(getBuffers(), posted))
    return emitOpError("must name the buffers its communication uses: the ")
           << posted.size() << " memref operands of '" << poster->getName()
           << "' in order, not these " << getBuffers().size();
  return success();
}

LogicalResult CachedBufferOp::verify() {
  MemRefType type = getType();
  if (getStorage() &&
      (type.getRank() != 1 || !type.hasStaticShape() ||
       !type.getLayout().isIdentity() || !type.getElementType().isInteger(8)))
    return emitOpError("storage must be a static 1-D buffer of bytes "
                       "(memref<Nxi8>), not ")
           << type;
  return success();
}

LogicalResult
GetCachedBufferOp::verifySymbolUses(SymbolTableCollection &symbolTable) {
  auto buffer = symbolTable.lookupNearestSymbolFrom<CachedBufferOp>(
      *this, getBufferAttr());
  if (!buffer)
    return emitOpError("no hostir.cached_buffer named ") << getBufferAttr();
  MemRefType declared = buffer.getType();
  auto result = cast<MemRefType>(getResult().getType());
  if (declared == result)
    return success();
  if (!buffer.getStorage())
    return emitOpError("result type ")
           << result << " differs from the cached buffer's " << declared;
  if (!canViewStorage(result))
    return emitOpError("a view of the storage ")
           << getBufferAttr()
           << " needs a static, dense type at offset 0, not " << result;
  if (result.getMemorySpace() != declared.getMemorySpace())
    return emitOpError("result type ")
           << result << " is in another memory space than the cached buffer's "
           << declared;
  if (getBufferBytes(result) > getBufferBytes(declared))
    return emitOpError("result type ")
           << result << " takes " << getBufferBytes(result)
           << " bytes, more than the " << getBufferBytes(declared)
           << " of the cached buffer";
  return success();
}
