// Memory-bound kernels for the one-GPU benchmark (bench/kernels/bench_kernels.py),
// in bf16 at sizes that move at least 1 GB (every tensor [T, H] is 1 GiB):
//   bias_gelu_TxH   y = gelu_tanh(x + b)                        x [T, H], b [H]
//   softmax_TxH     y = softmax(x) over the last dim
//   layer_norm_TxH  y = (x - mean) * rsqrt(var + 1e-5) * w + b  over the last dim
//   rms_norm_TxH    y = x * rsqrt(mean(x^2) + 1e-6) * w         over the last dim
// Softmax and the norms come at rows of 1024, 4096 and 8192 elements, since the
// row length decides their schedule. Each program reads bf16, computes in
// f32 and writes bf16 once, as PyTorch's fused kernels do for bf16, so that
// both compute the same function. No tensor is annotated: a program runs on
// a mesh of one device (fuser-exec under mpirun -np 1).
// kernels-small.mlir holds the same programs at shapes the CPU checks.

func.func @bias_gelu_65536x8192(%x: tensor<65536x8192xbf16>, %b: tensor<8192xbf16>) -> tensor<65536x8192xbf16> {
  %xf = fuser.cast %x : tensor<65536x8192xbf16> -> tensor<65536x8192xf32>
  %bf = fuser.cast %b : tensor<8192xbf16> -> tensor<8192xf32>
  %bb = fuser.broadcast %bf dims = [1] : tensor<8192xf32> -> tensor<65536x8192xf32>
  %s = fuser.add %xf, %bb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %yf = fuser.gelu %s approximation = tanh : tensor<65536x8192xf32> -> tensor<65536x8192xf32>
  %y = fuser.cast %yf : tensor<65536x8192xf32> -> tensor<65536x8192xbf16>
  return %y : tensor<65536x8192xbf16>
}

func.func @softmax_524288x1024(%x: tensor<524288x1024xbf16>) -> tensor<524288x1024xbf16> {
  %xf = fuser.cast %x : tensor<524288x1024xbf16> -> tensor<524288x1024xf32>
  %mx = fuser.max %xf dims = [1] keepdim : tensor<524288x1024xf32> -> tensor<524288x1xf32>
  %mxb = fuser.expand %mx : tensor<524288x1xf32> -> tensor<524288x1024xf32>
  %d = fuser.sub %xf, %mxb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %e = fuser.exp %d : tensor<524288x1024xf32> -> tensor<524288x1024xf32>
  %s = fuser.sum %e dims = [1] keepdim : tensor<524288x1024xf32> -> tensor<524288x1xf32>
  %sb = fuser.expand %s : tensor<524288x1xf32> -> tensor<524288x1024xf32>
  %yf = fuser.div %e, %sb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %y = fuser.cast %yf : tensor<524288x1024xf32> -> tensor<524288x1024xbf16>
  return %y : tensor<524288x1024xbf16>
}

func.func @softmax_131072x4096(%x: tensor<131072x4096xbf16>) -> tensor<131072x4096xbf16> {
  %xf = fuser.cast %x : tensor<131072x4096xbf16> -> tensor<131072x4096xf32>
  %mx = fuser.max %xf dims = [1] keepdim : tensor<131072x4096xf32> -> tensor<131072x1xf32>
  %mxb = fuser.expand %mx : tensor<131072x1xf32> -> tensor<131072x4096xf32>
  %d = fuser.sub %xf, %mxb : (tensor<131072x4096xf32>, tensor<131072x4096xf32>) -> tensor<131072x4096xf32>
  %e = fuser.exp %d : tensor<131072x4096xf32> -> tensor<131072x4096xf32>
  %s = fuser.sum %e dims = [1] keepdim : tensor<131072x4096xf32> -> tensor<131072x1xf32>
  %sb = fuser.expand %s : tensor<131072x1xf32> -> tensor<131072x4096xf32>
  %yf = fuser.div %e, %sb : (tensor<131072x4096xf32>, tensor<131072x4096xf32>) -> tensor<131072x4096xf32>
  %y = fuser.cast %yf : tensor<131072x4096xf32> -> tensor<131072x4096xbf16>
  return %y : tensor<131072x4096xbf16>
}

func.func @softmax_65536x8192(%x: tensor<65536x8192xbf16>) -> tensor<65536x8192xbf16> {
  %xf = fuser.cast %x : tensor<65536x8192xbf16> -> tensor<65536x8192xf32>
  %mx = fuser.max %xf dims = [1] keepdim : tensor<65536x8192xf32> -> tensor<65536x1xf32>
  %mxb = fuser.expand %mx : tensor<65536x1xf32> -> tensor<65536x8192xf32>
  %d = fuser.sub %xf, %mxb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %e = fuser.exp %d : tensor<65536x8192xf32> -> tensor<65536x8192xf32>
  %s = fuser.sum %e dims = [1] keepdim : tensor<65536x8192xf32> -> tensor<65536x1xf32>
  %sb = fuser.expand %s : tensor<65536x1xf32> -> tensor<65536x8192xf32>
  %yf = fuser.div %e, %sb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %y = fuser.cast %yf : tensor<65536x8192xf32> -> tensor<65536x8192xbf16>
  return %y : tensor<65536x8192xbf16>
}

func.func @layer_norm_524288x1024(%x: tensor<524288x1024xbf16>, %w: tensor<1024xbf16>, %b: tensor<1024xbf16>) -> tensor<524288x1024xbf16> {
  %xf = fuser.cast %x : tensor<524288x1024xbf16> -> tensor<524288x1024xf32>
  %var, %mean = fuser.var_mean %xf dims = [1] keepdim {correction = 0 : i64} : tensor<524288x1024xf32> -> tensor<524288x1xf32>, tensor<524288x1xf32>
  %eps = fuser.full 1.0e-5 : tensor<524288x1xf32>
  %ve = fuser.add %var, %eps : (tensor<524288x1xf32>, tensor<524288x1xf32>) -> tensor<524288x1xf32>
  %r = fuser.rsqrt %ve : tensor<524288x1xf32> -> tensor<524288x1xf32>
  %mb = fuser.expand %mean : tensor<524288x1xf32> -> tensor<524288x1024xf32>
  %rb = fuser.expand %r : tensor<524288x1xf32> -> tensor<524288x1024xf32>
  %c = fuser.sub %xf, %mb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %n = fuser.mul %c, %rb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %wf = fuser.cast %w : tensor<1024xbf16> -> tensor<1024xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<1024xf32> -> tensor<524288x1024xf32>
  %bf = fuser.cast %b : tensor<1024xbf16> -> tensor<1024xf32>
  %bb = fuser.broadcast %bf dims = [1] : tensor<1024xf32> -> tensor<524288x1024xf32>
  %scaled = fuser.mul %n, %wb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %yf = fuser.add %scaled, %bb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %y = fuser.cast %yf : tensor<524288x1024xf32> -> tensor<524288x1024xbf16>
  return %y : tensor<524288x1024xbf16>
}

func.func @layer_norm_131072x4096(%x: tensor<131072x4096xbf16>, %w: tensor<4096xbf16>, %b: tensor<4096xbf16>) -> tensor<131072x4096xbf16> {
  %xf = fuser.cast %x : tensor<131072x4096xbf16> -> tensor<131072x4096xf32>
  %var, %mean = fuser.var_mean %xf dims = [1] keepdim {correction = 0 : i64} : tensor<131072x4096xf32> -> tensor<131072x1xf32>, tensor<131072x1xf32>
  %eps = fuser.full 1.0e-5 : tensor<131072x1xf32>
  %ve = fuser.add %var, %eps : (tensor<131072x1xf32>, tensor<131072x1xf32>) -> tensor<131072x1xf32>
  %r = fuser.rsqrt %ve : tensor<131072x1xf32> -> tensor<131072x1xf32>
  %mb = fuser.expand %mean : tensor<131072x1xf32> -> tensor<131072x4096xf32>
  %rb = fuser.expand %r : tensor<131072x1xf32> -> tensor<131072x4096xf32>
  %c = fuser.sub %xf, %mb : (tensor<131072x4096xf32>, tensor<131072x4096xf32>) -> tensor<131072x4096xf32>
  %n = fuser.mul %c, %rb : (tensor<131072x4096xf32>, tensor<131072x4096xf32>) -> tensor<131072x4096xf32>
  %wf = fuser.cast %w : tensor<4096xbf16> -> tensor<4096xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<4096xf32> -> tensor<131072x4096xf32>
  %bf = fuser.cast %b : tensor<4096xbf16> -> tensor<4096xf32>
  %bb = fuser.broadcast %bf dims = [1] : tensor<4096xf32> -> tensor<131072x4096xf32>
  %scaled = fuser.mul %n, %wb : (tensor<131072x4096xf32>, tensor<131072x4096xf32>) -> tensor<131072x4096xf32>
  %yf = fuser.add %scaled, %bb : (tensor<131072x4096xf32>, tensor<131072x4096xf32>) -> tensor<131072x4096xf32>
  %y = fuser.cast %yf : tensor<131072x4096xf32> -> tensor<131072x4096xbf16>
  return %y : tensor<131072x4096xbf16>
}

func.func @layer_norm_65536x8192(%x: tensor<65536x8192xbf16>, %w: tensor<8192xbf16>, %b: tensor<8192xbf16>) -> tensor<65536x8192xbf16> {
  %xf = fuser.cast %x : tensor<65536x8192xbf16> -> tensor<65536x8192xf32>
  %var, %mean = fuser.var_mean %xf dims = [1] keepdim {correction = 0 : i64} : tensor<65536x8192xf32> -> tensor<65536x1xf32>, tensor<65536x1xf32>
  %eps = fuser.full 1.0e-5 : tensor<65536x1xf32>
  %ve = fuser.add %var, %eps : (tensor<65536x1xf32>, tensor<65536x1xf32>) -> tensor<65536x1xf32>
  %r = fuser.rsqrt %ve : tensor<65536x1xf32> -> tensor<65536x1xf32>
  %mb = fuser.expand %mean : tensor<65536x1xf32> -> tensor<65536x8192xf32>
  %rb = fuser.expand %r : tensor<65536x1xf32> -> tensor<65536x8192xf32>
  %c = fuser.sub %xf, %mb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %n = fuser.mul %c, %rb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %wf = fuser.cast %w : tensor<8192xbf16> -> tensor<8192xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<8192xf32> -> tensor<65536x8192xf32>
  %bf = fuser.cast %b : tensor<8192xbf16> -> tensor<8192xf32>
  %bb = fuser.broadcast %bf dims = [1] : tensor<8192xf32> -> tensor<65536x8192xf32>
  %scaled = fuser.mul %n, %wb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %yf = fuser.add %scaled, %bb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %y = fuser.cast %yf : tensor<65536x8192xf32> -> tensor<65536x8192xbf16>
  return %y : tensor<65536x8192xbf16>
}

func.func @rms_norm_524288x1024(%x: tensor<524288x1024xbf16>, %w: tensor<1024xbf16>) -> tensor<524288x1024xbf16> {
  %xf = fuser.cast %x : tensor<524288x1024xbf16> -> tensor<524288x1024xf32>
  %sq = fuser.mul %xf, %xf : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %ms = fuser.mean %sq dims = [1] keepdim : tensor<524288x1024xf32> -> tensor<524288x1xf32>
  %eps = fuser.full 1.0e-6 : tensor<524288x1xf32>
  %mse = fuser.add %ms, %eps : (tensor<524288x1xf32>, tensor<524288x1xf32>) -> tensor<524288x1xf32>
  %r = fuser.rsqrt %mse : tensor<524288x1xf32> -> tensor<524288x1xf32>
  %rb = fuser.expand %r : tensor<524288x1xf32> -> tensor<524288x1024xf32>
  %n = fuser.mul %xf, %rb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %wf = fuser.cast %w : tensor<1024xbf16> -> tensor<1024xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<1024xf32> -> tensor<524288x1024xf32>
  %yf = fuser.mul %n, %wb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %y = fuser.cast %yf : tensor<524288x1024xf32> -> tensor<524288x1024xbf16>
  return %y : tensor<524288x1024xbf16>
}

func.func @rms_norm_131072x4096(%x: tensor<131072x4096xbf16>, %w: tensor<4096xbf16>) -> tensor<131072x4096xbf16> {
  %xf = fuser.cast %x : tensor<131072x4096xbf16> -> tensor<131072x4096xf32>
  %sq = fuser.mul %xf, %xf : (tensor<131072x4096xf32>, tensor<131072x4096xf32>) -> tensor<131072x4096xf32>
  %ms = fuser.mean %sq dims = [1] keepdim : tensor<131072x4096xf32> -> tensor<131072x1xf32>
  %eps = fuser.full 1.0e-6 : tensor<131072x1xf32>
  %mse = fuser.add %ms, %eps : (tensor<131072x1xf32>, tensor<131072x1xf32>) -> tensor<131072x1xf32>
  %r = fuser.rsqrt %mse : tensor<131072x1xf32> -> tensor<131072x1xf32>
  %rb = fuser.expand %r : tensor<131072x1xf32> -> tensor<131072x4096xf32>
  %n = fuser.mul %xf, %rb : (tensor<131072x4096xf32>, tensor<131072x4096xf32>) -> tensor<131072x4096xf32>
  %wf = fuser.cast %w : tensor<4096xbf16> -> tensor<4096xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<4096xf32> -> tensor<131072x4096xf32>
  %yf = fuser.mul %n, %wb : (tensor<131072x4096xf32>, tensor<131072x4096xf32>) -> tensor<131072x4096xf32>
  %y = fuser.cast %yf : tensor<131072x4096xf32> -> tensor<131072x4096xbf16>
  return %y : tensor<131072x4096xbf16>
}

func.func @rms_norm_65536x8192(%x: tensor<65536x8192xbf16>, %w: tensor<8192xbf16>) -> tensor<65536x8192xbf16> {
  %xf = fuser.cast %x : tensor<65536x8192xbf16> -> tensor<65536x8192xf32>
  %sq = fuser.mul %xf, %xf : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %ms = fuser.mean %sq dims = [1] keepdim : tensor<65536x8192xf32> -> tensor<65536x1xf32>
  %eps = fuser.full 1.0e-6 : tensor<65536x1xf32>
  %mse = fuser.add %ms, %eps : (tensor<65536x1xf32>, tensor<65536x1xf32>) -> tensor<65536x1xf32>
  %r = fuser.rsqrt %mse : tensor<65536x1xf32> -> tensor<65536x1xf32>
  %rb = fuser.expand %r : tensor<65536x1xf32> -> tensor<65536x8192xf32>
  %n = fuser.mul %xf, %rb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %wf = fuser.cast %w : tensor<8192xbf16> -> tensor<8192xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<8192xf32> -> tensor<65536x8192xf32>
  %yf = fuser.mul %n, %wb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %y = fuser.cast %yf : tensor<65536x8192xf32> -> tensor<65536x8192xbf16>
  return %y : tensor<65536x8192xbf16>
}
