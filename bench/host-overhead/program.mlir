// A launch-bound program for measuring the host's cost per execution
// (bench/host-overhead/run.sh): two tensor-parallel MLP blocks on a tiny
// activation x [16, 64], sharing their weights, which are split over 2
// ranks (the first by output features, the second by input features). Each
// block is a linear, a SiLU kernel (x * sigmoid(x): a GELU would go into
// the linear's cuBLASLt epilogue), a linear, an allreduce of its partial
// sums and a kernel adding its input back. The host program issues ten
// device operations (four linears, four kernels, two allreduces; see
// fuser-opt --fuser-to-hostir-pipeline), each of microseconds on a GPU, so
// that an execution costs about what it takes to issue.

#mesh = #fuser.mesh<[2]>
#split_rows = #fuser.sharding<#mesh, [[0], []]>
#split_cols = #fuser.sharding<#mesh, [[], [0]]>

func.func @host_overhead(%x: tensor<16x64xf32>,
                         %w1: tensor<128x64xf32, #split_rows>,
                         %w2: tensor<64x128xf32, #split_cols>) -> tensor<16x64xf32> {
  %h1 = fuser.linear %x, %w1
      : (tensor<16x64xf32>, tensor<128x64xf32, #split_rows>) -> tensor<16x128xf32>
  %s1 = fuser.sigmoid %h1 : tensor<16x128xf32> -> tensor<16x128xf32>
  %a1 = fuser.mul %h1, %s1 : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xf32>
  %y1 = fuser.linear %a1, %w2
      : (tensor<16x128xf32>, tensor<64x128xf32, #split_cols>) -> tensor<16x64xf32>
  %r1 = fuser.add %x, %y1 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %h2 = fuser.linear %r1, %w1
      : (tensor<16x64xf32>, tensor<128x64xf32, #split_rows>) -> tensor<16x128xf32>
  %s2 = fuser.sigmoid %h2 : tensor<16x128xf32> -> tensor<16x128xf32>
  %a2 = fuser.mul %h2, %s2 : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xf32>
  %y2 = fuser.linear %a2, %w2
      : (tensor<16x128xf32>, tensor<64x128xf32, #split_cols>) -> tensor<16x64xf32>
  %r2 = fuser.add %r1, %y2 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r2 : tensor<16x64xf32>
}
