// Data x tensor parallel MLP on a 2x2 mesh (axis 0: data, axis 1: tensor):
// the batch stays split over axis 0 throughout; the only communication is
// one allreduce over the tensor axis.
// RUN: fuser-opt %s -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings,fuser-verify-stage))' -mlir-print-local-scope | FileCheck %s

// CHECK-LABEL: func.func @dp_tp_mlp
// CHECK-SAME: -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[0], []]>>
// CHECK-NOT: fuser.comm
// CHECK: fuser.linear {{.*}} -> tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[0], [1]]>>
// CHECK: fuser.relu {{.*}} -> tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[0], [1]]>>
// CHECK: %[[Y:.*]] = fuser.linear {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[0], []], partial = {1 : sum}>>
// CHECK: fuser.comm.allreduce %[[Y]] axis = 1 : {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[0], []]>>
// CHECK-NOT: fuser.comm
#mesh = #fuser.mesh<[2, 2]>
func.func @dp_tp_mlp(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>,
                     %w1: tensor<64x16xf32, #fuser.sharding<#mesh, [[1], []]>>,
                     %w2: tensor<16x64xf32, #fuser.sharding<#mesh, [[], [1]]>>) -> tensor<8x16xf32> {
  %h = fuser.linear %x, %w1 : (tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<64x16xf32, #fuser.sharding<#mesh, [[1], []]>>) -> tensor<8x64xf32>
  %a = fuser.relu %h : tensor<8x64xf32> -> tensor<8x64xf32>
  %y = fuser.linear %a, %w2 : (tensor<8x64xf32>, tensor<16x64xf32, #fuser.sharding<#mesh, [[], [1]]>>) -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}
