// RUN: fuser-opt %s --fuser-to-hostir-pipeline -mlir-print-local-scope | FileCheck %s

// Upstream tensor views (their view interface is an external model) become
// buffer views like fuser's: reshapes are reinterpret_casts with the strides
// of the dims they split or merge, a slice is a subview at its offset.
// CHECK-LABEL: func.func @upstream_views(
// CHECK-SAME: %[[X:.*]]: memref<4x16xf32>) -> (memref<1x64xf32>, memref<4x8xf32, strided<[?, 1], offset: ?>>)
// CHECK: memref.reinterpret_cast %[[X]] to offset: [0], sizes: [1, 4, 16], strides: [64, 16, 1]
// CHECK: memref.reinterpret_cast %{{.*}} to offset: [0], sizes: [1, 64], strides: [1, 1]
// CHECK: %[[SLICE:.*]] = memref.subview %[[X]][0, 2] [4, 8] [1, 1] : memref<4x16xf32> to memref<4x8xf32, strided<[16, 1], offset: 2>>
// CHECK: %[[VIEW:.*]] = memref.cast %[[SLICE]]
// CHECK: return %{{.*}}, %[[VIEW]]
#rows = #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>
func.func @upstream_views(%x: tensor<8x16xf32, #rows>) -> (tensor<2x64xf32>, tensor<8x8xf32>) {
  %0 = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32, #rows> into tensor<2x4x16xf32>
  %1 = tensor.collapse_shape %0 [[0], [1, 2]] : tensor<2x4x16xf32> into tensor<2x64xf32>
  %2 = tensor.extract_slice %x[0, 2] [8, 8] [1, 1] : tensor<8x16xf32, #rows> to tensor<8x8xf32>
  return %1, %2 : tensor<2x64xf32>, tensor<8x8xf32>
}
