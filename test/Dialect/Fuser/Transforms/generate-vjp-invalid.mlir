// RUN: fuser-opt %s --fuser-generate-vjp --split-input-file -verify-diagnostics
// RUN: not fuser-opt %s --fuser-generate-vjp=functions=missing --split-input-file 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: fuser-generate-vjp: no function @missing to differentiate
// A function named for differentiation needs a floating-point input; one
// without is skipped when none is named.
// RUN: not fuser-opt %s --fuser-generate-vjp=functions=integers --split-input-file 2>&1 | FileCheck %s --check-prefix=INTEGERS
// INTEGERS: error: has no floating-point input to differentiate with respect to

// A boolean turned into a number carries no gradient.
// expected-error @+1 {{cannot be differentiated: see the op above}}
func.func @cast_condition(%x: tensor<8xf32>, %y: tensor<8xf32>) -> tensor<8xf32> {
  %less = fuser.compare lt, %x, %y : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  // expected-error @+1 {{has no derivative with respect to its 'i1' operand, which 'fuser.compare' computes from differentiable values: integer and boolean values carry no gradient (select with 'fuser.where' instead of multiplying by a cast condition)}}
  %mask = fuser.cast %less : tensor<8xi1> -> tensor<8xf32>
  %r = fuser.mul %mask, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %r : tensor<8xf32>
}

// -----

// An op without a derivative rule, on the way from an input to an output.
// expected-error @+1 {{cannot be differentiated: see the op above}}
func.func @second_order(%q: tensor<1x2x8x4xf32>, %k: tensor<1x2x8x4xf32>, %v: tensor<1x2x8x4xf32>, %o: tensor<1x2x8x4xf32>, %g: tensor<1x2x8x4xf32>, %lse: tensor<1x2x8xf32>) -> tensor<1x2x8x4xf32> {
  // expected-error @+1 {{has no derivative, and the gradient of a floating-point input flows through it}}
  %dq, %dk, %dv = fuser.sdpa_backward %q, %k, %v, %o, %g, %lse causal : (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8xf32>) -> (tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>, tensor<1x2x8x4xf32>)
  return %dq : tensor<1x2x8x4xf32>
}

// -----

#mesh = #fuser.mesh<[2]>
// A pending maximum resolved by an allreduce: only sums are differentiated.
// expected-error @+1 {{cannot be differentiated: see the op above}}
func.func @pending_max(%x: tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<4xf32, #fuser.sharding<#mesh, [[]]>> {
  %m = fuser.max %x dims = [1] : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<4xf32, #fuser.sharding<#mesh, [[]], partial = {0 : max}>>
  // expected-error @+1 {{has no derivative rule for an operand pending a 'max' reduction (only pending sums are differentiated)}}
  %r = fuser.comm.allreduce %m axis = 0 : tensor<4xf32, #fuser.sharding<#mesh, [[]], partial = {0 : max}>> -> tensor<4xf32, #fuser.sharding<#mesh, [[]]>>
  return %r : tensor<4xf32, #fuser.sharding<#mesh, [[]]>>
}

// -----

func.func @integers(%i: tensor<8xi32>) -> tensor<8xi32> {
  return %i : tensor<8xi32>
}

// -----

// Differentiated once already (the pass ran twice).
// expected-error @+1 {{cannot add its derivative programs: @twice__vjp exists already}}
func.func @twice(%x: tensor<8xf32>) -> tensor<8xf32> {
  return %x : tensor<8xf32>
}
func.func @twice__vjp(%x: tensor<8xf32>, %g: tensor<8xf32>) -> tensor<8xf32> attributes {fuser.derivative_of = "twice"} {
  return %g : tensor<8xf32>
}
