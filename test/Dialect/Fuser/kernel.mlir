// fuser.kernel and its kernel module round-trip; invalid uses are reported.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @launch
// CHECK: %[[R:.*]] = fuser.kernel @kernels::@scale(%{{.*}}) : (tensor<8x4xf32, {{.*}}) -> tensor<8x4xf32, {{.*}}
// CHECK: return %[[R]]
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
func.func @launch(%x: tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows> {
  %0 = fuser.kernel @kernels::@scale(%x) : (tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  return %0 : tensor<8x4xf32, #rows>
}
module @kernels {
  func.func private @scale(memref<4x4xf32>, memref<4x4xf32>)
}

// -----

func.func @not_a_function(%x: tensor<8xf32>) {
  // expected-error @+1 {{'fuser.kernel' op kernel @nothing is not a function}}
  %0 = fuser.kernel @nothing(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func private @one_buffer(memref<8xf32>)
func.func @buffer_count(%x: tensor<8xf32>) {
  // expected-error @+1 {{'fuser.kernel' op kernel @one_buffer takes 1 arguments but the op has 2 operands and results}}
  %0 = fuser.kernel @one_buffer(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

// The buffers are the local pieces: 4 elements per rank here.
#mesh = #fuser.mesh<[2]>
func.func private @global_buffers(memref<8xf32>, memref<8xf32>)
func.func @local_pieces(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.kernel' op kernel buffer #0 has type 'memref<8xf32>' but the local piece is 'memref<4xf32>'}}
  %0 = fuser.kernel @global_buffers(%x) : (tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

// Arguments after the buffers are the rank's positions, marked as such.
func.func @unmarked_index(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'fuser.kernel' op kernel @kernels::@extra argument #2 is neither the buffer of an operand or result nor an index marked fuser.mesh_position}}
  %0 = fuser.kernel @kernels::@extra(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
module @kernels {
  func.func @extra(%in: memref<8xf32>, %out: memref<8xf32>, %r: index) {
    return
  }
}
