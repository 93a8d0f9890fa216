// RUN: fuser-opt %s --fuser-lower-kernels-to-linalg -verify-diagnostics

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
