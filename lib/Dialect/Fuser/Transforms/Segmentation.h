//===- Segmentation.h - how fuser-segment partitions runs -----*- C++ -*-===//
//
// Private to lib/Dialect/Fuser/Transforms: the steps of fuser-segment that
// decide which kernels a run of kernel ops becomes.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_LIB_DIALECT_FUSER_TRANSFORMS_SEGMENTATION_H
#define FUSER_LIB_DIALECT_FUSER_TRANSFORMS_SEGMENTATION_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"

namespace mlir::fuser {

/// The pieces of a run of kernel ops (in program order, one block) that
/// share no value, grouped by the shape of the largest value each
/// computes, each in program order: independent work of other shapes is
/// a kernel of its own.
SmallVector<SmallVector<Operation *>>
splitIndependentWork(ArrayRef<Operation *> run);

/// The kernels a run of kernel ops (in program order, one block) becomes:
/// the run itself, or, where it holds reductions folding the leading dims
/// of their inputs beside other work, the rest of the run first and then
/// a run per group of such reductions over one input shape and dims, each
/// with clones of the ops of the run it reads (placed after the run).
/// Ops only the groups read are erased.
SmallVector<SmallVector<Operation *>>
splitOuterReductions(SmallVectorImpl<Operation *> &run);

/// Recomputes, at the start of each run (kernel ops in program order, one
/// block; the runs in program order), the values it reads from an earlier
/// run that the earlier run computes pointwise from values in memory
/// anyway, where that reads fewer bytes than writing the value and reading
/// it back. Ops of the earlier runs nothing reads any more are erased.
void recomputeAcrossRuns(MutableArrayRef<SmallVector<Operation *>> runs);

} // namespace mlir::fuser

#endif // FUSER_LIB_DIALECT_FUSER_TRANSFORMS_SEGMENTATION_H
