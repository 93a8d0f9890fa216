// Tensor-parallel MLP from annotated weights to single-axis communications:
// column-parallel then row-parallel linear, exactly one allreduce.
// RUN: fuser-opt %s -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings,fuser-verify-stage))' -mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @tp_mlp
// CHECK-NOT: fuser.comm
// CHECK: fuser.linear {{.*}} -> tensor<8x256xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK-NOT: fuser.comm
// CHECK: fuser.gelu
// CHECK-NOT: fuser.comm
// CHECK: %[[Y:.*]] = fuser.linear {{.*}} partial = {0 : sum}>>
// CHECK: %[[R:.*]] = fuser.comm.allreduce %[[Y]] axis = 0
// CHECK-NOT: fuser.comm
// CHECK: return %[[R]]
#mesh = #fuser.mesh<[2]>
func.func @tp_mlp(%x: tensor<8x64xf32>,
                  %w1: tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>,
                  %w2: tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x64xf32> {
  %h = fuser.linear %x, %w1 : (tensor<8x64xf32>, tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x256xf32>
  %a = fuser.gelu %h approximation = tanh : tensor<8x256xf32> -> tensor<8x256xf32>
  %y = fuser.linear %a, %w2 : (tensor<8x256xf32>, tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
