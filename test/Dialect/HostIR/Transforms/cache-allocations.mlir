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

// -----

// Buffers take turns in one cached storage when one's last use comes before
// the other's first: %c, first used after %a's last use, takes %a's bytes
// (which grow to hold it); %b, in use while %a is, has its own.
// CHECK: hostir.cached_buffer @turns_buffer device storage : memref<256xi8>
// CHECK: hostir.cached_buffer @turns_buffer_0 device : memref<8x4xf32>
// CHECK-NOT: hostir.cached_buffer
// CHECK-LABEL: func.func @turns
// CHECK: %[[A:.*]] = hostir.get_cached_buffer @turns_buffer : memref<8x4xf32>
// CHECK: %[[B:.*]] = hostir.get_cached_buffer @turns_buffer_0 : memref<8x4xf32>
// CHECK: hostir.copy %[[A]], %[[B]]
// CHECK: %[[C:.*]] = hostir.get_cached_buffer @turns_buffer : memref<8x8xf32>
// CHECK: hostir.copy %{{.*}}, %[[C]]
// CHECK-NOT: hostir.deallocate
func.func @turns(%x: memref<8x4xf32>, %y: memref<8x8xf32>) -> memref<8x8xf32> {
  %a = hostir.allocate device : memref<8x4xf32>
  hostir.copy %x, %a : memref<8x4xf32>, memref<8x4xf32>
  %b = hostir.allocate device : memref<8x4xf32>
  hostir.copy %a, %b : memref<8x4xf32>, memref<8x4xf32>
  %c = hostir.allocate device : memref<8x8xf32>
  hostir.copy %y, %c : memref<8x8xf32>, memref<8x8xf32>
  %r = hostir.allocate device : memref<8x8xf32>
  hostir.copy %c, %r : memref<8x8xf32>, memref<8x8xf32>
  hostir.copy %b, %x : memref<8x4xf32>, memref<8x4xf32>
  return %r : memref<8x8xf32>
}

// -----

// Of the free storages, a turn takes the smallest that holds it: %d takes
// %b's 64 bytes, not %a's 128.
// CHECK: hostir.cached_buffer @fit_buffer device storage : memref<128xi8>
// CHECK: hostir.cached_buffer @fit_buffer_0 device storage : memref<64xi8>
// CHECK-LABEL: func.func @fit
// CHECK: hostir.get_cached_buffer @fit_buffer : memref<8x4xf32>
// CHECK: hostir.get_cached_buffer @fit_buffer_0 : memref<16xf32>
// CHECK: hostir.get_cached_buffer @fit_buffer_0 : memref<4x4xf32>
// CHECK: hostir.get_cached_buffer @fit_buffer : memref<8x4xf32>
func.func @fit(%x: memref<8x4xf32>, %v: memref<16xf32>, %s: memref<4x4xf32>) {
  %a = hostir.allocate device : memref<8x4xf32>
  %b = hostir.allocate device : memref<16xf32>
  hostir.copy %x, %a : memref<8x4xf32>, memref<8x4xf32>
  hostir.copy %v, %b : memref<16xf32>, memref<16xf32>
  hostir.copy %a, %x : memref<8x4xf32>, memref<8x4xf32>
  hostir.copy %b, %v : memref<16xf32>, memref<16xf32>
  %d = hostir.allocate device : memref<4x4xf32>
  %e = hostir.allocate device : memref<8x4xf32>
  hostir.copy %s, %d : memref<4x4xf32>, memref<4x4xf32>
  hostir.copy %x, %e : memref<8x4xf32>, memref<8x4xf32>
  hostir.copy %d, %s : memref<4x4xf32>, memref<4x4xf32>
  hostir.copy %e, %x : memref<8x4xf32>, memref<8x4xf32>
  return
}

// -----

// Memory of other kinds does not take turns: host memory after a device
// buffer has its own.
// CHECK: hostir.cached_buffer @kinds_buffer device : memref<8x4xf32>
// CHECK: hostir.cached_buffer @kinds_buffer_0 host : memref<8x4xf32>
func.func @kinds(%x: memref<8x4xf32>) {
  %a = hostir.allocate device : memref<8x4xf32>
  hostir.copy %x, %a : memref<8x4xf32>, memref<8x4xf32>
  hostir.copy %a, %x : memref<8x4xf32>, memref<8x4xf32>
  %h = hostir.allocate host : memref<8x4xf32>
  hostir.copy %x, %h : memref<8x4xf32>, memref<8x4xf32>
  hostir.copy %h, %x : memref<8x4xf32>, memref<8x4xf32>
  return
}

// -----

// A span is counted in the ops of the function's body: a loop that uses one
// buffer last and another first holds both at once, and a buffer allocated
// in a loop (each iteration's turn in the same memory) has its own memory.
// CHECK: hostir.cached_buffer @loop_buffer device : memref<8x4xf32>
// CHECK: hostir.cached_buffer @loop_buffer_0 device : memref<8x4xf32>
// CHECK: hostir.cached_buffer @loop_buffer_1 device : memref<8x4xf32>
// CHECK-NOT: storage
func.func @loop(%x: memref<8x4xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %a = hostir.allocate device : memref<8x4xf32>
  hostir.copy %x, %a : memref<8x4xf32>, memref<8x4xf32>
  %b = hostir.allocate device : memref<8x4xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    hostir.copy %a, %x : memref<8x4xf32>, memref<8x4xf32>
    hostir.copy %x, %b : memref<8x4xf32>, memref<8x4xf32>
  }
  hostir.copy %b, %x : memref<8x4xf32>, memref<8x4xf32>
  scf.for %i = %c0 to %c2 step %c1 {
    %t = hostir.allocate device : memref<8x4xf32>
    hostir.copy %x, %t : memref<8x4xf32>, memref<8x4xf32>
    hostir.copy %t, %x : memref<8x4xf32>, memref<8x4xf32>
  }
  return
}
