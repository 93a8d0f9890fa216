//===- PackedEntries.cpp - one calling convention for any arity ----------===//
//
// A C entry point takes one argument per program input (plus one for the
// results), so a caller that learns a program's arity at run time (the
// runner, Python) could only reach it through a switch over fixed arities.
// Every program therefore also gets MLIR's packed form, as the
// ExecutionEngine writes it: `void _mlir_<name>(void **arguments)`, where
// arguments[i] points to the C entry point's argument i.
//
//===----------------------------------------------------------------------===//

#include "RuntimeCallLowering.h"

using namespace mlir;

void mlir::fuser::host_lowering::emitPackedEntry(ModuleOp module,
                                                 LLVM::LLVMFuncOp entry) {
  MLIRContext *context = module.getContext();
  Location loc = entry.getLoc();
  auto pointer = LLVM::LLVMPointerType::get(context);
  auto packedType = LLVM::LLVMFunctionType::get(LLVM::LLVMVoidType::get(context),
                                                {pointer});
  StringRef name =
      entry.getName().drop_front(StringRef(kCEntryPrefix).size());
  OpBuilder builder = OpBuilder::atBlockEnd(module.getBody());
  auto packed = LLVM::LLVMFuncOp::create(
      builder, loc, (Twine(kPackedEntryPrefix) + name).str(), packedType);
  Block *body = packed.addEntryBlock(builder);
  builder.setInsertionPointToStart(body);
  Value arguments = body->getArgument(0);
  SmallVector<Value> values;
  for (auto [index, type] :
       llvm::enumerate(entry.getFunctionType().getParams())) {
    Value slot = LLVM::GEPOp::create(
        builder, loc, pointer, pointer, arguments,
        ArrayRef<LLVM::GEPArg>{static_cast<int32_t>(index)});
    Value address = LLVM::LoadOp::create(builder, loc, pointer, slot);
    values.push_back(LLVM::LoadOp::create(builder, loc, type, address));
  }
  LLVM::CallOp::create(builder, loc, entry, values);
  LLVM::ReturnOp::create(builder, loc, ValueRange());
}
