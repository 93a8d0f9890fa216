// A pipeline runs as the plan its communication carries
// (fuser.pipelining, set by fuser-expose-pipelined-axes), whatever the
// host lowering's own `pipelining` option says.
// RUN: fuser-opt %s -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings,fuser-expose-pipelined-axes{pipelining=ring},fuser-reorder-sharded-axis,fuser-mark-aliases,fuser-infer-allocation-order,fuser-finalize-layouts),fuser-segment,convert-fuser-to-hostir{pipelining=collective})' | FileCheck %s --check-prefix=RING
// RUN: fuser-opt %s -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings,fuser-expose-pipelined-axes{pipelining=none},fuser-reorder-sharded-axis,fuser-mark-aliases,fuser-infer-allocation-order,fuser-finalize-layouts),fuser-segment,convert-fuser-to-hostir{pipelining=ring})' | FileCheck %s --check-prefix=NONE

// RING-LABEL: func.func @ag_gemm
// RING: scf.for
// RING: hostir.send
// RING: hostir.recv
// RING: hostir.linear
// RING-NOT: hostir.allgather
// NONE-LABEL: func.func @ag_gemm
// NONE-NOT: scf.for
// NONE: hostir.allgather
// NONE: hostir.wait
// NONE: hostir.linear
// NONE-NOT: hostir.send
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
#w = #fuser.sharding<#mesh, [[0], []]>
#y = #fuser.sharding<#mesh, [[], [0]]>
func.func @ag_gemm(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}
