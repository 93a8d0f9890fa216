// The programs of kernels.mlir at small shapes, for checks against the CPU
// reference on one device (test/e2e/bench-kernels.test on CPU ranks, and
// scripts/run-gpu-tests.sh on one GPU, also under compute-sanitizer):
// rows of a power of two and rows of 1000 elements, which leave a tail
// after any vector width.

func.func @bias_gelu_64x512(%x: tensor<64x512xbf16>, %b: tensor<512xbf16>) -> tensor<64x512xbf16> {
  %xf = fuser.cast %x : tensor<64x512xbf16> -> tensor<64x512xf32>
  %bf = fuser.cast %b : tensor<512xbf16> -> tensor<512xf32>
  %bb = fuser.broadcast %bf dims = [1] : tensor<512xf32> -> tensor<64x512xf32>
  %s = fuser.add %xf, %bb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %yf = fuser.gelu %s approximation = tanh : tensor<64x512xf32> -> tensor<64x512xf32>
  %y = fuser.cast %yf : tensor<64x512xf32> -> tensor<64x512xbf16>
  return %y : tensor<64x512xbf16>
}

func.func @bias_gelu_37x1000(%x: tensor<37x1000xbf16>, %b: tensor<1000xbf16>) -> tensor<37x1000xbf16> {
  %xf = fuser.cast %x : tensor<37x1000xbf16> -> tensor<37x1000xf32>
  %bf = fuser.cast %b : tensor<1000xbf16> -> tensor<1000xf32>
  %bb = fuser.broadcast %bf dims = [1] : tensor<1000xf32> -> tensor<37x1000xf32>
  %s = fuser.add %xf, %bb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %yf = fuser.gelu %s approximation = tanh : tensor<37x1000xf32> -> tensor<37x1000xf32>
  %y = fuser.cast %yf : tensor<37x1000xf32> -> tensor<37x1000xbf16>
  return %y : tensor<37x1000xbf16>
}

func.func @softmax_64x512(%x: tensor<64x512xbf16>) -> tensor<64x512xbf16> {
  %xf = fuser.cast %x : tensor<64x512xbf16> -> tensor<64x512xf32>
  %mx = fuser.max %xf dims = [1] keepdim : tensor<64x512xf32> -> tensor<64x1xf32>
  %mxb = fuser.expand %mx : tensor<64x1xf32> -> tensor<64x512xf32>
  %d = fuser.sub %xf, %mxb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %e = fuser.exp %d : tensor<64x512xf32> -> tensor<64x512xf32>
  %s = fuser.sum %e dims = [1] keepdim : tensor<64x512xf32> -> tensor<64x1xf32>
  %sb = fuser.expand %s : tensor<64x1xf32> -> tensor<64x512xf32>
  %yf = fuser.div %e, %sb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %y = fuser.cast %yf : tensor<64x512xf32> -> tensor<64x512xbf16>
  return %y : tensor<64x512xbf16>
}

func.func @softmax_37x1000(%x: tensor<37x1000xbf16>) -> tensor<37x1000xbf16> {
  %xf = fuser.cast %x : tensor<37x1000xbf16> -> tensor<37x1000xf32>
  %mx = fuser.max %xf dims = [1] keepdim : tensor<37x1000xf32> -> tensor<37x1xf32>
  %mxb = fuser.expand %mx : tensor<37x1xf32> -> tensor<37x1000xf32>
  %d = fuser.sub %xf, %mxb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %e = fuser.exp %d : tensor<37x1000xf32> -> tensor<37x1000xf32>
  %s = fuser.sum %e dims = [1] keepdim : tensor<37x1000xf32> -> tensor<37x1xf32>
  %sb = fuser.expand %s : tensor<37x1xf32> -> tensor<37x1000xf32>
  %yf = fuser.div %e, %sb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %y = fuser.cast %yf : tensor<37x1000xf32> -> tensor<37x1000xbf16>
  return %y : tensor<37x1000xbf16>
}

func.func @layer_norm_64x512(%x: tensor<64x512xbf16>, %w: tensor<512xbf16>, %b: tensor<512xbf16>) -> tensor<64x512xbf16> {
  %xf = fuser.cast %x : tensor<64x512xbf16> -> tensor<64x512xf32>
  %var, %mean = fuser.var_mean %xf dims = [1] keepdim {correction = 0 : i64} : tensor<64x512xf32> -> tensor<64x1xf32>, tensor<64x1xf32>
  %eps = fuser.full 1.0e-5 : tensor<64x1xf32>
  %ve = fuser.add %var, %eps : (tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x1xf32>
  %r = fuser.rsqrt %ve : tensor<64x1xf32> -> tensor<64x1xf32>
  %mb = fuser.expand %mean : tensor<64x1xf32> -> tensor<64x512xf32>
  %rb = fuser.expand %r : tensor<64x1xf32> -> tensor<64x512xf32>
  %c = fuser.sub %xf, %mb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %n = fuser.mul %c, %rb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %wf = fuser.cast %w : tensor<512xbf16> -> tensor<512xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<512xf32> -> tensor<64x512xf32>
  %bf = fuser.cast %b : tensor<512xbf16> -> tensor<512xf32>
  %bb = fuser.broadcast %bf dims = [1] : tensor<512xf32> -> tensor<64x512xf32>
  %scaled = fuser.mul %n, %wb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %yf = fuser.add %scaled, %bb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %y = fuser.cast %yf : tensor<64x512xf32> -> tensor<64x512xbf16>
  return %y : tensor<64x512xbf16>
}

func.func @layer_norm_37x1000(%x: tensor<37x1000xbf16>, %w: tensor<1000xbf16>, %b: tensor<1000xbf16>) -> tensor<37x1000xbf16> {
  %xf = fuser.cast %x : tensor<37x1000xbf16> -> tensor<37x1000xf32>
  %var, %mean = fuser.var_mean %xf dims = [1] keepdim {correction = 0 : i64} : tensor<37x1000xf32> -> tensor<37x1xf32>, tensor<37x1xf32>
  %eps = fuser.full 1.0e-5 : tensor<37x1xf32>
  %ve = fuser.add %var, %eps : (tensor<37x1xf32>, tensor<37x1xf32>) -> tensor<37x1xf32>
  %r = fuser.rsqrt %ve : tensor<37x1xf32> -> tensor<37x1xf32>
  %mb = fuser.expand %mean : tensor<37x1xf32> -> tensor<37x1000xf32>
  %rb = fuser.expand %r : tensor<37x1xf32> -> tensor<37x1000xf32>
  %c = fuser.sub %xf, %mb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %n = fuser.mul %c, %rb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %wf = fuser.cast %w : tensor<1000xbf16> -> tensor<1000xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<1000xf32> -> tensor<37x1000xf32>
  %bf = fuser.cast %b : tensor<1000xbf16> -> tensor<1000xf32>
  %bb = fuser.broadcast %bf dims = [1] : tensor<1000xf32> -> tensor<37x1000xf32>
  %scaled = fuser.mul %n, %wb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %yf = fuser.add %scaled, %bb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %y = fuser.cast %yf : tensor<37x1000xf32> -> tensor<37x1000xbf16>
  return %y : tensor<37x1000xbf16>
}

func.func @rms_norm_64x512(%x: tensor<64x512xbf16>, %w: tensor<512xbf16>) -> tensor<64x512xbf16> {
  %xf = fuser.cast %x : tensor<64x512xbf16> -> tensor<64x512xf32>
  %sq = fuser.mul %xf, %xf : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %ms = fuser.mean %sq dims = [1] keepdim : tensor<64x512xf32> -> tensor<64x1xf32>
  %eps = fuser.full 1.0e-6 : tensor<64x1xf32>
  %mse = fuser.add %ms, %eps : (tensor<64x1xf32>, tensor<64x1xf32>) -> tensor<64x1xf32>
  %r = fuser.rsqrt %mse : tensor<64x1xf32> -> tensor<64x1xf32>
  %rb = fuser.expand %r : tensor<64x1xf32> -> tensor<64x512xf32>
  %n = fuser.mul %xf, %rb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %wf = fuser.cast %w : tensor<512xbf16> -> tensor<512xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<512xf32> -> tensor<64x512xf32>
  %yf = fuser.mul %n, %wb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %y = fuser.cast %yf : tensor<64x512xf32> -> tensor<64x512xbf16>
  return %y : tensor<64x512xbf16>
}

func.func @rms_norm_37x1000(%x: tensor<37x1000xbf16>, %w: tensor<1000xbf16>) -> tensor<37x1000xbf16> {
  %xf = fuser.cast %x : tensor<37x1000xbf16> -> tensor<37x1000xf32>
  %sq = fuser.mul %xf, %xf : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %ms = fuser.mean %sq dims = [1] keepdim : tensor<37x1000xf32> -> tensor<37x1xf32>
  %eps = fuser.full 1.0e-6 : tensor<37x1xf32>
  %mse = fuser.add %ms, %eps : (tensor<37x1xf32>, tensor<37x1xf32>) -> tensor<37x1xf32>
  %r = fuser.rsqrt %mse : tensor<37x1xf32> -> tensor<37x1xf32>
  %rb = fuser.expand %r : tensor<37x1xf32> -> tensor<37x1000xf32>
  %n = fuser.mul %xf, %rb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %wf = fuser.cast %w : tensor<1000xbf16> -> tensor<1000xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<1000xf32> -> tensor<37x1000xf32>
  %yf = fuser.mul %n, %wb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %y = fuser.cast %yf : tensor<37x1000xf32> -> tensor<37x1000xbf16>
  return %y : tensor<37x1000xbf16>
}
