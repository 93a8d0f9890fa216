//===- ResidentMemory.h - a process's resident memory ---------*- C++ -*-===//
#ifndef FUSER_RUNTIME_EXEC_RESIDENTMEMORY_H
#define FUSER_RUNTIME_EXEC_RESIDENTMEMORY_H

#include <cstdint>

namespace fuser {

/// This process's resident memory in KiB (VmRSS of /proc/self/status), or
/// -1 where the system does not report it.
int64_t readResidentKiB();

} // namespace fuser

#endif // FUSER_RUNTIME_EXEC_RESIDENTMEMORY_H
