// AG+GEMM and GEMM+RS in bf16 on 2 devices, pipelined over 4 stream
// chunks: the programs the GPU runs check against the CPU reference.
// ag_gemm_M_K_N: x [M, K] split by rows (sequence parallel), w [N, K]
// split by rows (column parallel), y [M, N] split by columns.
// gemm_rs_M_K_N: x [M, K] and w [N, K] split on K (row parallel), y [M, N]
// split by rows.
#mesh = #fuser.mesh<[2]>
#rows4 = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>

func.func @ag_gemm_2048_1024_4096(%x: tensor<2048x1024xbf16, #rows4>, %w: tensor<4096x1024xbf16, #rows>) -> tensor<2048x4096xbf16, #cols> {
  %y = fuser.linear %x, %w : (tensor<2048x1024xbf16, #rows4>, tensor<4096x1024xbf16, #rows>) -> tensor<2048x4096xbf16, #cols>
  return %y : tensor<2048x4096xbf16, #cols>
}

func.func @gemm_rs_2048_1024_4096(%x: tensor<2048x1024xbf16, #cols>, %w: tensor<4096x1024xbf16, #cols>) -> tensor<2048x4096xbf16, #rows4> {
  %y = fuser.linear %x, %w : (tensor<2048x1024xbf16, #cols>, tensor<4096x1024xbf16, #cols>) -> tensor<2048x4096xbf16, #rows4>
  return %y : tensor<2048x4096xbf16, #rows4>
}

func.func @ag_gemm_4096_4096_4096(%x: tensor<4096x4096xbf16, #rows4>, %w: tensor<4096x4096xbf16, #rows>) -> tensor<4096x4096xbf16, #cols> {
  %y = fuser.linear %x, %w : (tensor<4096x4096xbf16, #rows4>, tensor<4096x4096xbf16, #rows>) -> tensor<4096x4096xbf16, #cols>
  return %y : tensor<4096x4096xbf16, #cols>
}

func.func @gemm_rs_4096_4096_4096(%x: tensor<4096x4096xbf16, #cols>, %w: tensor<4096x4096xbf16, #cols>) -> tensor<4096x4096xbf16, #rows4> {
  %y = fuser.linear %x, %w : (tensor<4096x4096xbf16, #cols>, tensor<4096x4096xbf16, #cols>) -> tensor<4096x4096xbf16, #rows4>
  return %y : tensor<4096x4096xbf16, #rows4>
}

func.func @ag_gemm_8192_8192_8192(%x: tensor<8192x8192xbf16, #rows4>, %w: tensor<8192x8192xbf16, #rows>) -> tensor<8192x8192xbf16, #cols> {
  %y = fuser.linear %x, %w : (tensor<8192x8192xbf16, #rows4>, tensor<8192x8192xbf16, #rows>) -> tensor<8192x8192xbf16, #cols>
  return %y : tensor<8192x8192xbf16, #cols>
}

func.func @gemm_rs_8192_8192_8192(%x: tensor<8192x8192xbf16, #cols>, %w: tensor<8192x8192xbf16, #cols>) -> tensor<8192x8192xbf16, #rows4> {
  %y = fuser.linear %x, %w : (tensor<8192x8192xbf16, #cols>, tensor<8192x8192xbf16, #cols>) -> tensor<8192x8192xbf16, #rows4>
  return %y : tensor<8192x8192xbf16, #rows4>
}
