// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-verify-program-signature))' -verify-diagnostics | FileCheck %s

// Whole values and shards cross a program's boundary.
// CHECK-LABEL: func.func @shards
#mesh = #fuser.mesh<[2]>
func.func @shards(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>> {
  %y = fuser.set %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  return %y : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
}

// -----

#mesh = #fuser.mesh<[2, 2]>
// expected-error @+1 {{result #0 is partial over mesh axes [1]: a program exchanges whole values and shards with its caller, not pending reductions; annotate it without 'partial', so that the program reduces it before returning it}}
func.func @partial_result(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], [1]]>>) -> tensor<8xf32, #fuser.sharding<#mesh, [[0]], partial = {1 : max}>> {
  %y = fuser.max %x dims = [1] : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], [1]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]], partial = {1 : max}>>
  return %y : tensor<8xf32, #fuser.sharding<#mesh, [[0]], partial = {1 : max}>>
}

// -----

#mesh = #fuser.mesh<[2]>
// expected-error @+1 {{argument #1 is partial over mesh axes [0]: a program exchanges whole values and shards with its caller, not pending reductions; annotate it without 'partial'}}
func.func @partial_argument(%x: tensor<8xf32>, %y: tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>) {
  return
}
