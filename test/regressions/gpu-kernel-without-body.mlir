// A kernel module that only declares a kernel (as host lowering's tests
// write them) has nothing to compile for GPUs: a diagnostic, where the
// schedule used to read the body the kernel does not have.
// RUN: not fuser-opt %s --convert-fuser-to-linalg --fuser-copies-to-kernels --fuser-choose-gpu-kernel-schedules --fuser-emit-gpu-kernels 2>&1 | FileCheck %s

// CHECK: error: kernel @scale has no body to compile for GPUs
#rows = #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>
module {
  func.func @scale(%x: tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows> {
    %0 = fuser.kernel @kernels::@scale(%x) : (tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
    return %0 : tensor<8x4xf32, #rows>
  }
  module @kernels {
    func.func private @scale(memref<4x4xf32>, memref<4x4xf32>)
  }
}
