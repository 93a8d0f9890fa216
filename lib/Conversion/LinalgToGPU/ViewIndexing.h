//===- ViewIndexing.h - a view's element as its source's -------*- C++ -*-===//
//
// The views a kernel holds (transposes, slices, reshapes) move no data:
// the element at an index of the view is an element of its source at
// another index, affine in the first; and the element at an index of a
// generic's result is computed at an iteration of its loops. The element
// emitter computes through both and the kernel analysis traces reads
// through both, so both take the indices from here.
//
//===----------------------------------------------------------------------===//

#ifndef FUSER_LIB_CONVERSION_LINALGTOGPU_VIEWINDEXING_H
#define FUSER_LIB_CONVERSION_LINALGTOGPU_VIEWINDEXING_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/AffineExpr.h"
#include "mlir/IR/Operation.h"

namespace mlir::fuser::gpu_schedule {

/// Splits an index of merged dims of `sizes` into one index per dim.
using Delinearizer =
    function_ref<SmallVector<AffineExpr>(AffineExpr, ArrayRef<int64_t>)>;

/// The source element the element at `index` of `view`'s result is.
struct SourceElement {
  Value source;
  SmallVector<AffineExpr> index;
};

/// Whether `op` is a view whose elements sourceElement finds.
bool isIndexView(Operation *op);

/// The source element of the element at `index` of `view` (an
/// isIndexView op), with merged dims split by `delinearize`; failure for a
/// slice whose offsets or strides are known only at run time.
FailureOr<SourceElement> sourceElement(Operation *view,
                                       ArrayRef<AffineExpr> index,
                                       Delinearizer delinearize);

/// The iteration of `generic`'s loops that computes the element at `index`
/// of its (single) result: the loops its result map names take their
/// place in `index`; the others (reduced loops) stay null.
SmallVector<AffineExpr> resultIteration(linalg::GenericOp generic,
                                        ArrayRef<AffineExpr> index);

} // namespace mlir::fuser::gpu_schedule

#endif // FUSER_LIB_CONVERSION_LINALGTOGPU_VIEWINDEXING_H
