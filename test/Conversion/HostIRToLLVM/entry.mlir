// Host programs select the runtime backend of their target on entry.
// RUN: fuser-opt %s --convert-hostir-to-llvm | FileCheck %s --check-prefixes=CHECK,CPU
// RUN: fuser-opt %s --convert-hostir-to-llvm=target=cpu | FileCheck %s --check-prefixes=CHECK,CPU
// RUN: fuser-opt %s --convert-hostir-to-llvm=target=cuda | FileCheck %s --check-prefixes=CHECK,CUDA

// A program first selects its backend (FUSER_BACKEND_HOST = 0,
// FUSER_BACKEND_CUDA = 1), which the argument checks and every later call
// run on.
// CHECK-LABEL: llvm.func @entry(
// The stack slots come first, in the entry block.
// CHECK-NEXT: llvm.mlir.constant(1 : i64)
// CHECK-NEXT: llvm.alloca
// CPU-NEXT: %[[BACKEND:.*]] = llvm.mlir.constant(0 : i32) : i32
// CUDA-NEXT: %[[BACKEND:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[SELECTED:.*]] = llvm.call @fuser_use_backend(%[[BACKEND]]) : (i32) -> i32
// CHECK: %[[OK:.*]] = llvm.icmp "eq" %[[SELECTED]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED:.*]]
// CHECK: llvm.call @fuser_check_argument_shape
func.func @entry(%x: memref<8x4xf32>) {
  return
}
