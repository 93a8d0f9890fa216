//===- BufferViews.cpp - a buffer and the views of it ---------------------===//

#include "fuser/Dialect/HostIR/Transforms/Passes.h"

#include "mlir/Interfaces/ViewLikeInterface.h"

using namespace mlir;
using namespace mlir::hostir;

SmallVector<Value> mlir::hostir::getBufferAndViews(Value buffer) {
  SmallVector<Value> values{buffer};
  for (size_t next = 0; next < values.size(); ++next)
    for (Operation *user : values[next].getUsers())
      if (auto view = dyn_cast<ViewLikeOpInterface>(user))
        if (view.getViewSource() == values[next])
          llvm::append_range(values, user->getResults());
  return values;
}
