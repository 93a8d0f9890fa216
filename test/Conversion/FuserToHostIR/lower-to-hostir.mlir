// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(convert-fuser-to-hostir)' -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(convert-fuser-to-hostir{backend=mpi})' | FileCheck %s --check-prefix=MPI
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(convert-fuser-to-hostir{backend=cuda_ipc})' | FileCheck %s --check-prefix=IPC

// The segmented tensor-parallel MLP as a host program over per-rank buffers.
// CHECK-LABEL: func.func @tp_mlp(
// CHECK-SAME: %[[X:.*]]: memref<8x64xf32>, %[[W1:.*]]: memref<128x64xf32>, %[[W2:.*]]: memref<64x128xf32>) -> memref<8x64xf32>
// CHECK: %[[RANK:.*]] = hostir.rank : index
// CHECK: %[[H:.*]] = hostir.allocate device : memref<8x128xf32>
// CHECK: hostir.linear %[[X]], %[[W1]], %[[H]]
// CHECK: %[[A:.*]] = hostir.allocate device : memref<8x128xf32>
// CHECK: hostir.launch @kernels::@tp_mlp_kernel_0 blocks({{.*}}) threads({{.*}}) args(%[[H]], %[[A]] : memref<8x128xf32>, memref<8x128xf32>)
// CHECK: %[[P:.*]] = hostir.allocate device : memref<8x64xf32>
// CHECK: hostir.linear %[[A]], %[[W2]], %[[P]]
// CHECK: %[[Y:.*]] = hostir.allocate device : memref<8x64xf32>
// CHECK: %[[TEAM:.*]] = hostir.team %[[RANK]] mesh = #fuser.mesh<[2]> axes = [0] : !hostir.team<2>
// CHECK: %[[WORK:.*]] = hostir.allreduce %[[P]], %[[Y]] on %[[TEAM]] backend = nccl kind = sum
// CHECK: hostir.wait %[[WORK]]
// CHECK: return %[[Y]]
// MPI: hostir.allreduce {{.*}} backend = mpi
#mesh = #fuser.mesh<[2]>
#rep = #fuser.sharding<#mesh, [[], []]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#partial = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>
module {
  func.func @tp_mlp(%x: tensor<8x64xf32, #rep>, %w1: tensor<256x64xf32, #rows>, %w2: tensor<64x256xf32, #cols>) -> tensor<8x64xf32, #rep> {
    %h = fuser.linear %x, %w1 : (tensor<8x64xf32, #rep>, tensor<256x64xf32, #rows>) -> tensor<8x256xf32, #cols>
    %a = fuser.kernel @kernels::@tp_mlp_kernel_0(%h) : (tensor<8x256xf32, #cols>) -> tensor<8x256xf32, #cols>
    %p = fuser.linear %a, %w2 : (tensor<8x256xf32, #cols>, tensor<64x256xf32, #cols>) -> tensor<8x64xf32, #partial>
    %y = fuser.comm.allreduce %p axis = 0 : tensor<8x64xf32, #partial> -> tensor<8x64xf32, #rep>
    return %y : tensor<8x64xf32, #rep>
  }
  module @kernels {
    func.func private @tp_mlp_kernel_0(memref<8x128xf32>, memref<8x128xf32>)
  }
}

// -----

// Every communication kind becomes its collective with the team of the
// executing rank along the mesh axis, and a wait; all_slice moves no data.
// CHECK-LABEL: func.func @kinds
// CHECK: hostir.allgather %{{.*}}, %{{.*}} on %{{.*}} backend = nccl : memref<4x4xf32>, memref<8x4xf32>, !hostir.team<2>
// CHECK: %[[IDX:.*]] = hostir.team_index
// CHECK: hostir.alias_select %{{.*}}[%[[IDX]]] dim = 0 chunks = 2 : memref<8x4xf32> -> memref<4x4xf32, strided<[4, 1], offset: ?>>
// CHECK: hostir.reduce_scatter {{.*}} kind = max : memref<8x4xf32>, memref<4x4xf32>, !hostir.team<2>
// all_to_all exchanges equal contiguous blocks: block j of the dim the
// result splits goes to member j, member i's block lands as block i of the
// dim the operand split; both sides are viewed blocks-outermost and packed
// where that view has gaps.
// CHECK: %[[SENT:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 4, 2], strides: [2, 4, 1]
// CHECK: %[[GOT:.*]] = memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [2, 4, 2], strides: [4, 1, 8]
// CHECK: %[[PACKED:.*]] = hostir.allocate device : memref<2x4x2xf32>
// CHECK: %[[LANDED:.*]] = hostir.allocate device : memref<2x4x2xf32>
// CHECK: hostir.copy %[[SENT]], %[[PACKED]]
// CHECK: %[[A2A:.*]] = hostir.all_to_all %[[PACKED]], %[[LANDED]] on %{{.*}} : memref<2x4x2xf32>, memref<2x4x2xf32>, !hostir.team<2>
// CHECK-NEXT: hostir.wait %[[A2A]]
// CHECK-NEXT: hostir.copy %[[LANDED]], %[[GOT]]
// CHECK: hostir.gather {{.*}} root = 1 : memref<4x4xf32>, memref<8x4xf32>, !hostir.team<2>
// CHECK: hostir.scatter {{.*}} root = 0 : memref<8x4xf32>, memref<4x4xf32>, !hostir.team<2>
// CHECK: hostir.broadcast {{.*}} root = 0 : memref<8x4xf32>, memref<8x4xf32>, !hostir.team<2>
// CHECK: hostir.reduce {{.*}} kind = max root = 1 : memref<8x4xf32>, memref<8x4xf32>, !hostir.team<2>
// With cuda_ipc, CUDA IPC copies move the blocks of ring pipelines; every
// collective outside them posts on NCCL.
// IPC-LABEL: func.func @kinds
// IPC-NOT: backend = cuda_ipc
// IPC: hostir.allgather {{.*}} backend = nccl
// IPC: hostir.reduce_scatter {{.*}} backend = nccl kind = max
// IPC: hostir.all_to_all {{.*}} backend = nccl
// IPC: hostir.gather {{.*}} backend = nccl
// IPC: hostir.scatter {{.*}} backend = nccl
// IPC: hostir.broadcast {{.*}} backend = nccl
// IPC: hostir.reduce {{.*}} backend = nccl kind = max
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#rep = #fuser.sharding<#mesh, [[], []]>
#max = #fuser.sharding<#mesh, [[], []], partial = {0 : max}>
#root0 = #fuser.sharding<#fuser.mesh<[1]>, [[], []]>
#root1 = #fuser.sharding<#fuser.mesh<[1], devices = [1]>, [[], []]>
func.func @kinds(%x: tensor<8x4xf32, #rows>, %m: tensor<8x4xf32, #max>, %r: tensor<8x4xf32, #root0>) {
  %0 = fuser.comm.allgather %x axis = 0 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  %1 = fuser.comm.all_slice %0 axis = 0 : tensor<8x4xf32, #rep> -> tensor<8x4xf32, #rows>
  %2 = fuser.comm.reduce_scatter %m axis = 0 : tensor<8x4xf32, #max> -> tensor<8x4xf32, #rows>
  %3 = fuser.comm.all_to_all %x axis = 0 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]], order = [1, 0]>>
  %4 = fuser.comm.gather %x axis = 0 root = 1 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #root1>
  %5 = fuser.comm.scatter %r axis = 0 root = 0 : tensor<8x4xf32, #root0> -> tensor<8x4xf32, #rows>
  %6 = fuser.comm.broadcast %r axis = 0 root = 0 : tensor<8x4xf32, #root0> -> tensor<8x4xf32, #rep>
  %7 = fuser.comm.reduce %m axis = 0 root = 1 : tensor<8x4xf32, #max> -> tensor<8x4xf32, #root1>
  return
}

// -----

// Views become buffer views with the strides of the view (repeated data
// has stride 0); boundaries are the buffer itself.
// CHECK-LABEL: func.func @views
// CHECK-SAME: (%[[X:.*]]: memref<4x16xf32>) -> memref<4x4x4xf32, strided<[4, 16, 1]>>
// CHECK: %[[R:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [4, 4, 4], strides: [16, 4, 1]
// CHECK: %[[C:.*]] = memref.cast %[[R]] : memref<4x4x4xf32, strided<[16, 4, 1]>> to memref<4x4x4xf32>
// CHECK: %[[T:.*]] = memref.reinterpret_cast %[[C]] to offset: [0], sizes: [4, 4, 4], strides: [4, 16, 1]
// CHECK: return %[[T]]
#mesh = #fuser.mesh<[2]>
func.func @views(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<4x8x4xf32, #fuser.sharding<#mesh, [[], [0], []], order = [1, 0, 2]>> {
  %0 = fuser.segment_set %x : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>
  %1 = fuser.reshape %0 : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4x4xf32, #fuser.sharding<#mesh, [[0], [], []]>>
  %2 = fuser.permute %1 perm = [1, 0, 2] : tensor<8x4x4xf32, #fuser.sharding<#mesh, [[0], [], []]>> -> tensor<4x8x4xf32, #fuser.sharding<#mesh, [[], [0], []], order = [1, 0, 2]>>
  return %2 : tensor<4x8x4xf32, #fuser.sharding<#mesh, [[], [0], []], order = [1, 0, 2]>>
}

// -----

// Slices are subviews; broadcasts, squeezes and expands reinterpret the
// buffer; each is cast to the layout the result's type states.
// CHECK-LABEL: func.func @more_views
// CHECK: %[[S:.*]] = memref.subview %arg0[0, 4] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 4>>
// CHECK: memref.cast %[[S]] : {{.*}} to memref<4x8xf32, strided<[?, 1], offset: ?>>
// CHECK: memref.reinterpret_cast %arg0 to offset: [0], sizes: [4, 4, 16], strides: [16, 0, 1]
// CHECK: memref.reinterpret_cast %arg1 to offset: [0], sizes: [4], strides: [1]
// CHECK: memref.reinterpret_cast %arg1 to offset: [0], sizes: [4, 3], strides: [1, 0]
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#gap = #fuser.sharding<#mesh, [[0], []], contiguity = [false, true]>
#repeat = #fuser.sharding<#mesh, [[0], [], []], order = [1, 0, 2], contiguity = [false, true, true]>
#repeat2 = #fuser.sharding<#mesh, [[0], []], order = [1, 0], contiguity = [false, true]>
func.func @more_views(%x: tensor<8x16xf32, #rows>, %b: tensor<8x1xf32, #rows>)
    -> (tensor<8x8xf32, #gap>, tensor<8x4x16xf32, #repeat>, tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>, tensor<8x3xf32, #repeat2>) {
  %0 = fuser.slice %x starts = [0, 4] limits = [8, 12] steps = [1, 1] : tensor<8x16xf32, #rows> -> tensor<8x8xf32, #gap>
  %1 = fuser.broadcast %x dims = [0, 2] : tensor<8x16xf32, #rows> -> tensor<8x4x16xf32, #repeat>
  %2 = fuser.squeeze %b dims = [1] : tensor<8x1xf32, #rows> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  %3 = fuser.expand %b : tensor<8x1xf32, #rows> -> tensor<8x3xf32, #repeat2>
  return %0, %1, %2, %3 : tensor<8x8xf32, #gap>, tensor<8x4x16xf32, #repeat>, tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>, tensor<8x3xf32, #repeat2>
}

// -----

// A reshape of a transposed buffer is a view when each merged group is one
// strided line: splitting the outer dim (stride 4) keeps that stride inside.
// CHECK-LABEL: func.func @reshape_of_transposed
// CHECK-SAME: (%[[X:.*]]: memref<4x8xf32, strided<[1, 4]>>)
// CHECK: memref.reinterpret_cast %[[X]] to offset: [0], sizes: [4, 2, 4], strides: [1, 16, 4]
#mesh = #fuser.mesh<[2]>
#transposed = #fuser.sharding<#mesh, [[0], []], order = [1, 0]>
#split = #fuser.sharding<#mesh, [[0], [], []], order = [1, 2, 0]>
func.func @reshape_of_transposed(%x: tensor<8x8xf32, #transposed>) -> tensor<8x2x4xf32, #split> {
  %0 = fuser.reshape %x : tensor<8x8xf32, #transposed> -> tensor<8x2x4xf32, #split>
  return %0 : tensor<8x2x4xf32, #split>
}

// -----

// Views of a buffer whose strides are known only at run time read them
// from the buffer.
// CHECK-LABEL: func.func @view_of_gapped_buffer
// CHECK-SAME: (%[[X:.*]]: memref<4x8xf32, strided<[?, 1], offset: ?>>)
// CHECK: %{{.*}}, %[[OFFSET:.*]], %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[X]]
// CHECK: %[[V:.*]] = memref.reinterpret_cast %[[X]] to offset: [%[[OFFSET]]], sizes: [8, 4], strides: [1, %[[STRIDES]]#0]
// CHECK: %{{.*}}, %[[OFFSET2:.*]], %{{.*}}:2, %[[STRIDES2:.*]]:2 = memref.extract_strided_metadata %[[X]]
// CHECK: memref.reinterpret_cast %[[X]] to offset: [%[[OFFSET2]]], sizes: [4, 2, 4], strides: [%[[STRIDES2]]#0, 4, 1]
#mesh = #fuser.mesh<[2]>
#gap = #fuser.sharding<#mesh, [[0], []], contiguity = [false, true]>
#gapT = #fuser.sharding<#mesh, [[], [0]], order = [1, 0], contiguity = [false, true]>
#gap3 = #fuser.sharding<#mesh, [[0], [], []], contiguity = [false, true, true]>
func.func @view_of_gapped_buffer(%x: tensor<8x8xf32, #gap>) -> (tensor<8x8xf32, #gapT>, tensor<8x2x4xf32, #gap3>) {
  %0 = fuser.permute %x perm = [1, 0] : tensor<8x8xf32, #gap> -> tensor<8x8xf32, #gapT>
  %1 = fuser.reshape %x : tensor<8x8xf32, #gap> -> tensor<8x2x4xf32, #gap3>
  return %0, %1 : tensor<8x8xf32, #gapT>, tensor<8x2x4xf32, #gap3>
}

// -----

// Host ops already in a function stay as they are.
// CHECK-LABEL: func.func @host_ops_kept(
// CHECK-SAME: memref<4xf32>
// CHECK-NEXT: %[[C:.*]] = arith.constant 3 : index
// CHECK-NEXT: return %[[C]] : index
#mesh = #fuser.mesh<[2]>
func.func @host_ops_kept(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) -> index {
  %c3 = arith.constant 3 : index
  return %c3 : index
}
