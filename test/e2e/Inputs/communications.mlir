// One program per communication kind, each from inputs the runner can
// shard (partial values come out of row-parallel linears).
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#rep = #fuser.sharding<#mesh, [[], []]>
#root = #fuser.sharding<#fuser.mesh<[1]>, [[], []]>
#other = #fuser.sharding<#fuser.mesh<[2], devices = [1, 0]>, [[0], []]>

// allgather
func.func @gather_rows(%x: tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rep> {
  %0 = fuser.set %x : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  return %0 : tensor<8x4xf32, #rep>
}

// all_to_all
func.func @rows_to_cols(%x: tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #cols> {
  %0 = fuser.set %x : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #cols>
  return %0 : tensor<8x4xf32, #cols>
}

// all_slice (no data moves)
func.func @slice_rows(%x: tensor<8x4xf32, #rep>) -> tensor<8x4xf32, #rows> {
  %0 = fuser.set %x : tensor<8x4xf32, #rep> -> tensor<8x4xf32, #rows>
  return %0 : tensor<8x4xf32, #rows>
}

// allreduce of a row-parallel linear
func.func @allreduce(%x: tensor<8x16xf32, #cols>, %w: tensor<4x16xf32, #cols>) -> tensor<8x4xf32, #rep> {
  %0 = fuser.linear %x, %w : (tensor<8x16xf32, #cols>, tensor<4x16xf32, #cols>) -> tensor<8x4xf32, #rep>
  return %0 : tensor<8x4xf32, #rep>
}

// reduce_scatter of a row-parallel linear
func.func @reduce_scatter(%x: tensor<8x16xf32, #cols>, %w: tensor<4x16xf32, #cols>) -> tensor<8x4xf32, #rows> {
  %0 = fuser.linear %x, %w : (tensor<8x16xf32, #cols>, tensor<4x16xf32, #cols>) -> tensor<8x4xf32, #rows>
  return %0 : tensor<8x4xf32, #rows>
}

// gather onto the first device, then broadcast back
func.func @gather_broadcast(%x: tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rep> {
  %0 = fuser.set %x : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #root>
  %1 = fuser.exp %0 : tensor<8x4xf32, #root> -> tensor<8x4xf32, #root>
  %2 = fuser.set %1 : tensor<8x4xf32, #root> -> tensor<8x4xf32, #rep>
  return %2 : tensor<8x4xf32, #rep>
}

// a replicated value onto the first device, which holds it already
func.func @replicated_to_root(%x: tensor<8x4xf32, #rep>) -> tensor<8x4xf32, #root> {
  %0 = fuser.set %x : tensor<8x4xf32, #rep> -> tensor<8x4xf32, #root>
  return %0 : tensor<8x4xf32, #root>
}

// scatter from the first device
func.func @scatter(%x: tensor<8x4xf32, #root>) -> tensor<8x4xf32, #rows> {
  %0 = fuser.set %x : tensor<8x4xf32, #root> -> tensor<8x4xf32, #rows>
  return %0 : tensor<8x4xf32, #rows>
}

// send_recv between meshes with the devices swapped
func.func @swap(%x: tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #other> {
  %0 = fuser.set %x : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #other>
  return %0 : tensor<8x4xf32, #other>
}

// reduce onto the first device
func.func @reduce(%x: tensor<8x16xf32, #cols>, %w: tensor<4x16xf32, #cols>) -> tensor<8x4xf32, #root> {
  %0 = fuser.linear %x, %w : (tensor<8x16xf32, #cols>, tensor<4x16xf32, #cols>) -> tensor<8x4xf32, #root>
  return %0 : tensor<8x4xf32, #root>
}

// a row-parallel linear with a bias (added once, after the allreduce)
func.func @row_bias(%x: tensor<8x16xf32, #cols>, %w: tensor<4x16xf32, #cols>, %b: tensor<4xf32>) -> tensor<8x4xf32, #rep> {
  %0 = fuser.linear %x, %w bias %b : (tensor<8x16xf32, #cols>, tensor<4x16xf32, #cols>, tensor<4xf32>) -> tensor<8x4xf32, #rep>
  return %0 : tensor<8x4xf32, #rep>
}

// a pointwise op whose result is gathered: resharded before or after it
func.func @exp_gather(%x: tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rep> {
  %0 = fuser.exp %x : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  return %0 : tensor<8x4xf32, #rep>
}

// views at both ends: a permuted argument and a reshaped result
func.func @bookends(%x: tensor<4x8xf32, #cols>) -> tensor<32xf32, #fuser.sharding<#mesh, [[0]]>> {
  %0 = fuser.permute %x perm = [1, 0] : tensor<4x8xf32, #cols> -> tensor<8x4xf32, #rows>
  %1 = fuser.tanh %0 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rows>
  %2 = fuser.reshape %1 : tensor<8x4xf32, #rows> -> tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>
  return %2 : tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>
}

// views at both ends with no kernel: a transposed argument read by a
// library call through its strides, and a reshaped result
func.func @view_ends(%x: tensor<16x8xf32, #cols>, %w: tensor<4x16xf32, #rep>) -> tensor<32xf32, #fuser.sharding<#mesh, [[0]]>> {
  %0 = fuser.permute %x perm = [1, 0] : tensor<16x8xf32, #cols> -> tensor<8x16xf32, #rows>
  %1 = fuser.linear %0, %w : (tensor<8x16xf32, #rows>, tensor<4x16xf32, #rep>) -> tensor<8x4xf32, #rows>
  %2 = fuser.reshape %1 : tensor<8x4xf32, #rows> -> tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>
  return %2 : tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>
}
