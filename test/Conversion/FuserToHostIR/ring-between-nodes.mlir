// With backend=cuda_ipc, a ring whose teams cross nodes (fuser.between_nodes,
// two nodes of 2 ranks here) moves its blocks over NCCL in device memory;
// one within a node shares symmetric memory through CUDA IPC.
// RUN: fuser-opt %s -split-input-file --fuser-to-hostir-pipeline='pipelining=ring backend=cuda_ipc ranks-per-node=2' -mlir-print-local-scope 2>/dev/null | FileCheck %s

// The AG+GEMM of ring-pipelines.mlir on a 2x2 mesh, gathering over axis 0
// (teams {0, 2} and {1, 3}).
// CHECK-LABEL: func.func @across_nodes
// CHECK: hostir.allocate device : memref<2x8x64xf32>
// CHECK-NOT: hostir.ipc_share
// CHECK: hostir.send {{.*}} backend = nccl
// CHECK-NEXT: hostir.recv {{.*}} backend = nccl
// CHECK-NOT: hostir.ipc
// CHECK: return
#mesh = #fuser.mesh<[2, 2]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 2}>
#w = #fuser.sharding<#mesh, [[0], []]>
#y = #fuser.sharding<#mesh, [[], [0]]>
func.func @across_nodes(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}

// -----

// The same over axis 1 (teams {0, 1} and {2, 3}).
// CHECK-LABEL: func.func @within_a_node
// CHECK: %[[G:.*]] = hostir.allocate symmetric : memref<2x8x64xf32>
// CHECK: hostir.ipc_share %[[G]]
#mesh = #fuser.mesh<[2, 2]>
#x = #fuser.sharding<#mesh, [[1], []], stream = {0 : 2}>
#w = #fuser.sharding<#mesh, [[1], []]>
#y = #fuser.sharding<#mesh, [[], [1]]>
func.func @within_a_node(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}
