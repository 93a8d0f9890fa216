// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(hostir-cache-allocations,func.func(hostir-place-deallocations,hostir-verify-program))' | FileCheck %s

// Intermediate buffers move out of the program into module-level cached
// buffers and are no longer freed; returned and zero-initialized ones stay.
// CHECK: hostir.cached_buffer @program_buffer device : memref<8x4xf32>
// CHECK-NOT: hostir.cached_buffer
// CHECK-LABEL: func.func @program
// CHECK: %[[T:.*]] = hostir.get_cached_buffer @program_buffer : memref<8x4xf32>
// CHECK: %[[Z:.*]] = hostir.allocate device zeroed : memref<8x4xf32>
// CHECK: %[[R:.*]] = hostir.allocate device : memref<8x4xf32>
// CHECK-NOT: hostir.deallocate %[[T]]
// CHECK: hostir.deallocate %[[Z]]
// CHECK-NOT: hostir.deallocate
// CHECK: return %[[R]]
func.func @program(%x: memref<8x4xf32>) -> memref<8x4xf32> {
  %t = hostir.allocate device : memref<8x4xf32>
  %z = hostir.allocate device zeroed : memref<8x4xf32>
  %r = hostir.allocate device : memref<8x4xf32>
  hostir.copy %x, %t : memref<8x4xf32>, memref<8x4xf32>
  hostir.copy %t, %z : memref<8x4xf32>, memref<8x4xf32>
  hostir.copy %z, %r : memref<8x4xf32>, memref<8x4xf32>
  hostir.deallocate %t : memref<8x4xf32>
  return %r : memref<8x4xf32>
}

// -----

// A buffer peers read through CUDA IPC is cached like any intermediate:
// every execution shares the same buffer, so the handles exchanged on its
// first hostir.ipc_share stay valid, and it is never freed under a peer.
// It stays symmetric memory, which CUDA IPC can export.
// CHECK: hostir.cached_buffer @ring_buffer symmetric : memref<2x8xf32>
// CHECK-LABEL: func.func @ring
// CHECK: %[[B:.*]] = hostir.get_cached_buffer @ring_buffer
// CHECK: hostir.ipc_share %[[B]]
// CHECK-NOT: hostir.deallocate
func.func @ring(%x: memref<1x8xf32>, %peer: index) {
  %r = hostir.rank : index
  %t = hostir.team %r mesh = #fuser.mesh<[2]> axes = [0] : !hostir.team<2>
  %b = hostir.allocate symmetric : memref<2x8xf32>
  %h = hostir.ipc_share %b on %t : memref<2x8xf32>, !hostir.team<2>
  hostir.ipc_signal %h[%peer] : !hostir.ipc_handles<memref<2x8xf32>>
  hostir.ipc_wait %h[%peer] : !hostir.ipc_handles<memref<2x8xf32>>
  hostir.deallocate %b : memref<2x8xf32>
  return
}
