// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-infer-allocation-order,fuser-verify-stage))' -mlir-print-local-scope | FileCheck %s

// A column-major input's order flows through a pointwise chain to the
// result (whose type follows).
// CHECK-LABEL: func.func @pointwise_chain
// CHECK-SAME: -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], order = [1, 0]>>
// CHECK: fuser.exp {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], order = [1, 0]>>
// CHECK: fuser.add {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], order = [1, 0]>>
#mesh = #fuser.mesh<[2]>
func.func @pointwise_chain(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], order = [1, 0]>>,
                           %y: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> {
  %0 = fuser.exp %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], order = [1, 0]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>
  %1 = fuser.add %y, %0 : (tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>
  return %1 : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>
}

// -----

// Dims the reference lacks go outermost; the reference's dims keep their
// memory order inside. (The broadcast is a view: the alias analysis gives
// its layout, with the repeated dim outermost.)
// CHECK-LABEL: func.func @new_dims_outermost
// CHECK: fuser.broadcast {{.*}} -> tensor<3x8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [], []]>>
// CHECK: fuser.neg {{.*}} -> tensor<3x8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [], []], order = [0, 2, 1]>>
// CHECK: fuser.sum {{.*}} -> tensor<4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[]]>>
#mesh = #fuser.mesh<[2]>
#cm = #fuser.sharding<#mesh, [[], []], order = [1, 0]>
#rep3 = #fuser.sharding<#mesh, [[], [], []]>
func.func @new_dims_outermost(%x: tensor<8x4xf32, #cm>) {
  %0 = fuser.exp %x : tensor<8x4xf32, #cm> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], order = [1, 0]>>
  %1 = fuser.broadcast %0 dims = [1, 2] : tensor<8x4xf32, #cm> -> tensor<3x8x4xf32, #rep3>
  %2 = fuser.neg %1 : tensor<3x8x4xf32, #rep3> -> tensor<3x8x4xf32, #rep3>
  %3 = fuser.sum %0 dims = [0] : tensor<8x4xf32, #cm> -> tensor<4xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

// Library calls keep row-major results; stated layouts are kept.
// CHECK-LABEL: func.func @matmul_and_stated
// CHECK: fuser.matmul {{.*}} -> tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
// CHECK: fuser.exp {{.*}} -> tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], contiguity = [false, true]>>
#mesh = #fuser.mesh<[2]>
#cm = #fuser.sharding<#mesh, [[], []], order = [1, 0]>
func.func @matmul_and_stated(%a: tensor<8x8xf32, #cm>, %b: tensor<8x8xf32, #cm>) {
  %0 = fuser.matmul %a, %b : (tensor<8x8xf32, #cm>, tensor<8x8xf32, #cm>) -> tensor<8x8xf32, #fuser.sharding<#mesh, [[], []]>>
  %1 = fuser.exp %a : tensor<8x8xf32, #cm> -> tensor<8x8xf32, #fuser.sharding<#mesh, [[], []], contiguity = [false, true]>>
  return
}

// -----

// A value a view was laid out from keeps its layout.
// CHECK-LABEL: func.func @view_sources_stay
// CHECK: fuser.exp {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
#mesh = #fuser.mesh<[2]>
#cm = #fuser.sharding<#mesh, [[], []], order = [1, 0]>
func.func @view_sources_stay(%x: tensor<8x4xf32, #cm>) {
  %0 = fuser.exp %x : tensor<8x4xf32, #cm> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  %1 = fuser.reshape %0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>> -> tensor<32xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

// A per-row statistic broadcast along the rows (a layer norm's mean), even
// behind a segment boundary, passes no order on: the difference stays
// row-major.
#mesh = #fuser.mesh<[2]>
#rep2 = #fuser.sharding<#mesh, [[], []]>
#rep3 = #fuser.sharding<#mesh, [[], [], []]>
// CHECK-LABEL: func.func @broadcast_rows_pass_nothing_on
func.func @broadcast_rows_pass_nothing_on(%x: tensor<1x16x32xf32, #rep3>, %mean: tensor<1x16xf32, #rep2>) {
  %b = fuser.broadcast %mean dims = [0, 1] : tensor<1x16xf32, #rep2> -> tensor<1x16x32xf32, #rep3>
  %s = fuser.segment_set %b : tensor<1x16x32xf32, #rep3> -> tensor<1x16x32xf32, #rep3>
  // CHECK: fuser.sub {{.*}} -> tensor<1x16x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [], []]>>
  %d = fuser.sub %x, %s : (tensor<1x16x32xf32, #rep3>, tensor<1x16x32xf32, #rep3>) -> tensor<1x16x32xf32, #rep3>
  return
}

// -----

// An expanded per-row value passes no order on: the softmax-style
// difference stays row-major.
#mesh = #fuser.mesh<[2]>
#rep = #fuser.sharding<#mesh, [[], []]>
// CHECK-LABEL: func.func @expanded_rows_pass_nothing_on
func.func @expanded_rows_pass_nothing_on(%x: tensor<8x16xf32, #rep>) {
  %m = fuser.max %x dims = [1] keepdim : tensor<8x16xf32, #rep> -> tensor<8x1xf32, #rep>
  %mb = fuser.expand %m : tensor<8x1xf32, #rep> -> tensor<8x16xf32, #rep>
  // CHECK: fuser.sub {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
  %d = fuser.sub %x, %mb : (tensor<8x16xf32, #rep>, tensor<8x16xf32, #rep>) -> tensor<8x16xf32, #rep>
  return
}

// -----

// A value a communication reads keeps the layout fuser-reorder-sharded-axis
// gave it, row-major too (which states no order): the copy it inserted to
// put dim 0 outermost for the second all_to_all stays a copy.
// CHECK-LABEL: func.func @laid_out_for_a_communication
// CHECK: %[[COPY:.*]] = fuser.set {{.*}} -> tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[1], [0]]>>
// CHECK-NEXT: fuser.comm.all_to_all %[[COPY]] axis = 0
#mesh = #fuser.mesh<[2, 2]>
func.func @laid_out_for_a_communication(%x: tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0, 1]]>>) -> tensor<4x8xf32, #fuser.sharding<#mesh, [[1, 0], []]>> {
  %0 = fuser.comm.all_to_all %x axis = 1 : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0, 1]]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[1], [0]], order = [1, 0]>>
  %1 = fuser.set %0 : tensor<4x8xf32, #fuser.sharding<#mesh, [[1], [0]], order = [1, 0]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[1], [0]]>>
  %2 = fuser.comm.all_to_all %1 axis = 0 : tensor<4x8xf32, #fuser.sharding<#mesh, [[1], [0]]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[1, 0], []]>>
  return %2 : tensor<4x8xf32, #fuser.sharding<#mesh, [[1, 0], []]>>
}

// -----

// A reshape merging dims apart in memory (attention's heads and head dim,
// the sequence between them: a permute's view) keeps the fastest factor
// fastest: the copy it needs moves runs of the head dim, not a transpose.
// CHECK-LABEL: func.func @merged_dims_keep_the_fastest_factor
// CHECK: fuser.reshape {{.*}} -> tensor<1x8x8xf32, #fuser.sharding<#fuser.mesh<[1]>, {{\[}}[], [], []]>>
#mesh = #fuser.mesh<[1]>
#heads = #fuser.sharding<#mesh, [[], [], [], []], order = [0, 2, 1, 3]>
#r3 = #fuser.sharding<#mesh, [[], [], []]>
func.func @merged_dims_keep_the_fastest_factor(%permuted: tensor<1x8x4x2xf32, #heads>) {
  %0 = fuser.reshape %permuted : tensor<1x8x4x2xf32, #heads> -> tensor<1x8x8xf32, #r3>
  %1 = fuser.neg %0 : tensor<1x8x8xf32, #r3> -> tensor<1x8x8xf32, #r3>
  return
}
