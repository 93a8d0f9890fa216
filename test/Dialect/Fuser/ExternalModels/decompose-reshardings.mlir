// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings,fuser-verify-stage))' -mlir-print-local-scope | FileCheck %s

// A row-parallel linalg.matmul accumulates partial sums into zeros that are
// partial too; the returned value is resolved by one allreduce, and the
// product itself moves nothing.
// CHECK-LABEL: func.func @row_parallel_allreduce
// CHECK: %[[Y:.*]] = linalg.matmul {{.*}} -> tensor<8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : sum}>>
// CHECK-NEXT: %[[R:.*]] = fuser.comm.allreduce %[[Y]] axis = 0 : {{.*}} -> tensor<8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
// CHECK-NEXT: return %[[R]]
#mesh = #fuser.mesh<[2]>
func.func @row_parallel_allreduce(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                                  %w: tensor<16x32xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<16x32xf32, #fuser.sharding<#mesh, [[0], []]>>)
                     outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// Where the consumer keeps rows split (a sequence-parallel residual add),
// the partial product is reduce_scattered instead, and the add computes on
// its shard. The tensor.empty both inits share is created twice: once
// partial for the product, once split for the add.
// CHECK-LABEL: func.func @row_parallel_reduce_scatter
// CHECK: tensor.empty() : tensor<8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []], partial = {0 : sum}>>
// CHECK: tensor.empty() : tensor<8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK: %[[Y:.*]] = linalg.matmul {{.*}} partial = {0 : sum}>>
// CHECK-NEXT: %[[RS:.*]] = fuser.comm.reduce_scatter %[[Y]] axis = 0 {{.*}} -> tensor<8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
// CHECK-NEXT: linalg.add ins(%[[RS]], {{.*}} -> tensor<8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[0], []]>>
#mesh = #fuser.mesh<[2]>
func.func @row_parallel_reduce_scatter(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                                       %w: tensor<16x32xf32, #fuser.sharding<#mesh, [[0], []]>>,
                                       %res: tensor<8x32xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<16x32xf32, #fuser.sharding<#mesh, [[0], []]>>)
                     outs(%z : tensor<8x32xf32>) -> tensor<8x32xf32>
  %0 = linalg.add ins(%y, %res : tensor<8x32xf32>, tensor<8x32xf32, #fuser.sharding<#mesh, [[0], []]>>)
                  outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %0 : tensor<8x32xf32>
}

// -----

// Operands the op needs placed differently move before it; its init, bound
// to the result, is already placed.
// CHECK-LABEL: func.func @gather_input
// CHECK: %[[G:.*]] = fuser.comm.allgather %{{.*}} axis = 0 : {{.*}} -> tensor<8x16xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], []]>>
// CHECK: linalg.matmul ins(%[[G]], {{.*}} -> tensor<8x32xf32, #fuser.sharding<#fuser.mesh<[2]>, {{\[}}[], [0]]>>
#mesh = #fuser.mesh<[2]>
func.func @gather_input(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>,
                        %w: tensor<16x32xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                        %z: tensor<8x32xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x32xf32, #fuser.sharding<#mesh, [[], [0]]>> {
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<16x32xf32, #fuser.sharding<#mesh, [[], [0]]>>)
                     outs(%z : tensor<8x32xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x32xf32, #fuser.sharding<#mesh, [[], [0]]>>
  return %y : tensor<8x32xf32, #fuser.sharding<#mesh, [[], [0]]>>
}
