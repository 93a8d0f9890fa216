// RUN: fuser-opt %s --convert-shard-to-fuser --convert-linalg-to-fuser | FileCheck %s
// RUN: fuser-opt %s --convert-shard-to-fuser --convert-linalg-to-fuser --fuser-to-hostir-pipeline | FileCheck %s --check-prefix=HOST

// The tensor-parallel MLP written with upstream ops only: linalg matmuls
// accumulating into zeros, the tanh approximation of gelu in arith and
// math on tensors, annotated for upstream's shard dialect. The first
// weight is split by output features (column-parallel), the second by
// input features (row-parallel); the input is replicated and the users of
// the output ask for it replicated. tp-mlp-e2e.test runs it on 2 ranks.
//
// Global shapes: x [8, 64], w1 [64, 256], w2 [256, 64].

shard.grid @grid(shape = 2)

func.func @tp_mlp(%x: tensor<8x64xf32>, %w1: tensor<64x256xf32>,
                  %w2: tensor<256x64xf32>) -> tensor<8x64xf32> {
  %replicated = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %cols = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x_replicated = shard.shard %x to %replicated : tensor<8x64xf32>
  %w1_cols = shard.shard %w1 to %cols : tensor<64x256xf32>
  %w2_rows = shard.shard %w2 to %rows : tensor<256x64xf32>
  %zero = arith.constant 0.0 : f32
  %empty_h = tensor.empty() : tensor<8x256xf32>
  %zeros_h = linalg.fill ins(%zero : f32) outs(%empty_h : tensor<8x256xf32>) -> tensor<8x256xf32>
  %h = linalg.matmul ins(%x_replicated, %w1_cols : tensor<8x64xf32>, tensor<64x256xf32>)
                     outs(%zeros_h : tensor<8x256xf32>) -> tensor<8x256xf32>
  // gelu(h) = 0.5 h (1 + tanh(sqrt(2 / pi) (h + 0.044715 h^3)))
  %half = arith.constant dense<0.5> : tensor<8x256xf32>
  %one = arith.constant dense<1.0> : tensor<8x256xf32>
  %cubic = arith.constant dense<0.044715> : tensor<8x256xf32>
  %scale = arith.constant dense<0.7978845608> : tensor<8x256xf32>
  %h2 = arith.mulf %h, %h : tensor<8x256xf32>
  %h3 = arith.mulf %h2, %h : tensor<8x256xf32>
  %c = arith.mulf %cubic, %h3 : tensor<8x256xf32>
  %inner = arith.addf %h, %c : tensor<8x256xf32>
  %scaled = arith.mulf %scale, %inner : tensor<8x256xf32>
  %t = math.tanh %scaled : tensor<8x256xf32>
  %t1 = arith.addf %one, %t : tensor<8x256xf32>
  %hh = arith.mulf %half, %h : tensor<8x256xf32>
  %a = arith.mulf %hh, %t1 : tensor<8x256xf32>
  %empty_y = tensor.empty() : tensor<8x64xf32>
  %zeros_y = linalg.fill ins(%zero : f32) outs(%empty_y : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y = linalg.matmul ins(%a, %w2_rows : tensor<8x256xf32>, tensor<256x64xf32>)
                     outs(%zeros_y : tensor<8x64xf32>) -> tensor<8x64xf32>
  %y_replicated = shard.shard %y to %replicated annotate_for_users : tensor<8x64xf32>
  return %y_replicated : tensor<8x64xf32>
}

// Only fuser ops are left: the accumulators of zeros are dropped, the
// splat constants are fuser.full.
// CHECK-DAG: #[[MESH:.*]] = #fuser.mesh<[2]>
// CHECK-DAG: #[[REP:.*]] = #fuser.sharding<#[[MESH]], {{\[}}[], []]>
// CHECK-DAG: #[[COLS:.*]] = #fuser.sharding<#[[MESH]], {{\[}}[], [0]]>
// CHECK-DAG: #[[ROWS:.*]] = #fuser.sharding<#[[MESH]], {{\[}}[0], []]>
// CHECK-LABEL: func.func @tp_mlp
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32, #[[REP]]>, %[[W1:.*]]: tensor<64x256xf32, #[[COLS]]>, %[[W2:.*]]: tensor<256x64xf32, #[[ROWS]]>)
// CHECK-NOT: linalg.
// CHECK-NOT: tensor.empty
// CHECK: %[[H:.*]] = fuser.matmul %[[X]], %[[W1]] : (tensor<8x64xf32, #[[REP]]>, tensor<64x256xf32, #[[COLS]]>) -> tensor<8x256xf32>
// CHECK-DAG: fuser.full 5.000000e-01 : tensor<8x256xf32>
// CHECK-DAG: fuser.full 1.000000e+00 : tensor<8x256xf32>
// CHECK: fuser.tanh
// CHECK: %[[Y:.*]] = fuser.matmul %{{.*}}, %[[W2]] : (tensor<8x256xf32>, tensor<256x64xf32, #[[ROWS]]>) -> tensor<8x64xf32>
// CHECK-NEXT: %[[R:.*]] = fuser.set %[[Y]] : tensor<8x64xf32> -> tensor<8x64xf32, #[[REP]]>
// CHECK: return %[[R]]
// CHECK-NOT: linalg.
// CHECK-NOT: arith.

// Two library products, the gelu in a kernel between them, and one
// allreduce of the row-parallel product's partial sums.
// HOST-LABEL: func.func @tp_mlp
// HOST-NOT: hostir.allreduce
// HOST: hostir.matmul {{.*}} : memref<8x64xf32>, memref<64x128xf32>, memref<8x128xf32>
// HOST-NOT: hostir.allreduce
// HOST: hostir.launch
// HOST-NOT: hostir.allreduce
// HOST: hostir.matmul {{.*}} : memref<8x128xf32>, memref<128x64xf32>, memref<8x64xf32>
// HOST: hostir.allreduce {{.*}} kind = sum
// HOST-NOT: hostir.allreduce
// HOST-NOT: hostir.matmul
