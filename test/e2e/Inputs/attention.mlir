// Fused attention on 2 ranks, each program checked against its unsharded
// reference: heads split (tensor parallelism, causal, with dropout: the
// ranks draw the unsharded run's mask at their global heads), the batch
// split, the queries split (context parallelism: keys and values whole on
// every rank), and the forward followed by the backward with heads split.
#mesh = #fuser.mesh<[2]>
#heads = #fuser.sharding<#mesh, [[], [0], [], []]>
#batch = #fuser.sharding<#mesh, [[0], [], [], []]>
#queries = #fuser.sharding<#mesh, [[], [], [0], []]>
#whole = #fuser.sharding<#mesh, [[], [], [], []]>

func.func @heads(%q: tensor<2x4x16x8xf32, #heads>, %k: tensor<2x4x16x8xf32, #heads>, %v: tensor<2x4x16x8xf32, #heads>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>) {
  %o, %lse = fuser.sdpa %q, %k, %v causal dropout = 0.2 seed = 5 : (tensor<2x4x16x8xf32, #heads>, tensor<2x4x16x8xf32, #heads>, tensor<2x4x16x8xf32, #heads>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  return %o, %lse : tensor<2x4x16x8xf32>, tensor<2x4x16xf32>
}

func.func @batch(%q: tensor<2x4x16x8xbf16, #batch>, %k: tensor<2x4x24x8xbf16, #batch>, %v: tensor<2x4x24x8xbf16, #batch>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>) {
  %o, %lse = fuser.sdpa %q, %k, %v scale = 0.3 : (tensor<2x4x16x8xbf16, #batch>, tensor<2x4x24x8xbf16, #batch>, tensor<2x4x24x8xbf16, #batch>) -> (tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>)
  return %o, %lse : tensor<2x4x16x8xbf16>, tensor<2x4x16xf32>
}

func.func @queries(%q: tensor<1x2x16x8xf32, #queries>, %k: tensor<1x2x16x8xf32, #queries>, %v: tensor<1x2x16x8xf32, #whole>) -> tensor<1x2x16x8xf32, #queries> {
  %o, %lse = fuser.sdpa %q, %k, %v : (tensor<1x2x16x8xf32, #queries>, tensor<1x2x16x8xf32, #queries>, tensor<1x2x16x8xf32, #whole>) -> (tensor<1x2x16x8xf32, #queries>, tensor<1x2x16xf32>)
  return %o : tensor<1x2x16x8xf32, #queries>
}

func.func @train(%q: tensor<1x4x16x8xf32, #heads>, %k: tensor<1x4x16x8xf32, #heads>, %v: tensor<1x4x16x8xf32, #heads>, %grad: tensor<1x4x16x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) {
  %o, %lse = fuser.sdpa %q, %k, %v causal dropout = 0.25 seed = 9 : (tensor<1x4x16x8xf32, #heads>, tensor<1x4x16x8xf32, #heads>, tensor<1x4x16x8xf32, #heads>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>)
  %dq, %dk, %dv = fuser.sdpa_backward %q, %k, %v, %o, %grad, %lse causal dropout = 0.25 seed = 9 : (tensor<1x4x16x8xf32, #heads>, tensor<1x4x16x8xf32, #heads>, tensor<1x4x16x8xf32, #heads>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>)
  return %dq, %dk, %dv : tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>
}

// Row indices from a random f32 input (the runner draws in [-1, 1)):
// 40 x + 25 truncated, in [-15, 65) for a table of 50 rows, so lookups
// spread over the table and past both ends (clamped).
func.func @embedding(%table: tensor<50x16xf32>, %draws: tensor<2x8xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<2x8x16xf32, #fuser.sharding<#mesh, [[], [0], []]>> {
  %scale = fuser.full 40.0 : tensor<2x8xf32>
  %shift = fuser.full 25.0 : tensor<2x8xf32>
  %scaled = fuser.mul %draws, %scale : (tensor<2x8xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %shifted = fuser.add %scaled, %shift : (tensor<2x8xf32>, tensor<2x8xf32>) -> tensor<2x8xf32>
  %tokens = fuser.cast %shifted : tensor<2x8xf32> -> tensor<2x8xi64>
  %x = fuser.embedding %table, %tokens : (tensor<50x16xf32>, tensor<2x8xi64>) -> tensor<2x8x16xf32, #fuser.sharding<#mesh, [[], [0], []]>>
  return %x : tensor<2x8x16xf32, #fuser.sharding<#mesh, [[], [0], []]>>
}
