// An AG+GEMM on index elements that no stream split asks to pipeline:
// pipelining=auto cannot cost it (index has no size in memory) and leaves
// it as written, where a requested one gets a diagnostic
// (pipeline-index-elements.mlir).
// RUN: fuser-opt %s --fuser-expose-pipelined-axes=pipelining=auto | FileCheck %s

// CHECK-LABEL: func.func @allgather_then_linear
// CHECK-NEXT: fuser.comm.allgather %arg0 axis = 0
// CHECK-NOT: fuser.pipelining
// CHECK-NEXT: fuser.linear
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []]>
#gathered = #fuser.sharding<#mesh, [[], []]>
#w = #fuser.sharding<#mesh, [[0], []]>
#y = #fuser.sharding<#mesh, [[], [0]]>
func.func @allgather_then_linear(%x: tensor<16x64xindex, #x>, %w: tensor<32x64xindex, #w>) -> tensor<16x32xindex, #y> {
  %g = fuser.comm.allgather %x axis = 0 : tensor<16x64xindex, #x> -> tensor<16x64xindex, #gathered>
  %q = fuser.linear %g, %w : (tensor<16x64xindex, #gathered>, tensor<32x64xindex, #w>) -> tensor<16x32xindex, #y>
  return %q : tensor<16x32xindex, #y>
}
