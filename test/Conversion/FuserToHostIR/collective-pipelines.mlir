// Collective-based pipelining of communications that move blocks: each
// step moves one stream chunk on its own pool stream.
// RUN: fuser-opt %s -split-input-file --fuser-to-hostir-pipeline -mlir-print-local-scope | FileCheck %s

// A stream-split allgather: allocate, get the user's stream, the
// synchronization loop, then the work loop gathering chunk i of dim 0 on
// pool stream i, then the join.
// CHECK-LABEL: func.func @stream_split_allgather
// CHECK-SAME: (%[[X:.*]]: memref<4x1x8xf32>) -> memref<4x2x8xf32>
// CHECK: %[[RANK:.*]] = hostir.rank
// CHECK-NEXT: %[[OUT:.*]] = hostir.allocate device : memref<4x2x8xf32>
// CHECK: %[[MAIN:.*]] = hostir.get_current_stream
// CHECK: scf.for %[[I:.*]] =
// CHECK-NEXT: %[[S:.*]] = hostir.stream_from_pool %[[I]]
// CHECK-NEXT: hostir.set_current_stream %[[S]]
// CHECK-NEXT: hostir.synchronize_stream %[[MAIN]]
// CHECK-NEXT: }
// CHECK-NEXT: scf.for %[[J:.*]] =
// CHECK-NEXT: %[[T:.*]] = hostir.stream_from_pool %[[J]]
// CHECK-NEXT: hostir.set_current_stream %[[T]]
// CHECK-NEXT: %[[XJ:.*]] = hostir.alias_select %[[X]][%[[J]]] dim = 0 chunks = 4 : memref<4x1x8xf32> -> memref<1x1x8xf32, strided<[8, 8, 1], offset: ?>>
// CHECK-NEXT: %[[OJ:.*]] = hostir.alias_select %[[OUT]][%[[J]]] dim = 0 chunks = 4 : memref<4x2x8xf32> -> memref<1x2x8xf32, strided<[16, 8, 1], offset: ?>>
// CHECK-NEXT: %[[TEAM:.*]] = hostir.team %[[RANK]]
// CHECK-NEXT: %[[W:.*]] = hostir.allgather %[[XJ]], %[[OJ]] on %[[TEAM]] backend = nccl
// CHECK-NEXT: hostir.wait %[[W]]
// CHECK-NEXT: }
// CHECK-NEXT: hostir.set_current_stream %[[MAIN]]
// CHECK-NEXT: scf.for
// CHECK-NEXT: hostir.stream_from_pool
// CHECK-NEXT: hostir.synchronize_stream
// CHECK-NEXT: }
// CHECK-NEXT: return %[[OUT]]
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[], [0], []], stream = {0 : 4}>
#gathered = #fuser.sharding<#mesh, [[], [], []], stream = {0 : 4}>
func.func @stream_split_allgather(%x: tensor<4x2x8xf32, #x>) -> tensor<4x2x8xf32, #gathered> {
  %0 = fuser.set %x : tensor<4x2x8xf32, #x> -> tensor<4x2x8xf32, #gathered>
  return %0 : tensor<4x2x8xf32, #gathered>
}

// -----

// AG+GEMM (sequence-parallel input, column-parallel weight): step i gathers
// chunk i of every rank's 8 rows into its own contiguous slot ([2, 2, 64]:
// 2 rows of each of the 2 ranks) and multiplies it into the rows of the
// output those are (a [2, 2, 16] view strided across the output).
// CHECK-LABEL: func.func @ag_gemm
// CHECK-SAME: (%[[X:.*]]: memref<8x64xf32>, %[[WT:.*]]: memref<16x64xf32>) -> memref<16x16xf32>
// CHECK: %[[X3:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [1, 8, 64]
// CHECK: %[[XV:.*]] = memref.cast %[[X3]]
// CHECK: %[[SLOTS:.*]] = hostir.allocate device : memref<4x2x2x64xf32>
// CHECK: %[[Y3:.*]] = hostir.allocate device : memref<2x8x16xf32>
// CHECK: hostir.get_current_stream
// CHECK: scf.for
// CHECK: hostir.synchronize_stream
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[XJ:.*]] = hostir.alias_select %[[XV]][%[[J]]] dim = 1 chunks = 4 : memref<1x8x64xf32> -> memref<1x2x64xf32, strided<[512, 64, 1], offset: ?>>
// CHECK: %[[GJ:.*]] = memref.subview %[[SLOTS]][%[[J]], 0, 0, 0] [1, 2, 2, 64] [1, 1, 1, 1] : memref<4x2x2x64xf32> to memref<2x2x64xf32, strided<[128, 64, 1], offset: ?>>
// CHECK: %[[W:.*]] = hostir.allgather %[[XJ]], %[[GJ]] on %{{.*}} backend = nccl
// CHECK-NEXT: hostir.wait %[[W]]
// CHECK-NEXT: %[[YJ:.*]] = hostir.alias_select %[[Y3]][%[[J]]] dim = 1 chunks = 4 : memref<2x8x16xf32> -> memref<2x2x16xf32, strided<[128, 16, 1], offset: ?>>
// CHECK-NEXT: hostir.linear %[[GJ]], %[[WT]], %[[YJ]]
// CHECK-NEXT: }
// CHECK: hostir.deallocate %[[SLOTS]]
// CHECK: %[[Y:.*]] = memref.reinterpret_cast %[[Y3]] to offset: [0], sizes: [16, 16], strides: [16, 1]
// CHECK: %[[YV:.*]] = memref.cast %[[Y]]
// CHECK: return %[[YV]]
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
#w = #fuser.sharding<#mesh, [[0], []]>
#y = #fuser.sharding<#mesh, [[], [0]]>
func.func @ag_gemm(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}

// -----

// GEMM+RS (row-parallel linear, sequence-parallel output): step i computes
// the partial rows that make chunk i of every rank's block into its own
// slot and reduce-scatters it into chunk i of this rank's rows.
// CHECK-LABEL: func.func @gemm_rs
// CHECK-SAME: (%[[X:.*]]: memref<16x32xf32>, %[[WT:.*]]: memref<32x32xf32>) -> memref<8x32xf32>
// CHECK: %[[X3:.*]] = memref.reinterpret_cast %[[X]] to offset: [0], sizes: [2, 8, 32]
// CHECK: %[[XV:.*]] = memref.cast %[[X3]]
// CHECK: %[[SLOTS:.*]] = hostir.allocate device : memref<4x2x2x32xf32>
// CHECK: %[[Y3:.*]] = hostir.allocate device : memref<1x8x32xf32>
// CHECK: scf.for %[[J:.*]] =
// CHECK: %[[PJ:.*]] = memref.subview %[[SLOTS]][%[[J]], 0, 0, 0] [1, 2, 2, 32] [1, 1, 1, 1] : memref<4x2x2x32xf32> to memref<2x2x32xf32, strided<[64, 32, 1], offset: ?>>
// CHECK: %[[XJ:.*]] = hostir.alias_select %[[XV]][%[[J]]] dim = 1 chunks = 4 : memref<2x8x32xf32> -> memref<2x2x32xf32, strided<[256, 32, 1], offset: ?>>
// CHECK: hostir.linear %[[XJ]], %[[WT]], %[[PJ]]
// CHECK: %[[YJ:.*]] = hostir.alias_select %[[Y3]][%[[J]]] dim = 1 chunks = 4 : memref<1x8x32xf32> -> memref<1x2x32xf32, strided<[256, 32, 1], offset: ?>>
// CHECK: %[[W:.*]] = hostir.reduce_scatter %[[PJ]], %[[YJ]] on %{{.*}} backend = nccl kind = sum
// CHECK-NEXT: hostir.wait %[[W]]
// CHECK-NEXT: }
// CHECK: hostir.deallocate %[[SLOTS]]
// CHECK: return
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[], [0]]>
#y = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
func.func @gemm_rs(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #x>) -> tensor<16x32xf32, #y> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #x>) -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}
