// Ring GEMM+RS over CUDA IPC compiled for GPUs: library calls, IPC
// signals, copies from the peer's buffer into the result and the local
// product added to them (accumulate = 1); no kernel. The shared buffer is
// cached symmetric memory.
// RUN: fuser-opt %s --fuser-to-hostir-pipeline='pipelining=ring backend=cuda_ipc cache-allocations=true' --fuser-cuda-to-llvm | FileCheck %s
// CHECK-NOT: @kernels
// CHECK-LABEL: llvm.func @gemm_rs_ring(
// CHECK: %[[CUDA:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: llvm.call @fuser_use_backend(%[[CUDA]])
// CHECK: %[[SYMMETRIC:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[PARTIAL:.*]] = llvm.call @fuser_cached_buffer(%{{.*}}, %{{.*}}, %[[SYMMETRIC]])
// CHECK: llvm.call @fuser_ipc_share
// CHECK: llvm.call @fuser_linear(
// CHECK: llvm.call @fuser_ipc_signal
// CHECK: llvm.call @fuser_ipc_wait
// CHECK: llvm.call @fuser_ipc_peer_pointer
// CHECK: llvm.call @fuser_copy
// CHECK: %[[ACCUMULATE:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[NO_ACTIVATION:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @fuser_linear({{.*}}, %[[ACCUMULATE]], %[[NO_ACTIVATION]]) :
// CHECK-NOT: @fuser_reduce_blocks
// CHECK-NOT: @kernels
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[], [0]]>
#y = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
func.func @gemm_rs_ring(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #x>) -> tensor<16x32xf32, #y> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #x>) -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}
