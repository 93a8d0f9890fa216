// RUN: fuser-opt %s -split-input-file --convert-shard-to-fuser -mlir-print-local-scope | FileCheck %s

// A 1-D grid: an annotated argument and an annotated result, in the
// function type; the grid and sharding ops are gone.
shard.grid @grid(shape = 2)

// CHECK-NOT: shard.
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>, %[[W:.*]]: tensor<8x16xf32>)
// CHECK-SAME: -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK-NEXT: %[[Y:.*]] = fuser.add %[[X]], %[[W]]
// CHECK-NEXT: return %[[Y]]
// CHECK-NOT: shard.
func.func @rows(%x: tensor<8x16xf32>, %w: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x_rows = shard.shard %x to %rows : tensor<8x16xf32>
  %y = fuser.add %x_rows, %w : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %y_rows = shard.shard %y to %rows : tensor<8x16xf32>
  return %y_rows : tensor<8x16xf32>
}

// -----

// A 2-D grid: dims split by one axis each, by two axes (outermost first, as
// listed), and replicated dims left out of split_axes.
shard.grid @grid(shape = 2x4)

// CHECK-LABEL: func.func @two_axes
// CHECK-SAME: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2, 4]>, {{\[}}[1], [0]]>>
// CHECK-SAME: tensor<16x4xf32, #fuser.sharding<#fuser.mesh<[2, 4]>, {{\[}}[0, 1], []]>>
// CHECK-SAME: tensor<8x4x2xf32, #fuser.sharding<#fuser.mesh<[2, 4]>, {{\[}}[], [], []]>>
func.func @two_axes(%a: tensor<8x16xf32>, %b: tensor<16x4xf32>, %c: tensor<8x4x2xf32>)
    -> (tensor<8x16xf32>, tensor<16x4xf32>, tensor<8x4x2xf32>) {
  %transposed = shard.sharding @grid split_axes = [[1], [0]] : !shard.sharding
  %both = shard.sharding @grid split_axes = [[0, 1]] : !shard.sharding
  %replicated = shard.sharding @grid split_axes = [[]] : !shard.sharding
  %a1 = shard.shard %a to %transposed : tensor<8x16xf32>
  %b1 = shard.shard %b to %both : tensor<16x4xf32>
  %c1 = shard.shard %c to %replicated : tensor<8x4x2xf32>
  return %a1, %b1, %c1 : tensor<8x16xf32>, tensor<16x4xf32>, tensor<8x4x2xf32>
}

// -----

// An intermediate value keeps its annotation in its type; the function
// type changes only where arguments and results are annotated.
shard.grid @grid(shape = 2)

// CHECK-LABEL: func.func @intermediate
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32>) -> tensor<8x16xf32>
// CHECK-NEXT: %[[E:.*]] = fuser.exp %[[X]] : tensor<8x16xf32> -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK-NEXT: %[[Y:.*]] = fuser.set %[[E]] : {{.*}}{{\[}}[], [0]]>> -> tensor<8x16xf32>
func.func @intermediate(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %cols = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %e = fuser.exp %x : tensor<8x16xf32> -> tensor<8x16xf32>
  %e1 = shard.shard %e to %cols : tensor<8x16xf32>
  %y = fuser.set %e1 : tensor<8x16xf32> -> tensor<8x16xf32>
  return %y : tensor<8x16xf32>
}

// -----

// annotate_for_users: the users see the value in that sharding, through a
// fuser.set where the producer places it otherwise, directly where it
// places it the same way; each use keeps its own annotation.
shard.grid @grid(shape = 2)

// CHECK-LABEL: func.func @for_users
// CHECK-SAME: (%[[X:.*]]: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>, %[[W:.*]]: tensor<8x16xf32>)
// CHECK-NEXT: %[[COLS:.*]] = fuser.set %[[X]] : tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>> -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK-NEXT: %[[WROWS:.*]] = fuser.set %[[W]] : tensor<8x16xf32> -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK-NEXT: %[[A:.*]] = fuser.add %[[X]], %[[WROWS]]
// CHECK-NEXT: %[[B:.*]] = fuser.mul %[[COLS]], %[[COLS]]
func.func @for_users(%x: tensor<8x16xf32>, %w: tensor<8x16xf32>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %cols = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x_rows = shard.shard %x to %rows : tensor<8x16xf32>
  %x_for_add = shard.shard %x_rows to %rows annotate_for_users : tensor<8x16xf32>
  %x_for_mul = shard.shard %x_rows to %cols annotate_for_users : tensor<8x16xf32>
  %w_for_add = shard.shard %w to %rows annotate_for_users : tensor<8x16xf32>
  %a = fuser.add %x_for_add, %w_for_add : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %b = fuser.mul %x_for_mul, %x_for_mul : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %a, %b : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// A value annotated twice with the same sharding, and a value whose type
// already states it, import as that one sharding.
shard.grid @grid(shape = 2)

// CHECK-LABEL: func.func @same_twice
// CHECK-SAME: (%{{.*}}: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0]]>>, %{{.*}}: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0]]>>)
// CHECK-NEXT: fuser.add
func.func @same_twice(%x: tensor<8xf32>, %z: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0]]>>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<8xf32>
  %x2 = shard.shard %x1 to %s : tensor<8xf32>
  %z1 = shard.shard %z to %s : tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0]]>>
  %y = fuser.add %x2, %z1 : (tensor<8xf32>, tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0]]>>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

// A module without shard ops is left as it is.
// CHECK-LABEL: func.func @nothing
// CHECK-SAME: (%{{.*}}: tensor<4xf32>) -> tensor<4xf32>
func.func @nothing(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
