//===- PatternFamilies.h - linalg-to-fuser patterns by family --*- C++ -*-===//
//
// Each pattern file adds its family's patterns; the pass adds them all.
// A pattern fails to match forms without a fuser equivalent, which then
// stay as they are.
//
//===----------------------------------------------------------------------===//
#ifndef LIB_CONVERSION_LINALGTOFUSER_PATTERNFAMILIES_H
#define LIB_CONVERSION_LINALGTOFUSER_PATTERNFAMILIES_H

namespace mlir {
class RewritePatternSet;
} // namespace mlir

namespace mlir::fuser {

/// linalg.matmul and linalg.batch_matmul.
void populateContractionRaisingPatterns(RewritePatternSet &patterns);
/// linalg's named elementwise ops and arith/math ops on ranked tensors.
void populateElementwiseRaisingPatterns(RewritePatternSet &patterns);
/// linalg.transpose, tensor.expand_shape and tensor.collapse_shape.
void populateShapeRaisingPatterns(RewritePatternSet &patterns);
/// Splat arith.constant tensors and linalg.fill.
void populateCreationRaisingPatterns(RewritePatternSet &patterns);

} // namespace mlir::fuser

#endif // LIB_CONVERSION_LINALGTOFUSER_PATTERNFAMILIES_H
