// Ops whose operands and results the user placed with splits that cannot
// pass through them: the operands are gathered along those dims, the op
// computes, and the result is sliced into its placement.
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#mesh4 = #fuser.mesh<[2, 2]>

// a reshape whose split would straddle the factors 3 and 4 of dim 1
func.func @reshape_straddle(%x: tensor<8x12xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x3x4xf32, #fuser.sharding<#mesh, [[], [], [0]]>> {
  %0 = fuser.reshape %x : tensor<8x12xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8x3x4xf32, #fuser.sharding<#mesh, [[], [], [0]]>>
  return %0 : tensor<8x3x4xf32, #fuser.sharding<#mesh, [[], [], [0]]>>
}

// a slice of the split dim
func.func @slice_split(%x: tensor<8x4xf32, #rows>) -> tensor<4x4xf32, #rows> {
  %0 = fuser.slice %x starts = [2, 0] limits = [6, 4] steps = [1, 1] : tensor<8x4xf32, #rows> -> tensor<4x4xf32, #rows>
  return %0 : tensor<4x4xf32, #rows>
}

// the same slice of a computed value
func.func @exp_slice_split(%x: tensor<8x4xf32, #rows>) -> tensor<4x4xf32, #rows> {
  %e = fuser.exp %x : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rows>
  %0 = fuser.slice %e starts = [2, 0] limits = [6, 4] steps = [1, 1] : tensor<8x4xf32, #rows> -> tensor<4x4xf32, #rows>
  return %0 : tensor<4x4xf32, #rows>
}

// a pad and a cat of the split dim
func.func @pad_split(%x: tensor<6x4xf32, #rows>) -> tensor<8x4xf32, #rows> {
  %0 = fuser.pad %x low = [1, 0] high = [1, 0] {value = 0.5 : f64} : tensor<6x4xf32, #rows> -> tensor<8x4xf32, #rows>
  return %0 : tensor<8x4xf32, #rows>
}

func.func @cat_split(%x: tensor<4x4xf32, #rows>, %y: tensor<4x4xf32, #rows>) -> tensor<8x4xf32, #rows> {
  %0 = fuser.cat %x, %y dim = 0 : (tensor<4x4xf32, #rows>, tensor<4x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  return %0 : tensor<8x4xf32, #rows>
}

// only the axis that cannot pass is gathered (4 ranks)
func.func @reshape_two_axes(%x: tensor<8x12xf32, #fuser.sharding<#mesh4, [[0], [1]]>>) -> tensor<8x3x4xf32, #fuser.sharding<#mesh4, [[0], [], [1]]>> {
  %0 = fuser.reshape %x : tensor<8x12xf32, #fuser.sharding<#mesh4, [[0], [1]]>> -> tensor<8x3x4xf32, #fuser.sharding<#mesh4, [[0], [], [1]]>>
  %1 = fuser.exp %0 : tensor<8x3x4xf32, #fuser.sharding<#mesh4, [[0], [], [1]]>> -> tensor<8x3x4xf32, #fuser.sharding<#mesh4, [[0], [], [1]]>>
  return %1 : tensor<8x3x4xf32, #fuser.sharding<#mesh4, [[0], [], [1]]>>
}
