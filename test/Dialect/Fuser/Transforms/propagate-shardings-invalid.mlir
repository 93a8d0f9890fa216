// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings))' -verify-diagnostics

// A merge would put the split on the inner factor of the merged dim.
#mesh = #fuser.mesh<[2]>
func.func @inner_factor(%x: tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<32xf32> {
  // expected-error @+1 {{cannot propagate shardings through this op: result #0 dim 0: mesh axes [0] would split an inner factor of the dim while an outer factor is not fully split}}
  %0 = fuser.reshape %x : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

// A split whose outer factor the mesh axis does not divide.
#mesh = #fuser.mesh<[2]>
func.func @non_divisible(%x: tensor<6xf32, #fuser.sharding<#mesh, [[0]]>>) -> tensor<3x2xf32> {
  // expected-error @+1 {{cannot propagate the sharding of operand #0 through this op: dim 0: mesh axis 0 (size 2) does not divide the outer factor of the dim (size 3); the split would straddle factors}}
  %0 = fuser.reshape %x : tensor<6xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

// Two nested axes on a merge whose outer dim the first axis does not fully
// split: the inner axis cannot follow.
#mesh = #fuser.mesh<[2, 2]>
func.func @partly_split_outer(%x: tensor<4x8xf32, #fuser.sharding<#mesh, [[0], [1]]>>) -> tensor<32xf32> {
  // expected-error @+1 {{result #0 dim 0: mesh axes [1] would split an inner factor of the dim while an outer factor is not fully split}}
  %0 = fuser.reshape %x : tensor<4x8xf32, #fuser.sharding<#mesh, [[0], [1]]>> -> tensor<32xf32>
  return %0 : tensor<32xf32>
}

// -----

// Conflicting annotations: two meshes, and a value nothing relates to either.
func.func @two_meshes(%x: tensor<4xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0]]>>,
                      %y: tensor<4xf32, #fuser.sharding<#fuser.mesh<[4]>, [[0]]>>) {
  // expected-error @+1 {{cannot tell which mesh this value lives on: the function uses 2 meshes and no sharded value relates to it; annotate it}}
  %0 = fuser.full 1.0 : tensor<4xf32>
  return
}
