//===- StageContracts.h - checkable contracts of pipeline stages -*- C++ -*-===//
//
// Each check reports every violation in the function as an error at the
// value or op at fault and fails if there was any. Later stages include the
// earlier ones' contracts.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_FUSER_ANALYSIS_STAGECONTRACTS_H
#define FUSER_DIALECT_FUSER_ANALYSIS_STAGECONTRACTS_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"

namespace mlir::fuser {
class AliasAnalysis;

/// `propagated`: every tensor value has a sharding, or none has. Returns
/// whether any has.
FailureOr<bool> verifyPropagatedStage(func::FuncOp function);

/// `decomposed`: no compute op reshards; placement changes are fuser.comm
/// ops, each verified to change one mesh axis.
LogicalResult verifyDecomposedStage(func::FuncOp function);

/// Whether the operand's (`resultSide` false) or result's buffer of `comm`,
/// laid out as its sharding says, serves the communication: contiguous with
/// the block dim outermost, either as a whole or, for a communication run
/// chunk by chunk, in every chunk.
bool bufferServesCommunication(CommunicationOpInterface comm, bool resultSide);
/// The same for the buffer laid out as `layout`.
bool layoutServesCommunication(CommunicationOpInterface comm, bool resultSide,
                               const Layout &layout);

/// `laid-out`: every communication buffer is contiguous, with the dim the
/// communication concatenates or splits outermost (in each chunk, for a
/// communication run chunk by chunk).
LogicalResult verifyLaidOutStage(func::FuncOp function);

/// Where segmentation puts an op: compute runs in a kernel; a view that
/// needs no copy may stay a view (or join a kernel); everything else
/// (communications, library calls, segment boundaries, kernels, non-fuser
/// ops) runs between segments.
enum class SegmentRole { Kernel, View, Other };
SegmentRole getSegmentRole(Operation *op, const AliasAnalysis &analysis);

/// `segmented`: no op with the kernel segment role is left outside a
/// fuser.kernel.
LogicalResult verifySegmentedStage(func::FuncOp function);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_ANALYSIS_STAGECONTRACTS_H
