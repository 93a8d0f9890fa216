//===- Streams.cpp - streams of the host backend --------------------------===//
//
// The host backend executes every call when it is made, in program order:
// a stream has nothing to order, so the handles only have to exist.
//
//===----------------------------------------------------------------------===//

#include "Internal.h"

struct FuserStream {};

static FuserStream *getHostStream() {
  static FuserStream stream;
  return &stream;
}

extern "C" {

FuserStream *fuser_get_current_stream(void) { return getHostStream(); }

void fuser_set_current_stream(FuserStream *) {}

FuserStream *fuser_stream_from_pool(int64_t) { return getHostStream(); }

void fuser_synchronize_stream(FuserStream *) {}

} // extern "C"
