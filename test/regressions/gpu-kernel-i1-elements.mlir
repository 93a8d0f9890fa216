// A kernel writing i1 elements is scheduled one element at a time: vectors
// of i1 are packed bits, not the bytes a memref of i1 holds (it used to
// build a vector access aligned to 0 bytes and abort).
// RUN: fuser-opt %s --convert-linalg-to-fuser --fuser-to-hostir-pipeline --convert-fuser-to-linalg --fuser-copies-to-kernels --fuser-choose-gpu-kernel-schedules --fuser-emit-gpu-kernels | FileCheck %s

// CHECK-LABEL: gpu.func @creation_kernel_0
// CHECK-NOT: vector.transfer_write
// CHECK: memref.store {{.*}} : memref<1x2xi1>
#rows = #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>
func.func @creation() -> tensor<2x2xi1, #rows> {
  %0 = arith.constant dense<true> : tensor<2x2xi1, #rows>
  return %0 : tensor<2x2xi1, #rows>
}
