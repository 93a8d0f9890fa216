// Memory-bound kernels for the one-GPU benchmark (bench/kernels/bench_kernels.py),
// in bf16 at sizes that move at least 1 GB (every tensor [T, H] is 1 GiB):
//   bias_gelu_TxH   y = gelu_tanh(x + b)                        x [T, H], b [H]
//   softmax_TxH     y = softmax(x) over the last dim
//   layer_norm_TxH  y = (x - mean) * rsqrt(var + 1e-5) * w + b  over the last dim
//   rms_norm_TxH    y = x * rsqrt(mean(x^2) + 1e-6) * w         over the last dim
// and the transformer layer's backward and dropout kernels:
//   gelu_backward_TxH        dx = dy * gelu_tanh'(x) = dy * s (1 + 2c x (1 - s) (1 + 3a x^2)),
//                            s = sigmoid(2c (x + a x^3)), c = sqrt(2/pi), a = 0.044715
//   layer_norm_backward_TxH  dx = rstd * (g - mean(g) - xhat * mean(g * xhat)),
//                            g = dy * w, xhat = (x - mean) * rstd, with the
//                            forward's per-row mean and rstd (f32)
//   dropout_residual_TxH     y = r + x * mask / 0.9, mask = (uniform >= 0.1)
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

func.func @gelu_backward_65536x8192(%dy: tensor<65536x8192xbf16>, %x: tensor<65536x8192xbf16>) -> tensor<65536x8192xbf16> {
  %g = fuser.cast %dy : tensor<65536x8192xbf16> -> tensor<65536x8192xf32>
  %xf = fuser.cast %x : tensor<65536x8192xbf16> -> tensor<65536x8192xf32>
  %sq = fuser.mul %xf, %xf : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %cube = fuser.mul %sq, %xf : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %a = fuser.full 0.044715 : tensor<65536x8192xf32>
  %ac = fuser.mul %cube, %a : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %in = fuser.add %xf, %ac : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %twoc = fuser.full 1.5957691216057308 : tensor<65536x8192xf32>
  %u2 = fuser.mul %in, %twoc : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %s = fuser.sigmoid %u2 : tensor<65536x8192xf32> -> tensor<65536x8192xf32>
  %one = fuser.full 1.0 : tensor<65536x8192xf32>
  %oms = fuser.sub %one, %s : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %xoms = fuser.mul %xf, %oms : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %lead = fuser.mul %xoms, %twoc : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %a3 = fuser.full 0.134145 : tensor<65536x8192xf32>
  %sq3 = fuser.mul %sq, %a3 : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %slope = fuser.add %one, %sq3 : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %tail = fuser.mul %lead, %slope : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %inner = fuser.add %one, %tail : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %d = fuser.mul %s, %inner : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %dxf = fuser.mul %g, %d : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %dx = fuser.cast %dxf : tensor<65536x8192xf32> -> tensor<65536x8192xbf16>
  return %dx : tensor<65536x8192xbf16>
}

func.func @layer_norm_backward_524288x1024(%dy: tensor<524288x1024xbf16>, %x: tensor<524288x1024xbf16>, %w: tensor<1024xbf16>, %mean: tensor<524288xf32>, %rstd: tensor<524288xf32>) -> tensor<524288x1024xbf16> {
  %g = fuser.cast %dy : tensor<524288x1024xbf16> -> tensor<524288x1024xf32>
  %xf = fuser.cast %x : tensor<524288x1024xbf16> -> tensor<524288x1024xf32>
  %wf = fuser.cast %w : tensor<1024xbf16> -> tensor<1024xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<1024xf32> -> tensor<524288x1024xf32>
  %mb = fuser.broadcast %mean dims = [0] : tensor<524288xf32> -> tensor<524288x1024xf32>
  %rb = fuser.broadcast %rstd dims = [0] : tensor<524288xf32> -> tensor<524288x1024xf32>
  %centered = fuser.sub %xf, %mb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %xhat = fuser.mul %centered, %rb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %gw = fuser.mul %g, %wb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %s1 = fuser.mean %gw dims = [1] keepdim : tensor<524288x1024xf32> -> tensor<524288x1xf32>
  %s1b = fuser.expand %s1 : tensor<524288x1xf32> -> tensor<524288x1024xf32>
  %gx = fuser.mul %gw, %xhat : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %s2 = fuser.mean %gx dims = [1] keepdim : tensor<524288x1024xf32> -> tensor<524288x1xf32>
  %s2b = fuser.expand %s2 : tensor<524288x1xf32> -> tensor<524288x1024xf32>
  %proj = fuser.mul %xhat, %s2b : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %u = fuser.sub %gw, %s1b : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %v = fuser.sub %u, %proj : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %dxf = fuser.mul %v, %rb : (tensor<524288x1024xf32>, tensor<524288x1024xf32>) -> tensor<524288x1024xf32>
  %dx = fuser.cast %dxf : tensor<524288x1024xf32> -> tensor<524288x1024xbf16>
  return %dx : tensor<524288x1024xbf16>
}

func.func @layer_norm_backward_65536x8192(%dy: tensor<65536x8192xbf16>, %x: tensor<65536x8192xbf16>, %w: tensor<8192xbf16>, %mean: tensor<65536xf32>, %rstd: tensor<65536xf32>) -> tensor<65536x8192xbf16> {
  %g = fuser.cast %dy : tensor<65536x8192xbf16> -> tensor<65536x8192xf32>
  %xf = fuser.cast %x : tensor<65536x8192xbf16> -> tensor<65536x8192xf32>
  %wf = fuser.cast %w : tensor<8192xbf16> -> tensor<8192xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<8192xf32> -> tensor<65536x8192xf32>
  %mb = fuser.broadcast %mean dims = [0] : tensor<65536xf32> -> tensor<65536x8192xf32>
  %rb = fuser.broadcast %rstd dims = [0] : tensor<65536xf32> -> tensor<65536x8192xf32>
  %centered = fuser.sub %xf, %mb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %xhat = fuser.mul %centered, %rb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %gw = fuser.mul %g, %wb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %s1 = fuser.mean %gw dims = [1] keepdim : tensor<65536x8192xf32> -> tensor<65536x1xf32>
  %s1b = fuser.expand %s1 : tensor<65536x1xf32> -> tensor<65536x8192xf32>
  %gx = fuser.mul %gw, %xhat : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %s2 = fuser.mean %gx dims = [1] keepdim : tensor<65536x8192xf32> -> tensor<65536x1xf32>
  %s2b = fuser.expand %s2 : tensor<65536x1xf32> -> tensor<65536x8192xf32>
  %proj = fuser.mul %xhat, %s2b : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %u = fuser.sub %gw, %s1b : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %v = fuser.sub %u, %proj : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %dxf = fuser.mul %v, %rb : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %dx = fuser.cast %dxf : tensor<65536x8192xf32> -> tensor<65536x8192xbf16>
  return %dx : tensor<65536x8192xbf16>
}

func.func @dropout_residual_65536x8192(%x: tensor<65536x8192xbf16>, %r: tensor<65536x8192xbf16>) -> tensor<65536x8192xbf16> {
  %u = fuser.uniform low = 0.0, high = 1.0, seed = 1 : tensor<65536x8192xf32>
  %p = fuser.full 0.1 : tensor<65536x8192xf32>
  %keep = fuser.compare ge, %u, %p : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xi1>
  %scale = fuser.full 1.1111111111111112 : tensor<65536x8192xf32>
  %zero = fuser.full 0.0 : tensor<65536x8192xf32>
  %mask = fuser.where %keep, %scale, %zero : (tensor<65536x8192xi1>, tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %xf = fuser.cast %x : tensor<65536x8192xbf16> -> tensor<65536x8192xf32>
  %rf = fuser.cast %r : tensor<65536x8192xbf16> -> tensor<65536x8192xf32>
  %dropped = fuser.mul %xf, %mask : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %yf = fuser.add %rf, %dropped : (tensor<65536x8192xf32>, tensor<65536x8192xf32>) -> tensor<65536x8192xf32>
  %y = fuser.cast %yf : tensor<65536x8192xf32> -> tensor<65536x8192xbf16>
  return %y : tensor<65536x8192xbf16>
}
