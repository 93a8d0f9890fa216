// pipelining=auto: the cost model plans each pipeline from the machine's
// calibration (default: the 2 x H200 machine).
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto backend=cuda_ipc}))' -mlir-print-local-scope | FileCheck %s --check-prefix=IPC
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto backend=nccl}))' -mlir-print-local-scope | FileCheck %s --check-prefix=NCCL
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto backend=cuda_ipc calibration=%S/Inputs/overlapping-collectives.json}))' -mlir-print-local-scope | FileCheck %s --check-prefix=CALIBRATED
// RUN: not fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto calibration=%S/Inputs/bad-calibration.json}))' 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto calibration=%S/Inputs/missing.json}))' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=tree}))' 2>&1 | FileCheck %s --check-prefix=OPTION
// BAD: every entry of 'gemm_classes' needs an integer 'min_dim' and a positive 'flops_per_second'
// MISSING: cannot read the calibration '{{.*}}missing.json'
// OPTION: for the --pipelining option: Cannot find option named 'tree'!

// An 8192^3 bf16 AG+GEMM: the copy engine's ring hides the allgather (one
// chunk per block: two GEMMs of half the rows); over NCCL, whose kernels
// slow the GEMM beside them, the ring still hides part of it (measured on
// 2 x H200: 1.686 ms against 1.813 ms without overlap). With collectives
// that do not interfere and a slow copy engine (a calibration file), the
// collective pipeline wins.
// IPC-LABEL: func.func @large
// IPC: fuser.comm.allgather {{.*}}{fuser.pipelining = #fuser.pipelining<ring>} : {{.*}} -> tensor<2x4096x8192xbf16, {{.*}}stream = {1 : 1}>>
// NCCL-LABEL: func.func @large
// NCCL: fuser.comm.allgather {{.*}}{fuser.pipelining = #fuser.pipelining<ring>} : {{.*}} -> tensor<2x4096x8192xbf16, {{.*}}stream = {1 : 1}>>
// CALIBRATED-LABEL: func.func @large
// CALIBRATED: fuser.comm.allgather {{.*}}{fuser.pipelining = #fuser.pipelining<collective>} : {{.*}} -> tensor<2x4096x8192xbf16, {{.*}}stream = {1 : {{[248]}}}>>
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
#whole = #fuser.sharding<#mesh, [[], []]>
func.func @large(%x: tensor<8192x8192xbf16, #x>, %b: tensor<8192x8192xbf16, #whole>) -> tensor<8192x8192xbf16, #whole> {
  %g = fuser.comm.allgather %x axis = 0 : tensor<8192x8192xbf16, #x> -> tensor<8192x8192xbf16, #whole>
  %y = fuser.matmul %g, %b : (tensor<8192x8192xbf16, #whole>, tensor<8192x8192xbf16, #whole>) -> tensor<8192x8192xbf16, #whole>
  return %y : tensor<8192x8192xbf16, #whole>
}

// -----

// A small GEMM+RS on the NCCL backend: per-call and per-transfer costs
// dominate, so it runs whole.
// NCCL-LABEL: func.func @small
// NCCL: fuser.comm.reduce_scatter {{.*}}{fuser.pipelining = #fuser.pipelining<none>}
#mesh = #fuser.mesh<[2]>
#a = #fuser.sharding<#mesh, [[], [0]]>
#b = #fuser.sharding<#mesh, [[0], []]>
#partial = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>
#y = #fuser.sharding<#mesh, [[0], []], stream = {0 : 2}>
func.func @small(%a: tensor<64x128xbf16, #a>, %b: tensor<128x64xbf16, #b>) -> tensor<64x64xbf16, #y> {
  %p = fuser.matmul %a, %b : (tensor<64x128xbf16, #a>, tensor<128x64xbf16, #b>) -> tensor<64x64xbf16, #partial>
  %y = fuser.comm.reduce_scatter %p axis = 0 : tensor<64x64xbf16, #partial> -> tensor<64x64xbf16, #y>
  return %y : tensor<64x64xbf16, #y>
}

// -----

// Without a stream split, pipelining=auto weighs the AG+GEMM all the same
// (the layer programs state no stream splits inside): planned as @large,
// one chunk per block.
// IPC-LABEL: func.func @unrequested_large
// IPC: fuser.comm.allgather {{.*}}{fuser.pipelining = #fuser.pipelining<ring>} : {{.*}} -> tensor<2x4096x8192xbf16, {{.*}}stream = {1 : 1}>>
// NCCL-LABEL: func.func @unrequested_large
// NCCL: fuser.comm.allgather {{.*}}{fuser.pipelining = #fuser.pipelining<ring>}
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []]>
#whole = #fuser.sharding<#mesh, [[], []]>
func.func @unrequested_large(%x: tensor<8192x8192xbf16, #x>, %b: tensor<8192x8192xbf16, #whole>) -> tensor<8192x8192xbf16, #whole> {
  %g = fuser.comm.allgather %x axis = 0 : tensor<8192x8192xbf16, #x> -> tensor<8192x8192xbf16, #whole>
  %y = fuser.matmul %g, %b : (tensor<8192x8192xbf16, #whole>, tensor<8192x8192xbf16, #whole>) -> tensor<8192x8192xbf16, #whole>
  return %y : tensor<8192x8192xbf16, #whole>
}

// -----

// An unrequested pipeline the cost model would run whole stays as written:
// no plan, no reshape.
// NCCL-LABEL: func.func @unrequested_small
// NCCL-NEXT: fuser.matmul
// NCCL-NEXT: fuser.comm.reduce_scatter
// NCCL-NOT: fuser.pipelining
// NCCL-NEXT: return
#mesh = #fuser.mesh<[2]>
#a = #fuser.sharding<#mesh, [[], [0]]>
#b = #fuser.sharding<#mesh, [[0], []]>
#partial = #fuser.sharding<#mesh, [[], []], partial = {0 : sum}>
#y = #fuser.sharding<#mesh, [[0], []]>
func.func @unrequested_small(%a: tensor<64x128xbf16, #a>, %b: tensor<128x64xbf16, #b>) -> tensor<64x64xbf16, #y> {
  %p = fuser.matmul %a, %b : (tensor<64x128xbf16, #a>, tensor<128x64xbf16, #b>) -> tensor<64x64xbf16, #partial>
  %y = fuser.comm.reduce_scatter %p axis = 0 : tensor<64x64xbf16, #partial> -> tensor<64x64xbf16, #y>
  return %y : tensor<64x64xbf16, #y>
}

// -----

// A row-parallel linear's allreduce with no stream split: auto chunks the
// longest row dim no mesh axis splits (the sequence of [batch, sequence,
// features]) where the pipeline wins, as with collectives that do not
// interfere (the calibration file).
// CALIBRATED-LABEL: func.func @unrequested_allreduce
// CALIBRATED: fuser.comm.allreduce {{.*}}{fuser.pipelining = #fuser.pipelining<collective>} : tensor<1x8192x8192xbf16, {{.*}}stream = {1 : {{[248]}}}>> -> tensor<1x8192x8192xbf16, {{.*}}stream = {1 : {{[248]}}}>>
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[], [], [0]]>
#w = #fuser.sharding<#mesh, [[], [0]]>
#partial = #fuser.sharding<#mesh, [[], [], []], partial = {0 : sum}>
#whole = #fuser.sharding<#mesh, [[], [], []]>
func.func @unrequested_allreduce(%x: tensor<1x8192x8192xbf16, #x>, %w: tensor<8192x8192xbf16, #w>) -> tensor<1x8192x8192xbf16, #whole> {
  %p = fuser.linear %x, %w : (tensor<1x8192x8192xbf16, #x>, tensor<8192x8192xbf16, #w>) -> tensor<1x8192x8192xbf16, #partial>
  %y = fuser.comm.allreduce %p axis = 0 : tensor<1x8192x8192xbf16, #partial> -> tensor<1x8192x8192xbf16, #whole>
  return %y : tensor<1x8192x8192xbf16, #whole>
}
