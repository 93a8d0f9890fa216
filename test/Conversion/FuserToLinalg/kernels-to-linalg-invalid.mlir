// RUN: fuser-opt %s --convert-fuser-to-linalg -split-input-file -verify-diagnostics

// Library calls are segments of their own; a kernel never holds one.
module @program {
  module @kernels {
    func.func @library_call(%a: memref<4x8xf32>, %b: memref<8x2xf32>, %out: memref<4x2xf32>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x8xf32> to tensor<4x8xf32>
      %1 = bufferization.to_tensor %b restrict : memref<8x2xf32> to tensor<8x2xf32>
      // expected-error @+1 {{the CPU code generator does not handle this op yet}}
      %2 = fuser.matmul %0, %1 : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
      bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<4x2xf32>, memref<4x2xf32>) -> ()
      return
    }
  }
}

// -----

// Reshapes go through one flat line, which needs every size.
module @program {
  module @kernels {
    func.func @dynamic_squeeze(%a: memref<4x1x?xf32>, %out: memref<4x?xf32>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x1x?xf32> to tensor<4x1x?xf32>
      // expected-error @+2 {{failed to legalize operation 'fuser.squeeze'}}
      // expected-error @+1 {{'fuser.squeeze' op in a kernel needs static shapes: reshaping 'tensor<4x1x?xf32>' into 'tensor<4x?xf32>' is not implemented yet}}
      %1 = fuser.squeeze %0 dims = [1] : tensor<4x1x?xf32> -> tensor<4x?xf32>
      bufferization.materialize_in_destination %1 in restrict writable %out : (tensor<4x?xf32>, memref<4x?xf32>) -> ()
      return
    }
  }
}
