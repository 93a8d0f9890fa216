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

func.func @gelu_backward_64x512(%dy: tensor<64x512xbf16>, %x: tensor<64x512xbf16>) -> tensor<64x512xbf16> {
  %g = fuser.cast %dy : tensor<64x512xbf16> -> tensor<64x512xf32>
  %xf = fuser.cast %x : tensor<64x512xbf16> -> tensor<64x512xf32>
  %sq = fuser.mul %xf, %xf : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %cube = fuser.mul %sq, %xf : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %a = fuser.full 0.044715 : tensor<64x512xf32>
  %ac = fuser.mul %cube, %a : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %in = fuser.add %xf, %ac : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %twoc = fuser.full 1.5957691216057308 : tensor<64x512xf32>
  %u2 = fuser.mul %in, %twoc : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %s = fuser.sigmoid %u2 : tensor<64x512xf32> -> tensor<64x512xf32>
  %one = fuser.full 1.0 : tensor<64x512xf32>
  %oms = fuser.sub %one, %s : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %xoms = fuser.mul %xf, %oms : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %lead = fuser.mul %xoms, %twoc : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %a3 = fuser.full 0.134145 : tensor<64x512xf32>
  %sq3 = fuser.mul %sq, %a3 : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %slope = fuser.add %one, %sq3 : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %tail = fuser.mul %lead, %slope : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %inner = fuser.add %one, %tail : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %d = fuser.mul %s, %inner : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %dxf = fuser.mul %g, %d : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %dx = fuser.cast %dxf : tensor<64x512xf32> -> tensor<64x512xbf16>
  return %dx : tensor<64x512xbf16>
}

func.func @layer_norm_backward_64x512(%dy: tensor<64x512xbf16>, %x: tensor<64x512xbf16>, %w: tensor<512xbf16>, %mean: tensor<64xf32>, %rstd: tensor<64xf32>) -> tensor<64x512xbf16> {
  %g = fuser.cast %dy : tensor<64x512xbf16> -> tensor<64x512xf32>
  %xf = fuser.cast %x : tensor<64x512xbf16> -> tensor<64x512xf32>
  %wf = fuser.cast %w : tensor<512xbf16> -> tensor<512xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<512xf32> -> tensor<64x512xf32>
  %mb = fuser.broadcast %mean dims = [0] : tensor<64xf32> -> tensor<64x512xf32>
  %rb = fuser.broadcast %rstd dims = [0] : tensor<64xf32> -> tensor<64x512xf32>
  %centered = fuser.sub %xf, %mb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %xhat = fuser.mul %centered, %rb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %gw = fuser.mul %g, %wb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %s1 = fuser.mean %gw dims = [1] keepdim : tensor<64x512xf32> -> tensor<64x1xf32>
  %s1b = fuser.expand %s1 : tensor<64x1xf32> -> tensor<64x512xf32>
  %gx = fuser.mul %gw, %xhat : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %s2 = fuser.mean %gx dims = [1] keepdim : tensor<64x512xf32> -> tensor<64x1xf32>
  %s2b = fuser.expand %s2 : tensor<64x1xf32> -> tensor<64x512xf32>
  %proj = fuser.mul %xhat, %s2b : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %u = fuser.sub %gw, %s1b : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %v = fuser.sub %u, %proj : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %dxf = fuser.mul %v, %rb : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %dx = fuser.cast %dxf : tensor<64x512xf32> -> tensor<64x512xbf16>
  return %dx : tensor<64x512xbf16>
}

func.func @dropout_residual_64x512(%x: tensor<64x512xbf16>, %r: tensor<64x512xbf16>) -> tensor<64x512xbf16> {
  %u = fuser.uniform low = 0.0, high = 1.0, seed = 1 : tensor<64x512xf32>
  %p = fuser.full 0.1 : tensor<64x512xf32>
  %keep = fuser.compare ge, %u, %p : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xi1>
  %scale = fuser.full 1.1111111111111112 : tensor<64x512xf32>
  %zero = fuser.full 0.0 : tensor<64x512xf32>
  %mask = fuser.where %keep, %scale, %zero : (tensor<64x512xi1>, tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %xf = fuser.cast %x : tensor<64x512xbf16> -> tensor<64x512xf32>
  %rf = fuser.cast %r : tensor<64x512xbf16> -> tensor<64x512xf32>
  %dropped = fuser.mul %xf, %mask : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %yf = fuser.add %rf, %dropped : (tensor<64x512xf32>, tensor<64x512xf32>) -> tensor<64x512xf32>
  %y = fuser.cast %yf : tensor<64x512xf32> -> tensor<64x512xbf16>
  return %y : tensor<64x512xbf16>
}

func.func @gelu_backward_37x1000(%dy: tensor<37x1000xbf16>, %x: tensor<37x1000xbf16>) -> tensor<37x1000xbf16> {
  %g = fuser.cast %dy : tensor<37x1000xbf16> -> tensor<37x1000xf32>
  %xf = fuser.cast %x : tensor<37x1000xbf16> -> tensor<37x1000xf32>
  %sq = fuser.mul %xf, %xf : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %cube = fuser.mul %sq, %xf : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %a = fuser.full 0.044715 : tensor<37x1000xf32>
  %ac = fuser.mul %cube, %a : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %in = fuser.add %xf, %ac : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %twoc = fuser.full 1.5957691216057308 : tensor<37x1000xf32>
  %u2 = fuser.mul %in, %twoc : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %s = fuser.sigmoid %u2 : tensor<37x1000xf32> -> tensor<37x1000xf32>
  %one = fuser.full 1.0 : tensor<37x1000xf32>
  %oms = fuser.sub %one, %s : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %xoms = fuser.mul %xf, %oms : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %lead = fuser.mul %xoms, %twoc : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %a3 = fuser.full 0.134145 : tensor<37x1000xf32>
  %sq3 = fuser.mul %sq, %a3 : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %slope = fuser.add %one, %sq3 : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %tail = fuser.mul %lead, %slope : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %inner = fuser.add %one, %tail : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %d = fuser.mul %s, %inner : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %dxf = fuser.mul %g, %d : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %dx = fuser.cast %dxf : tensor<37x1000xf32> -> tensor<37x1000xbf16>
  return %dx : tensor<37x1000xbf16>
}

func.func @layer_norm_backward_37x1000(%dy: tensor<37x1000xbf16>, %x: tensor<37x1000xbf16>, %w: tensor<1000xbf16>, %mean: tensor<37xf32>, %rstd: tensor<37xf32>) -> tensor<37x1000xbf16> {
  %g = fuser.cast %dy : tensor<37x1000xbf16> -> tensor<37x1000xf32>
  %xf = fuser.cast %x : tensor<37x1000xbf16> -> tensor<37x1000xf32>
  %wf = fuser.cast %w : tensor<1000xbf16> -> tensor<1000xf32>
  %wb = fuser.broadcast %wf dims = [1] : tensor<1000xf32> -> tensor<37x1000xf32>
  %mb = fuser.broadcast %mean dims = [0] : tensor<37xf32> -> tensor<37x1000xf32>
  %rb = fuser.broadcast %rstd dims = [0] : tensor<37xf32> -> tensor<37x1000xf32>
  %centered = fuser.sub %xf, %mb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %xhat = fuser.mul %centered, %rb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %gw = fuser.mul %g, %wb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %s1 = fuser.mean %gw dims = [1] keepdim : tensor<37x1000xf32> -> tensor<37x1xf32>
  %s1b = fuser.expand %s1 : tensor<37x1xf32> -> tensor<37x1000xf32>
  %gx = fuser.mul %gw, %xhat : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %s2 = fuser.mean %gx dims = [1] keepdim : tensor<37x1000xf32> -> tensor<37x1xf32>
  %s2b = fuser.expand %s2 : tensor<37x1xf32> -> tensor<37x1000xf32>
  %proj = fuser.mul %xhat, %s2b : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %u = fuser.sub %gw, %s1b : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %v = fuser.sub %u, %proj : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %dxf = fuser.mul %v, %rb : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %dx = fuser.cast %dxf : tensor<37x1000xf32> -> tensor<37x1000xbf16>
  return %dx : tensor<37x1000xbf16>
}

func.func @dropout_residual_37x1000(%x: tensor<37x1000xbf16>, %r: tensor<37x1000xbf16>) -> tensor<37x1000xbf16> {
  %u = fuser.uniform low = 0.0, high = 1.0, seed = 1 : tensor<37x1000xf32>
  %p = fuser.full 0.1 : tensor<37x1000xf32>
  %keep = fuser.compare ge, %u, %p : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xi1>
  %scale = fuser.full 1.1111111111111112 : tensor<37x1000xf32>
  %zero = fuser.full 0.0 : tensor<37x1000xf32>
  %mask = fuser.where %keep, %scale, %zero : (tensor<37x1000xi1>, tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %xf = fuser.cast %x : tensor<37x1000xbf16> -> tensor<37x1000xf32>
  %rf = fuser.cast %r : tensor<37x1000xbf16> -> tensor<37x1000xf32>
  %dropped = fuser.mul %xf, %mask : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %yf = fuser.add %rf, %dropped : (tensor<37x1000xf32>, tensor<37x1000xf32>) -> tensor<37x1000xf32>
  %y = fuser.cast %yf : tensor<37x1000xf32> -> tensor<37x1000xbf16>
  return %y : tensor<37x1000xbf16>
}
