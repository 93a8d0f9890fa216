// CUDA IPC on GPUs: checked calls of the runtime, and a peer's buffer as a
// memref descriptor over the address the runtime opened it at.
// RUN: fuser-opt %s --convert-hostir-to-llvm=target=cuda | FileCheck %s

// CHECK-LABEL: llvm.func @ring(
// CHECK: %[[TEAM:.*]] = llvm.call @fuser_team(
// CHECK: llvm.icmp "ne" %[[TEAM]]
// CHECK: %[[HANDLES:.*]] = llvm.call @fuser_ipc_share(%[[TEAM]], %{{.*}}) : (!llvm.ptr, !llvm.ptr) -> !llvm.ptr
// CHECK: %[[OK:.*]] = llvm.icmp "ne" %[[HANDLES]], %{{.*}} : !llvm.ptr
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED:.*]]
// CHECK: %[[SIGNALED:.*]] = llvm.call @fuser_ipc_signal(%[[HANDLES]], %[[PEER:.*]]) : (!llvm.ptr, i64) -> i32
// CHECK: %[[OK:.*]] = llvm.icmp "eq" %[[SIGNALED]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED:.*]]
// CHECK-NEXT: ^{{.*}}:
// CHECK-NEXT: %[[WAITED:.*]] = llvm.call @fuser_ipc_wait(%[[HANDLES]], %[[PEER]]) : (!llvm.ptr, i64) -> i32
// CHECK: %[[OK:.*]] = llvm.icmp "eq" %[[WAITED]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED:.*]]
// CHECK-NEXT: ^{{.*}}:
// CHECK-NEXT: %[[ADDRESS:.*]] = llvm.call @fuser_ipc_peer_pointer(%[[HANDLES]], %[[PEER]]) : (!llvm.ptr, i64) -> !llvm.ptr
// CHECK: %[[OK:.*]] = llvm.icmp "ne" %[[ADDRESS]], %{{.*}} : !llvm.ptr
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED]]
// CHECK-NEXT: ^{{.*}}:
// CHECK-NEXT: %[[D0:.*]] = llvm.mlir.poison : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-NEXT: %[[D1:.*]] = llvm.insertvalue %[[ADDRESS]], %[[D0]][0]
// CHECK-NEXT: %[[D2:.*]] = llvm.insertvalue %[[ADDRESS]], %[[D1]][1]
// CHECK-NEXT: %[[OFFSET:.*]] = llvm.mlir.constant(0 : index) : i64
// CHECK-NEXT: %[[D3:.*]] = llvm.insertvalue %[[OFFSET]], %[[D2]][2]
// CHECK-NEXT: %[[ROWS:.*]] = llvm.mlir.constant(2 : index) : i64
// CHECK-NEXT: %[[D4:.*]] = llvm.insertvalue %[[ROWS]], %[[D3]][3, 0]
// CHECK-NEXT: %[[ROW_STRIDE:.*]] = llvm.mlir.constant(8 : index) : i64
// CHECK-NEXT: %[[D5:.*]] = llvm.insertvalue %[[ROW_STRIDE]], %[[D4]][4, 0]
// CHECK-NEXT: %[[COLUMNS:.*]] = llvm.mlir.constant(8 : index) : i64
// CHECK-NEXT: %[[D6:.*]] = llvm.insertvalue %[[COLUMNS]], %[[D5]][3, 1]
// CHECK-NEXT: %[[COLUMN_STRIDE:.*]] = llvm.mlir.constant(1 : index) : i64
// CHECK-NEXT: %[[PEER_BUFFER:.*]] = llvm.insertvalue %[[COLUMN_STRIDE]], %[[D6]][4, 1]
// CHECK-NEXT: llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: llvm.store %[[PEER_BUFFER]]
// CHECK: llvm.call @fuser_copy
// A failed call ends the program: it notes the failure and returns.
// CHECK: ^[[FAILED]]:
// CHECK-NEXT: llvm.call @fuser_note_failure()
// CHECK-NEXT: llvm.return
func.func @ring(%peer: index) {
  %rank = hostir.rank : index
  %team = hostir.team %rank mesh = #fuser.mesh<[2]> axes = [0] : !hostir.team<2>
  %buffer = hostir.allocate symmetric : memref<2x8xf32>
  %handles = hostir.ipc_share %buffer on %team : memref<2x8xf32>, !hostir.team<2>
  hostir.ipc_signal %handles[%peer] : !hostir.ipc_handles<memref<2x8xf32>>
  hostir.ipc_wait %handles[%peer] : !hostir.ipc_handles<memref<2x8xf32>>
  %remote = hostir.ipc_peer_buffer %handles[%peer] : !hostir.ipc_handles<memref<2x8xf32>>
  hostir.copy %remote, %buffer : memref<2x8xf32>, memref<2x8xf32>
  hostir.deallocate %buffer : memref<2x8xf32>
  return
}
