//===- FuserOps.cpp - generated op definitions ----------------------------===//
//
// Verifiers and inference live in one file per op family; this file only
// instantiates the ODS-generated code.
//
//===----------------------------------------------------------------------===//

#include "TypeInference.h"

#include "mlir/IR/Builders.h"
#include "mlir/IR/OpImplementation.h"

using namespace mlir;
using namespace mlir::fuser;

#define GET_OP_CLASSES
#include "fuser/Dialect/Fuser/IR/FuserOps.cpp.inc"
