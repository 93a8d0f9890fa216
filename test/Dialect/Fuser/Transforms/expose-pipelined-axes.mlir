// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes,fuser-verify-stage{stage=decomposed}))' -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=ring},fuser-verify-stage{stage=decomposed}))' -mlir-print-local-scope | FileCheck %s --check-prefix=RING
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=none},fuser-verify-stage{stage=decomposed}))' -mlir-print-local-scope | FileCheck %s --check-prefix=NONE

// AG+GEMM: the gathered rows [16] become [2, 8]; the mesh axis splits the
// outer dim, the stream split chunks the inner one on both sides, and every
// linear reading the gathered value computes on the exposed form.
// CHECK-LABEL: func.func @allgather_then_linears
// CHECK: %[[X:.*]] = fuser.reshape %{{.*}} : tensor<16x64xf32, {{.*}}{{\[}}[0], []], stream = {0 : 4}>> -> tensor<2x8x64xf32, {{.*}}{{\[}}[0], [], []], stream = {1 : 4}>>
// CHECK: %[[G:.*]] = fuser.comm.allgather %[[X]] axis = 0 {fuser.pipelining = #fuser.pipelining<collective>} : {{.*}} -> tensor<2x8x64xf32, {{.*}}{{\[}}[], [], []], stream = {1 : 4}>>
// CHECK: %[[Q:.*]] = fuser.linear %[[G]], %{{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[], [], [0]], stream = {1 : 4}>>
// CHECK: %[[QR:.*]] = fuser.reshape %[[Q]] : {{.*}} -> tensor<16x32xf32, {{.*}}{{\[}}[], [0]]>>
// CHECK: %[[K:.*]] = fuser.linear %[[G]], %{{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[], [], [0]], stream = {1 : 4}>>
// CHECK: %[[KR:.*]] = fuser.reshape %[[K]]
// CHECK: return %[[QR]], %[[KR]]
// The ring takes the chunks of each block as they are.
// RING-LABEL: func.func @allgather_then_linears
// RING: fuser.comm.allgather {{.*}}{fuser.pipelining = #fuser.pipelining<ring>} : {{.*}} -> tensor<2x8x64xf32, {{.*}}{{\[}}[], [], []], stream = {1 : 4}>>
// Without overlap no value of the exposed form is stream-split.
// NONE-LABEL: func.func @allgather_then_linears
// NONE: fuser.reshape {{.*}} -> tensor<2x8x64xf32, {{.*}}{{\[}}[0], [], []]>>
// NONE: fuser.comm.allgather {{.*}}{fuser.pipelining = #fuser.pipelining<none>} : {{.*}} -> tensor<2x8x64xf32, {{.*}}{{\[}}[], [], []]>>
// NONE: fuser.linear {{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[], [], [0]]>>
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
// CHECK: %[[R:.*]] = fuser.comm.reduce_scatter %[[P]] axis = 0 {fuser.pipelining = #fuser.pipelining<collective>} : {{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[0], [], []], stream = {1 : 4}>>
// CHECK: %[[Y:.*]] = fuser.reshape %[[R]] : {{.*}} -> tensor<16x32xf32, {{.*}}{{\[}}[0], []], stream = {0 : 4}>>
// CHECK: return %[[Y]]
// RING-LABEL: func.func @linear_then_reduce_scatter
// RING: fuser.comm.reduce_scatter {{.*}}{fuser.pipelining = #fuser.pipelining<ring>}
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

// AG+GEMM through a matmul with a matrix rhs, the stream split on its
// result (chunks of the whole gathered dim, as nvFuser places it): the
// collective pipeline takes as many chunks of each block (each step moves
// as many rows), the ring a block in 4 / 2 chunks.
// CHECK-LABEL: func.func @allgather_then_matmul
// CHECK: %[[X:.*]] = fuser.reshape %{{.*}} -> tensor<2x8x64xbf16, {{.*}}{{\[}}[0], [], []], stream = {1 : 4}>>
// CHECK: %[[G:.*]] = fuser.comm.allgather %[[X]] axis = 0 {fuser.pipelining = #fuser.pipelining<collective>} : {{.*}} -> tensor<2x8x64xbf16, {{.*}}{{\[}}[], [], []], stream = {1 : 4}>>
// CHECK: %[[Y:.*]] = fuser.matmul %[[G]], %{{.*}} -> tensor<2x8x32xbf16, {{.*}}{{\[}}[], [], []], stream = {1 : 4}>>
// CHECK: fuser.reshape %[[Y]] : {{.*}} -> tensor<16x32xbf16, {{.*}}{{\[}}[], []], stream = {0 : 4}>>
// RING-LABEL: func.func @allgather_then_matmul
// RING: fuser.comm.allgather {{.*}}{fuser.pipelining = #fuser.pipelining<ring>} : {{.*}} -> tensor<2x8x64xbf16, {{.*}}{{\[}}[], [], []], stream = {1 : 2}>>
// RING: fuser.matmul {{.*}} -> tensor<2x8x32xbf16, {{.*}}{{\[}}[], [], []], stream = {1 : 2}>>
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#whole = #fuser.sharding<#mesh, [[], []]>
#chunked = #fuser.sharding<#mesh, [[], []], stream = {0 : 4}>
func.func @allgather_then_matmul(%x: tensor<16x64xbf16, #rows>, %b: tensor<64x32xbf16, #whole>) -> tensor<16x32xbf16, #chunked> {
  %g = fuser.comm.allgather %x axis = 0 : tensor<16x64xbf16, #rows> -> tensor<16x64xbf16, #whole>
  %y = fuser.matmul %g, %b : (tensor<16x64xbf16, #whole>, tensor<64x32xbf16, #whole>) -> tensor<16x32xbf16, #chunked>
  return %y : tensor<16x32xbf16, #chunked>
}

// -----

// GEMM+RS with the stream split on the partial result (chunks of the whole
// scattered dim).
// CHECK-LABEL: func.func @matmul_then_reduce_scatter
// CHECK: %[[P:.*]] = fuser.matmul {{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[], [], []], partial = {0 : sum}, stream = {1 : 4}>>
// CHECK: %[[R:.*]] = fuser.comm.reduce_scatter %[[P]] axis = 0 {fuser.pipelining = #fuser.pipelining<collective>} : {{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[0], [], []], stream = {1 : 4}>>
// CHECK: fuser.reshape %[[R]] : {{.*}} -> tensor<16x32xf32, {{.*}}{{\[}}[0], []]>>
// RING-LABEL: func.func @matmul_then_reduce_scatter
// RING: fuser.comm.reduce_scatter {{.*}}{fuser.pipelining = #fuser.pipelining<ring>} : {{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[0], [], []], stream = {1 : 2}>>
#mesh = #fuser.mesh<[2]>
#a = #fuser.sharding<#mesh, [[], [0]]>
#b = #fuser.sharding<#mesh, [[0], []]>
#partial = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}, stream = {0 : 4}>
#y = #fuser.sharding<#mesh, [[0], []]>
func.func @matmul_then_reduce_scatter(%a: tensor<16x64xf32, #a>, %b: tensor<64x32xf32, #b>) -> tensor<16x32xf32, #y> {
  %p = fuser.matmul %a, %b : (tensor<16x64xf32, #a>, tensor<64x32xf32, #b>) -> tensor<16x32xf32, #partial>
  %y = fuser.comm.reduce_scatter %p axis = 0 : tensor<16x32xf32, #partial> -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}

// -----

// GEMM+allreduce: collectively, chunk by chunk of the rows; as a ring, a
// ring GEMM+RS and then an allgather of the reduced rows in the same
// chunks (host lowering runs both in one ring).
// CHECK-LABEL: func.func @linear_then_allreduce
// CHECK: %[[P:.*]] = fuser.linear {{.*}} -> tensor<16x32xf32, {{.*}}partial = {0 : sum}, stream = {0 : 4}>>
// CHECK: fuser.comm.allreduce %[[P]] axis = 0 {fuser.pipelining = #fuser.pipelining<collective>} : {{.*}} -> tensor<16x32xf32, {{.*}}{{\[}}[], []], stream = {0 : 4}>>
// RING-LABEL: func.func @linear_then_allreduce
// RING: %[[X:.*]] = fuser.reshape %{{.*}} -> tensor<2x8x64xf32, {{.*}}{{\[}}[], [], [0]], stream = {1 : 2}>>
// RING: %[[P:.*]] = fuser.linear %[[X]], {{.*}} -> tensor<2x8x32xf32, {{.*}}partial = {0 : sum}, stream = {1 : 2}>>
// RING: %[[R:.*]] = fuser.comm.reduce_scatter %[[P]] axis = 0 {fuser.pipelining = #fuser.pipelining<ring>} : {{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[0], [], []], stream = {1 : 2}>>
// RING-NEXT: %[[G:.*]] = fuser.comm.allgather %[[R]] axis = 0 {fuser.pipelining = #fuser.pipelining<ring>} : {{.*}} -> tensor<2x8x32xf32, {{.*}}{{\[}}[], [], []], stream = {1 : 2}>>
// RING: %[[Y:.*]] = fuser.reshape %[[G]] : {{.*}} -> tensor<16x32xf32, {{.*}}{{\[}}[], []], stream = {0 : 4}>>
// RING: return %[[Y]]
// NONE-LABEL: func.func @linear_then_allreduce
// NONE: fuser.linear {{.*}} -> tensor<16x32xf32, {{.*}}partial = {0 : sum}>>
// NONE: fuser.comm.allreduce {{.*}}{fuser.pipelining = #fuser.pipelining<none>} : {{.*}} -> tensor<16x32xf32, {{.*}}{{\[}}[], []]>>
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[], [0]]>
#partial = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}, stream = {0 : 4}>
#y = #fuser.sharding<#mesh, [[], []], stream = {0 : 4}>
func.func @linear_then_allreduce(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #x>) -> tensor<16x32xf32, #y> {
  %p = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #x>) -> tensor<16x32xf32, #partial>
  %y = fuser.comm.allreduce %p axis = 0 : tensor<16x32xf32, #partial> -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}

// -----

// A gathered value that other ops read too (the backward's output
// gradient: rows of the data gradient, the contracted dim of the weight
// gradient): the linear overlaps the allgather, and the others read the
// whole gathered value, viewed where the first of them reads it.
// CHECK-LABEL: func.func @read_whole_too
// CHECK: %[[G:.*]] = fuser.comm.allgather {{.*}}{fuser.pipelining = #fuser.pipelining<collective>} : {{.*}} -> tensor<2x8x64xf32, {{.*}}stream = {1 : 4}>>
// CHECK-NEXT: fuser.linear %[[G]]
// CHECK-NEXT: fuser.reshape
// CHECK-NEXT: %[[WHOLE:.*]] = fuser.reshape %[[G]] : {{.*}} -> tensor<16x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
// CHECK-NEXT: fuser.exp %[[WHOLE]]
// CHECK-NEXT: fuser.permute %[[WHOLE]]
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
#gathered = #fuser.sharding<#mesh, [[], []]>
#w = #fuser.sharding<#mesh, [[], []]>
func.func @read_whole_too(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #w>) -> (tensor<16x32xf32, #gathered>, tensor<16x64xf32, #gathered>, tensor<64x16xf32, #gathered>) {
  %g = fuser.comm.allgather %x axis = 0 : tensor<16x64xf32, #x> -> tensor<16x64xf32, #gathered>
  %y = fuser.linear %g, %w : (tensor<16x64xf32, #gathered>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #gathered>
  %e = fuser.exp %g : tensor<16x64xf32, #gathered> -> tensor<16x64xf32, #gathered>
  %t = fuser.permute %g perm = [1, 0] : tensor<16x64xf32, #gathered> -> tensor<64x16xf32, #gathered>
  return %y, %e, %t : tensor<16x32xf32, #gathered>, tensor<16x64xf32, #gathered>, tensor<64x16xf32, #gathered>
}

// -----

// Left alone: the gathered value has no user that reads it as rows, the
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
  %gc = fuser.comm.allgather %c axis = 0 : tensor<16x64xf32, #cols> -> tensor<16x64xf32, #gatheredCols>
  %yc = fuser.linear %gc, %w : (tensor<16x64xf32, #gatheredCols>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #gathered>
  %gl = fuser.comm.allgather %l axis = 0 : tensor<16x64xf32, #laid> -> tensor<16x64xf32, #gathered>
  %yl = fuser.linear %gl, %w : (tensor<16x64xf32, #gathered>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #gathered>
  return
}

// -----

// A fixed mode pipelines what stream splits ask for only: an AG+GEMM
// without one stays as written.
// CHECK-LABEL: func.func @unrequested
// CHECK-NEXT: fuser.comm.allgather %arg0 axis = 0 : tensor<16x4xf32, {{.*}}> -> tensor<16x4xf32, {{.*}}>
// CHECK-NOT: fuser.pipelining
// CHECK-NEXT: fuser.matmul
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []]>
#whole = #fuser.sharding<#mesh, [[], []]>
func.func @unrequested(%x: tensor<16x4xf32, #x>, %b: tensor<4x8xf32, #whole>) -> tensor<16x8xf32, #whole> {
  %g = fuser.comm.allgather %x axis = 0 : tensor<16x4xf32, #x> -> tensor<16x4xf32, #whole>
  %y = fuser.matmul %g, %b : (tensor<16x4xf32, #whole>, tensor<4x8xf32, #whole>) -> tensor<16x8xf32, #whole>
  return %y : tensor<16x8xf32, #whole>
}
