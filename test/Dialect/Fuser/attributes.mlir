// RUN: fuser-opt %s -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s | fuser-opt -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s -mlir-print-op-generic | fuser-opt -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s | FileCheck %s --check-prefix=ALIAS

// Meshes and shardings print as aliases so that tensor types stay short.
// ALIAS-DAG: #mesh = #fuser.mesh<[2]>
// ALIAS-DAG: #[[PERMUTED:mesh[0-9]+]] = #fuser.mesh<[2, 2], devices = [0, 2, 1, 3]>
// ALIAS-DAG: #[[SHARDED:sharding[0-9]*]] = #fuser.sharding<#mesh, {{\[}}[0], []]>
// ALIAS-DAG: #[[PERMUTED_SHARDED:sharding[0-9]*]] = #fuser.sharding<#[[PERMUTED]], {{\[}}[1], [0]]>
// ALIAS: func.func @mesh_and_dim_axes(%{{.*}}: tensor<8x16xf32, #[[SHARDED]]>
// ALIAS-SAME: tensor<8x8xf32, #[[PERMUTED_SHARDED]]>

// CHECK-LABEL: func.func @mesh_and_dim_axes
// CHECK-SAME: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK-SAME: tensor<16x8xf32, #fuser.sharding<#fuser.mesh<[2, 4]>, {{\[}}[0, 1], []]>>
// CHECK-SAME: tensor<16x8xf32, #fuser.sharding<#fuser.mesh<[2, 4]>, {{\[}}[1, 0], []]>>
// CHECK-SAME: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2, 2], devices = [0, 2, 1, 3]>, {{\[}}[1], [0]]>>
// CHECK-SAME: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[], []]>>
func.func @mesh_and_dim_axes(
    %a: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>>,
    %b: tensor<16x8xf32, #fuser.sharding<#fuser.mesh<[2, 4]>, [[0, 1], []]>>,
    %c: tensor<16x8xf32, #fuser.sharding<#fuser.mesh<[2, 4]>, [[1, 0], []]>>,
    %d: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2, 2], devices = [0, 2, 1, 3]>, [[1], [0]]>>,
    // An explicit identity device list is the default mesh.
    %e: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2, 2], devices = [0, 1, 2, 3]>, [[], []]>>) {
  return
}

// CHECK-LABEL: func.func @partial_stream_and_layout
// CHECK-SAME: #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : sum}>
// CHECK-SAME: #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[], []], partial = {0 : max, 1 : max}>
// CHECK-SAME: #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[0], []], partial = {1 : prod}>
// CHECK-SAME: #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[], [1]], partial = {0 : min}>
// CHECK-SAME: #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : avg}>
// CHECK-SAME: #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], stream = {1 : 4}>
// CHECK-SAME: #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], stream = {1 : 4 chunked}>
// CHECK-SAME: #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], order = [1, 0], contiguity = [true, false]>
// CHECK-SAME: #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], [], []], stream = {0 : 2}, order = [2, 0, 1]>
// CHECK-SAME: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK-SAME: tensor<?x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
func.func @partial_stream_and_layout(
    %a: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], partial = {0 : sum}>>,
    // Partial axes are listed in any order and printed sorted.
    %b: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, [[], []], partial = {1 : max, 0 : max}>>,
    %c: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, [[0], []], partial = {1 : prod}>>,
    %d: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, [[], [1]], partial = {0 : min}>>,
    %e: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], partial = {0 : avg}>>,
    %f: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []], stream = {1 : 4}>>,
    %f2: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []], stream = {1 : 4 chunked}>>,
    %g: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []], contiguity = [true, false], order = [1, 0]>>,
    %h: tensor<8x4x2xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], [], []], stream = {0 : 2}, order = [2, 0, 1]>>,
    // Identity order, all-true contiguity and an empty partial map are defaults.
    %i: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []], partial = {}, order = [0, 1], contiguity = [true, true]>>,
    // Dynamic dims are not checked for divisibility.
    %j: tensor<?x16xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>>) {
  return
}

// A kernel argument that receives the rank's index along a mesh axis.
// CHECK-LABEL: func.func private @position
// CHECK-SAME: index {fuser.mesh_position = #fuser.mesh_position<#fuser.mesh<[2, 4]>, 1>}
func.func private @position(%r: index {fuser.mesh_position = #fuser.mesh_position<#fuser.mesh<[2, 4]>, 1>})
