// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-mark-aliases,fuser-verify-stage))' -mlir-print-local-scope | FileCheck %s

// Views between the last kernel and the result become a view-only segment:
// one boundary after the compute, none between the views.
// CHECK-LABEL: func.func @bookend_output
// CHECK: %[[E:.*]] = fuser.exp
// CHECK-NEXT: %[[B:.*]] = fuser.segment_set %[[E]]
// CHECK-NEXT: %[[R:.*]] = fuser.reshape %[[B]]
// CHECK-NEXT: %[[P:.*]] = fuser.permute %[[R]]
// CHECK-NEXT: return %[[P]]
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], [], []]>
func.func @bookend_output(%x: tensor<8x4x2xf32, #rows>) -> tensor<8x8xf32, #fuser.sharding<#mesh, [[], [0]]>> {
  %0 = fuser.exp %x : tensor<8x4x2xf32, #rows> -> tensor<8x4x2xf32, #rows>
  %1 = fuser.reshape %0 : tensor<8x4x2xf32, #rows> -> tensor<8x8xf32, #fuser.sharding<#mesh, [[0], []]>>
  %2 = fuser.permute %1 perm = [1, 0] : tensor<8x8xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
  return %2 : tensor<8x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
}

// -----

// The permute is a view, so its type states the transposed layout; the
// boundary keeps sharding and layout, and no communication appears.
// CHECK-LABEL: func.func @bookend_keeps_sharding
// CHECK: %[[B:.*]] = fuser.segment_set %{{.*}} : tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: fuser.permute %[[B]] perm = [1, 0] : {{.*}} -> tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]], order = [1, 0]>>
// CHECK-NOT: fuser.comm
#mesh = #fuser.mesh<[2]>
func.func @bookend_keeps_sharding(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>> {
  %0 = fuser.exp %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>
  %1 = fuser.permute %0 perm = [1, 0] : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
  return %1 : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
}

// -----

// Views right after an argument become a segment of their own: the kernel
// reads the view through a boundary.
// CHECK-LABEL: func.func @bookend_input
// CHECK: %[[P:.*]] = fuser.permute %arg0
// CHECK-NEXT: %[[B:.*]] = fuser.segment_set %[[P]]
// CHECK-NEXT: fuser.exp %[[B]]
#mesh = #fuser.mesh<[2]>
func.func @bookend_input(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>> {
  %0 = fuser.permute %x perm = [1, 0] : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]], order = [1, 0]>>
  %1 = fuser.exp %0 : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]], order = [1, 0]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
  return %1 : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
}

// -----

// A view between two compute ops stays with them: no boundary, one kernel.
// CHECK-LABEL: func.func @no_over_segmentation
// CHECK-NOT: fuser.segment_set
#mesh = #fuser.mesh<[2]>
func.func @no_over_segmentation(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>> {
  %0 = fuser.exp %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>
  %1 = fuser.permute %0 perm = [1, 0] : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
  %2 = fuser.neg %1 : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
  return %2 : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>
}

// -----

// Views of an argument that are returned need no kernel and no boundary;
// a merge that is not a view is a kernel of its own, no bookend either.
// CHECK-LABEL: func.func @no_kernel_no_boundary
// CHECK-NOT: fuser.segment_set
#mesh = #fuser.mesh<[2]>
func.func @no_kernel_no_boundary(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) -> (tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>, tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>) {
  %0 = fuser.reshape %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>
  %1 = fuser.exp %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], order = [1, 0]>>
  %2 = fuser.reshape %1 : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], order = [1, 0]>> -> tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>
  return %0, %2 : tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>, tensor<32xf32, #fuser.sharding<#mesh, [[0]]>>
}

// -----

// Views of arguments read by compute deep in the function move, with their
// boundaries, before its first op: in place, a boundary would end the
// kernel segment around it. The layer-norm pattern: one run of compute.
// CHECK-LABEL: func.func @hoisted_argument_views
// CHECK-NEXT: %[[M:.*]] = fuser.broadcast %arg1
// CHECK-NEXT: %[[MB:.*]] = fuser.segment_set %[[M]]
// CHECK-NEXT: %[[W:.*]] = fuser.broadcast %arg2
// CHECK-NEXT: %[[WB:.*]] = fuser.segment_set %[[W]]
// CHECK-NEXT: %[[E:.*]] = fuser.exp %arg0
// CHECK-NEXT: %[[C:.*]] = fuser.sub %[[E]], %[[MB]]
// CHECK-NEXT: fuser.mul %[[C]], %[[WB]]
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#vec = #fuser.sharding<#mesh, [[0]]>
#whole = #fuser.sharding<#mesh, [[]]>
func.func @hoisted_argument_views(%x: tensor<8x4xf32, #rows>, %mean: tensor<8xf32, #vec>, %w: tensor<4xf32, #whole>) -> tensor<8x4xf32, #rows> {
  %0 = fuser.exp %x : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rows>
  %1 = fuser.broadcast %mean dims = [0] : tensor<8xf32, #vec> -> tensor<8x4xf32, #rows>
  %2 = fuser.sub %0, %1 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %3 = fuser.broadcast %w dims = [1] : tensor<4xf32, #whole> -> tensor<8x4xf32, #rows>
  %4 = fuser.mul %2, %3 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  return %4 : tensor<8x4xf32, #rows>
}
