// The kernel module of a gelu, compiled for CPU ranks: only LLVM dialect
// is left, the gelu writes straight into its output buffer (no
// temporary), and the tanh of its tanh approximation comes from libm.
// RUN: fuser-opt %fuser_src_root/test/fuser-compile/Inputs/programs.mlir --fuser-to-hostir-pipeline --fuser-kernels-to-llvm | FileCheck %s
// CHECK: module @kernels {
// CHECK-DAG: llvm.func @tanhf(f32) -> f32
// CHECK-DAG: llvm.func @activation_kernel_0(
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.call @tanhf
// CHECK-NOT: func.func
// CHECK-NOT: linalg.
