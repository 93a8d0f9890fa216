// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-verify-stage{stage=propagated}))' -verify-diagnostics
// RUN: not fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-verify-stage{stage=hostir}))' 2>&1 | FileCheck %s --check-prefix=STAGE
// STAGE: for the --stage option: Cannot find option named 'hostir'!

// Nothing sharded at all is a valid `propagated` function.
func.func @unsharded(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = fuser.exp %x : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

#mesh = #fuser.mesh<[2]>
// expected-error @+1 {{value has no sharding, but others in the function do (stage 'propagated': all tensor values or none)}}
func.func @half_sharded(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>, %y: tensor<8xf32>) {
  // expected-error @+1 {{value has no sharding, but others in the function do}}
  %0 = fuser.exp %y : tensor<8xf32> -> tensor<8xf32>
  return
}
