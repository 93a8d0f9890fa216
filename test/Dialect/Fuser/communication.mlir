// Every fuser.comm op with the shardings its kind requires.
// RUN: fuser-opt %s -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s | fuser-opt -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s -mlir-print-op-generic | fuser-opt -mlir-print-local-scope | FileCheck %s

#mesh = #fuser.mesh<[2]>
#root0 = #fuser.mesh<[1]>
#root1 = #fuser.mesh<[1], devices = [1]>
#other = #fuser.mesh<[2], devices = [2, 3]>
#mesh22 = #fuser.mesh<[2, 2]>

// CHECK-LABEL: func.func @same_mesh
func.func @same_mesh(
    %rows: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>,
    %partial: tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>>) {
  // CHECK: fuser.comm.allgather %{{.*}} axis = 0 : tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
  %0 = fuser.comm.allgather %rows axis = 0
      : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  // CHECK: fuser.comm.all_slice %{{.*}} axis = 0 : tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>> -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
  %slice = fuser.comm.all_slice %0 axis = 0
      : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
  // CHECK: fuser.comm.allreduce %{{.*}} axis = 0 : tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : sum}>> -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
  %1 = fuser.comm.allreduce %partial axis = 0
      : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  // CHECK: fuser.comm.reduce_scatter %{{.*}} axis = 0 : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
  %2 = fuser.comm.reduce_scatter %partial axis = 0
      : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
  // CHECK: fuser.comm.all_to_all %{{.*}} axis = 0 : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
  %3 = fuser.comm.all_to_all %rows axis = 0
      : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
  return
}

// CHECK-LABEL: func.func @root_slices
func.func @root_slices(
    %rows: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>,
    %partial: tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : max}>>,
    %on_root0: tensor<8x4xf32, #fuser.sharding<#root0, [[], []]>>,
    %on_root1: tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>>) {
  // CHECK: fuser.comm.gather %{{.*}} axis = 0 root = 1 : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1], devices = [1]>, {{\[}}[], []]>>
  %0 = fuser.comm.gather %rows axis = 0 root = 1
      : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>>
  // CHECK: fuser.comm.scatter %{{.*}} axis = 0 root = 0 : tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1]>, {{\[}}[], []]>> -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
  %1 = fuser.comm.scatter %on_root0 axis = 0 root = 0
      : tensor<8x4xf32, #fuser.sharding<#root0, [[], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
  // CHECK: fuser.comm.broadcast %{{.*}} axis = 0 root = 1 : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
  %2 = fuser.comm.broadcast %on_root1 axis = 0 root = 1
      : tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  // CHECK: fuser.comm.reduce %{{.*}} axis = 0 root = 0 : tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : max}>> -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1]>, {{\[}}[], []]>>
  %3 = fuser.comm.reduce %partial axis = 0 root = 0
      : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : max}>> -> tensor<8x4xf32, #fuser.sharding<#root0, [[], []]>>
  return
}

// CHECK-LABEL: func.func @mesh_to_mesh
func.func @mesh_to_mesh(%rows: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) {
  // CHECK: fuser.comm.send_recv %{{.*}} : {{.*}} -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2], devices = [2, 3]>, {{\[}}[0], []]>>
  %0 = fuser.comm.send_recv %rows
      : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#other, [[0], []]>>
  return
}

// Between meshes of different shapes the dim shardings may differ too.
// CHECK-LABEL: func.func @mesh_to_other_shape
func.func @mesh_to_other_shape(%rows: tensor<6x4xf32, #fuser.sharding<#fuser.mesh<[3]>, [[0], []]>>) {
  // CHECK: fuser.comm.send_recv %{{.*}} : {{.*}} -> tensor<6x4xf32, #fuser.sharding<#fuser.mesh<[1], devices = [3]>, {{\[}}[], []]>>
  %0 = fuser.comm.send_recv %rows
      : tensor<6x4xf32, #fuser.sharding<#fuser.mesh<[3]>, [[0], []]>> -> tensor<6x4xf32, #fuser.sharding<#fuser.mesh<[1], devices = [3]>, [[], []]>>
  return
}

// One axis of a 2-D mesh at a time; the other axis's placement is kept.
// CHECK-LABEL: func.func @two_d_mesh
func.func @two_d_mesh(
    %both: tensor<8x8xf32, #fuser.sharding<#mesh22, [[0, 1], []]>>,
    %partial: tensor<8x8xf32, #fuser.sharding<#mesh22, [[0], []], partial = {1 : sum}>>,
    %rows: tensor<8x8xf32, #fuser.sharding<#mesh22, [[0], []]>>) {
  // CHECK: fuser.comm.allgather %{{.*}} axis = 1 : {{.*}} -> tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[0], []]>>
  %0 = fuser.comm.allgather %both axis = 1
      : tensor<8x8xf32, #fuser.sharding<#mesh22, [[0, 1], []]>> -> tensor<8x8xf32, #fuser.sharding<#mesh22, [[0], []]>>
  // Gathering the outer axis leaves the inner one in place.
  // CHECK: fuser.comm.allgather %{{.*}} axis = 0 : {{.*}} -> tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[1], []]>>
  %1 = fuser.comm.allgather %both axis = 0
      : tensor<8x8xf32, #fuser.sharding<#mesh22, [[0, 1], []]>> -> tensor<8x8xf32, #fuser.sharding<#mesh22, [[1], []]>>
  // CHECK: fuser.comm.reduce_scatter %{{.*}} axis = 1 : {{.*}} -> tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[0, 1], []]>>
  %2 = fuser.comm.reduce_scatter %partial axis = 1
      : tensor<8x8xf32, #fuser.sharding<#mesh22, [[0], []], partial = {1 : sum}>> -> tensor<8x8xf32, #fuser.sharding<#mesh22, [[0, 1], []]>>
  // CHECK: fuser.comm.gather %{{.*}} axis = 0 root = 1 : {{.*}} -> tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[1, 2], devices = [2, 3]>, {{\[}}[], []]>>
  %3 = fuser.comm.gather %rows axis = 0 root = 1
      : tensor<8x8xf32, #fuser.sharding<#mesh22, [[0], []]>> -> tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[1, 2], devices = [2, 3]>, [[], []]>>
  return
}
