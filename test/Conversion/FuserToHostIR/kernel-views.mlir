// Kernels read the buffers host programs hold, views included.
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(convert-fuser-to-hostir)' -mlir-print-local-scope | FileCheck %s

// A replicated per-row scale sliced for a row-split matrix: the rank's
// block of the scale is a view at an offset, which the kernel's parameter
// takes as it is (no copy).
// CHECK-LABEL: func.func @row_scale(
// CHECK-SAME: %[[S:.*]]: memref<8xf32>, %[[X:.*]]: memref<4x4xf32>)
// CHECK: %[[BLOCK:.*]] = hostir.alias_select %[[S]][%{{.*}}] dim = 0 chunks = 2 : memref<8xf32> -> memref<4xf32, strided<[1], offset: ?>>
// CHECK-NOT: hostir.copy
// CHECK: hostir.launch @kernels::@row_scale_kernel_0 {{.*}} args(%[[BLOCK]], %[[X]], %{{.*}} : memref<4xf32, strided<[1], offset: ?>>, memref<4x4xf32>, memref<4x4xf32>)
// CHECK: func.func @row_scale_kernel_0(%[[P:.*]]: memref<4xf32, strided<[1], offset: ?>>, %{{.*}}: memref<4x4xf32>, %{{.*}}: memref<4x4xf32>)
// CHECK-NEXT: bufferization.to_tensor %[[P]] restrict : memref<4xf32, strided<[1], offset: ?>> to tensor<4xf32>
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
module {
  func.func @row_scale(%s: tensor<8xf32, #fuser.sharding<#mesh, [[]]>>, %x: tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows> {
    %0 = fuser.comm.all_slice %s axis = 0 : tensor<8xf32, #fuser.sharding<#mesh, [[]]>> -> tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>
    %1 = fuser.kernel @kernels::@row_scale_kernel_0(%0, %x) : (tensor<8xf32, #fuser.sharding<#mesh, [[0]]>>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
    return %1 : tensor<8x4xf32, #rows>
  }
  module @kernels {
    func.func @row_scale_kernel_0(%arg0: memref<4xf32>, %arg1: memref<4x4xf32>, %arg2: memref<4x4xf32>) {
      %0 = bufferization.to_tensor %arg0 restrict : memref<4xf32> to tensor<4xf32>
      %1 = bufferization.to_tensor %arg1 restrict : memref<4x4xf32> to tensor<4x4xf32>
      %2 = fuser.broadcast %0 dims = [0] : tensor<4xf32> -> tensor<4x4xf32>
      %3 = fuser.mul %2, %1 : (tensor<4x4xf32>, tensor<4x4xf32>) -> tensor<4x4xf32>
      bufferization.materialize_in_destination %3 in restrict writable %arg2 : (tensor<4x4xf32>, memref<4x4xf32>) -> ()
      return
    }
  }
}

// -----

// A column block of a replicated matrix has the whole's row stride; a
// kernel launched twice keeps the layout its other launch passes, so this
// launch reads a copy of that layout.
// CHECK-LABEL: func.func @shared_kernel(
// CHECK-SAME: %[[S:.*]]: memref<8x8xf32>, %[[X:.*]]: memref<8x4xf32>)
// CHECK: %[[BLOCK:.*]] = hostir.alias_select %[[S]][%{{.*}}] dim = 1 chunks = 2 : memref<8x8xf32> -> memref<8x4xf32, strided<[8, 1], offset: ?>>
// CHECK: %[[COPY:.*]] = hostir.allocate device : memref<8x4xf32>
// CHECK-NEXT: hostir.copy %[[BLOCK]], %[[COPY]]
// CHECK: hostir.launch @kernels::@add {{.*}} args(%[[COPY]], %[[X]], %{{.*}} : memref<8x4xf32>, memref<8x4xf32>, memref<8x4xf32>)
// CHECK: hostir.launch @kernels::@add {{.*}} args(%[[X]], %[[X]], %{{.*}} : memref<8x4xf32>, memref<8x4xf32>, memref<8x4xf32>)
// CHECK: func.func private @add(memref<8x4xf32>, memref<8x4xf32>, memref<8x4xf32>)
#mesh = #fuser.mesh<[2]>
#cols = #fuser.sharding<#mesh, [[], [0]]>
module {
  func.func @shared_kernel(%s: tensor<8x8xf32, #fuser.sharding<#mesh, [[], []]>>, %x: tensor<8x8xf32, #cols>) -> (tensor<8x8xf32, #cols>, tensor<8x8xf32, #cols>) {
    %0 = fuser.comm.all_slice %s axis = 0 : tensor<8x8xf32, #fuser.sharding<#mesh, [[], []]>> -> tensor<8x8xf32, #cols>
    %1 = fuser.kernel @kernels::@add(%0, %x) : (tensor<8x8xf32, #cols>, tensor<8x8xf32, #cols>) -> tensor<8x8xf32, #cols>
    %2 = fuser.kernel @kernels::@add(%x, %x) : (tensor<8x8xf32, #cols>, tensor<8x8xf32, #cols>) -> tensor<8x8xf32, #cols>
    return %1, %2 : tensor<8x8xf32, #cols>, tensor<8x8xf32, #cols>
  }
  module @kernels {
    func.func private @add(memref<8x4xf32>, memref<8x4xf32>, memref<8x4xf32>)
  }
}

// -----

// A slice starting inside its operand's buffer is a view at an offset of
// its own, which its layout does not state: the view keeps it (cast to any
// offset), the kernel reads it there and a returned one is copied.
// CHECK-LABEL: func.func @slice_at_offset(
// CHECK-SAME: %[[X:.*]]: memref<8x4xf32>)
// CHECK: %[[S:.*]] = memref.subview %[[X]][2, 0] [4, 4] [1, 1] : memref<8x4xf32> to memref<4x4xf32, strided<[4, 1], offset: 8>>
// CHECK-NEXT: %[[V:.*]] = memref.cast %[[S]] : memref<4x4xf32, strided<[4, 1], offset: 8>> to memref<4x4xf32, strided<[4, 1], offset: ?>>
// CHECK: hostir.launch @kernels::@exp {{.*}} args(%[[V]], %{{.*}} : memref<4x4xf32, strided<[4, 1], offset: ?>>, memref<4x4xf32>)
// CHECK: %[[COPY:.*]] = hostir.allocate device : memref<4x4xf32>
// CHECK-NEXT: hostir.copy %[[V]], %[[COPY]]
// CHECK-NEXT: return %{{.*}}, %[[COPY]]
#mesh = #fuser.mesh<[2]>
#rep = #fuser.sharding<#mesh, [[], []]>
module {
  func.func @slice_at_offset(%x: tensor<8x4xf32, #rep>) -> (tensor<4x4xf32, #rep>, tensor<4x4xf32, #rep>) {
    %0 = fuser.slice %x starts = [2, 0] limits = [6, 4] steps = [1, 1] : tensor<8x4xf32, #rep> -> tensor<4x4xf32, #rep>
    %1 = fuser.kernel @kernels::@exp(%0) : (tensor<4x4xf32, #rep>) -> tensor<4x4xf32, #rep>
    return %1, %0 : tensor<4x4xf32, #rep>, tensor<4x4xf32, #rep>
  }
  module @kernels {
    func.func private @exp(memref<4x4xf32>, memref<4x4xf32>)
  }
}
