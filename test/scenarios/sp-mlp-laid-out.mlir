// The sequence-parallel MLP through the whole fuser-level pipeline, with a
// head-split output whose permute becomes a view segment.
// RUN: fuser-opt %s -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings,fuser-reorder-sharded-axis,fuser-mark-aliases,fuser-infer-allocation-order,fuser-finalize-layouts,fuser-verify-stage{stage=laid-out}))' -mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @sp_mlp
// The sequence split is outermost: the allgather needs no copy.
// CHECK: %[[G:.*]] = fuser.comm.allgather
// CHECK-NOT: fuser.set
// CHECK: fuser.linear %[[G]]
// CHECK: fuser.comm.reduce_scatter
// CHECK: %[[R:.*]] = fuser.add
// CHECK-NEXT: %[[B:.*]] = fuser.segment_set %[[R]]
// CHECK-NEXT: %[[V:.*]] = fuser.reshape %[[B]]
// CHECK-NEXT: %[[P:.*]] = fuser.permute %[[V]]
// CHECK-NEXT: return %[[P]]
#mesh = #fuser.mesh<[2]>
func.func @sp_mlp(%x: tensor<8x64xf32, #fuser.sharding<#mesh, [[0], []]>>,
                  %w1: tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>,
                  %w2: tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<4x8x16xf32> {
  %h = fuser.linear %x, %w1 : (tensor<8x64xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x256xf32>
  %a = fuser.gelu %h : tensor<8x256xf32> -> tensor<8x256xf32>
  %y = fuser.linear %a, %w2 : (tensor<8x256xf32>, tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x64xf32>
  %r = fuser.add %y, %x : (tensor<8x64xf32>, tensor<8x64xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x64xf32>
  %heads = fuser.reshape %r : tensor<8x64xf32> -> tensor<8x4x16xf32>
  %t = fuser.permute %heads perm = [1, 0, 2] : tensor<8x4x16xf32> -> tensor<4x8x16xf32>
  return %t : tensor<4x8x16xf32>
}
