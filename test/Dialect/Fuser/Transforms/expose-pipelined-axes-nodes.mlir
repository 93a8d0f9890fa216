// Pipelines whose teams hold ranks of different nodes (each
// `ranks-per-node` consecutive ranks a node) are marked
// fuser.between_nodes: their rings cannot use CUDA IPC (a warning says so
// where backend=cuda_ipc asks for it), and pipelining=auto rates their
// transfers by the network link.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=ring backend=cuda_ipc ranks-per-node=2}))' -mlir-print-local-scope | FileCheck %s --check-prefix=RING
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto backend=nccl ranks-per-node=2}))' -mlir-print-local-scope | FileCheck %s --check-prefixes=AUTO,BUILTIN
// One node for all ranks: nothing is between nodes.
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=ring backend=cuda_ipc}))' -mlir-print-local-scope | FileCheck %s --check-prefix=ONE-NODE
// The calibration's machine gives the ranks per node where the option
// does not: the folder's 4-device machine has nodes of 2, and a slow
// network whose transfers interfere less than NVLink's.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto backend=cuda_ipc calibration=%S/Inputs/calibrations}))' -mlir-print-local-scope | FileCheck %s --check-prefixes=AUTO,FOLDER
// RUN: not fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{ranks-per-node=-2}))' 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// NEGATIVE: error: ranks-per-node is -2; it takes the ranks of each node, or 0 for the calibration's
// ONE-NODE-NOT: fuser.between_nodes

// A 2x2 mesh of two nodes of 2 ranks: teams along axis 1 ({0, 1}, {2, 3})
// stay within a node; along axis 0 ({0, 2}, {1, 3}) they cross.
// RING-LABEL: func.func @across_nodes
// RING: fuser.comm.allgather {{.*}}{fuser.between_nodes, fuser.pipelining = #fuser.pipelining<ring>}
// With the built-in calibration's network link the collective pipeline
// wins; with the folder's, a ring over NCCL.
// AUTO-LABEL: func.func @across_nodes
// BUILTIN: fuser.comm.allgather {{.*}}{fuser.between_nodes, fuser.pipelining = #fuser.pipelining<collective>}
// FOLDER: fuser.comm.allgather {{.*}}{fuser.between_nodes, fuser.pipelining = #fuser.pipelining<ring>}
#mesh = #fuser.mesh<[2, 2]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 2}>
#whole = #fuser.sharding<#mesh, [[], []]>
func.func @across_nodes(%x: tensor<8192x8192xbf16, #x>, %b: tensor<8192x8192xbf16, #whole>) -> tensor<8192x8192xbf16, #whole> {
  // expected-warning @+1 {{the ring over mesh axis 0 connects ranks of different nodes, which CUDA IPC cannot reach: it moves its blocks over NCCL}}
  %g = fuser.comm.allgather %x axis = 0 : tensor<8192x8192xbf16, #x> -> tensor<8192x8192xbf16, #whole>
  %y = fuser.matmul %g, %b : (tensor<8192x8192xbf16, #whole>, tensor<8192x8192xbf16, #whole>) -> tensor<8192x8192xbf16, #whole>
  return %y : tensor<8192x8192xbf16, #whole>
}

// -----

// RING-LABEL: func.func @within_a_node
// RING-NOT: fuser.between_nodes
// RING: fuser.comm.allgather {{.*}}{fuser.pipelining = #fuser.pipelining<ring>}
// Within a node the copy engine's ring (cuda_ipc) or NCCL's.
// AUTO-LABEL: func.func @within_a_node
// AUTO-NOT: fuser.between_nodes
// AUTO: fuser.comm.allgather {{.*}}{fuser.pipelining = #fuser.pipelining<ring>}
#mesh = #fuser.mesh<[2, 2]>
#x = #fuser.sharding<#mesh, [[1], []], stream = {0 : 2}>
#whole = #fuser.sharding<#mesh, [[], []]>
func.func @within_a_node(%x: tensor<8192x8192xbf16, #x>, %b: tensor<8192x8192xbf16, #whole>) -> tensor<8192x8192xbf16, #whole> {
  %g = fuser.comm.allgather %x axis = 1 : tensor<8192x8192xbf16, #x> -> tensor<8192x8192xbf16, #whole>
  %y = fuser.matmul %g, %b : (tensor<8192x8192xbf16, #whole>, tensor<8192x8192xbf16, #whole>) -> tensor<8192x8192xbf16, #whole>
  return %y : tensor<8192x8192xbf16, #whole>
}
