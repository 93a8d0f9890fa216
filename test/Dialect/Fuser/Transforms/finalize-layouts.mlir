// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-finalize-layouts,fuser-verify-stage{stage=laid-out}))' -mlir-print-local-scope | FileCheck %s

// A stream split enters the allocation only for intermediates whose every
// consumer works on the same chunks.
// CHECK-LABEL: func.func @stream_allocation
// CHECK-SAME: %arg0: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], stream = {1 : 4}>>
// CHECK: %[[E:.*]] = fuser.exp {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], stream = {1 : 4 chunked}>>
// CHECK: %[[N:.*]] = fuser.neg {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], stream = {1 : 4}>>
// CHECK: fuser.add %[[E]], %[[N]] {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], stream = {1 : 4}>>
// CHECK: fuser.sum %[[N]]
#mesh = #fuser.mesh<[2]>
#s = #fuser.sharding<#mesh, [[0], []], stream = {1 : 4}>
func.func @stream_allocation(%x: tensor<8x16xf32, #s>) -> tensor<8x16xf32, #s> {
  // Read chunk by chunk by the add only.
  %0 = fuser.exp %x : tensor<8x16xf32, #s> -> tensor<8x16xf32, #s>
  // Also read whole by a reduction over the split dim.
  %1 = fuser.neg %x : tensor<8x16xf32, #s> -> tensor<8x16xf32, #s>
  // Returned: allocated whole.
  %2 = fuser.add %0, %1 : (tensor<8x16xf32, #s>, tensor<8x16xf32, #s>) -> tensor<8x16xf32, #s>
  %3 = fuser.sum %1 dims = [1] : tensor<8x16xf32, #s> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
  return %2 : tensor<8x16xf32, #s>
}

// -----

// Laid-out communications pass unchanged.
// CHECK-LABEL: func.func @laid_out
// CHECK-NEXT: fuser.comm.allgather %arg0 axis = 0
#mesh = #fuser.mesh<[2]>
func.func @laid_out(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) {
  %0 = fuser.comm.allgather %x axis = 0 : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  return
}
