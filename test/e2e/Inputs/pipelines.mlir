// Stream-pipelined programs: AG+GEMM (sequence-parallel input,
// column-parallel weight) and GEMM+RS (row-parallel weight,
// sequence-parallel output), 4 chunks each.
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
#w = #fuser.sharding<#mesh, [[0], []]>
#y = #fuser.sharding<#mesh, [[], [0]]>
#k = #fuser.sharding<#mesh, [[], [0]]>
#rows = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>

func.func @ag_gemm(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}

func.func @gemm_rs(%x: tensor<16x64xf32, #k>, %w: tensor<32x64xf32, #k>) -> tensor<16x32xf32, #rows> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #k>, tensor<32x64xf32, #k>) -> tensor<16x32xf32, #rows>
  return %y : tensor<16x32xf32, #rows>
}
