// RUN: fuser-opt %s -pass-pipeline='builtin.module(hostir-cache-allocations,func.func(hostir-place-deallocations,hostir-verify-program))' | FileCheck %s

// Intermediate buffers move out of the program into module-level cached
// buffers and are no longer freed; returned and zero-initialized ones stay.
// CHECK: hostir.cached_buffer @program_buffer device : memref<8x4xf32>
// CHECK-NOT: hostir.cached_buffer
// CHECK-LABEL: func.func @program
// CHECK: %[[T:.*]] = hostir.get_cached_buffer @program_buffer : memref<8x4xf32>
// CHECK: %[[Z:.*]] = hostir.allocate device zeroed : memref<8x4xf32>
// CHECK: %[[R:.*]] = hostir.allocate device : memref<8x4xf32>
// CHECK-NOT: hostir.deallocate %[[T]]
// CHECK: hostir.deallocate %[[Z]]
// CHECK-NOT: hostir.deallocate
// CHECK: return %[[R]]
func.func @program(%x: memref<8x4xf32>) -> memref<8x4xf32> {
  %t = hostir.allocate device : memref<8x4xf32>
  %z = hostir.allocate device zeroed : memref<8x4xf32>
  %r = hostir.allocate device : memref<8x4xf32>
  hostir.copy %x, %t : memref<8x4xf32>, memref<8x4xf32>
  hostir.copy %t, %z : memref<8x4xf32>, memref<8x4xf32>
  hostir.copy %z, %r : memref<8x4xf32>, memref<8x4xf32>
  hostir.deallocate %t : memref<8x4xf32>
  return %r : memref<8x4xf32>
}
