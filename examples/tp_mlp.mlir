// Tensor-parallel MLP on 2 ranks, with every data movement explicit:
// column-parallel first linear (weight split by rows), row-parallel second
// linear (weight split by columns) leaving a partial sum, one allreduce.
//
// Global shapes: x [8, 64], w1 [256, 64], w2 [64, 256].

#mesh = #fuser.mesh<[2]>
#replicated = #fuser.sharding<#mesh, [[], []]>
#split_rows = #fuser.sharding<#mesh, [[0], []]>
#split_cols = #fuser.sharding<#mesh, [[], [0]]>
#partial_sum = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>

func.func @tp_mlp(%x: tensor<8x64xf32, #replicated>,
                  %w1: tensor<256x64xf32, #split_rows>,
                  %w2: tensor<64x256xf32, #split_cols>)
    -> tensor<8x64xf32, #replicated> {
  // Each rank computes 128 of the 256 hidden features.
  %h = fuser.linear %x, %w1
      : (tensor<8x64xf32, #replicated>, tensor<256x64xf32, #split_rows>)
      -> tensor<8x256xf32, #split_cols>
  %a = fuser.gelu %h approximation = tanh
      : tensor<8x256xf32, #split_cols> -> tensor<8x256xf32, #split_cols>
  // Contracting the split hidden dim leaves each rank a partial sum.
  %p = fuser.linear %a, %w2
      : (tensor<8x256xf32, #split_cols>, tensor<64x256xf32, #split_cols>)
      -> tensor<8x64xf32, #partial_sum>
  %y = fuser.comm.allreduce %p axis = 0
      : tensor<8x64xf32, #partial_sum> -> tensor<8x64xf32, #replicated>
  return %y : tensor<8x64xf32, #replicated>
}
