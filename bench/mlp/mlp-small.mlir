// The programs of mlp.mlir at small shapes (T = 64, H = 32, F = 128), for
// checks against the CPU reference (test/e2e/bench-overlap.test).
#mesh = #fuser.mesh<[2]>
#replicated = #fuser.sharding<#mesh, [[], []]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#replicated_s1 = #fuser.sharding<#mesh, [[], []], stream = {0 : 1}>
#rows_s1 = #fuser.sharding<#mesh, [[0], []], stream = {0 : 1}>
#replicated_s4 = #fuser.sharding<#mesh, [[], []], stream = {0 : 4}>
#rows_s4 = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>

func.func @tp_mlp_s1(%x: tensor<64x32xbf16, #replicated>, %w1: tensor<128x32xbf16, #rows>, %w2: tensor<32x128xbf16, #cols>) -> tensor<64x32xbf16, #replicated_s1> {
  %h = fuser.linear %x, %w1 : (tensor<64x32xbf16, #replicated>, tensor<128x32xbf16, #rows>) -> tensor<64x128xbf16>
  %a = fuser.gelu %h approximation = tanh : tensor<64x128xbf16> -> tensor<64x128xbf16>
  %y = fuser.linear %a, %w2 : (tensor<64x128xbf16>, tensor<32x128xbf16, #cols>) -> tensor<64x32xbf16, #replicated_s1>
  return %y : tensor<64x32xbf16, #replicated_s1>
}

func.func @tp_mlp_s4(%x: tensor<64x32xbf16, #replicated>, %w1: tensor<128x32xbf16, #rows>, %w2: tensor<32x128xbf16, #cols>) -> tensor<64x32xbf16, #replicated_s4> {
  %h = fuser.linear %x, %w1 : (tensor<64x32xbf16, #replicated>, tensor<128x32xbf16, #rows>) -> tensor<64x128xbf16>
  %a = fuser.gelu %h approximation = tanh : tensor<64x128xbf16> -> tensor<64x128xbf16>
  %y = fuser.linear %a, %w2 : (tensor<64x128xbf16>, tensor<32x128xbf16, #cols>) -> tensor<64x32xbf16, #replicated_s4>
  return %y : tensor<64x32xbf16, #replicated_s4>
}

func.func @sp_mlp_s1(%x: tensor<64x32xbf16, #rows_s1>, %w1: tensor<128x32xbf16, #rows>, %w2: tensor<32x128xbf16, #cols>) -> tensor<64x32xbf16, #rows_s1> {
  %h = fuser.linear %x, %w1 : (tensor<64x32xbf16, #rows_s1>, tensor<128x32xbf16, #rows>) -> tensor<64x128xbf16>
  %a = fuser.gelu %h approximation = tanh : tensor<64x128xbf16> -> tensor<64x128xbf16>
  %y = fuser.linear %a, %w2 : (tensor<64x128xbf16>, tensor<32x128xbf16, #cols>) -> tensor<64x32xbf16, #rows_s1>
  return %y : tensor<64x32xbf16, #rows_s1>
}

func.func @sp_mlp_s4(%x: tensor<64x32xbf16, #rows_s4>, %w1: tensor<128x32xbf16, #rows>, %w2: tensor<32x128xbf16, #cols>) -> tensor<64x32xbf16, #rows_s4> {
  %h = fuser.linear %x, %w1 : (tensor<64x32xbf16, #rows_s4>, tensor<128x32xbf16, #rows>) -> tensor<64x128xbf16>
  %a = fuser.gelu %h approximation = tanh : tensor<64x128xbf16> -> tensor<64x128xbf16>
  %y = fuser.linear %a, %w2 : (tensor<64x128xbf16>, tensor<32x128xbf16, #cols>) -> tensor<64x32xbf16, #rows_s4>
  return %y : tensor<64x32xbf16, #rows_s4>
}
