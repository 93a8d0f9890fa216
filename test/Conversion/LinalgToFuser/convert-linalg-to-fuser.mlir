// RUN: fuser-opt %s -split-input-file --convert-linalg-to-fuser -mlir-print-local-scope | FileCheck %s

// Accumulators of zeros are dropped with the ops that only they used; any
// other accumulator is added to the product. Shardings stay in the types.
// CHECK-LABEL: func.func @matmuls
// CHECK-SAME: (%[[A:.*]]: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>, %[[B:.*]]: tensor<16x32xf32>, %[[C:.*]]: tensor<8x32xf32>)
// CHECK-NOT: tensor.empty
// CHECK-NOT: linalg.
// CHECK-NOT: arith.constant
// CHECK: %[[P0:.*]] = fuser.matmul %[[A]], %[[B]] : (tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>, tensor<16x32xf32>) -> tensor<8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK-NEXT: %[[P1:.*]] = fuser.matmul %[[A]], %[[B]] : {{.*}} -> tensor<8x32xf32>
// CHECK-NEXT: %[[P2:.*]] = fuser.matmul %[[A]], %[[B]] : {{.*}} -> tensor<8x32xf32>
// CHECK-NEXT: %[[S:.*]] = fuser.add %[[P2]], %[[C]] : (tensor<8x32xf32>, tensor<8x32xf32>) -> tensor<8x32xf32>
// CHECK-NEXT: return %[[P0]], %[[P1]], %[[S]]
#rows = #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>
func.func @matmuls(%a: tensor<8x16xf32, #rows>, %b: tensor<16x32xf32>, %c: tensor<8x32xf32>)
    -> (tensor<8x32xf32, #rows>, tensor<8x32xf32>, tensor<8x32xf32>) {
  %empty_rows = tensor.empty() : tensor<8x32xf32, #rows>
  %0 = linalg.matmul ins(%a, %b : tensor<8x16xf32, #rows>, tensor<16x32xf32>)
                     outs(%empty_rows : tensor<8x32xf32, #rows>) -> tensor<8x32xf32, #rows>
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<8x32xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%empty : tensor<8x32xf32>) -> tensor<8x32xf32>
  %1 = linalg.matmul ins(%a, %b : tensor<8x16xf32, #rows>, tensor<16x32xf32>)
                     outs(%zeros : tensor<8x32xf32>) -> tensor<8x32xf32>
  %2 = linalg.matmul ins(%a, %b : tensor<8x16xf32, #rows>, tensor<16x32xf32>)
                     outs(%c : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0, %1, %2 : tensor<8x32xf32, #rows>, tensor<8x32xf32>, tensor<8x32xf32>
}

// -----

// CHECK-LABEL: func.func @batch_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<4x8x16xi32>, %[[B:.*]]: tensor<4x16x32xi32>)
// CHECK-NEXT: %[[P:.*]] = fuser.matmul %[[A]], %[[B]] : (tensor<4x8x16xi32>, tensor<4x16x32xi32>) -> tensor<4x8x32xi32>
// CHECK-NEXT: return %[[P]]
func.func @batch_matmul(%a: tensor<4x8x16xi32>, %b: tensor<4x16x32xi32>) -> tensor<4x8x32xi32> {
  %zeros = arith.constant dense<0> : tensor<4x8x32xi32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x8x16xi32>, tensor<4x16x32xi32>)
                           outs(%zeros : tensor<4x8x32xi32>) -> tensor<4x8x32xi32>
  return %0 : tensor<4x8x32xi32>
}

// -----

// CHECK-LABEL: func.func @transpose
// CHECK-SAME: (%[[X:.*]]: tensor<2x4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0], []]>>)
// CHECK-NEXT: %[[T:.*]] = fuser.permute %[[X]] perm = [2, 0, 1] : tensor<2x4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0], []]>> -> tensor<8x2x4xf32>
// CHECK-NEXT: return %[[T]]
#split = #fuser.sharding<#fuser.mesh<[2]>, [[], [0], []]>
func.func @transpose(%x: tensor<2x4x8xf32, #split>) -> tensor<8x2x4xf32> {
  %empty = tensor.empty() : tensor<8x2x4xf32>
  %0 = linalg.transpose ins(%x : tensor<2x4x8xf32, #split>)
                        outs(%empty : tensor<8x2x4xf32>) permutation = [2, 0, 1]
  return %0 : tensor<8x2x4xf32>
}

// -----

// linalg's named elementwise ops; the destination is dropped whatever it
// holds.
// CHECK-LABEL: func.func @named_elementwise
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>, %[[Y:[^:]*]]: tensor<4x8xf32>, %[[OUT:[^:]*]]: tensor<4x8xf32>)
// CHECK-NEXT: %[[ADD:.*]] = fuser.add %[[X]], %[[Y]] : (tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>, tensor<4x8xf32>) -> tensor<4x8xf32>
// CHECK-NEXT: %[[SUB:.*]] = fuser.sub %[[ADD]], %[[Y]]
// CHECK-NEXT: %[[MUL:.*]] = fuser.mul %[[SUB]], %[[Y]]
// CHECK-NEXT: %[[DIV:.*]] = fuser.div %[[MUL]], %[[Y]]
// CHECK-NEXT: %[[MAX:.*]] = fuser.maximum %[[DIV]], %[[Y]]
// CHECK-NEXT: %[[MIN:.*]] = fuser.minimum %[[MAX]], %[[Y]]
// CHECK-NEXT: %[[POW:.*]] = fuser.pow %[[MIN]], %[[Y]]
// CHECK-NEXT: %[[NEG:.*]] = fuser.neg %[[POW]] : tensor<4x8xf32> -> tensor<4x8xf32>
// CHECK-NEXT: %[[ABS:.*]] = fuser.abs %[[NEG]]
// CHECK-NEXT: %[[EXP:.*]] = fuser.exp %[[ABS]]
// CHECK-NEXT: %[[LOG:.*]] = fuser.log %[[EXP]]
// CHECK-NEXT: %[[SQRT:.*]] = fuser.sqrt %[[LOG]]
// CHECK-NEXT: %[[RSQRT:.*]] = fuser.rsqrt %[[SQRT]]
// CHECK-NEXT: %[[TANH:.*]] = fuser.tanh %[[RSQRT]]
// CHECK-NEXT: %[[ERF:.*]] = fuser.erf %[[TANH]]
// CHECK-NEXT: return %[[ERF]]
#rows = #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>
func.func @named_elementwise(%x: tensor<4x8xf32, #rows>, %y: tensor<4x8xf32>,
                             %out: tensor<4x8xf32>) -> tensor<4x8xf32> {
  %0 = linalg.add ins(%x, %y : tensor<4x8xf32, #rows>, tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %1 = linalg.sub ins(%0, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %2 = linalg.mul ins(%1, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %3 = linalg.div ins(%2, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %4 = linalg.max ins(%3, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %5 = linalg.min ins(%4, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %6 = linalg.powf ins(%5, %y : tensor<4x8xf32>, tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %7 = linalg.negf ins(%6 : tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %8 = linalg.abs ins(%7 : tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %9 = linalg.exp ins(%8 : tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %10 = linalg.log ins(%9 : tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %11 = linalg.sqrt ins(%10 : tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %12 = linalg.rsqrt ins(%11 : tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %13 = linalg.tanh ins(%12 : tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  %14 = linalg.erf ins(%13 : tensor<4x8xf32>) outs(%out : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %14 : tensor<4x8xf32>
}

// -----

// arith and math on ranked tensors, floats and integers.
// CHECK-LABEL: func.func @tensor_elementwise
// CHECK-SAME: (%[[X:[^:]*]]: tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>, %[[I:[^:]*]]: tensor<4x8xi32>)
// CHECK-NEXT: %[[ADDF:.*]] = fuser.add %[[X]], %[[X]] : (tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>, tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>) -> tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK-NEXT: %[[SUBF:.*]] = fuser.sub %[[ADDF]], %[[X]]
// CHECK-NEXT: %[[MULF:.*]] = fuser.mul %[[SUBF]], %[[X]]
// CHECK-NEXT: %[[DIVF:.*]] = fuser.div %[[MULF]], %[[X]]
// CHECK-NEXT: %[[MAXF:.*]] = fuser.maximum %[[DIVF]], %[[X]]
// CHECK-NEXT: %[[MINF:.*]] = fuser.minimum %[[MAXF]], %[[X]]
// CHECK-NEXT: %[[POWF:.*]] = fuser.pow %[[MINF]], %[[X]]
// CHECK-NEXT: %[[NEGF:.*]] = fuser.neg %[[POWF]]
// CHECK-NEXT: %[[ABSF:.*]] = fuser.abs %[[NEGF]]
// CHECK-NEXT: %[[EXP:.*]] = fuser.exp %[[ABSF]]
// CHECK-NEXT: %[[LOG:.*]] = fuser.log %[[EXP]]
// CHECK-NEXT: %[[SQRT:.*]] = fuser.sqrt %[[LOG]]
// CHECK-NEXT: %[[RSQRT:.*]] = fuser.rsqrt %[[SQRT]]
// CHECK-NEXT: %[[TANH:.*]] = fuser.tanh %[[RSQRT]]
// CHECK-NEXT: %[[SIN:.*]] = fuser.sin %[[TANH]]
// CHECK-NEXT: %[[COS:.*]] = fuser.cos %[[SIN]]
// CHECK-NEXT: %[[ERF:.*]] = fuser.erf %[[COS]]
// CHECK-NEXT: %[[ADDI:.*]] = fuser.add %[[I]], %[[I]] : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
// CHECK-NEXT: %[[SUBI:.*]] = fuser.sub %[[ADDI]], %[[I]]
// CHECK-NEXT: %[[MULI:.*]] = fuser.mul %[[SUBI]], %[[I]]
// CHECK-NEXT: %[[DIVSI:.*]] = fuser.div %[[MULI]], %[[I]]
// CHECK-NEXT: %[[MAXSI:.*]] = fuser.maximum %[[DIVSI]], %[[I]]
// CHECK-NEXT: %[[MINSI:.*]] = fuser.minimum %[[MAXSI]], %[[I]]
// CHECK-NEXT: %[[ABSI:.*]] = fuser.abs %[[MINSI]]
// CHECK-NEXT: return %[[ERF]], %[[ABSI]]
#cols = #fuser.sharding<#fuser.mesh<[2]>, [[], [0]]>
func.func @tensor_elementwise(%x: tensor<4x8xf32, #cols>, %i: tensor<4x8xi32>)
    -> (tensor<4x8xf32, #cols>, tensor<4x8xi32>) {
  %0 = arith.addf %x, %x : tensor<4x8xf32, #cols>
  %1 = arith.subf %0, %x : tensor<4x8xf32, #cols>
  %2 = arith.mulf %1, %x : tensor<4x8xf32, #cols>
  %3 = arith.divf %2, %x : tensor<4x8xf32, #cols>
  %4 = arith.maximumf %3, %x : tensor<4x8xf32, #cols>
  %5 = arith.minimumf %4, %x : tensor<4x8xf32, #cols>
  %6 = math.powf %5, %x : tensor<4x8xf32, #cols>
  %7 = arith.negf %6 : tensor<4x8xf32, #cols>
  %8 = math.absf %7 : tensor<4x8xf32, #cols>
  %9 = math.exp %8 : tensor<4x8xf32, #cols>
  %10 = math.log %9 : tensor<4x8xf32, #cols>
  %11 = math.sqrt %10 : tensor<4x8xf32, #cols>
  %12 = math.rsqrt %11 : tensor<4x8xf32, #cols>
  %13 = math.tanh %12 : tensor<4x8xf32, #cols>
  %14 = math.sin %13 : tensor<4x8xf32, #cols>
  %15 = math.cos %14 : tensor<4x8xf32, #cols>
  %16 = math.erf %15 : tensor<4x8xf32, #cols>
  %20 = arith.addi %i, %i : tensor<4x8xi32>
  %21 = arith.subi %20, %i : tensor<4x8xi32>
  %22 = arith.muli %21, %i : tensor<4x8xi32>
  %23 = arith.divsi %22, %i : tensor<4x8xi32>
  %24 = arith.maxsi %23, %i : tensor<4x8xi32>
  %25 = arith.minsi %24, %i : tensor<4x8xi32>
  %26 = math.absi %25 : tensor<4x8xi32>
  return %16, %26 : tensor<4x8xf32, #cols>, tensor<4x8xi32>
}

// -----

// CHECK-LABEL: func.func @reshapes
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>)
// CHECK-NEXT: %[[E:.*]] = fuser.reshape %[[X]] : tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>> -> tensor<2x4x16xf32>
// CHECK-NEXT: %[[C:.*]] = fuser.reshape %[[E]] : tensor<2x4x16xf32> -> tensor<2x64xf32>
// CHECK-NEXT: return %[[C]]
#rows = #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>
func.func @reshapes(%x: tensor<8x16xf32, #rows>) -> tensor<2x64xf32> {
  %0 = tensor.expand_shape %x [[0, 1], [2]] output_shape [2, 4, 16] : tensor<8x16xf32, #rows> into tensor<2x4x16xf32>
  %1 = tensor.collapse_shape %0 [[0], [1, 2]] : tensor<2x4x16xf32> into tensor<2x64xf32>
  return %1 : tensor<2x64xf32>
}

// -----

// Splats and fills of a constant that nothing accumulates into; an i1
// true is 1.
// CHECK-LABEL: func.func @creation
// CHECK-NEXT: %[[F:.*]] = fuser.full -2.500000e+00 : tensor<4x8xbf16, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK-NEXT: %[[I:.*]] = fuser.full -7.000000e+00 : tensor<4xi64>
// CHECK-NEXT: %[[B:.*]] = fuser.full 1.000000e+00 : tensor<2x2xi1>
// CHECK-NEXT: %[[FILL:.*]] = fuser.full 3.000000e+00 : tensor<4x8xf32>
// CHECK-NEXT: return %[[F]], %[[I]], %[[B]], %[[FILL]]
#rows = #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>
func.func @creation() -> (tensor<4x8xbf16, #rows>, tensor<4xi64>, tensor<2x2xi1>, tensor<4x8xf32>) {
  %0 = arith.constant dense<-2.5> : tensor<4x8xbf16, #rows>
  %1 = arith.constant dense<-7> : tensor<4xi64>
  %2 = arith.constant dense<true> : tensor<2x2xi1>
  %three = arith.constant 3.0 : f32
  %empty = tensor.empty() : tensor<4x8xf32>
  %3 = linalg.fill ins(%three : f32) outs(%empty : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %0, %1, %2, %3 : tensor<4x8xbf16, #rows>, tensor<4xi64>, tensor<2x2xi1>, tensor<4x8xf32>
}
