// Layouts no communication can use, left by skipping the reorder pass.
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-finalize-layouts))' -verify-diagnostics

#mesh = #fuser.mesh<[2]>
func.func @gathered_dim_inner(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>) {
  // expected-error @+1 {{the operand buffer is not laid out for the communication (stage 'laid-out'): it needs to be contiguous with dim 1 outermost}}
  %0 = fuser.comm.allgather %x axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], order = [1, 0]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @strided_result(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>>) {
  // expected-error @+1 {{the result buffer is not laid out for the communication (stage 'laid-out'): it needs to be contiguous}}
  %0 = fuser.comm.allreduce %x axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], contiguity = [false, true]>>
  return
}

// -----

// Some values placed, others not: local shapes are undefined.
#mesh = #fuser.mesh<[2]>
func.func @half_placed(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{value has no sharding, but others in the function do}}
  %0 = fuser.full 1.0 : tensor<8xf32>
  return
}
