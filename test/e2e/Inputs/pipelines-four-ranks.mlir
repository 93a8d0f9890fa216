// Stream-pipelined programs over 4 ranks: with three peers a ring
// GEMM+RS reduces the partials it received before the local product adds
// to them; AG+GEMM and GEMM+allreduce for the other ring forms.
#mesh = #fuser.mesh<[4]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 2}>
#w = #fuser.sharding<#mesh, [[0], []]>
#y = #fuser.sharding<#mesh, [[], [0]]>
#k = #fuser.sharding<#mesh, [[], [0]]>
#rows = #fuser.sharding<#mesh, [[0], []], stream = {0 : 2}>
#whole = #fuser.sharding<#mesh, [[], []], stream = {0 : 8}>

func.func @ag_gemm(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}

func.func @gemm_rs(%x: tensor<16x64xf32, #k>, %w: tensor<32x64xf32, #k>) -> tensor<16x32xf32, #rows> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #k>, tensor<32x64xf32, #k>) -> tensor<16x32xf32, #rows>
  return %y : tensor<16x32xf32, #rows>
}

func.func @gemm_allreduce(%x: tensor<16x64xf32, #k>, %w: tensor<32x64xf32, #k>) -> tensor<16x32xf32, #whole> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #k>, tensor<32x64xf32, #k>) -> tensor<16x32xf32, #whole>
  return %y : tensor<16x32xf32, #whole>
}
