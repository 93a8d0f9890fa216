//===- HostIRTypes.cpp - hostir types -------------------------------------===//

#include "fuser/Dialect/HostIR/IR/HostIR.h"

#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/TypeSwitch.h"

using namespace mlir;
using namespace mlir::hostir;

#define GET_TYPEDEF_CLASSES
#include "fuser/Dialect/HostIR/IR/HostIRTypes.cpp.inc"

void HostIRDialect::registerTypes() {
  addTypes<
#define GET_TYPEDEF_LIST
#include "fuser/Dialect/HostIR/IR/HostIRTypes.cpp.inc"
      >();
}

LogicalResult TeamType::verify(function_ref<InFlightDiagnostic()> emitError,
                               int64_t size) {
  if (size < 1)
    return emitError() << "team size " << size << " must be at least 1";
  return success();
}
