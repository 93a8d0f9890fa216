// Launches of GPU kernels: memrefs at any offset for parameters of offset 0
// (the kernel receives a pointer to the first element), one-element
// parameters for memrefs of run-time strides, and kernels of a compiled
// module, whose signatures are no longer visible.
// RUN: fuser-opt %s -split-input-file | fuser-opt | FileCheck %s

module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @add(%x: memref<4x16xf32>, %y: memref<16xf32>, %n: index) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @offsets
  func.func @offsets(%x: memref<4x16xf32, strided<[16, 1], offset: ?>>,
                     %y: memref<16xf32, strided<[1], offset: 16>>, %n: index) {
    %c1 = arith.constant 1 : index
    // CHECK: hostir.launch @kernels::@add blocks({{.*}}) threads({{.*}}) args(%{{.*}}, %{{.*}}, %{{.*}} : memref<4x16xf32, strided<[16, 1], offset: ?>>, memref<16xf32, strided<[1], offset: 16>>, index)
    hostir.launch @kernels::@add blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %y, %n : memref<4x16xf32, strided<[16, 1], offset: ?>>, memref<16xf32, strided<[1], offset: 16>>, index)
    return
  }
}

// -----

// Strides known only at run time: a one-element parameter, the strides
// passed as indices.
module attributes {gpu.container_module} {
  gpu.module @kernels {
    gpu.func @scale(%x: memref<1xbf16>, %row_stride: index) kernel {
      gpu.return
    }
  }
  // CHECK-LABEL: func.func @run_time_strides
  func.func @run_time_strides(%x: memref<64x1024xbf16, strided<[?, 1], offset: ?>>, %row_stride: index) {
    %c1 = arith.constant 1 : index
    // CHECK: hostir.launch @kernels::@scale blocks({{.*}}) threads({{.*}}) args(%{{.*}}, %{{.*}} : memref<64x1024xbf16, strided<[?, 1], offset: ?>>, index)
    hostir.launch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x, %row_stride : memref<64x1024xbf16, strided<[?, 1], offset: ?>>, index)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "PTX">]
  // CHECK-LABEL: func.func @compiled
  func.func @compiled(%x: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // CHECK: hostir.launch @kernels::@add blocks({{.*}}) threads({{.*}}) args(%{{.*}} : memref<8xf32>)
    hostir.launch @kernels::@add blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%x : memref<8xf32>)
    return
  }
}
