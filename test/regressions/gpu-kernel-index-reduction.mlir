// A reduction over index elements is scheduled without warp shuffles, which
// move integers and floats of a known width: the upstream shuffle lowering
// it used to reach asked an index for its width and crashed.
// RUN: fuser-opt %s --convert-fuser-to-linalg --fuser-copies-to-kernels --fuser-choose-gpu-kernel-schedules --fuser-emit-gpu-kernels | FileCheck %s

// CHECK-LABEL: gpu.func @reductions
// CHECK-NOT: gpu.subgroup_reduce
// CHECK-NOT: gpu.shuffle
// CHECK: scf.for {{.*}} iter_args(%[[SUM:.*]] = %{{.*}}) -> (index)
// CHECK: arith.addi %[[SUM]], %{{.*}} : index
module @program {
  module @kernels {
    func.func @reductions(%b: memref<4x8xindex>, %t: memref<4xindex>) {
      %0 = bufferization.to_tensor %b restrict : memref<4x8xindex> to tensor<4x8xindex>
      %1 = fuser.sum %0 dims = [1] : tensor<4x8xindex> -> tensor<4xindex>
      bufferization.materialize_in_destination %1 in restrict writable %t : (tensor<4xindex>, memref<4xindex>) -> ()
      return
    }
  }
}
