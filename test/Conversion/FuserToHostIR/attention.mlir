// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(convert-fuser-to-hostir)' -mlir-print-local-scope | FileCheck %s

// Attention with its heads split over a mesh of 2: hostir.sdpa into fresh
// outputs, the batch offset 0 and the head offset the rank's team position
// times its 2 heads; the default scale is 1/sqrt(head dim).
// CHECK-LABEL: func.func @heads_split(
// CHECK-SAME: %[[Q:.*]]: memref<1x2x8x16xf32>, %[[K:.*]]: memref<1x2x8x16xf32>, %[[V:.*]]: memref<1x2x8x16xf32>)
// CHECK-DAG: %[[C0:.*]] = arith.constant 0 : index
// CHECK-DAG: %[[C2:.*]] = arith.constant 2 : index
// CHECK-DAG: %[[O:.*]] = hostir.allocate device : memref<1x2x8x16xf32>
// CHECK-DAG: %[[LSE:.*]] = hostir.allocate device : memref<1x2x8xf32>
// CHECK: %[[TEAM:.*]] = hostir.team %{{.*}} mesh = #fuser.mesh<[2]> axes = [0]
// CHECK: %[[POSITION:.*]] = hostir.team_index %[[TEAM]]
// CHECK: %[[BLOCK:.*]] = arith.addi %{{.*}}, %[[POSITION]]
// CHECK: %[[HEAD:.*]] = arith.muli %[[BLOCK]], %[[C2]]
// CHECK: hostir.sdpa %[[Q]], %[[K]], %[[V]], %[[O]], %[[LSE]] at[%[[C0]], %[[HEAD]]] causal scale = 2.500000e-01 dropout = 1.000000e-01 seed = 3
// CHECK: return %[[O]], %[[LSE]]
#mesh = #fuser.mesh<[2]>
#heads = #fuser.sharding<#mesh, [[], [0], [], []]>
#lse = #fuser.sharding<#mesh, [[], [0], []]>
module {
  func.func @heads_split(%q: tensor<1x4x8x16xf32, #heads>, %k: tensor<1x4x8x16xf32, #heads>, %v: tensor<1x4x8x16xf32, #heads>) -> (tensor<1x4x8x16xf32, #heads>, tensor<1x4x8xf32, #lse>) {
    %o, %lse = fuser.sdpa %q, %k, %v causal dropout = 0.1 seed = 3 : (tensor<1x4x8x16xf32, #heads>, tensor<1x4x8x16xf32, #heads>, tensor<1x4x8x16xf32, #heads>) -> (tensor<1x4x8x16xf32, #heads>, tensor<1x4x8xf32, #lse>)
    return %o, %lse : tensor<1x4x8x16xf32, #heads>, tensor<1x4x8xf32, #lse>
  }
}

// -----

// The backward: three fresh gradients, the forward's settings.
// CHECK-LABEL: func.func @backward(
// CHECK: %[[DQ:.*]] = hostir.allocate device : memref<1x4x8x16xf32>
// CHECK: %[[DK:.*]] = hostir.allocate device : memref<1x4x8x16xf32>
// CHECK: %[[DV:.*]] = hostir.allocate device : memref<1x4x8x16xf32>
// CHECK: hostir.sdpa_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[DQ]], %[[DK]], %[[DV]] at[%{{.*}}, %{{.*}}] scale = 5.000000e-01 :
// CHECK: return %[[DQ]], %[[DK]], %[[DV]]
#one = #fuser.mesh<[1]>
#whole = #fuser.sharding<#one, [[], [], [], []]>
#whole3 = #fuser.sharding<#one, [[], [], []]>
module {
  func.func @backward(%q: tensor<1x4x8x16xf32, #whole>, %o: tensor<1x4x8x16xf32, #whole>, %lse: tensor<1x4x8xf32, #whole3>) -> (tensor<1x4x8x16xf32, #whole>, tensor<1x4x8x16xf32, #whole>, tensor<1x4x8x16xf32, #whole>) {
    %dq, %dk, %dv = fuser.sdpa_backward %q, %q, %q, %o, %o, %lse scale = 0.5 : (tensor<1x4x8x16xf32, #whole>, tensor<1x4x8x16xf32, #whole>, tensor<1x4x8x16xf32, #whole>, tensor<1x4x8x16xf32, #whole>, tensor<1x4x8x16xf32, #whole>, tensor<1x4x8xf32, #whole3>) -> (tensor<1x4x8x16xf32, #whole>, tensor<1x4x8x16xf32, #whole>, tensor<1x4x8x16xf32, #whole>)
    return %dq, %dk, %dv : tensor<1x4x8x16xf32, #whole>, tensor<1x4x8x16xf32, #whole>, tensor<1x4x8x16xf32, #whole>
  }
}
