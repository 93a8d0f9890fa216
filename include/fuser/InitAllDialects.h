//===- InitAllDialects.h - dialects of the Fuser-MLIR pipeline --*- C++ -*-===//
//
// For tools and for embedding: registers our dialects and the upstream ones
// the pipeline produces or consumes.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_INITALLDIALECTS_H
#define FUSER_INITALLDIALECTS_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace fuser {
/// fuser and hostir only: what another pipeline needs to read our IR.
void registerFuserDialects(mlir::DialectRegistry &registry);
/// Ours plus func, arith, math, scf, cf, memref, tensor, linalg,
/// bufferization, gpu, nvvm and llvm.
void registerAllDialects(mlir::DialectRegistry &registry);
} // namespace fuser

#endif // FUSER_INITALLDIALECTS_H
