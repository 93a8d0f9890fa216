// RUN: fuser-opt %s -split-input-file --fuser-lower-kernels-to-linalg | FileCheck %s

// Pointwise ops become one linalg.generic each; bf16 computes in f32;
// gelu is the erf form.
// CHECK-LABEL: func.func @pointwise
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%{{.*}} : tensor<4x8xbf16>)
// CHECK: ^bb0(%[[IN:.*]]: bf16, %{{.*}}: bf16):
// CHECK: %[[X:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK: math.erf
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.yield %[[R]] : bf16
// CHECK: linalg.generic
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: fuser.
module @program {
  module @kernels {
    func.func @pointwise(%a: memref<4x8xbf16>, %out: memref<4x8xbf16>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x8xbf16> to tensor<4x8xbf16>
      %1 = fuser.gelu %0 : tensor<4x8xbf16> -> tensor<4x8xbf16>
      %2 = fuser.add %1, %0 : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
      bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<4x8xbf16>, memref<4x8xbf16>) -> ()
      return
    }
  }
}

// -----

// Reductions accumulate from the kind's identity, keepdim maps the reduced
// dim to index 0; mean divides by the reduced count; broadcasts read the
// input through a map that drops the new dims.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @reduce_and_broadcast
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEG_INF]] : f32)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.maximumf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: arith.divf
// CHECK: linalg.generic {indexing_maps = [#[[ROW]], #[[ID]]]
module @program {
  module @kernels {
    func.func @reduce_and_broadcast(%a: memref<4x8xf32>, %b: memref<8xf32>, %m: memref<4x1xf32>, %s: memref<4x1xf32>, %out: memref<4x8xf32>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x8xf32> to tensor<4x8xf32>
      %1 = bufferization.to_tensor %b restrict : memref<8xf32> to tensor<8xf32>
      %2 = fuser.max %0 dims = [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
      %3 = fuser.mean %0 dims = [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
      %4 = fuser.broadcast %1 dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
      bufferization.materialize_in_destination %2 in restrict writable %m : (tensor<4x1xf32>, memref<4x1xf32>) -> ()
      bufferization.materialize_in_destination %3 in restrict writable %s : (tensor<4x1xf32>, memref<4x1xf32>) -> ()
      bufferization.materialize_in_destination %4 in restrict writable %out : (tensor<4x8xf32>, memref<4x8xf32>) -> ()
      return
    }
  }
}

// -----

// Creation ops: iota adds its piece's offset to the local index; uniform
// hashes the seed with each element's global coordinates.
// CHECK-LABEL: func.func @creation
// CHECK-SAME: (%{{.*}}: memref<4xi64>, %{{.*}}: memref<4x2xf32>, %[[ROW:.*]]: index, %[[COL:.*]]: index)
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: arith.addi %[[I]], %[[ROW]] : index
// CHECK: arith.fptosi %{{.*}} : f64 to i64
// CHECK: linalg.generic
// CHECK: %[[R:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[SEED:.*]] = arith.constant 5 : i64
// CHECK: arith.addi %[[R]], %[[ROW]] : index
// CHECK: arith.xori %[[SEED]]
// CHECK: arith.addi %[[C]], %[[COL]] : index
// CHECK: arith.uitofp
module @program {
  module @kernels {
    func.func @creation(%iota: memref<4xi64>, %draw: memref<4x2xf32>, %row: index, %col: index) {
      %0 = fuser.iota dim = 0 at [%row] : tensor<4xi64>
      %1 = fuser.uniform low = 0.0, high = 1.0, seed = 5 at [%row, %col] : tensor<4x2xf32>
      bufferization.materialize_in_destination %0 in restrict writable %iota : (tensor<4xi64>, memref<4xi64>) -> ()
      bufferization.materialize_in_destination %1 in restrict writable %draw : (tensor<4x2xf32>, memref<4x2xf32>) -> ()
      return
    }
  }
}
