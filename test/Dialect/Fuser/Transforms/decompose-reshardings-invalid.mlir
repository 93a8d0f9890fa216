// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-decompose-reshardings))' -verify-diagnostics

func.func @partial_onto_unrelated_mesh(%x: tensor<6xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0]]>>) {
  // expected-error @+1 {{cannot move a value onto mesh #fuser.mesh<[3]> as a partial value: between meshes of different shapes only shards move}}
  %0 = fuser.set %x : tensor<6xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0]]>> -> tensor<6xf32, #fuser.sharding<#fuser.mesh<[3]>, [[]], partial = {0 : sum}>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @make_partial(%x: tensor<8xf32, #fuser.sharding<#mesh, [[]]>>) {
  // expected-error @+1 {{cannot make a value partial over mesh axis 0: resharding only resolves partial values}}
  %0 = fuser.set %x : tensor<8xf32, #fuser.sharding<#mesh, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @not_propagated(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>, %y: tensor<8xf32>) {
  // expected-error @+1 {{operand #1 has no sharding; run fuser-propagate-shardings first}}
  %0 = fuser.add %x, %y : (tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>, tensor<8xf32>) -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @result_not_propagated(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) -> tensor<8xf32> {
  // expected-error @+1 {{result #0 has no sharding; run fuser-propagate-shardings first}}
  %0 = fuser.exp %x : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Both sides annotated, but no communication makes a value partial: a sum
// that exp does not compute.
#mesh = #fuser.mesh<[2]>
func.func @partial_result_of_pointwise(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{cannot make a value partial over mesh axis 0: resharding only resolves partial values}}
  %0 = fuser.exp %x : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>
  return
}

// -----

// An axis partial on both sides stays pending, as one kind: a partial max
// does not become a partial sum.
#mesh = #fuser.mesh<[2, 2]>
func.func @partial_of_another_kind(%x: tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : max, 1 : max}>>) {
  // expected-error @+1 {{cannot turn a partial max into a partial sum: resharding only resolves partial values}}
  %0 = fuser.set %x : tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : max, 1 : max}>> -> tensor<8xf32, #fuser.sharding<#mesh, [[1]], partial = {0 : sum}>>
  return
}

// -----

#root1 = #fuser.mesh<[1], devices = [1]>
func.func @partial_over_the_slice_axis(%x: tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>>) {
  // expected-error @+1 {{cannot move a value onto the slice at index 1 of mesh axis 0 as partial over that axis: the slice holds one device of it}}
  %0 = fuser.set %x : tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#root1, [[], []], partial = {0 : min}>>
  return
}
