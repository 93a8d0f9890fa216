// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(hostir-place-deallocations,hostir-verify-program))' | FileCheck %s

// Each buffer is freed after the last op that uses it or a view of it; a
// use inside a loop counts as the loop; returned buffers are not freed.
// CHECK-LABEL: func.func @lifetimes
// CHECK: %[[A:.*]] = hostir.allocate device : memref<8x4xf32>
// CHECK: %[[B:.*]] = hostir.allocate device : memref<8x4xf32>
// CHECK: %[[C:.*]] = hostir.allocate device : memref<8x4xf32>
// CHECK: hostir.copy %[[A]], %[[B]]
// CHECK-NEXT: hostir.deallocate %[[A]]
// CHECK: %[[V:.*]] = hostir.alias_select %[[B]]
// CHECK: scf.for
// CHECK: hostir.copy %[[V]]
// CHECK: }
// CHECK-NEXT: hostir.deallocate %[[B]]
// CHECK-NOT: hostir.deallocate %[[C]]
// CHECK: return %[[C]]
func.func @lifetimes(%i: index, %n: index) -> memref<8x4xf32> {
  %a = hostir.allocate device : memref<8x4xf32>
  %b = hostir.allocate device : memref<8x4xf32>
  %c = hostir.allocate device : memref<8x4xf32>
  hostir.copy %a, %b : memref<8x4xf32>, memref<8x4xf32>
  %v = hostir.alias_select %b[%i] dim = 0 chunks = 2 : memref<8x4xf32> -> memref<4x4xf32, strided<[4, 1], offset: ?>>
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %j = %c0 to %n step %c1 {
    %w = hostir.alias_select %c[%j] dim = 0 chunks = 2 : memref<8x4xf32> -> memref<4x4xf32, strided<[4, 1], offset: ?>>
    hostir.copy %v, %w : memref<4x4xf32, strided<[4, 1], offset: ?>>, memref<4x4xf32, strided<[4, 1], offset: ?>>
  }
  return %c : memref<8x4xf32>
}

// -----

// A buffer used on worker streams is freed after they joined the current
// stream, not right after its last use.
// CHECK-LABEL: func.func @after_join
// CHECK: hostir.copy
// CHECK-NEXT: }
// CHECK-NEXT: hostir.set_current_stream
// CHECK-NEXT: arith.constant
// CHECK-NEXT: scf.for
// CHECK: hostir.synchronize_stream
// CHECK-NEXT: }
// CHECK-NEXT: hostir.deallocate
func.func @after_join(%x: memref<8xf32>, %n: index) {
  %a = hostir.allocate device : memref<8xf32>
  %main = hostir.get_current_stream
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %s = hostir.stream_from_pool %i
    hostir.set_current_stream %s
    hostir.copy %x, %a : memref<8xf32>, memref<8xf32>
  }
  hostir.set_current_stream %main
  %c2 = arith.constant 2 : index
  scf.for %i = %c0 to %c2 step %c1 {
    %s = hostir.stream_from_pool %i
    hostir.synchronize_stream %s
  }
  return
}

// -----

// Peers reach a shared buffer through its IPC handles: it is freed after the
// last signal or wait on them, not after the last local use.
// CHECK-LABEL: func.func @shared_buffer
// CHECK: %[[B:.*]] = hostir.allocate device : memref<8xf32>
// CHECK: %[[H:.*]] = hostir.ipc_share %[[B]]
// CHECK: hostir.copy %{{.*}}, %[[B]]
// CHECK-NEXT: hostir.ipc_signal %[[H]]
// CHECK-NEXT: hostir.ipc_wait %[[H]]
// CHECK-NEXT: hostir.deallocate %[[B]]
func.func @shared_buffer(%x: memref<8xf32>, %peer: index) {
  %r = hostir.rank : index
  %t = hostir.team %r mesh = #fuser.mesh<[2]> axes = [0] : !hostir.team<2>
  %b = hostir.allocate device : memref<8xf32>
  %h = hostir.ipc_share %b on %t : memref<8xf32>, !hostir.team<2>
  hostir.copy %x, %b : memref<8xf32>, memref<8xf32>
  hostir.ipc_signal %h[%peer] : !hostir.ipc_handles<memref<8xf32>>
  hostir.ipc_wait %h[%peer] : !hostir.ipc_handles<memref<8xf32>>
  return
}

// -----

// A posted communication reads its input until it is waited on: the input
// is freed after the wait, not after the post.
// CHECK-LABEL: func.func @posted
// CHECK: %[[WORK:.*]] = hostir.allreduce %[[IN:.*]], %{{.*}} on
// CHECK-NEXT: hostir.wait %[[WORK]]
// CHECK-NEXT: hostir.deallocate %[[IN]]
func.func @posted() -> memref<8xf32> {
  %r = hostir.rank : index
  %t = hostir.team %r mesh = #fuser.mesh<[2]> axes = [0] : !hostir.team<2>
  %in = hostir.allocate device : memref<8xf32>
  %out = hostir.allocate device : memref<8xf32>
  %w = hostir.allreduce %in, %out on %t backend = mpi kind = sum : memref<8xf32>, memref<8xf32>, !hostir.team<2>
  hostir.wait %w for %in, %out : memref<8xf32>, memref<8xf32>
  return %out : memref<8xf32>
}

// -----

// Buffers a branch yields, each branch its own, are freed through the
// branch's result after its last use.
// CHECK-LABEL: func.func @yielded
// CHECK: %[[Y:.*]] = scf.if
// CHECK-NOT: hostir.deallocate
// CHECK: } else {
// CHECK-NOT: hostir.deallocate
// CHECK: }
// CHECK-NEXT: hostir.copy %{{.*}}, %[[Y]]
// CHECK-NEXT: hostir.deallocate %[[Y]]
// CHECK-NEXT: return
func.func @yielded(%c: i1, %x: memref<8xf32>) {
  %y = scf.if %c -> memref<8xf32> {
    %a = hostir.allocate device : memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    %b = hostir.allocate device : memref<8xf32>
    hostir.copy %x, %b : memref<8xf32>, memref<8xf32>
    scf.yield %b : memref<8xf32>
  }
  hostir.copy %x, %y : memref<8xf32>, memref<8xf32>
  return
}

// -----

// Nested branches that yield buffers of their own on every path: the outer
// result owns all three.
// CHECK-LABEL: func.func @nested_yielded
// CHECK: %[[R:.*]] = scf.if
// CHECK-NOT: hostir.deallocate
// CHECK: hostir.copy %{{.*}}, %[[R]]
// CHECK-NEXT: hostir.deallocate %[[R]]
// CHECK-NEXT: return
func.func @nested_yielded(%c: i1, %d: i1, %x: memref<8xf32>) {
  %r = scf.if %c -> memref<8xf32> {
    %a = hostir.allocate device : memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    %j = scf.if %d -> memref<8xf32> {
      %b = hostir.allocate device : memref<8xf32>
      scf.yield %b : memref<8xf32>
    } else {
      %e = hostir.allocate device : memref<8xf32>
      scf.yield %e : memref<8xf32>
    }
    scf.yield %j : memref<8xf32>
  }
  hostir.copy %x, %r : memref<8xf32>, memref<8xf32>
  return
}

// -----

// arith.select may return either buffer: both live until its last use.
// CHECK-LABEL: func.func @selected
// CHECK: %[[S:.*]] = arith.select
// CHECK-NEXT: hostir.copy %{{.*}}, %[[S]]
// CHECK-NEXT: hostir.deallocate
// CHECK-NEXT: hostir.deallocate
// CHECK-NEXT: return
func.func @selected(%c: i1, %x: memref<8xf32>) {
  %a = hostir.allocate device : memref<8xf32>
  %b = hostir.allocate device : memref<8xf32>
  %s = arith.select %c, %a, %b : memref<8xf32>
  hostir.copy %x, %s : memref<8xf32>, memref<8xf32>
  return
}
