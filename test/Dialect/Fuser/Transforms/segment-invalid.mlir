// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(fuser-segment)' -verify-diagnostics

func.func @nested(%x: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  %0 = scf.if %c -> tensor<8xf32> {
    // expected-error @+1 {{segmentation handles fuser ops in the function body only, not nested in regions}}
    %1 = fuser.exp %x : tensor<8xf32> -> tensor<8xf32>
    scf.yield %1 : tensor<8xf32>
  } else {
    scf.yield %x : tensor<8xf32>
  }
  return %0 : tensor<8xf32>
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @not_decomposed(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>> {
  // expected-error @+1 {{reshards, so it cannot compute on local pieces; run fuser-decompose-reshardings first}}
  %0 = fuser.exp %x : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return %0 : tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
}
