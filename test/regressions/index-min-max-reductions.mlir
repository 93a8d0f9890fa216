// Min and max over index elements start from the extremes of the 64-bit
// integers indices are stored in: upstream's identity asked an index for a
// bit width it does not have, and lowering ran without end, its memory
// growing.
// RUN: fuser-opt %s --convert-fuser-to-linalg | FileCheck %s

// CHECK-LABEL: func.func @minimum
// CHECK: %[[MAX:.*]] = arith.constant 9223372036854775807 : index
// CHECK: linalg.fill ins(%[[MAX]] : index)
// CHECK: arith.minsi %{{.*}}, %{{.*}} : index
// CHECK-LABEL: func.func @maximum
// CHECK: %[[MIN:.*]] = arith.constant -9223372036854775808 : index
// CHECK: linalg.fill ins(%[[MIN]] : index)
// CHECK: arith.maxsi %{{.*}}, %{{.*}} : index
module @program {
  module @kernels {
    func.func @minimum(%b: memref<4x8xindex>, %t: memref<4xindex>) {
      %0 = bufferization.to_tensor %b restrict : memref<4x8xindex> to tensor<4x8xindex>
      %1 = fuser.min %0 dims = [1] : tensor<4x8xindex> -> tensor<4xindex>
      bufferization.materialize_in_destination %1 in restrict writable %t : (tensor<4xindex>, memref<4xindex>) -> ()
      return
    }

    func.func @maximum(%b: memref<4x8xindex>, %t: memref<4xindex>) {
      %0 = bufferization.to_tensor %b restrict : memref<4x8xindex> to tensor<4x8xindex>
      %1 = fuser.max %0 dims = [1] : tensor<4x8xindex> -> tensor<4xindex>
      bufferization.materialize_in_destination %1 in restrict writable %t : (tensor<4xindex>, memref<4xindex>) -> ()
      return
    }
  }
}
