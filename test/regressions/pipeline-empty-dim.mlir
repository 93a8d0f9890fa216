// A GEMM+RS pipelined over an empty dim: exposing the pipelined axis
// reshapes the empty dim, which used to divide by 0 in the reshape's
// sharding rule; the stage contract now reports what cannot be placed.
// RUN: not fuser-opt %s -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes,fuser-verify-stage{stage=decomposed}))' 2>&1 | FileCheck %s

// CHECK: error: reshards (stage 'decomposed')
// CHECK-NOT: Stack dump
#mesh = #fuser.mesh<[2]>
#a = #fuser.sharding<#mesh, [[], [0]]>
#b = #fuser.sharding<#mesh, [[0], []]>
#partial = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}, stream = {0 : 4}>
#y = #fuser.sharding<#mesh, [[0], []]>
func.func @matmul_then_reduce_scatter(%a: tensor<0x64xf32, #a>, %b: tensor<64x32xf32, #b>) -> tensor<0x32xf32, #y> {
  %p = fuser.matmul %a, %b : (tensor<0x64xf32, #a>, tensor<64x32xf32, #b>) -> tensor<0x32xf32, #partial>
  %y = fuser.comm.reduce_scatter %p axis = 0 : tensor<0x32xf32, #partial> -> tensor<0x32xf32, #y>
  return %y : tensor<0x32xf32, #y>
}
