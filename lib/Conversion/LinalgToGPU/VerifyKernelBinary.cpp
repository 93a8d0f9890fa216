//===- VerifyKernelBinary.cpp - PTX that links nothing it lacks -----------===//
//
// gpu-module-to-binary turns a call to a libdevice function into an
// external declaration when it has no libdevice to link (no toolkit path),
// without a diagnostic; the driver would only fail when loading the
// module, at run time on every rank. This makes it a compile error.
//
//===----------------------------------------------------------------------===//

#include "fuser/Conversion/Passes.h"

namespace mlir::fuser {
#define GEN_PASS_DEF_VERIFYKERNELBINARY
#include "fuser/Conversion/Passes.h.inc"
} // namespace mlir::fuser

using namespace mlir;

/// The functions `ptx` declares but does not define.
static SmallVector<StringRef> externalFunctions(StringRef ptx) {
  SmallVector<StringRef> names;
  SmallVector<StringRef> lines;
  ptx.split(lines, '\n');
  for (StringRef line : lines) {
    line = line.trim();
    if (!line.consume_front(".extern") || !line.ltrim().starts_with(".func"))
      continue;
    // `.extern .func (.param .b32 r) __nv_expf(` : the name precedes `(`.
    StringRef declaration = line.ltrim().drop_front(strlen(".func")).trim();
    if (declaration.starts_with("("))
      declaration = declaration.drop_until([](char c) { return c == ')'; })
                        .drop_front()
                        .trim();
    names.push_back(declaration.take_until([](char c) {
      return c == '(' || c == ' ' || c == ';';
    }));
  }
  return names;
}

namespace {
struct VerifyKernelBinaryPass
    : public mlir::fuser::impl::VerifyKernelBinaryBase<VerifyKernelBinaryPass> {
  void runOnOperation() override {
    WalkResult walk = getOperation().walk([](gpu::BinaryOp binary) {
      for (Attribute attribute : binary.getObjects()) {
        auto object = cast<gpu::ObjectAttr>(attribute);
        if (object.getFormat() != gpu::CompilationTarget::Assembly)
          continue;
        SmallVector<StringRef> missing =
            externalFunctions(object.getObject().getValue());
        if (missing.empty())
          continue;
        InFlightDiagnostic error = binary.emitError("kernel PTX calls ")
                                   << missing.front()
                                   << ", which it does not define";
        if (missing.front().starts_with("__nv_"))
          error << ": libdevice was not linked (point --cuda-path or "
                   "CUDA_HOME at a CUDA toolkit with "
                   "nvvm/libdevice/libdevice.10.bc)";
        return WalkResult::interrupt();
      }
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace
