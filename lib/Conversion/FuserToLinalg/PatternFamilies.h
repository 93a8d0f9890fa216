//===- PatternFamilies.h - fuser-to-linalg patterns by family --*- C++ -*-===//
//
// Each pattern file adds its family's patterns; populateFuserToLinalgPatterns
// adds them all.
//
//===----------------------------------------------------------------------===//
#ifndef LIB_CONVERSION_FUSERTOLINALG_PATTERNFAMILIES_H
#define LIB_CONVERSION_FUSERTOLINALG_PATTERNFAMILIES_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::fuser {

/// Unary and binary pointwise ops, compare, where and the copies (cast, set,
/// segment_set).
void populatePointwisePatterns(RewritePatternSet &patterns);
/// sum, max, min, mean and var_mean.
void populateReductionPatterns(RewritePatternSet &patterns);
/// full, iota, uniform and normal.
void populateCreationPatterns(RewritePatternSet &patterns);
/// broadcast, expand, squeeze, reshape, permute, slice, select, cat, pad,
/// embedding.
void populateShapePatterns(RewritePatternSet &patterns);

} // namespace mlir::fuser

#endif // LIB_CONVERSION_FUSERTOLINALG_PATTERNFAMILIES_H
