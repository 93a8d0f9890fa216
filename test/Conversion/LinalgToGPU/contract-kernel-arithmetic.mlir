// fuser-contract-kernel-arithmetic lets a GPU kernel's multiplies and adds
// fuse into FMAs, keeping any flag an op already has, and leaves integer
// arithmetic and code outside GPU modules alone.
// RUN: fuser-opt %s --pass-pipeline='builtin.module(gpu.module(fuser-contract-kernel-arithmetic))' | FileCheck %s

// CHECK-LABEL: gpu.module @kernels
gpu.module @kernels {
  // CHECK-LABEL: gpu.func @multiply_add
  gpu.func @multiply_add(%a: f32, %b: f32, %c: vector<4xf32>, %i: index) kernel {
    // CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : f32
    %product = arith.mulf %a, %b : f32
    // CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<contract> : f32
    %sum = arith.addf %product, %a : f32
    // CHECK: arith.subf %{{.*}}, %{{.*}} fastmath<nnan,contract> : f32
    %difference = arith.subf %sum, %b fastmath<nnan> : f32
    // CHECK: arith.mulf %{{.*}}, %{{.*}} fastmath<contract> : vector<4xf32>
    %scaled = arith.mulf %c, %c : vector<4xf32>
    // CHECK: arith.muli %{{.*}}, %{{.*}} : index
    %twice = arith.muli %i, %i : index
    gpu.return
  }
}

// CHECK-LABEL: func.func @host
func.func @host(%a: f32) -> f32 {
  // CHECK: arith.mulf %{{.*}}, %{{.*}} : f32
  %product = arith.mulf %a, %a : f32
  return %product : f32
}
