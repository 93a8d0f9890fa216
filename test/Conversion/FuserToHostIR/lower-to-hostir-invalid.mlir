// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(convert-fuser-to-hostir)' -verify-diagnostics
// RUN: not fuser-opt %s -split-input-file -pass-pipeline='builtin.module(convert-fuser-to-hostir{backend=gloo})' 2>&1 | FileCheck %s --check-prefix=BACKEND
// BACKEND: for the --backend option: Cannot find option named 'gloo'!
// RUN: not fuser-opt %s -split-input-file -pass-pipeline='builtin.module(convert-fuser-to-hostir{pipelining=tree})' 2>&1 | FileCheck %s --check-prefix=PIPELINING
// PIPELINING: for the --pipelining option: Cannot find option named 'tree'!

#mesh = #fuser.mesh<[2]>
func.func @not_segmented(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{cannot lower this op to host IR: segment the function first (fuser-segment)}}
  %0 = fuser.exp %x : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

// A merge of a transposed buffer is not a view; segmentation makes it a copy.
#mesh = #fuser.mesh<[2]>
func.func @reshape_of_transposed(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], order = [1, 0]>>) {
  // expected-error @+1 {{this reshape is not a view of its operand's buffer: the dims it merges are not one strided line in memory (or their strides are only known at run time); it needs a copy}}
  %0 = fuser.reshape %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], order = [1, 0]>> -> tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

// Merging dims whose strides are known only at run time cannot be shown to
// be a view.
#mesh = #fuser.mesh<[2]>
func.func @merge_of_gapped(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], contiguity = [false, false]>>) {
  // expected-error @+1 {{this reshape is not a view of its operand's buffer}}
  %0 = fuser.reshape %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], contiguity = [false, false]>> -> tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

// An op of another dialect that computes on tensors has no host form
// either; what reads its result is left as it is.
#mesh = #fuser.mesh<[2]>
func.func @foreign_compute(%x: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> {
  // expected-error @+1 {{cannot lower this op to host IR: segment the function first (fuser-segment)}}
  %0 = arith.addf %x, %x : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  %1 = fuser.comm.allgather %0 axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  %2 = fuser.comm.all_slice %1 axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return %2 : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
}

// -----

// A slice at an offset known only at run time has no static view yet.
#rows = #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>
func.func @dynamic_slice(%x: tensor<8x16xf32, #rows>, %i: index) {
  // expected-error @+1 {{lowering of a slice with dynamic offsets or strides, or that drops dims, is not implemented yet}}
  %0 = tensor.extract_slice %x[0, %i] [8, 8] [1, 1] : tensor<8x16xf32, #rows> to tensor<8x8xf32, #rows>
  return
}
