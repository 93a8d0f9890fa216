// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(hostir-assign-streams))' -verify-diagnostics | FileCheck %s
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(hostir-assign-streams{streams=2}))' -verify-diagnostics | FileCheck %s --check-prefix=TWO

// Iteration i of a stream-parallel loop runs on pool stream i: all streams
// first wait for the current one in a loop of their own, and the current
// stream joins them after.
// CHECK-LABEL: func.func @pipeline
// CHECK: %[[MAIN:.*]] = hostir.get_current_stream
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %[[N:.*]] step
// CHECK-NEXT: %[[S:.*]] = hostir.stream_from_pool %[[I]]
// CHECK-NEXT: hostir.set_current_stream %[[S]]
// CHECK-NEXT: hostir.synchronize_stream %[[MAIN]]
// CHECK: scf.for %[[J:.*]] =
// CHECK-NEXT: %[[T:.*]] = hostir.stream_from_pool %[[J]]
// CHECK-NEXT: hostir.set_current_stream %[[T]]
// CHECK: hostir.copy
// CHECK-NOT: hostir.stream_parallel
// CHECK: hostir.set_current_stream %[[MAIN]]
// CHECK-NEXT: scf.for %[[K:.*]] = %{{.*}} to %[[N]]
// CHECK-NEXT: %[[U:.*]] = hostir.stream_from_pool %[[K]]
// CHECK-NEXT: hostir.synchronize_stream %[[U]]
// With fewer streams than iterations, iteration i uses stream i mod 2.
// TWO-LABEL: func.func @pipeline
// TWO: %[[P:.*]] = arith.constant 2 : index
// TWO: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
// TWO: scf.for %[[I:.*]] =
// TWO-NEXT: %[[R:.*]] = arith.remui %[[I]], %[[P]]
// TWO-NEXT: hostir.stream_from_pool %[[R]]
func.func @pipeline(%x: memref<8xf32>, %y: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  scf.for %i = %c0 to %c4 step %c1 {
    %a = hostir.alias_select %x[%i] dim = 0 chunks = 4 : memref<8xf32> -> memref<2xf32, strided<[1], offset: ?>>
    %b = hostir.alias_select %y[%i] dim = 0 chunks = 4 : memref<8xf32> -> memref<2xf32, strided<[1], offset: ?>>
    hostir.copy %a, %b : memref<2xf32, strided<[1], offset: ?>>, memref<2xf32, strided<[1], offset: ?>>
  } {hostir.stream_parallel}
  return
}

// -----

func.func @dynamic(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{a stream-parallel loop must run from 0 in steps of 1 to a constant}}
  scf.for %i = %c0 to %n step %c1 {
  } {hostir.stream_parallel}
  return
}
