// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-reorder-sharded-axis,fuser-verify-stage{stage=laid-out}))' -mlir-print-local-scope | FileCheck %s

// Gathering a dim that is not outermost in the caller's row-major buffer
// takes exactly one transposing copy; the free result takes the layout.
// CHECK-LABEL: func.func @allgather_inner_dim
// CHECK: %[[T:.*]] = fuser.set %{{.*}} : {{.*}}{{\[}}[], [0]]>> -> {{.*}}{{\[}}[], [0]], order = [1, 0]>>
// CHECK: %[[G:.*]] = fuser.comm.allgather %[[T]] axis = 0 : {{.*}} -> {{.*}}{{\[}}[], []], order = [1, 0]>>
// CHECK-NOT: fuser.set
// CHECK: fuser.exp %[[G]]
#mesh = #fuser.mesh<[2]>
func.func @allgather_inner_dim(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>) {
  %0 = fuser.comm.allgather %x axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  %1 = fuser.exp %0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  return
}

// -----

// The outer dim already complies: no copy, no layout change.
// CHECK-LABEL: func.func @compliant
// CHECK-NOT: fuser.set
// CHECK: fuser.comm.allgather %{{.*}} axis = 0 : {{.*}}{{\[}}[0], []]>> -> {{.*}}{{\[}}[], []]>>
// CHECK-NOT: fuser.set
#mesh = #fuser.mesh<[2]>
func.func @compliant(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>> {
  %0 = fuser.comm.allgather %x axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  return %0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

// Size-1 dims may sit before the concatenated dim.
// CHECK-LABEL: func.func @unit_dims_do_not_count
// CHECK-NOT: fuser.set
#mesh = #fuser.mesh<[2]>
func.func @unit_dims_do_not_count(%x: tensor<1x8xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<1x8xf32, #fuser.sharding<#mesh, [[], []]>> {
  %0 = fuser.comm.allgather %x axis = 0 : tensor<1x8xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<1x8xf32, #fuser.sharding<#mesh, [[], []]>>
  return %0 : tensor<1x8xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

// A free intermediate takes the layout without a copy: the kernel that
// computes it writes it transposed.
// CHECK-LABEL: func.func @free_operand
// CHECK: %[[E:.*]] = fuser.exp %{{.*}} -> {{.*}}{{\[}}[], [0]], order = [1, 0]>>
// CHECK-NOT: fuser.set
// CHECK: fuser.comm.gather %[[E]] axis = 0 root = 0
#mesh = #fuser.mesh<[2]>
func.func @free_operand(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1]>, [[], []], order = [1, 0]>> {
  %0 = fuser.exp %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
  %1 = fuser.comm.gather %0 axis = 0 root = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1]>, [[], []], order = [1, 0]>>
  return %1 : tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1]>, [[], []], order = [1, 0]>>
}

// -----

// A scatter into a returned (fixed, row-major) buffer split on its inner
// dim communicates into the needed layout and copies once after.
// CHECK-LABEL: func.func @scatter_fixed_result
// CHECK: %[[S:.*]] = fuser.comm.scatter %{{.*}} axis = 0 root = 0 : {{.*}} -> {{.*}}{{\[}}[], [0]], order = [1, 0]>>
// CHECK: %[[C:.*]] = fuser.set %[[S]] : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK: return %[[C]]
#mesh = #fuser.mesh<[2]>
func.func @scatter_fixed_result(%x: tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1]>, [[], []], order = [1, 0]>>) -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>> {
  %0 = fuser.comm.scatter %x axis = 0 root = 0 : tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1]>, [[], []], order = [1, 0]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
  return %0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
}

// -----

// A non-contiguous layout asked for on a reduce_scatter result is honoured
// by a copy after the communication, which writes a contiguous buffer.
// CHECK-LABEL: func.func @reduce_scatter_noncontiguous_result
// CHECK: %[[R:.*]] = fuser.comm.reduce_scatter %{{.*}} axis = 0 : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: %[[C:.*]] = fuser.set %[[R]] : {{.*}} -> {{.*}}contiguity = [false, true]>>
// CHECK: fuser.exp %[[C]]
#mesh = #fuser.mesh<[2]>
#strided = #fuser.sharding<#mesh, [[0], []], contiguity = [false, true]>
func.func @reduce_scatter_noncontiguous_result(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>>) {
  %0 = fuser.comm.reduce_scatter %x axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>> -> tensor<8x4xf32, #strided>
  %1 = fuser.exp %0 : tensor<8x4xf32, #strided> -> tensor<8x4xf32, #strided>
  return
}

// -----

// Collectives without a concatenated dim need contiguity only: a
// transposed input is fine, a strided one is copied.
// CHECK-LABEL: func.func @allreduce_layouts
// CHECK-NEXT: fuser.comm.allreduce %arg0
// CHECK: %[[C:.*]] = fuser.set %arg1 : {{.*}}contiguity = [false, true]>> -> {{.*}}partial = {0 : sum}>>
// CHECK: fuser.comm.allreduce %[[C]]
#mesh = #fuser.mesh<[2]>
func.func @allreduce_layouts(%t: tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}, order = [1, 0]>>,
                             %s: tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}, contiguity = [false, true]>>) {
  %0 = fuser.comm.allreduce %t axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}, order = [1, 0]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  %1 = fuser.comm.allreduce %s axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}, contiguity = [false, true]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  return
}

// -----

// all_to_all sends blocks of the dim that becomes split and receives blocks
// of the dim that was split: each must be outermost on its side.
// CHECK-LABEL: func.func @all_to_all_sides
// CHECK: %[[T:.*]] = fuser.set %arg0 : {{.*}}{{\[}}[0], []]>> -> {{.*}}{{\[}}[0], []], order = [1, 0]>>
// CHECK: fuser.comm.all_to_all %[[T]] axis = 0 : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
#mesh = #fuser.mesh<[2]>
func.func @all_to_all_sides(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) {
  %0 = fuser.comm.all_to_all %x axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
  %1 = fuser.exp %0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
  return
}

// -----

// A communication host lowering runs chunk by chunk needs each chunk to
// serve it, not the whole buffer: with the stream dim outermost and one
// index of it per chunk, the gathered dim is outermost in every chunk.
// CHECK-LABEL: func.func @chunkwise_compliant
// CHECK-NOT: fuser.set
// CHECK: fuser.comm.allgather %{{.*}} axis = 0 : {{.*}}{{\[}}[], [0], []], stream = {0 : 4}>> -> {{.*}}{{\[}}[], [], []], stream = {0 : 4}>>
// CHECK-NOT: fuser.set
#mesh = #fuser.mesh<[2]>
func.func @chunkwise_compliant(%x: tensor<4x2x8xf32, #fuser.sharding<#mesh, [[], [0], []], stream = {0 : 4}>>) -> tensor<4x2x8xf32, #fuser.sharding<#mesh, [[], [], []], stream = {0 : 4}>> {
  %0 = fuser.comm.allgather %x axis = 0 : tensor<4x2x8xf32, #fuser.sharding<#mesh, [[], [0], []], stream = {0 : 4}>> -> tensor<4x2x8xf32, #fuser.sharding<#mesh, [[], [], []], stream = {0 : 4}>>
  return %0 : tensor<4x2x8xf32, #fuser.sharding<#mesh, [[], [], []], stream = {0 : 4}>>
}

// -----

// Chunks of the stream dim become dense when it moves outermost, followed
// by the gathered dim: the free result takes that order.
// CHECK-LABEL: func.func @chunkwise_reordered
// CHECK: fuser.comm.allgather %{{.*}} axis = 0 : {{.*}} -> {{.*}}{{\[}}[], [], []], stream = {1 : 4}, order = [1, 0, 2]>>
#mesh = #fuser.mesh<[2]>
func.func @chunkwise_reordered(%x: tensor<2x4x8xf32, #fuser.sharding<#mesh, [[0], [], []], stream = {1 : 4}>>) {
  %0 = fuser.comm.allgather %x axis = 0 : tensor<2x4x8xf32, #fuser.sharding<#mesh, [[0], [], []], stream = {1 : 4}>> -> tensor<2x4x8xf32, #fuser.sharding<#mesh, [[], [], []], stream = {1 : 4}>>
  %1 = fuser.exp %0 : tensor<2x4x8xf32, #fuser.sharding<#mesh, [[], [], []], stream = {1 : 4}>> -> tensor<2x4x8xf32, #fuser.sharding<#mesh, [[], [], []], stream = {1 : 4}>>
  return
}

// -----

// An allreduce copies its buffers element for element: its result takes the
// order the reduce_scatter before it gave the operand (its scattered dim
// outermost), where the result's row-major order would transpose the data;
// the caller's row-major result is one transposing copy after it.
// CHECK-LABEL: func.func @allreduce_keeps_its_operand_order
// CHECK: %[[RS:.*]] = fuser.comm.reduce_scatter %{{.*}} axis = 0 : {{.*}} -> {{.*}}{{\[}}[], [0]], partial = {1 : sum}, order = [1, 0]>>
// CHECK: %[[AR:.*]] = fuser.comm.allreduce %[[RS]] axis = 1 : {{.*}} -> {{.*}}{{\[}}[], [0]], order = [1, 0]>>
// CHECK: %[[ROWS:.*]] = fuser.set %[[AR]] : {{.*}} -> tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[], [0]]>>
// CHECK: return %[[ROWS]]
#mesh = #fuser.mesh<[2, 2]>
func.func @allreduce_keeps_its_operand_order(%x: tensor<4x8xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum, 1 : sum}>>) -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>> {
  %0 = fuser.comm.reduce_scatter %x axis = 0 : tensor<4x8xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum, 1 : sum}>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]], partial = {1 : sum}>>
  %1 = fuser.comm.allreduce %0 axis = 1 : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]], partial = {1 : sum}>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
  return %1 : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
}

// -----

// An allgather moves whole blocks of its gathered dim: after that dim, its
// result orders the other dims as its operand does (here the order a
// transposing copy gave the operand), not row-major.
// CHECK-LABEL: func.func @allgather_keeps_its_operand_order
// CHECK: %[[T:.*]] = fuser.set %arg0 : {{.*}} -> {{.*}}{{\[}}[], [], [], [1]], order = [3, 2, 0, 1]>>
// CHECK: fuser.comm.allgather %[[T]] axis = 1 : {{.*}} -> {{.*}}{{\[}}[], [], [], []], order = [3, 2, 0, 1]>>
#mesh = #fuser.mesh<[2, 2]>
func.func @allgather_keeps_its_operand_order(%x: tensor<1x2x8x4xf32, #fuser.sharding<#mesh, [[], [], [], [1]], order = [2, 0, 1, 3]>>) {
  %0 = fuser.comm.allgather %x axis = 1 : tensor<1x2x8x4xf32, #fuser.sharding<#mesh, [[], [], [], [1]], order = [2, 0, 1, 3]>> -> tensor<1x2x8x4xf32, #fuser.sharding<#mesh, [[], [], [], []]>>
  %1 = fuser.exp %0 : tensor<1x2x8x4xf32, #fuser.sharding<#mesh, [[], [], [], []]>> -> tensor<1x2x8x4xf32, #fuser.sharding<#mesh, [[], [], [], []]>>
  return
}
