// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-verify-stage{stage=propagated}))' -mlir-print-local-scope | FileCheck %s

// Tensor-parallel MLP in linalg: only the weights are annotated. The
// column-parallel product splits the hidden dim, which math and arith ops
// keep; the row-parallel product splits K, so its result is partial and so
// are the zeros it accumulates into. The returned value is resolved.
// CHECK-LABEL: func.func @tp_mlp
// CHECK: %[[E1:.*]] = tensor.empty() : tensor<8x256xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK: %[[Z1:.*]] = linalg.fill {{.*}} outs(%[[E1]] : {{.*}}) -> tensor<8x256xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK: %[[H:.*]] = linalg.matmul {{.*}} outs(%[[Z1]] : {{.*}}) -> tensor<8x256xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK: %[[T:.*]] = math.tanh %[[H]] : tensor<8x256xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK: %[[A:.*]] = arith.mulf %[[T]], %[[H]] : tensor<8x256xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK: %[[E2:.*]] = tensor.empty() : tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : sum}>>
// CHECK: %[[Z2:.*]] = linalg.fill {{.*}} outs(%[[E2]] : {{.*}}) -> tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : sum}>>
// CHECK: %[[Y:.*]] = linalg.matmul ins(%[[A]], {{.*}}) outs(%[[Z2]] : {{.*}}) -> tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : sum}>>
// CHECK: %[[R:.*]] = fuser.set %[[Y]] : {{.*}} -> tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
// CHECK: return %[[R]]
#mesh = #fuser.mesh<[2]>
func.func @tp_mlp(%x: tensor<8x64xf32>,
                  %w1: tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                  %w2: tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<8x256xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<8x256xf32>) -> tensor<8x256xf32>
  %h = linalg.matmul ins(%x, %w1 : tensor<8x64xf32>, tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>)
                     outs(%z1 : tensor<8x256xf32>) -> tensor<8x256xf32>
  %t = math.tanh %h : tensor<8x256xf32>
  %a = arith.mulf %t, %h : tensor<8x256xf32>
  %e2 = tensor.empty() : tensor<8x64xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = linalg.matmul ins(%a, %w2 : tensor<8x256xf32>, tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>)
                     outs(%z2 : tensor<8x64xf32>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// A batch split carries through batch_matmul; an init that is a function
// argument keeps the caller's placement and is converted by a fuser.set.
// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: %[[C:[^:]*]]: tensor<4x8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [], []]>>
// CHECK: %[[S:.*]] = fuser.set %[[C]] : {{.*}} -> tensor<4x8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], [], []]>>
// CHECK: linalg.batch_matmul {{.*}} outs(%[[S]] : {{.*}}) -> tensor<4x8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], [], []]>>
#mesh = #fuser.mesh<[2]>
func.func @batch_matmul(%a: tensor<4x8x16xf32, #fuser.sharding<#mesh, [[0], [], []]>>,
                        %b: tensor<4x16x32xf32>, %c: tensor<4x8x32xf32>) -> tensor<4x8x32xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xf32, #fuser.sharding<#mesh, [[0], [], []]>>, tensor<4x16x32xf32>)
                           outs(%c : tensor<4x8x32xf32>) -> tensor<4x8x32xf32>
  return %0 : tensor<4x8x32xf32>
}

// -----

// Parallel loops map through a generic's indexing maps (here the second
// input is read transposed); a split reduction loop makes the result
// partial with the combiner's kind, and its init with it.
// CHECK-LABEL: func.func @generics
// CHECK: linalg.generic
// CHECK: } -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: %[[INIT:.*]] = linalg.fill {{.*}} -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[]], partial = {0 : max}>>
// CHECK: linalg.generic {{.*}} outs(%[[INIT]] : {{.*}}) {
// CHECK: } -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[]], partial = {0 : max}>>
// CHECK: fuser.set {{.*}} -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[]]>>
#mesh = #fuser.mesh<[2]>
#identity = affine_map<(d0, d1) -> (d0, d1)>
#transpose = affine_map<(d0, d1) -> (d1, d0)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @generics(%a: tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>, %b: tensor<16x8xf32>,
                    %t: tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> (tensor<8x16xf32>, tensor<8xf32>) {
  %e = tensor.empty() : tensor<8x16xf32>
  %sum = linalg.generic {indexing_maps = [#identity, #transpose, #identity],
                         iterator_types = ["parallel", "parallel"]}
      ins(%a, %b : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<16x8xf32>) outs(%e : tensor<8x16xf32>) {
  ^bb0(%x: f32, %y: f32, %out: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<8x16xf32>
  %lowest = arith.constant 0xFF800000 : f32
  %r = tensor.empty() : tensor<8xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%r : tensor<8xf32>) -> tensor<8xf32>
  %max = linalg.generic {indexing_maps = [#identity, #rows],
                         iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>) outs(%init : tensor<8xf32>) {
  ^bb0(%x: f32, %out: f32):
    %m = arith.maximumf %out, %x : f32
    linalg.yield %m : f32
  } -> tensor<8xf32>
  return %sum, %max : tensor<8x16xf32>, tensor<8xf32>
}

// -----

// Splits follow the factors of reshapes: the outer factor of a split dim
// takes the axis; a partial value stays partial through them (views move
// data linearly).
// CHECK-LABEL: func.func @reshapes
// CHECK: tensor.expand_shape {{.*}} into tensor<2x4x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], [], []]>>
// CHECK: tensor.collapse_shape {{.*}} into tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK: tensor.expand_shape {{.*}} into tensor<2x4x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [], []], partial = {0 : sum}>>
#mesh = #fuser.mesh<[2]>
func.func @reshapes(%a: tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>,
                    %b: tensor<8x4x4xf32, #fuser.sharding<#mesh, [[], [0], []]>>,
                    %p: tensor<8x16xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>>) {
  %0 = tensor.expand_shape %a [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>> into tensor<2x4x16xf32>
  %1 = tensor.collapse_shape %b [[0], [1, 2]] : tensor<8x4x4xf32, #fuser.sharding<#mesh, [[], [0], []]>> into tensor<8x16xf32>
  %2 = tensor.expand_shape %p [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32, #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>> into tensor<2x4x16xf32>
  return
}

// -----

// Slices, concatenations and pads keep the dims they leave whole split;
// the dims they cut or grow get no split.
// CHECK-LABEL: func.func @slice_concat_pad
// CHECK: tensor.extract_slice {{.*}} to tensor<8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: tensor.concat {{.*}} -> tensor<8x20xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: tensor.pad
// CHECK: } : {{.*}} to tensor<8x24xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
#mesh = #fuser.mesh<[2]>
func.func @slice_concat_pad(%a: tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>) {
  %s = tensor.extract_slice %a[0, 2] [8, 4] [1, 1] : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>> to tensor<8x4xf32>
  %c = tensor.concat dim(1) %a, %s : (tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<8x4xf32>) -> tensor<8x20xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %c low[0, 1] high[0, 3] {
  ^bb0(%i: index, %j: index):
    tensor.yield %zero : f32
  } : tensor<8x20xf32> to tensor<8x24xf32>
  return
}
