// Both targets lower memory kinds alike.
// RUN: fuser-opt %s --convert-hostir-to-llvm | FileCheck %s
// RUN: fuser-opt %s --convert-hostir-to-llvm=target=cuda | FileCheck %s

// Allocations pass their memory kind (FUSER_MEMORY_DEVICE = 0, HOST = 1,
// SYMMETRIC = 2); a cached buffer passes the kind it was declared with.
// CHECK-LABEL: llvm.func @memory(
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(32 : i64) : i64
// CHECK-NEXT: %[[DEVICE:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: %[[NOT_ZEROED:.*]] = llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @fuser_allocate(%[[BYTES]], %[[DEVICE]], %[[NOT_ZEROED]]) : (i64, i32, i32) -> !llvm.ptr
// CHECK: %[[HOST:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[ZEROED:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: llvm.call @fuser_allocate(%{{.*}}, %[[HOST]], %[[ZEROED]])
// CHECK: %[[SYMMETRIC:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: llvm.mlir.constant(0 : i32) : i32
// CHECK-NEXT: llvm.call @fuser_allocate(%{{.*}}, %[[SYMMETRIC]], %{{.*}})
// CHECK: llvm.mlir.addressof @__fuser_name_shared : !llvm.ptr
// CHECK-NEXT: %[[NAME:.*]] = llvm.getelementptr
// CHECK-NEXT: %[[CACHED_BYTES:.*]] = llvm.mlir.constant(16 : i64) : i64
// CHECK-NEXT: %[[CACHED_KIND:.*]] = llvm.mlir.constant(2 : i32) : i32
// CHECK-NEXT: llvm.call @fuser_cached_buffer(%[[NAME]], %[[CACHED_BYTES]], %[[CACHED_KIND]]) : (!llvm.ptr, i64, i32) -> !llvm.ptr
// CHECK-NOT: hostir.cached_buffer
hostir.cached_buffer @shared symmetric : memref<4xf32>
func.func @memory() {
  %device = hostir.allocate device : memref<8xf32>
  %host = hostir.allocate host zeroed : memref<8xf32>
  %symmetric = hostir.allocate symmetric : memref<8xf32>
  %cached = hostir.get_cached_buffer @shared : memref<4xf32>
  hostir.deallocate %device : memref<8xf32>
  hostir.deallocate %host : memref<8xf32>
  hostir.deallocate %symmetric : memref<8xf32>
  return
}
