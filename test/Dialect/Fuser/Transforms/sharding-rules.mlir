// The factor rules of the fuser ops, which every sharding pass reads.
// RUN: fuser-opt %s -fuser-test-sharding-rules -verify-diagnostics -split-input-file

func.func @pointwise(%a: tensor<4x8xf32>, %b: tensor<4x8xf32>, %c: tensor<4x8xi1>) {
  // expected-remark @+1 {{factors f0=4 f1=8; operands (f0)(f1), (f0)(f1); results (f0)(f1)}}
  %0 = fuser.add %a, %b : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{factors f0=4 f1=8; operands (f0)(f1), (f0)(f1), (f0)(f1); results (f0)(f1)}}
  %1 = fuser.where %c, %a, %b : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  // expected-remark @+1 {{factors f0=4 f1=8; operands (f0)(f1); results (f0)(f1)}}
  %2 = fuser.set %a : tensor<4x8xf32> -> tensor<4x8xf32>
  // Creation ops: the result's own factors.
  // expected-remark @+1 {{factors f0=4 f1=8; operands ; results (f0)(f1)}}
  %3 = fuser.full 0.0 : tensor<4x8xf32>
  return
}

// -----

func.func @reductions(%a: tensor<4x8x16xf32>) {
  // Reduced dims are reduction factors of the op's kind; size-1 kept dims
  // have no factor.
  // expected-remark @+1 {{factors f0=4 f1=8:sum f2=16; operands (f0)(f1)(f2); results (f0)(f2)}}
  %0 = fuser.sum %a dims = [1] : tensor<4x8x16xf32> -> tensor<4x16xf32>
  // expected-remark @+1 {{factors f0=4:max f1=8 f2=16:max; operands (f0)(f1)(f2); results ()(f1)()}}
  %1 = fuser.max %a dims = [0, 2] keepdim : tensor<4x8x16xf32> -> tensor<1x8x1xf32>
  // expected-remark @+1 {{factors f0=4 f1=8 f2=16:avg; operands (f0)(f1)(f2); results (f0)(f1)}}
  %2 = fuser.mean %a dims = [2] : tensor<4x8x16xf32> -> tensor<4x8xf32>
  // Variances do not combine by a reduction: the dim must stay whole.
  // expected-remark @+1 {{factors f0=4 f1=8 f2=16:blocked; operands (f0)(f1)(f2); results (f0)(f1), (f0)(f1)}}
  %3:2 = fuser.var_mean %a dims = [2] : tensor<4x8x16xf32> -> tensor<4x8xf32>, tensor<4x8xf32>
  return
}

// -----

func.func @matmul_linear(%a: tensor<2x4x8xf32>, %b: tensor<2x8x16xf32>,
                         %x: tensor<4x8xf32>, %w: tensor<16x8xf32>, %bias: tensor<16xf32>,
                         %m: tensor<8x16xf32>) {
  // Batch and M, N parallel; K a reduction factor of lhs and rhs.
  // expected-remark @+1 {{factors f0=2 f1=4 f2=16 f3=8:sum; operands (f0)(f1)(f3), (f0)(f3)(f2); results (f0)(f1)(f2)}}
  %0 = fuser.matmul %a, %b : (tensor<2x4x8xf32>, tensor<2x8x16xf32>) -> tensor<2x4x16xf32>
  // expected-remark @+1 {{factors f0=4 f1=8:sum f2=16; operands (f0)(f1), (f2)(f1), (f2); results (f0)(f2)}}
  %1 = fuser.linear %x, %w bias %bias : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf32>) -> tensor<4x16xf32>
  // A matrix rhs has no batch factor.
  // expected-remark @+1 {{factors f0=2 f1=4 f2=16 f3=8:sum; operands (f0)(f1)(f3), (f3)(f2); results (f0)(f1)(f2)}}
  %2 = fuser.matmul %a, %m : (tensor<2x4x8xf32>, tensor<8x16xf32>) -> tensor<2x4x16xf32>
  return
}

// -----

func.func @meta(%a: tensor<4x8xf32>, %b: tensor<4x1x8xf32>) {
  // New and expanded dims belong to the result only.
  // expected-remark @+1 {{factors f0=4 f1=8 f2=5; operands (f0)(f1); results (f0)(f2)(f1)}}
  %0 = fuser.broadcast %a dims = [0, 2] : tensor<4x8xf32> -> tensor<4x5x8xf32>
  // expected-remark @+1 {{factors f0=4 f1=8 f2=6; operands (f0)()(f1); results (f0)(f2)(f1)}}
  %1 = fuser.expand %b : tensor<4x1x8xf32> -> tensor<4x6x8xf32>
  // expected-remark @+1 {{factors f0=4 f1=8; operands (f0)()(f1); results (f0)(f1)}}
  %2 = fuser.squeeze %b dims = [1] : tensor<4x1x8xf32> -> tensor<4x8xf32>
  // expected-remark @+1 {{factors f0=8 f1=4; operands (f1)(f0); results (f0)(f1)}}
  %3 = fuser.permute %a perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  // Dims a slice, pad or select changes are blocked on both sides.
  // expected-remark @+1 {{factors f0=4 f1=8:blocked f2=3:blocked; operands (f0)(f1); results (f0)(f2)}}
  %4 = fuser.slice %a starts = [0, 2] limits = [4, 8] steps = [1, 2] : tensor<4x8xf32> -> tensor<4x3xf32>
  // expected-remark @+1 {{factors f0=8 f1=4:blocked f2=6:blocked; operands (f1)(f0); results (f2)(f0)}}
  %5 = fuser.pad %a low = [1, 0] high = [1, 0] : tensor<4x8xf32> -> tensor<6x8xf32>
  // expected-remark @+1 {{factors f0=8 f1=4:blocked; operands (f1)(f0); results (f0)}}
  %6 = fuser.select %a dim = 0 index = 1 : tensor<4x8xf32> -> tensor<8xf32>
  // expected-remark @+1 {{factors f0=4:blocked f1=4:blocked f2=8:blocked f3=8; operands (f0)(f3), (f1)(f3); results (f2)(f3)}}
  %7 = fuser.cat %a, %a dim = 0 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @reshape(%a: tensor<16x4xf32>, %b: tensor<4x8xf32>, %c: tensor<6x4xf32>,
                   %c2: tensor<2x6x4xf32>) {
  // A split: the outer result dim is the outer factor of the input dim.
  // expected-remark @+1 {{factors f0=2 f1=8 f2=4; operands (f0 f1)(f2); results (f0)(f1)(f2)}}
  %0 = fuser.reshape %a : tensor<16x4xf32> -> tensor<2x8x4xf32>
  // A merge.
  // expected-remark @+1 {{factors f0=4 f1=8; operands (f0)(f1); results (f0 f1)}}
  %1 = fuser.reshape %b : tensor<4x8xf32> -> tensor<32xf32>
  // Shapes that do not factor into each other block the dims from there on.
  // expected-remark @+1 {{factors f0=6:blocked f1=4:blocked f2=4:blocked f3=6:blocked; operands (f0)(f1); results (f2)(f3)}}
  %2 = fuser.reshape %c : tensor<6x4xf32> -> tensor<4x6xf32>
  // Matching factors up to the first mismatch are kept.
  // expected-remark @+1 {{factors f0=2 f1=6:blocked f2=4:blocked f3=4:blocked f4=6:blocked; operands (f0)(f1)(f2); results (f0)(f3)(f4)}}
  %3 = fuser.reshape %c2 : tensor<2x6x4xf32> -> tensor<2x4x6xf32>
  return
}

// -----

func.func @attention(%q: tensor<2x4x16x8xf32>, %kv: tensor<2x4x32x8xf32>,
                     %o: tensor<2x4x16x8xf32>, %lse: tensor<2x4x16xf32>) {
  // Batch and heads shared by every tensor; the query sequence shared by the
  // query, the output and the log-sum-exp; keys and head dims blocked.
  // expected-remark @+1 {{factors f0=2 f1=4 f2=16 f3=32:blocked f4=8:blocked; operands (f0)(f1)(f2)(f4), (f0)(f1)(f3)(f4), (f0)(f1)(f3)(f4); results (f0)(f1)(f2)(f4), (f0)(f1)(f2)}}
  %0:2 = fuser.sdpa %q, %kv, %kv : (tensor<2x4x16x8xf32>, tensor<2x4x32x8xf32>, tensor<2x4x32x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  // A mask depends on global query positions: the query sequence is
  // blocked too.
  // expected-remark @+1 {{factors f0=2 f1=4 f2=16:blocked f3=32:blocked f4=8:blocked; operands (f0)(f1)(f2)(f4), (f0)(f1)(f3)(f4), (f0)(f1)(f3)(f4); results (f0)(f1)(f2)(f4), (f0)(f1)(f2)}}
  %1:2 = fuser.sdpa %q, %kv, %kv causal : (tensor<2x4x16x8xf32>, tensor<2x4x32x8xf32>, tensor<2x4x32x8xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x16xf32>)
  // expected-remark @+1 {{factors f0=2 f1=4 f2=16:blocked f3=32:blocked f4=8:blocked; operands (f0)(f1)(f2)(f4), (f0)(f1)(f3)(f4), (f0)(f1)(f3)(f4), (f0)(f1)(f2)(f4), (f0)(f1)(f2)(f4), (f0)(f1)(f2); results (f0)(f1)(f2)(f4), (f0)(f1)(f3)(f4), (f0)(f1)(f3)(f4)}}
  %2:3 = fuser.sdpa_backward %q, %kv, %kv, %o, %o, %lse : (tensor<2x4x16x8xf32>, tensor<2x4x32x8xf32>, tensor<2x4x32x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16x8xf32>, tensor<2x4x16xf32>) -> (tensor<2x4x16x8xf32>, tensor<2x4x32x8xf32>, tensor<2x4x32x8xf32>)
  return
}

// -----

func.func @embedding(%table: tensor<100x8xf32>, %tokens: tensor<2x16xi64>) {
  // Index dims lead the result, features are shared, rows are blocked.
  // expected-remark @+1 {{factors f0=100:blocked f1=2 f2=16 f3=8; operands (f0)(f3), (f1)(f2); results (f1)(f2)(f3)}}
  %0 = fuser.embedding %table, %tokens : (tensor<100x8xf32>, tensor<2x16xi64>) -> tensor<2x16x8xf32>
  return
}
