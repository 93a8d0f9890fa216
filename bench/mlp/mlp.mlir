// The MLPs of the 2-GPU benchmark (bench/mlp/bench_mlp.py) in bf16: tokens
// T = 8192, hidden H = 8192, 4x expansion F = 32768; w1 [F, H] split by
// rows (column-parallel), gelu (tanh approximation), w2 [H, F] split by
// columns (row-parallel), as torch.nn.functional.linear stores weights.
//   tp_mlp_sS  tensor parallel: x [T, H] replicated, the output replicated
//              (one allreduce), stream-split into S chunks of rows, which
//              asks the compiler to overlap the allreduce with the second
//              linear;
//   sp_mlp_sS  sequence parallel: x and the output split by tokens and
//              stream-split into S chunks (allgather before the first
//              linear, reduce_scatter after the second, each overlapped).
// S = 1 is what a ring runs (one chunk per peer). The hidden activations
// state no sharding: propagation gives them the weights' split and the
// stream split, which the GEMM+allreduce pipeline needs on the partial
// result. mlp-small.mlir holds the same programs at shapes the CPU checks.
#mesh = #fuser.mesh<[2]>
#replicated = #fuser.sharding<#mesh, [[], []]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#replicated_s1 = #fuser.sharding<#mesh, [[], []], stream = {0 : 1}>
#rows_s1 = #fuser.sharding<#mesh, [[0], []], stream = {0 : 1}>
#replicated_s4 = #fuser.sharding<#mesh, [[], []], stream = {0 : 4}>
#rows_s4 = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>

func.func @tp_mlp_s1(%x: tensor<8192x8192xbf16, #replicated>, %w1: tensor<32768x8192xbf16, #rows>, %w2: tensor<8192x32768xbf16, #cols>) -> tensor<8192x8192xbf16, #replicated_s1> {
  %h = fuser.linear %x, %w1 : (tensor<8192x8192xbf16, #replicated>, tensor<32768x8192xbf16, #rows>) -> tensor<8192x32768xbf16>
  %a = fuser.gelu %h approximation = tanh : tensor<8192x32768xbf16> -> tensor<8192x32768xbf16>
  %y = fuser.linear %a, %w2 : (tensor<8192x32768xbf16>, tensor<8192x32768xbf16, #cols>) -> tensor<8192x8192xbf16, #replicated_s1>
  return %y : tensor<8192x8192xbf16, #replicated_s1>
}

func.func @tp_mlp_s4(%x: tensor<8192x8192xbf16, #replicated>, %w1: tensor<32768x8192xbf16, #rows>, %w2: tensor<8192x32768xbf16, #cols>) -> tensor<8192x8192xbf16, #replicated_s4> {
  %h = fuser.linear %x, %w1 : (tensor<8192x8192xbf16, #replicated>, tensor<32768x8192xbf16, #rows>) -> tensor<8192x32768xbf16>
  %a = fuser.gelu %h approximation = tanh : tensor<8192x32768xbf16> -> tensor<8192x32768xbf16>
  %y = fuser.linear %a, %w2 : (tensor<8192x32768xbf16>, tensor<8192x32768xbf16, #cols>) -> tensor<8192x8192xbf16, #replicated_s4>
  return %y : tensor<8192x8192xbf16, #replicated_s4>
}

func.func @sp_mlp_s1(%x: tensor<8192x8192xbf16, #rows_s1>, %w1: tensor<32768x8192xbf16, #rows>, %w2: tensor<8192x32768xbf16, #cols>) -> tensor<8192x8192xbf16, #rows_s1> {
  %h = fuser.linear %x, %w1 : (tensor<8192x8192xbf16, #rows_s1>, tensor<32768x8192xbf16, #rows>) -> tensor<8192x32768xbf16>
  %a = fuser.gelu %h approximation = tanh : tensor<8192x32768xbf16> -> tensor<8192x32768xbf16>
  %y = fuser.linear %a, %w2 : (tensor<8192x32768xbf16>, tensor<8192x32768xbf16, #cols>) -> tensor<8192x8192xbf16, #rows_s1>
  return %y : tensor<8192x8192xbf16, #rows_s1>
}

func.func @sp_mlp_s4(%x: tensor<8192x8192xbf16, #rows_s4>, %w1: tensor<32768x8192xbf16, #rows>, %w2: tensor<8192x32768xbf16, #cols>) -> tensor<8192x8192xbf16, #rows_s4> {
  %h = fuser.linear %x, %w1 : (tensor<8192x8192xbf16, #rows_s4>, tensor<32768x8192xbf16, #rows>) -> tensor<8192x32768xbf16>
  %a = fuser.gelu %h approximation = tanh : tensor<8192x32768xbf16> -> tensor<8192x32768xbf16>
  %y = fuser.linear %a, %w2 : (tensor<8192x32768xbf16>, tensor<8192x32768xbf16, #cols>) -> tensor<8192x8192xbf16, #rows_s4>
  return %y : tensor<8192x8192xbf16, #rows_s4>
}
