// The tensor-parallel MLP in bf16: linears accumulate in f32, the gelu
// computes in f32, the allreduce adds bf16 values in f32.
#mesh = #fuser.mesh<[2]>
#split_rows = #fuser.sharding<#mesh, [[0], []]>
#split_cols = #fuser.sharding<#mesh, [[], [0]]>

func.func @tp_mlp_bf16(%x: tensor<8x64xbf16>,
                  %w1: tensor<256x64xbf16, #split_rows>,
                  %w2: tensor<64x256xbf16, #split_cols>) -> tensor<8x64xbf16> {
  %h = fuser.linear %x, %w1
      : (tensor<8x64xbf16>, tensor<256x64xbf16, #split_rows>) -> tensor<8x256xbf16>
  %a = fuser.gelu %h approximation = tanh : tensor<8x256xbf16> -> tensor<8x256xbf16>
  %y = fuser.linear %a, %w2
      : (tensor<8x256xbf16>, tensor<64x256xbf16, #split_cols>) -> tensor<8x64xbf16>
  return %y : tensor<8x64xbf16>
}
