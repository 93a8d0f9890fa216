// An AG+GEMM ring whose gathered rows something besides its GEMMs reads
// (here the function's caller): the local step puts the rank's chunk in
// its place of the gathered buffer after multiplying it, so the GEMM still
// waits for no copy. Without other readers no such copy is made
// (ring-pipelines.mlir).
// RUN: fuser-opt %s --pass-pipeline='builtin.module(fuser-segment,convert-fuser-to-hostir{backend=cuda_ipc})' | FileCheck %s
// RUN: fuser-opt %s --pass-pipeline='builtin.module(fuser-segment,convert-fuser-to-hostir{backend=nccl})' | FileCheck %s

// CHECK-LABEL: func.func @ag_gemm_returning_gathered
// CHECK-SAME: (%[[X:.*]]: memref<1x8x64xf32>, %[[W:.*]]: memref<16x64xf32>)
// CHECK: %[[G:.*]] = hostir.allocate {{.*}} : memref<2x8x64xf32>
// CHECK: %[[ME:.*]] = hostir.team_index
// CHECK: scf.for
// CHECK: %[[I:.*]] = arith.divui
// CHECK: %[[XI:.*]] = hostir.alias_select %[[X]][%[[I]]] dim = 1 chunks = 2
// CHECK: scf.if
// CHECK: } else {
// CHECK: hostir.linear %[[XI]], %[[W]],
// CHECK-NEXT: %[[GM:.*]] = hostir.alias_select %[[G]][%[[ME]]] dim = 0 chunks = 2
// CHECK-NEXT: %[[GMI:.*]] = hostir.alias_select %[[GM]][%[[I]]] dim = 1 chunks = 2
// CHECK-NEXT: hostir.copy %[[XI]], %[[GMI]]
// CHECK-NEXT: }
// CHECK: return %{{.*}}, %[[G]]
#mesh = #fuser.mesh<[2]>
#in = #fuser.sharding<#mesh, [[0], [], []], stream = {1 : 2 chunked}>
#gathered = #fuser.sharding<#mesh, [[], [], []], stream = {1 : 2 chunked}>
#whole = #fuser.sharding<#mesh, [[], [], []]>
#w = #fuser.sharding<#mesh, [[0], []]>
#y = #fuser.sharding<#mesh, [[], [], [0]], stream = {1 : 2 chunked}>
func.func @ag_gemm_returning_gathered(%x: tensor<2x8x64xf32, #in>, %w: tensor<32x64xf32, #w>) -> (tensor<2x8x32xf32, #y>, tensor<2x8x64xf32, #whole>) {
  %g = fuser.comm.allgather %x axis = 0 {fuser.pipelining = #fuser.pipelining<ring>} : tensor<2x8x64xf32, #in> -> tensor<2x8x64xf32, #gathered>
  %y = fuser.linear %g, %w : (tensor<2x8x64xf32, #gathered>, tensor<32x64xf32, #w>) -> tensor<2x8x32xf32, #y>
  %r = fuser.segment_set %g : tensor<2x8x64xf32, #gathered> -> tensor<2x8x64xf32, #whole>
  return %y, %r : tensor<2x8x32xf32, #y>, tensor<2x8x64xf32, #whole>
}
