// The factor rules of upstream ops, which the sharding passes read through
// external models.
// RUN: fuser-opt %s -fuser-test-sharding-rules -verify-diagnostics -split-input-file

func.func @matmuls(%a: tensor<8x16xf32>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>,
                   %ba: tensor<4x8x16xf32>, %bb: tensor<4x16x32xf32>, %bc: tensor<4x8x32xf32>) {
  // M and N are shared with the result, K is a sum; the init is the result.
  // expected-remark @+1 {{factors f0=8 f1=32 f2=16:sum; operands (f0)(f2), (f2)(f1), (f0)(f1); results (f0)(f1)}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x32xf32>) outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  // expected-remark @+1 {{factors f0=4 f1=8 f2=32 f3=16:sum; operands (f0)(f1)(f3), (f0)(f3)(f2), (f0)(f1)(f2); results (f0)(f1)(f2)}}
  %1 = linalg.batch_matmul ins(%ba, %bb : tensor<4x8x16xf32>, tensor<4x16x32xf32>) outs(%bc : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  return
}

// -----

#transpose = affine_map<(d0, d1) -> (d1, d0)>
#identity = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>

func.func @generics(%a: tensor<8x16xf32>, %t: tensor<16x8xf32>, %r: tensor<8xf32>) {
  // Parallel loops map through the indexing maps, here a transpose.
  // expected-remark @+1 {{factors f0=8 f1=16; operands (f0)(f1), (f1)(f0), (f0)(f1); results (f0)(f1)}}
  %0 = linalg.generic {indexing_maps = [#identity, #transpose, #identity],
                       iterator_types = ["parallel", "parallel"]}
      ins(%a, %t : tensor<8x16xf32>, tensor<16x8xf32>) outs(%a : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  // A reduction loop takes its kind from the combiner.
  // expected-remark @+1 {{factors f0=8 f1=16:max; operands (f0)(f1), (f0); results (f0)}}
  %1 = linalg.generic {indexing_maps = [#identity, #rows],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x16xf32>) outs(%r : tensor<8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %m = arith.maximumf %out, %x : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  // A combiner that is no known reduction keeps the loop whole.
  // expected-remark @+1 {{factors f0=8 f1=16:blocked; operands (f0)(f1), (f0); results (f0)}}
  %2 = linalg.generic {indexing_maps = [#identity, #rows],
                       iterator_types = ["parallel", "reduction"]}
      ins(%a : tensor<8x16xf32>) outs(%r : tensor<8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %d = arith.subf %out, %x : f32
    linalg.yield %d : f32
  } -> tensor<8xf32>
  // Named elementwise ops and fills are structured ops alike.
  // expected-remark @+1 {{factors f0=8 f1=16; operands (f0)(f1), (f0)(f1), (f0)(f1); results (f0)(f1)}}
  %3 = linalg.add ins(%a, %a : tensor<8x16xf32>, tensor<8x16xf32>) outs(%a : tensor<8x16xf32>) -> tensor<8x16xf32>
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{factors f0=8; operands , (f0); results (f0)}}
  %4 = linalg.fill ins(%zero : f32) outs(%r : tensor<8xf32>) -> tensor<8xf32>
  return
}

// -----

func.func @not_projected(%x: tensor<1x10x4xf32>, %w: tensor<3x4x8xf32>, %y: tensor<1x8x8xf32>) {
  // A convolution's input maps are sums of loops: every dim is blocked, and
  // the init is still the result.
  // expected-remark @+1 {{factors f0=10:blocked f1=4:blocked f2=3:blocked f3=4:blocked f4=8:blocked f5=8:blocked f6=8:blocked; operands ()(f0)(f1), (f2)(f3)(f4), ()(f5)(f6); results ()(f5)(f6)}}
  %0 = linalg.conv_1d_nwc_wcf ins(%x, %w : tensor<1x10x4xf32>, tensor<3x4x8xf32>) outs(%y : tensor<1x8x8xf32>) -> tensor<1x8x8xf32>
  return
}

// -----

func.func @tensor_ops(%a: tensor<8x16xf32>, %b: tensor<8x4x4xf32>, %c: tensor<2x16xf32>) {
  // A collapsed dim is its group's factors, outermost first.
  // expected-remark @+1 {{factors f0=8 f1=4 f2=4; operands (f0)(f1)(f2); results (f0)(f1 f2)}}
  %0 = tensor.collapse_shape %b [[0], [1, 2]] : tensor<8x4x4xf32> into tensor<8x16xf32>
  // expected-remark @+1 {{factors f0=2 f1=4 f2=16; operands (f0 f1)(f2); results (f0)(f1)(f2)}}
  %1 = tensor.expand_shape %a [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32> into tensor<2x4x16xf32>
  // The sliced dim is blocked, the whole one shared; a dropped dim is the
  // operand's alone.
  // expected-remark @+1 {{factors f0=16 f1=8:blocked f2=4:blocked; operands (f1)(f0); results (f2)(f0)}}
  %2 = tensor.extract_slice %a[2, 0] [4, 16] [1, 1] : tensor<8x16xf32> to tensor<4x16xf32>
  // expected-remark @+1 {{factors f0=8 f1=16:blocked; operands (f0)(f1); results (f0)}}
  %3 = tensor.extract_slice %a[0, 3] [8, 1] [1, 1] : tensor<8x16xf32> to tensor<8xf32>
  // expected-remark @+1 {{factors f0=8:blocked f1=2:blocked f2=10:blocked f3=16; operands (f0)(f3), (f1)(f3); results (f2)(f3)}}
  %4 = tensor.concat dim(0) %a, %c : (tensor<8x16xf32>, tensor<2x16xf32>) -> tensor<10x16xf32>
  %zero = arith.constant 0.0 : f32
  // expected-remark @+1 {{factors f0=8 f1=16:blocked f2=20:blocked; operands (f0)(f1); results (f0)(f2)}}
  %5 = tensor.pad %a low[0, 1] high[0, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x16xf32> to tensor<8x20xf32>
  return
}

// -----

func.func @elementwise(%a: tensor<8x16xf32>, %b: tensor<8x16xf32>, %s: f32) {
  // expected-remark @+1 {{factors f0=8 f1=16; operands (f0)(f1), (f0)(f1); results (f0)(f1)}}
  %0 = arith.addf %a, %b : tensor<8x16xf32>
  // expected-remark @+1 {{factors f0=8 f1=16; operands (f0)(f1); results (f0)(f1)}}
  %1 = math.tanh %0 : tensor<8x16xf32>
  // expected-remark @+1 {{factors f0=8 f1=16; operands (f0)(f1), (f0)(f1); results (f0)(f1)}}
  %2 = arith.cmpf olt, %0, %1 : tensor<8x16xf32>
  // Scalars have nothing to shard.
  %3 = arith.mulf %s, %s : f32
  return
}
