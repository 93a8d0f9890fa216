// RUN: fuser-opt %s --fuser-generate-vjp=functions=second | FileCheck %s --check-prefix=NAMED
// RUN: fuser-opt %s --fuser-generate-vjp | FileCheck %s

// Only the function `functions` names is differentiated; a value used twice
// receives the sum of its cotangents; an integer input has no gradient and
// a condition none either; an input no output reads has a zero gradient.
// NAMED-NOT: @first__vjp
// NAMED-LABEL: func.func @second(
// NAMED-LABEL: func.func @second__vjp(
// NAMED-SAME: %[[X:[^:]*]]: tensor<8xf32>, %[[I:[^:]*]]: tensor<8xi32>, %[[U:[^:]*]]: tensor<8xf32>, %[[G:[^:]*]]: tensor<8xf32>)
// NAMED-SAME: -> (tensor<8xf32>, tensor<8xf32>)
// NAMED: %[[C:.*]] = fuser.compare gt, %[[X]]
// NAMED: %[[ZERO:.*]] = fuser.full 0.000000e+00 : tensor<8xf32>
// NAMED: %[[KEPT:.*]] = fuser.where %[[C]], %[[G]], %[[ZERO]]
// NAMED: %[[BY_LHS:.*]] = fuser.mul %[[KEPT]], %[[X]]
// NAMED: %[[BY_RHS:.*]] = fuser.mul %[[KEPT]], %[[X]]
// NAMED: %[[SUM:.*]] = fuser.add %[[BY_LHS]], %[[BY_RHS]]
// NAMED: %[[NONE:.*]] = fuser.full 0.000000e+00 : tensor<8xf32>
// NAMED: return %[[SUM]], %[[NONE]]
// NAMED-LABEL: func.func @second__fwd(
// NAMED-SAME: -> (tensor<8xf32>, tensor<8xi32>)
// NAMED-LABEL: func.func @second__bwd(
// NAMED-SAME: %{{[^:]*}}: tensor<8xf32>, %{{[^:]*}}: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xf32>)
// NAMED-SAME: fuser.vjp_inputs = array<i64: 0>
// CHECK-LABEL: func.func @first__vjp(
// CHECK-LABEL: func.func @second__vjp(
func.func @first(%x: tensor<8xf32>) -> tensor<8xf32> {
  %y = fuser.exp %x : tensor<8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}
func.func @second(%x: tensor<8xf32>, %i: tensor<8xi32>, %unused: tensor<8xf32>) -> (tensor<8xf32>, tensor<8xi32>) {
  %square = fuser.mul %x, %x : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  %zero = fuser.full 0.0 : tensor<8xf32>
  %positive = fuser.compare gt, %x, %zero : (tensor<8xf32>, tensor<8xf32>) -> tensor<8xi1>
  %y = fuser.where %positive, %square, %zero : (tensor<8xi1>, tensor<8xf32>, tensor<8xf32>) -> tensor<8xf32>
  return %y, %i : tensor<8xf32>, tensor<8xi32>
}

