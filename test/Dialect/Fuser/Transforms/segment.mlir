// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(fuser-segment,func.func(fuser-verify-stage{stage=segmented}))' -mlir-print-local-scope | FileCheck %s

// Tensor-parallel MLP: two library calls, one kernel between them, one
// communication; the kernel computes on the per-rank pieces.
// CHECK-LABEL: func.func @tp_mlp
// CHECK: %[[H:.*]] = fuser.linear
// CHECK: %[[A:.*]] = fuser.kernel @kernels::@tp_mlp_kernel_0(%[[H]]) : (tensor<8x256xf32, {{.*}}) -> tensor<8x256xf32, {{.*}}
// CHECK: %[[Y:.*]] = fuser.linear %[[A]]
// CHECK: fuser.comm.allreduce %[[Y]]
// CHECK: module @kernels
// CHECK: func.func @tp_mlp_kernel_0(%[[IN:.*]]: memref<8x128xf32>, %[[OUT:.*]]: memref<8x128xf32>)
// CHECK-NEXT: %[[T:.*]] = bufferization.to_tensor %[[IN]] restrict
// CHECK-NEXT: %[[G:.*]] = fuser.gelu %[[T]] approximation = tanh : tensor<8x128xf32> -> tensor<8x128xf32>
// CHECK-NEXT: bufferization.materialize_in_destination %[[G]] in restrict writable %[[OUT]]
// CHECK-NEXT: return
#mesh = #fuser.mesh<[2]>
#rep = #fuser.sharding<#mesh, [[], []]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#partial = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>
func.func @tp_mlp(%x: tensor<8x64xf32, #rep>, %w1: tensor<256x64xf32, #rows>, %w2: tensor<64x256xf32, #cols>) -> tensor<8x64xf32, #rep> {
  %h = fuser.linear %x, %w1 : (tensor<8x64xf32, #rep>, tensor<256x64xf32, #rows>) -> tensor<8x256xf32, #cols>
  %a = fuser.gelu %h approximation = tanh : tensor<8x256xf32, #cols> -> tensor<8x256xf32, #cols>
  %p = fuser.linear %a, %w2 : (tensor<8x256xf32, #cols>, tensor<64x256xf32, #cols>) -> tensor<8x64xf32, #partial>
  %y = fuser.comm.allreduce %p axis = 0 : tensor<8x64xf32, #partial> -> tensor<8x64xf32, #rep>
  return %y : tensor<8x64xf32, #rep>
}

// -----

// A run of compute ops with views inside is one kernel with every value the
// rest of the function reads as an output; a communication ends the run.
// Bookended views stay views.
// CHECK-LABEL: func.func @runs
// CHECK: %[[K:.*]]:2 = fuser.kernel @kernels::@runs_kernel_0(%arg0) : (tensor<8x4xf32, {{.*}}) -> (tensor<8x4xf32, {{.*}}, tensor<4x8xf32, {{.*}})
// CHECK: %[[G:.*]] = fuser.comm.allgather %[[K]]#0
// CHECK: %[[L:.*]] = fuser.kernel @kernels::@runs_kernel_1(%[[G]])
// CHECK: %[[B:.*]] = fuser.segment_set %[[L]]
// CHECK: %[[R:.*]] = fuser.reshape %[[B]]
// CHECK: return %[[R]], %[[K]]#1
// CHECK: module @kernels
// CHECK: func.func @runs_kernel_0(%{{.*}}: memref<4x4xf32>, %{{.*}}: memref<4x4xf32>, %{{.*}}: memref<4x4xf32, strided<[1, 4]>>)
// CHECK: fuser.exp
// CHECK: fuser.permute
// CHECK: fuser.neg
// CHECK: func.func @runs_kernel_1(%{{.*}}: memref<8x4xf32>, %{{.*}}: memref<8x4xf32>)
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]], order = [1, 0]>
#rep = #fuser.sharding<#mesh, [[], []]>
func.func @runs(%x: tensor<8x4xf32, #rows>) -> (tensor<32xf32, #fuser.sharding<#mesh, [[]]>>, tensor<4x8xf32, #cols>) {
  %0 = fuser.exp %x : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rows>
  %1 = fuser.permute %0 perm = [1, 0] : tensor<8x4xf32, #rows> -> tensor<4x8xf32, #cols>
  %2 = fuser.neg %1 : tensor<4x8xf32, #cols> -> tensor<4x8xf32, #cols>
  %3 = fuser.comm.allgather %0 axis = 0 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  %4 = fuser.exp %3 : tensor<8x4xf32, #rep> -> tensor<8x4xf32, #rep>
  %5 = fuser.segment_set %4 : tensor<8x4xf32, #rep> -> tensor<8x4xf32, #rep>
  %6 = fuser.reshape %5 : tensor<8x4xf32, #rep> -> tensor<32xf32, #fuser.sharding<#mesh, [[]]>>
  return %6, %2 : tensor<32xf32, #fuser.sharding<#mesh, [[]]>>, tensor<4x8xf32, #cols>
}

// -----

// A transposed layout reaches the kernel as strides.
// CHECK-LABEL: func.func @layouts
// CHECK: func.func @layouts_kernel_0(%{{.*}}: memref<4x8xf32, strided<[1, 4]>>, %{{.*}}: memref<4x8xf32, strided<[1, 4]>>)
#mesh = #fuser.mesh<[2]>
#cm = #fuser.sharding<#mesh, [[0], []], order = [1, 0]>
func.func @layouts(%x: tensor<8x8xf32, #cm>) -> tensor<8x8xf32, #cm> {
  %0 = fuser.exp %x : tensor<8x8xf32, #cm> -> tensor<8x8xf32, #cm>
  return %0 : tensor<8x8xf32, #cm>
}

// -----

// A random draw split over a 2x2 mesh (rows by axis 0, columns by axis 1)
// depends on where its piece lies: the kernel takes the rank's index along
// each axis and gives the draw the piece's global offsets; the replicated
// iota needs none. The two share no value and differ in shape: a kernel
// each.
// CHECK-LABEL: func.func @positional
// CHECK: fuser.kernel @kernels::@positional_kernel_0() : () -> tensor<8x8xf32, {{.*}}>
// CHECK: fuser.kernel @kernels::@positional_kernel_1() : () -> tensor<8xi64, {{.*}}>
// CHECK: func.func @positional_kernel_0(%[[OUT:.*]]: memref<4x4xf32>,
// CHECK-SAME: %[[ROW:.*]]: index {fuser.mesh_position = #fuser.mesh_position<#fuser.mesh<[2, 2]>, 0>},
// CHECK-SAME: %[[COL:.*]]: index {fuser.mesh_position = #fuser.mesh_position<#fuser.mesh<[2, 2]>, 1>})
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: %[[R:.*]] = arith.muli %[[ROW]], %[[C4]]
// CHECK: %[[C:.*]] = arith.muli %[[COL]], %{{.*}}
// CHECK: fuser.uniform low = 0.000000e+00, high = 1.000000e+00, seed = 3 at[%[[R]], %[[C]]] : tensor<4x4xf32>
// CHECK: func.func @positional_kernel_1(%{{.*}}: memref<8xi64>)
// CHECK-NOT: mesh_position
// CHECK: fuser.iota dim = 0 : tensor<8xi64>
#mesh = #fuser.mesh<[2, 2]>
func.func @positional() -> (tensor<8x8xf32, #fuser.sharding<#mesh, [[0], [1]]>>, tensor<8xi64, #fuser.sharding<#mesh, [[]]>>) {
  %0 = fuser.uniform low = 0.0, high = 1.0, seed = 3 : tensor<8x8xf32, #fuser.sharding<#mesh, [[0], [1]]>>
  %1 = fuser.iota dim = 0 : tensor<8xi64, #fuser.sharding<#mesh, [[]]>>
  return %0, %1 : tensor<8x8xf32, #fuser.sharding<#mesh, [[0], [1]]>>, tensor<8xi64, #fuser.sharding<#mesh, [[]]>>
}

// -----

// Two axes splitting one dim: the position is row-major over them.
// CHECK-LABEL: func.func @two_axes_one_dim
// CHECK: func.func @two_axes_one_dim_kernel_0(%{{.*}}: memref<2xi64>, %[[A:.*]]: index {{.*}}, %[[B:.*]]: index {{.*}})
// CHECK: %[[N:.*]] = arith.constant 2 : index
// CHECK: %[[AN:.*]] = arith.muli %[[A]], %[[N]]
// CHECK: %[[P:.*]] = arith.addi %[[AN]], %[[B]]
// CHECK: %[[O:.*]] = arith.muli %[[P]], %{{.*}}
// CHECK: fuser.iota dim = 0 at[%[[O]]] : tensor<2xi64>
#mesh = #fuser.mesh<[2, 2]>
func.func @two_axes_one_dim() -> tensor<8xi64, #fuser.sharding<#mesh, [[0, 1]]>> {
  %0 = fuser.iota dim = 0 : tensor<8xi64, #fuser.sharding<#mesh, [[0, 1]]>>
  return %0 : tensor<8xi64, #fuser.sharding<#mesh, [[0, 1]]>>
}

// -----

// A slice in a kernel keeps whole the dims the kernel's piece splits: its
// limit there is the local size (2 of 4), the dim it cuts keeps its bounds.
// CHECK-LABEL: func.func @slice_of_split_dim
// CHECK: func.func @slice_of_split_dim_kernel_0
// CHECK: fuser.slice %{{.*}} starts = [0, 1, 0] limits = [8, 6, 2] steps = [1, 2, 1] : tensor<8x6x2xf32> -> tensor<8x3x2xf32>
#mesh = #fuser.mesh<[2]>
#s = #fuser.sharding<#mesh, [[], [], [0]]>
func.func @slice_of_split_dim(%x: tensor<8x6x4xf32, #s>) -> tensor<8x3x4xf32, #s> {
  %0 = fuser.exp %x : tensor<8x6x4xf32, #s> -> tensor<8x6x4xf32, #s>
  %1 = fuser.slice %0 starts = [0, 1, 0] limits = [8, 6, 4] steps = [1, 2, 1] : tensor<8x6x4xf32, #s> -> tensor<8x3x4xf32, #s>
  %2 = fuser.tanh %1 : tensor<8x3x4xf32, #s> -> tensor<8x3x4xf32, #s>
  return %2 : tensor<8x3x4xf32, #s>
}

// -----

// A broadcast a communication reads is no view of its operand (its data
// repeats): a kernel computes it into the contiguous buffer the allgather
// sends.
// CHECK-LABEL: func.func @broadcast_to_communication
// CHECK: %[[B:.*]] = fuser.kernel @kernels::@broadcast_to_communication_kernel_0(%arg0)
// CHECK-NEXT: fuser.comm.allgather %[[B]]
// CHECK: func.func @broadcast_to_communication_kernel_0(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4x4xf32>)
// CHECK: fuser.broadcast
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
func.func @broadcast_to_communication(%s: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>> {
  %0 = fuser.broadcast %s dims = [0] : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8x4xf32, #rows>
  %1 = fuser.comm.allgather %0 axis = 0 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  return %1 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

// A slice with gaps of a kernel's result, read by a library call after the
// kernel: no buffer has its layout, so the kernel outputs the whole result
// and the slice stays a view of it.
// CHECK-LABEL: func.func @escaping_view_with_gaps
// CHECK: %[[E:.*]] = fuser.kernel @kernels::@escaping_view_with_gaps_kernel_0(%arg0) : (tensor<8x8xf32, {{.*}}) -> tensor<8x8xf32,
// CHECK-NEXT: %[[S:.*]] = fuser.slice %[[E]] starts = [0, 2] limits = [8, 6]
// CHECK-NEXT: fuser.linear %[[S]], %arg1
// CHECK: func.func @escaping_view_with_gaps_kernel_0(%{{.*}}: memref<4x8xf32>, %{{.*}}: memref<4x8xf32>)
// CHECK-NOT: fuser.slice
// CHECK: return
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#rep = #fuser.sharding<#mesh, [[], []]>
#gaps = #fuser.sharding<#mesh, [[0], []], contiguity = [false, true]>
func.func @escaping_view_with_gaps(%x: tensor<8x8xf32, #rows>, %w: tensor<4x4xf32, #rep>) -> tensor<8x4xf32, #rows> {
  %e = fuser.exp %x : tensor<8x8xf32, #rows> -> tensor<8x8xf32, #rows>
  %s = fuser.slice %e starts = [0, 2] limits = [8, 6] steps = [1, 1] : tensor<8x8xf32, #rows> -> tensor<8x4xf32, #gaps>
  %y = fuser.linear %s, %w : (tensor<8x4xf32, #gaps>, tensor<4x4xf32, #rep>) -> tensor<8x4xf32, #rows>
  return %y : tensor<8x4xf32, #rows>
}

// -----

// The same broadcast read both inside its kernel and after it: the kernel
// keeps it for its reader, and it is made again after the kernel (of a
// reduction's result, which is not computed again after the kernel).
// CHECK-LABEL: func.func @view_read_inside_and_after
// CHECK: %[[K:.*]]:2 = fuser.kernel @kernels::@view_read_inside_and_after_kernel_0(%arg0)
// CHECK-NEXT: %[[B:.*]] = fuser.broadcast %[[K]]#0 dims = [0]
// CHECK-NEXT: fuser.comm.allgather
// CHECK: func.func @view_read_inside_and_after_kernel_0
// CHECK: fuser.sum
// CHECK: fuser.broadcast
// CHECK: fuser.tanh
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#rows1 = #fuser.sharding<#mesh, [[0]]>
#repeated = #fuser.sharding<#mesh, [[0], []], order = [1, 0], contiguity = [false, true]>
func.func @view_read_inside_and_after(%s: tensor<8x4xf32, #rows>, %x: tensor<8x4xf32, #rows>) -> (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) {
  %e = fuser.sum %s dims = [1] : tensor<8x4xf32, #rows> -> tensor<8xf32, #rows1>
  %b = fuser.broadcast %e dims = [0] : tensor<8xf32, #rows1> -> tensor<8x4xf32, #repeated>
  %t = fuser.tanh %b : tensor<8x4xf32, #repeated> -> tensor<8x4xf32, #rows>
  %g = fuser.comm.allgather %x axis = 0 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  %r = fuser.comm.all_slice %g axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>> -> tensor<8x4xf32, #rows>
  %y = fuser.add %b, %r : (tensor<8x4xf32, #repeated>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  return %t, %y : tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>
}

// -----

// A layer norm's backward: its weight and bias gradients fold the rows
// (outer reductions), its input gradient folds each row. The outer
// reductions become a kernel of their own after the rest, recomputing the
// product they read rather than reading it from memory; the rest keeps
// the row reduction and the full-size output.
// CHECK-LABEL: func.func @outer_reductions_apart
// CHECK: %[[DX:.*]] = fuser.kernel @kernels::@outer_reductions_apart_kernel_0(%arg0, %arg1)
// CHECK: %[[DW:.*]]:2 = fuser.kernel @kernels::@outer_reductions_apart_kernel_1(%arg0, %arg1)
// CHECK: return %[[DX]], %[[DW]]#0, %[[DW]]#1
// CHECK: func.func @outer_reductions_apart_kernel_0
// CHECK-NOT: dims = [0]
// CHECK: fuser.sum %{{.*}} dims = [1]
// CHECK-NOT: dims = [0]
// CHECK: return
// CHECK: func.func @outer_reductions_apart_kernel_1(%{{.*}}: memref<8x32xbf16>, %{{.*}}: memref<8x32xf32>, %{{.*}}: memref<32xbf16>, %{{.*}}: memref<32xf32>)
// CHECK-NEXT: bufferization.to_tensor
// CHECK-NEXT: bufferization.to_tensor
// CHECK-NEXT: fuser.cast
// CHECK-NEXT: %[[P:.*]] = fuser.mul
// CHECK-NEXT: %[[W:.*]] = fuser.sum %[[P]] dims = [0]
// CHECK-NEXT: fuser.cast %[[W]]
// CHECK-NEXT: fuser.sum %{{.*}} dims = [0]
// CHECK-NOT: dims = [1]
// CHECK: return
#mesh = #fuser.mesh<[1]>
#m = #fuser.sharding<#mesh, [[], []]>
#v = #fuser.sharding<#mesh, [[]]>
func.func @outer_reductions_apart(%gb: tensor<8x32xbf16, #m>, %xhat: tensor<8x32xf32, #m>) -> (tensor<8x32xf32, #m>, tensor<32xbf16, #v>, tensor<32xf32, #v>) {
  %g = fuser.cast %gb : tensor<8x32xbf16, #m> -> tensor<8x32xf32, #m>
  %gx = fuser.mul %g, %xhat : (tensor<8x32xf32, #m>, tensor<8x32xf32, #m>) -> tensor<8x32xf32, #m>
  %dw = fuser.sum %gx dims = [0] : tensor<8x32xf32, #m> -> tensor<32xf32, #v>
  %dwb = fuser.cast %dw : tensor<32xf32, #v> -> tensor<32xbf16, #v>
  %db = fuser.sum %g dims = [0] : tensor<8x32xf32, #m> -> tensor<32xf32, #v>
  %row = fuser.sum %gx dims = [1] keepdim : tensor<8x32xf32, #m> -> tensor<8x1xf32, #m>
  %rowb = fuser.expand %row : tensor<8x1xf32, #m> -> tensor<8x32xf32, #m>
  %dx = fuser.sub %gx, %rowb : (tensor<8x32xf32, #m>, tensor<8x32xf32, #m>) -> tensor<8x32xf32, #m>
  return %dx, %dwb, %db : tensor<8x32xf32, #m>, tensor<32xbf16, #v>, tensor<32xf32, #v>
}

// -----

// An outer reduction the run reads on (broadcast back) stays in its
// kernel; another goes to a kernel of its own.
// CHECK-LABEL: func.func @outer_reduction_read_on
// CHECK: fuser.kernel @kernels::@outer_reduction_read_on_kernel_0
// CHECK: fuser.kernel @kernels::@outer_reduction_read_on_kernel_1
// CHECK: func.func @outer_reduction_read_on_kernel_0
// CHECK: fuser.sum %{{.*}} dims = [0]
// CHECK-NEXT: fuser.broadcast
// CHECK: func.func @outer_reduction_read_on_kernel_1
// CHECK-NEXT: bufferization.to_tensor
// CHECK-NEXT: fuser.exp
// CHECK-NEXT: fuser.sum %{{.*}} dims = [0]
#mesh = #fuser.mesh<[1]>
#m = #fuser.sharding<#mesh, [[], []]>
#v = #fuser.sharding<#mesh, [[]]>
func.func @outer_reduction_read_on(%x: tensor<8x32xf32, #m>) -> (tensor<8x32xf32, #m>, tensor<32xf32, #v>) {
  %s = fuser.sum %x dims = [0] : tensor<8x32xf32, #m> -> tensor<32xf32, #v>
  %sb = fuser.broadcast %s dims = [1] : tensor<32xf32, #v> -> tensor<8x32xf32, #m>
  %y = fuser.sub %x, %sb : (tensor<8x32xf32, #m>, tensor<8x32xf32, #m>) -> tensor<8x32xf32, #m>
  %e = fuser.exp %x : tensor<8x32xf32, #m> -> tensor<8x32xf32, #m>
  %t = fuser.sum %e dims = [0] : tensor<8x32xf32, #m> -> tensor<32xf32, #v>
  return %y, %t : tensor<8x32xf32, #m>, tensor<32xf32, #v>
}

// -----

// A run that is one group of outer reductions (a sum over [1] of [1, 8,
// 32] folds leading dims too) and what they read is one kernel as it is.
// CHECK-LABEL: func.func @outer_reductions_alone
// CHECK: fuser.kernel @kernels::@outer_reductions_alone_kernel_0
// CHECK-NOT: fuser.kernel
// CHECK: return
#mesh = #fuser.mesh<[1]>
#m = #fuser.sharding<#mesh, [[], [], []]>
#v = #fuser.sharding<#mesh, [[], []]>
func.func @outer_reductions_alone(%x: tensor<1x8x32xf32, #m>) -> (tensor<1x32xf32, #v>, tensor<1x32xf32, #v>) {
  %e = fuser.exp %x : tensor<1x8x32xf32, #m> -> tensor<1x8x32xf32, #m>
  %s = fuser.sum %e dims = [1] : tensor<1x8x32xf32, #m> -> tensor<1x32xf32, #v>
  %t = fuser.max %e dims = [1] : tensor<1x8x32xf32, #m> -> tensor<1x32xf32, #v>
  return %s, %t : tensor<1x32xf32, #v>, tensor<1x32xf32, #v>
}

// -----

// Work that shares no value with the rest of the run and has another shape
// (the cast of an allreduced weight gradient beside a layer norm) is a
// kernel of its own; independent work of one shape stays together.
// CHECK-LABEL: func.func @independent_work
// CHECK-DAG: %[[ROWS:.*]]:2 = fuser.kernel @kernels::@independent_work_kernel_0(%arg0, %arg2)
// CHECK-DAG: %[[W:.*]] = fuser.kernel @kernels::@independent_work_kernel_1(%arg1)
// CHECK: return %[[ROWS]]#0, %[[W]], %[[ROWS]]#1
#mesh = #fuser.mesh<[1]>
#m = #fuser.sharding<#mesh, [[], []]>
#v = #fuser.sharding<#mesh, [[]]>
func.func @independent_work(%x: tensor<8x32xf32, #m>, %w: tensor<32xf32, #v>, %y: tensor<8x32xf32, #m>) -> (tensor<8x32xf32, #m>, tensor<32xbf16, #v>, tensor<8x32xf32, #m>) {
  %s = fuser.sum %x dims = [1] keepdim : tensor<8x32xf32, #m> -> tensor<8x1xf32, #m>
  %wb = fuser.cast %w : tensor<32xf32, #v> -> tensor<32xbf16, #v>
  %sb = fuser.expand %s : tensor<8x1xf32, #m> -> tensor<8x32xf32, #m>
  %d = fuser.sub %x, %sb : (tensor<8x32xf32, #m>, tensor<8x32xf32, #m>) -> tensor<8x32xf32, #m>
  %e = fuser.exp %y : tensor<8x32xf32, #m> -> tensor<8x32xf32, #m>
  return %d, %wb, %e : tensor<8x32xf32, #m>, tensor<32xbf16, #v>, tensor<8x32xf32, #m>
}

// -----

// What reads outer reductions of two groups (the sum of a column sum of
// [8, 32] and one of [4, 32]) is computed once: the first group's kernel
// computes it, reading the second reduction from the kernel of the run.
// CHECK-LABEL: func.func @outer_reductions_read_together
// CHECK: %[[REST:.*]]:2 = fuser.kernel @kernels::@outer_reductions_read_together_kernel_0(%arg0, %arg1)
// CHECK: %[[SUM:.*]] = fuser.kernel @kernels::@outer_reductions_read_together_kernel_1(%arg0, %[[REST]]#1)
// CHECK: return %[[REST]]#0, %[[SUM]]
// CHECK: func.func @outer_reductions_read_together_kernel_1
// CHECK: fuser.sum %{{.*}} dims = [0]
// CHECK-NEXT: fuser.add
#mesh = #fuser.mesh<[1]>
#m = #fuser.sharding<#mesh, [[], []]>
#v = #fuser.sharding<#mesh, [[]]>
func.func @outer_reductions_read_together(%x: tensor<8x32xf32, #m>, %y: tensor<4x32xf32, #m>) -> (tensor<8x32xf32, #m>, tensor<32xf32, #v>) {
  %e = fuser.exp %x : tensor<8x32xf32, #m> -> tensor<8x32xf32, #m>
  %s = fuser.sum %e dims = [0] : tensor<8x32xf32, #m> -> tensor<32xf32, #v>
  %t = fuser.sum %y dims = [0] : tensor<4x32xf32, #m> -> tensor<32xf32, #v>
  %u = fuser.add %s, %t : (tensor<32xf32, #v>, tensor<32xf32, #v>) -> tensor<32xf32, #v>
  return %e, %u : tensor<8x32xf32, #m>, tensor<32xf32, #v>
}

// -----

// A value a later kernel reads that the earlier kernel computes pointwise
// from values in memory anyway is computed again there when that reads
// fewer bytes: the widened input is read back as its bf16 source, and the
// first kernel no longer writes it. What depends on a reduction stays in
// memory.
// CHECK-LABEL: func.func @recompute_across_kernels
// CHECK: %[[K0:.*]]:2 = fuser.kernel @kernels::@recompute_across_kernels_kernel_0(%arg0) : ({{.*}}) -> (tensor<8x64xf32, {{.*}}>, tensor<8x64xbf16, {{.*}}>)
// CHECK: %[[Y:.*]] = fuser.linear %[[K0]]#1, %arg1
// CHECK: fuser.kernel @kernels::@recompute_across_kernels_kernel_1(%arg0, %[[Y]], %[[K0]]#0)
// CHECK: func.func @recompute_across_kernels_kernel_1(%[[X:.*]]: memref<8x64xbf16>, %{{.*}}: memref<8x64xbf16>, %{{.*}}: memref<8x64xf32>,
// CHECK: %[[XT:.*]] = bufferization.to_tensor %[[X]]
// CHECK: fuser.cast %[[XT]] : tensor<8x64xbf16> -> tensor<8x64xf32>
#mesh = #fuser.mesh<[2]>
#rep = #fuser.sharding<#mesh, [[], []]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#rep1 = #fuser.sharding<#mesh, [[]]>
func.func @recompute_across_kernels(%x: tensor<8x64xbf16, #rep>, %w: tensor<64x64xbf16, #rep>) -> (tensor<8x64xf32, #rep>, tensor<8x64xf32, #rep>) {
  %x32 = fuser.cast %x : tensor<8x64xbf16, #rep> -> tensor<8x64xf32, #rep>
  %e = fuser.exp %x32 : tensor<8x64xf32, #rep> -> tensor<8x64xf32, #rep>
  %s = fuser.sum %e dims = [1] : tensor<8x64xf32, #rep> -> tensor<8xf32, #rep1>
  %b = fuser.broadcast %s dims = [0] : tensor<8xf32, #rep1> -> tensor<8x64xf32, #rep>
  %n = fuser.div %e, %b : (tensor<8x64xf32, #rep>, tensor<8x64xf32, #rep>) -> tensor<8x64xf32, #rep>
  %h = fuser.cast %n : tensor<8x64xf32, #rep> -> tensor<8x64xbf16, #rep>
  %y = fuser.linear %h, %w : (tensor<8x64xbf16, #rep>, tensor<64x64xbf16, #rep>) -> tensor<8x64xbf16, #rep>
  %y32 = fuser.cast %y : tensor<8x64xbf16, #rep> -> tensor<8x64xf32, #rep>
  %r = fuser.mul %y32, %x32 : (tensor<8x64xf32, #rep>, tensor<8x64xf32, #rep>) -> tensor<8x64xf32, #rep>
  %q = fuser.mul %y32, %n : (tensor<8x64xf32, #rep>, tensor<8x64xf32, #rep>) -> tensor<8x64xf32, #rep>
  return %r, %q : tensor<8x64xf32, #rep>, tensor<8x64xf32, #rep>
}
