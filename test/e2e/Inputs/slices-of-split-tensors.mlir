// Slices fused into kernels whose pieces are split along dims the slices
// keep whole.
#mesh = #fuser.mesh<[2]>
#s = #fuser.sharding<#mesh, [[], [], [0]]>
func.func @slice_split(%x: tensor<8x6x4xf32, #s>) -> tensor<4x3x4xf32, #s> {
  %0 = fuser.exp %x : tensor<8x6x4xf32, #s> -> tensor<8x6x4xf32, #s>
  %1 = fuser.slice %0 starts = [0, 1, 0] limits = [4, 6, 4] steps = [1, 2, 1] : tensor<8x6x4xf32, #s> -> tensor<4x3x4xf32, #s>
  %2 = fuser.tanh %1 : tensor<4x3x4xf32, #s> -> tensor<4x3x4xf32, #s>
  return %2 : tensor<4x3x4xf32, #s>
}

// over both axes of a 2x2 mesh (4 ranks)
#mesh2 = #fuser.mesh<[2, 2]>
#s2 = #fuser.sharding<#mesh2, [[0], [], [1]]>
func.func @slice_two_axes(%x: tensor<8x6x4xf32, #s2>) -> tensor<8x3x4xf32, #s2> {
  %0 = fuser.exp %x : tensor<8x6x4xf32, #s2> -> tensor<8x6x4xf32, #s2>
  %1 = fuser.slice %0 starts = [0, 1, 0] limits = [8, 6, 4] steps = [1, 2, 1] : tensor<8x6x4xf32, #s2> -> tensor<8x3x4xf32, #s2>
  %2 = fuser.tanh %1 : tensor<8x3x4xf32, #s2> -> tensor<8x3x4xf32, #s2>
  return %2 : tensor<8x3x4xf32, #s2>
}
