//===- FuserToLinalg.h - kernel ops as linalg on tensors --------*- C++ -*-===//
//
// The patterns of convert-fuser-to-linalg, for the kernel code
// generators that lower fuser ops together with their own rewrites.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_CONVERSION_FUSERTOLINALG_FUSERTOLINALG_H
#define FUSER_CONVERSION_FUSERTOLINALG_FUSERTOLINALG_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::fuser {

/// Adds to `patterns` the dialect-conversion patterns that replace the
/// fuser ops of kernel functions by upstream ops on the same tensors (no
/// type conversion): one all-parallel linalg.generic per pointwise,
/// broadcast and creation op; tensor.empty, linalg.fill of the combiner's
/// identity and a linalg.generic with reduction iterators per reduction,
/// followed by the pointwise generic that converts (and divides, for mean);
/// linalg.transpose and tensor slices and reshapes for views. f16 and bf16
/// compute in f32. Ops that never belong in a kernel (library calls,
/// communications) have no pattern.
void populateFuserToLinalgPatterns(RewritePatternSet &patterns);

} // namespace mlir::fuser

#endif // FUSER_CONVERSION_FUSERTOLINALG_FUSERTOLINALG_H
