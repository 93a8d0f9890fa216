// RUN: fuser-opt %s --fuser-lower-kernels-to-linalg -verify-diagnostics

module @program {
  module @kernels {
    func.func @unsupported(%a: memref<4x8xf32>, %v: memref<4x1xf32>, %m: memref<4x1xf32>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x8xf32> to tensor<4x8xf32>
      // expected-error @+1 {{the CPU code generator does not handle this op yet}}
      %1:2 = fuser.var_mean %0 dims = [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>, tensor<4x1xf32>
      bufferization.materialize_in_destination %1#0 in restrict writable %v : (tensor<4x1xf32>, memref<4x1xf32>) -> ()
      return
    }
  }
}
