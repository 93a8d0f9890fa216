// Stream-split library calls and communications run chunk by chunk on pool
// streams: a synchronization loop first, then the work loop, then the join.
// RUN: fuser-opt %s --fuser-to-hostir-pipeline -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s --fuser-to-hostir-pipeline='streams=2' | FileCheck %s --check-prefix=TWO
// TWO: arith.remui
// TWO: hostir.linear {{.*}} : memref<2x32xf32, strided<[32, 1], offset: ?>>

// A row-parallel linear pipelined over 4 chunks of its rows: one matmul per
// chunk of the local shapes, each followed by the allreduce of that chunk.
// CHECK-LABEL: func.func @row_parallel_linear
// CHECK-SAME: (%[[X:.*]]: memref<8x32xf32>, %[[W:.*]]: memref<16x32xf32>) -> memref<8x16xf32>
// CHECK: %[[RANK:.*]] = hostir.rank
// The partial result lives only inside the loop: one contiguous slot per
// chunk, each step writing and reducing its own.
// CHECK: %[[P:.*]] = hostir.allocate device : memref<4x2x16xf32>
// CHECK: %[[Y:.*]] = hostir.allocate device : memref<8x16xf32>
// CHECK: %[[MAIN:.*]] = hostir.get_current_stream
// CHECK: %[[C4:.*]] = arith.constant 4 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[C4]]
// CHECK-NEXT: %[[S:.*]] = hostir.stream_from_pool %[[I]]
// CHECK-NEXT: hostir.set_current_stream %[[S]]
// CHECK-NEXT: hostir.synchronize_stream %[[MAIN]]
// CHECK-NEXT: }
// CHECK: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// CHECK-NEXT: %[[T:.*]] = hostir.stream_from_pool %[[J]]
// CHECK-NEXT: hostir.set_current_stream %[[T]]
// CHECK-DAG: %[[PJ:.*]] = memref.subview %[[P]][%[[J]], 0, 0] [1, 2, 16] [1, 1, 1] : memref<4x2x16xf32> to memref<2x16xf32, strided<[16, 1], offset: ?>>
// CHECK-DAG: %[[XJ:.*]] = hostir.alias_select %[[X]][%[[J]]] dim = 0 chunks = 4 : memref<8x32xf32> -> memref<2x32xf32, strided<[32, 1], offset: ?>>
// CHECK: hostir.linear %[[XJ]], %[[W]], %[[PJ]] : memref<2x32xf32, strided<[32, 1], offset: ?>>, memref<16x32xf32>, memref<2x16xf32, strided<[16, 1], offset: ?>>
// CHECK: %[[YJ:.*]] = hostir.alias_select %[[Y]][%[[J]]] dim = 0 chunks = 4
// CHECK: %[[TEAM:.*]] = hostir.team %[[RANK]]
// CHECK: %[[WORK:.*]] = hostir.allreduce %[[PJ]], %[[YJ]] on %[[TEAM]] backend = nccl kind = sum
// CHECK-NEXT: hostir.wait %[[WORK]]
// CHECK-NEXT: }
// CHECK: hostir.set_current_stream %[[MAIN]]
// CHECK: scf.for %[[K:.*]] =
// CHECK-NEXT: %[[U:.*]] = hostir.stream_from_pool %[[K]]
// CHECK-NEXT: hostir.synchronize_stream %[[U]]
// CHECK-NEXT: }
// The partial result is freed once the streams joined.
// CHECK-NEXT: hostir.deallocate %[[P]]
// CHECK-NEXT: return %[[Y]]
#mesh = #fuser.mesh<[2]>
func.func @row_parallel_linear(
    %x: tensor<8x64xf32, #fuser.sharding<#mesh, [[], [0]], stream = {0 : 4}>>,
    %w: tensor<16x64xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x16xf32> {
  %y = fuser.linear %x, %w : (tensor<8x64xf32, #fuser.sharding<#mesh, [[], [0]], stream = {0 : 4}>>, tensor<16x64xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
