// A layer written for a mesh of one device (the sequence-parallel layer
// run unsharded): its communications move nothing, so no pipelining mode
// exposes them, asked for by a stream split or not; the exposed chunks
// used to leave a reshape no segment could compute. The weights outweigh
// the activations, as in a transformer layer, so that propagation gathers
// the activations rather than the weights.
// RUN: fuser-opt %s --fuser-propagate-shardings --fuser-decompose-reshardings --fuser-expose-pipelined-axes=pipelining=auto | FileCheck %s
// RUN: fuser-opt %s --fuser-to-hostir-pipeline=pipelining=auto -o /dev/null
// RUN: fuser-opt %s --fuser-to-hostir-pipeline=pipelining=ring -o /dev/null
// RUN: fuser-opt %s --fuser-to-hostir-pipeline=pipelining=collective -o /dev/null
// RUN: fuser-opt %s --fuser-to-hostir-pipeline=pipelining=none -o /dev/null

// CHECK-LABEL: func.func @sp_mlp
// CHECK-NOT: fuser.pipelining
// CHECK: fuser.comm.allgather
// CHECK-NOT: fuser.pipelining
// CHECK: fuser.comm.reduce_scatter
// CHECK-NOT: fuser.pipelining
#mesh = #fuser.mesh<[1]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#streamed = #fuser.sharding<#mesh, [[0], []], stream = {0 : 2}>
#cols = #fuser.sharding<#mesh, [[], [0]]>
func.func @sp_mlp(%x: tensor<2048x1024xbf16, #streamed>,
                  %w1: tensor<4096x1024xbf16, #rows>,
                  %w2: tensor<1024x4096xbf16, #cols>) -> tensor<2048x1024xbf16, #rows> {
  %h = fuser.linear %x, %w1 : (tensor<2048x1024xbf16, #streamed>, tensor<4096x1024xbf16, #rows>) -> tensor<2048x4096xbf16>
  %a = fuser.gelu %h : tensor<2048x4096xbf16> -> tensor<2048x4096xbf16>
  %y = fuser.linear %a, %w2 : (tensor<2048x4096xbf16>, tensor<1024x4096xbf16, #cols>) -> tensor<2048x1024xbf16, #rows>
  return %y : tensor<2048x1024xbf16, #rows>
}
