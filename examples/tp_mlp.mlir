// Tensor-parallel MLP on 2 ranks. Only the weights are annotated: the first
// is split by output features (column-parallel), the second by input
// features (row-parallel). The compiler propagates shardings to every value
// and turns the one data movement this needs into an allreduce.
//
// Global shapes: x [8, 64], w1 [256, 64], w2 [64, 256].

#mesh = #fuser.mesh<[2]>
#split_rows = #fuser.sharding<#mesh, [[0], []]>
#split_cols = #fuser.sharding<#mesh, [[], [0]]>

func.func @tp_mlp(%x: tensor<8x64xf32>,
                  %w1: tensor<256x64xf32, #split_rows>,
                  %w2: tensor<64x256xf32, #split_cols>) -> tensor<8x64xf32> {
  %h = fuser.linear %x, %w1
      : (tensor<8x64xf32>, tensor<256x64xf32, #split_rows>) -> tensor<8x256xf32>
  %a = fuser.gelu %h approximation = tanh : tensor<8x256xf32> -> tensor<8x256xf32>
  %y = fuser.linear %a, %w2
      : (tensor<8x256xf32>, tensor<64x256xf32, #split_cols>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}
