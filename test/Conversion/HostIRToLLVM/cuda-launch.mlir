// Kernel launches on GPUs: the gpu.binary's image embedded once, a name and
// a cache slot per kernel (shared by its launches), each memref passed as a
// pointer to its first element (the aligned pointer advanced by a static or
// dynamic offset), an index as i64, and one checked fuser_launch_kernel.
// RUN: fuser-opt %s --convert-hostir-to-llvm=target=cuda | FileCheck %s

// The binary is gone, its image a NUL-terminated constant.
// CHECK: module {
// CHECK-NOT: gpu.binary
// CHECK-DAG: llvm.mlir.global internal @__fuser_kernel.kernels.scale() {addr_space = 0 : i32} : !llvm.ptr {
// CHECK-DAG: llvm.mlir.global internal @__fuser_kernel.kernels.add_one() {addr_space = 0 : i32} : !llvm.ptr {
// CHECK-DAG: llvm.mlir.global internal constant @__fuser_kernel_name.scale("scale\00")
// CHECK-DAG: llvm.mlir.global internal constant @__fuser_kernel_name.add_one("add_one\00")
// CHECK-DAG: llvm.mlir.global internal constant @__fuser_gpu_binary.kernels("//\0A// PTX of add_one and scale\0A\00") {addr_space = 0 : i32, alignment = 8 : i64}
// CHECK-NOT: gpu.binary
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "//\0A// PTX of add_one and scale\0A">]

  // CHECK-LABEL: llvm.func @program(
  // CHECK: %[[IMAGE:.*]] = llvm.mlir.addressof @__fuser_gpu_binary.kernels
  // CHECK: %[[NAME_GLOBAL:.*]] = llvm.mlir.addressof @__fuser_kernel_name.add_one
  // CHECK-NEXT: %[[NAME:.*]] = llvm.getelementptr %[[NAME_GLOBAL]][0, 0]
  // CHECK-NEXT: %[[FUNCTION:.*]] = llvm.mlir.addressof @__fuser_kernel.kernels.add_one
  // Each parameter's value in a slot of its own. Offset 0: the aligned
  // pointer as it is.
  // CHECK-NEXT: %[[X:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  // CHECK-NEXT: llvm.store %[[X]], %[[X_SLOT:.*]] : !llvm.ptr, !llvm.ptr
  // A static offset: 8 elements further.
  // CHECK-NEXT: %[[WINDOW_ALIGNED:.*]] = llvm.extractvalue %{{.*}}[1] : !llvm.struct<(ptr, ptr, i64, array<1 x i64>, array<1 x i64>)>
  // CHECK-NEXT: %[[EIGHT:.*]] = llvm.mlir.constant(8 : index) : i64
  // CHECK-NEXT: %[[WINDOW:.*]] = llvm.getelementptr %[[WINDOW_ALIGNED]][%[[EIGHT]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  // CHECK-NEXT: llvm.store %[[WINDOW]], %[[WINDOW_SLOT:.*]] : !llvm.ptr, !llvm.ptr
  // A dynamic offset, read from the descriptor.
  // CHECK-NEXT: %[[Y_ALIGNED:.*]] = llvm.extractvalue %[[Y_DESCRIPTOR:.*]][1] : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
  // CHECK-NEXT: %[[Y_OFFSET:.*]] = llvm.extractvalue %[[Y_DESCRIPTOR]][2]
  // CHECK-NEXT: %[[Y:.*]] = llvm.getelementptr %[[Y_ALIGNED]][%[[Y_OFFSET]]] : (!llvm.ptr, i64) -> !llvm.ptr, f32
  // CHECK-NEXT: llvm.store %[[Y]], %[[Y_SLOT:.*]] : !llvm.ptr, !llvm.ptr
  // The index as i64.
  // CHECK-NEXT: llvm.store %{{.*}}, %[[N_SLOT:.*]] : i64, !llvm.ptr
  // The array of the slots' addresses, as cuLaunchKernel takes them.
  // CHECK-NEXT: %[[P0:.*]] = llvm.getelementptr %[[PARAMETERS:.*]][0, 0] : (!llvm.ptr) -> !llvm.ptr, !llvm.array<4 x ptr>
  // CHECK-NEXT: llvm.store %[[X_SLOT]], %[[P0]] : !llvm.ptr, !llvm.ptr
  // CHECK-NEXT: %[[P1:.*]] = llvm.getelementptr %[[PARAMETERS]][0, 1]
  // CHECK-NEXT: llvm.store %[[WINDOW_SLOT]], %[[P1]] : !llvm.ptr, !llvm.ptr
  // CHECK-NEXT: %[[P2:.*]] = llvm.getelementptr %[[PARAMETERS]][0, 2]
  // CHECK-NEXT: llvm.store %[[Y_SLOT]], %[[P2]] : !llvm.ptr, !llvm.ptr
  // CHECK-NEXT: %[[P3:.*]] = llvm.getelementptr %[[PARAMETERS]][0, 3]
  // CHECK-NEXT: llvm.store %[[N_SLOT]], %[[P3]] : !llvm.ptr, !llvm.ptr
  // CHECK-NEXT: %[[STATUS:.*]] = llvm.call @fuser_launch_kernel(%[[IMAGE]], %[[NAME]], %[[FUNCTION]], %[[ONE:.*]], %[[ONE]], %[[ONE]], %[[THREADS:.*]], %[[ONE]], %[[ONE]], %[[PARAMETERS]]) : (!llvm.ptr, !llvm.ptr, !llvm.ptr, i64, i64, i64, i64, i64, i64, !llvm.ptr) -> i32
  // CHECK: %[[OK:.*]] = llvm.icmp "eq" %[[STATUS]], %{{.*}} : i32
  // CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED:.*]]
  // CHECK-NEXT: ^{{.*}}:
  // The same kernel again: the same image, name and slot.
  // CHECK-NEXT: llvm.mlir.addressof @__fuser_gpu_binary.kernels
  // CHECK-NEXT: llvm.mlir.addressof @__fuser_kernel_name.add_one
  // CHECK-NEXT: llvm.mlir.addressof @__fuser_kernel.kernels.add_one
  // CHECK: llvm.call @fuser_launch_kernel
  // Another kernel of the binary, on a stream of its own: current for the
  // launch only.
  // CHECK: llvm.mlir.addressof @__fuser_kernel.kernels.scale
  // CHECK: %[[PREVIOUS:.*]] = llvm.call @fuser_get_current_stream()
  // CHECK-NEXT: llvm.call @fuser_set_current_stream(%{{.*}}) : (!llvm.ptr) -> ()
  // CHECK: llvm.call @fuser_launch_kernel
  // CHECK: llvm.cond_br
  // CHECK-NEXT: ^{{.*}}:
  // CHECK-NEXT: llvm.call @fuser_set_current_stream(%[[PREVIOUS]]) : (!llvm.ptr) -> ()
  func.func @program(%x: memref<4x16xf32>,
                     %window: memref<16xf32, strided<[1], offset: 8>>,
                     %y: memref<4x16xf32, strided<[16, 1], offset: ?>>,
                     %n: index, %stream: !hostir.stream) {
    %c1 = arith.constant 1 : index
    %c64 = arith.constant 64 : index
    hostir.launch @kernels::@add_one blocks(%c1, %c1, %c1) threads(%c64, %c1, %c1) args(%x, %window, %y, %n : memref<4x16xf32>, memref<16xf32, strided<[1], offset: 8>>, memref<4x16xf32, strided<[16, 1], offset: ?>>, index)
    hostir.launch @kernels::@add_one blocks(%c1, %c1, %c1) threads(%c64, %c1, %c1) args(%x, %window, %y, %n : memref<4x16xf32>, memref<16xf32, strided<[1], offset: 8>>, memref<4x16xf32, strided<[16, 1], offset: ?>>, index)
    hostir.launch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c64, %c1, %c1) args(%x : memref<4x16xf32>) on %stream
    return
  }
}
