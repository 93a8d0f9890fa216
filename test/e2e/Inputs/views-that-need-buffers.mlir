// Views that repeat data (broadcast, expand: stride 0), have gaps (slices)
// or are transposed, where they cannot stay views: read by communications
// and library calls, which get a buffer computed for them, or read after
// the kernel that computes their operand, which outputs the operand.
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#rows1 = #fuser.sharding<#mesh, [[0]]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#rep = #fuser.sharding<#mesh, [[], []]>

// an argument broadcast, then gathered
func.func @broadcast_gather(%s: tensor<8xf32, #rows1>) -> tensor<8x4xf32, #rep> {
  %b = fuser.broadcast %s dims = [0] : tensor<8xf32, #rows1> -> tensor<8x4xf32, #rows>
  %g = fuser.set %b : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  return %g : tensor<8x4xf32, #rep>
}

// an argument expanded, then gathered
func.func @expand_gather(%s: tensor<8x1xf32, #rows>) -> tensor<8x4xf32, #rep> {
  %b = fuser.expand %s : tensor<8x1xf32, #rows> -> tensor<8x4xf32, #rows>
  %g = fuser.set %b : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  return %g : tensor<8x4xf32, #rep>
}

// a computed value broadcast in its kernel, then gathered
func.func @computed_broadcast_gather(%s: tensor<8xf32, #rows1>) -> tensor<8x4xf32, #rep> {
  %e = fuser.exp %s : tensor<8xf32, #rows1> -> tensor<8xf32, #rows1>
  %b = fuser.broadcast %e dims = [0] : tensor<8xf32, #rows1> -> tensor<8x4xf32, #rows>
  %g = fuser.set %b : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  return %g : tensor<8x4xf32, #rep>
}

// a transposed argument, gathered along the dim its layout puts inside
func.func @permute_gather(%t: tensor<4x8xf32, #cols>) -> tensor<8x4xf32, #rep> {
  %p = fuser.permute %t perm = [1, 0] : tensor<4x8xf32, #cols> -> tensor<8x4xf32, #rows>
  %g = fuser.set %p : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  return %g : tensor<8x4xf32, #rep>
}

// a broadcast read by a linear
func.func @broadcast_linear(%s: tensor<8xf32, #rows1>, %w: tensor<4x4xf32, #rep>) -> tensor<8x4xf32, #rows> {
  %b = fuser.broadcast %s dims = [0] : tensor<8xf32, #rows1> -> tensor<8x4xf32, #rows>
  %y = fuser.linear %b, %w : (tensor<8x4xf32, #rows>, tensor<4x4xf32, #rep>) -> tensor<8x4xf32, #rows>
  return %y : tensor<8x4xf32, #rows>
}

// a slice with gaps of a kernel's result, read by a linear after it
func.func @computed_slice_linear(%x: tensor<8x8xf32, #rows>, %w: tensor<4x4xf32, #rep>) -> tensor<8x4xf32, #rows> {
  %e = fuser.exp %x : tensor<8x8xf32, #rows> -> tensor<8x8xf32, #rows>
  %s = fuser.slice %e starts = [0, 2] limits = [8, 6] steps = [1, 1] : tensor<8x8xf32, #rows> -> tensor<8x4xf32, #rows>
  %y = fuser.linear %s, %w : (tensor<8x4xf32, #rows>, tensor<4x4xf32, #rep>) -> tensor<8x4xf32, #rows>
  return %y : tensor<8x4xf32, #rows>
}

// a broadcast of a kernel's result, read by a kernel after a communication
func.func @computed_broadcast_after_communication(%s: tensor<8xf32, #rows1>, %x: tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows> {
  %e = fuser.exp %s : tensor<8xf32, #rows1> -> tensor<8xf32, #rows1>
  %b = fuser.broadcast %e dims = [0] : tensor<8xf32, #rows1> -> tensor<8x4xf32, #rows>
  %g = fuser.set %x : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  %r = fuser.set %g : tensor<8x4xf32, #rep> -> tensor<8x4xf32, #rows>
  %y = fuser.add %b, %r : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  return %y : tensor<8x4xf32, #rows>
}
