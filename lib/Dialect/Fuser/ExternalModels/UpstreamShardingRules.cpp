//===- UpstreamShardingRules.cpp - every upstream external model ----------===//

#include "fuser/Dialect/Fuser/ExternalModels/UpstreamShardingRules.h"

void mlir::fuser::registerUpstreamShardingRules(DialectRegistry &registry) {
  registerLinalgShardingRules(registry);
  registerTensorShardingRules(registry);
  registerArithMathShardingRules(registry);
}
