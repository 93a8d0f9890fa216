//===- FailurePaths.cpp - programs return when a runtime call fails -------===//
//
// The patterns check each runtime call's status (fuser_check) or result
// (fuser_checked). Here every such check becomes a branch: on success the
// program goes on; on failure it jumps to one block per function that notes
// the failure (fuser_note_failure) and returns null results. The caller of
// the entry point asks fuser_take_failure and gets the runtime's message,
// so an embedding process (a Python interpreter) survives a bad input or a
// timed-out peer instead of being aborted.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCallLowering.h"

using namespace mlir;

namespace {
constexpr llvm::StringLiteral kCheckStatus = "fuser_check";
constexpr llvm::StringLiteral kCheckPointer = "fuser_checked";

/// The block of `function` that notes a failure and returns: nothing, or
/// the function's result type zeroed (null descriptors).
Block *createFailureBlock(LLVM::LLVMFuncOp function, ModuleOp module) {
  OpBuilder builder(function.getContext());
  Block *failure = builder.createBlock(&function.getBody(),
                                       function.getBody().end());
  Location loc = function.getLoc();
  FailureOr<LLVM::LLVMFuncOp> note = LLVM::lookupOrCreateFn(
      builder, module, "fuser_note_failure", {},
      LLVM::LLVMVoidType::get(builder.getContext()));
  assert(succeeded(note) && "fuser_note_failure has one signature");
  builder.setInsertionPointToEnd(failure);
  LLVM::CallOp::create(builder, loc, *note, ValueRange{});
  Type result = function.getFunctionType().getReturnType();
  if (isa<LLVM::LLVMVoidType>(result)) {
    LLVM::ReturnOp::create(builder, loc, ValueRange{});
    return failure;
  }
  LLVM::ReturnOp::create(builder, loc,
                         LLVM::ZeroOp::create(builder, loc, result).getResult());
  return failure;
}

/// Whether the checked call succeeded: a status of FUSER_OK, or a non-null
/// pointer (which then stands for the call's result).
Value replaceCheck(LLVM::CallOp check) {
  OpBuilder builder(check);
  Location loc = check.getLoc();
  Value checked = check.getArgOperands().front();
  if (check.getCallee() == kCheckPointer) {
    check.getResult().replaceAllUsesWith(checked);
    Value null = LLVM::ZeroOp::create(builder, loc, checked.getType());
    return LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::ne, checked,
                                null);
  }
  Value ok = LLVM::ConstantOp::create(
      builder, loc, checked.getType(),
      builder.getIntegerAttr(checked.getType(), FUSER_OK));
  return LLVM::ICmpOp::create(builder, loc, LLVM::ICmpPredicate::eq, checked,
                              ok);
}
/// Moves the stack slots of `entry` (and the constant counts they take) to
/// its front: once the block is split at the checks, they stay in the
/// function's entry block, where LLVM allocates them with the frame.
void hoistStackSlots(Block &entry) {
  Operation *front = &entry.front();
  for (auto alloca : llvm::make_early_inc_range(entry.getOps<LLVM::AllocaOp>())) {
    Operation *count = alloca.getArraySize().getDefiningOp();
    if (!isa_and_nonnull<LLVM::ConstantOp>(count) ||
        count->getBlock() != &entry)
      continue;
    count->moveBefore(front);
    alloca->moveBefore(front);
  }
}
} // namespace

void mlir::fuser::host_lowering::returnOnFailure(ModuleOp module) {
  for (auto function : module.getOps<LLVM::LLVMFuncOp>()) {
    SmallVector<LLVM::CallOp> checks;
    function.walk([&](LLVM::CallOp call) {
      std::optional<StringRef> callee = call.getCallee();
      if (callee && (*callee == kCheckStatus || *callee == kCheckPointer))
        checks.push_back(call);
    });
    if (checks.empty())
      continue;
    hoistStackSlots(function.getBody().front());
    Block *failure = createFailureBlock(function, module);
    for (LLVM::CallOp check : checks) {
      Value succeeded = replaceCheck(check);
      Block *before = check->getBlock();
      Block *after = before->splitBlock(std::next(check->getIterator()));
      Location loc = check.getLoc();
      check.erase();
      OpBuilder builder = OpBuilder::atBlockEnd(before);
      LLVM::CondBrOp::create(builder, loc, succeeded, after, failure);
    }
  }
  // Compiled programs no longer call them.
  for (StringRef name : {kCheckStatus, kCheckPointer})
    if (auto declaration = module.lookupSymbol<LLVM::LLVMFuncOp>(name))
      declaration.erase();
}
