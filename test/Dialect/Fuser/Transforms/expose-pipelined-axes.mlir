// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes,fuser-verify-stage{stage=decomposed}))' -mlir-print-local-scope | FileCheck %s

// AG+GEMM: the gathered rows [16] become [2, 8]; the mesh axis splits the
// outer dim, the stream split chunks the inner one on both sides, and every
// linear reading the gathered value computes on the exposed form.
// CHECK-LABEL: func.func @allgather_then_linears
// CHECK: %[[X:.*]] = fuser.reshape %{{.*}} : tensor<16x64xf32, {{.*}}{{\[}}[0], []], stream = {0 : 4}>> -> tensor<2x8x64xf32, {{.*}}{{\[}}[0], [], []], stream = {1 : 4}>>
// CHECK: %[[G:.*]] = fuser.comm.allgather %[[X]] axis = 0 : {{.*}} -> tensor<2x8x64xf32, {{.*}}{{\[}}[], [], []], stream = {1 : 4}>>
// CHECK: %[[Q:.*]] = fuser.linear %[[G]], %{{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[], [], [0]], stream = {1 : 4}>>
// CHECK: %[[QR:.*]] = fuser.reshape %[[Q]] : {{.*}} -> tensor<16x32xf32, {{.*}}{{\[}}[], [0]]>>
// CHECK: %[[K:.*]] = fuser.linear %[[G]], %{{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[], [], [0]], stream = {1 : 4}>>
// CHECK: %[[KR:.*]] = fuser.reshape %[[K]]
// CHECK: return %[[QR]], %[[KR]]
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
#gathered = #fuser.sharding<#mesh, [[], []]>
#w = #fuser.sharding<#mesh, [[0], []]>
#y = #fuser.sharding<#mesh, [[], [0]]>
func.func @allgather_then_linears(%x: tensor<16x64xf32, #x>, %wq: tensor<32x64xf32, #w>, %wk: tensor<32x64xf32, #w>)
    -> (tensor<16x32xf32, #y>, tensor<16x32xf32, #y>) {
  %g = fuser.comm.allgather %x axis = 0 : tensor<16x64xf32, #x> -> tensor<16x64xf32, #gathered>
  %q = fuser.linear %g, %wq : (tensor<16x64xf32, #gathered>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y>
  %k = fuser.linear %g, %wk : (tensor<16x64xf32, #gathered>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y>
  return %q, %k : tensor<16x32xf32, #y>, tensor<16x32xf32, #y>
}

// -----

// GEMM+RS: the linear computes the partial rows in the exposed form, the
// reduce_scatter splits the outer dim, and the result is reshaped back.
// CHECK-LABEL: func.func @linear_then_reduce_scatter
// CHECK: %[[X:.*]] = fuser.reshape %{{.*}} : tensor<16x64xf32, {{.*}}{{\[}}[], [0]]>> -> tensor<2x8x64xf32, {{.*}}{{\[}}[], [], [0]], stream = {1 : 4}>>
// CHECK: %[[P:.*]] = fuser.linear %[[X]], %{{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[], [], []], partial = {0 : sum}, stream = {1 : 4}>>
// CHECK: %[[R:.*]] = fuser.comm.reduce_scatter %[[P]] axis = 0 : {{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[0], [], []], stream = {1 : 4}>>
// CHECK: %[[Y:.*]] = fuser.reshape %[[R]] : {{.*}} -> tensor<16x32xf32, {{.*}}{{\[}}[0], []], stream = {0 : 4}>>
// CHECK: return %[[Y]]
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[], [0]]>
#partial = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>
#y = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
func.func @linear_then_reduce_scatter(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #x>) -> tensor<16x32xf32, #y> {
  %p = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #x>) -> tensor<16x32xf32, #partial>
  %y = fuser.comm.reduce_scatter %p axis = 0 : tensor<16x32xf32, #partial> -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}

// -----

// Left alone: the gathered value has a user that is not a linear, the
// stream split is on another dim than the gathered one, and a buffer whose
// layout is stated.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: fuser.reshape
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
#cols = #fuser.sharding<#mesh, [[0], []], stream = {1 : 4}>
#laid = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}, order = [1, 0]>
#gathered = #fuser.sharding<#mesh, [[], []]>
#gatheredCols = #fuser.sharding<#mesh, [[], []], stream = {1 : 4}>
#w = #fuser.sharding<#mesh, [[], []]>
func.func @left_alone(%x: tensor<16x64xf32, #x>, %c: tensor<16x64xf32, #cols>, %l: tensor<16x64xf32, #laid>, %w: tensor<32x64xf32, #w>) {
  %g = fuser.comm.allgather %x axis = 0 : tensor<16x64xf32, #x> -> tensor<16x64xf32, #gathered>
  %e = fuser.exp %g : tensor<16x64xf32, #gathered> -> tensor<16x64xf32, #gathered>
  %y = fuser.linear %g, %w : (tensor<16x64xf32, #gathered>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #gathered>
  %gc = fuser.comm.allgather %c axis = 0 : tensor<16x64xf32, #cols> -> tensor<16x64xf32, #gatheredCols>
  %yc = fuser.linear %gc, %w : (tensor<16x64xf32, #gatheredCols>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #gathered>
  %gl = fuser.comm.allgather %l axis = 0 : tensor<16x64xf32, #laid> -> tensor<16x64xf32, #gathered>
  %yl = fuser.linear %gl, %w : (tensor<16x64xf32, #gathered>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #gathered>
  return
}
