// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-verify-stage{stage=laid-out}))' -verify-diagnostics

#mesh = #fuser.mesh<[2]>
func.func @laid_out(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]], order = [1, 0]>>) {
  %0 = fuser.comm.allgather %x axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]], order = [1, 0]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []], order = [1, 0]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @scatter_inner(%x: tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1]>, [[], []], order = [1, 0]>>) {
  // expected-error @+1 {{the result buffer is not laid out for the communication (stage 'laid-out'): it needs to be contiguous with dim 1 outermost}}
  %0 = fuser.comm.scatter %x axis = 0 root = 0 : tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[1]>, [[], []], order = [1, 0]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], [0]]>>
  return
}

// -----

// Layouts are checked on top of the earlier contracts.
#mesh = #fuser.mesh<[2]>
func.func @still_reshards(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{reshards (stage 'decomposed')}}
  %0 = fuser.exp %x : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return
}
