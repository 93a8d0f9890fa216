// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-verify-stage{stage=propagated}))' -mlir-print-local-scope | FileCheck %s

// Tensor-parallel MLP: only the weights are annotated. The column-parallel
// weight splits the hidden dim, the row-parallel one makes the output
// partial; the unannotated input is replicated and the unannotated result
// is the resolved output.
// CHECK-LABEL: func.func @tp_mlp
// CHECK-SAME: (%[[X:.*]]: tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
// CHECK-SAME: -> tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
// CHECK: %[[H:.*]] = fuser.linear {{.*}} -> tensor<8x256xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK: %[[A:.*]] = fuser.gelu %[[H]] : {{.*}} -> tensor<8x256xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK: %[[Y:.*]] = fuser.linear %[[A]], {{.*}} -> tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : sum}>>
// CHECK: %[[R:.*]] = fuser.set %[[Y]] : {{.*}} -> tensor<8x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
// CHECK: return %[[R]]
#mesh = #fuser.mesh<[2]>
func.func @tp_mlp(%x: tensor<8x64xf32>,
                  %w1: tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>,
                  %w2: tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x64xf32> {
  %h = fuser.linear %x, %w1 : (tensor<8x64xf32>, tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x256xf32>
  %a = fuser.gelu %h : tensor<8x256xf32> -> tensor<8x256xf32>
  %y = fuser.linear %a, %w2 : (tensor<8x256xf32>, tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// The weight wins over the input, and mesh axis 0 is taken once: the
// input's split batch dim does not reach the result.
// CHECK-LABEL: func.func @parallel_axis_once
// CHECK: fuser.linear {{.*}} -> tensor<8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
#mesh = #fuser.mesh<[2]>
func.func @parallel_axis_once(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>,
                              %w: tensor<32x16xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x32xf32> {
  %0 = fuser.linear %x, %w : (tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<32x16xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Annotated values keep their sharding, also when their producer suggests
// another one; their consumers propagate from them.
// CHECK-LABEL: func.func @annotations_are_kept
// CHECK: %[[E:.*]] = fuser.exp {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK: fuser.neg %[[E]] : {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
#mesh = #fuser.mesh<[2]>
func.func @annotations_are_kept(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x16xf32> {
  %0 = fuser.exp %x : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>
  %1 = fuser.neg %0 : tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

// Backward propagation reaches values produced by ops without operands and
// the other operand of an op; function arguments get the mesh only.
// CHECK-LABEL: func.func @backward
// CHECK-SAME: (%{{.*}}: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
// CHECK: fuser.uniform {{.*}} : tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: fuser.exp {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: fuser.mul {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
#mesh = #fuser.mesh<[2]>
func.func @backward(%x: tensor<8x16xf32>) -> tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>> {
  %r = fuser.uniform low = 0.0, high = 1.0, seed = 1 : tensor<8x16xf32>
  %e = fuser.exp %x : tensor<8x16xf32> -> tensor<8x16xf32>
  %0 = fuser.mul %e, %r : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>
  return %0 : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>
}

// -----

// Without a preferred operand, the most-sharded operand wins; ties go to
// the first operand.
// CHECK-LABEL: func.func @operand_priority
// CHECK: fuser.add %{{.*}}, %{{.*}} : {{.*}} -> tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[0], [1]]>>
// CHECK: fuser.sub %{{.*}}, %{{.*}} : {{.*}} -> tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[1], []]>>
#mesh = #fuser.mesh<[2, 2]>
func.func @operand_priority(%a: tensor<8x8xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                            %b: tensor<8x8xf32, #fuser.sharding<#mesh, [[0], [1]]>>,
                            %c: tensor<8x8xf32, #fuser.sharding<#mesh, [[1], []]>>,
                            %d: tensor<8x8xf32, #fuser.sharding<#mesh, [[], [1]]>>) {
  %0 = fuser.add %a, %b : (tensor<8x8xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<8x8xf32, #fuser.sharding<#mesh, [[0], [1]]>>) -> tensor<8x8xf32>
  %1 = fuser.sub %c, %d : (tensor<8x8xf32, #fuser.sharding<#mesh, [[1], []]>>, tensor<8x8xf32, #fuser.sharding<#mesh, [[], [1]]>>) -> tensor<8x8xf32>
  return
}

// -----

// Where the priority's choice moves more elements, another operand goes
// first: the weight gradient g^T x of a feature-split g and a
// sequence-split x keeps g's split and gathers x (s·e elements) rather
// than keep x's split of the contracted dim, whose partial product (n·e)
// would be resolved whole after g^T is moved. A forward linear keeps the
// weight's split: gathering x moves fewer than gathering the weight.
// CHECK-LABEL: func.func @fewest_elements_moved
// CHECK: fuser.matmul {{.*}} -> tensor<256x64xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: fuser.linear {{.*}} -> tensor<32x256xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
#mesh = #fuser.mesh<[2]>
#split = #fuser.sharding<#mesh, [[0], []]>
func.func @fewest_elements_moved(%gt: tensor<256x32xf32, #split>,
                                 %x: tensor<32x64xf32, #split>,
                                 %w: tensor<256x64xf32, #split>) {
  %0 = fuser.matmul %gt, %x : (tensor<256x32xf32, #split>, tensor<32x64xf32, #split>) -> tensor<256x64xf32>
  %1 = fuser.linear %x, %w : (tensor<32x64xf32, #split>, tensor<256x64xf32, #split>) -> tensor<32x256xf32>
  return
}

// -----

// Stream splits propagate forward and backward, onto function arguments too.
// CHECK-LABEL: func.func @stream
// CHECK-SAME: %{{.*}}: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], stream = {1 : 4}>>
// CHECK: fuser.exp {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], stream = {1 : 4}>>
// CHECK: fuser.add {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []], stream = {1 : 4}>>
#mesh = #fuser.mesh<[2]>
func.func @stream(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []], stream = {1 : 4}>>,
                  %y: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = fuser.exp %x : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []], stream = {1 : 4}>> -> tensor<8x16xf32>
  %1 = fuser.add %0, %y : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %1 : tensor<8x16xf32>
}

// -----

// A split of a sharded dim keeps the split on the outer factor; with two
// nested axes on a 2-D mesh, each lands on its own result dim.
// CHECK-LABEL: func.func @reshape_split
// CHECK: fuser.reshape {{.*}} -> tensor<2x8x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], [], []]>>
// CHECK: fuser.reshape {{.*}} -> tensor<4x4x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], [], []]>>
// CHECK: fuser.reshape {{.*}} -> tensor<2x8x4xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[0], [1], []]>>
func.func @reshape_split(%x: tensor<16x4xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>>,
                         %y: tensor<16x4xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, [[0, 1], []]>>) {
  %0 = fuser.reshape %x : tensor<16x4xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>> -> tensor<2x8x4xf32>
  %1 = fuser.reshape %x : tensor<16x4xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>> -> tensor<4x4x4xf32>
  %2 = fuser.reshape %y : tensor<16x4xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, [[0, 1], []]>> -> tensor<2x8x4xf32>
  return
}

// -----

// A merge keeps a split of the outer dim; splits of both merged dims on a
// 2-D mesh nest when the outer one is fully split.
// CHECK-LABEL: func.func @reshape_merge
// CHECK: fuser.reshape {{.*}} -> tensor<32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0]]>>
// CHECK: fuser.reshape {{.*}} -> tensor<16xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, {{\[}}[0, 1]]>>
func.func @reshape_merge(%x: tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>>,
                         %y: tensor<2x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, [[0], [1]]>>) {
  %0 = fuser.reshape %x : tensor<4x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>> -> tensor<32xf32>
  %1 = fuser.reshape %y : tensor<2x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, [[0], [1]]>> -> tensor<16xf32>
  return
}

// -----

// A reduction over a split dim leaves a partial value of the op's kind;
// returned, it is resolved.
// CHECK-LABEL: func.func @partial_reduction
// CHECK-SAME: -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[]]>>
// CHECK: %[[M:.*]] = fuser.max {{.*}} -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[]], partial = {0 : max}>>
// CHECK: fuser.set %[[M]]
func.func @partial_reduction(%x: tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], [0]]>>) -> tensor<8xf32> {
  %0 = fuser.max %x dims = [1] : tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], [0]]>> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// An annotated partial value stays partial, also when it is returned.
// CHECK-LABEL: func.func @annotated_partial_result
// CHECK-SAME: -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[]], partial = {0 : sum}>>
// CHECK-NOT: fuser.set
// CHECK: return
#mesh = #fuser.mesh<[2]>
func.func @annotated_partial_result(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>)
    -> tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>> {
  %0 = fuser.sum %x dims = [1] : tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>
  return %0 : tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>
}

// -----

// Views pass a partial value on, but a broadcast or expand, which repeats
// it, gets a resolved result (and the split its user wants): decomposition
// then resolves the partial value at its size before the repetition.
// CHECK-LABEL: func.func @partial_through_views
// CHECK: fuser.sum {{.*}} -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[]], partial = {0 : sum}>>
// CHECK: fuser.reshape {{.*}} -> tensor<2x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : sum}>>
// CHECK: fuser.reshape {{.*}} -> tensor<8x1xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : sum}>>
// CHECK: fuser.expand {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
// CHECK: fuser.max {{.*}} -> tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[]], partial = {0 : max}>>
// CHECK: fuser.broadcast {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
#mesh = #fuser.mesh<[2]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
func.func @partial_through_views(%x: tensor<8x16xf32, #cols>) -> (tensor<8x16xf32>, tensor<8x16xf32>) {
  %s = fuser.sum %x dims = [1] : tensor<8x16xf32, #cols> -> tensor<8xf32>
  %r = fuser.reshape %s : tensor<8xf32> -> tensor<2x4xf32>
  %k = fuser.reshape %r : tensor<2x4xf32> -> tensor<8x1xf32>
  %e = fuser.expand %k : tensor<8x1xf32> -> tensor<8x16xf32>
  %d = fuser.div %x, %e : (tensor<8x16xf32, #cols>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %m = fuser.max %x dims = [1] : tensor<8x16xf32, #cols> -> tensor<8xf32>
  %b = fuser.broadcast %m dims = [0] : tensor<8xf32> -> tensor<8x16xf32>
  %c = fuser.sub %x, %b : (tensor<8x16xf32, #cols>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %d, %c : tensor<8x16xf32>, tensor<8x16xf32>
}

// -----

// Without any sharding nothing changes.
// CHECK-LABEL: func.func @unsharded
// CHECK: fuser.exp {{.*}} : tensor<8xf32> -> tensor<8xf32>
func.func @unsharded(%x: tensor<8xf32>) -> tensor<8xf32> {
  %0 = fuser.exp %x : tensor<8xf32> -> tensor<8xf32>
  return %0 : tensor<8xf32>
}

// -----

// Both sides of a reshape annotated with splits that cannot pass through
// it (dim 1's split would straddle the factors 3 and 4): the user placed
// both, so propagation leaves them to decomposition.
// CHECK-LABEL: func.func @annotated_both_sides
// CHECK: fuser.reshape %arg0 : tensor<8x12xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[\[\], \[0\]\]}}>> -> tensor<8x3x4xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[\[\], \[\], \[0\]\]}}>>
#mesh = #fuser.mesh<[2]>
func.func @annotated_both_sides(%x: tensor<8x12xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x3x4xf32, #fuser.sharding<#mesh, [[], [], [0]]>> {
  %0 = fuser.reshape %x : tensor<8x12xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8x3x4xf32, #fuser.sharding<#mesh, [[], [], [0]]>>
  return %0 : tensor<8x3x4xf32, #fuser.sharding<#mesh, [[], [], [0]]>>
}
