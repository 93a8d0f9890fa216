// A 2x2 mesh: rows split over axis 0 and columns over axis 1 become rows
// over axis 1 and columns over axis 0, which moves both axes.
#mesh = #fuser.mesh<[2, 2]>
#from = #fuser.sharding<#mesh, [[0], [1]]>
#to = #fuser.sharding<#mesh, [[1], [0]]>
func.func @swap_axes(%x: tensor<8x8xf32, #from>) -> tensor<8x8xf32, #to> {
  %0 = fuser.set %x : tensor<8x8xf32, #from> -> tensor<8x8xf32, #to>
  return %0 : tensor<8x8xf32, #to>
}

// A product whose contracted dim is split over both axes, placed with its
// columns split over axis 0: a reduce_scatter over axis 0, then an
// allreduce over axis 1 of the blocks it laid out columns first.
#contracted = #fuser.sharding<#mesh, [[], [0, 1]]>
#columns = #fuser.sharding<#mesh, [[], [0]]>
func.func @contract_over_both_axes(%g: tensor<4x4xf32, #contracted>, %w: tensor<8x4xf32, #contracted>) -> tensor<4x8xf32, #columns> {
  %wt = fuser.permute %w perm = [1, 0] : tensor<8x4xf32, #contracted> -> tensor<4x8xf32>
  %p = fuser.matmul %g, %wt : (tensor<4x4xf32, #contracted>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = fuser.set %p : tensor<4x8xf32> -> tensor<4x8xf32, #columns>
  return %r : tensor<4x8xf32, #columns>
}

// Two dims split over the two axes, gathered whole: the first allgather's
// result, laid out for the second (its dim outermost), must keep the
// first's order of the other dims.
#both = #fuser.sharding<#mesh, [[], [], [0], [1]]>
#whole = #fuser.sharding<#mesh, [[], [], [], []]>
func.func @gather_both_axes(%x: tensor<1x2x8x4xf32, #both>) -> tensor<1x2x8x4xf32, #whole> {
  %0 = fuser.set %x : tensor<1x2x8x4xf32, #both> -> tensor<1x2x8x4xf32, #whole>
  return %0 : tensor<1x2x8x4xf32, #whole>
}
