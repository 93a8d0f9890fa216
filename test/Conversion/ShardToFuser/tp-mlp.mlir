// RUN: fuser-opt %s --convert-shard-to-fuser | FileCheck %s
// RUN: fuser-opt %s --convert-shard-to-fuser --fuser-to-hostir-pipeline | FileCheck %s --check-prefix=HOST

// The tensor-parallel MLP of examples/tp_mlp.mlir, annotated for upstream's
// shard dialect: the first weight split by output features
// (column-parallel), the second by input features (row-parallel), the
// input and the output replicated. tp-mlp-e2e.test runs it on 2 ranks.
//
// Global shapes: x [8, 64], w1 [256, 64], w2 [64, 256].

shard.grid @grid(shape = 2)

func.func @tp_mlp(%x: tensor<8x64xf32>, %w1: tensor<256x64xf32>,
                  %w2: tensor<64x256xf32>) -> tensor<8x64xf32> {
  %replicated = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %cols = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x_replicated = shard.shard %x to %replicated : tensor<8x64xf32>
  %w1_rows = shard.shard %w1 to %rows : tensor<256x64xf32>
  %w2_cols = shard.shard %w2 to %cols : tensor<64x256xf32>
  %h = fuser.linear %x_replicated, %w1_rows
      : (tensor<8x64xf32>, tensor<256x64xf32>) -> tensor<8x256xf32>
  %a = fuser.gelu %h approximation = tanh : tensor<8x256xf32> -> tensor<8x256xf32>
  %y = fuser.linear %a, %w2_cols
      : (tensor<8x256xf32>, tensor<64x256xf32>) -> tensor<8x64xf32>
  %y_replicated = shard.shard %y to %replicated : tensor<8x64xf32>
  return %y_replicated : tensor<8x64xf32>
}

// CHECK-DAG: #[[MESH:.*]] = #fuser.mesh<[2]>
// CHECK-DAG: #[[REP:.*]] = #fuser.sharding<#[[MESH]], {{\[}}[], []]>
// CHECK-DAG: #[[ROWS:.*]] = #fuser.sharding<#[[MESH]], {{\[}}[0], []]>
// CHECK-DAG: #[[COLS:.*]] = #fuser.sharding<#[[MESH]], {{\[}}[], [0]]>
// CHECK-NOT: shard.
// CHECK: func.func @tp_mlp(%[[X:.*]]: tensor<8x64xf32, #[[REP]]>, %[[W1:.*]]: tensor<256x64xf32, #[[ROWS]]>, %[[W2:.*]]: tensor<64x256xf32, #[[COLS]]>) -> tensor<8x64xf32, #[[REP]]>
// CHECK-NEXT: %[[H:.*]] = fuser.linear %[[X]], %[[W1]]
// CHECK-NEXT: %[[A:.*]] = fuser.gelu %[[H]]
// CHECK-NEXT: %[[Y:.*]] = fuser.linear %[[A]], %[[W2]] {{.*}} -> tensor<8x64xf32, #[[REP]]>
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: shard.

// The same host program as the fuser-annotated example: a linear with the
// gelu in its epilogue, a linear, one allreduce.
// HOST-LABEL: func.func @tp_mlp
// HOST: hostir.linear {{.*}} activation = gelu_tanh : memref<8x64xf32>, memref<128x64xf32>, memref<8x128xf32>
// HOST: hostir.linear {{.*}} : memref<8x128xf32>, memref<64x128xf32>, memref<8x64xf32>
// HOST: hostir.allreduce
// HOST-NOT: hostir.allreduce
