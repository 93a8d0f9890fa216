//===- RuntimeABI.h - compiler values as the runtime's C enums --*- C++ -*-===//
//
// The one place where the compiler translates its types and attributes into
// the enums of the runtime's C ABI (include/fuser/Runtime/Runtime.h): the
// host lowering passes them to runtime calls and fuser-compile writes them
// into program metadata, so both always agree with the runtime.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_CONVERSION_HOSTIRTOLLVM_RUNTIMEABI_H
#define FUSER_CONVERSION_HOSTIRTOLLVM_RUNTIMEABI_H

#include "fuser/Conversion/HostIRToLLVM/HostIRToLLVM.h"
#include "fuser/Dialect/Fuser/IR/Fuser.h"
#include "fuser/Dialect/HostIR/IR/HostIR.h"
#include "fuser/Runtime/Runtime.h"

namespace mlir::fuser {

/// The runtime's code for buffers of `elementType`, none for an element
/// type the runtime does not hold (hostir buffers only have the others).
std::optional<FuserDType> getRuntimeDType(Type elementType);
FuserReduction getRuntimeReduction(ReductionKind kind);
FuserMemory getRuntimeMemory(hostir::MemoryKind kind);
/// The backend that runs programs compiled for `target`.
FuserBackend getRuntimeBackend(HostTarget target);

/// The symbols of a program `<name>`: its C entry point
/// `_mlir_ciface_<name>(results, inputs...)` and its packed entry point
/// `_mlir_<name>(void **arguments)` (arguments[i] points to the C entry
/// point's argument i), the one callers use, since it takes any number of
/// inputs. Program names may not start with either prefix.
inline constexpr llvm::StringLiteral kCEntryPrefix = "_mlir_ciface_";
inline constexpr llvm::StringLiteral kPackedEntryPrefix = "_mlir_";

} // namespace mlir::fuser

#endif // FUSER_CONVERSION_HOSTIRTOLLVM_RUNTIMEABI_H
