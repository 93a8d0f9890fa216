// A bf16 negation: its inputs can come from .npy files (f32).
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
func.func @negate(%x: tensor<4x4xbf16, #rows>) -> tensor<4x4xbf16, #rows> {
  %y = fuser.neg %x : tensor<4x4xbf16, #rows> -> tensor<4x4xbf16, #rows>
  return %y : tensor<4x4xbf16, #rows>
}
