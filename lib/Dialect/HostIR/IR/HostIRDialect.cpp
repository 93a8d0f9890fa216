//===- HostIRDialect.cpp - hostir dialect registration --------------------===//

#include "fuser/Dialect/HostIR/IR/HostIR.h"

using namespace mlir;
using namespace mlir::hostir;

#include "fuser/Dialect/HostIR/IR/HostIRDialect.cpp.inc"
#include "fuser/Dialect/HostIR/IR/HostIREnums.cpp.inc"

void HostIRDialect::initialize() {
  registerTypes();
  addOperations<
#define GET_OP_LIST
#include "fuser/Dialect/HostIR/IR/HostIROps.cpp.inc"
      >();
}
