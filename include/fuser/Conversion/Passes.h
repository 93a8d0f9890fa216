//===- Passes.h - conversions between the project's dialects ----*- C++ -*-===//

#ifndef FUSER_CONVERSION_PASSES_H
#define FUSER_CONVERSION_PASSES_H

#include "fuser/Conversion/HostIRToLLVM/HostIRToLLVM.h"
#include "fuser/Dialect/HostIR/IR/HostIR.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/GPU/IR/GPUDialect.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/UB/IR/UBOps.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::fuser {

#define GEN_PASS_DECL
#include "fuser/Conversion/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "fuser/Conversion/Passes.h.inc"

} // namespace mlir::fuser

#endif // FUSER_CONVERSION_PASSES_H
