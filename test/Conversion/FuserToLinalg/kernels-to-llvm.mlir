// The kernel module of a gelu, compiled for CPU ranks: only LLVM dialect
// is left, the gelu writes straight into its output buffer (no
// temporary), and the exp of its tanh approximation (x / (1 + exp(-2u)))
// comes from libm.
// RUN: fuser-opt %fuser_src_root/test/fuser-compile/Inputs/programs.mlir --fuser-to-hostir-pipeline --fuser-kernels-to-llvm | FileCheck %s
// CHECK: module @kernels {
// CHECK-DAG: llvm.func @expf(f32) -> f32
// CHECK-DAG: llvm.func @activation_kernel_0(
// CHECK-NOT: llvm.call @malloc
// CHECK: llvm.call @expf
// CHECK-NOT: func.func
// CHECK-NOT: linalg.
