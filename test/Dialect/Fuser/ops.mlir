// Every fuser op in its custom form, printed, reparsed and reprinted, and
// through the generic form.
// RUN: fuser-opt %s | FileCheck %s
// RUN: fuser-opt %s | fuser-opt | FileCheck %s
// RUN: fuser-opt %s -mlir-print-op-generic | fuser-opt | FileCheck %s

// CHECK-LABEL: func.func @pointwise
func.func @pointwise(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %i: tensor<4x8xi32>,
                     %c: tensor<4x8xi1>) {
  // CHECK: fuser.neg %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf32>
  %0 = fuser.neg %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.abs %{{.*}} : tensor<4x8xi32> -> tensor<4x8xi32>
  %1 = fuser.abs %i : tensor<4x8xi32> -> tensor<4x8xi32>
  // CHECK: fuser.relu
  %2 = fuser.relu %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.exp
  %3 = fuser.exp %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.log
  %4 = fuser.log %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.sqrt
  %5 = fuser.sqrt %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.rsqrt
  %6 = fuser.rsqrt %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.tanh
  %7 = fuser.tanh %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.sin %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf32>
  %sin = fuser.sin %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.cos %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf32>
  %cos = fuser.cos %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.erf %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf32>
  %erf = fuser.erf %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.sigmoid
  %8 = fuser.sigmoid %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.gelu %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf32>
  %9 = fuser.gelu %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.gelu %{{.*}} approximation = tanh : tensor<4x8xf32> -> tensor<4x8xf32>
  %10 = fuser.gelu %a approximation = tanh : tensor<4x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.add %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %11 = fuser.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: fuser.sub
  %12 = fuser.sub %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: fuser.mul
  %13 = fuser.mul %i, %i : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
  // CHECK: fuser.div
  %14 = fuser.div %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: fuser.maximum
  %15 = fuser.maximum %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: fuser.minimum
  %16 = fuser.minimum %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: fuser.pow
  %17 = fuser.pow %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: fuser.compare lt, %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  %18 = fuser.compare lt, %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xi1>
  // CHECK: fuser.compare eq
  %19 = fuser.compare eq, %i, %i : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
  // CHECK: fuser.where %{{.*}}, %{{.*}}, %{{.*}} : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  %20 = fuser.where %c, %a, %b : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // CHECK: fuser.cast %{{.*}} : tensor<4x8xf32> -> tensor<4x8xbf16>
  %21 = fuser.cast %a : tensor<4x8xf32> -> tensor<4x8xbf16>
  // CHECK: fuser.cast %{{.*}} : tensor<4x8xi32> -> tensor<4x8xf16>
  %22 = fuser.cast %i : tensor<4x8xi32> -> tensor<4x8xf16>
  return
}

// CHECK-LABEL: func.func @reductions
func.func @reductions(%a: tensor<4x8x16xf32>) {
  // CHECK: fuser.sum %{{.*}} dims = [1] : tensor<4x8x16xf32> -> tensor<4x16xf32>
  %0 = fuser.sum %a dims = [1] : tensor<4x8x16xf32> -> tensor<4x16xf32>
  // CHECK: fuser.max %{{.*}} dims = [0, 2] keepdim : tensor<4x8x16xf32> -> tensor<1x8x1xf32>
  %1 = fuser.max %a dims = [0, 2] keepdim : tensor<4x8x16xf32> -> tensor<1x8x1xf32>
  // CHECK: fuser.min %{{.*}} dims = [2]
  %2 = fuser.min %a dims = [2] : tensor<4x8x16xf32> -> tensor<4x8xf32>
  // CHECK: fuser.mean %{{.*}} dims = [2] keepdim
  %3 = fuser.mean %a dims = [2] keepdim : tensor<4x8x16xf32> -> tensor<4x8x1xf32>
  // CHECK: fuser.var_mean %{{.*}} dims = [2] : tensor<4x8x16xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
  %4:2 = fuser.var_mean %a dims = [2] : tensor<4x8x16xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
  // CHECK: fuser.var_mean %{{.*}} dims = [1, 2] keepdim {correction = 0 : i64}
  %5:2 = fuser.var_mean %a dims = [1, 2] keepdim {correction = 0 : i64} : tensor<4x8x16xf32> -> tensor<4x1x1xf32>, tensor<4x1x1xf32>
  return
}

// CHECK-LABEL: func.func @creation
func.func @creation() {
  // CHECK: fuser.full 1.500000e+00 : tensor<4x8xf32>
  %0 = fuser.full 1.5 : tensor<4x8xf32>
  // CHECK: fuser.full 3.000000e+00 : tensor<4xi32>
  %1 = fuser.full 3.0 : tensor<4xi32>
  // CHECK: fuser.iota dim = 1 : tensor<2x8xi64>
  %2 = fuser.iota dim = 1 : tensor<2x8xi64>
  // CHECK: fuser.iota dim = 0 {start = 1.000000e+00 : f64, step = 2.000000e+00 : f64} : tensor<8xf32>
  %3 = fuser.iota dim = 0 {start = 1.0 : f64, step = 2.0 : f64} : tensor<8xf32>
  // CHECK: fuser.uniform low = 0.000000e+00, high = 1.000000e+00, seed = 42 : tensor<4x8xf32>
  %4 = fuser.uniform low = 0.0, high = 1.0, seed = 42 : tensor<4x8xf32>
  // CHECK: fuser.normal mean = 0.000000e+00, std = 2.000000e-02, seed = 7 : tensor<4x8xbf16>
  %5 = fuser.normal mean = 0.0, std = 0.02, seed = 7 : tensor<4x8xbf16>
  return
}

// Inside kernels, positional creation ops compute a local piece at the
// given global offsets.
// CHECK-LABEL: func.func @creation_pieces
func.func @creation_pieces(%row: index, %col: index) {
  // CHECK: fuser.iota dim = 1 at[%{{.*}}, %{{.*}}] : tensor<2x4xi64>
  %0 = fuser.iota dim = 1 at [%row, %col] : tensor<2x4xi64>
  // CHECK: fuser.uniform low = 0.000000e+00, high = 1.000000e+00, seed = 42 at[%{{.*}}, %{{.*}}] : tensor<2x4xf32>
  %1 = fuser.uniform low = 0.0, high = 1.0, seed = 42 at [%row, %col] : tensor<2x4xf32>
  // CHECK: fuser.normal mean = 0.000000e+00, std = 1.000000e+00, seed = 7 at[%{{.*}}] : tensor<4xf32>
  %2 = fuser.normal mean = 0.0, std = 1.0, seed = 7 at [%col] : tensor<4xf32>
  return
}

// CHECK-LABEL: func.func @meta
func.func @meta(%a: tensor<4x8xf32>, %b: tensor<4x1x8xf32>, %c: tensor<4x3xf32>) {
  // CHECK: fuser.broadcast %{{.*}} dims = [0, 2] : tensor<4x8xf32> -> tensor<4x5x8xf32>
  %0 = fuser.broadcast %a dims = [0, 2] : tensor<4x8xf32> -> tensor<4x5x8xf32>
  // CHECK: fuser.expand %{{.*}} : tensor<4x1x8xf32> -> tensor<4x6x8xf32>
  %1 = fuser.expand %b : tensor<4x1x8xf32> -> tensor<4x6x8xf32>
  // CHECK: fuser.squeeze %{{.*}} dims = [1] : tensor<4x1x8xf32> -> tensor<4x8xf32>
  %2 = fuser.squeeze %b dims = [1] : tensor<4x1x8xf32> -> tensor<4x8xf32>
  // CHECK: fuser.reshape %{{.*}} : tensor<4x8xf32> -> tensor<2x2x8xf32>
  %3 = fuser.reshape %a : tensor<4x8xf32> -> tensor<2x2x8xf32>
  // CHECK: fuser.permute %{{.*}} perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  %4 = fuser.permute %a perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  // CHECK: fuser.slice %{{.*}} starts = [1, 0] limits = [3, 8] steps = [1, 3] : tensor<4x8xf32> -> tensor<2x3xf32>
  %5 = fuser.slice %a starts = [1, 0] limits = [3, 8] steps = [1, 3] : tensor<4x8xf32> -> tensor<2x3xf32>
  // CHECK: fuser.cat %{{.*}}, %{{.*}} dim = 1 : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
  %6 = fuser.cat %a, %c dim = 1 : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
  // CHECK: fuser.pad %{{.*}} low = [0, 1] high = [2, 0] : tensor<4x8xf32> -> tensor<6x9xf32>
  %7 = fuser.pad %a low = [0, 1] high = [2, 0] : tensor<4x8xf32> -> tensor<6x9xf32>
  // CHECK: fuser.pad %{{.*}} low = [1, 1] high = [1, 1] {value = -1.000000e+00 : f64}
  %8 = fuser.pad %a low = [1, 1] high = [1, 1] {value = -1.0 : f64} : tensor<4x8xf32> -> tensor<6x10xf32>
  // CHECK: fuser.select %{{.*}} dim = 0 index = 3 : tensor<4x8xf32> -> tensor<8xf32>
  %9 = fuser.select %a dim = 0 index = 3 : tensor<4x8xf32> -> tensor<8xf32>
  return
}

// CHECK-LABEL: func.func @matmul_linear
func.func @matmul_linear(%a: tensor<2x4x8xbf16>, %b: tensor<2x8x16xbf16>,
                         %x: tensor<4x8xf32>, %w: tensor<16x8xf32>,
                         %bias: tensor<16xf32>, %v: tensor<8xf32>,
                         %s: tensor<f32>, %b2: tensor<8x16xbf16>) {
  // CHECK: fuser.matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xbf16>, tensor<2x8x16xbf16>) -> tensor<2x4x16xbf16>
  %0 = fuser.matmul %a, %b : (tensor<2x4x8xbf16>, tensor<2x8x16xbf16>) -> tensor<2x4x16xbf16>
  // CHECK: fuser.linear %{{.*}}, %{{.*}} : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  %1 = fuser.linear %x, %w : (tensor<4x8xf32>, tensor<16x8xf32>) -> tensor<4x16xf32>
  // CHECK: fuser.linear %{{.*}}, %{{.*}} bias %{{.*}} : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %2 = fuser.linear %x, %w bias %bias : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // CHECK: fuser.linear %{{.*}}, %{{.*}} bias %{{.*}} : (tensor<4x8xf32>, tensor<8xf32>, tensor<f32>) -> tensor<4xf32>
  %3 = fuser.linear %x, %v bias %s : (tensor<4x8xf32>, tensor<8xf32>, tensor<f32>) -> tensor<4xf32>
  // A matrix rhs is shared by every batch entry.
  // CHECK: fuser.matmul %{{.*}}, %{{.*}} : (tensor<2x4x8xbf16>, tensor<8x16xbf16>) -> tensor<2x4x16xbf16>
  %4 = fuser.matmul %a, %b2 : (tensor<2x4x8xbf16>, tensor<8x16xbf16>) -> tensor<2x4x16xbf16>
  // Activations applied in the library's epilogue.
  // CHECK: fuser.matmul %{{.*}}, %{{.*}} activation = relu : (tensor<2x4x8xbf16>, tensor<2x8x16xbf16>) -> tensor<2x4x16xbf16>
  %5 = fuser.matmul %a, %b activation = relu : (tensor<2x4x8xbf16>, tensor<2x8x16xbf16>) -> tensor<2x4x16xbf16>
  // CHECK: fuser.linear %{{.*}}, %{{.*}} bias %{{.*}} activation = gelu_tanh : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  %6 = fuser.linear %x, %w bias %bias activation = gelu_tanh : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  return
}

#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#replicated = #fuser.sharding<#mesh, [[], []]>
#replicated_laid_out = #fuser.sharding<#mesh, [[], []], order = [1, 0]>

// CHECK-LABEL: func.func @copies
func.func @copies(%a: tensor<4x8xf32, #rows>, %b: tensor<4x8xf32, #replicated>) {
  // CHECK: fuser.set %{{.*}} : tensor<4x8xf32, #[[ROWS:.*]]> -> tensor<4x8xf32, #[[REP:.*]]>
  %0 = fuser.set %a : tensor<4x8xf32, #rows> -> tensor<4x8xf32, #replicated>
  // CHECK: fuser.set %{{.*}} : tensor<4x8xf32, #[[REP]]> -> tensor<4x8xf32>{{$}}
  %1 = fuser.set %0 : tensor<4x8xf32, #replicated> -> tensor<4x8xf32>
  // CHECK: fuser.segment_set %{{.*}} : tensor<4x8xf32, #[[REP]]> -> tensor<4x8xf32, #{{.*}}>
  %2 = fuser.segment_set %b : tensor<4x8xf32, #replicated> -> tensor<4x8xf32, #replicated_laid_out>
  // CHECK: fuser.segment_set %{{.*}} : tensor<4x8xf32> -> tensor<4x8xf32>
  %3 = fuser.segment_set %1 : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// CHECK-LABEL: func.func @attention
func.func @attention(%q: tensor<1x4x64x32xbf16>, %k: tensor<1x4x128x32xbf16>,
                     %v: tensor<1x4x128x32xbf16>, %o: tensor<1x4x64x32xbf16>,
                     %lse: tensor<1x4x64xf32>) {
  // CHECK: fuser.sdpa %{{.*}}, %{{.*}}, %{{.*}} : (tensor<1x4x64x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>) -> (tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>)
  %0:2 = fuser.sdpa %q, %k, %v : (tensor<1x4x64x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>) -> (tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>)
  // CHECK: fuser.sdpa %{{.*}}, %{{.*}}, %{{.*}} causal scale = 1.250000e-01 dropout = 1.000000e-01 seed = 7 :
  %1:2 = fuser.sdpa %q, %k, %v causal scale = 0.125 dropout = 0.1 seed = 7 : (tensor<1x4x64x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>) -> (tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>)
  // CHECK: fuser.sdpa_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} causal dropout = 1.000000e-01 seed = 7 : (tensor<1x4x64x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>) -> (tensor<1x4x64x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>)
  %2:3 = fuser.sdpa_backward %q, %k, %v, %o, %o, %lse causal dropout = 0.1 seed = 7 : (tensor<1x4x64x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64x32xbf16>, tensor<1x4x64xf32>) -> (tensor<1x4x64x32xbf16>, tensor<1x4x128x32xbf16>, tensor<1x4x128x32xbf16>)
  return
}

// CHECK-LABEL: func.func @embedding
func.func @embedding(%table: tensor<100x8xbf16>, %tokens: tensor<2x16xi64>) -> tensor<2x16x8xbf16> {
  // CHECK: fuser.embedding %{{.*}}, %{{.*}} : (tensor<100x8xbf16>, tensor<2x16xi64>) -> tensor<2x16x8xbf16>
  %0 = fuser.embedding %table, %tokens : (tensor<100x8xbf16>, tensor<2x16xi64>) -> tensor<2x16x8xbf16>
  return %0 : tensor<2x16x8xbf16>
}
