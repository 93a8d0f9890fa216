// Inputs are fully sharded (the `propagated` stage); every placement change
// must come out as single-axis fuser.comm ops and no compute op reshards.
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-decompose-reshardings,fuser-verify-stage))' -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-decompose-reshardings{reshard-placement=before},fuser-verify-stage))' -mlir-print-local-scope | FileCheck %s --check-prefix=BEFORE
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-decompose-reshardings{reshard-placement=after},fuser-verify-stage))' -mlir-print-local-scope | FileCheck %s --check-prefix=AFTER

// One case per communication kind, through fuser.set.
// CHECK-LABEL: func.func @kinds_on_one_mesh
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#replicated = #fuser.sharding<#mesh, [[], []]>
#partial = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>
func.func @kinds_on_one_mesh(%rows: tensor<8x4xf32, #rows>, %rep: tensor<8x4xf32, #replicated>,
                             %partial: tensor<8x4xf32, #partial>) {
  // CHECK: fuser.comm.allgather %{{.*}} axis = 0 : {{.*}}{{\[}}[0], []]>> -> {{.*}}{{\[}}[], []]>>
  %0 = fuser.set %rows : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #replicated>
  // CHECK: fuser.comm.all_slice %{{.*}} axis = 0 : {{.*}}{{\[}}[], []]>> -> {{.*}}{{\[}}[0], []]>>
  %1 = fuser.set %rep : tensor<8x4xf32, #replicated> -> tensor<8x4xf32, #rows>
  // CHECK: fuser.comm.allreduce %{{.*}} axis = 0 : {{.*}}partial = {0 : sum}>> -> {{.*}}{{\[}}[], []]>>
  %2 = fuser.set %partial : tensor<8x4xf32, #partial> -> tensor<8x4xf32, #replicated>
  // CHECK: fuser.comm.reduce_scatter %{{.*}} axis = 0 : {{.*}}partial = {0 : sum}>> -> {{.*}}{{\[}}[], [0]]>>
  %3 = fuser.set %partial : tensor<8x4xf32, #partial> -> tensor<8x4xf32, #cols>
  // CHECK: fuser.comm.all_to_all %{{.*}} axis = 0 : {{.*}}{{\[}}[0], []]>> -> {{.*}}{{\[}}[], [0]]>>
  %4 = fuser.set %rows : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #cols>
  // CHECK-NOT: fuser.set
  return
}

// -----

// Moves between a mesh and its slice at a root, and between two meshes.
// CHECK-LABEL: func.func @kinds_across_meshes
#mesh = #fuser.mesh<[2]>
#root1 = #fuser.mesh<[1], devices = [1]>
#other = #fuser.mesh<[2], devices = [2, 3]>
func.func @kinds_across_meshes(%rows: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>,
                               %partial: tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>>,
                               %on_root: tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>>) {
  // CHECK: fuser.comm.gather %{{.*}} axis = 0 root = 1 : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1], devices = [1]>, {{\[}}[], []]>>
  %0 = fuser.set %rows : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>>
  // CHECK: fuser.comm.reduce %{{.*}} axis = 0 root = 1 : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1], devices = [1]>, {{\[}}[], []]>>
  %1 = fuser.set %partial : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>> -> tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>>
  // CHECK: fuser.comm.scatter %{{.*}} axis = 0 root = 1 : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
  %2 = fuser.set %on_root : tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>
  // CHECK: fuser.comm.broadcast %{{.*}} axis = 0 root = 1 : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
  %3 = fuser.set %on_root : tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  // CHECK: fuser.comm.send_recv %{{.*}} : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2], devices = [2, 3]>, {{\[}}[0], []]>>
  %4 = fuser.set %rows : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#other, [[0], []]>>
  return
}

// -----

// Meshes that are neither the same shape nor slices of one another: a
// partial value is resolved on its mesh, then its shards move point to
// point, whatever the dim shardings on either side.
#three = #fuser.mesh<[3]>
#outside = #fuser.mesh<[1], devices = [3]>
func.func @unrelated_meshes(%rows: tensor<6x4xf32, #fuser.sharding<#three, [[0], []]>>,
                            %partial: tensor<6x4xf32, #fuser.sharding<#three, [[], []], partial = {0 : sum}>>) {
  // CHECK-LABEL: func.func @unrelated_meshes
  // CHECK: fuser.comm.send_recv %{{.*}} : {{.*}} -> tensor<6x4xf32, #fuser.sharding<#fuser.mesh<[1], devices = [3]>, {{\[}}[], []]>>
  %0 = fuser.set %rows : tensor<6x4xf32, #fuser.sharding<#three, [[0], []]>> -> tensor<6x4xf32, #fuser.sharding<#outside, [[], []]>>
  // CHECK: fuser.comm.send_recv %{{.*}} : {{.*}} -> tensor<6x4xf32, #fuser.sharding<#fuser.mesh<[2], devices = [3, 4]>, {{\[}}[], [0]]>>
  %1 = fuser.set %rows : tensor<6x4xf32, #fuser.sharding<#three, [[0], []]>> -> tensor<6x4xf32, #fuser.sharding<#fuser.mesh<[2], devices = [3, 4]>, [[], [0]]>>
  // CHECK: %[[RESOLVED:.*]] = fuser.comm.allreduce %{{.*}} axis = 0 :
  // CHECK: fuser.comm.send_recv %[[RESOLVED]] : {{.*}} -> tensor<6x4xf32, #fuser.sharding<#fuser.mesh<[1], devices = [3]>, {{\[}}[], []]>>
  %2 = fuser.set %partial : tensor<6x4xf32, #fuser.sharding<#three, [[], []], partial = {0 : sum}>> -> tensor<6x4xf32, #fuser.sharding<#outside, [[], []]>>
  return
}

// -----

// Changing two mesh axes at once takes one communication per axis.
// CHECK-LABEL: func.func @two_axes
// CHECK: fuser.comm.allgather %{{.*}} axis = 0 : {{.*}}{{\[}}[0], [1]]>> -> {{.*}}{{\[}}[], [1]]>>
// CHECK: fuser.comm.all_to_all %{{.*}} axis = 1 : {{.*}}{{\[}}[], [1]]>> -> {{.*}}{{\[}}[1], []]>>
// CHECK: fuser.comm.all_slice %{{.*}} axis = 0 : {{.*}}{{\[}}[1], []]>> -> {{.*}}{{\[}}[1], [0]]>>
// CHECK-NOT: fuser.comm
#mesh = #fuser.mesh<[2, 2]>
func.func @two_axes(%x: tensor<8x8xf32, #fuser.sharding<#mesh, [[0], [1]]>>) -> tensor<8x8xf32, #fuser.sharding<#mesh, [[1], [0]]>> {
  %0 = fuser.set %x : tensor<8x8xf32, #fuser.sharding<#mesh, [[0], [1]]>> -> tensor<8x8xf32, #fuser.sharding<#mesh, [[1], [0]]>>
  return %0 : tensor<8x8xf32, #fuser.sharding<#mesh, [[1], [0]]>>
}

// -----

// Gathering both axes of a dim split over a 2x2 mesh, innermost first.
// CHECK-LABEL: func.func @nested_gather
// CHECK: fuser.comm.allgather %{{.*}} axis = 1 : {{.*}}{{\[}}[0, 1], []]>> -> {{.*}}{{\[}}[0], []]>>
// CHECK: fuser.comm.allgather %{{.*}} axis = 0 : {{.*}}{{\[}}[0], []]>> -> {{.*}}{{\[}}[], []]>>
#mesh = #fuser.mesh<[2, 2]>
func.func @nested_gather(%x: tensor<8x8xf32, #fuser.sharding<#mesh, [[0, 1], []]>>) -> tensor<8x8xf32, #fuser.sharding<#mesh, [[], []]>> {
  %0 = fuser.set %x : tensor<8x8xf32, #fuser.sharding<#mesh, [[0, 1], []]>> -> tensor<8x8xf32, #fuser.sharding<#mesh, [[], []]>>
  return %0 : tensor<8x8xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

// By default an op reshards where fewer elements move; on a tie after
// itself (it then computes on the split data). Before itself when asked.
// CHECK-LABEL: func.func @exp_then_gather
// CHECK: %[[E:.*]] = fuser.exp %{{.*}} : {{.*}} -> {{.*}}{{\[}}[0], []]>>
// CHECK: fuser.comm.allgather %[[E]] axis = 0
// BEFORE-LABEL: func.func @exp_then_gather
// BEFORE: %[[G:.*]] = fuser.comm.allgather %{{.*}} axis = 0
// BEFORE: fuser.exp %[[G]]
// AFTER-LABEL: func.func @exp_then_gather
// AFTER: fuser.exp
// AFTER: fuser.comm.allgather
#mesh = #fuser.mesh<[2]>
func.func @exp_then_gather(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>> {
  %0 = fuser.exp %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  return %0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

// A value an op reads twice moves once: gathering the operand moves as
// many elements as gathering the result, so the add computes on split data.
// CHECK-LABEL: func.func @add_operands
// CHECK: %[[S:.*]] = fuser.add %{{.*}}, %{{.*}} : {{.*}} -> {{.*}}{{\[}}[0], []]>>
// CHECK: fuser.comm.allgather %[[S]] axis = 0
// BEFORE-LABEL: func.func @add_operands
// BEFORE: fuser.comm.allgather
// BEFORE: fuser.add
// AFTER-LABEL: func.func @add_operands
// AFTER: %[[S:.*]] = fuser.add %{{.*}}, %{{.*}} : {{.*}} -> {{.*}}{{\[}}[0], []]>>
// AFTER: fuser.comm.allgather %[[S]] axis = 0
#mesh = #fuser.mesh<[2]>
func.func @add_operands(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>> {
  %0 = fuser.add %x, %x : (tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  return %0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

// A broadcast makes its result larger than its operand: gathering the
// operand first moves fewer elements.
// CHECK-LABEL: func.func @gather_then_broadcast
// CHECK: %[[G:.*]] = fuser.comm.allgather %{{.*}} axis = 0
// CHECK: fuser.broadcast %[[G]]
// AFTER-LABEL: func.func @gather_then_broadcast
// AFTER: fuser.broadcast
// AFTER: fuser.comm.allgather
#mesh = #fuser.mesh<[2]>
func.func @gather_then_broadcast(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) -> tensor<8x16xf32, #fuser.sharding<#mesh, [[], []]>> {
  %0 = fuser.broadcast %x dims = [0] : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8x16xf32, #fuser.sharding<#mesh, [[], []]>>
  return %0 : tensor<8x16xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

// GEMM+RS: a row-parallel linear whose result is split by rows reduces and
// scatters its result rather than moving its input and weight, which hold
// more elements.
// CHECK-LABEL: func.func @row_parallel_then_scatter
// CHECK: %[[P:.*]] = fuser.linear %{{.*}}, %{{.*}} : ({{.*}}, {{.*}}) -> tensor<16x32xf32, {{.*}}partial = {0 : sum}>>
// CHECK: fuser.comm.reduce_scatter %[[P]] axis = 0
// BEFORE-LABEL: func.func @row_parallel_then_scatter
// BEFORE: fuser.comm.all_to_all
// BEFORE: fuser.comm.allgather
// BEFORE: fuser.linear
#mesh = #fuser.mesh<[2]>
func.func @row_parallel_then_scatter(
    %x: tensor<16x64xf32, #fuser.sharding<#mesh, [[], [0]]>>,
    %w: tensor<32x64xf32, #fuser.sharding<#mesh, [[], [0]]>>)
    -> tensor<16x32xf32, #fuser.sharding<#mesh, [[0], []]>> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<32x64xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<16x32xf32, #fuser.sharding<#mesh, [[0], []]>>
  return %y : tensor<16x32xf32, #fuser.sharding<#mesh, [[0], []]>>
}

// -----

// A row-parallel linear with a bias adds the bias once, after the partial
// sum is resolved.
// CHECK-LABEL: func.func @row_parallel_bias
// CHECK: %[[P:.*]] = fuser.linear %{{.*}}, %{{.*}} : ({{.*}}, {{.*}}) -> tensor<8x16xf32, {{.*}}partial = {0 : sum}>>
// CHECK: %[[R:.*]] = fuser.comm.allreduce %[[P]] axis = 0
// CHECK: %[[B:.*]] = fuser.broadcast %{{.*}} dims = [1]
// CHECK: fuser.add %[[R]], %[[B]]
#mesh = #fuser.mesh<[2]>
func.func @row_parallel_bias(%x: tensor<8x32xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                             %w: tensor<16x32xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                             %b: tensor<16xf32, #fuser.sharding<#mesh, [[]]>>)
    -> tensor<8x16xf32, #fuser.sharding<#mesh, [[], []]>> {
  %0 = fuser.linear %x, %w bias %b : (tensor<8x32xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<16x32xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<16xf32, #fuser.sharding<#mesh, [[]]>>) -> tensor<8x16xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>>
  %1 = fuser.set %0 : tensor<8x16xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>> -> tensor<8x16xf32, #fuser.sharding<#mesh, [[], []]>>
  return %1 : tensor<8x16xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

// Sequence parallelism: the readers of a row-parallel linear with a bias
// want its rows split, so the partial sum is reduce-scattered into them and
// the bias is added to the rank's rows: no allreduce, no slice.
// CHECK-LABEL: func.func @sequence_parallel_bias
// CHECK: %[[P:.*]] = fuser.linear %{{.*}}, %{{.*}} : ({{.*}}, {{.*}}) -> tensor<8x16xf32, {{.*}}partial = {0 : sum}>>
// CHECK: %[[R:.*]] = fuser.comm.reduce_scatter %[[P]] axis = 0 : {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: %[[B:.*]] = fuser.broadcast %{{.*}} dims = [1] : {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: %[[Y:.*]] = fuser.add %[[R]], %[[B]]
// CHECK: fuser.add %[[Y]], %{{.*}} : {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK-NOT: fuser.comm
#mesh = #fuser.mesh<[2]>
func.func @sequence_parallel_bias(%x: tensor<8x32xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                                  %w: tensor<16x32xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                                  %b: tensor<16xf32, #fuser.sharding<#mesh, [[]]>>,
                                  %residual: tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>)
    -> tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>> {
  %0 = fuser.linear %x, %w bias %b : (tensor<8x32xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<16x32xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<16xf32, #fuser.sharding<#mesh, [[]]>>) -> tensor<8x16xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>>
  %1 = fuser.add %0, %residual : (tensor<8x16xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>>, tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>
  return %1 : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>
}

// -----

// A row-parallel product with an activation applies it once, after the
// partial sum is resolved.
// CHECK-LABEL: func.func @row_parallel_activation
// CHECK: %[[P:.*]] = fuser.matmul %{{.*}}, %{{.*}} : ({{.*}}, {{.*}}) -> tensor<8x16xf32, {{.*}}partial = {0 : sum}>>
// CHECK: %[[R:.*]] = fuser.comm.allreduce %[[P]] axis = 0
// CHECK: fuser.relu %[[R]]
// CHECK-NOT: activation =
#mesh = #fuser.mesh<[2]>
func.func @row_parallel_activation(%a: tensor<8x32xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                                   %b: tensor<32x16xf32, #fuser.sharding<#mesh, [[0], []]>>)
    -> tensor<8x16xf32, #fuser.sharding<#mesh, [[], []]>> {
  %0 = fuser.matmul %a, %b activation = relu : (tensor<8x32xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<32x16xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x16xf32, #fuser.sharding<#mesh, [[], []]>>
  return %0 : tensor<8x16xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

// A reduction over a split dim stays local; its partial result is resolved
// by what its consumer needs.
// CHECK-LABEL: func.func @sharded_reduction
// CHECK: %[[S:.*]] = fuser.sum %{{.*}} dims = [1] : {{.*}} -> tensor<8xf32, {{.*}}partial = {0 : sum}>>
// CHECK: %[[R:.*]] = fuser.comm.allreduce %[[S]] axis = 0
// CHECK: fuser.exp %[[R]]
#mesh = #fuser.mesh<[2]>
func.func @sharded_reduction(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>> {
  %0 = fuser.sum %x dims = [1] : tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>
  %1 = fuser.exp %0 : tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return %1 : tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
}

// -----

// Softmax's statistics over a split dim, as propagation leaves them: the
// partial max and sum are resolved at [8, 1] before they are expanded, an
// allreduce each (32 bytes per rank rather than a reduce_scatter of the
// expanded [8, 16]), whichever placement is asked for.
// CHECK-LABEL: func.func @partial_before_expand
// CHECK: %[[M:.*]] = fuser.comm.allreduce %{{.*}} axis = 0 : tensor<8x1xf32, {{.*}}partial = {0 : max}>> -> tensor<8x1xf32, {{.*}}{{\[}}[], []]>>
// CHECK: fuser.expand %[[M]]
// CHECK: %[[S:.*]] = fuser.comm.allreduce %{{.*}} axis = 0 : tensor<8x1xf32, {{.*}}partial = {0 : sum}>> -> tensor<8x1xf32, {{.*}}{{\[}}[], []]>>
// CHECK: fuser.expand %[[S]]
// CHECK-NOT: fuser.comm
// CHECK: fuser.div
// BEFORE-LABEL: func.func @partial_before_expand
// BEFORE-COUNT-2: fuser.comm.allreduce {{.*}} -> tensor<8x1xf32
// BEFORE-NOT: fuser.comm
// BEFORE: fuser.div
// AFTER-LABEL: func.func @partial_before_expand
// AFTER-COUNT-2: fuser.comm.allreduce {{.*}} -> tensor<8x1xf32
// AFTER-NOT: fuser.comm
// AFTER: fuser.div
#mesh = #fuser.mesh<[2]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#rep = #fuser.sharding<#mesh, [[], []]>
#max = #fuser.sharding<#mesh, [[], []], partial = {0 : max}>
#sum = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>
func.func @partial_before_expand(%x: tensor<8x16xf32, #cols>) -> tensor<8x16xf32, #cols> {
  %mx = fuser.max %x dims = [1] keepdim : tensor<8x16xf32, #cols> -> tensor<8x1xf32, #max>
  %mxb = fuser.expand %mx : tensor<8x1xf32, #max> -> tensor<8x16xf32, #cols>
  %d = fuser.sub %x, %mxb : (tensor<8x16xf32, #cols>, tensor<8x16xf32, #cols>) -> tensor<8x16xf32, #cols>
  %e = fuser.exp %d : tensor<8x16xf32, #cols> -> tensor<8x16xf32, #cols>
  %s = fuser.sum %e dims = [1] keepdim : tensor<8x16xf32, #cols> -> tensor<8x1xf32, #sum>
  %sb = fuser.expand %s : tensor<8x1xf32, #sum> -> tensor<8x16xf32, #cols>
  %y = fuser.div %e, %sb : (tensor<8x16xf32, #cols>, tensor<8x16xf32, #cols>) -> tensor<8x16xf32, #cols>
  return %y : tensor<8x16xf32, #cols>
}

// -----

// A partial sum broadcast to a value its user splits by rows is resolved
// and split at [8], by a reduce_scatter before the broadcast.
// CHECK-LABEL: func.func @partial_before_broadcast
// CHECK: %[[S:.*]] = fuser.comm.reduce_scatter %{{.*}} axis = 0 : tensor<8xf32, {{.*}}partial = {0 : sum}>> -> tensor<8xf32, {{.*}}{{\[}}[0]]>>
// CHECK: fuser.broadcast %[[S]]
// CHECK-NOT: fuser.comm
#mesh = #fuser.mesh<[2]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#sum = #fuser.sharding<#mesh, [[]], partial = {0 : sum}>
func.func @partial_before_broadcast(%x: tensor<8x16xf32, #cols>, %y: tensor<8x16xf32, #rows>) -> tensor<8x16xf32, #rows> {
  %s = fuser.sum %x dims = [1] : tensor<8x16xf32, #cols> -> tensor<8xf32, #sum>
  %b = fuser.broadcast %s dims = [0] : tensor<8xf32, #sum> -> tensor<8x16xf32, #rows>
  %z = fuser.mul %y, %b : (tensor<8x16xf32, #rows>, tensor<8x16xf32, #rows>) -> tensor<8x16xf32, #rows>
  return %z : tensor<8x16xf32, #rows>
}

// -----

// A slice of a split dim needs the dim whole first.
// CHECK-LABEL: func.func @slice_of_split_dim
// CHECK: %[[G:.*]] = fuser.comm.allgather %{{.*}} axis = 0
// CHECK: fuser.slice %[[G]]
#mesh = #fuser.mesh<[2]>
func.func @slice_of_split_dim(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<6x4xf32, #fuser.sharding<#mesh, [[], []]>> {
  %0 = fuser.slice %x starts = [1, 0] limits = [7, 4] steps = [1, 1] : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<6x4xf32, #fuser.sharding<#mesh, [[], []]>>
  return %0 : tensor<6x4xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

// Both sides split where no split passes through the reshape (dim 1's
// split would straddle the factors 3 and 4): the operand is gathered along
// that dim, reshaped whole and sliced into the result's placement.
// CHECK-LABEL: func.func @reshape_annotated_both_sides
// CHECK: %[[G:.*]] = fuser.comm.allgather %arg0 axis = 0 : {{.*}} -> tensor<8x12xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[\[\], \[\]\]}}>>
// CHECK-NEXT: %[[R:.*]] = fuser.reshape %[[G]] : {{.*}} -> tensor<8x3x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[\[\], \[\], \[\]\]}}>>
// CHECK-NEXT: %[[S:.*]] = fuser.comm.all_slice %[[R]] axis = 0 : {{.*}} -> tensor<8x3x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[\[\], \[\], \[0\]\]}}>>
// CHECK-NEXT: return %[[S]]
// BEFORE-LABEL: func.func @reshape_annotated_both_sides
// BEFORE: fuser.comm.allgather
// BEFORE-NEXT: fuser.reshape
// BEFORE-NEXT: fuser.comm.all_slice
#mesh = #fuser.mesh<[2]>
func.func @reshape_annotated_both_sides(%x: tensor<8x12xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x3x4xf32, #fuser.sharding<#mesh, [[], [], [0]]>> {
  %0 = fuser.reshape %x : tensor<8x12xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8x3x4xf32, #fuser.sharding<#mesh, [[], [], [0]]>>
  return %0 : tensor<8x3x4xf32, #fuser.sharding<#mesh, [[], [], [0]]>>
}

// -----

// Only the axis that cannot pass is gathered; the other split stays.
// CHECK-LABEL: func.func @reshape_gathers_one_axis
// CHECK: %[[G:.*]] = fuser.comm.allgather %arg0 axis = 1 : {{.*}} -> tensor<8x12xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[\[0\], \[\]\]}}>>
// CHECK-NEXT: %[[R:.*]] = fuser.reshape %[[G]] : {{.*}} -> tensor<8x3x4xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[\[0\], \[\], \[\]\]}}>>
// CHECK-NEXT: fuser.comm.all_slice %[[R]] axis = 1 : {{.*}} -> tensor<8x3x4xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[\[0\], \[\], \[1\]\]}}>>
#mesh = #fuser.mesh<[2, 2]>
func.func @reshape_gathers_one_axis(%x: tensor<8x12xf32, #fuser.sharding<#mesh, [[0], [1]]>>) -> tensor<8x3x4xf32, #fuser.sharding<#mesh, [[0], [], [1]]>> {
  %0 = fuser.reshape %x : tensor<8x12xf32, #fuser.sharding<#mesh, [[0], [1]]>> -> tensor<8x3x4xf32, #fuser.sharding<#mesh, [[0], [], [1]]>>
  return %0 : tensor<8x3x4xf32, #fuser.sharding<#mesh, [[0], [], [1]]>>
}

// -----

// A slice of a dim split on both sides: gathered, sliced, split again.
// CHECK-LABEL: func.func @slice_split_both_sides
// CHECK: %[[G:.*]] = fuser.comm.allgather %arg0 axis = 0
// CHECK-NEXT: %[[S:.*]] = fuser.slice %[[G]]
// CHECK-NEXT: fuser.comm.all_slice %[[S]] axis = 0
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
func.func @slice_split_both_sides(%x: tensor<8x4xf32, #rows>) -> tensor<4x4xf32, #rows> {
  %0 = fuser.slice %x starts = [2, 0] limits = [6, 4] steps = [1, 1] : tensor<8x4xf32, #rows> -> tensor<4x4xf32, #rows>
  return %0 : tensor<4x4xf32, #rows>
}

// -----

// Placements that already agree are left alone, whatever the layout.
// CHECK-LABEL: func.func @nothing_to_do
// CHECK-NOT: fuser.comm
#mesh = #fuser.mesh<[2]>
func.func @nothing_to_do(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], order = [1, 0]>> {
  %0 = fuser.exp %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], order = [1, 0]>>
  return %0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], order = [1, 0]>>
}

// -----

// Unsharded programs have nothing to move.
// CHECK-LABEL: func.func @unsharded
// CHECK-NEXT: fuser.exp
func.func @unsharded(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = fuser.exp %x : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// A linear with a bias whose operands split the contracted dim computes
// partial sums even when its result is annotated replicated: the bias is
// added once, after the allreduce.
// CHECK-LABEL: func.func @split_k_with_bias
// CHECK: %[[P:.*]] = fuser.linear %{{.*}}, %{{.*}} : ({{.*}}, {{.*}}) -> tensor<8x4xf32, {{.*}}partial = {0 : sum}>>
// CHECK: %[[R:.*]] = fuser.comm.allreduce %[[P]] axis = 0
// CHECK: %[[B:.*]] = fuser.broadcast %{{.*}} dims = [1]
// CHECK: fuser.add %[[R]], %[[B]]
#mesh = #fuser.mesh<[2]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#rep = #fuser.sharding<#mesh, [[], []]>
#rep1 = #fuser.sharding<#mesh, [[]]>
func.func @split_k_with_bias(%x: tensor<8x16xf32, #cols>, %w: tensor<4x16xf32, #cols>, %b: tensor<4xf32, #rep1>) -> tensor<8x4xf32, #rep> {
  %0 = fuser.linear %x, %w bias %b : (tensor<8x16xf32, #cols>, tensor<4x16xf32, #cols>, tensor<4xf32, #rep1>) -> tensor<8x4xf32, #rep>
  return %0 : tensor<8x4xf32, #rep>
}

// -----

// A value two ops need in the same placement moves once: the partial sum
// both read is reduced by one allreduce, under every placement.
// CHECK-LABEL: func.func @partial_read_twice
// CHECK: %[[SUM:.*]] = fuser.comm.allreduce
// CHECK-NOT: fuser.comm
// CHECK: fuser.exp %[[SUM]]
// CHECK: fuser.neg %[[SUM]]
// BEFORE-LABEL: func.func @partial_read_twice
// BEFORE-COUNT-1: fuser.comm.allreduce
// BEFORE-NOT: fuser.comm
// AFTER-LABEL: func.func @partial_read_twice
// AFTER-COUNT-1: fuser.comm.allreduce
// AFTER-NOT: fuser.comm
#mesh = #fuser.mesh<[2]>
#partial = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>
#replicated = #fuser.sharding<#mesh, [[], []]>
func.func @partial_read_twice(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>, %w: tensor<16x8xf32, #fuser.sharding<#mesh, [[0], []]>>) -> (tensor<8x8xf32, #replicated>, tensor<8x8xf32, #replicated>) {
  %y = fuser.matmul %x, %w : (tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<16x8xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x8xf32, #partial>
  %a = fuser.exp %y : tensor<8x8xf32, #partial> -> tensor<8x8xf32, #replicated>
  %b = fuser.neg %y : tensor<8x8xf32, #partial> -> tensor<8x8xf32, #replicated>
  return %a, %b : tensor<8x8xf32, #replicated>, tensor<8x8xf32, #replicated>
}

// -----

// var_mean over a split dim: the mean (an avg allreduce at the reduced
// size), then the sum of squared differences from it (a sum allreduce)
// divided by N - correction; the input is not gathered. With `before`,
// which converts operands, var_mean's input is gathered once, whole.
// CHECK-LABEL: func.func @var_mean_over_split_dim
// CHECK: %[[LOCAL_MEAN:.*]] = fuser.mean %{{.*}} dims = [1] :
// CHECK: %[[MEAN:.*]] = fuser.comm.allreduce %[[LOCAL_MEAN]] axis = 0 : {{.*}}partial = {0 : avg}
// CHECK: %[[SPREAD:.*]] = fuser.broadcast %[[MEAN]] dims = [0]
// CHECK: %[[CENTERED:.*]] = fuser.sub %{{.*}}, %[[SPREAD]]
// CHECK: %[[SQUARES:.*]] = fuser.mul %[[CENTERED]], %[[CENTERED]]
// CHECK: %[[LOCAL_SUM:.*]] = fuser.sum %[[SQUARES]] dims = [1] :
// CHECK: %[[SUM:.*]] = fuser.comm.allreduce %[[LOCAL_SUM]] axis = 0 : {{.*}}partial = {0 : sum}
// CHECK: %[[N:.*]] = fuser.full 1.500000e+01
// CHECK: %[[VAR:.*]] = fuser.div %[[SUM]], %[[N]]
// CHECK-NOT: fuser.comm
// CHECK: return %[[VAR]], %[[MEAN]]
// BEFORE-LABEL: func.func @var_mean_over_split_dim
// BEFORE-COUNT-1: fuser.comm.allgather
// BEFORE-NOT: fuser.comm
// BEFORE: fuser.var_mean
// AFTER-LABEL: func.func @var_mean_over_split_dim
// AFTER-NOT: fuser.comm.allgather
#mesh = #fuser.mesh<[2]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#replicated = #fuser.sharding<#mesh, [[]]>
func.func @var_mean_over_split_dim(%x: tensor<8x16xf32, #cols>) -> (tensor<8xf32, #replicated>, tensor<8xf32, #replicated>) {
  %v, %m = fuser.var_mean %x dims = [1] : tensor<8x16xf32, #cols> -> tensor<8xf32, #replicated>, tensor<8xf32, #replicated>
  return %v, %m : tensor<8xf32, #replicated>, tensor<8xf32, #replicated>
}

// -----

// bf16 statistics are computed in f32 (as the fused var_mean does) and
// rounded once; a correction of N or more divides by 0, as PyTorch does.
// CHECK-LABEL: func.func @var_mean_bf16
// CHECK: %[[WIDE:.*]] = fuser.cast %{{.*}} : tensor<8x16xbf16, {{.*}}> -> tensor<8x16xf32
// CHECK: fuser.mean %[[WIDE]] dims = [1] keepdim : {{.*}} -> tensor<8x1xf32
// CHECK: fuser.sum {{.*}} -> tensor<8x1xf32
// CHECK: fuser.full 0.000000e+00 : tensor<8x1xf32
// CHECK: fuser.div
// CHECK: fuser.cast {{.*}} -> tensor<8x1xbf16
// CHECK: fuser.cast {{.*}} -> tensor<8x1xbf16
#mesh = #fuser.mesh<[2]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#replicated = #fuser.sharding<#mesh, [[], []]>
func.func @var_mean_bf16(%x: tensor<8x16xbf16, #cols>) -> (tensor<8x1xbf16, #replicated>, tensor<8x1xbf16, #replicated>) {
  %v, %m = fuser.var_mean %x dims = [1] keepdim {correction = 20 : i64} : tensor<8x16xbf16, #cols> -> tensor<8x1xbf16, #replicated>, tensor<8x1xbf16, #replicated>
  return %v, %m : tensor<8x1xbf16, #replicated>, tensor<8x1xbf16, #replicated>
}

// -----

// A value read directly and through views moves once: the views are
// repeated on the moved value (a weight gradient reads the output gradient
// through a reshape and a permute, the data gradient reads it directly).
// CHECK-LABEL: func.func @views_of_a_moved_value
// CHECK: %[[G:.*]] = fuser.comm.allgather %arg0 axis = 0
// CHECK: fuser.matmul %[[G]], %arg1
// CHECK: %[[R:.*]] = fuser.reshape %[[G]] : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
// CHECK: %[[T:.*]] = fuser.permute %[[R]] perm = [1, 0] : {{.*}} -> tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
// CHECK: fuser.matmul %[[T]], %arg2
// CHECK-NOT: fuser.comm
// BEFORE-LABEL: func.func @views_of_a_moved_value
// BEFORE-COUNT-1: fuser.comm.allgather
// BEFORE-NOT: fuser.comm
// AFTER-LABEL: func.func @views_of_a_moved_value
#mesh = #fuser.mesh<[2]>
#sequence = #fuser.sharding<#mesh, [[], [0], []]>
#features = #fuser.sharding<#mesh, [[], [], [0]]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
func.func @views_of_a_moved_value(%g: tensor<1x8x4xf32, #sequence>,
                                  %w: tensor<4x16xf32, #cols>,
                                  %a: tensor<8x16xf32, #cols>)
    -> (tensor<1x8x16xf32, #features>, tensor<4x16xf32, #cols>) {
  %data = fuser.matmul %g, %w : (tensor<1x8x4xf32, #sequence>, tensor<4x16xf32, #cols>) -> tensor<1x8x16xf32, #features>
  %g2 = fuser.reshape %g : tensor<1x8x4xf32, #sequence> -> tensor<8x4xf32, #rows>
  %gt = fuser.permute %g2 perm = [1, 0] : tensor<8x4xf32, #rows> -> tensor<4x8xf32, #cols>
  %weight = fuser.matmul %gt, %a : (tensor<4x8xf32, #cols>, tensor<8x16xf32, #cols>) -> tensor<4x16xf32, #cols>
  return %data, %weight : tensor<1x8x16xf32, #features>, tensor<4x16xf32, #cols>
}

// -----

// An op with several results whose placements its operands cannot give
// (here on two meshes) computes them where its operands are, and each
// result placed elsewhere moves there.
// CHECK-LABEL: func.func @results_on_two_meshes
// CHECK: %[[VAR:.*]], %[[MEAN:.*]] = fuser.var_mean %arg0 dims = [1] : {{.*}} -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[]]>>, tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[]]>>
// CHECK: %[[MOVED:.*]] = fuser.comm.send_recv %[[MEAN]] : {{.*}} -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[4]>, {{\[}}[]]>>
// CHECK: return %[[VAR]], %[[MOVED]]
// BEFORE-LABEL: func.func @results_on_two_meshes
// BEFORE: fuser.comm.send_recv
// AFTER-LABEL: func.func @results_on_two_meshes
// AFTER: fuser.comm.send_recv
func.func @results_on_two_meshes(%x: tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []]>>)
    -> (tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[]]>>, tensor<8xf32, #fuser.sharding<#fuser.mesh<[4]>, [[]]>>) {
  %0:2 = fuser.var_mean %x dims = [1] : tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []]>> -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[]]>>, tensor<8xf32, #fuser.sharding<#fuser.mesh<[4]>, [[]]>>
  return %0#0, %0#1 : tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[]]>>, tensor<8xf32, #fuser.sharding<#fuser.mesh<[4]>, [[]]>>
}

// -----

// Operands that disagree (heads split over axis 1 in one, axis 0 in
// another) and results no operand placement computes: the op runs on whole
// operands and each result is sliced to its placement.
// CHECK-LABEL: func.func @operands_that_disagree
// CHECK-COUNT-9: fuser.comm.allgather
// CHECK: %[[DQ:.*]], %[[DK:.*]], %[[DV:.*]] = fuser.sdpa_backward {{.*}} -> (tensor<1x2x8x4xf64, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[], [], [], []]>>, tensor<1x2x8x4xf64, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[], [], [], []]>>, tensor<1x2x8x4xf64, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[], [], [], []]>>)
// CHECK-COUNT-5: fuser.comm.all_slice
// CHECK-NOT: fuser.comm
// BEFORE-LABEL: func.func @operands_that_disagree
// BEFORE: fuser.sdpa_backward
// AFTER-LABEL: func.func @operands_that_disagree
// AFTER: fuser.sdpa_backward
#mesh = #fuser.mesh<[2, 2]>
#q = #fuser.sharding<#mesh, [[], [], [0], [1]]>
#k = #fuser.sharding<#mesh, [[], [1], [], [0]]>
#v = #fuser.sharding<#mesh, [[], [0], [], [1]]>
#heads = #fuser.sharding<#mesh, [[], [1], [], []]>
#lse = #fuser.sharding<#mesh, [[], [1], []]>
func.func @operands_that_disagree(%q: tensor<1x2x8x4xf64, #q>, %k: tensor<1x2x8x4xf64, #k>, %v: tensor<1x2x8x4xf64, #v>, %o: tensor<1x2x8x4xf64, #heads>, %g: tensor<1x2x8x4xf64, #heads>, %lse: tensor<1x2x8xf32, #lse>) -> (tensor<1x2x8x4xf64, #fuser.sharding<#mesh, [[], [1], [0], []]>>, tensor<1x2x8x4xf64, #k>, tensor<1x2x8x4xf64, #heads>) {
  %dq, %dk, %dv = fuser.sdpa_backward %q, %k, %v, %o, %g, %lse causal : (tensor<1x2x8x4xf64, #q>, tensor<1x2x8x4xf64, #k>, tensor<1x2x8x4xf64, #v>, tensor<1x2x8x4xf64, #heads>, tensor<1x2x8x4xf64, #heads>, tensor<1x2x8xf32, #lse>) -> (tensor<1x2x8x4xf64, #fuser.sharding<#mesh, [[], [1], [0], []]>>, tensor<1x2x8x4xf64, #k>, tensor<1x2x8x4xf64, #heads>)
  return %dq, %dk, %dv : tensor<1x2x8x4xf64, #fuser.sharding<#mesh, [[], [1], [0], []]>>, tensor<1x2x8x4xf64, #k>, tensor<1x2x8x4xf64, #heads>
}

// -----

// A value replicated along an axis moves onto one slice of it (the adjoint
// of a broadcast from that slice) as a send_recv, which the slice's device
// serves from its own copy.
// CHECK-LABEL: func.func @replicated_onto_slice
// CHECK: %[[MOVED:.*]] = fuser.comm.send_recv %arg0 : {{.*}} -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, {{\[}}[]]>>
// CHECK: return %[[MOVED]]
// BEFORE-LABEL: func.func @replicated_onto_slice
// BEFORE: fuser.comm.send_recv
// AFTER-LABEL: func.func @replicated_onto_slice
// AFTER: fuser.comm.send_recv
func.func @replicated_onto_slice(%x: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[]]>>) -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>> {
  %0 = fuser.set %x : tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[]]>> -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>>
  return %0 : tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>>
}
