// A view of cached storage asks the runtime for the storage's bytes, by the
// storage's name, and describes them as its own type.
// RUN: fuser-opt %s --convert-hostir-to-llvm | FileCheck %s
// RUN: fuser-opt %s --convert-hostir-to-llvm=target=cuda | FileCheck %s

// CHECK-LABEL: llvm.func @views(
// CHECK: llvm.mlir.addressof @__fuser_name_turns : !llvm.ptr
// CHECK: %[[BYTES:.*]] = llvm.mlir.constant(256 : i64) : i64
// CHECK: %[[FIRST:.*]] = llvm.call @fuser_cached_buffer(%{{.*}}, %[[BYTES]], %{{.*}})
// CHECK: llvm.insertvalue {{.*}}[3, 0] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK: llvm.mlir.constant(256 : i64) : i64
// CHECK: llvm.call @fuser_cached_buffer
// CHECK: llvm.insertvalue {{.*}}[3, 0] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
hostir.cached_buffer @turns device storage : memref<256xi8>
func.func @views(%x: memref<4x8xf32>, %y: memref<16xbf16>) {
  %a = hostir.get_cached_buffer @turns : memref<4x8xf32>
  hostir.copy %x, %a : memref<4x8xf32>, memref<4x8xf32>
  %b = hostir.get_cached_buffer @turns : memref<16xbf16>
  hostir.copy %y, %b : memref<16xbf16>, memref<16xbf16>
  return
}
