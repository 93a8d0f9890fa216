// A value moved onto the slice of its mesh along an axis, into a sharding
// that splits a dim over that axis (of one device on the slice): refused
// with a message (it used to build a sharding using the axis twice, for
// the dim and the partial state, and abort).
// RUN: fuser-opt %s --pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings))' -verify-diagnostics

#mesh = #fuser.mesh<[2]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#root = #fuser.sharding<#fuser.mesh<[1]>, [[], [0]]>
func.func @reduce_onto_slice(%x: tensor<8x16xf32, #cols>, %w: tensor<4x16xf32, #cols>) -> tensor<8x4xf32, #root> {
  // expected-error @+1 {{cannot move a value onto the slice at index 0 of mesh axis 0 with dim 1 split over that axis, which has one device there: state the dim unsplit on the slice}}
  %0 = fuser.linear %x, %w : (tensor<8x16xf32, #cols>, tensor<4x16xf32, #cols>) -> tensor<8x4xf32, #root>
  return %0 : tensor<8x4xf32, #root>
}
