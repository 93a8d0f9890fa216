// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(hostir-place-deallocations))' -verify-diagnostics

// One branch may yield the caller's buffer: freeing the result could free
// it, and not freeing it leaks the allocation.
func.func @mixed_owners(%c: i1, %x: memref<8xf32>) {
  %y = scf.if %c -> memref<8xf32> {
    // expected-error @+1 {{cannot place the deallocation of this buffer: it flows through 'scf.if', which may also hold a buffer allocated elsewhere}}
    %a = hostir.allocate device : memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  hostir.copy %x, %y : memref<8xf32>, memref<8xf32>
  return
}

// -----

// A loop may carry the buffer from one iteration to the next.
func.func @loop_carried(%n: index, %x: memref<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{cannot place the deallocation of this buffer: it flows through 'scf.for', which may also hold a buffer allocated elsewhere}}
  %a = hostir.allocate device : memref<8xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%b = %a) -> memref<8xf32> {
    hostir.copy %x, %b : memref<8xf32>, memref<8xf32>
    scf.yield %b : memref<8xf32>
  }
  return
}

// -----

// The inner branch yields the caller's buffer on both paths: the outer
// result may be it, so it cannot free the allocation.
func.func @nested_caller_buffer(%c: i1, %d: i1, %x: memref<8xf32>) {
  %r = scf.if %c -> memref<8xf32> {
    // expected-error @+1 {{cannot place the deallocation of this buffer: it flows through 'scf.if', which may also hold a buffer allocated elsewhere}}
    %a = hostir.allocate device : memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    %j = scf.if %d -> memref<8xf32> {
      scf.yield %x : memref<8xf32>
    } else {
      scf.yield %x : memref<8xf32>
    }
    scf.yield %j : memref<8xf32>
  }
  hostir.copy %x, %r : memref<8xf32>, memref<8xf32>
  return
}
