// Each scenario communicates the least it must, per rank (bytes as in
// docs/communication-volume.md: an allgather of a piece P over n ranks moves
// (n-1)·P each way, an allreduce of S 2·(n-1)/n·S, a reduce_scatter into a
// block B (n-1)·B). All on 2 ranks, f32. A function's list of
// communications ends at its `]`: none other comes before it.
// RUN: fuser-opt %s -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings),fuser-report-communication{output=-})' -o /dev/null | FileCheck %s
// RUN: fuser-opt %S/tp-mlp.mlir -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings),fuser-report-communication{output=-})' -o /dev/null | FileCheck %s --check-prefix=TP
// RUN: fuser-opt %fuser_src_root/examples/tp_mlp.mlir -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings),fuser-report-communication{output=-})' -o /dev/null | FileCheck %s --check-prefix=TP
// RUN: fuser-opt %S/sp-mlp.mlir -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings),fuser-report-communication{output=-})' -o /dev/null | FileCheck %s --check-prefix=SP
// RUN: fuser-opt %fuser_src_root/test/e2e/Inputs/pipelines.mlir -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings),fuser-report-communication{output=-})' -o /dev/null | FileCheck %s --check-prefix=PIPELINES

// TP MLP (x [8, 64], hidden 256): one allreduce of the [8, 64] output,
// 2048 bytes, 2 * 1/2 * 2048 each way.
// TP:      "name": "tp_mlp",
// TP-NEXT: "sent_bytes": 2048,
// TP-NEXT: "received_bytes": 2048,
// TP:      "kind": "allreduce",
// TP-NOT:  "kind":
// TP:      {{^      \]}}

// SP MLP (x [8, 64] split by rows): an allgather of the input (a 1024-byte
// piece) and a reduce_scatter of the output into 1024-byte blocks; the
// residual add reads the input as it is.
// SP:      "name": "sp_mlp",
// SP-NEXT: "sent_bytes": 2048,
// SP-NEXT: "received_bytes": 2048,
// SP:      "kind": "allgather",
// SP:      "sent_bytes": 1024,
// SP:      "kind": "reduce_scatter",
// SP:      "sent_bytes": 1024,
// SP-NOT:  "kind":
// SP:      {{^      \]}}

// AG+GEMM (x [16, 64] split by rows): one allgather of a 2048-byte piece;
// the stream split changes nothing. GEMM+RS ([16, 32] output split by
// rows): one reduce_scatter into 1024-byte blocks.
// PIPELINES:      "name": "ag_gemm",
// PIPELINES-NEXT: "sent_bytes": 2048,
// PIPELINES-NEXT: "received_bytes": 2048,
// PIPELINES:      "kind": "allgather",
// PIPELINES-NOT:  "kind":
// PIPELINES:      {{^      \]}}
// PIPELINES:      "name": "gemm_rs",
// PIPELINES-NEXT: "sent_bytes": 1024,
// PIPELINES-NEXT: "received_bytes": 1024,
// PIPELINES:      "kind": "reduce_scatter",
// PIPELINES-NOT:  "kind":
// PIPELINES:      {{^      \]}}

#mesh = #fuser.mesh<[2]>
#cols = #fuser.sharding<#mesh, [[], [0]]>

// Softmax over a split dim: the max and the sum are resolved at [8, 1], an
// allreduce of 32 bytes each (not a reduce_scatter of their [8, 16]
// expansions, 256 bytes each).
// CHECK:      "name": "softmax",
// CHECK-NEXT: "sent_bytes": 64,
// CHECK-NEXT: "received_bytes": 64,
// CHECK:      "kind": "allreduce",
// CHECK:      "input_bytes": 32,
// CHECK:      "kind": "allreduce",
// CHECK:      "input_bytes": 32,
// CHECK-NOT:  "kind":
// CHECK:      {{^      \]}}
// CHECK:      "name": "layer_norm",
func.func @softmax(%x: tensor<8x16xf32, #cols>) -> tensor<8x16xf32, #cols> {
  %mx = fuser.max %x dims = [1] keepdim : tensor<8x16xf32, #cols> -> tensor<8x1xf32>
  %mxb = fuser.expand %mx : tensor<8x1xf32> -> tensor<8x16xf32>
  %d = fuser.sub %x, %mxb : (tensor<8x16xf32, #cols>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %e = fuser.exp %d : tensor<8x16xf32> -> tensor<8x16xf32>
  %s = fuser.sum %e dims = [1] keepdim : tensor<8x16xf32> -> tensor<8x1xf32>
  %sb = fuser.expand %s : tensor<8x1xf32> -> tensor<8x16xf32>
  %y = fuser.div %e, %sb : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32, #cols>
  return %y : tensor<8x16xf32, #cols>
}

// Layer norm over a split dim, its statistics as means: the mean and the
// variance are resolved at [8, 1], an allreduce of 32 bytes each.
// CHECK-NEXT: "sent_bytes": 64,
// CHECK-NEXT: "received_bytes": 64,
// CHECK:      "kind": "allreduce",
// CHECK:      "input_bytes": 32,
// CHECK:      "kind": "allreduce",
// CHECK:      "input_bytes": 32,
// CHECK-NOT:  "kind":
// CHECK:      {{^      \]}}
func.func @layer_norm(%x: tensor<8x16xf32, #cols>) -> tensor<8x16xf32, #cols> {
  %m = fuser.mean %x dims = [1] keepdim : tensor<8x16xf32, #cols> -> tensor<8x1xf32>
  %mb = fuser.expand %m : tensor<8x1xf32> -> tensor<8x16xf32>
  %c = fuser.sub %x, %mb : (tensor<8x16xf32, #cols>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %sq = fuser.mul %c, %c : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %v = fuser.mean %sq dims = [1] keepdim : tensor<8x16xf32> -> tensor<8x1xf32>
  %eps = fuser.full 1.0e-5 : tensor<8x1xf32>
  %ve = fuser.add %v, %eps : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %r = fuser.rsqrt %ve : tensor<8x1xf32> -> tensor<8x1xf32>
  %rb = fuser.expand %r : tensor<8x1xf32> -> tensor<8x16xf32>
  %y = fuser.mul %c, %rb : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32, #cols>
  return %y : tensor<8x16xf32, #cols>
}

// The same layer norm with var_mean: it computes the mean, then the mean
// squared difference from it, each resolved at [8, 1] (per-rank variances
// do not combine, so the input is not gathered).
// CHECK:      "name": "layer_norm_var_mean",
// CHECK-NEXT: "sent_bytes": 64,
// CHECK-NEXT: "received_bytes": 64,
// CHECK:      "kind": "allreduce",
// CHECK:      "input_bytes": 32,
// CHECK:      "kind": "allreduce",
// CHECK:      "input_bytes": 32,
// CHECK-NOT:  "kind":
// CHECK:      {{^      \]}}
func.func @layer_norm_var_mean(%x: tensor<8x16xf32, #cols>) -> tensor<8x16xf32, #cols> {
  %v, %m = fuser.var_mean %x dims = [1] keepdim {correction = 0 : i64} : tensor<8x16xf32, #cols> -> tensor<8x1xf32>, tensor<8x1xf32>
  %mb = fuser.expand %m : tensor<8x1xf32> -> tensor<8x16xf32>
  %c = fuser.sub %x, %mb : (tensor<8x16xf32, #cols>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %eps = fuser.full 1.0e-5 : tensor<8x1xf32>
  %ve = fuser.add %v, %eps : (tensor<8x1xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
  %r = fuser.rsqrt %ve : tensor<8x1xf32> -> tensor<8x1xf32>
  %rb = fuser.expand %r : tensor<8x1xf32> -> tensor<8x16xf32>
  %y = fuser.mul %c, %rb : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32, #cols>
  return %y : tensor<8x16xf32, #cols>
}
