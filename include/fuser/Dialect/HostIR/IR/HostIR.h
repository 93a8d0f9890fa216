//===- HostIR.h - hostir dialect, types and ops -----------------*- C++ -*-===//

#ifndef FUSER_DIALECT_HOSTIR_IR_HOSTIR_H
#define FUSER_DIALECT_HOSTIR_IR_HOSTIR_H

#include "fuser/Dialect/Fuser/IR/Fuser.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"

namespace mlir::hostir {
/// What communications act on besides their buffers: the other ranks. An
/// op posting one has an effect even when nothing uses its work handle
/// (the members of a hostir.coalesce), so it is never dropped as dead.
struct CommunicationResource
    : public SideEffects::Resource::Base<CommunicationResource> {
  StringRef getName() override { return "Communication"; }
};

/// Whether the elements of a buffer of `type` fill one range of memory, in
/// any dim order, as the communication libraries and the runtime's library
/// calls read them (which dim order a communication needs is the
/// fuser-level layout contract).
bool isDense(MemRefType type);

/// Whether a buffer of `type` can be a view of cached storage (a
/// `hostir.cached_buffer` declared `storage`): static, dense and at offset 0.
bool canViewStorage(MemRefType type);

/// The bytes the runtime holds for a buffer of static, dense `type` (an i1
/// element takes a byte).
int64_t getBufferBytes(MemRefType type);

/// The buffers the communication `poster` posts on (its memref operands in
/// order, those of each member for a hostir.coalesce), which a wait on its
/// work names; none when `poster` is null.
SmallVector<Value> getPostedBuffers(Operation *poster);
} // namespace mlir::hostir

#include "fuser/Dialect/HostIR/IR/HostIRDialect.h.inc"
#include "fuser/Dialect/HostIR/IR/HostIREnums.h.inc"

#define GET_TYPEDEF_CLASSES
#include "fuser/Dialect/HostIR/IR/HostIRTypes.h.inc"

#define GET_OP_CLASSES
#include "fuser/Dialect/HostIR/IR/HostIROps.h.inc"

#endif // FUSER_DIALECT_HOSTIR_IR_HOSTIR_H
