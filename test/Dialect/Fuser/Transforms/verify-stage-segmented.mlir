// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-verify-stage{stage=segmented}))' -verify-diagnostics

#mesh = #fuser.mesh<[2]>
func.func @compute_outside_kernel(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.exp' op is in no segment (stage 'segmented'): compute belongs in a fuser.kernel}}
  %0 = fuser.exp %x : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}
