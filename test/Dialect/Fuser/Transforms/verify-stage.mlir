// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-verify-stage{stage=decomposed}))' -verify-diagnostics

// A decomposed function: every placement change is a fuser.comm op.
#mesh = #fuser.mesh<[2]>
func.func @decomposed(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>> {
  %0 = fuser.comm.allgather %x axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  %1 = fuser.exp %0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  return %1 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @compute_op_reshards(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) {
  // expected-error @+1 {{reshards (stage 'decomposed'): operand #0 is placed as #fuser.sharding<#fuser.mesh<[2]>, [[0], []]> but the results need #fuser.sharding<#fuser.mesh<[2]>, [[], []]>}}
  %0 = fuser.exp %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @set_reshards(%x: tensor<8xf32, #fuser.sharding<#mesh, [[]]>>) {
  // expected-error @+1 {{reshards (stage 'decomposed'): operand #0 is placed as #fuser.sharding<#fuser.mesh<[2]>, [[]]> but the results need #fuser.sharding<#fuser.mesh<[2]>, [[0]]>}}
  %0 = fuser.set %x : tensor<8xf32, #fuser.sharding<#mesh, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @results_not_computable(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) {
  // expected-error @+1 {{reshards (stage 'decomposed'): result #0 dim 0: the op needs the dim whole, but mesh axes [0] split it}}
  %0 = fuser.slice %x starts = [2, 0] limits = [6, 4] steps = [1, 1] : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<4x4xf32, #fuser.sharding<#mesh, [[0], []]>>
  return
}

// -----

// An unsharded function is trivially decomposed.
func.func @unsharded(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = fuser.exp %x : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}
