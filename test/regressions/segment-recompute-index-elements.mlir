// Recomputing across kernels weighs index elements at 8 bytes, as the
// runtime stores them, instead of asking index for a bit width, which it
// has none of (a fuzz mutant of segment.mlir crashed here). The kernel
// after the linear reads the f32 cast of the input from memory: computing
// it again would read the 8-byte index elements instead of 4-byte floats.
// RUN: fuser-opt %s -pass-pipeline='builtin.module(fuser-segment,func.func(fuser-verify-stage{stage=segmented}))' | FileCheck %s

// CHECK-LABEL: func.func @recompute_index_casts
// CHECK: %[[FIRST:.*]]:3 = fuser.kernel @kernels::@recompute_index_casts_kernel_0(%arg0)
// CHECK: %[[Y:.*]] = fuser.linear %[[FIRST]]#2
// CHECK: fuser.kernel @kernels::@recompute_index_casts_kernel_1(%[[Y]], %[[FIRST]]#0, %[[FIRST]]#1)
#mesh = #fuser.mesh<[2]>
#rep = #fuser.sharding<#mesh, [[], []]>
#rep1 = #fuser.sharding<#mesh, [[]]>
func.func @recompute_index_casts(%x: tensor<8x64xindex, #rep>, %w: tensor<64x64xindex, #rep>) -> (tensor<8x64xf32, #rep>, tensor<8x64xf32, #rep>) {
  %x32 = fuser.cast %x : tensor<8x64xindex, #rep> -> tensor<8x64xf32, #rep>
  %e = fuser.exp %x32 : tensor<8x64xf32, #rep> -> tensor<8x64xf32, #rep>
  %s = fuser.sum %e dims = [1] : tensor<8x64xf32, #rep> -> tensor<8xf32, #rep1>
  %b = fuser.broadcast %s dims = [0] : tensor<8xf32, #rep1> -> tensor<8x64xf32, #rep>
  %n = fuser.div %e, %b : (tensor<8x64xf32, #rep>, tensor<8x64xf32, #rep>) -> tensor<8x64xf32, #rep>
  %h = fuser.cast %n : tensor<8x64xf32, #rep> -> tensor<8x64xindex, #rep>
  %y = fuser.linear %h, %w : (tensor<8x64xindex, #rep>, tensor<64x64xindex, #rep>) -> tensor<8x64xindex, #rep>
  %y32 = fuser.cast %y : tensor<8x64xindex, #rep> -> tensor<8x64xf32, #rep>
  %r = fuser.mul %y32, %x32 : (tensor<8x64xf32, #rep>, tensor<8x64xf32, #rep>) -> tensor<8x64xf32, #rep>
  %q = fuser.mul %y32, %n : (tensor<8x64xf32, #rep>, tensor<8x64xf32, #rep>) -> tensor<8x64xf32, #rep>
  return %r, %q : tensor<8x64xf32, #rep>, tensor<8x64xf32, #rep>
}
