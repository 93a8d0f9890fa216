// RUN: fuser-opt %s --fuser-generate-vjp --split-input-file | FileCheck %s
// RUN: fuser-opt %s --fuser-generate-vjp=save=all --split-input-file | FileCheck %s --check-prefix=ALL

// tanh of a product. @f__vjp recomputes both and takes tanh's derivative
// from its result; the product's adjoints are two products with the other
// operand transposed. @f__fwd saves the product (a library call) and
// @f__bwd recomputes tanh from it; with save=all it saves tanh's result.
// CHECK-LABEL: func.func @product_tanh(
// CHECK-LABEL: func.func @product_tanh__vjp(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x2xf32>, %[[G:.*]]: tensor<4x2xf32>)
// CHECK-SAME: -> (tensor<4x8xf32>, tensor<8x2xf32>)
// CHECK-SAME: fuser.derivative_of = "product_tanh"
// CHECK: %[[M:.*]] = fuser.matmul %[[X]], %[[W]]
// CHECK: %[[Y:.*]] = fuser.tanh %[[M]]
// CHECK: %[[Y2:.*]] = fuser.mul %[[Y]], %[[Y]]
// CHECK: %[[ONE:.*]] = fuser.full 1.000000e+00 : tensor<4x2xf32>
// CHECK: %[[D:.*]] = fuser.sub %[[ONE]], %[[Y2]]
// CHECK: %[[GM:.*]] = fuser.mul %[[G]], %[[D]]
// CHECK: %[[WT:.*]] = fuser.permute %[[W]] perm = [1, 0]
// CHECK: %[[GX:.*]] = fuser.matmul %[[GM]], %[[WT]]
// CHECK: %[[XT:.*]] = fuser.permute %[[X]] perm = [1, 0]
// CHECK: %[[GW:.*]] = fuser.matmul %[[XT]], %[[GM]]
// CHECK: return %[[GX]], %[[GW]]
// CHECK-LABEL: func.func @product_tanh__fwd(
// CHECK-SAME: -> (tensor<4x2xf32>, tensor<4x2xf32>)
// CHECK: %[[M:.*]] = fuser.matmul
// CHECK: %[[Y:.*]] = fuser.tanh %[[M]]
// CHECK: return %[[Y]], %[[M]]
// CHECK-LABEL: func.func @product_tanh__bwd(
// CHECK-SAME: %[[X:.*]]: tensor<4x8xf32>, %[[W:.*]]: tensor<8x2xf32>, %[[M:.*]]: tensor<4x2xf32>, %[[G:.*]]: tensor<4x2xf32>)
// CHECK-SAME: fuser.vjp_inputs = array<i64: 0, 1>
// CHECK-NEXT: fuser.tanh %[[M]]
// ALL-LABEL: func.func @product_tanh__fwd(
// ALL: %[[Y:.*]] = fuser.tanh
// ALL: return %[[Y]], %[[Y]]
// ALL-LABEL: func.func @product_tanh__bwd(
// ALL-SAME: %{{.*}}: tensor<4x8xf32>, %{{.*}}: tensor<8x2xf32>, %[[Y:.*]]: tensor<4x2xf32>, %{{.*}}: tensor<4x2xf32>)
// ALL-NOT: fuser.tanh
// ALL: fuser.mul %[[Y]], %[[Y]]
func.func @product_tanh(%x: tensor<4x8xf32>, %w: tensor<8x2xf32>) -> tensor<4x2xf32> {
  %m = fuser.matmul %x, %w : (tensor<4x8xf32>, tensor<8x2xf32>) -> tensor<4x2xf32>
  %y = fuser.tanh %m : tensor<4x2xf32> -> tensor<4x2xf32>
  return %y : tensor<4x2xf32>
}

// -----

#mesh = #fuser.mesh<[2]>
#split_rows = #fuser.sharding<#mesh, [[0], []]>
#split_cols = #fuser.sharding<#mesh, [[], [0]]>
#whole = #fuser.sharding<#mesh, [[], []]>

// The tensor-parallel MLP. The programs' boundaries are placed as the
// forward's after propagation: each cotangent as its output, each gradient
// as its input, each saved value as @f__fwd computes it (the hidden
// activation split by columns); inside, the backward is left to
// propagation, and gradients reach their inputs' placement through a set.
// CHECK-LABEL: func.func @tp_mlp__vjp(
// CHECK-SAME: %{{.*}}: tensor<8x64xf32, #[[WHOLE:.*]]>, %{{.*}}: tensor<256x64xf32, #[[ROWS:.*]]>, %{{.*}}: tensor<64x256xf32, #[[COLS:.*]]>, %{{.*}}: tensor<8x64xf32, #[[WHOLE]]>)
// CHECK-SAME: -> (tensor<8x64xf32, #[[WHOLE]]>, tensor<256x64xf32, #[[ROWS]]>, tensor<64x256xf32, #[[COLS]]>)
// CHECK-DAG: fuser.set %{{.*}} : tensor<256x64xf32> -> tensor<256x64xf32, #[[ROWS]]>
// CHECK-DAG: fuser.set %{{.*}} : tensor<64x256xf32> -> tensor<64x256xf32, #[[COLS]]>
// CHECK-LABEL: func.func @tp_mlp__fwd(
// CHECK-SAME: -> (tensor<8x64xf32, #[[WHOLE]]>, tensor<8x256xf32, #[[COLS]]>)
// CHECK-LABEL: func.func @tp_mlp__bwd(
// CHECK-SAME: %{{.*}}: tensor<8x64xf32, #[[WHOLE]]>, %{{.*}}: tensor<256x64xf32, #[[ROWS]]>, %{{.*}}: tensor<64x256xf32, #[[COLS]]>, %{{.*}}: tensor<8x256xf32, #[[COLS]]>, %{{.*}}: tensor<8x64xf32, #[[WHOLE]]>)
func.func @tp_mlp(%x: tensor<8x64xf32, #whole>,
                  %w1: tensor<256x64xf32, #split_rows>,
                  %w2: tensor<64x256xf32, #split_cols>)
    -> tensor<8x64xf32, #whole> {
  %h = fuser.linear %x, %w1 : (tensor<8x64xf32, #whole>, tensor<256x64xf32, #split_rows>) -> tensor<8x256xf32>
  %a = fuser.gelu %h approximation = tanh : tensor<8x256xf32> -> tensor<8x256xf32>
  %y = fuser.linear %a, %w2 : (tensor<8x256xf32>, tensor<64x256xf32, #split_cols>) -> tensor<8x64xf32>
  %r = fuser.set %y : tensor<8x64xf32> -> tensor<8x64xf32, #whole>
  return %r : tensor<8x64xf32, #whole>
}
