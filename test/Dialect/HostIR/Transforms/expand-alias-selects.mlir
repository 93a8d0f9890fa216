// RUN: fuser-opt %s -split-input-file --pass-pipeline='builtin.module(func.func(hostir-expand-alias-selects))' | FileCheck %s

// Chunk %i of dim 1 (2 chunks of 4 columns) is the subview at column
// offset %i * 4; its inferred layout is the one the op states.
// CHECK-LABEL: func.func @columns
// CHECK-SAME: (%[[B:.*]]: memref<8x8xf32>, %[[I:.*]]: index)
// CHECK: %[[CHUNK:.*]] = arith.constant 4 : index
// CHECK: %[[OFFSET:.*]] = arith.muli %[[I]], %[[CHUNK]] : index
// CHECK: %[[V:.*]] = memref.subview %[[B]][0, %[[OFFSET]]] [8, 4] [1, 1] : memref<8x8xf32> to memref<8x4xf32, strided<[8, 1], offset: ?>>
// CHECK-NOT: hostir.alias_select
// CHECK: return %[[V]]
func.func @columns(%b: memref<8x8xf32>, %i: index) -> memref<8x4xf32, strided<[8, 1], offset: ?>> {
  %v = hostir.alias_select %b[%i] dim = 1 chunks = 2 : memref<8x8xf32> -> memref<8x4xf32, strided<[8, 1], offset: ?>>
  return %v : memref<8x4xf32, strided<[8, 1], offset: ?>>
}

// -----

// A view typed less precisely than the subview gets a cast to its type.
// CHECK-LABEL: func.func @cast
// CHECK: %[[V:.*]] = memref.subview %{{.*}}[%{{.*}}, 0] [2, 4] [1, 1] : memref<8x4xf32> to memref<2x4xf32, strided<[4, 1], offset: ?>>
// CHECK: %[[C:.*]] = memref.cast %[[V]] : memref<2x4xf32, strided<[4, 1], offset: ?>> to memref<2x4xf32, strided<[?, ?], offset: ?>>
// CHECK: return %[[C]]
func.func @cast(%b: memref<8x4xf32>, %i: index) -> memref<2x4xf32, strided<[?, ?], offset: ?>> {
  %v = hostir.alias_select %b[%i] dim = 0 chunks = 4 : memref<8x4xf32> -> memref<2x4xf32, strided<[?, ?], offset: ?>>
  return %v : memref<2x4xf32, strided<[?, ?], offset: ?>>
}
