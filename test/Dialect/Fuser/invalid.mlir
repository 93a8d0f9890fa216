// Every diagnostic of the fuser compute, meta and copy ops.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8x1xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand 'lhs' has rank 2 but 'rhs' has rank 3; broadcasting is explicit (fuser.broadcast)}}
  %0 = fuser.add %a, %b : (tensor<4x8xf32>, tensor<4x8x1xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x1xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand shapes differ at dim 1: 'lhs' has size 8 and 'rhs' has size 1; broadcasting is explicit (fuser.broadcast, fuser.expand)}}
  %0 = fuser.mul %a, %b : (tensor<4x8xf32>, tensor<4x1xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xbf16>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand 'lhs' has element type 'f32' but 'rhs' has 'bf16'; convert one with fuser.cast}}
  %0 = fuser.sub %a, %b : (tensor<4x8xf32>, tensor<4x8xbf16>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'fuser.exp' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x4xf32>'}}
  %0 = fuser.exp %a : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xi32>) {
  // expected-error @+1 {{'fuser.exp' op operand #0 must be ranked tensor of floating-point values}}
  %0 = fuser.exp %a : tensor<4x8xi32> -> tensor<4x8xi32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf16>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand 'lhs' has element type 'f32' but 'rhs' has 'f16'}}
  %0 = fuser.compare gt, %a, %b : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<4x8xi1>
  return
}

// -----

func.func @f(%c: tensor<4x1xi1>, %a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand shapes differ at dim 1: 'condition' has size 1 and 'on_true' has size 8}}
  %0 = fuser.where %c, %a, %a : (tensor<4x1xi1>, tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%c: tensor<4x8xi1>, %a: tensor<4x8xf32>, %b: tensor<4x8xi32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{operand 'on_true' has element type 'f32' but 'on_false' has 'i32'}}
  %0 = fuser.where %c, %a, %b : (tensor<4x8xi1>, tensor<4x8xf32>, tensor<4x8xi32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.cast' op changes the shape from 'tensor<4x8xf32>' to 'tensor<8x4xbf16>'; a cast converts element types only}}
  %0 = fuser.cast %a : tensor<4x8xf32> -> tensor<8x4xbf16>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{reduction needs at least one dim}}
  %0 = fuser.sum %a dims = [] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{reduction dim 2 is out of range for rank 2}}
  %0 = fuser.max %a dims = [2] : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{reduction dim 1 appears twice}}
  %0:2 = fuser.var_mean %a dims = [1, 1] : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'fuser.full' op result dim 0 is dynamic; creation ops need a static shape}}
  %0 = fuser.full 1.0 : tensor<?xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'fuser.full' op value 1.500000e+00 is not an integer but the element type is 'i32'}}
  %0 = fuser.full 1.5 : tensor<4xi32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'fuser.full' op value 2.000000e+00 is not 0 or 1 for an i1 tensor}}
  %0 = fuser.full 2.0 : tensor<4xi1>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'fuser.iota' op dim 1 is out of range for rank 1}}
  %0 = fuser.iota dim = 1 : tensor<8xi64>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'fuser.iota' op dim -1 is out of range for rank 1}}
  %0 = fuser.iota dim = -1 : tensor<8xi64>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'fuser.uniform' op low 1.000000e+00 must be below high 1.000000e+00}}
  %0 = fuser.uniform low = 1.0, high = 1.0, seed = 0 : tensor<8xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'fuser.normal' op std 0.000000e+00 must be positive}}
  %0 = fuser.normal mean = 0.0, std = 0.0, seed = 0 : tensor<8xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+1 {{'fuser.uniform' op result dim 1 is dynamic; creation ops need a static shape}}
  %0 = fuser.uniform low = 0.0, high = 1.0, seed = 0 : tensor<8x?xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.broadcast' op result element type 'f16' differs from the input's 'f32'}}
  %0 = fuser.broadcast %a dims = [0, 1] : tensor<4x8xf32> -> tensor<4x8x2xf16>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.broadcast' op dims has 1 entries for an input of rank 2}}
  %0 = fuser.broadcast %a dims = [0] : tensor<4x8xf32> -> tensor<4x8x2xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.broadcast' op input dim 1 maps to result dim 3, out of range for rank 3}}
  %0 = fuser.broadcast %a dims = [0, 3] : tensor<4x8xf32> -> tensor<4x8x2xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.broadcast' op dims must be strictly increasing (input dim 1 maps to 0 after 2); reorder dims with fuser.permute}}
  %0 = fuser.broadcast %a dims = [2, 0] : tensor<4x8xf32> -> tensor<8x2x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.broadcast' op input dim 1 of size 8 cannot broadcast to result dim 2 of size 4 (sizes must match or the input size must be 1)}}
  %0 = fuser.broadcast %a dims = [0, 2] : tensor<4x8xf32> -> tensor<4x2x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x1xf32>) {
  // expected-error @+1 {{'fuser.expand' op input rank 2 differs from result rank 3; add dims with fuser.broadcast}}
  %0 = fuser.expand %a : tensor<4x1xf32> -> tensor<4x8x2xf32>
  return
}

// -----

func.func @f(%a: tensor<4x1xf32>) {
  // expected-error @+1 {{'fuser.expand' op input dim 0 of size 4 cannot expand to size 8 (only size-1 dims expand)}}
  %0 = fuser.expand %a : tensor<4x1xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x1xf32>) {
  // expected-error @+1 {{'fuser.expand' op result element type 'i32' differs from the input's 'f32'}}
  %0 = fuser.expand %a : tensor<4x1xf32> -> tensor<4x8xi32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.reshape' op changes the number of elements from 32 to 24}}
  %0 = fuser.reshape %a : tensor<4x8xf32> -> tensor<4x6xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+1 {{'fuser.reshape' op result element type 'f16' differs from the input's 'f32'}}
  %0 = fuser.reshape %a : tensor<4x8xf32> -> tensor<32xf16>
  return
}

// -----

func.func @f(%a: tensor<4x1xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{squeezed dim 0 has size 4, not 1}}
  %0 = fuser.squeeze %a dims = [0] : tensor<4x1xf32> -> tensor<1xf32>
  return
}

// -----

func.func @f(%a: tensor<4x1xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{squeezed dim 2 is out of range for rank 2}}
  %0 = fuser.squeeze %a dims = [2] : tensor<4x1xf32> -> tensor<4x1xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{perm [1, 1] is not a permutation of the 2 input dims}}
  %0 = fuser.permute %a perm = [1, 1] : tensor<4x8xf32> -> tensor<8x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{perm [1, 0, 2] is not a permutation of the 2 input dims}}
  %0 = fuser.permute %a perm = [1, 0, 2] : tensor<4x8xf32> -> tensor<8x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{limits has 1 entries for an input of rank 2}}
  %0 = fuser.slice %a starts = [0, 0] limits = [4] steps = [1, 1] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{step 0 of dim 1 must be at least 1}}
  %0 = fuser.slice %a starts = [0, 0] limits = [4, 8] steps = [1, 0] : tensor<4x8xf32> -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{slice [2, 9) of dim 1 is outside [0, 8]}}
  %0 = fuser.slice %a starts = [0, 2] limits = [4, 9] steps = [1, 1] : tensor<4x8xf32> -> tensor<4x7xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{slice [3, 1) of dim 0 is outside [0, 4]}}
  %0 = fuser.slice %a starts = [3, 0] limits = [1, 8] steps = [1, 1] : tensor<4x8xf32> -> tensor<0x8xf32>
  return
}

// -----

func.func @f() {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{cat needs at least one input}}
  %0 = fuser.cat dim = 0 : () -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{cat dim 2 is out of range for rank 2}}
  %0 = fuser.cat %a, %a dim = 2 : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<4x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x8xf16>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{input #1 has element type 'f16' but input #0 has 'f32'}}
  %0 = fuser.cat %a, %b dim = 0 : (tensor<4x8xf32>, tensor<4x8xf16>) -> tensor<8x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{input #1 has rank 1 but input #0 has rank 2}}
  %0 = fuser.cat %a, %b dim = 0 : (tensor<4x8xf32>, tensor<4xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<4x6xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{input #1 dim 1 has size 6 but input #0 has 8; only the cat dim may differ}}
  %0 = fuser.cat %a, %b dim = 0 : (tensor<4x8xf32>, tensor<4x6xf32>) -> tensor<8x8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{low and high need 2 entries each, got 2 and 1}}
  %0 = fuser.pad %a low = [1, 1] high = [1] : tensor<4x8xf32> -> tensor<6x10xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{padding of dim 1 is negative; use fuser.slice to shrink}}
  %0 = fuser.pad %a low = [0, -1] high = [0, 0] : tensor<4x8xf32> -> tensor<4x7xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{select dim 2 is out of range for rank 2}}
  %0 = fuser.select %a dim = 2 index = 0 : tensor<4x8xf32> -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{index 4 is out of range for dim 0 of size 4}}
  %0 = fuser.select %a dim = 0 index = 4 : tensor<4x8xf32> -> tensor<8xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xi32>, %b: tensor<8x4xi32>) {
  // expected-error @+1 {{'fuser.matmul' op activation gelu_tanh needs floating-point elements, got 'i32'}}
  %0 = fuser.matmul %a, %b activation = gelu_tanh : (tensor<4x8xi32>, tensor<8x4xi32>) -> tensor<4x4xi32>
  return
}

// -----

func.func @f(%x: tensor<4x8xi64>, %w: tensor<16x8xi64>) {
  // expected-error @+1 {{'fuser.linear' op activation relu needs floating-point elements, got 'i64'}}
  %0 = fuser.linear %x, %w activation = relu : (tensor<4x8xi64>, tensor<16x8xi64>) -> tensor<4x16xi64>
  return
}

// -----

func.func @f(%a: tensor<8xf32>, %b: tensor<8x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{matmul operands need rank >= 2, got lhs rank 1 and rhs rank 2}}
  %0 = fuser.matmul %a, %b : (tensor<8xf32>, tensor<8x4xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<3x2x8x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{lhs has rank 3 but rhs has rank 4; batch dims are matched exactly (broadcast explicitly) unless rhs is a matrix}}
  %0 = fuser.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x2x8x4xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<8x4xbf16>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{lhs element type 'f32' differs from rhs element type 'bf16'}}
  %0 = fuser.matmul %a, %b : (tensor<4x8xf32>, tensor<8x4xbf16>) -> tensor<4x4xf32>
  return
}

// -----

func.func @f(%a: tensor<2x4x8xf32>, %b: tensor<3x8x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{batch dim 0 differs: lhs has 2, rhs has 3}}
  %0 = fuser.matmul %a, %b : (tensor<2x4x8xf32>, tensor<3x8x4xf32>) -> tensor<2x4x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %b: tensor<6x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{contracted sizes differ: lhs dim 1 (K) is 8 but rhs dim 0 (K) is 6}}
  %0 = fuser.matmul %a, %b : (tensor<4x8xf32>, tensor<6x4xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @f(%a: tensor<f32>, %w: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{linear input needs rank >= 1}}
  %0 = fuser.linear %a, %w : (tensor<f32>, tensor<4x8xf32>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %w: tensor<2x4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{linear weight must be [N, K] or [K], got rank 3}}
  %0 = fuser.linear %a, %w : (tensor<4x8xf32>, tensor<2x4x8xf32>) -> tensor<4x4xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %w: tensor<16x8xf16>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{weight element type 'f16' differs from input element type 'f32'}}
  %0 = fuser.linear %a, %w : (tensor<4x8xf32>, tensor<16x8xf16>) -> tensor<4x16xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %w: tensor<16x4xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{contracted sizes differ: input dim 1 (K) is 8 but weight dim 1 (K) is 4}}
  %0 = fuser.linear %a, %w : (tensor<4x8xf32>, tensor<16x4xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<16xf16>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{bias element type 'f16' differs from input element type 'f32'}}
  %0 = fuser.linear %a, %w bias %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<16xf16>) -> tensor<4x16xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<4x16xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{bias must have rank 1 for a weight of rank 2, got rank 2}}
  %0 = fuser.linear %a, %w bias %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<4x16xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>, %w: tensor<16x8xf32>, %b: tensor<8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{bias dim 0 is 8 but the weight has N = 16 output features}}
  %0 = fuser.linear %a, %w bias %b : (tensor<4x8xf32>, tensor<16x8xf32>, tensor<8xf32>) -> tensor<4x16xf32>
  return
}

// -----

func.func @f(%a: tensor<4x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{'fuser.set' op inferred type(s) 'tensor<4x8xf32>' are incompatible with return type(s) of operation 'tensor<4x8xf16>'}}
  %0 = fuser.set %a : tensor<4x8xf32> -> tensor<4x8xf16>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<4x8xf32, #fuser.sharding<#mesh, [[0], []]>>) {
  // expected-error @+1 {{'fuser.segment_set' op moves no data: operand and result must have the same mesh, dim axes and partial state; use fuser.set to reshard}}
  %0 = fuser.segment_set %a : tensor<4x8xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], []]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<4x8xf32, #fuser.sharding<#mesh, [[0], []]>>) {
  // expected-error @+1 {{'fuser.segment_set' op moves no data}}
  %0 = fuser.segment_set %a : tensor<4x8xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<4x8xf32>
  return
}

// -----

func.func @offsets_per_dim(%i: index) {
  // expected-error @+1 {{'fuser.uniform' op has 1 offsets for a result of rank 2; give one per dim or none}}
  %0 = fuser.uniform low = 0.0, high = 1.0, seed = 0 at [%i] : tensor<8x4xf32>
  return
}

// -----

func.func @f(%q: tensor<4x16x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{attention query must be [batch, heads, sequence, head dim], got rank 3}}
  %0:2 = fuser.sdpa %q, %q, %q : (tensor<4x16x8xf32>, tensor<4x16x8xf32>, tensor<4x16x8xf32>) -> (tensor<4x16x8xf32>, tensor<4x16xf32>)
  return
}

// -----

func.func @f(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x16x8xbf16>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{attention key element type 'bf16' differs from the query's 'f32'}}
  %0:2 = fuser.sdpa %q, %k, %k : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xbf16>, tensor<1x4x16x8xbf16>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>)
  return
}

// -----

func.func @f(%q: tensor<1x4x16x8xf32>, %k: tensor<1x2x16x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{attention key has 2 heads but the query has 4}}
  %0:2 = fuser.sdpa %q, %k, %k : (tensor<1x4x16x8xf32>, tensor<1x2x16x8xf32>, tensor<1x2x16x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>)
  return
}

// -----

func.func @f(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x16x16xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{attention key head dim 16 differs from the query's 8}}
  %0:2 = fuser.sdpa %q, %k, %k : (tensor<1x4x16x8xf32>, tensor<1x4x16x16xf32>, tensor<1x4x16x16xf32>) -> (tensor<1x4x16x16xf32>, tensor<1x4x16xf32>)
  return
}

// -----

func.func @f(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x16x8xf32>, %v: tensor<1x4x16x16xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{attention value head dim 16 differs from the query's 8}}
  %0:2 = fuser.sdpa %q, %k, %v : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x16xf32>) -> (tensor<1x4x16x16xf32>, tensor<1x4x16xf32>)
  return
}

// -----

func.func @f(%q: tensor<1x4x16x8xf32>, %k: tensor<1x4x32x8xf32>, %v: tensor<1x4x16x8xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{attention value has 16 positions but the key has 32}}
  %0:2 = fuser.sdpa %q, %k, %v : (tensor<1x4x16x8xf32>, tensor<1x4x32x8xf32>, tensor<1x4x16x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>)
  return
}

// -----

func.func @f(%q: tensor<1x4x16x8xf32>) {
  // expected-error @+1 {{'fuser.sdpa' op dropout probability must be in [0, 1), got 1.000000e+00}}
  %0:2 = fuser.sdpa %q, %q, %q dropout = 1.0 : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>)
  return
}

// -----

func.func @f(%q: tensor<1x4x16x8xf32>) {
  // expected-error @+1 {{'fuser.sdpa' op scale must be finite, got INF}}
  %0:2 = fuser.sdpa %q, %q, %q scale = 0x7FF0000000000000 : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16xf32>)
  return
}

// -----

func.func @f(%q: tensor<1x4x16x8xf32>, %lse: tensor<1x4x16xbf16>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{attention log-sum-exp has element type 'bf16', expected 'f32'}}
  %0:3 = fuser.sdpa_backward %q, %q, %q, %q, %q, %lse : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16xbf16>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>)
  return
}

// -----

func.func @f(%q: tensor<1x4x16x8xf32>, %o: tensor<1x4x8x8xf32>, %lse: tensor<1x4x16xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{attention output gradient has shape [1, 4, 8, 8] but the forward gives [1, 4, 16, 8]}}
  %0:3 = fuser.sdpa_backward %q, %q, %q, %q, %o, %lse : (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x8x8xf32>, tensor<1x4x16xf32>) -> (tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>, tensor<1x4x16x8xf32>)
  return
}

// -----

func.func @f(%t: tensor<100xf32>, %i: tensor<4xi64>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{embedding table must be [rows, features], got rank 1}}
  %0 = fuser.embedding %t, %i : (tensor<100xf32>, tensor<4xi64>) -> tensor<4xf32>
  return
}

// -----

func.func @f(%t: tensor<100x8xf32>, %i: tensor<4xf32>) {
  // expected-error @+1 {{operand #1 must be ranked tensor of signless integer values}}
  %0 = fuser.embedding %t, %i : (tensor<100x8xf32>, tensor<4xf32>) -> tensor<4x8xf32>
  return
}
