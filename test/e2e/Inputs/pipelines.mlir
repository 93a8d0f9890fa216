// Stream-pipelined programs: AG+GEMM (sequence-parallel input,
// column-parallel weight), also followed by a gelu, and GEMM+RS
// (row-parallel weight, sequence-parallel output), 4 chunks each.
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

// AG+GEMM whose product only a gelu reads: every chunk's product applies
// it in the library's epilogue.
func.func @ag_gemm_gelu(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y> {
  %h = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y>
  %y = fuser.gelu %h approximation = tanh : tensor<16x32xf32, #y> -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}

func.func @gemm_rs(%x: tensor<16x64xf32, #k>, %w: tensor<32x64xf32, #k>) -> tensor<16x32xf32, #rows> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #k>, tensor<32x64xf32, #k>) -> tensor<16x32xf32, #rows>
  return %y : tensor<16x32xf32, #rows>
}

// The forms nvFuser's users write: the stream split on the gathered result
// (each chunk a part of one rank's rows) and on the rows of a row-parallel
// product's input, with matmul as well as linear, and GEMM+allreduce.
#whole = #fuser.sharding<#mesh, [[], []]>
#whole4 = #fuser.sharding<#mesh, [[], []], stream = {0 : 4}>
#byRows = #fuser.sharding<#mesh, [[0], []]>
#k4 = #fuser.sharding<#mesh, [[], [0]], stream = {0 : 4}>

func.func @ag_matmul_on_result(%a: tensor<16x32xf32, #byRows>, %b: tensor<32x64xf32, #whole>) -> tensor<16x64xf32, #whole4> {
  %y = fuser.matmul %a, %b : (tensor<16x32xf32, #byRows>, tensor<32x64xf32, #whole>) -> tensor<16x64xf32, #whole4>
  return %y : tensor<16x64xf32, #whole4>
}

func.func @ag_gemm_on_result(%x: tensor<16x64xf32, #byRows>, %w: tensor<32x64xf32, #w>) -> tensor<16x32xf32, #k4> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #byRows>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #k4>
  return %y : tensor<16x32xf32, #k4>
}

func.func @matmul_rs(%a: tensor<16x64xf32, #k4>, %b: tensor<64x32xf32, #byRows>) -> tensor<16x32xf32, #byRows> {
  %y = fuser.matmul %a, %b : (tensor<16x64xf32, #k4>, tensor<64x32xf32, #byRows>) -> tensor<16x32xf32, #byRows>
  return %y : tensor<16x32xf32, #byRows>
}

func.func @gemm_allreduce(%x: tensor<16x64xf32, #k4>, %w: tensor<32x64xf32, #k>) -> tensor<16x32xf32, #whole4> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #k4>, tensor<32x64xf32, #k>) -> tensor<16x32xf32, #whole4>
  return %y : tensor<16x32xf32, #whole4>
}
