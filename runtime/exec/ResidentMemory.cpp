//===- ResidentMemory.cpp - a process's resident memory ------------------===//

#include "ResidentMemory.h"

#include <fstream>
#include <sstream>
#include <string>

int64_t fuser::readResidentKiB() {
  std::ifstream status("/proc/self/status");
  std::string line;
  while (std::getline(status, line)) {
    // "VmRSS:	    6012 kB"
    if (line.rfind("VmRSS:", 0) != 0)
      continue;
    std::istringstream fields(line.substr(6));
    int64_t kib = -1;
    fields >> kib;
    return kib;
  }
  return -1;
}
