// Two results of one op that ask for one mesh axis twice (one splits its
// rows over axis 0, the other is partial over it, so the reduction factor
// would take the axis the rows already use) get a diagnostic from
// resharding instead of building a sharding that uses an axis twice.
// RUN: not fuser-opt %s --fuser-decompose-reshardings 2>&1 | FileCheck %s
// The program pipeline refuses the partial result first.
// RUN: not fuser-opt %s --fuser-to-hostir-pipeline 2>&1 | FileCheck %s --check-prefix=PROGRAM

// CHECK: operand #0 would use mesh axis 0 twice
// CHECK-NOT: Assertion
// PROGRAM: result #1 is partial over mesh axes [0]
// PROGRAM-NOT: Assertion
#mesh = #fuser.mesh<[2]>
#in = #fuser.sharding<#mesh, [[], []]>
#a = #fuser.sharding<#mesh, [[0]]>
#b = #fuser.sharding<#mesh, [[]], partial = {0 : sum}>
func.func @split_and_partial(%x: tensor<8x16xf32, #in>, %a0: tensor<8xf32, #a>, %b0: tensor<8xf32, #b>) -> (tensor<8xf32, #a>, tensor<8xf32, #b>) {
  %a, %b = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (i)>], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<8x16xf32, #in>) outs(%a0, %b0 : tensor<8xf32, #a>, tensor<8xf32, #b>) {
  ^bb0(%e: f32, %s: f32, %t: f32):
    %0 = arith.addf %e, %s : f32
    %1 = arith.addf %e, %t : f32
    linalg.yield %0, %1 : f32, f32
  } -> (tensor<8xf32, #a>, tensor<8xf32, #b>)
  return %a, %b : tensor<8xf32, #a>, tensor<8xf32, #b>
}
