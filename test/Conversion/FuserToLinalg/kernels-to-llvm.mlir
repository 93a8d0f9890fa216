// The kernel module of the tensor-parallel MLP, compiled for CPU ranks:
// only LLVM dialect is left, the gelu writes straight into its output
// buffer (no temporary), and the tanh of its tanh approximation comes from
// libm.
// RUN: fuser-opt %fuser_src_root/examples/tp_mlp.mlir --fuser-to-hostir-pipeline --fuser-kernels-to-llvm | FileCheck %s
// CHECK: module @kernels {
// CHECK-DAG: llvm.func @tanhf(f32) -> f32
// CHECK-DAG: llvm.func @tp_mlp_kernel_0(
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.call @tanhf
// CHECK-NOT: func.func
// CHECK-NOT: linalg.
