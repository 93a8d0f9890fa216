// Replicated values read where their consumer is split: each rank reads
// its block of the replicated buffer in place.
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#rep = #fuser.sharding<#mesh, [[], []]>
#rep1 = #fuser.sharding<#mesh, [[]]>

// a per-row scale broadcast into a row-split matrix (a block at an offset)
func.func @row_scale(%s: tensor<8xf32, #rep1>, %x: tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows> {
  %b = fuser.broadcast %s dims = [0] : tensor<8xf32, #rep1> -> tensor<8x4xf32>
  %y = fuser.mul %b, %x : (tensor<8x4xf32>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  return %y : tensor<8x4xf32, #rows>
}

// a replicated matrix added to a column-split one (a block with the
// whole's row stride)
func.func @column_block(%s: tensor<8x8xf32, #rep>, %x: tensor<8x8xf32, #cols>) -> tensor<8x8xf32, #cols> {
  %y = fuser.add %s, %x : (tensor<8x8xf32, #rep>, tensor<8x8xf32, #cols>) -> tensor<8x8xf32, #cols>
  return %y : tensor<8x8xf32, #cols>
}

// a replicated matrix transposed into a row-split product
func.func @permuted_block(%s: tensor<8x8xf32, #rep>, %x: tensor<8x8xf32, #rows>) -> tensor<8x8xf32, #rows> {
  %p = fuser.permute %s perm = [1, 0] : tensor<8x8xf32, #rep> -> tensor<8x8xf32>
  %y = fuser.mul %p, %x : (tensor<8x8xf32>, tensor<8x8xf32, #rows>) -> tensor<8x8xf32, #rows>
  return %y : tensor<8x8xf32, #rows>
}

// a replicated input sliced into a row-parallel linear
func.func @linear_block(%x: tensor<8x16xf32, #rep>, %w: tensor<4x16xf32, #cols>) -> tensor<8x4xf32, #rep> {
  %0 = fuser.linear %x, %w : (tensor<8x16xf32, #rep>, tensor<4x16xf32, #cols>) -> tensor<8x4xf32, #rep>
  return %0 : tensor<8x4xf32, #rep>
}

// a window of a replicated argument (a view at an offset) into a kernel
func.func @window_block(%x: tensor<8x4xf32, #rep>) -> tensor<4x4xf32, #rows> {
  %0 = fuser.slice %x starts = [2, 0] limits = [6, 4] steps = [1, 1] : tensor<8x4xf32, #rep> -> tensor<4x4xf32, #rep>
  %1 = fuser.exp %0 : tensor<4x4xf32, #rep> -> tensor<4x4xf32, #rows>
  return %1 : tensor<4x4xf32, #rows>
}

// the same window returned
func.func @returned_window(%x: tensor<8x4xf32, #rep>) -> tensor<4x4xf32, #rep> {
  %0 = fuser.slice %x starts = [2, 0] limits = [6, 4] steps = [1, 1] : tensor<8x4xf32, #rep> -> tensor<4x4xf32, #rep>
  return %0 : tensor<4x4xf32, #rep>
}

// a broadcast of a replicated vector whose split dim is the broadcast one,
// returned as is: each rank's block of the vector, at its offset, repeated
func.func @returned_broadcast(%s: tensor<8xf32, #rep1>) -> tensor<4x8xf32, #cols> {
  %0 = fuser.broadcast %s dims = [1] : tensor<8xf32, #rep1> -> tensor<4x8xf32, #cols>
  return %0 : tensor<4x8xf32, #cols>
}

// an expand of a replicated row split along its columns: a unit dim of the
// block keeps the row stride of the whole row, which addresses nothing
func.func @returned_expand(%r: tensor<1x8xf32, #rep>) -> tensor<4x8xf32, #cols> {
  %0 = fuser.expand %r : tensor<1x8xf32, #rep> -> tensor<4x8xf32, #cols>
  return %0 : tensor<4x8xf32, #cols>
}
