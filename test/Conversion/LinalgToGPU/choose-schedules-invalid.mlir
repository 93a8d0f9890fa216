// Kernels no schedule computes get a diagnostic naming what stops them.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics --fuser-choose-gpu-kernel-schedules
// A chip without a description is refused.
// RUN: not fuser-opt %s -split-input-file --fuser-choose-gpu-kernel-schedules=chip=sm_91 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: no GPU description of chip 'sm_91' (known: sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_120, sm_120a)

module @program {
  module @kernels {
    func.func @copy(%in: memref<4096x65536xf32>, %out: memref<4096x65536xf32>) {
      %x = bufferization.to_tensor %in restrict : memref<4096x65536xf32> to tensor<4096x65536xf32>
      bufferization.materialize_in_destination %x in restrict writable %out : (tensor<4096x65536xf32>, memref<4096x65536xf32>) -> ()
      return
    }
  }
}

// -----

module @program {
  module @kernels {
    // expected-error @+1 {{kernel @declared has no body to compile for GPUs}}
    func.func private @declared(memref<4x4xf32>, memref<4x4xf32>)
  }
}

// -----

module @program {
  module @kernels {
    // expected-error @+1 {{kernel argument #0 has type 'memref<?x4xf32>': GPU kernels take buffers of static shape}}
    func.func @dynamic(%in: memref<?x4xf32>, %out: memref<?x4xf32>) {
      return
    }
  }
}

// -----

module @program {
  module @kernels {
    func.func @matmul(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %out: memref<64x64xf32>) {
      %x = bufferization.to_tensor %a restrict : memref<64x64xf32> to tensor<64x64xf32>
      %y = bufferization.to_tensor %b restrict : memref<64x64xf32> to tensor<64x64xf32>
      %e = tensor.empty() : tensor<64x64xf32>
      // expected-error @+1 {{'linalg.matmul' op has no GPU code generation (in kernel @matmul)}}
      %m = linalg.matmul ins(%x, %y : tensor<64x64xf32>, tensor<64x64xf32>) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
      bufferization.materialize_in_destination %m in restrict writable %out : (tensor<64x64xf32>, memref<64x64xf32>) -> ()
      return
    }
  }
}

// -----

module @program {
  module @kernels {
    // expected-note @+1 {{kernel @table cannot run on GPUs}}
    func.func @table(%out: memref<4xf32>) {
      // expected-error @+1 {{'arith.constant' op is a constant tensor that is not a splat}}
      %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
      bufferization.materialize_in_destination %c in restrict writable %out : (tensor<4xf32>, memref<4xf32>) -> ()
      return
    }
  }
}
