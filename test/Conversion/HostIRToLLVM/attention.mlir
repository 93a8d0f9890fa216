// Both targets lower attention alike: a checked call of the runtime's fused
// attention with every buffer, then the scale, causal (i32), the dropout
// probability, the seed and the rank's batch and head offsets.
// RUN: fuser-opt %s --convert-hostir-to-llvm | FileCheck %s
// RUN: fuser-opt %s --convert-hostir-to-llvm=target=cuda | FileCheck %s

// CHECK-LABEL: llvm.func @attention(
// CHECK: %[[SCALE:.*]] = llvm.mlir.constant(1.250000e-01 : f64) : f64
// CHECK-NEXT: %[[CAUSAL:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[DROPOUT:.*]] = llvm.mlir.constant(1.000000e-01 : f64) : f64
// CHECK-NEXT: %[[SEED:.*]] = llvm.mlir.constant(7 : i64) : i64
// CHECK-NEXT: %[[STATUS:.*]] = llvm.call @fuser_sdpa_forward(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[SCALE]], %[[CAUSAL]], %[[DROPOUT]], %[[SEED]], %{{.*}}, %{{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, f64, i32, f64, i64, i64, i64) -> i32
// CHECK: %[[OK:.*]] = llvm.icmp "eq" %[[STATUS]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED:.*]]
// CHECK: %[[BACKWARD:.*]] = llvm.call @fuser_sdpa_backward({{.*}}) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, f64, i32, f64, i64, i64, i64) -> i32
// CHECK: %[[OK:.*]] = llvm.icmp "eq" %[[BACKWARD]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED:.*]]
func.func @attention(%q: memref<1x2x64x32xbf16>, %o: memref<1x2x64x32xbf16>,
                     %lse: memref<1x2x64xf32>, %head: index) {
  %c0 = arith.constant 0 : index
  hostir.sdpa %q, %q, %q, %o, %lse at [%c0, %head] causal scale = 0.125 dropout = 0.1 seed = 7 : memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64xf32>
  hostir.sdpa_backward %q, %q, %q, %o, %o, %lse, %o, %o, %o at [%c0, %head] scale = 0.125 : memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64xf32>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>
  return
}
