// Two programs over 2 devices: a row-parallel linear with its
// reduce_scatter (library calls and communications, no kernel), and a gelu
// (a kernel).
#mesh = #fuser.mesh<[2]>
#k = #fuser.sharding<#mesh, [[], [0]]>
#rows = #fuser.sharding<#mesh, [[0], []]>
func.func @row_parallel(%x: tensor<16x64xbf16, #k>, %w: tensor<32x64xbf16, #k>) -> tensor<16x32xbf16, #rows> {
  %y = fuser.linear %x, %w : (tensor<16x64xbf16, #k>, tensor<32x64xbf16, #k>) -> tensor<16x32xbf16, #rows>
  return %y : tensor<16x32xbf16, #rows>
}

func.func @activation(%x: tensor<8x16xf32, #rows>) -> tensor<8x16xf32, #rows> {
  %y = fuser.gelu %x approximation = tanh : tensor<8x16xf32, #rows> -> tensor<8x16xf32, #rows>
  return %y : tensor<8x16xf32, #rows>
}
