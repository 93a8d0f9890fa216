// Sequence-parallel MLP with dropout and residual: the sequence-split input
// is gathered before the first linear, the partial output reduce-scattered
// back to the sequence split, and the dropout mask (a creation op) and the
// residual add get their shardings by backward propagation.
// RUN: fuser-opt %s -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings,fuser-verify-stage))' -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s --fuser-to-hostir-pipeline -mlir-print-local-scope | FileCheck %s --check-prefix=HOST

// From annotated input to the host program: the dropout mask is drawn by
// the kernel that applies it after the reduce-scatter (drawing it again is
// cheaper than a buffer of it), which receives the rank's index along the
// mesh axis, so each rank draws the rows of the global mask it holds.
// HOST-LABEL: func.func @sp_mlp
// HOST-SAME: (%[[X:.*]]: memref<4x64xf32>, %{{.*}}: memref<128x64xf32>, %{{.*}}: memref<64x128xf32>) -> memref<4x64xf32>
// HOST: hostir.allgather %[[X]]
// HOST: hostir.linear
// HOST: hostir.launch @kernels::@sp_mlp_kernel_0
// HOST: hostir.linear
// HOST: hostir.reduce_scatter
// HOST: %[[TEAM:.*]] = hostir.team %{{.*}} mesh = #fuser.mesh<[2]> axes = [0]
// HOST: %[[POS:.*]] = hostir.team_index %[[TEAM]]
// HOST: hostir.launch @kernels::@sp_mlp_kernel_1 {{.*}} args(%{{.*}}, %[[X]], %{{.*}}, %[[POS]] : memref<4x64xf32>, memref<4x64xf32>, memref<4x64xf32>, index)
// HOST-NOT: hostir.launch
// HOST: func.func @sp_mlp_kernel_1(%{{.*}}: memref<4x64xf32>, %{{.*}}: memref<4x64xf32>, %{{.*}}: memref<4x64xf32>, %[[P:.*]]: index {fuser.mesh_position = #fuser.mesh_position<#fuser.mesh<[2]>, 0>})
// HOST: %[[ROWS:.*]] = arith.muli %[[P]], %{{.*}}
// HOST: fuser.uniform {{.*}} at[%[[ROWS]], %{{.*}}] : tensor<4x64xf32>

// CHECK-LABEL: func.func @sp_mlp
// CHECK-SAME: -> tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: %[[G:.*]] = fuser.comm.allgather %{{.*}} axis = 0 : {{.*}}{{\[}}[0], []]>> -> {{.*}}{{\[}}[], []]>>
// CHECK: fuser.linear %[[G]]
// CHECK: fuser.gelu
// CHECK: %[[Y:.*]] = fuser.linear {{.*}} partial = {0 : sum}>>
// CHECK: %[[MASK:.*]] = fuser.uniform {{.*}} : tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: %[[RS:.*]] = fuser.comm.reduce_scatter %[[Y]] axis = 0 : {{.*}} -> {{.*}}{{\[}}[0], []]>>
// CHECK: %[[D:.*]] = fuser.mul %[[RS]], %[[MASK]] : {{.*}} -> {{.*}}{{\[}}[0], []]>>
// CHECK: fuser.add %[[D]], %{{.*}} : {{.*}} -> {{.*}}{{\[}}[0], []]>>
// CHECK-NOT: fuser.comm
#mesh = #fuser.mesh<[2]>
func.func @sp_mlp(%x: tensor<8x64xf32, #fuser.sharding<#mesh, [[0], []]>>,
                  %w1: tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>,
                  %w2: tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x64xf32> {
  %h = fuser.linear %x, %w1 : (tensor<8x64xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x256xf32>
  %a = fuser.gelu %h : tensor<8x256xf32> -> tensor<8x256xf32>
  %y = fuser.linear %a, %w2 : (tensor<8x256xf32>, tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x64xf32>
  %mask = fuser.uniform low = 0.0, high = 1.0, seed = 7 : tensor<8x64xf32>
  %d = fuser.mul %y, %mask : (tensor<8x64xf32>, tensor<8x64xf32>) -> tensor<8x64xf32>
  %r = fuser.add %d, %x : (tensor<8x64xf32>, tensor<8x64xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}
