// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(hostir-verify-program))' -verify-diagnostics

func.func @leak() {
  // expected-error @+1 {{buffer is never freed, cached or returned (stage 'hostir')}}
  %a = hostir.allocate device : memref<8xf32>
  return
}

// -----

func.func @use_after_free(%x: memref<8xf32>) {
  %a = hostir.allocate device : memref<8xf32>
  hostir.deallocate %a : memref<8xf32>
  // expected-error @+1 {{uses a buffer after it was freed (stage 'hostir')}}
  hostir.copy %x, %a : memref<8xf32>, memref<8xf32>
  return
}

// -----

func.func @view_after_free(%x: memref<4xf32>, %i: index) {
  %a = hostir.allocate device : memref<8xf32>
  %v = hostir.alias_select %a[%i] dim = 0 chunks = 2 : memref<8xf32> -> memref<4xf32, strided<[1], offset: ?>>
  hostir.deallocate %a : memref<8xf32>
  // expected-error @+1 {{uses a buffer after it was freed (stage 'hostir')}}
  hostir.copy %x, %v : memref<4xf32>, memref<4xf32, strided<[1], offset: ?>>
  return
}

// -----

func.func @double_free() {
  %a = hostir.allocate device : memref<8xf32>
  hostir.deallocate %a : memref<8xf32>
  // expected-error @+1 {{frees a buffer that is freed already (stage 'hostir')}}
  hostir.deallocate %a : memref<8xf32>
  return
}

// -----

func.func @fuser_left(%x: tensor<8xf32>) {
  // expected-error @+1 {{fuser op left in a host program (stage 'hostir')}}
  %0 = fuser.exp %x : tensor<8xf32> -> tensor<8xf32>
  return
}

// -----

// Signalling a peer about a freed shared buffer uses it after the free.
func.func @signal_after_free(%peer: index) {
  %r = hostir.rank : index
  %t = hostir.team %r mesh = #fuser.mesh<[2]> axes = [0] : !hostir.team<2>
  %b = hostir.allocate device : memref<8xf32>
  %h = hostir.ipc_share %b on %t : memref<8xf32>, !hostir.team<2>
  hostir.deallocate %b : memref<8xf32>
  // expected-error @+1 {{uses a buffer after it was freed (stage 'hostir')}}
  hostir.ipc_signal %h[%peer] : !hostir.ipc_handles<memref<8xf32>>
  return
}

// -----

// A buffer a branch yields is the branch result's: freeing nothing leaks
// both branches' buffers.
func.func @yielded_leak(%c: i1, %x: memref<8xf32>) {
  %y = scf.if %c -> memref<8xf32> {
    // expected-error @+1 {{buffer is never freed, cached or returned (stage 'hostir')}}
    %a = hostir.allocate device : memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    // expected-error @+1 {{buffer is never freed, cached or returned (stage 'hostir')}}
    %b = hostir.allocate device : memref<8xf32>
    scf.yield %b : memref<8xf32>
  }
  hostir.copy %x, %y : memref<8xf32>, memref<8xf32>
  return
}

// -----

// Freed inside its branch, the buffer is still used through the result,
// which frees it again.
func.func @freed_in_branch(%c: i1, %x: memref<8xf32>) {
  %y = scf.if %c -> memref<8xf32> {
    %a = hostir.allocate device : memref<8xf32>
    // expected-error @+1 {{frees a buffer through a value that does not own it (a view, or a buffer a branch yields) (stage 'hostir')}}
    hostir.deallocate %a : memref<8xf32>
    // expected-error @+1 {{uses a buffer after it was freed (stage 'hostir')}}
    scf.yield %a : memref<8xf32>
  } else {
    %b = hostir.allocate device : memref<8xf32>
    scf.yield %b : memref<8xf32>
  }
  hostir.copy %x, %y : memref<8xf32>, memref<8xf32>
  // expected-error @+1 {{frees a buffer that is freed already (stage 'hostir')}}
  hostir.deallocate %y : memref<8xf32>
  return
}

// -----

// One branch yields the caller's buffer: no value owns the allocation.
func.func @mixed_owners(%c: i1, %x: memref<8xf32>) {
  %y = scf.if %c -> memref<8xf32> {
    // expected-error @+1 {{buffer flows through 'scf.if', which may also hold a buffer allocated elsewhere (stage 'hostir')}}
    %a = hostir.allocate device : memref<8xf32>
    scf.yield %a : memref<8xf32>
  } else {
    scf.yield %x : memref<8xf32>
  }
  hostir.copy %x, %y : memref<8xf32>, memref<8xf32>
  return
}

// -----

func.func @free_of_view(%i: index) {
  %a = hostir.allocate device : memref<8xf32>
  %v = hostir.alias_select %a[%i] dim = 0 chunks = 2 : memref<8xf32> -> memref<4xf32, strided<[1], offset: ?>>
  // expected-error @+1 {{frees a buffer through a value that does not own it (a view, or a buffer a branch yields) (stage 'hostir')}}
  hostir.deallocate %v : memref<4xf32, strided<[1], offset: ?>>
  return
}
