// Every diagnostic fuser-emit-gpu-kernels gives before emitting anything:
// a kernel without a schedule, and schedules that do not fit their kernel.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics --fuser-emit-gpu-kernels
// A chip without a description is refused.
// RUN: not fuser-opt %s -split-input-file --fuser-emit-gpu-kernels=chip=sm_91 2>&1 | FileCheck %s --check-prefix=CHIP
// CHIP: error: no GPU description of chip 'sm_91' (known: sm_70, sm_75, sm_80, sm_86, sm_89, sm_90, sm_90a, sm_100, sm_100a, sm_120, sm_120a)

module @program {
  module @kernels {
    // expected-error @+1 {{kernel @copy has no #fuser.gpu_schedule (fuser-choose-gpu-kernel-schedules chooses one)}}
    func.func @copy(%in: memref<64x256xf32>, %out: memref<64x256xf32>) {
      %x = bufferization.to_tensor %in restrict : memref<64x256xf32> to tensor<64x256xf32>
      bufferization.materialize_in_destination %x in restrict writable %out : (tensor<64x256xf32>, memref<64x256xf32>) -> ()
      return
    }
  }
}

// -----

module @program {
  module @kernels {
    // expected-error @+1 {{does not fit kernel @copy: its reductions do not all fold one row read only at the row its readers compute}}
    func.func @copy(%in: memref<64x256xf32>, %out: memref<64x256xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<rows, blocks = 16, threads = 128, vector_width = 4, rows_per_block = 4>} {
      %x = bufferization.to_tensor %in restrict : memref<64x256xf32> to tensor<64x256xf32>
      bufferization.materialize_in_destination %x in restrict writable %out : (tensor<64x256xf32>, memref<64x256xf32>) -> ()
      return
    }
  }
}

// -----

module @program {
  module @kernels {
    // expected-error @+1 {{does not fit kernel @copy: its buffers allow at most 4 lanes of 16 bytes}}
    func.func @copy(%in: memref<64x256xf32>, %out: memref<64x256xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<pointwise, blocks = 16, threads = 128, vector_width = 8>} {
      %x = bufferization.to_tensor %in restrict : memref<64x256xf32> to tensor<64x256xf32>
      bufferization.materialize_in_destination %x in restrict writable %out : (tensor<64x256xf32>, memref<64x256xf32>) -> ()
      return
    }
  }
}

// -----

module @program {
  module @kernels {
    // expected-error @+1 {{does not fit kernel @copy: a transpose computes outputs of one layout and no reduction}}
    func.func @copy(%in: memref<64x256xf32>, %out: memref<64x256xf32>, %out2: memref<256x64xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<transpose, blocks = 16, threads = 256, vector_width = 1, load_dim = 0, store_dim = 1>} {
      %x = bufferization.to_tensor %in restrict : memref<64x256xf32> to tensor<64x256xf32>
      bufferization.materialize_in_destination %x in restrict writable %out : (tensor<64x256xf32>, memref<64x256xf32>) -> ()
      %e = tensor.empty() : tensor<256x64xf32>
      %t = linalg.transpose ins(%x : tensor<64x256xf32>) outs(%e : tensor<256x64xf32>) permutation = [1, 0]
      bufferization.materialize_in_destination %t in restrict writable %out2 : (tensor<256x64xf32>, memref<256x64xf32>) -> ()
      return
    }
  }
}

// -----

module @program {
  module @kernels {
    // expected-error @+1 {{does not fit kernel @transpose: its tiles need 16 blocks}}
    func.func @transpose(%in: memref<128x128xf32>, %out: memref<128x128xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<transpose, blocks = 8, threads = 256, vector_width = 1, load_dim = 0, store_dim = 1>} {
      %x = bufferization.to_tensor %in restrict : memref<128x128xf32> to tensor<128x128xf32>
      %e = tensor.empty() : tensor<128x128xf32>
      %t = linalg.transpose ins(%x : tensor<128x128xf32>) outs(%e : tensor<128x128xf32>) permutation = [1, 0]
      bufferization.materialize_in_destination %t in restrict writable %out : (tensor<128x128xf32>, memref<128x128xf32>) -> ()
      return
    }
  }
}

// -----

module @program {
  module @kernels {
    // expected-error @+1 {{does not fit kernel @transpose: its outputs have 2 dims}}
    func.func @transpose(%in: memref<128x128xf32>, %out: memref<128x128xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<transpose, blocks = 16, threads = 256, vector_width = 1, load_dim = 0, store_dim = 2>} {
      %x = bufferization.to_tensor %in restrict : memref<128x128xf32> to tensor<128x128xf32>
      %e = tensor.empty() : tensor<128x128xf32>
      %t = linalg.transpose ins(%x : tensor<128x128xf32>) outs(%e : tensor<128x128xf32>) permutation = [1, 0]
      bufferization.materialize_in_destination %t in restrict writable %out : (tensor<128x128xf32>, memref<128x128xf32>) -> ()
      return
    }
  }
}

// -----

module @program {
  module @kernels {
    // expected-error @+1 {{does not fit kernel @transpose: a tile of 32 rows is not whole steps of 3 rows}}
    func.func @transpose(%in: memref<128x128xf32>, %out: memref<128x128xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<transpose, blocks = 16, threads = 96, vector_width = 1, load_dim = 0, store_dim = 1>} {
      %x = bufferization.to_tensor %in restrict : memref<128x128xf32> to tensor<128x128xf32>
      %e = tensor.empty() : tensor<128x128xf32>
      %t = linalg.transpose ins(%x : tensor<128x128xf32>) outs(%e : tensor<128x128xf32>) permutation = [1, 0]
      bufferization.materialize_in_destination %t in restrict writable %out : (tensor<128x128xf32>, memref<128x128xf32>) -> ()
      return
    }
  }
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
module @program {
  module @kernels {
    // expected-error @+1 {{does not fit kernel @row_sums: 64 rows need 64 blocks}}
    func.func @row_sums(%in: memref<64x8192xf32>, %out: memref<64xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<rows, blocks = 32, threads = 512, vector_width = 4>} {
      %x = bufferization.to_tensor %in restrict : memref<64x8192xf32> to tensor<64x8192xf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<64xf32>
      %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
      %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x8192xf32>) outs(%init : tensor<64xf32>) {
      ^bb0(%v: f32, %acc: f32):
        %s = arith.addf %acc, %v : f32
        linalg.yield %s : f32
      } -> tensor<64xf32>
      bufferization.materialize_in_destination %sum in restrict writable %out : (tensor<64xf32>, memref<64xf32>) -> ()
      return
    }

    // expected-error @+1 {{does not fit kernel @short_row_sums: rows of 1002 elements are not whole groups of 4 lanes}}
    func.func @short_row_sums(%in: memref<64x1002xf32>, %out: memref<64xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<rows, blocks = 16, threads = 128, vector_width = 4, rows_per_block = 4>} {
      %x = bufferization.to_tensor %in restrict : memref<64x1002xf32> to tensor<64x1002xf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<64xf32>
      %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
      %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x1002xf32>) outs(%init : tensor<64xf32>) {
      ^bb0(%v: f32, %acc: f32):
        %s = arith.addf %acc, %v : f32
        linalg.yield %s : f32
      } -> tensor<64xf32>
      bufferization.materialize_in_destination %sum in restrict writable %out : (tensor<64xf32>, memref<64xf32>) -> ()
      return
    }
  }
}

// -----

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>
module @program {
  module @kernels {
    // expected-error @+1 {{does not fit kernel @long_rows: each thread would keep more than 64 elements of a row in registers}}
    func.func @long_rows(%in: memref<2x131072xf32>, %out: memref<2xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<rows, blocks = 2, threads = 1024, vector_width = 4>} {
      %x = bufferization.to_tensor %in restrict : memref<2x131072xf32> to tensor<2x131072xf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<2xf32>
      %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2xf32>) -> tensor<2xf32>
      %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<2x131072xf32>) outs(%init : tensor<2xf32>) {
      ^bb0(%v: f32, %acc: f32):
        %s = arith.addf %acc, %v : f32
        linalg.yield %s : f32
      } -> tensor<2xf32>
      bufferization.materialize_in_destination %sum in restrict writable %out : (tensor<2xf32>, memref<2xf32>) -> ()
      return
    }

    // expected-error @+1 {{does not fit kernel @column_sums: 1024 kept elements need 128 blocks}}
    func.func @column_sums(%in: memref<2048x1024xf32>, %out: memref<1024xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<outer_reduction, blocks = 64, threads = 256, vector_width = 4, slices = 32>} {
      %x = bufferization.to_tensor %in restrict : memref<2048x1024xf32> to tensor<2048x1024xf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<1024xf32>
      %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
      %sum = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<2048x1024xf32>) outs(%init : tensor<1024xf32>) {
      ^bb0(%v: f32, %acc: f32):
        %s = arith.addf %acc, %v : f32
        linalg.yield %s : f32
      } -> tensor<1024xf32>
      bufferization.materialize_in_destination %sum in restrict writable %out : (tensor<1024xf32>, memref<1024xf32>) -> ()
      return
    }

    // expected-error @+1 {{does not fit kernel @row_sums_as_columns: its reductions do not all fold the leading dims of outputs indexed by the kept ones}}
    func.func @row_sums_as_columns(%in: memref<64x256xf32>, %out: memref<64xf32>) attributes {fuser.gpu_schedule = #fuser.gpu_schedule<outer_reduction, blocks = 8, threads = 256, vector_width = 4, slices = 32>} {
      %x = bufferization.to_tensor %in restrict : memref<64x256xf32> to tensor<64x256xf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<64xf32>
      %init = linalg.fill ins(%zero : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
      %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x256xf32>) outs(%init : tensor<64xf32>) {
      ^bb0(%v: f32, %acc: f32):
        %s = arith.addf %acc, %v : f32
        linalg.yield %s : f32
      } -> tensor<64xf32>
      bufferization.materialize_in_destination %sum in restrict writable %out : (tensor<64xf32>, memref<64xf32>) -> ()
      return
    }
  }
}
