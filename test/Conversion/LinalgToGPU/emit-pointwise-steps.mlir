// A pointwise schedule of two lane groups per loop step: the loop strides
// two grid widths, both groups are loaded before either is stored, and
// the second, clamped to the last group, stores only inside the outputs.
// RUN: fuser-opt %s --fuser-emit-gpu-kernels | FileCheck %s

// CHECK-LABEL: gpu.func @double
// CHECK-SAME: %[[IN:[^:]*]]: memref<64x250xf32>, %[[OUT:[^:]*]]: memref<64x250xf32>
// CHECK-DAG: %[[LAST:.*]] = arith.constant 7999 : index
// CHECK-DAG: %[[GRID:.*]] = arith.constant 512 : index
// CHECK-DAG: %[[STEP:.*]] = arith.constant 1024 : index
// CHECK: scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %[[STEP]]
// CHECK: vector.transfer_read %[[IN]]
// CHECK: %[[SECOND:.*]] = arith.addi %[[I]], %[[GRID]]
// CHECK: %[[INSIDE:.*]] = arith.cmpi ule, %[[SECOND]], %[[LAST]]
// CHECK: arith.minui %[[SECOND]], %[[LAST]]
// CHECK: vector.transfer_read %[[IN]]
// CHECK-NOT: vector.transfer_read
// CHECK: vector.transfer_write %{{.*}}, %[[OUT]]
// CHECK-NOT: vector.transfer_read
// CHECK: scf.if %[[INSIDE]] {
// CHECK: vector.transfer_write %{{.*}}, %[[OUT]]
// CHECK: } else {
#id = affine_map<(d0, d1) -> (d0, d1)>
module @program {
  module @kernels {
    func.func @double(%in: memref<64x250xf32>, %out: memref<64x250xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<pointwise, blocks = 2, threads = 256, vector_width = 2, groups_per_step = 2>} {
      %x = bufferization.to_tensor %in restrict : memref<64x250xf32> to tensor<64x250xf32>
      %e = tensor.empty() : tensor<64x250xf32>
      %y = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<64x250xf32>) outs(%e : tensor<64x250xf32>) {
      ^bb0(%v: f32, %o: f32):
        %d = arith.addf %v, %v : f32
        linalg.yield %d : f32
      } -> tensor<64x250xf32>
      bufferization.materialize_in_destination %y in restrict writable %out : (tensor<64x250xf32>, memref<64x250xf32>) -> ()
      return
    }
  }
}
