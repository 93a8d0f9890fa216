// Every diagnostic of the hostir types and ops.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{team size 0 must be at least 1}}
func.func private @f(%t: !hostir.team<0>)

// -----

func.func @f(%r: index) {
  // expected-error @+1 {{'hostir.team' op needs at least one mesh axis}}
  %t = hostir.team %r mesh = #fuser.mesh<[2]> axes = [] : !hostir.team<1>
  return
}

// -----

func.func @f(%r: index) {
  // expected-error @+1 {{'hostir.team' op mesh axis 1 is out of range for a mesh of 1 axes}}
  %t = hostir.team %r mesh = #fuser.mesh<[2]> axes = [1] : !hostir.team<2>
  return
}

// -----

func.func @f(%r: index) {
  // expected-error @+1 {{'hostir.team' op mesh axis 0 is listed twice}}
  %t = hostir.team %r mesh = #fuser.mesh<[2, 2]> axes = [0, 0] : !hostir.team<4>
  return
}

// -----

func.func @f(%r: index) {
  // expected-error @+1 {{'hostir.team' op team type has size 2 but mesh axes [0, 1] span 8 ranks}}
  %t = hostir.team %r mesh = #fuser.mesh<[2, 4]> axes = [0, 1] : !hostir.team<2>
  return
}

// -----

func.func @f(%c: index) {
  // expected-error @+1 {{'hostir.launch' op kernel @missing not found}}
  hostir.launch @missing blocks(%c, %c, %c) threads(%c, %c, %c)
  return
}

// -----

memref.global "private" @not_a_kernel : memref<4xf32>
func.func @f(%c: index) {
  // expected-error @+1 {{'hostir.launch' op kernel @not_a_kernel is not a function}}
  hostir.launch @not_a_kernel blocks(%c, %c, %c) threads(%c, %c, %c)
  return
}

// -----

func.func private @k(memref<4xf32>, memref<4xf32>)
func.func @f(%c: index, %a: memref<4xf32>) {
  // expected-error @+1 {{'hostir.launch' op kernel @k takes 2 arguments but the launch passes 1}}
  hostir.launch @k blocks(%c, %c, %c) threads(%c, %c, %c) args(%a : memref<4xf32>)
  return
}

// -----

func.func private @k(memref<4xf32>)
func.func @f(%c: index, %a: memref<8xf32>) {
  // expected-error @+1 {{'hostir.launch' op argument #0 has type 'memref<8xf32>' but kernel @k expects 'memref<4xf32>'}}
  hostir.launch @k blocks(%c, %c, %c) threads(%c, %c, %c) args(%a : memref<8xf32>)
  return
}

// -----

// A GPU kernel takes a pointer to a memref's first element: the offset may
// differ, nothing else.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<4x16xf32>) kernel {
      gpu.return
    }
  }
  func.func @f(%c: index, %a: memref<4x16xf32, strided<[32, 1], offset: ?>>) {
    // expected-error @+1 {{'hostir.launch' op argument #0 has type 'memref<4x16xf32, strided<[32, 1], offset: ?>>' but kernel @kernels::@k expects 'memref<4x16xf32>' at any offset}}
    hostir.launch @kernels::@k blocks(%c, %c, %c) threads(%c, %c, %c) args(%a : memref<4x16xf32, strided<[32, 1], offset: ?>>)
    return
  }
}

// -----

// A one-element parameter stands only for a memref of run-time strides.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<1xf32>) kernel {
      gpu.return
    }
  }
  func.func @f(%c: index, %a: memref<4x16xf32, strided<[16, 1], offset: ?>>) {
    // expected-error @+1 {{'hostir.launch' op argument #0 has type 'memref<4x16xf32, strided<[16, 1], offset: ?>>' but kernel @kernels::@k expects 'memref<1xf32>' at any offset}}
    hostir.launch @kernels::@k blocks(%c, %c, %c) threads(%c, %c, %c) args(%a : memref<4x16xf32, strided<[16, 1], offset: ?>>)
    return
  }
}

// -----

// The offset is the launch's to add.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<16xf32, strided<[1], offset: 16>>) kernel {
      gpu.return
    }
  }
  func.func @f(%c: index, %a: memref<16xf32, strided<[1], offset: 16>>) {
    // expected-error @+1 {{'hostir.launch' op kernel @kernels::@k parameter #0 has type 'memref<16xf32, strided<[1], offset: 16>>': a GPU kernel receives a pointer to a memref's first element, so its memref parameters have static sizes and strides and offset 0}}
    hostir.launch @kernels::@k blocks(%c, %c, %c) threads(%c, %c, %c) args(%a : memref<16xf32, strided<[1], offset: 16>>)
    return
  }
}

// -----

// A pointer carries no sizes.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @k(%a: memref<?xf32>) kernel {
      gpu.return
    }
  }
  func.func @f(%c: index, %a: memref<?xf32>) {
    // expected-error @+1 {{kernel @kernels::@k parameter #0 has type 'memref<?xf32>'}}
    hostir.launch @kernels::@k blocks(%c, %c, %c) threads(%c, %c, %c) args(%a : memref<?xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @helper(%a: memref<4xf32>) {
      gpu.return
    }
  }
  func.func @f(%c: index, %a: memref<4xf32>) {
    // expected-error @+1 {{'hostir.launch' op kernel @kernels::@helper is a gpu.func without the gpu.kernel attribute: only kernels can be launched}}
    hostir.launch @kernels::@helper blocks(%c, %c, %c) threads(%c, %c, %c) args(%a : memref<4xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "PTX">]
  func.func @f(%c: index) {
    // expected-error @+1 {{'hostir.launch' op kernel @kernels is a gpu.binary; name a kernel in it}}
    hostir.launch @kernels blocks(%c, %c, %c) threads(%c, %c, %c)
    return
  }
}

// -----

func.func @f(%a: memref<4x8xi32>, %b: memref<8x16xi32>, %o: memref<4x16xi32>) {
  // expected-error @+1 {{'hostir.matmul' op activation relu needs floating-point elements, got 'i32'}}
  hostir.matmul %a, %b, %o activation = relu : memref<4x8xi32>, memref<8x16xi32>, memref<4x16xi32>
  return
}

// -----

func.func @f(%x: memref<4x8xi32>, %w: memref<16x8xi32>, %o: memref<4x16xi32>) {
  // expected-error @+1 {{'hostir.linear' op activation gelu_tanh needs floating-point elements, got 'i32'}}
  hostir.linear %x, %w, %o activation = gelu_tanh : memref<4x8xi32>, memref<16x8xi32>, memref<4x16xi32>
  return
}

// -----

func.func @f(%a: memref<4x8xf32>, %b: memref<6x16xf32>, %o: memref<4x16xf32>) {
  // expected-error @+1 {{contracted sizes differ: lhs dim 1 (K) is 8 but rhs dim 0 (K) is 6}}
  hostir.matmul %a, %b, %o : memref<4x8xf32>, memref<6x16xf32>, memref<4x16xf32>
  return
}

// -----

func.func @f(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %o: memref<4x8xf32>) {
  // expected-error @+1 {{'hostir.matmul' op output shape [4, 8] differs from the computed shape [4, 16]}}
  hostir.matmul %a, %b, %o : memref<4x8xf32>, memref<8x16xf32>, memref<4x8xf32>
  return
}

// -----

func.func @f(%a: memref<4x8xf32>, %b: memref<8x16xf32>, %o: memref<4x16xf16>) {
  // expected-error @+1 {{'hostir.matmul' op output element type 'f16' differs from the inputs' 'f32'}}
  hostir.matmul %a, %b, %o : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf16>
  return
}

// -----

func.func @f(%a: memref<4x8xf32>, %w: memref<16x8xf32>, %b: memref<8xf32>, %o: memref<4x16xf32>) {
  // expected-error @+1 {{bias dim 0 is 8 but the weight has N = 16 output features}}
  hostir.linear %a, %w bias %b : memref<8xf32>, %o : memref<4x8xf32>, memref<16x8xf32>, memref<4x16xf32>
  return
}

// -----

func.func @f(%a: memref<4x8xf32>, %w: memref<16x8xf32>, %o: memref<4x8xf32>) {
  // expected-error @+1 {{'hostir.linear' op output shape [4, 8] differs from the computed shape [4, 16]}}
  hostir.linear %a, %w, %o : memref<4x8xf32>, memref<16x8xf32>, memref<4x8xf32>
  return
}

// -----

func.func @f(%a: memref<4xf32>, %b: memref<8xf16>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.allgather' op input element type 'f32' differs from output element type 'f16'}}
  %w = hostir.allgather %a, %b on %t backend = nccl : memref<4xf32>, memref<8xf16>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<2x4xf32, strided<[8, 1]>>, %b: memref<16xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.allgather' op input buffer 'memref<2x4xf32, strided<[8, 1]>>' has gaps; communication buffers must be dense}}
  %w = hostir.allgather %a, %b on %t backend = nccl : memref<2x4xf32, strided<[8, 1]>>, memref<16xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<4xf32>, %b: memref<4xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.allgather' op output has 4 elements but needs team size times the input's elements (input 4 elements, team of 2)}}
  %w = hostir.allgather %a, %b on %t backend = nccl : memref<4xf32>, memref<4xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<8xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.allreduce' op attribute 'backend' failed to satisfy constraint: communication library nccl or mpi (CUDA IPC moves data through the hostir.ipc_* ops and copies)}}
  %w = hostir.allreduce %a, %a on %t backend = cuda_ipc kind = sum : memref<8xf32>, memref<8xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<4xf32>, %b: memref<8xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.allgather' op attribute 'backend' failed to satisfy constraint: communication library nccl or mpi (CUDA IPC moves data through the hostir.ipc_* ops and copies)}}
  %w = hostir.allgather %a, %b on %t backend = cuda_ipc : memref<4xf32>, memref<8xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<4xf32>, %t: !hostir.team<2>, %p: index) {
  // expected-error @+1 {{'hostir.send' op attribute 'backend' failed to satisfy constraint: communication library nccl or mpi (CUDA IPC moves data through the hostir.ipc_* ops and copies)}}
  %w = hostir.send %a to %p on %t backend = cuda_ipc : memref<4xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<8xf32>, %b: memref<4xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.allreduce' op output has 4 elements but needs the same number of elements as the input (input 8 elements, team of 2)}}
  %w = hostir.allreduce %a, %b on %t backend = nccl kind = sum : memref<8xf32>, memref<4xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<8xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.reduce_scatter' op output has 8 elements but needs the input's elements divided by the team size (input 8 elements, team of 2)}}
  %w = hostir.reduce_scatter %a, %a on %t backend = nccl kind = sum : memref<8xf32>, memref<8xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<8xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.reduce' op root 2 is out of range for a team of 2}}
  %w = hostir.reduce %a, %a on %t backend = nccl kind = sum root = 2 : memref<8xf32>, memref<8xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<8xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.broadcast' op root -1 is out of range for a team of 2}}
  %w = hostir.broadcast %a, %a on %t backend = nccl root = -1 : memref<8xf32>, memref<8xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<8xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.gather' op output has 8 elements but needs team size times the input's elements}}
  %w = hostir.gather %a, %a on %t backend = mpi root = 0 : memref<8xf32>, memref<8xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<8xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.scatter' op output has 8 elements but needs the input's elements divided by the team size}}
  %w = hostir.scatter %a, %a on %t backend = mpi root = 0 : memref<8xf32>, memref<8xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<9xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.all_to_all' op output has 9 elements but needs as many elements as the input, a multiple of the team size}}
  %w = hostir.all_to_all %a, %a on %t backend = nccl : memref<9xf32>, memref<9xf32>, !hostir.team<2>
  return
}

// -----

func.func @f(%a: memref<8xf32>, %t: !hostir.team<2>) {
  %w = hostir.coalesce {
    // expected-error @+1 {{'hostir.allreduce' op cannot be coalesced; hostir.coalesce groups hostir.send and hostir.recv only}}
    %x = hostir.allreduce %a, %a on %t backend = nccl kind = sum : memref<8xf32>, memref<8xf32>, !hostir.team<2>
  }
  return
}

// -----

func.func @f(%a: memref<8xf32>, %t: !hostir.team<2>, %p: index) {
  %w = hostir.coalesce {
    // expected-error @+1 {{'hostir.send' op work handle is used inside hostir.coalesce; wait on the group's handle instead}}
    %s = hostir.send %a to %p on %t backend = nccl : memref<8xf32>, !hostir.team<2>
    hostir.wait %s for %a : memref<8xf32>
  }
  return
}

// -----

func.func @f(%a: memref<8xf32>, %b: memref<4xf32>) {
  // expected-error @+1 {{'hostir.copy' op source 'memref<8xf32>' and target 'memref<4xf32>' differ in shape or element type}}
  hostir.copy %a, %b : memref<8xf32>, memref<4xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'hostir.allocate' op has 0 dynamic sizes for 1 dynamic dims of 'memref<?x4xf32>'}}
  %a = hostir.allocate device : memref<?x4xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'hostir.allocate' op symmetric buffers are shared whole across ranks and need the identity layout, got 'memref<4x4xf32, strided<[1, 4]>>'}}
  %a = hostir.allocate symmetric : memref<4x4xf32, strided<[1, 4]>>
  return
}

// -----

// The runtime has no code for i16 buffers.
func.func @f() {
  // expected-error @+1 {{'hostir.allocate' op result #0 must be memref of an element type the runtime holds (f32, f16, bf16, f64, i64, i32, i8 or i1), but got 'memref<4xi16>'}}
  %a = hostir.allocate device : memref<4xi16>
  return
}

// -----

func.func @f(%b: memref<8x4xf32>, %i: index) {
  // expected-error @+1 {{'hostir.alias_select' op view element type 'f16' differs from the buffer's 'f32'}}
  %v = hostir.alias_select %b[%i] dim = 0 chunks = 2 : memref<8x4xf32> -> memref<4x4xf16>
  return
}

// -----

func.func @f(%b: memref<8x4xf32>, %i: index) {
  // expected-error @+1 {{'hostir.alias_select' op dim 2 is out of range for rank 2}}
  %v = hostir.alias_select %b[%i] dim = 2 chunks = 2 : memref<8x4xf32> -> memref<4x4xf32>
  return
}

// -----

func.func @f(%b: memref<8x4xf32>, %i: index) {
  // expected-error @+1 {{'hostir.alias_select' op chunks must be at least 1, got 0}}
  %v = hostir.alias_select %b[%i] dim = 0 chunks = 0 : memref<8x4xf32> -> memref<4x4xf32>
  return
}

// -----

func.func @f(%b: memref<8x4xf32>, %i: index) {
  // expected-error @+1 {{'hostir.alias_select' op view rank 1 differs from buffer rank 2}}
  %v = hostir.alias_select %b[%i] dim = 0 chunks = 2 : memref<8x4xf32> -> memref<16xf32>
  return
}

// -----

func.func @f(%b: memref<8x4xf32>, %i: index) {
  // expected-error @+1 {{'hostir.alias_select' op dim 0 of size 8 does not split into 3 chunks}}
  %v = hostir.alias_select %b[%i] dim = 0 chunks = 3 : memref<8x4xf32> -> memref<2x4xf32>
  return
}

// -----

func.func @f(%b: memref<8x4xf32>, %i: index) {
  // expected-error @+1 {{'hostir.alias_select' op view shape [4, 4] differs from the chunk shape [2, 4]}}
  %v = hostir.alias_select %b[%i] dim = 0 chunks = 4 : memref<8x4xf32> -> memref<4x4xf32>
  return
}

// -----

func.func @f(%b: memref<4xf32>, %t: !hostir.team<2>) {
  // expected-error @+1 {{'hostir.ipc_share' op failed to verify that handles describe the shared buffer's type}}
  %h = "hostir.ipc_share"(%b, %t) : (memref<4xf32>, !hostir.team<2>) -> !hostir.ipc_handles<memref<8xf32>>
  return
}

// -----

func.func @f(%h: !hostir.ipc_handles<memref<4xf32>>, %p: index) {
  // expected-error @+1 {{'hostir.ipc_peer_buffer' op failed to verify that the view has the shared buffer's type}}
  %v = "hostir.ipc_peer_buffer"(%h, %p) : (!hostir.ipc_handles<memref<4xf32>>, index) -> memref<8xf32>
  return
}

// -----

func.func @f(%w: !hostir.work) {
  // expected-error @+1 {{'hostir.wait' op waits on a work handle that no communication of this program posted}}
  hostir.wait %w
  return
}

// -----

// A handle passed out of a branch hides the buffers the communication
// still uses.
func.func @f(%a: memref<4xf32>, %b: memref<8xf32>, %t: !hostir.team<2>, %c: i1) {
  %w = scf.if %c -> !hostir.work {
    %x = hostir.allgather %a, %b on %t backend = nccl : memref<4xf32>, memref<8xf32>, !hostir.team<2>
    scf.yield %x : !hostir.work
  } else {
    %y = hostir.allgather %a, %b on %t backend = nccl : memref<4xf32>, memref<8xf32>, !hostir.team<2>
    scf.yield %y : !hostir.work
  }
  // expected-error @+1 {{'hostir.wait' op waits on a work handle that no communication of this program posted}}
  hostir.wait %w
  return
}

// -----

func.func @f(%a: memref<4xf32>, %b: memref<8xf32>, %t: !hostir.team<2>) {
  %w = hostir.allgather %a, %b on %t backend = nccl : memref<4xf32>, memref<8xf32>, !hostir.team<2>
  // expected-error @+1 {{'hostir.wait' op must name the buffers its communication uses: the 2 memref operands of 'hostir.allgather' in order, not these 1}}
  hostir.wait %w for %a : memref<4xf32>
  return
}

// -----

func.func @f(%a: memref<4xf32>, %b: memref<8xf32>, %t: !hostir.team<2>) {
  %w = hostir.allgather %a, %b on %t backend = nccl : memref<4xf32>, memref<8xf32>, !hostir.team<2>
  // expected-error @+1 {{'hostir.wait' op must name the buffers its communication uses: the 2 memref operands of 'hostir.allgather' in order, not these 2}}
  hostir.wait %w for %b, %a : memref<8xf32>, memref<4xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'hostir.get_cached_buffer' op no hostir.cached_buffer named @missing}}
  %b = hostir.get_cached_buffer @missing : memref<8xf32>
  return
}

// -----

hostir.cached_buffer @buffer device : memref<8xf32>
func.func @f() {
  // expected-error @+1 {{'hostir.get_cached_buffer' op result type 'memref<4xf32>' differs from the cached buffer's 'memref<8xf32>'}}
  %b = hostir.get_cached_buffer @buffer : memref<4xf32>
  return
}

// -----

// expected-error @+1 {{'hostir.cached_buffer' op storage must be a static 1-D buffer of bytes (memref<Nxi8>), not 'memref<8xf32>'}}
hostir.cached_buffer @turns device storage : memref<8xf32>

// -----

hostir.cached_buffer @turns device storage : memref<32xi8>
func.func @f() {
  // expected-error @+1 {{'hostir.get_cached_buffer' op result type 'memref<4x4xf32>' takes 64 bytes, more than the 32 of the cached buffer}}
  %b = hostir.get_cached_buffer @turns : memref<4x4xf32>
  return
}

// -----

hostir.cached_buffer @turns device storage : memref<64xi8>
func.func @f() {
  // expected-error @+1 {{'hostir.get_cached_buffer' op a view of the storage @turns needs a static, dense type at offset 0, not 'memref<2x4xf32, strided<[8, 1]>>'}}
  %b = hostir.get_cached_buffer @turns : memref<2x4xf32, strided<[8, 1]>>
  return
}

// -----

hostir.cached_buffer @turns device storage : memref<64xi8>
func.func @f() {
  // expected-error @+1 {{'hostir.get_cached_buffer' op a view of the storage @turns needs a static, dense type at offset 0, not 'memref<4xf32, strided<[1], offset: 4>>'}}
  %b = hostir.get_cached_buffer @turns : memref<4xf32, strided<[1], offset: 4>>
  return
}

// -----

hostir.cached_buffer @turns device storage : memref<64xi8>
func.func @f() {
  // expected-error @+1 {{'hostir.get_cached_buffer' op result type 'memref<4xf32, 1>' is in another memory space than the cached buffer's 'memref<64xi8>'}}
  %b = hostir.get_cached_buffer @turns : memref<4xf32, 1>
  return
}

// -----

func.func @f(%in: memref<2x8xf32>, %out: memref<8xf16>) {
  // expected-error @+1 {{'hostir.reduce_blocks' op input element type 'f32' differs from output element type 'f16'}}
  hostir.reduce_blocks %in, %out kind = sum : memref<2x8xf32>, memref<8xf16>
  return
}

// -----

func.func @f(%in: memref<?x8xf32>, %out: memref<8xf32>) {
  // expected-error @+1 {{'hostir.reduce_blocks' op input buffer 'memref<?x8xf32>' needs a static shape}}
  hostir.reduce_blocks %in, %out kind = sum : memref<?x8xf32>, memref<8xf32>
  return
}

// -----

func.func @f(%in: memref<2x8xf32, strided<[16, 1]>>, %out: memref<8xf32>) {
  // expected-error @+1 {{'hostir.reduce_blocks' op input buffer 'memref<2x8xf32, strided<[16, 1]>>' has gaps; reduce_blocks needs dense buffers}}
  hostir.reduce_blocks %in, %out kind = sum : memref<2x8xf32, strided<[16, 1]>>, memref<8xf32>
  return
}

// -----

func.func @f(%in: memref<f32>, %out: memref<f32>) {
  // expected-error @+1 {{'hostir.reduce_blocks' op input 'memref<f32>' has no leading dim of blocks}}
  hostir.reduce_blocks %in, %out kind = sum : memref<f32>, memref<f32>
  return
}

// -----

func.func @f(%in: memref<2x8xf32>, %out: memref<16xf32>) {
  // expected-error @+1 {{'hostir.reduce_blocks' op output has 16 elements but a block of the input has 8}}
  hostir.reduce_blocks %in, %out kind = sum : memref<2x8xf32>, memref<16xf32>
  return
}

// -----

func.func @f(%q: memref<1x2x64x32xf32>, %o: memref<1x2x32x32xf32>, %lse: memref<1x2x64xf32>, %i: index) {
  // expected-error @+1 {{'hostir.sdpa' op output has shape [1, 2, 32, 32] but attention gives [1, 2, 64, 32]}}
  hostir.sdpa %q, %q, %q, %o, %lse at [%i, %i] scale = 1.0 : memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x32x32xf32>, memref<1x2x64xf32>
  return
}

// -----

func.func @f(%q: memref<1x2x64x32xf32>, %lse: memref<1x2x64xf16>, %i: index) {
  // expected-error @+1 {{'hostir.sdpa' op log-sum-exp has element type 'f16', expected 'f32'}}
  hostir.sdpa %q, %q, %q, %q, %lse at [%i, %i] scale = 1.0 : memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64xf16>
  return
}

// -----

func.func @f(%q: memref<1x2x64x32xf32>, %lse: memref<1x2x64xf32>, %i: index) {
  // expected-error @+1 {{'hostir.sdpa' op dropout probability must be in [0, 1), got -1.000000e-01}}
  hostir.sdpa %q, %q, %q, %q, %lse at [%i, %i] scale = 1.0 dropout = -0.1 : memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64xf32>
  return
}

// -----

func.func @f(%q: memref<1x2x64x32xf32>, %k: memref<1x2x64x32xbf16>, %lse: memref<1x2x64xf32>, %i: index) {
  // expected-error @+1 {{attention key element type 'bf16' differs from the query's 'f32'}}
  hostir.sdpa %q, %k, %k, %q, %lse at [%i, %i] scale = 1.0 : memref<1x2x64x32xf32>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xf32>, memref<1x2x64xf32>
  return
}

// -----

func.func @f(%q: memref<1x2x64x32xf32>, %dk: memref<1x2x64x16xf32>, %lse: memref<1x2x64xf32>, %i: index) {
  // expected-error @+1 {{'hostir.sdpa_backward' op key gradient has shape [1, 2, 64, 16] but attention gives [1, 2, 64, 32]}}
  hostir.sdpa_backward %q, %q, %q, %q, %q, %lse, %q, %dk, %q at [%i, %i] scale = 1.0 : memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64xf32>, memref<1x2x64x32xf32>, memref<1x2x64x16xf32>, memref<1x2x64x32xf32>
  return
}

// -----

func.func @f(%q: memref<1x2x64x32xf32>, %o: memref<1x2x64x16xf32>, %lse: memref<1x2x64xf32>, %i: index) {
  // expected-error @+1 {{attention output has shape [1, 2, 64, 16] but the forward gives [1, 2, 64, 32]}}
  hostir.sdpa_backward %q, %q, %q, %o, %q, %lse, %q, %q, %q at [%i, %i] scale = 1.0 : memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x16xf32>, memref<1x2x64x32xf32>, memref<1x2x64xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>, memref<1x2x64x32xf32>
  return
}
