//===- UpstreamShardingRules.h - sharding rules of upstream ops -*- C++ -*-===//
//
// External models of ShardingRuleOpInterface (and ViewOpInterface for the
// tensor ops that are views) for upstream ops, so that sharding propagation
// and resharding decomposition run on programs written with linalg, tensor,
// arith and math ops on tensors.
//
//===----------------------------------------------------------------------===//
#ifndef FUSER_DIALECT_FUSER_EXTERNALMODELS_UPSTREAMSHARDINGRULES_H
#define FUSER_DIALECT_FUSER_EXTERNALMODELS_UPSTREAMSHARDINGRULES_H

namespace mlir {
class DialectRegistry;
} // namespace mlir

namespace mlir::fuser {

/// All of the below.
void registerUpstreamShardingRules(DialectRegistry &registry);

/// linalg structured ops: factors from their loops and indexing maps.
void registerLinalgShardingRules(DialectRegistry &registry);

/// tensor.expand_shape, collapse_shape, extract_slice, concat and pad.
void registerTensorShardingRules(DialectRegistry &registry);

/// Elementwise arith and math ops on ranked tensors.
void registerArithMathShardingRules(DialectRegistry &registry);

} // namespace mlir::fuser

#endif // FUSER_DIALECT_FUSER_EXTERNALMODELS_UPSTREAMSHARDINGRULES_H
