// Shapes whose sizes overflow 64 bits are reported: a pad past 2^63
// elements (its inferred size used to overflow), and a sharded tensor of
// more than 2^63 bytes (its buffer's strides used to overflow).
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

func.func @pad(%a: tensor<4x9223372036854775807xf32>) {
  // expected-error @+2 {{failed to infer returned types}}
  // expected-error @+1 {{padded size of dim 1 does not fit in 64 bits}}
  %0 = fuser.pad %a low = [1, 1] high = [1, 1] : tensor<4x9223372036854775807xf32> -> tensor<6x10xf32>
  return
}

// -----

#mesh = #fuser.mesh<[2, 2]>
// expected-error @+1 {{a tensor of shape [4294967296, 4294967296] and element type 'f32' holds more than 2^63 bytes}}
func.func @swap_axes(%x: tensor<4294967296x4294967296xf32, #fuser.sharding<#mesh, [[0], [1]]>>) {
  return
}
