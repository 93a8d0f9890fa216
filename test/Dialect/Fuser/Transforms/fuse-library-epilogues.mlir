// RUN: fuser-opt %s --fuser-fuse-library-epilogues --split-input-file | FileCheck %s

#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>

// A gelu (tanh) of a column-parallel linear, and a relu of a matmul, each
// the product's only reader, become the products' activations.
// CHECK-LABEL: func.func @activations
// CHECK-NEXT: %[[H:.*]] = fuser.linear %{{.*}}, %{{.*}} bias %{{.*}} activation = gelu_tanh :
// CHECK-NEXT: %[[M:.*]] = fuser.matmul %[[H]], %{{.*}} activation = relu :
// CHECK-NEXT: return %[[M]]
func.func @activations(%x: tensor<8x16xbf16>, %w: tensor<32x16xbf16, #rows>, %b: tensor<32xbf16, #fuser.sharding<#mesh, [[0]]>>, %m: tensor<32x8xbf16, #fuser.sharding<#mesh, [[], []]>>) -> tensor<8x8xbf16, #cols> {
  %h = fuser.linear %x, %w bias %b : (tensor<8x16xbf16>, tensor<32x16xbf16, #rows>, tensor<32xbf16, #fuser.sharding<#mesh, [[0]]>>) -> tensor<8x32xbf16, #cols>
  %a = fuser.gelu %h approximation = tanh : tensor<8x32xbf16, #cols> -> tensor<8x32xbf16, #cols>
  %y = fuser.matmul %a, %m : (tensor<8x32xbf16, #cols>, tensor<32x8xbf16, #fuser.sharding<#mesh, [[], []]>>) -> tensor<8x8xbf16, #cols>
  %r = fuser.relu %y : tensor<8x8xbf16, #cols> -> tensor<8x8xbf16, #cols>
  return %r : tensor<8x8xbf16, #cols>
}

// -----

#mesh = #fuser.mesh<[2]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#partial = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>
#whole = #fuser.sharding<#mesh, [[], []]>

// Left as they are: gelu's exact form (the library has the tanh one), a
// product read twice, an activation placed differently from its product,
// a partial sum and integers.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: activation =
// CHECK: return
func.func @kept(%x: tensor<8x16xf32>, %w: tensor<32x16xf32, #cols>, %p: tensor<8x16xf32, #cols>, %i: tensor<8x16xi32>, %iw: tensor<4x16xi32>) -> (tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32, #whole>, tensor<8x32xf32, #whole>, tensor<8x4xi32>) {
  %h = fuser.linear %x, %w : (tensor<8x16xf32>, tensor<32x16xf32, #cols>) -> tensor<8x32xf32>
  %exact = fuser.gelu %h approximation = none : tensor<8x32xf32> -> tensor<8x32xf32>
  %h2 = fuser.linear %x, %w : (tensor<8x16xf32>, tensor<32x16xf32, #cols>) -> tensor<8x32xf32>
  %twice = fuser.relu %h2 : tensor<8x32xf32> -> tensor<8x32xf32>
  %h3 = fuser.linear %x, %w : (tensor<8x16xf32>, tensor<32x16xf32, #cols>) -> tensor<8x32xf32>
  %moved = fuser.relu %h3 : tensor<8x32xf32> -> tensor<8x32xf32, #whole>
  %sum = fuser.linear %p, %w : (tensor<8x16xf32, #cols>, tensor<32x16xf32, #cols>) -> tensor<8x32xf32, #partial>
  %early = fuser.relu %sum : tensor<8x32xf32, #partial> -> tensor<8x32xf32, #partial>
  %ints = fuser.linear %i, %iw : (tensor<8x16xi32>, tensor<4x16xi32>) -> tensor<8x4xi32>
  %r = fuser.relu %ints : tensor<8x4xi32> -> tensor<8x4xi32>
  %early_whole = fuser.set %early : tensor<8x32xf32, #partial> -> tensor<8x32xf32, #whole>
  return %exact, %h2, %twice, %moved, %early_whole, %r : tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32>, tensor<8x32xf32, #whole>, tensor<8x32xf32, #whole>, tensor<8x4xi32>
}

// -----

#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[], [], []], stream = {1 : 2 chunked}>
#p = #fuser.sharding<#mesh, [[], [], [0]], stream = {1 : 2}>
#h = #fuser.sharding<#mesh, [[], [0]], stream = {0 : 2 chunked}>
#a = #fuser.sharding<#mesh, [[], [0]], stream = {0 : 2}>

// Through the reshape a pipeline puts after a chunked product: the reshape
// then stands for the activation's result.
// CHECK-LABEL: func.func @through_the_pipeline_view
// CHECK-NEXT: %[[P:.*]] = fuser.linear %{{.*}}, %{{.*}} activation = gelu_tanh : {{.*}} -> tensor<2x4x32xf32, #[[P_SHARDING:.*]]>
// CHECK-NEXT: %[[A:.*]] = fuser.reshape %[[P]] : tensor<2x4x32xf32, #[[P_SHARDING]]> -> tensor<8x32xf32, #[[A_SHARDING:.*]]>
// CHECK-NEXT: return %[[A]] : tensor<8x32xf32, #[[A_SHARDING]]>
func.func @through_the_pipeline_view(%x: tensor<2x4x16xf32, #x>, %w: tensor<32x16xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x32xf32, #a> {
  %p = fuser.linear %x, %w : (tensor<2x4x16xf32, #x>, tensor<32x16xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<2x4x32xf32, #p>
  %h = fuser.reshape %p : tensor<2x4x32xf32, #p> -> tensor<8x32xf32, #h>
  %a = fuser.gelu %h approximation = tanh : tensor<8x32xf32, #h> -> tensor<8x32xf32, #a>
  return %a : tensor<8x32xf32, #a>
}
