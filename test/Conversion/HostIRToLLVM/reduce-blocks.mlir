// Both targets lower reduce_blocks alike.
// RUN: fuser-opt %s --convert-hostir-to-llvm | FileCheck %s
// RUN: fuser-opt %s --convert-hostir-to-llvm=target=cuda | FileCheck %s

// reduce_blocks is a checked library call with the runtime's reduction
// kind (FUSER_MAX = 2). Each FuserBuffer's sizes and strides point into a
// copy of the memref descriptor.
// CHECK-LABEL: llvm.func @reduce(
// CHECK: %[[SLOT:.*]] = llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: llvm.call @fuser_check_argument_shape
// CHECK: llvm.call @fuser_check_argument_shape
// CHECK: %[[RANK:.*]] = llvm.mlir.constant(2 : i64) : i64
// CHECK-NEXT: llvm.store %{{.*}}, %[[SLOT]]
// CHECK-NEXT: %[[SIZES:.*]] = llvm.getelementptr %[[SLOT]][0, 3] : (!llvm.ptr) -> !llvm.ptr, !llvm.struct<(ptr, ptr, i64, i64)>
// CHECK-NEXT: %[[STRIDES:.*]] = llvm.getelementptr %[[SIZES]][%[[RANK]]] : (!llvm.ptr, i64) -> !llvm.ptr, i64
// CHECK: %[[MAX:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: %[[STATUS:.*]] = llvm.call @fuser_reduce_blocks(%{{.*}}, %{{.*}}, %[[MAX]]) : (!llvm.ptr, !llvm.ptr, i32) -> i32
// CHECK: %[[OK:.*]] = llvm.icmp "eq" %[[STATUS]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED:.*]]
func.func @reduce(%partials: memref<2x8xf32>, %out: memref<8xf32>) {
  hostir.reduce_blocks %partials, %out kind = max : memref<2x8xf32>, memref<8xf32>
  return
}
