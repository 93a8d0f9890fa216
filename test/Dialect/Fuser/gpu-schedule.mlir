// #fuser.gpu_schedule prints as it parses, in the custom and generic forms;
// defaulted parameters (rows_per_block, slices) print only when not 1.
// RUN: fuser-opt %s | FileCheck %s
// RUN: fuser-opt %s | fuser-opt | FileCheck %s
// RUN: fuser-opt %s -mlir-print-op-generic | fuser-opt | FileCheck %s

// CHECK-LABEL: func.func private @rows
// CHECK-SAME: fuser.gpu_schedule = #fuser.gpu_schedule<rows, blocks = 512, threads = 128, vector_width = 8, rows_per_block = 4>
func.func private @rows() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<rows, blocks = 512, threads = 128, vector_width = 8, rows_per_block = 4>}

// CHECK-LABEL: func.func private @block_rows
// CHECK-SAME: #fuser.gpu_schedule<rows, blocks = 2048, threads = 256, vector_width = 8>
func.func private @block_rows() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<rows, blocks = 2048, threads = 256, vector_width = 8, rows_per_block = 1>}

// CHECK-LABEL: func.func private @outer
// CHECK-SAME: #fuser.gpu_schedule<outer_reduction, blocks = 768, threads = 256, vector_width = 8, slices = 32>
func.func private @outer() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<outer_reduction, blocks = 768, threads = 256, vector_width = 8, slices = 32>}

// CHECK-LABEL: func.func private @transpose
// CHECK-SAME: #fuser.gpu_schedule<transpose, blocks = 64, threads = 256, vector_width = 1, load_dim = 0, store_dim = 1>
func.func private @transpose() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<transpose, blocks = 64, threads = 256, vector_width = 1, load_dim = 0, store_dim = 1>}

// CHECK-LABEL: func.func private @pointwise
// CHECK-SAME: #fuser.gpu_schedule<pointwise, blocks = 2112, threads = 256, vector_width = 4>
func.func private @pointwise() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<pointwise, blocks = 2112, threads = 256, vector_width = 4>}

// CHECK-LABEL: func.func private @pointwise_steps
// CHECK-SAME: #fuser.gpu_schedule<pointwise, blocks = 2112, threads = 256, vector_width = 8, groups_per_step = 4>
func.func private @pointwise_steps() attributes {fuser.gpu_schedule = #fuser.gpu_schedule<pointwise, blocks = 2112, threads = 256, vector_width = 8, groups_per_step = 4>}
