// The launch-bound program of program.mlir on one GPU
// (FUSER_HOST_OVERHEAD_RANKS=1 bench/host-overhead/run.sh): the same two
// MLP blocks on x [16, 64] with their weights whole: an execution issues
// the same four linears and four kernels, and no communication.

func.func @host_overhead_local(%x: tensor<16x64xf32>,
                               %w1: tensor<128x64xf32>,
                               %w2: tensor<64x128xf32>) -> tensor<16x64xf32> {
  %h1 = fuser.linear %x, %w1
      : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32>
  %s1 = fuser.sigmoid %h1 : tensor<16x128xf32> -> tensor<16x128xf32>
  %a1 = fuser.mul %h1, %s1 : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xf32>
  %y1 = fuser.linear %a1, %w2
      : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32>
  %r1 = fuser.add %x, %y1 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  %h2 = fuser.linear %r1, %w1
      : (tensor<16x64xf32>, tensor<128x64xf32>) -> tensor<16x128xf32>
  %s2 = fuser.sigmoid %h2 : tensor<16x128xf32> -> tensor<16x128xf32>
  %a2 = fuser.mul %h2, %s2 : (tensor<16x128xf32>, tensor<16x128xf32>) -> tensor<16x128xf32>
  %y2 = fuser.linear %a2, %w2
      : (tensor<16x128xf32>, tensor<64x128xf32>) -> tensor<16x64xf32>
  %r2 = fuser.add %r1, %y2 : (tensor<16x64xf32>, tensor<16x64xf32>) -> tensor<16x64xf32>
  return %r2 : tensor<16x64xf32>
}
