// Every diagnostic of the fuser.comm ops.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32>) {
  // expected-error @+1 {{'fuser.comm.allgather' op operand has no sharding; communication ops move data between sharded values}}
  %0 = fuser.comm.allgather %a axis = 0 : tensor<8xf32> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.comm.allgather' op result has no sharding; communication ops move data between sharded values}}
  %0 = fuser.comm.allgather %a axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.comm.allgather' op mesh axis 1 is out of range for the operand's mesh of 1 axes}}
  %0 = fuser.comm.allgather %a axis = 1 : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
#other = #fuser.mesh<[2], devices = [2, 3]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.comm.allgather' op keeps the mesh, but the operand is on #fuser.mesh<[2]> and the result on #fuser.mesh<[2], devices = [2, 3]>}}
  %0 = fuser.comm.allgather %a axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#other, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[]]>>) {
  // expected-error @+1 {{'fuser.comm.allgather' op operand is not split along mesh axis 0}}
  %0 = fuser.comm.allgather %a axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2, 2]>
func.func @f(%a: tensor<8x8xf32, #fuser.sharding<#mesh, [[0, 1], []]>>) {
  // expected-error @+1 {{'fuser.comm.allgather' op result sharding must be #fuser.sharding<#fuser.mesh<[2, 2]>, [[0], []]> (the operand's without the gathered axis), got #fuser.sharding<#fuser.mesh<[2, 2]>, [[0], [1]]>}}
  %0 = fuser.comm.allgather %a axis = 1 : tensor<8x8xf32, #fuser.sharding<#mesh, [[0, 1], []]>> -> tensor<8x8xf32, #fuser.sharding<#mesh, [[0], [1]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.comm.allreduce' op operand is not partial over mesh axis 0}}
  %0 = fuser.comm.allreduce %a axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>) {
  // expected-error @+1 {{'fuser.comm.allreduce' op result sharding must be #fuser.sharding<#fuser.mesh<[2]>, [[]]> (the operand's, no longer partial over the axis)}}
  %0 = fuser.comm.allreduce %a axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.comm.reduce_scatter' op operand is not partial over mesh axis 0}}
  %0 = fuser.comm.reduce_scatter %a axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>) {
  // expected-error @+1 {{'fuser.comm.reduce_scatter' op result is not split along mesh axis 0}}
  %0 = fuser.comm.reduce_scatter %a axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2, 2]>
func.func @f(%a: tensor<8x8xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum, 1 : sum}>>) {
  // expected-error @+1 {{'fuser.comm.reduce_scatter' op result sharding must be #fuser.sharding<#fuser.mesh<[2, 2]>, [[0], []], partial = {1 : sum}> (the operand's, resolved and split along the axis)}}
  %0 = fuser.comm.reduce_scatter %a axis = 0 : tensor<8x8xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum, 1 : sum}>> -> tensor<8x8xf32, #fuser.sharding<#mesh, [[0], []]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>) {
  // expected-error @+1 {{'fuser.comm.reduce' op root 2 is out of range for mesh axis 0 of size 2}}
  %0 = fuser.comm.reduce %a axis = 0 root = 2 : tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>> -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[]]>>) {
  // expected-error @+1 {{'fuser.comm.reduce' op operand is not partial over mesh axis 0}}
  %0 = fuser.comm.reduce %a axis = 0 root = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[]]>> -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>) {
  // expected-error @+1 {{'fuser.comm.reduce' op result sharding must be #fuser.sharding<#fuser.mesh<[1], devices = [1]>, [[]]> (resolved onto the root's slice of the mesh), got #fuser.sharding<#fuser.mesh<[1]>, [[]]>}}
  %0 = fuser.comm.reduce %a axis = 0 root = 1 : tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>> -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>>) {
  // expected-error @+1 {{'fuser.comm.broadcast' op mesh axis 1 is out of range for the result's mesh of 1 axes}}
  %0 = fuser.comm.broadcast %a axis = 1 root = 0 : tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>>) {
  // expected-error @+1 {{'fuser.comm.broadcast' op root -1 is out of range for mesh axis 0 of size 2}}
  %0 = fuser.comm.broadcast %a axis = 0 root = -1 : tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>>) {
  // expected-error @+1 {{'fuser.comm.broadcast' op result uses mesh axis 0; a broadcast replicates the value along it}}
  %0 = fuser.comm.broadcast %a axis = 0 root = 0 : tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>>) {
  // expected-error @+1 {{'fuser.comm.broadcast' op operand sharding must be #fuser.sharding<#fuser.mesh<[1], devices = [1]>, [[]]> (the result's, on the root's slice of the mesh)}}
  %0 = fuser.comm.broadcast %a axis = 0 root = 1 : tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[]]>>) {
  // expected-error @+1 {{'fuser.comm.gather' op operand is not split along mesh axis 0}}
  %0 = fuser.comm.gather %a axis = 0 root = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[]]>> -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.comm.gather' op result sharding must be #fuser.sharding<#fuser.mesh<[1]>, [[]]> (the operand's without the axis, on the root's slice)}}
  %0 = fuser.comm.gather %a axis = 0 root = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>>) {
  // expected-error @+1 {{'fuser.comm.scatter' op result is not split along mesh axis 0}}
  %0 = fuser.comm.scatter %a axis = 0 root = 0 : tensor<8xf32, #fuser.sharding<#fuser.mesh<[1]>, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[]]>>) {
  // expected-error @+1 {{'fuser.comm.scatter' op operand sharding must be #fuser.sharding<#fuser.mesh<[1]>, [[]]> (the result's without the axis, on the root's slice)}}
  %0 = fuser.comm.scatter %a axis = 0 root = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.comm.send_recv' op operand and result are on the same mesh #fuser.mesh<[2]>; send_recv moves data between two meshes}}
  %0 = fuser.comm.send_recv %a : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.comm.send_recv' op the result is partial; between meshes of different shapes (#fuser.mesh<[2]>, #fuser.mesh<[4]>) send_recv moves shards, which partial values are not}}
  %0 = fuser.comm.send_recv %a : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[4]>, [[]], partial = {0 : sum}>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.comm.send_recv' op result sharding must be #fuser.sharding<#fuser.mesh<[2], devices = [2, 3]>, [[0]]> (the operand's, on the result's mesh)}}
  %0 = fuser.comm.send_recv %a : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[2], devices = [2, 3]>, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8x8xf32, #fuser.sharding<#mesh, [[0], []]>>) {
  // expected-error @+1 {{'fuser.comm.all_to_all' op mesh axis 0 splits dim 0 on both sides; all_to_all moves the split to another dim}}
  %0 = fuser.comm.all_to_all %a axis = 0 : tensor<8x8xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x8xf32, #fuser.sharding<#mesh, [[0], []]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8x8xf32, #fuser.sharding<#mesh, [[0], []]>>) {
  // expected-error @+1 {{'fuser.comm.all_to_all' op result is not split along mesh axis 0}}
  %0 = fuser.comm.all_to_all %a axis = 0 : tensor<8x8xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x8xf32, #fuser.sharding<#mesh, [[], []]>>
  return
}

// -----

#mesh = #fuser.mesh<[2, 2]>
func.func @f(%a: tensor<8x8xf32, #fuser.sharding<#mesh, [[0], [1]]>>) {
  // expected-error @+1 {{'fuser.comm.all_to_all' op result sharding must be #fuser.sharding<#fuser.mesh<[2, 2]>, [[], [0, 1]]> (the operand's with the axis moved to another dim)}}
  %0 = fuser.comm.all_to_all %a axis = 0 : tensor<8x8xf32, #fuser.sharding<#mesh, [[0], [1]]>> -> tensor<8x8xf32, #fuser.sharding<#mesh, [[1], [0]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>) {
  // expected-error @+1 {{'fuser.comm.all_slice' op operand already uses mesh axis 0; all_slice splits a value replicated along it}}
  %0 = fuser.comm.all_slice %a axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @f(%a: tensor<8xf32, #fuser.sharding<#mesh, [[]]>>) {
  // expected-error @+1 {{'fuser.comm.all_slice' op result is not split along mesh axis 0}}
  %0 = fuser.comm.all_slice %a axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2, 2]>
func.func @f(%a: tensor<8x8xf32, #fuser.sharding<#mesh, [[], []]>>) {
  // expected-error @+1 {{'fuser.comm.all_slice' op result sharding must be #fuser.sharding<#fuser.mesh<[2, 2]>, [[0], []]> (the operand's, split along the axis), got #fuser.sharding<#fuser.mesh<[2, 2]>, [[0], [1]]>}}
  %0 = fuser.comm.all_slice %a axis = 0 : tensor<8x8xf32, #fuser.sharding<#mesh, [[], []]>> -> tensor<8x8xf32, #fuser.sharding<#mesh, [[0], [1]]>>
  return
}
