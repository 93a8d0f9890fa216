// pipelining=auto weighs a pipeline by its bytes: a linear on index
// elements, which have no size in memory, gets a diagnostic instead of a
// crash reading the width of a type that has none.
// RUN: not fuser-opt %s --fuser-expose-pipelined-axes=pipelining=auto 2>&1 | FileCheck %s
// RUN: not fuser-opt %s --fuser-to-hostir-pipeline=pipelining=auto 2>&1 | FileCheck %s

// CHECK: error: 'fuser.linear' op computes on 'index' elements, which have no size in memory for pipelining=auto to cost; give a pipelining mode or a sized element type
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
#gathered = #fuser.sharding<#mesh, [[], []]>
#w = #fuser.sharding<#mesh, [[0], []]>
#y = #fuser.sharding<#mesh, [[], [0]]>
func.func @allgather_then_linear(%x: tensor<16x64xindex, #x>, %w: tensor<32x64xindex, #w>) -> tensor<16x32xindex, #y> {
  %g = fuser.comm.allgather %x axis = 0 : tensor<16x64xindex, #x> -> tensor<16x64xindex, #gathered>
  %q = fuser.linear %g, %w : (tensor<16x64xindex, #gathered>, tensor<32x64xindex, #w>) -> tensor<16x32xindex, #y>
  return %q : tensor<16x32xindex, #y>
}
