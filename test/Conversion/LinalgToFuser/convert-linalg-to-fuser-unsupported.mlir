// RUN: fuser-opt %s -split-input-file --convert-linalg-to-fuser -mlir-print-local-scope | FileCheck %s

// Forms without a fuser equivalent stay as they are, without a diagnostic:
// contractions with other maps or mixed element types, and reductions,
// whose accumulators stay too.
// CHECK-LABEL: func.func @contractions
// CHECK: linalg.matmul indexing_maps
// CHECK: linalg.matmul ins(%{{.*}} : tensor<8x16xbf16>, tensor<16x32xbf16>) outs(%{{.*}} : tensor<8x32xf32>)
// CHECK: %[[ZEROS:.*]] = linalg.fill
// CHECK: linalg.reduce ins(%{{.*}}) outs(%[[ZEROS]] : tensor<8xf32>)
// CHECK-NOT: fuser.
func.func @contractions(%a: tensor<8x16xbf16>, %bt: tensor<32x16xbf16>, %b: tensor<16x32xbf16>)
    -> (tensor<8x32xbf16>, tensor<8x32xf32>, tensor<8xf32>) {
  %empty = tensor.empty() : tensor<8x32xbf16>
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
                     ins(%a, %bt : tensor<8x16xbf16>, tensor<32x16xbf16>)
                     outs(%empty : tensor<8x32xbf16>) -> tensor<8x32xbf16>
  %wide = tensor.empty() : tensor<8x32xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<8x16xbf16>, tensor<16x32xbf16>)
                     outs(%wide : tensor<8x32xf32>) -> tensor<8x32xf32>
  %zero = arith.constant 0.0 : f32
  %rows = tensor.empty() : tensor<8xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%rows : tensor<8xf32>) -> tensor<8xf32>
  %2 = linalg.reduce ins(%1 : tensor<8x32xf32>) outs(%zeros : tensor<8xf32>) dimensions = [1]
    (%x: f32, %acc: f32) {
      %s = arith.addf %x, %acc : f32
      linalg.yield %s : f32
    }
  return %0, %1, %2 : tensor<8x32xbf16>, tensor<8x32xf32>, tensor<8xf32>
}

// -----

// Elementwise ops on scalars and vectors, unsigned integer ops, ops fuser
// has no pointwise op for.
// CHECK-LABEL: func.func @elementwise
// CHECK: arith.addf %{{.*}} : f32
// CHECK: arith.mulf %{{.*}} : vector<4xf32>
// CHECK: arith.divui %{{.*}} : tensor<4xi32>
// CHECK: arith.maxui %{{.*}} : tensor<4xi32>
// CHECK: math.atan %{{.*}} : tensor<4xf32>
// CHECK: linalg.div_unsigned
// CHECK-NOT: fuser.
func.func @elementwise(%s: f32, %v: vector<4xf32>, %i: tensor<4xi32>, %x: tensor<4xf32>)
    -> (f32, vector<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>) {
  %0 = arith.addf %s, %s : f32
  %1 = arith.mulf %v, %v : vector<4xf32>
  %2 = arith.divui %i, %i : tensor<4xi32>
  %3 = arith.maxui %2, %i : tensor<4xi32>
  %4 = math.atan %x : tensor<4xf32>
  %5 = linalg.div_unsigned ins(%i, %i : tensor<4xi32>, tensor<4xi32>) outs(%i : tensor<4xi32>) -> tensor<4xi32>
  return %0, %1, %2, %3, %4, %5 : f32, vector<4xf32>, tensor<4xi32>, tensor<4xi32>, tensor<4xf32>, tensor<4xi32>
}

// -----

// Dynamic shapes, constants of several values, fills of a value known only
// at run time, and the tensor ops fuser spells differently.
// CHECK-LABEL: func.func @shapes_and_creation
// CHECK: tensor.expand_shape
// CHECK: arith.constant dense<[1.000000e+00, 2.000000e+00]> : tensor<2xf32>
// CHECK: linalg.fill ins(%{{.*}} : f32)
// CHECK: tensor.extract_slice
// CHECK: tensor.concat
// CHECK-NOT: fuser.
func.func @shapes_and_creation(%d: tensor<?x16xf32>, %n: index, %value: f32, %x: tensor<4x8xf32>)
    -> (tensor<?x4x16xf32>, tensor<2xf32>, tensor<4x8xf32>, tensor<4x2xf32>, tensor<8x8xf32>) {
  %0 = tensor.expand_shape %d [[0, 1], [2]] output_shape [%n, 4, 16] : tensor<?x16xf32> into tensor<?x4x16xf32>
  %1 = arith.constant dense<[1.0, 2.0]> : tensor<2xf32>
  %empty = tensor.empty() : tensor<4x8xf32>
  %2 = linalg.fill ins(%value : f32) outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = tensor.extract_slice %x[0, 0] [4, 2] [1, 1] : tensor<4x8xf32> to tensor<4x2xf32>
  %4 = tensor.concat dim(0) %x, %x : (tensor<4x8xf32>, tensor<4x8xf32>) -> tensor<8x8xf32>
  return %0, %1, %2, %3, %4 : tensor<?x4x16xf32>, tensor<2xf32>, tensor<4x8xf32>, tensor<4x2xf32>, tensor<8x8xf32>
}
