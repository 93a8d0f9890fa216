// Ring pipelining of AG+GEMM and GEMM+RS: AG+GEMM step k handles stream
// chunk k / n with the team members k mod n places on (send) and back
// (receive); GEMM+RS runs one chunk per iteration, the distances inside.
// RUN: fuser-opt %s -split-input-file --fuser-to-hostir-pipeline='pipelining=ring' -mlir-print-local-scope | FileCheck %s --check-prefixes=CHECK,NCCL
// RUN: fuser-opt %s -split-input-file --fuser-to-hostir-pipeline='pipelining=ring backend=cuda_ipc' -mlir-print-local-scope | FileCheck %s --check-prefixes=CHECK,IPC

// AG+GEMM over 4 ranks in 2 chunks: step k brings chunk k / 4 of the
// block of the member k mod 4 places back and multiplies it into the same
// rows of the output; the local steps (k mod 4 = 0) multiply the rank's
// input, so they wait for no copy.
// CHECK-LABEL: func.func @ag_gemm_ring
// CHECK-SAME: (%[[X:.*]]: memref<4x64xf32>, %[[WT:.*]]: memref<8x64xf32>)
// CHECK: %[[XV:.*]] = memref.cast {{.*}} to memref<1x4x64xf32>
// The buffer peers write is symmetric memory with cuda_ipc: CUDA IPC
// exports only memory of its own allocations, not the pool's.
// NCCL: %[[G:.*]] = hostir.allocate device : memref<4x4x64xf32>
// IPC: %[[G:.*]] = hostir.allocate symmetric : memref<4x4x64xf32>
// CHECK: %[[Y:.*]] = hostir.allocate device : memref<4x4x8xf32>
// CHECK: %[[TEAM:.*]] = hostir.team %{{.*}} mesh = {{.*}} axes = [0] : !hostir.team<4>
// CHECK: %[[ME:.*]] = hostir.team_index %[[TEAM]]
// Before anything is written into a peer's buffer, each rank tells the
// members that write into its buffer that it is free, and waits until the
// members it writes into say the same.
// IPC: %[[H:.*]] = hostir.ipc_share %[[G]] on %[[TEAM]]
// IPC: scf.for %[[D:.*]] =
// IPC: %[[BACK0:.*]] = arith.addi %[[ME]], %{{.*}}
// IPC: %[[BACK1:.*]] = arith.subi %[[BACK0]], %[[D]]
// IPC: %[[BACK:.*]] = arith.remui %[[BACK1]]
// IPC: hostir.ipc_signal %[[H]][%[[BACK]]]
// IPC: scf.for %[[E:.*]] =
// IPC: %[[ON0:.*]] = arith.addi %[[ME]], %[[E]]
// IPC: %[[ON:.*]] = arith.remui %[[ON0]]
// IPC: hostir.ipc_wait %[[H]][%[[ON]]]
// CHECK-NOT: hostir.copy
// CHECK: hostir.get_current_stream
// CHECK: scf.for
// CHECK: hostir.synchronize_stream
// CHECK: }
// CHECK-NEXT: scf.for %[[K:.*]] =
// CHECK: hostir.set_current_stream
// CHECK: %[[N:.*]] = arith.constant 4 : index
// CHECK: %[[J:.*]] = arith.remui %[[K]], %[[N]]
// CHECK: %[[I:.*]] = arith.divui %[[K]], %[[N]]
// CHECK: %[[FWD0:.*]] = arith.addi %[[ME]], %[[J]]
// CHECK: %[[FWD:.*]] = arith.remui %[[FWD0]], %{{.*}}
// CHECK: %[[BWD0:.*]] = arith.addi %[[ME]], %[[N4:.*]] : index
// CHECK: %[[BWD1:.*]] = arith.subi %[[BWD0]], %[[J]]
// CHECK: %[[BWD:.*]] = arith.remui %[[BWD1]], %[[N4]]
// CHECK: %[[XI:.*]] = hostir.alias_select %[[XV]][%[[I]]] dim = 1 chunks = 2
// CHECK: %[[REMOTE:.*]] = arith.cmpi ne, %[[J]], %{{.*}}
// CHECK: scf.if %[[REMOTE]] {
// CHECK: %[[GB:.*]] = hostir.alias_select %[[G]][%[[BWD]]] dim = 0 chunks = 4
// CHECK: %[[GBI:.*]] = hostir.alias_select %[[GB]][%[[I]]] dim = 1 chunks = 2 : {{.*}} -> memref<1x2x64xf32, strided<[256, 64, 1], offset: ?>>
// NCCL: %[[GROUP:.*]] = hostir.coalesce {
// NCCL-NEXT: hostir.send %[[XI]] to %[[FWD]] on %[[TEAM]] backend = nccl
// NCCL-NEXT: hostir.recv %[[GBI]] from %[[BWD]] on %[[TEAM]] backend = nccl
// NCCL-NEXT: }
// NCCL-NEXT: hostir.wait %[[GROUP]]
// Over cuda_ipc the rank pushes its chunk into its place in the buffer of
// the member it sends to, signals that member, and waits for the signal
// of the member whose chunk it multiplies.
// IPC: %[[PEER:.*]] = hostir.ipc_peer_buffer %[[H]][%[[FWD]]]
// IPC-NEXT: %[[PM:.*]] = hostir.alias_select %[[PEER]][%[[ME]]] dim = 0 chunks = 4
// IPC-NEXT: %[[PMI:.*]] = hostir.alias_select %[[PM]][%[[I]]] dim = 1 chunks = 2
// IPC-NEXT: hostir.copy %[[XI]], %[[PMI]]
// IPC-NEXT: hostir.ipc_signal %[[H]][%[[FWD]]]
// IPC-NEXT: hostir.ipc_wait %[[H]][%[[BWD]]]
// CHECK: %[[YB:.*]] = hostir.alias_select %[[Y]][%[[BWD]]] dim = 0 chunks = 4
// CHECK: %[[YBI:.*]] = hostir.alias_select %[[YB]][%[[I]]] dim = 1 chunks = 2
// CHECK: hostir.linear %[[GBI]], %[[WT]], %[[YBI]]
// CHECK-NEXT: } else {
// CHECK: %[[YM:.*]] = hostir.alias_select %[[Y]][%[[BWD]]] dim = 0 chunks = 4
// CHECK: %[[YMI:.*]] = hostir.alias_select %[[YM]][%[[I]]] dim = 1 chunks = 2
// CHECK: hostir.linear %[[XI]], %[[WT]], %[[YMI]]
// CHECK-NEXT: }
// CHECK-NEXT: }
// CHECK: hostir.set_current_stream
// CHECK: scf.for
// CHECK: hostir.synchronize_stream
// Every write into the rank's buffer has landed before the wait that
// precedes its read, so no handshake follows the join.
// CHECK-NOT: hostir.ipc_
// CHECK: hostir.deallocate %[[G]]
// CHECK: return
#mesh = #fuser.mesh<[4]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 2}>
#w = #fuser.sharding<#mesh, [[0], []]>
#y = #fuser.sharding<#mesh, [[], [0]]>
func.func @ag_gemm_ring(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #w>) -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}

// -----

// GEMM+RS over 2 ranks in 4 chunks: iteration i (a stream each) computes
// chunk i of the partial result for the member one place on and sends it
// there, receiving the partial result for this rank's rows from the member
// one place back straight into the result; then the local product adds to
// it (accumulate). No reduction pass and no kernel.
// CHECK-LABEL: func.func @gemm_rs_ring
// CHECK-SAME: (%[[X:.*]]: memref<16x32xf32>, %[[WT:.*]]: memref<32x32xf32>) -> memref<8x32xf32>
// CHECK: %[[XV:.*]] = memref.cast {{.*}} to memref<2x8x32xf32>
// NCCL: %[[P:.*]] = hostir.allocate device : memref<2x8x32xf32>
// IPC: %[[P:.*]] = hostir.allocate symmetric : memref<2x8x32xf32>
// CHECK: %[[OUT:.*]] = hostir.allocate device : memref<1x8x32xf32>
// CHECK: %[[TEAM:.*]] = hostir.team
// CHECK: %[[ME:.*]] = hostir.team_index %[[TEAM]]
// IPC: %[[H:.*]] = hostir.ipc_share %[[P]] on %[[TEAM]]
// CHECK: scf.for %[[I:.*]] =
// CHECK: hostir.set_current_stream
// CHECK: %[[OI:.*]] = hostir.alias_select %[[OUT]][%[[I]]] dim = 1 chunks = 4
// The distances run backwards (n - 1, ..., 1).
// CHECK: scf.for %[[T:.*]] =
// CHECK: %[[J:.*]] = arith.subi %{{.*}}, %[[T]]
// CHECK: %[[FWD0:.*]] = arith.addi %[[ME]], %[[J]]
// CHECK: %[[FWD:.*]] = arith.remui %[[FWD0]]
// CHECK: %[[BWD1:.*]] = arith.subi %{{.*}}, %[[J]]
// CHECK: %[[BWD:.*]] = arith.remui %[[BWD1]]
// CHECK: %[[PF:.*]] = hostir.alias_select %[[P]][%[[FWD]]] dim = 0 chunks = 2
// CHECK: %[[PFI:.*]] = hostir.alias_select %[[PF]][%[[I]]] dim = 1 chunks = 4
// CHECK: %[[XF:.*]] = hostir.alias_select %[[XV]][%[[FWD]]] dim = 0 chunks = 2
// CHECK: %[[XFI:.*]] = hostir.alias_select %[[XF]][%[[I]]] dim = 1 chunks = 4
// CHECK: hostir.linear %[[XFI]], %[[WT]], %[[PFI]] :
// NCCL-NEXT: %[[GROUP:.*]] = hostir.coalesce {
// NCCL-NEXT: hostir.send %[[PFI]] to %[[FWD]] on %[[TEAM]] backend = nccl
// NCCL-NEXT: hostir.recv %[[OI]] from %[[BWD]] on %[[TEAM]] backend = nccl
// NCCL-NEXT: }
// NCCL-NEXT: hostir.wait %[[GROUP]]
// IPC-NEXT: hostir.ipc_signal %[[H]][%[[FWD]]]
// IPC-NEXT: hostir.ipc_wait %[[H]][%[[BWD]]]
// IPC-NEXT: %[[PEER:.*]] = hostir.ipc_peer_buffer %[[H]][%[[BWD]]]
// IPC-NEXT: %[[PM:.*]] = hostir.alias_select %[[PEER]][%[[ME]]] dim = 0 chunks = 2
// IPC-NEXT: %[[PMI:.*]] = hostir.alias_select %[[PM]][%[[I]]] dim = 1 chunks = 4
// IPC-NEXT: hostir.copy %[[PMI]], %[[OI]]
// CHECK-NEXT: }
// CHECK-NEXT: %[[XM:.*]] = hostir.alias_select %[[XV]][%[[ME]]] dim = 0 chunks = 2
// CHECK-NEXT: %[[XMI:.*]] = hostir.alias_select %[[XM]][%[[I]]] dim = 1 chunks = 4
// CHECK-NEXT: hostir.linear %[[XMI]], %[[WT]], accumulate %[[OI]] :
// CHECK-NEXT: }
// CHECK: hostir.synchronize_stream
// CHECK-NOT: hostir.reduce_blocks
// IPC: hostir.ipc_wait %[[H]]
// CHECK: hostir.deallocate %[[P]]
// CHECK: return
// CHECK-NOT: module @kernels
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[], [0]]>
#y = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
func.func @gemm_rs_ring(%x: tensor<16x64xf32, #x>, %w: tensor<32x64xf32, #x>) -> tensor<16x32xf32, #y> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #x>, tensor<32x64xf32, #x>) -> tensor<16x32xf32, #y>
  return %y : tensor<16x32xf32, #y>
}

// -----

// GEMM+allreduce as one ring: each chunk's iteration reduce-scatters as
// above, then puts its reduced rows in place in the gathered result and
// brings every peer's. The reduced block is the buffer peers read over
// cuda_ipc; the gathered result, returned, is an ordinary allocation.
// CHECK-LABEL: func.func @gemm_allreduce_ring
// NCCL: %[[REDUCED:.*]] = hostir.allocate device : memref<1x8x32xf32>
// IPC: %[[REDUCED:.*]] = hostir.allocate symmetric : memref<1x8x32xf32>
// CHECK: %[[GATHERED:.*]] = hostir.allocate device : memref<2x8x32xf32>
// IPC: hostir.ipc_share %[[REDUCED]]
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[OI:.*]] = hostir.alias_select %[[REDUCED]][%[[I]]] dim = 1 chunks = 2
// CHECK: hostir.linear {{.*}}, accumulate %[[OI]] :
// CHECK: %[[OWN:.*]] = hostir.alias_select %[[REDUCED]][%[[I]]] dim = 1 chunks = 2
// CHECK: %[[MINE:.*]] = hostir.alias_select %[[GATHERED]][%{{.*}}] dim = 0 chunks = 2
// CHECK: %[[MINEI:.*]] = hostir.alias_select %[[MINE]][%[[I]]] dim = 1 chunks = 2
// CHECK: hostir.copy %[[OWN]], %[[MINEI]]
// CHECK: scf.for
// NCCL: hostir.send %[[OWN]]
// NCCL: hostir.recv
// IPC: hostir.ipc_signal
// IPC: hostir.ipc_wait
// IPC: hostir.ipc_peer_buffer
// IPC: hostir.copy
// CHECK: hostir.synchronize_stream
// CHECK-NOT: hostir.allgather
// CHECK: return
#mesh = #fuser.mesh<[2]>
#k = #fuser.sharding<#mesh, [[], [0]]>
#k4 = #fuser.sharding<#mesh, [[], [0]], stream = {0 : 4}>
#whole4 = #fuser.sharding<#mesh, [[], []], stream = {0 : 4}>
func.func @gemm_allreduce_ring(%x: tensor<16x64xf32, #k4>, %w: tensor<32x64xf32, #k>) -> tensor<16x32xf32, #whole4> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #k4>, tensor<32x64xf32, #k>) -> tensor<16x32xf32, #whole4>
  return %y : tensor<16x32xf32, #whole4>
}

// -----

// GEMM+RS over 4 ranks: the three peers' partials of a chunk land in its
// slab (slot j - 1 for distance j), which reduce_blocks sums into the
// result before the local product adds to it.
// CHECK-LABEL: func.func @gemm_rs_ring_four_ranks
// CHECK: %[[SLABS:.*]] = hostir.allocate device : memref<2x3x1x2x32xf32>
// CHECK: scf.for %[[I:.*]] =
// CHECK: %[[OI:.*]] = hostir.alias_select %{{.*}}[%[[I]]] dim = 1 chunks = 2
// CHECK: %[[SLAB:.*]] = memref.subview %[[SLABS]][%[[I]], 0, 0, 0, 0]
// CHECK: scf.for %[[T:.*]] =
// CHECK: %[[J:.*]] = arith.subi %{{.*}}, %[[T]]
// CHECK: %[[SLOT:.*]] = arith.subi %[[J]], %{{.*}}
// CHECK: %[[ARRIVED:.*]] = memref.subview %[[SLAB]][%[[SLOT]], 0, 0, 0]
// NCCL: hostir.recv %[[ARRIVED]]
// IPC: hostir.copy %{{.*}}, %[[ARRIVED]]
// CHECK: hostir.reduce_blocks %[[SLAB]], %[[OI]] kind = sum
// CHECK: hostir.linear {{.*}}, accumulate %[[OI]] :
#mesh = #fuser.mesh<[4]>
#k = #fuser.sharding<#mesh, [[], [0]]>
#rows = #fuser.sharding<#mesh, [[0], []], stream = {0 : 2}>
func.func @gemm_rs_ring_four_ranks(%x: tensor<16x64xf32, #k>, %w: tensor<32x64xf32, #k>) -> tensor<16x32xf32, #rows> {
  %y = fuser.linear %x, %w : (tensor<16x64xf32, #k>, tensor<32x64xf32, #k>) -> tensor<16x32xf32, #rows>
  return %y : tensor<16x32xf32, #rows>
}
