// The bytes a rank sends and receives, per communication and per function
// (the convention: docs/communication-volume.md). The JSON report, the same
// as remarks, and a report that cannot be written.
// RUN: fuser-opt %s -pass-pipeline='builtin.module(fuser-report-communication{output=-})' -o /dev/null | FileCheck %s
// RUN: fuser-opt %s -pass-pipeline='builtin.module(fuser-report-communication)' -o /dev/null -verify-diagnostics
// RUN: not fuser-opt %s -pass-pipeline='builtin.module(fuser-report-communication{output=%t.missing/report.json})' -o /dev/null 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// UNWRITABLE: error: cannot write the communication report:

#mesh = #fuser.mesh<[4]>
#root0 = #fuser.mesh<[1]>
#root1 = #fuser.mesh<[1], devices = [1]>
#other = #fuser.mesh<[4], devices = [4, 5, 6, 7]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
#rep = #fuser.sharding<#mesh, [[], []]>
#sum = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>
#max = #fuser.sharding<#mesh, [[], []], partial = {0 : max}>

// CHECK:      "format": "fuser-communication",
// CHECK-NEXT: "version": 1,
// CHECK-NEXT: "functions": [

// A tensor<8x4xf32> is 128 bytes; split over 4 ranks, 32 bytes a rank.
// CHECK:        "name": "same_mesh",
// CHECK-NEXT:   "sent_bytes": 408,
// CHECK-NEXT:   "received_bytes": 408,
// CHECK-NEXT:   "uncounted": 0,
// CHECK-NEXT:   "communications": [
// expected-remark @below {{communicates 408 bytes sent, 408 bytes received per rank in 5 communications}}
func.func @same_mesh(%rows: tensor<8x4xf32, #rows>, %rep: tensor<8x4xf32, #rep>,
                     %partial: tensor<8x4xf32, #sum>) {
  // The 3 pieces a rank lacks, its own to each of 3 ranks: 3 * 32.
  // CHECK-NEXT:     {
  // CHECK-NEXT:       "kind": "allgather",
  // CHECK-NEXT:       "axis": 0,
  // CHECK-NEXT:       "team_size": 4,
  // CHECK-NEXT:       "input_bytes": 32,
  // CHECK-NEXT:       "result_bytes": 128,
  // CHECK-NEXT:       "sent_bytes": 96,
  // CHECK-NEXT:       "received_bytes": 96
  // expected-remark @below {{allgather over mesh axis 0 (4 ranks): sends 96 bytes, receives 96 bytes per rank}}
  %0 = fuser.comm.allgather %rows axis = 0 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  // Nothing moves.
  // CHECK:            "kind": "all_slice",
  // CHECK:            "sent_bytes": 0,
  // CHECK-NEXT:       "received_bytes": 0
  // expected-remark @below {{all_slice over mesh axis 0 (4 ranks): sends 0 bytes, receives 0 bytes per rank}}
  %1 = fuser.comm.all_slice %rep axis = 0 : tensor<8x4xf32, #rep> -> tensor<8x4xf32, #cols>
  // A reduce_scatter and an allgather: 2 * 3/4 * 128.
  // CHECK:            "kind": "allreduce",
  // CHECK:            "sent_bytes": 192,
  // CHECK-NEXT:       "received_bytes": 192
  // expected-remark @below {{allreduce over mesh axis 0 (4 ranks): sends 192 bytes, receives 192 bytes per rank}}
  %2 = fuser.comm.allreduce %partial axis = 0 : tensor<8x4xf32, #sum> -> tensor<8x4xf32, #rep>
  // The 3 other ranks' contributions to its 32-byte block: 3 * 32.
  // CHECK:            "kind": "reduce_scatter",
  // CHECK:            "input_bytes": 128,
  // CHECK-NEXT:       "result_bytes": 32,
  // CHECK-NEXT:       "sent_bytes": 96,
  // CHECK-NEXT:       "received_bytes": 96
  // expected-remark @below {{reduce_scatter over mesh axis 0 (4 ranks): sends 96 bytes, receives 96 bytes per rank}}
  %3 = fuser.comm.reduce_scatter %partial axis = 0 : tensor<8x4xf32, #sum> -> tensor<8x4xf32, #cols>
  // A rank keeps a quarter of its piece: 3/4 * 32.
  // CHECK:            "kind": "all_to_all",
  // CHECK:            "sent_bytes": 24,
  // CHECK-NEXT:       "received_bytes": 24
  // expected-remark @below {{all_to_all over mesh axis 0 (4 ranks): sends 24 bytes, receives 24 bytes per rank}}
  %4 = fuser.comm.all_to_all %rows axis = 0 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #cols>
  return
}

// Rooted communications: each direction is the busiest rank's.
// CHECK:        "name": "rooted",
// CHECK-NEXT:   "sent_bytes": 384,
// CHECK-NEXT:   "received_bytes": 384,
// expected-remark @below {{communicates 384 bytes sent, 384 bytes received per rank in 4 communications}}
func.func @rooted(%rows: tensor<8x4xf32, #rows>, %partial: tensor<8x4xf32, #max>,
                  %on_root0: tensor<8x4xf32, #fuser.sharding<#root0, [[], []]>>,
                  %on_root1: tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>>) {
  // Each other rank sends its 32 bytes; the root receives 3 of them.
  // CHECK:            "kind": "gather",
  // CHECK-NEXT:       "axis": 0,
  // CHECK-NEXT:       "team_size": 4,
  // CHECK:            "sent_bytes": 32,
  // CHECK-NEXT:       "received_bytes": 96
  // expected-remark @below {{gather over mesh axis 0 (4 ranks): sends 32 bytes, receives 96 bytes per rank}}
  %0 = fuser.comm.gather %rows axis = 0 root = 1
      : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>>
  // The root sends 3 pieces of 32 bytes; each other rank receives one.
  // CHECK:            "kind": "scatter",
  // CHECK-NEXT:       "axis": 0,
  // CHECK-NEXT:       "team_size": 4,
  // CHECK:            "sent_bytes": 96,
  // CHECK-NEXT:       "received_bytes": 32
  // expected-remark @below {{scatter over mesh axis 0 (4 ranks): sends 96 bytes, receives 32 bytes per rank}}
  %1 = fuser.comm.scatter %on_root0 axis = 0 root = 0
      : tensor<8x4xf32, #fuser.sharding<#root0, [[], []]>> -> tensor<8x4xf32, #cols>
  // Pipelined along a chain, every rank passes the 128 bytes on once.
  // CHECK:            "kind": "broadcast",
  // CHECK:            "sent_bytes": 128,
  // CHECK-NEXT:       "received_bytes": 128
  // expected-remark @below {{broadcast over mesh axis 0 (4 ranks): sends 128 bytes, receives 128 bytes per rank}}
  %2 = fuser.comm.broadcast %on_root1 axis = 0 root = 1
      : tensor<8x4xf32, #fuser.sharding<#root1, [[], []]>> -> tensor<8x4xf32, #rep>
  // CHECK:            "kind": "reduce",
  // CHECK:            "sent_bytes": 128,
  // CHECK-NEXT:       "received_bytes": 128
  // expected-remark @below {{reduce over mesh axis 0 (4 ranks): sends 128 bytes, receives 128 bytes per rank}}
  %3 = fuser.comm.reduce %partial axis = 0 root = 0
      : tensor<8x4xf32, #max> -> tensor<8x4xf32, #fuser.sharding<#root0, [[], []]>>
  return
}

// A rank of one mesh sends its piece to the rank at the same position of
// the other; bf16 elements are 2 bytes.
// CHECK:        "name": "mesh_to_mesh",
// CHECK-NEXT:   "sent_bytes": 16,
// CHECK-NEXT:   "received_bytes": 16,
// CHECK:            "kind": "send_recv",
// CHECK-NEXT:       "axis": null,
// CHECK-NEXT:       "team_size": 2,
// expected-remark @below {{communicates 16 bytes sent, 16 bytes received per rank in 1 communication}}
func.func @mesh_to_mesh(%rows: tensor<8x4xbf16, #rows>) {
  // expected-remark @below {{send_recv (2 ranks): sends 16 bytes, receives 16 bytes per rank}}
  %0 = fuser.comm.send_recv %rows
      : tensor<8x4xbf16, #rows> -> tensor<8x4xbf16, #fuser.sharding<#other, [[0], []]>>
  return
}

// Between meshes of different shapes blocks of shards move: devices 0-2
// each send their 2 rows (32 bytes) to device 3, which receives all 6.
// CHECK:        "name": "gather_outside",
// CHECK-NEXT:   "sent_bytes": 32,
// CHECK-NEXT:   "received_bytes": 96,
// CHECK:            "kind": "send_recv",
// CHECK-NEXT:       "axis": null,
// CHECK-NEXT:       "team_size": 4,
// expected-remark @below {{communicates 32 bytes sent, 96 bytes received per rank in 1 communication}}
func.func @gather_outside(%rows: tensor<6x4xf32, #fuser.sharding<#fuser.mesh<[3]>, [[0], []]>>) {
  // expected-remark @below {{send_recv (4 ranks): sends 32 bytes, receives 96 bytes per rank}}
  %0 = fuser.comm.send_recv %rows
      : tensor<6x4xf32, #fuser.sharding<#fuser.mesh<[3]>, [[0], []]>> -> tensor<6x4xf32, #fuser.sharding<#fuser.mesh<[1], devices = [3]>, [[], []]>>
  return
}

// On 3 ranks an allreduce of 32 bytes moves 2 * 2/3 * 32 = 42.7 bytes,
// counted as 43.
// CHECK:        "name": "three_ranks",
// CHECK-NEXT:   "sent_bytes": 43,
// expected-remark @below {{communicates 43 bytes sent, 43 bytes received per rank in 1 communication}}
func.func @three_ranks(%partial: tensor<8x1xf32, #fuser.sharding<#fuser.mesh<[3]>, [[], []], partial = {0 : sum}>>) {
  // expected-remark @below {{allreduce over mesh axis 0 (3 ranks): sends 43 bytes, receives 43 bytes per rank}}
  %0 = fuser.comm.allreduce %partial axis = 0
      : tensor<8x1xf32, #fuser.sharding<#fuser.mesh<[3]>, [[], []], partial = {0 : sum}>> -> tensor<8x1xf32, #fuser.sharding<#fuser.mesh<[3]>, [[], []]>>
  return
}

// Sizes known only at run time are not counted, and the function says so.
// CHECK:        "name": "dynamic",
// CHECK-NEXT:   "sent_bytes": 0,
// CHECK-NEXT:   "received_bytes": 0,
// CHECK-NEXT:   "uncounted": 1,
// CHECK:            "input_bytes": null,
// CHECK-NEXT:       "result_bytes": null,
// CHECK-NEXT:       "sent_bytes": null,
// CHECK-NEXT:       "received_bytes": null
// expected-remark @below {{communicates 0 bytes sent, 0 bytes received per rank in 1 communication (1 not counted)}}
func.func @dynamic(%x: tensor<?x4xf32, #rows>) {
  // expected-warning @below {{the local shapes of this communication are known only at run time; its bytes are not counted}}
  %0 = fuser.comm.allgather %x axis = 0 : tensor<?x4xf32, #rows> -> tensor<?x4xf32, #rep>
  return
}

// An unsharded function communicates nothing.
// CHECK:        "name": "unsharded",
// CHECK-NEXT:   "sent_bytes": 0,
// CHECK-NEXT:   "received_bytes": 0,
// CHECK-NEXT:   "uncounted": 0,
// CHECK-NEXT:   "communications": []
// expected-remark @below {{communicates 0 bytes sent, 0 bytes received per rank in 0 communications}}
func.func @unsharded(%x: tensor<8x4xf32>) -> tensor<8x4xf32> {
  %0 = fuser.exp %x : tensor<8x4xf32> -> tensor<8x4xf32>
  return %0 : tensor<8x4xf32>
}
