// The tensor-parallel MLP for CPU ranks: one LLVM module whose host program
// calls the runtime (buffers passed as FuserBuffer structs built from the
// memref descriptors, each call's failure a return); its gelu is the first linear's
// activation. A program with a kernel calls it directly.
// RUN: fuser-opt %fuser_src_root/examples/tp_mlp.mlir --fuser-to-hostir-pipeline=backend=mpi --fuser-cpu-to-llvm | FileCheck %s
// RUN: fuser-opt %fuser_src_root/test/fuser-compile/Inputs/programs.mlir --fuser-to-hostir-pipeline=backend=mpi --fuser-cpu-to-llvm | FileCheck %s --check-prefix=KERNEL
// KERNEL-LABEL: llvm.func @activation(
// KERNEL: llvm.call @activation_kernel_0(
// KERNEL: llvm.func @activation_kernel_0(
// CHECK-NOT: hostir.
// CHECK-NOT: func.func
// CHECK-DAG: llvm.func @fuser_rank() -> i64
// CHECK-DAG: llvm.func @fuser_team(i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64) -> !llvm.ptr
// CHECK-DAG: llvm.func @fuser_linear(!llvm.ptr, !llvm.ptr, !llvm.ptr, !llvm.ptr, i32, i32) -> i32
// CHECK-DAG: llvm.func @fuser_allreduce(!llvm.ptr, !llvm.ptr, !llvm.ptr, i32) -> !llvm.ptr
// CHECK-DAG: llvm.mlir.global internal constant @__fuser_i64_2(dense<2> : tensor<1xi64>)
// CHECK-LABEL: llvm.func @tp_mlp(
// CHECK-SAME: attributes {llvm.emit_c_interface}
// The FuserBuffer and descriptor slots sit in the entry block, before the
// first call that can fail.
// CHECK: llvm.alloca %{{.*}} x !llvm.struct<(ptr, ptr, i64, i64, ptr, ptr, i32)>
// CHECK: llvm.call @fuser_use_backend
// On entry, every argument's sizes are checked against the compiled shape
// (the local pieces: x [8, 64], w1 [128, 64], w2 [64, 128]).
// CHECK: llvm.mlir.addressof @__fuser_program_tp_mlp
// CHECK: %[[W1:.*]] = llvm.mlir.addressof @__fuser_i64_128_64
// CHECK: %[[CHECKED:.*]] = llvm.call @fuser_check_argument_shape(%{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %[[W1]])
// CHECK: %[[OK:.*]] = llvm.icmp "eq" %[[CHECKED]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED:.*]]
// CHECK: %[[X:.*]] = llvm.call @fuser_allocate
// CHECK: llvm.icmp "ne" %[[X]]
// The first linear, not accumulating, with gelu (tanh) as its activation.
// CHECK: %[[GELU:.*]] = llvm.mlir.constant(1 : i32) : i32
// CHECK-NEXT: %[[STATUS:.*]] = llvm.call @fuser_linear({{.*}}, %[[GELU]])
// CHECK: %[[OK:.*]] = llvm.icmp "eq" %[[STATUS]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED:.*]]
// CHECK: %[[TEAM:.*]] = llvm.call @fuser_team(
// CHECK: llvm.icmp "ne" %[[TEAM]]
// CHECK: %[[WORK:.*]] = llvm.call @fuser_allreduce(%[[TEAM]], %{{.*}}, %{{.*}}, %{{.*}})
// CHECK: %[[WAITED:.*]] = llvm.call @fuser_wait(%[[WORK]])
// CHECK: %[[OK:.*]] = llvm.icmp "eq" %[[WAITED]], %{{.*}} : i32
// CHECK-NEXT: llvm.cond_br %[[OK]], ^{{.*}}, ^[[FAILED:.*]]
// Any failure ends the program: it notes the failure and returns null
// results, which its caller does not read (fuser_take_failure says why).
// CHECK: ^[[FAILED]]:
// CHECK-NEXT: llvm.call @fuser_note_failure()
// CHECK-NEXT: %[[NULL:.*]] = llvm.mlir.zero : !llvm.struct<(ptr, ptr, i64, array<2 x i64>, array<2 x i64>)>
// CHECK-NEXT: llvm.return %[[NULL]]
// CHECK-NOT: @fuser_check(
// CHECK-NOT: @fuser_checked(
// CHECK: llvm.func @_mlir_ciface_tp_mlp(
// The packed entry point loads each of the C entry point's arguments from
// the array it is given.
// CHECK-LABEL: llvm.func @_mlir_tp_mlp(
// CHECK-SAME: %[[ARGUMENTS:.*]]: !llvm.ptr)
// CHECK: %[[SLOT0:.*]] = llvm.getelementptr %[[ARGUMENTS]][0]
// CHECK: %[[ADDRESS0:.*]] = llvm.load %[[SLOT0]] : !llvm.ptr -> !llvm.ptr
// CHECK: %[[RESULTS:.*]] = llvm.load %[[ADDRESS0]] : !llvm.ptr -> !llvm.ptr
// CHECK: llvm.call @_mlir_ciface_tp_mlp(%[[RESULTS]],
// CHECK-NEXT: llvm.return
// CHECK-NOT: @kernels
