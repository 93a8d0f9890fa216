// Fused attention in bf16 with head dims cuDNN's fused kernels take
// (multiples of 8), without dropout, so that GPU runs (cuDNN, whose
// dropout mask the CPU reference does not draw) are checked against the
// unsharded CPU reference as CPU runs are: heads split and causal, the
// batch split with more keys than queries, and the forward followed by the
// backward with heads split; embedding lookups in bf16, rows of 128
// features (a GPU kernel reading the rows its indices name).
#mesh = #fuser.mesh<[2]>
#heads = #fuser.sharding<#mesh, [[], [0], [], []]>
#batch = #fuser.sharding<#mesh, [[0], [], [], []]>

func.func @heads_bf16(%q: tensor<1x4x64x64xbf16, #heads>, %k: tensor<1x4x64x64xbf16, #heads>, %v: tensor<1x4x64x64xbf16, #heads>) -> (tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>) {
  %o, %lse = fuser.sdpa %q, %k, %v causal : (tensor<1x4x64x64xbf16, #heads>, tensor<1x4x64x64xbf16, #heads>, tensor<1x4x64x64xbf16, #heads>) -> (tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>)
  return %o, %lse : tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>
}

func.func @batch_bf16(%q: tensor<2x2x64x128xbf16, #batch>, %k: tensor<2x2x128x128xbf16, #batch>, %v: tensor<2x2x128x128xbf16, #batch>) -> (tensor<2x2x64x128xbf16>, tensor<2x2x64xf32>) {
  %o, %lse = fuser.sdpa %q, %k, %v : (tensor<2x2x64x128xbf16, #batch>, tensor<2x2x128x128xbf16, #batch>, tensor<2x2x128x128xbf16, #batch>) -> (tensor<2x2x64x128xbf16>, tensor<2x2x64xf32>)
  return %o, %lse : tensor<2x2x64x128xbf16>, tensor<2x2x64xf32>
}

func.func @train_bf16(%q: tensor<1x4x64x64xbf16, #heads>, %k: tensor<1x4x64x64xbf16, #heads>, %v: tensor<1x4x64x64xbf16, #heads>, %grad: tensor<1x4x64x64xbf16>) -> (tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>) {
  %o, %lse = fuser.sdpa %q, %k, %v causal : (tensor<1x4x64x64xbf16, #heads>, tensor<1x4x64x64xbf16, #heads>, tensor<1x4x64x64xbf16, #heads>) -> (tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>)
  %dq, %dk, %dv = fuser.sdpa_backward %q, %k, %v, %o, %grad, %lse causal : (tensor<1x4x64x64xbf16, #heads>, tensor<1x4x64x64xbf16, #heads>, tensor<1x4x64x64xbf16, #heads>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64xf32>) -> (tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>)
  return %dq, %dk, %dv : tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>, tensor<1x4x64x64xbf16>
}

// Row indices 40 x + 25 of a random x in [-1, 1): lookups over the whole
// table of 50 rows and past both ends (clamped).
func.func @embedding_bf16(%table: tensor<50x128xbf16>, %draws: tensor<4x16xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<4x16x128xbf16, #fuser.sharding<#mesh, [[0], [], []]>> {
  %scale = fuser.full 40.0 : tensor<4x16xf32>
  %shift = fuser.full 25.0 : tensor<4x16xf32>
  %scaled = fuser.mul %draws, %scale : (tensor<4x16xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %shifted = fuser.add %scaled, %shift : (tensor<4x16xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  %tokens = fuser.cast %shifted : tensor<4x16xf32> -> tensor<4x16xi64>
  %x = fuser.embedding %table, %tokens : (tensor<50x128xbf16>, tensor<4x16xi64>) -> tensor<4x16x128xbf16, #fuser.sharding<#mesh, [[0], [], []]>>
  return %x : tensor<4x16x128xbf16, #fuser.sharding<#mesh, [[0], [], []]>>
}
