// Programs whose values live on several meshes: every rank runs the host
// program, ops run on the devices of their mesh only, and send_recv moves
// pieces between meshes.
// RUN: fuser-opt %s -split-input-file --fuser-to-hostir-pipeline -mlir-print-local-scope | FileCheck %s

// Two pipeline stages on disjoint meshes. Ranks outside a stage's mesh
// allocate its buffers (placeholders) but launch nothing; the stage
// boundary is one send (ranks 0, 1) or receive (ranks 2, 3) on the team of
// all four devices.
// CHECK-LABEL: func.func @two_stages
// CHECK-SAME: (%[[X:.*]]: memref<4x4xf32>) -> memref<4x4xf32>
// CHECK: %[[RANK:.*]] = hostir.rank
// CHECK: %[[IN_A:.*]] = hostir.in_mesh %[[RANK]] mesh = #fuser.mesh<[2]>
// CHECK-NEXT: %[[E:.*]] = hostir.allocate device : memref<4x4xf32>
// CHECK-NEXT: scf.if %[[IN_A]] {
// CHECK: hostir.launch @kernels::@two_stages_kernel_0 {{.*}} args(%[[X]], %[[E]]
// CHECK-NEXT: }
// CHECK: %[[MOVED:.*]] = hostir.allocate device : memref<4x4xf32>
// CHECK: %[[ROLE:.*]]:3 = scf.index_switch %[[RANK]] -> index, index, i1
// Rank 0 sends to team index 2 (device 2), rank 1 to 3; ranks 2 and 3
// receive from 0 and 1.
// CHECK: case 0 {
// CHECK: %[[C2:.*]] = arith.constant 2 : index
// CHECK: %[[NONE0:.*]] = arith.constant -1 : index
// CHECK: %[[NO0:.*]] = arith.constant false
// CHECK: scf.yield %[[C2]], %[[NONE0]], %[[NO0]]
// CHECK: case 1 {
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: scf.yield %[[C3]],
// CHECK: case 2 {
// CHECK: %[[NONE2:.*]] = arith.constant -1 : index
// CHECK: %[[C0:.*]] = arith.constant 0 : index
// CHECK: scf.yield %[[NONE2]], %[[C0]],
// CHECK: case 3 {
// CHECK: %[[C1:.*]] = arith.constant 1 : index
// CHECK: scf.yield %{{.*}}, %[[C1]],
// CHECK: default {
// CHECK: %[[SENDS:.*]] = arith.cmpi ne, %[[ROLE]]#0
// CHECK: %[[RECEIVES:.*]] = arith.cmpi ne, %[[ROLE]]#1
// CHECK: scf.if %[[ROLE]]#2 {
// CHECK-NEXT: hostir.copy %[[E]], %[[MOVED]]
// CHECK: %[[TEAM:.*]] = hostir.team %[[RANK]] mesh = #fuser.mesh<[4]> axes = [0] : !hostir.team<4>
// CHECK: scf.if %[[SENDS]] {
// CHECK: scf.if %[[RECEIVES]] {
// CHECK: hostir.coalesce
// CHECK: } else {
// CHECK: %[[S:.*]] = hostir.send %[[E]] to %[[ROLE]]#0 on %[[TEAM]]
// CHECK-NEXT: hostir.wait %[[S]]
// CHECK: } else {
// CHECK: scf.if %[[RECEIVES]] {
// CHECK-NEXT: %[[R:.*]] = hostir.recv %[[MOVED]] from %[[ROLE]]#1 on %[[TEAM]]
// CHECK-NEXT: hostir.wait %[[R]]
// CHECK: %[[IN_B:.*]] = hostir.in_mesh %[[RANK]] mesh = #fuser.mesh<[2], devices = [2, 3]>
// CHECK-NEXT: %[[T:.*]] = hostir.allocate device : memref<4x4xf32>
// CHECK-NEXT: scf.if %[[IN_B]] {
// CHECK: hostir.launch @kernels::@two_stages_kernel_1 {{.*}} args(%[[MOVED]], %[[T]]
// CHECK: return %[[T]]
#a = #fuser.mesh<[2]>
#b = #fuser.mesh<[2], devices = [2, 3]>
func.func @two_stages(%x: tensor<8x4xf32, #fuser.sharding<#a, [[0], []]>>) -> tensor<8x4xf32, #fuser.sharding<#b, [[0], []]>> {
  %0 = fuser.exp %x : tensor<8x4xf32, #fuser.sharding<#a, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#a, [[0], []]>>
  %1 = fuser.set %0 : tensor<8x4xf32, #fuser.sharding<#a, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#b, [[0], []]>>
  %2 = fuser.tanh %1 : tensor<8x4xf32, #fuser.sharding<#b, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#b, [[0], []]>>
  return %2 : tensor<8x4xf32, #fuser.sharding<#b, [[0], []]>>
}

// -----

// Overlapping meshes: device 0 is at position 0 of both and keeps its
// piece; device 1 sends its piece to device 2 (team index 2 of the team of
// devices 0, 1, 2), which receives it from team index 1.
// CHECK-LABEL: func.func @overlapping
// CHECK: scf.index_switch
// CHECK: case 0 {
// CHECK: %[[NONE:.*]] = arith.constant -1 : index
// CHECK: %[[NONE2:.*]] = arith.constant -1 : index
// CHECK: %[[KEEP:.*]] = arith.constant true
// CHECK: scf.yield %[[NONE]], %[[NONE2]], %[[KEEP]]
// CHECK: case 1 {
// CHECK: %[[TO2:.*]] = arith.constant 2 : index
// CHECK: scf.yield %[[TO2]],
// CHECK: case 2 {
// CHECK: %[[FROM1:.*]] = arith.constant 1 : index
// CHECK: scf.yield %{{.*}}, %[[FROM1]],
// CHECK: hostir.team {{.*}} mesh = #fuser.mesh<[3]> axes = [0] : !hostir.team<3>
#a = #fuser.mesh<[2]>
#b = #fuser.mesh<[2], devices = [0, 2]>
func.func @overlapping(%x: tensor<8xf32, #fuser.sharding<#a, [[0]]>>) -> tensor<8xf32, #fuser.sharding<#b, [[0]]>> {
  %0 = fuser.set %x : tensor<8xf32, #fuser.sharding<#a, [[0]]>> -> tensor<8xf32, #fuser.sharding<#b, [[0]]>>
  return %0 : tensor<8xf32, #fuser.sharding<#b, [[0]]>>
}

// -----

// Meshes with the same devices in swapped positions: each rank sends its
// piece to the other and receives the other's, both posted as one group.
// CHECK-LABEL: func.func @swapped
// CHECK: case 0 {
// CHECK: %[[TO1:.*]] = arith.constant 1 : index
// CHECK: %[[FROM1:.*]] = arith.constant 1 : index
// CHECK: scf.yield %[[TO1]], %[[FROM1]],
// CHECK: hostir.coalesce {
// CHECK-NEXT: hostir.send
// CHECK-NEXT: hostir.recv
#a = #fuser.mesh<[2]>
#b = #fuser.mesh<[2], devices = [1, 0]>
func.func @swapped(%x: tensor<8xf32, #fuser.sharding<#a, [[0]]>>) -> tensor<8xf32, #fuser.sharding<#b, [[0]]>> {
  %0 = fuser.set %x : tensor<8xf32, #fuser.sharding<#a, [[0]]>> -> tensor<8xf32, #fuser.sharding<#b, [[0]]>>
  return %0 : tensor<8xf32, #fuser.sharding<#b, [[0]]>>
}

// -----

// Meshes neither of the same shape nor slices of one another: each device
// of the 3-device mesh sends its block of rows to device 3, which receives
// the three into row windows of its buffer, all as one group on the team
// of the four devices.
// CHECK-LABEL: func.func @gather_outside
// CHECK-SAME: (%[[X:.*]]: memref<2x4xf32>) -> memref<6x4xf32>
// CHECK: %[[RANK:.*]] = hostir.rank
// CHECK: %[[OUT:.*]] = hostir.allocate device : memref<6x4xf32>
// CHECK: %[[TEAM:.*]] = hostir.team %[[RANK]] mesh = #fuser.mesh<[4]> axes = [0] : !hostir.team<4>
// CHECK: scf.index_switch %[[RANK]]
// CHECK: case 0 {
// CHECK: %[[C3:.*]] = arith.constant 3 : index
// CHECK: %[[SENT:.*]] = hostir.coalesce {
// CHECK-NEXT: hostir.send %{{.*}} to %[[C3]] on %[[TEAM]]
// CHECK: hostir.wait %[[SENT]]
// CHECK: case 3 {
// CHECK: %[[ROWS0:.*]] = memref.subview %[[OUT]][0, 0] [2, 4] [1, 1]
// CHECK: %[[ROWS1:.*]] = memref.subview %[[OUT]][2, 0] [2, 4] [1, 1]
// CHECK: %[[ROWS2:.*]] = memref.subview %[[OUT]][4, 0] [2, 4] [1, 1]
// CHECK: %[[RECEIVED:.*]] = hostir.coalesce {
// CHECK-NEXT: hostir.recv %[[ROWS0]] from %{{.*}} on %[[TEAM]]
// CHECK-NEXT: hostir.recv %[[ROWS1]] from %{{.*}} on %[[TEAM]]
// CHECK-NEXT: hostir.recv %[[ROWS2]] from %{{.*}} on %[[TEAM]]
// CHECK: hostir.wait %[[RECEIVED]]
// CHECK: default {
// CHECK: return %[[OUT]]
#three = #fuser.mesh<[3]>
#outside = #fuser.mesh<[1], devices = [3]>
func.func @gather_outside(%x: tensor<6x4xf32, #fuser.sharding<#three, [[0], []]>>) -> tensor<6x4xf32, #fuser.sharding<#outside, [[], []]>> {
  %0 = fuser.set %x : tensor<6x4xf32, #fuser.sharding<#three, [[0], []]>> -> tensor<6x4xf32, #fuser.sharding<#outside, [[], []]>>
  return %0 : tensor<6x4xf32, #fuser.sharding<#outside, [[], []]>>
}

// -----

// A block that lands with gaps (columns of the row-major target piece) is
// received into a staging buffer and unpacked from it; a device keeps what
// it holds itself with a copy.
// CHECK-LABEL: func.func @columns_to_rows
// CHECK: case 1 {
// CHECK: hostir.copy %{{.*}}, %{{.*}} : memref<2x2xf32, strided<[2, 1]>>, memref<2x2xf32, strided<[4, 1], offset: 2>>
// CHECK: %[[STAGED:.*]] = hostir.allocate device : memref<2x2xf32>
// CHECK: hostir.coalesce {
// CHECK: hostir.recv %[[STAGED]]
// CHECK: hostir.copy %[[STAGED]], %{{.*}} : memref<2x2xf32>, memref<2x2xf32, strided<[4, 1]>>
// CHECK-NEXT: hostir.deallocate %[[STAGED]]
#pair = #fuser.mesh<[2]>
#last3 = #fuser.mesh<[3], devices = [1, 2, 3]>
func.func @columns_to_rows(%x: tensor<6x4xf32, #fuser.sharding<#pair, [[], [0]]>>) -> tensor<6x4xf32, #fuser.sharding<#last3, [[0], []]>> {
  %0 = fuser.set %x : tensor<6x4xf32, #fuser.sharding<#pair, [[], [0]]>> -> tensor<6x4xf32, #fuser.sharding<#last3, [[0], []]>>
  return %0 : tensor<6x4xf32, #fuser.sharding<#last3, [[0], []]>>
}
