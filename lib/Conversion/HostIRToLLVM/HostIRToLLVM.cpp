//===- HostIRToLLVM.cpp - host programs as calls into the runtime --------===//
//
// Lowers host programs (hostir, memref, cf, arith, func) to the LLVM
// dialect for CPU ranks or GPUs: every hostir op becomes a call of the
// runtime's C ABI (include/fuser/Runtime/Runtime.h), each memref passed as
// a FuserBuffer built from its descriptor. On CPU ranks kernel launches
// call the kernel functions (already in the LLVM dialect, moved out of
// @kernels); on GPUs CUDA IPC ops are runtime calls too, and launches load
// and launch the kernels of a gpu.binary (CudaLaunchLowering.cpp).
//
//===----------------------------------------------------------------------===//

#include "RuntimeCallLowering.h"

#include "fuser/Conversion/HostIRToLLVM/HostIRToLLVM.h"
#include "fuser/Conversion/Passes.h"
#include "fuser/Dialect/Fuser/IR/KernelModule.h"

#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVM.h"
#include "mlir/Conversion/LLVMCommon/ConversionTarget.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Transforms/DialectConversion.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_CONVERTHOSTIRTOLLVM
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;
using namespace mlir::hostir;
using namespace mlir::fuser::host_lowering;
using mlir::fuser::HostTarget;

Value mlir::fuser::host_lowering::getInt64Array(OpBuilder &builder,
                                                ModuleOp module, Location loc,
                                                ArrayRef<int64_t> values) {
  std::string name = "__fuser_i64";
  for (int64_t value : values)
    name += "_" + std::to_string(value);
  auto i64 = builder.getI64Type();
  auto arrayType = LLVM::LLVMArrayType::get(i64, values.size());
  if (!module.lookupSymbol(name)) {
    OpBuilder::InsertionGuard guard(builder);
    builder.setInsertionPointToStart(module.getBody());
    LLVM::GlobalOp::create(builder, loc, arrayType, /*isConstant=*/true,
                           LLVM::Linkage::Internal, name,
                           builder.getI64TensorAttr(values));
  }
  return LLVM::AddressOfOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext()), name);
}

Value mlir::fuser::host_lowering::getGlobalString(OpBuilder &builder,
                                                  ModuleOp module, Location loc,
                                                  StringRef name,
                                                  StringRef value) {
  if (auto existing = module.lookupSymbol<LLVM::GlobalOp>(name))
    return LLVM::AddressOfOp::create(builder, loc, existing);
  return LLVM::createGlobalString(loc, builder, name, (value + Twine('\0')).str(),
                                  LLVM::Linkage::Internal);
}

namespace {
/// Whether `type` states its whole descriptor (shape, offset and strides),
/// so that a descriptor over memory the runtime returns needs nothing else.
bool hasStaticDescriptor(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  return type.hasStaticShape() &&
         succeeded(type.getStridesAndOffset(strides, offset)) &&
         !ShapedType::isDynamic(offset) &&
         llvm::none_of(strides, ShapedType::isDynamic);
}

struct RankLowering : RuntimeCallPattern<RankOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(RankOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, call(rewriter, op, "fuser_rank", i64(), {}));
    return success();
  }
};

struct TeamLowering : RuntimeCallPattern<TeamOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(TeamOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    mlir::fuser::MeshAttr mesh = op.getMesh();
    Value devices = mesh.getDevices().empty()
                        ? LLVM::ZeroOp::create(rewriter, loc, pointer()).getResult()
                        : int64Array(rewriter, op, mesh.getDevices());
    Value team = call(
        rewriter, op, "fuser_team", pointer(),
        {adaptor.getRank(), int64Array(rewriter, op, mesh.getShape()),
         constant(rewriter, loc, i64(), mesh.getRank()), devices,
         int64Array(rewriter, op, op.getAxes()),
         constant(rewriter, loc, i64(), op.getAxes().size())});
    rewriter.replaceOp(op, call(rewriter, op, "fuser_checked", pointer(), team));
    return success();
  }
};

struct TeamIndexLowering : RuntimeCallPattern<TeamIndexOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(TeamIndexOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    rewriter.replaceOp(op, call(rewriter, op, "fuser_team_index", i64(),
                                adaptor.getTeam()));
    return success();
  }
};

struct InMeshLowering : RuntimeCallPattern<InMeshOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(InMeshOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    Value member = constant(rewriter, loc, rewriter.getI1Type(), 0);
    for (int64_t device : op.getMesh().getDeviceIds())
      member = LLVM::OrOp::create(
          rewriter, loc, member,
          LLVM::ICmpOp::create(rewriter, loc, LLVM::ICmpPredicate::eq,
                               adaptor.getRank(),
                               constant(rewriter, loc, i64(), device)));
    rewriter.replaceOp(op, member);
    return success();
  }
};

struct AllocateLowering : RuntimeCallPattern<AllocateOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(AllocateOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getBuffer().getType();
    if (!hasStaticDescriptor(type))
      return rewriter.notifyMatchFailure(op, "dynamic shape or layout");
    Location loc = op.getLoc();
    Value memory = call(
        rewriter, op, "fuser_allocate", pointer(),
        {bytesOf(rewriter, loc, type),
         constant(rewriter, loc, i32(),
                  mlir::fuser::getRuntimeMemory(op.getMemory())),
         constant(rewriter, loc, i32(), op.getZeroed())});
    memory = call(rewriter, op, "fuser_checked", pointer(), memory);
    rewriter.replaceOp(op, descriptorOver(rewriter, loc, type, memory));
    return success();
  }
};

struct DeallocateLowering : RuntimeCallPattern<DeallocateOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(DeallocateOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MemRefDescriptor memref(adaptor.getBuffer());
    call(rewriter, op, "fuser_deallocate", Type(),
         memref.allocatedPtr(rewriter, op.getLoc()));
    rewriter.eraseOp(op);
    return success();
  }
};

struct GetCachedBufferLowering : RuntimeCallPattern<GetCachedBufferOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(GetCachedBufferOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    auto type = cast<MemRefType>(op.getResult().getType());
    if (!hasStaticDescriptor(type))
      return rewriter.notifyMatchFailure(op, "dynamic shape or layout");
    // The declaration's own pattern erases it, but the conversion defers
    // erasures to its end: it is still there to tell the memory kind.
    auto cached = SymbolTable::lookupNearestSymbolFrom<CachedBufferOp>(
        op, op.getBufferAttr());
    if (!cached)
      return rewriter.notifyMatchFailure(op, "no hostir.cached_buffer");
    StringRef name = op.getBuffer();
    Value text = getGlobalString(rewriter, op->getParentOfType<ModuleOp>(),
                                 loc, ("__fuser_name_" + name).str(), name);
    Value memory = call(
        rewriter, op, "fuser_cached_buffer", pointer(),
        {text, bytesOf(rewriter, loc, cached.getType()),
         constant(rewriter, loc, i32(),
                  mlir::fuser::getRuntimeMemory(cached.getMemory()))});
    memory = call(rewriter, op, "fuser_checked", pointer(), memory);
    rewriter.replaceOp(op, descriptorOver(rewriter, loc, type, memory));
    return success();
  }
};

struct CachedBufferLowering : ConvertOpToLLVMPattern<CachedBufferOp> {
  using ConvertOpToLLVMPattern::ConvertOpToLLVMPattern;
  LogicalResult matchAndRewrite(CachedBufferOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    // The runtime allocates it on first use, by name.
    rewriter.eraseOp(op);
    return success();
  }
};

/// The patterns of several ops, each calling its own runtime function.
template <typename Op>
struct NamedCallPattern : RuntimeCallPattern<Op> {
  NamedCallPattern(const LLVMTypeConverter &converter, StringRef function)
      : RuntimeCallPattern<Op>(converter), function(function) {}
  std::string function;
};

/// Collectives: fuser_<name>(team, &input, &output, extra...) -> work.
template <typename Op>
struct CollectiveLowering : NamedCallPattern<Op> {
  using NamedCallPattern<Op>::NamedCallPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> arguments{
        adaptor.getTeam(),
        this->buffer(rewriter, op, op.getInput(), adaptor.getInput()),
        this->buffer(rewriter, op, op.getOutput(), adaptor.getOutput())};
    if constexpr (std::is_same_v<Op, AllreduceOp> ||
                  std::is_same_v<Op, ReduceScatterOp> ||
                  std::is_same_v<Op, ReduceOp>)
      arguments.push_back(
          this->constant(rewriter, loc, this->i32(),
                         mlir::fuser::getRuntimeReduction(op.getKind())));
    if constexpr (std::is_same_v<Op, ReduceOp> ||
                  std::is_same_v<Op, BroadcastOp> ||
                  std::is_same_v<Op, GatherOp> || std::is_same_v<Op, ScatterOp>)
      arguments.push_back(
          this->constant(rewriter, loc, this->i64(), op.getRoot()));
    rewriter.replaceOp(op, this->call(rewriter, op, this->function,
                                      this->pointer(), arguments));
    return success();
  }
};

template <typename Op>
struct PointToPointLowering : RuntimeCallPattern<Op> {
  using RuntimeCallPattern<Op>::RuntimeCallPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    // Members of a group are posted by the group's lowering.
    if (isa<CoalesceOp>(op->getParentOp()))
      return rewriter.notifyMatchFailure(op, "posted by its group");
    rewriter.replaceOp(op, post(rewriter, op, adaptor.getBuffer(),
                                adaptor.getPeer(), adaptor.getTeam()));
    return success();
  }
  Value post(ConversionPatternRewriter &rewriter, Op op, Value descriptor,
             Value peer, Value team) const {
    return this->call(
        rewriter, op,
        std::is_same_v<Op, SendOp> ? "fuser_send" : "fuser_recv",
        this->pointer(),
        {team, this->buffer(rewriter, op, op.getBuffer(), descriptor), peer});
  }
};

/// A group: its sends and receives are posted, then grouped into one work.
struct CoalesceLowering : RuntimeCallPattern<CoalesceOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(CoalesceOp op, OpAdaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> works;
    for (Operation &member : op.getBody().front()) {
      auto remapped = [&](Value value) { return rewriter.getRemappedValue(value); };
      StringRef function = isa<SendOp>(member) ? "fuser_send" : "fuser_recv";
      Value buffer = member.getOperand(0);
      works.push_back(call(rewriter, op, function, pointer(),
                           {remapped(member.getOperand(2)),
                            this->buffer(rewriter, op, buffer, remapped(buffer)),
                            remapped(member.getOperand(1))}));
    }
    rewriter.replaceOp(op, call(rewriter, op, "fuser_group", pointer(),
                                {pointerArray(rewriter, op, works),
                                 constant(rewriter, loc, i64(),
                                          works.size())}));
    return success();
  }
};

/// Ops without results that are one checked call with the same operands
/// (indices as i64).
template <typename Op>
struct CheckedCallLowering : NamedCallPattern<Op> {
  using NamedCallPattern<Op>::NamedCallPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    this->callChecked(rewriter, op, this->function, adaptor.getOperands());
    rewriter.eraseOp(op);
    return success();
  }
};

/// fuser_wait(work): the buffers a wait names only mark their lifetimes.
struct WaitLowering : RuntimeCallPattern<hostir::WaitOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult
  matchAndRewrite(hostir::WaitOp op, OpAdaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    callChecked(rewriter, op, "fuser_wait", {adaptor.getWork()});
    rewriter.eraseOp(op);
    return success();
  }
};

/// The product's FuserActivation: fuser's Activation values are the
/// runtime's, 0 for none.
template <typename ProductOp> int64_t getRuntimeActivation(ProductOp op) {
  std::optional<mlir::fuser::Activation> activation = op.getActivation();
  return activation ? static_cast<int64_t>(*activation) : 0;
}

struct MatmulLowering : RuntimeCallPattern<MatmulOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(MatmulOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    callChecked(
        rewriter, op, "fuser_matmul",
        {buffer(rewriter, op, op.getLhs(), adaptor.getLhs()),
         buffer(rewriter, op, op.getRhs(), adaptor.getRhs()),
         buffer(rewriter, op, op.getOut(), adaptor.getOut()),
         constant(rewriter, op.getLoc(), i32(), op.getAccumulate()),
         constant(rewriter, op.getLoc(), i32(), getRuntimeActivation(op))});
    rewriter.eraseOp(op);
    return success();
  }
};

struct LinearLowering : RuntimeCallPattern<LinearOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(LinearOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value bias = op.getBias()
                     ? buffer(rewriter, op, op.getBias(), adaptor.getBias())
                     : LLVM::ZeroOp::create(rewriter, op.getLoc(), pointer())
                           .getResult();
    callChecked(
        rewriter, op, "fuser_linear",
        {buffer(rewriter, op, op.getInput(), adaptor.getInput()),
         buffer(rewriter, op, op.getWeight(), adaptor.getWeight()), bias,
         buffer(rewriter, op, op.getOut(), adaptor.getOut()),
         constant(rewriter, op.getLoc(), i32(), op.getAccumulate()),
         constant(rewriter, op.getLoc(), i32(), getRuntimeActivation(op))});
    rewriter.eraseOp(op);
    return success();
  }
};

/// sdpa and sdpa_backward -> fuser_sdpa_forward and fuser_sdpa_backward:
/// every buffer, then the scale, the mask, the dropout and the rank's
/// batch and head offsets.
template <typename AttentionOp>
struct AttentionLowering : NamedCallPattern<AttentionOp> {
  using NamedCallPattern<AttentionOp>::NamedCallPattern;

  LogicalResult
  matchAndRewrite(AttentionOp op, typename AttentionOp::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> arguments;
    for (auto [original, converted] :
         llvm::zip(op->getOperands(), adaptor.getOperands()))
      if (isa<MemRefType>(original.getType()))
        arguments.push_back(this->buffer(rewriter, op, original, converted));
    Type f64 = rewriter.getF64Type();
    arguments.push_back(LLVM::ConstantOp::create(rewriter, loc, f64,
                                                 op.getScaleAttr()));
    arguments.push_back(
        this->constant(rewriter, loc, this->i32(), op.getCausal()));
    arguments.push_back(LLVM::ConstantOp::create(
        rewriter, loc, f64, op.getDropoutProbabilityAttr()));
    arguments.push_back(
        this->constant(rewriter, loc, this->i64(),
                       static_cast<int64_t>(op.getSeed())));
    arguments.push_back(adaptor.getBatchOffset());
    arguments.push_back(adaptor.getHeadOffset());
    this->callChecked(rewriter, op, this->function, arguments);
    rewriter.eraseOp(op);
    return success();
  }
};

struct ReduceBlocksLowering : RuntimeCallPattern<ReduceBlocksOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(ReduceBlocksOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    callChecked(rewriter, op, "fuser_reduce_blocks",
                {buffer(rewriter, op, op.getInput(), adaptor.getInput()),
                 buffer(rewriter, op, op.getOut(), adaptor.getOut()),
                 constant(rewriter, op.getLoc(), i32(),
                          mlir::fuser::getRuntimeReduction(op.getKind()))});
    rewriter.eraseOp(op);
    return success();
  }
};

struct CopyLowering : RuntimeCallPattern<CopyOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(CopyOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    callChecked(rewriter, op, "fuser_copy",
                {buffer(rewriter, op, op.getSource(), adaptor.getSource()),
                 buffer(rewriter, op, op.getTarget(), adaptor.getTarget())});
    rewriter.eraseOp(op);
    return success();
  }
};

/// Stream ops are calls with the same operands (indices as i64).
template <typename Op>
struct StreamLowering : NamedCallPattern<Op> {
  using NamedCallPattern<Op>::NamedCallPattern;
  LogicalResult
  matchAndRewrite(Op op, typename Op::Adaptor adaptor,
                  ConversionPatternRewriter &rewriter) const override {
    Type result = op->getNumResults() ? this->pointer() : Type();
    Value value = this->call(rewriter, op, this->function, result,
                             adaptor.getOperands());
    if (result)
      rewriter.replaceOp(op, value);
    else
      rewriter.eraseOp(op);
    return success();
  }
};

/// The buffer's handles: fuser_ipc_share(team, &buffer), checked.
struct IpcShareLowering : RuntimeCallPattern<IpcShareOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(IpcShareOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Value handles = call(
        rewriter, op, "fuser_ipc_share", pointer(),
        {adaptor.getTeam(),
         buffer(rewriter, op, op.getBuffer(), adaptor.getBuffer())});
    rewriter.replaceOp(op, call(rewriter, op, "fuser_checked", pointer(),
                                handles));
    return success();
  }
};

/// A peer's buffer: a descriptor of the shared buffer's type over the
/// address the runtime opened it at (that buffer's aligned pointer).
struct IpcPeerBufferLowering : RuntimeCallPattern<IpcPeerBufferOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(IpcPeerBufferOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    MemRefType type = op.getHandles().getType().getBuffer();
    if (!hasStaticDescriptor(type))
      return rewriter.notifyMatchFailure(op, "dynamic shape or layout");
    Value address = call(rewriter, op, "fuser_ipc_peer_pointer", pointer(),
                         {adaptor.getHandles(), adaptor.getPeer()});
    address = call(rewriter, op, "fuser_checked", pointer(), address);
    rewriter.replaceOp(op,
                       descriptorOver(rewriter, op.getLoc(), type, address));
    return success();
  }
};

/// A launch on CPU ranks calls the kernel, each memref expanded as its
/// descriptor's fields (the kernel's calling convention).
struct LaunchLowering : RuntimeCallPattern<LaunchOp> {
  using RuntimeCallPattern::RuntimeCallPattern;
  LogicalResult matchAndRewrite(LaunchOp op, OpAdaptor adaptor,
                                ConversionPatternRewriter &rewriter) const override {
    Location loc = op.getLoc();
    SmallVector<Value> arguments;
    for (auto [original, converted] :
         llvm::zip(op.getKernelOperands(), adaptor.getKernelOperands())) {
      if (auto type = dyn_cast<MemRefType>(original.getType()))
        MemRefDescriptor::unpack(rewriter, loc, converted, type, arguments);
      else
        arguments.push_back(converted);
    }
    auto module = op->getParentOfType<ModuleOp>();
    auto callee = module.lookupSymbol<LLVM::LLVMFuncOp>(
        op.getKernel().getLeafReference());
    if (!callee)
      return rewriter.notifyMatchFailure(op, "kernel not in LLVM form");
    LLVM::CallOp::create(rewriter, loc, callee, arguments);
    rewriter.eraseOp(op);
    return success();
  }
};

/// Moves the kernel functions (already LLVM) next to the host programs.
LogicalResult flattenKernels(ModuleOp module) {
  ModuleOp kernels = mlir::fuser::lookupKernelModule(module);
  if (!kernels)
    return success();
  for (Operation &op : llvm::make_early_inc_range(*kernels.getBody())) {
    if (!isa<LLVM::LLVMDialect>(op.getDialect()))
      return op.emitError("the kernel module is not in the LLVM dialect; run "
                          "fuser-kernels-to-llvm first");
    // Declarations the host needs too (malloc, libm) exist once.
    auto symbol = dyn_cast<SymbolOpInterface>(op);
    if (symbol && module.lookupSymbol(symbol.getName())) {
      if (!cast<LLVM::LLVMFuncOp>(op).isExternal())
        return op.emitError("kernel ") << symbol.getName()
                                       << " collides with a host symbol";
      continue;
    }
    op.moveBefore(module.getBody(), module.getBody()->end());
  }
  kernels.erase();
  // Launches name the kernels where they now are.
  module.walk([](LaunchOp launch) {
    launch.setKernelAttr(
        FlatSymbolRefAttr::get(launch.getKernel().getLeafReference()));
  });
  return success();
}

/// Reports the first op `target` has no lowering for: CUDA IPC on CPU
/// ranks, MPI communications on GPUs (the CUDA backend posts on NCCL; the
/// host backend runs NCCL's communications over MPI), launches of kernels
/// compiled for the other target.
LogicalResult checkTargetSupportsOps(ModuleOp module, HostTarget target) {
  WalkResult walk = module.walk([&](Operation *op) {
    if (target == HostTarget::CPU &&
        isa<IpcShareOp, IpcPeerBufferOp, IpcSignalOp, IpcWaitOp>(op)) {
      op->emitError("CUDA IPC needs the CUDA runtime backend (target=cuda); "
                    "compile for CPU ranks with backend=mpi or backend=nccl");
      return WalkResult::interrupt();
    }
    auto library = op->getAttrOfType<BackendAttr>("backend");
    if (target == HostTarget::CUDA && library &&
        library.getValue() == Backend::MPI) {
      op->emitOpError("posts on MPI, which the CUDA runtime backend does not "
                      "run on device buffers; lower with backend=nccl");
      return WalkResult::interrupt();
    }
    auto launch = dyn_cast<LaunchOp>(op);
    if (!launch)
      return WalkResult::advance();
    if (target == HostTarget::CUDA)
      return failed(checkCudaLaunch(launch)) ? WalkResult::interrupt()
                                             : WalkResult::advance();
    if (isa_and_nonnull<gpu::BinaryOp>(SymbolTable::lookupNearestSymbolFrom(
            launch, launch.getKernel().getRootReference()))) {
      launch.emitOpError("kernel ")
          << launch.getKernel()
          << " is compiled for GPUs (a gpu.binary); target=cpu launches "
             "kernels compiled for CPU ranks (fuser-kernels-to-llvm)";
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  return failure(walk.wasInterrupted());
}

/// On entry to the host program `function` (in the LLVM dialect, each
/// memref argument expanded into its descriptor's fields): the selection
/// of `target`'s runtime backend, which every later call runs on, then a
/// check of every memref argument of static shape against
/// `argumentTypes`, the shapes it was compiled for.
void emitEntryChecks(LLVM::LLVMFuncOp function, TypeRange argumentTypes,
                     HostTarget target) {
  OpBuilder builder(function.getContext());
  Block &entry = function.getBody().front();
  builder.setInsertionPointToStart(&entry);
  Location loc = function.getLoc();
  auto module = function->getParentOfType<ModuleOp>();
  Type i64 = builder.getI64Type(), i32 = builder.getI32Type(),
       pointer = LLVM::LLVMPointerType::get(builder.getContext());
  auto fail =
      LLVM::lookupOrCreateFn(builder, module, "fuser_check", {i32},
                             LLVM::LLVMVoidType::get(builder.getContext()));
  auto useBackend = LLVM::lookupOrCreateFn(builder, module, "fuser_use_backend",
                                           {i32}, i32);
  Value backend = LLVM::ConstantOp::create(
      builder, loc, i32,
      builder.getI32IntegerAttr(mlir::fuser::getRuntimeBackend(target)));
  LLVM::CallOp::create(
      builder, loc, *fail,
      LLVM::CallOp::create(builder, loc, *useBackend, backend).getResult());

  Value name = getGlobalString(builder, module, loc,
                               ("__fuser_program_" + function.getName()).str(),
                               function.getName());
  auto check = LLVM::lookupOrCreateFn(builder, module,
                                      "fuser_check_argument_shape",
                                      {pointer, i64, i64, pointer, pointer}, i32);
  auto constant = [&](int64_t value) -> Value {
    return LLVM::ConstantOp::create(builder, loc, i64,
                                    builder.getI64IntegerAttr(value));
  };
  ValueRange fields = entry.getArguments();
  for (auto [argument, type] : llvm::enumerate(argumentTypes)) {
    auto memref = dyn_cast<MemRefType>(type);
    if (!memref) {
      fields = fields.drop_front();
      continue;
    }
    unsigned count = MemRefDescriptor::getNumUnpackedValues(memref);
    MemRefDescriptorView descriptor(fields.take_front(count));
    fields = fields.drop_front(count);
    if (!memref.hasStaticShape() || memref.getRank() == 0)
      continue;
    int64_t rank = memref.getRank();
    auto arrayType = LLVM::LLVMArrayType::get(i64, rank);
    Value actual =
        LLVM::AllocaOp::create(builder, loc, pointer, arrayType, constant(1));
    for (int64_t dim = 0; dim < rank; ++dim) {
      Value slot = LLVM::GEPOp::create(
          builder, loc, pointer, arrayType, actual,
          ArrayRef<LLVM::GEPArg>{0, static_cast<int32_t>(dim)});
      LLVM::StoreOp::create(builder, loc, descriptor.size(dim), slot);
    }
    Value status =
        LLVM::CallOp::create(
            builder, loc, *check,
            ValueRange{name, constant(argument), constant(rank), actual,
                       getInt64Array(builder, module, loc, memref.getShape())})
            .getResult();
    LLVM::CallOp::create(builder, loc, *fail, status);
  }
}

struct ConvertHostIRToLLVMPass
    : public mlir::fuser::impl::ConvertHostIRToLLVMBase<
          ConvertHostIRToLLVMPass> {
  using ConvertHostIRToLLVMBase::ConvertHostIRToLLVMBase;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkTargetSupportsOps(module, target)))
      return signalPassFailure();
    // The runtime's names are taken: a program's own symbol of that name
    // would be called instead.
    for (Operation &op : *module.getBody())
      if (auto symbol = dyn_cast<SymbolOpInterface>(op);
          symbol && (symbol.getName().starts_with("fuser_") ||
                     symbol.getName().starts_with(mlir::fuser::kPackedEntryPrefix))) {
        op.emitError("symbol @") << symbol.getName()
                                 << " is reserved for the runtime and the "
                                    "programs' C entry points";
        return signalPassFailure();
      }
    if (failed(flattenKernels(module)))
      return signalPassFailure();
    // Host programs get a C entry point taking memref descriptors, a
    // packed one taking an array of them, and check on entry what they
    // are given.
    llvm::StringMap<FunctionType> programs;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal())
        continue;
      function->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                        UnitAttr::get(&getContext()));
      programs[function.getName()] = function.getFunctionType();
    }

    LLVMTypeConverter converter(&getContext());
    RewritePatternSet patterns(&getContext());
    mlir::fuser::populateHostIRToLLVMConversionPatterns(converter, patterns,
                                                        target);
    populateFuncToLLVMConversionPatterns(converter, patterns);
    populateFinalizeMemRefToLLVMConversionPatterns(converter, patterns);
    arith::populateArithToLLVMConversionPatterns(converter, patterns);
    cf::populateControlFlowToLLVMConversionPatterns(converter, patterns);
    LLVMConversionTarget conversionTarget(getContext());
    // Launches read their kernels' images from the binaries, which go once
    // every launch is lowered.
    conversionTarget.addLegalOp<ModuleOp, gpu::BinaryOp>();
    if (failed(applyFullConversion(module, conversionTarget,
                                   std::move(patterns))))
      return signalPassFailure();
    eraseGpuBinaries(module);
    for (auto &[name, type] : programs) {
      emitEntryChecks(module.lookupSymbol<LLVM::LLVMFuncOp>(name),
                      type.getInputs(), target);
      emitPackedEntry(module, module.lookupSymbol<LLVM::LLVMFuncOp>(
                                  (mlir::fuser::kCEntryPrefix + name).str()));
    }
    returnOnFailure(module);
  }
};
} // namespace

void mlir::fuser::populateHostIRToLLVMConversionPatterns(
    LLVMTypeConverter &converter, RewritePatternSet &patterns,
    HostTarget target) {
  converter.addConversion([](Type type) -> std::optional<Type> {
    if (isa<TeamType, WorkType, StreamType, IpcHandlesType>(type))
      return LLVM::LLVMPointerType::get(type.getContext());
    return std::nullopt;
  });
  patterns.add<RankLowering, TeamLowering, TeamIndexLowering, InMeshLowering,
               AllocateLowering, DeallocateLowering, GetCachedBufferLowering,
               CachedBufferLowering, PointToPointLowering<hostir::SendOp>,
               PointToPointLowering<hostir::RecvOp>, CoalesceLowering,
               MatmulLowering, LinearLowering, ReduceBlocksLowering,
               CopyLowering, WaitLowering>(converter);
  patterns.add<AttentionLowering<hostir::SdpaOp>>(converter,
                                                 "fuser_sdpa_forward");
  patterns.add<AttentionLowering<hostir::SdpaBackwardOp>>(
      converter, "fuser_sdpa_backward");
  patterns.add<CollectiveLowering<hostir::AllgatherOp>>(converter,
                                                        "fuser_allgather");
  patterns.add<CollectiveLowering<hostir::AllreduceOp>>(converter,
                                                        "fuser_allreduce");
  patterns.add<CollectiveLowering<hostir::ReduceScatterOp>>(
      converter, "fuser_reduce_scatter");
  patterns.add<CollectiveLowering<hostir::ReduceOp>>(converter, "fuser_reduce");
  patterns.add<CollectiveLowering<hostir::BroadcastOp>>(converter,
                                                        "fuser_broadcast");
  patterns.add<CollectiveLowering<hostir::GatherOp>>(converter, "fuser_gather");
  patterns.add<CollectiveLowering<hostir::ScatterOp>>(converter,
                                                      "fuser_scatter");
  patterns.add<CollectiveLowering<hostir::AllToAllOp>>(converter,
                                                       "fuser_all_to_all");
  patterns.add<StreamLowering<hostir::GetCurrentStreamOp>>(
      converter, "fuser_get_current_stream");
  patterns.add<StreamLowering<hostir::SetCurrentStreamOp>>(
      converter, "fuser_set_current_stream");
  patterns.add<StreamLowering<hostir::StreamFromPoolOp>>(
      converter, "fuser_stream_from_pool");
  patterns.add<StreamLowering<hostir::SynchronizeStreamOp>>(
      converter, "fuser_synchronize_stream");
  switch (target) {
  case HostTarget::CPU:
    patterns.add<LaunchLowering>(converter);
    break;
  case HostTarget::CUDA:
    populateCudaLaunchPatterns(converter, patterns);
    patterns.add<IpcShareLowering, IpcPeerBufferLowering>(converter);
    patterns.add<CheckedCallLowering<hostir::IpcSignalOp>>(converter,
                                                           "fuser_ipc_signal");
    patterns.add<CheckedCallLowering<hostir::IpcWaitOp>>(converter,
                                                         "fuser_ipc_wait");
    break;
  }
}
