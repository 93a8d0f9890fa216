//===- BufferViews.cpp - a buffer and the views of it ---------------------===//

#include "fuser/Dialect/HostIR/Transforms/Passes.h"
#include "fuser/Dialect/HostIR/IR/HostIR.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::hostir;

SmallVector<Value> mlir::hostir::getBufferAndViews(Value buffer) {
  SmallVector<Value> values{buffer};
  for (size_t next = 0; next < values.size(); ++next)
    for (Operation *user : values[next].getUsers()) {
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == values[next])
          llvm::append_range(values, user->getResults());
      // Peers reach the buffer through its IPC handles: their signals,
      // waits and copies use it as well.
      if (auto share = dyn_cast<IpcShareOp>(user))
        values.push_back(share.getHandles());
    }
  return values;
}
