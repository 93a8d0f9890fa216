//===- RuntimeCallLowering.h - what the host lowering's files share -*- C++ -*-===//
//
// Private to convert-hostir-to-llvm: the base of its patterns (runtime
// calls, FuserBuffer arguments, stack slots, globals) and the lowering of
// kernel launches for GPUs (CudaLaunchLowering.cpp), the programs' packed
// entry points (PackedEntries.cpp), their early returns on a failed runtime
// call (FailurePaths.cpp).
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_LIB_CONVERSION_HOSTIRTOLLVM_RUNTIMECALLLOWERING_H
#define FUSER_LIB_CONVERSION_HOSTIRTOLLVM_RUNTIMECALLLOWERING_H

#include "fuser/Conversion/HostIRToLLVM/RuntimeABI.h"
#include "fuser/Dialect/HostIR/IR/HostIR.h"

#include "mlir/Conversion/LLVMCommon/MemRefBuilder.h"
#include "mlir/Conversion/LLVMCommon/Pattern.h"
#include "mlir/Dialect/LLVMIR/FunctionCallUtils.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"

namespace mlir::fuser::host_lowering {

/// The address of a constant global array of `values` in `module`.
Value getInt64Array(OpBuilder &builder, ModuleOp module, Location loc,
                    ArrayRef<int64_t> values);
/// The address of the NUL-terminated string `value` in a global named
/// `name`, created once.
Value getGlobalString(OpBuilder &builder, ModuleOp module, Location loc,
                      StringRef name, StringRef value);

/// Shared by the patterns: runtime calls and FuserBuffer arguments.
template <typename Op>
class RuntimeCallPattern : public ConvertOpToLLVMPattern<Op> {
public:
  using ConvertOpToLLVMPattern<Op>::ConvertOpToLLVMPattern;

protected:
  Type pointer() const {
    return LLVM::LLVMPointerType::get(this->getContext());
  }
  Type i64() const { return IntegerType::get(this->getContext(), 64); }
  Type i32() const { return IntegerType::get(this->getContext(), 32); }

  /// Calls the runtime function `name`; null result type for void.
  Value call(ConversionPatternRewriter &rewriter, Operation *op, StringRef name,
             Type result, ValueRange arguments) const {
    SmallVector<Type> types(arguments.getTypes());
    Operation *module = op->getParentWithTrait<mlir::OpTrait::SymbolTable>();
    while (module->getParentWithTrait<mlir::OpTrait::SymbolTable>())
      module = module->getParentWithTrait<mlir::OpTrait::SymbolTable>();
    FailureOr<LLVM::LLVMFuncOp> callee = LLVM::lookupOrCreateFn(
        rewriter, module, name, types,
        result ? result : LLVM::LLVMVoidType::get(this->getContext()));
    assert(succeeded(callee) && "runtime functions have one signature");
    auto callOp =
        LLVM::CallOp::create(rewriter, op->getLoc(), *callee, arguments);
    return result ? callOp.getResult() : Value();
  }
  /// `call`, then fuser_check on its status.
  void callChecked(ConversionPatternRewriter &rewriter, Operation *op,
                   StringRef name, ValueRange arguments) const {
    Value status = call(rewriter, op, name, i32(), arguments);
    call(rewriter, op, "fuser_check", Type(), status);
  }
  Value constant(ConversionPatternRewriter &rewriter, Location loc, Type type,
                 int64_t value) const {
    return LLVM::ConstantOp::create(rewriter, loc, type,
                                    rewriter.getIntegerAttr(type, value));
  }

  /// A stack slot of `type` in the function's entry block, so that loops
  /// reuse it.
  Value entrySlot(ConversionPatternRewriter &rewriter, Operation *op,
                  Type type) const {
    OpBuilder::InsertionGuard guard(rewriter);
    Operation *function = op->getParentOfType<FunctionOpInterface>();
    Block &entry = function->getRegion(0).front();
    rewriter.setInsertionPointToStart(&entry);
    Value one = constant(rewriter, op->getLoc(), i64(), 1);
    return LLVM::AllocaOp::create(rewriter, op->getLoc(), pointer(), type, one);
  }

  /// A FuserBuffer for the memref `original` whose descriptor is
  /// `descriptor`: {allocated, aligned, offset, rank, sizes, strides,
  /// dtype}. Its sizes and strides point into a copy of the descriptor in
  /// memory, read the way an unranked memref reads the ranked descriptor
  /// it points to.
  Value buffer(ConversionPatternRewriter &rewriter, Operation *op,
               Value original, Value descriptor) const {
    Location loc = op->getLoc();
    auto type = cast<MemRefType>(original.getType());
    MemRefDescriptor memref(descriptor);
    Value rank = constant(rewriter, loc, i64(), type.getRank());
    Value sizes, strides;
    if (type.getRank() == 0) {
      sizes = strides = LLVM::ZeroOp::create(rewriter, loc, pointer());
    } else {
      Value copy = entrySlot(rewriter, op, descriptor.getType());
      LLVM::StoreOp::create(rewriter, loc, descriptor, copy);
      const LLVMTypeConverter &converter = *this->getTypeConverter();
      sizes = UnrankedMemRefDescriptor::sizeBasePtr(
          rewriter, loc, converter, copy, memref.getElementPtrType());
      strides = UnrankedMemRefDescriptor::strideBasePtr(rewriter, loc,
                                                        converter, sizes, rank);
    }
    auto bufferType = LLVM::LLVMStructType::getLiteral(
        this->getContext(),
        {pointer(), pointer(), i64(), i64(), pointer(), pointer(), i32()});
    Value result = LLVM::PoisonOp::create(rewriter, loc, bufferType);
    std::optional<FuserDType> dtype =
        mlir::fuser::getRuntimeDType(type.getElementType());
    assert(dtype && "hostir buffers hold the runtime's element types");
    Value fields[] = {memref.allocatedPtr(rewriter, loc),
                      memref.alignedPtr(rewriter, loc),
                      memref.offset(rewriter, loc),
                      rank,
                      sizes,
                      strides,
                      constant(rewriter, loc, i32(), *dtype)};
    for (auto [index, field] : llvm::enumerate(fields))
      result = LLVM::InsertValueOp::create(rewriter, loc, result, field,
                                           static_cast<int64_t>(index));
    Value slot = entrySlot(rewriter, op, bufferType);
    LLVM::StoreOp::create(rewriter, loc, result, slot);
    return slot;
  }

  /// An array of `pointers` in a stack slot (what the runtime takes for a
  /// list of handles or of kernel parameters).
  Value pointerArray(ConversionPatternRewriter &rewriter, Operation *op,
                     ValueRange pointers) const {
    auto arrayType = LLVM::LLVMArrayType::get(pointer(), pointers.size());
    Value array = entrySlot(rewriter, op, arrayType);
    for (auto [index, element] : llvm::enumerate(pointers)) {
      Value slot = LLVM::GEPOp::create(
          rewriter, op->getLoc(), pointer(), arrayType, array,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(index)});
      LLVM::StoreOp::create(rewriter, op->getLoc(), element, slot);
    }
    return array;
  }

  Value int64Array(ConversionPatternRewriter &rewriter, Operation *op,
                   ArrayRef<int64_t> values) const {
    return getInt64Array(rewriter, op->getParentOfType<ModuleOp>(),
                         op->getLoc(), values);
  }

  /// A memref descriptor of `type` over `memory`.
  Value descriptorOver(ConversionPatternRewriter &rewriter, Location loc,
                       MemRefType type, Value memory) const {
    return MemRefDescriptor::fromStaticShape(
        rewriter, loc, *this->getTypeConverter(), type, memory);
  }
  Value bytesOf(ConversionPatternRewriter &rewriter, Location loc,
                MemRefType type) const {
    return constant(rewriter, loc, i64(), hostir::getBufferBytes(type));
  }
};

//===- GPU kernels (CudaLaunchLowering.cpp) -------------------------------===//

/// Reports a launch that target=cuda cannot lower: its kernel is not in a
/// gpu.binary (the kernel module was not compiled for GPUs) or the binary
/// holds no single object the driver can load.
LogicalResult checkCudaLaunch(hostir::LaunchOp launch);
/// Launches of kernels in gpu.binary ops: calls of fuser_launch_kernel
/// with the binary's image, each memref passed as a pointer to its first
/// element.
void populateCudaLaunchPatterns(LLVMTypeConverter &converter,
                                RewritePatternSet &patterns);
/// Erases the gpu.binary ops, whose images the launches now embed.
void eraseGpuBinaries(ModuleOp module);

//===- Failure paths (FailurePaths.cpp) -----------------------------------===//

/// Turns every check of a runtime call's status or result (the calls of
/// fuser_check and fuser_checked the patterns emit) into a branch to a
/// block that notes the failure and returns, so that the program's caller
/// gets the runtime's error instead of an aborted process.
void returnOnFailure(ModuleOp module);

//===- Entry points (PackedEntries.cpp) -----------------------------------===//

/// Adds to `module` the packed entry point of the C entry point `entry`
/// (kPackedEntryPrefix + the program's name), which loads each argument
/// from the array it is given and calls `entry`.
void emitPackedEntry(ModuleOp module, LLVM::LLVMFuncOp entry);

} // namespace mlir::fuser::host_lowering

#endif // FUSER_LIB_CONVERSION_HOSTIRTOLLVM_RUNTIMECALLLOWERING_H
