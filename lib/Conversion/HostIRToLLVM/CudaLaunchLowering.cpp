//===- CudaLaunchLowering.cpp - kernel launches on GPUs ------------------===//
//
// Under target=cuda the kernel module is compiled to a gpu.binary holding
// PTX (gpu-module-to-binary{format=isa}). Each binary becomes a constant
// global holding its image, and each launch a call of the runtime's
// fuser_launch_kernel with the image, the kernel's name, the kernel's cache
// slot (one global per kernel, shared by its launches: the runtime loads
// the image and looks the kernel up on the first launch only), the grid,
// the block, and the parameter array cuLaunchKernel takes.
//
// The kernel calling convention, which the GPU code generator relies on:
// each memref is one pointer to its first element (the descriptor's aligned
// pointer advanced by its offset, so that the kernel declares the memref
// with offset 0), indices are i64, other scalars are themselves.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCallLowering.h"

#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"

using namespace mlir;
using namespace mlir::fuser::host_lowering;
using mlir::hostir::LaunchOp;

namespace {
/// The driver reads PTX as a C string, and cubins and fatbinaries (which
/// the same call loads) as structures in place: the image is aligned for
/// them.
constexpr uint64_t kImageAlignment = 8;

/// The binary holding `launch`'s kernel, or null.
gpu::BinaryOp lookupBinary(LaunchOp launch) {
  return dyn_cast_or_null<gpu::BinaryOp>(SymbolTable::lookupNearestSymbolFrom(
      launch, launch.getKernel().getRootReference()));
}

/// The binary's one object (checkCudaLaunch saw to it), or null.
gpu::ObjectAttr getOnlyObject(gpu::BinaryOp binary) {
  ArrayAttr objects = binary.getObjects();
  return objects.size() == 1 ? dyn_cast<gpu::ObjectAttr>(objects[0])
                             : gpu::ObjectAttr();
}

struct CudaLaunchLowering : RuntimeCallPattern<LaunchOp> {
  using RuntimeCallPattern::RuntimeCallPattern;

  LogicalResult
  matchAndRewrite(LaunchOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    gpu::BinaryOp binary = lookupBinary(op);
    if (!binary)
      return rewriter.notifyMatchFailure(op, "kernel not in a gpu.binary");
    Location loc = op.getLoc();
    auto module = op->getParentOfType<ModuleOp>();
    StringRef kernel = op.getKernel().getLeafReference();
    Value image = getImage(rewriter, module, loc, binary);
    Value name = getGlobalString(
        rewriter, module, loc, ("__fuser_kernel_name." + kernel).str(), kernel);
    Value function = getFunctionSlot(
        rewriter, module, loc,
        ("__fuser_kernel." + binary.getName() + "." + kernel).str());

    SmallVector<Value> parameters;
    for (auto [original, converted] :
         llvm::zip(op.getKernelOperands(), adaptor.getKernelOperands())) {
      Value value = converted;
      if (auto type = dyn_cast<MemRefType>(original.getType()))
        value = MemRefDescriptor(converted).bufferPtr(
            rewriter, loc, *getTypeConverter(), type);
      Value slot = entrySlot(rewriter, op, value.getType());
      LLVM::StoreOp::create(rewriter, loc, value, slot);
      parameters.push_back(slot);
    }

    // A launch on a stream of its own makes it current for the launch.
    Value previous;
    if (adaptor.getStream()) {
      previous = call(rewriter, op, "fuser_get_current_stream", pointer(), {});
      call(rewriter, op, "fuser_set_current_stream", Type(),
           adaptor.getStream());
    }
    callChecked(rewriter, op, "fuser_launch_kernel",
                {image, name, function, adaptor.getGridX(), adaptor.getGridY(),
                 adaptor.getGridZ(), adaptor.getBlockX(), adaptor.getBlockY(),
                 adaptor.getBlockZ(), pointerArray(rewriter, op, parameters)});
    if (previous)
      call(rewriter, op, "fuser_set_current_stream", Type(), previous);
    rewriter.eraseOp(op);
    return success();
  }

  /// The address of the binary's image, NUL-terminated in a constant
  /// global created once per binary.
  Value getImage(ConversionPatternRewriter &rewriter, ModuleOp module,
                 Location loc, gpu::BinaryOp binary) const {
    std::string name = ("__fuser_gpu_binary." + binary.getName()).str();
    auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!global) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      std::string image =
          (getOnlyObject(binary).getObject().getValue() + Twine('\0')).str();
      global = LLVM::GlobalOp::create(
          rewriter, binary.getLoc(),
          LLVM::LLVMArrayType::get(rewriter.getI8Type(), image.size()),
          /*isConstant=*/true, LLVM::Linkage::Internal, name,
          rewriter.getStringAttr(image), kImageAlignment);
    }
    return LLVM::AddressOfOp::create(rewriter, loc, global);
  }

  /// The address of the kernel's cache slot: a pointer global, null until
  /// the runtime stores the loaded kernel in it.
  Value getFunctionSlot(ConversionPatternRewriter &rewriter, ModuleOp module,
                        Location loc, StringRef name) const {
    auto global = module.lookupSymbol<LLVM::GlobalOp>(name);
    if (!global) {
      OpBuilder::InsertionGuard guard(rewriter);
      rewriter.setInsertionPointToStart(module.getBody());
      global = LLVM::GlobalOp::create(
          rewriter, loc, pointer(),
          /*isConstant=*/false, LLVM::Linkage::Internal, name, Attribute());
      rewriter.createBlock(&global.getInitializerRegion());
      LLVM::ReturnOp::create(
          rewriter, loc,
          LLVM::ZeroOp::create(rewriter, loc, pointer()).getResult());
    }
    return LLVM::AddressOfOp::create(rewriter, loc, global);
  }
};
} // namespace

LogicalResult mlir::fuser::host_lowering::checkCudaLaunch(LaunchOp launch) {
  gpu::BinaryOp binary = lookupBinary(launch);
  if (!binary)
    return launch.emitOpError("kernel ")
           << launch.getKernel()
           << " is not compiled for GPUs: for target=cuda the kernel module "
              "must be compiled to a gpu.binary first (run the GPU kernel "
              "pipeline, fuser-kernels-to-ptx)";
  gpu::ObjectAttr object = getOnlyObject(binary);
  if (!object)
    return launch.emitOpError("kernel ")
           << launch.getKernel() << " is in a gpu.binary of "
           << binary.getObjects().size()
           << " objects; target=cuda embeds one (compile the kernels for one "
              "GPU)";
  if (object.getFormat() == gpu::CompilationTarget::Offload)
    return launch.emitOpError("kernel ")
           << launch.getKernel()
           << " is LLVM bitcode (a gpu.binary of format offload), which the "
              "CUDA driver cannot load; compile the kernels to PTX "
              "(gpu-module-to-binary{format=isa})";
  return success();
}

void mlir::fuser::host_lowering::populateCudaLaunchPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns) {
  patterns.add<CudaLaunchLowering>(converter);
}

void mlir::fuser::host_lowering::eraseGpuBinaries(ModuleOp module) {
  for (auto binary : llvm::make_early_inc_range(module.getOps<gpu::BinaryOp>()))
    binary.erase();
  // The module holds no GPU code any more.
  module->removeAttr(gpu::GPUDialect::getContainerModuleAttrName());
}
