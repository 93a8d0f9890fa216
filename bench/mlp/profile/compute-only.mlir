// One GPU's share of the tensor-parallel MLP of bench/mlp/mlp.mlir (bf16,
// T = H = 8192, F / 2 = 16384) on a 1-device mesh: the compute only, timed
// (fuser-exec --time) and profiled per kernel against PyTorch's layer.
#mesh = #fuser.mesh<[1]>
#r = #fuser.sharding<#mesh, [[], []]>
func.func @mlp(%x: tensor<8192x8192xbf16, #r>, %w1: tensor<16384x8192xbf16, #r>, %w2: tensor<8192x16384xbf16, #r>) -> tensor<8192x8192xbf16, #r> {
  %h = fuser.linear %x, %w1 : (tensor<8192x8192xbf16, #r>, tensor<16384x8192xbf16, #r>) -> tensor<8192x16384xbf16>
  %a = fuser.gelu %h approximation = tanh : tensor<8192x16384xbf16> -> tensor<8192x16384xbf16>
  %y = fuser.linear %a, %w2 : (tensor<8192x16384xbf16>, tensor<8192x16384xbf16, #r>) -> tensor<8192x8192xbf16, #r>
  return %y : tensor<8192x8192xbf16, #r>
}
