// The schedule fuser-choose-gpu-kernel-schedules records on each kernel of
// linalg on tensors; nothing else changes. The known chips share one
// description, and no schedule depends on the multiprocessor count.
// RUN: fuser-opt %s --fuser-choose-gpu-kernel-schedules | FileCheck %s
// RUN: fuser-opt %s --fuser-choose-gpu-kernel-schedules=chip=sm_80 | FileCheck %s

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#col = affine_map<(d0, d1) -> (d1)>

module @program {
  module @kernels {
    // x - max(x) over rows of 512 bf16: 64 lane groups of 8, a warp per
    // row, four rows to a block.
    // CHECK-LABEL: func.func @warp_rows
    // CHECK-SAME: fuser.gpu_schedule = #fuser.gpu_schedule<rows, blocks = 16, threads = 128, vector_width = 8, rows_per_block = 4>
    // CHECK-NEXT: bufferization.to_tensor
    func.func @warp_rows(%in: memref<64x512xbf16>, %out: memref<64x512xbf16>) {
      %x = bufferization.to_tensor %in restrict : memref<64x512xbf16> to tensor<64x512xbf16>
      %lowest = arith.constant 0xFF800000 : f32
      %e = tensor.empty() : tensor<64xf32>
      %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<64xf32>) -> tensor<64xf32>
      %max = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<64x512xbf16>) outs(%init : tensor<64xf32>) {
      ^bb0(%v: bf16, %acc: f32):
        %w = arith.extf %v : bf16 to f32
        %m = arith.maximumf %acc, %w : f32
        linalg.yield %m : f32
      } -> tensor<64xf32>
      %e2 = tensor.empty() : tensor<64x512xbf16>
      %d = linalg.generic {indexing_maps = [#id2, #row, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<64x512xbf16>, tensor<64xf32>) outs(%e2 : tensor<64x512xbf16>) {
      ^bb0(%v: bf16, %m: f32, %o: bf16):
        %w = arith.extf %v : bf16 to f32
        %s = arith.subf %w, %m : f32
        %t = arith.truncf %s : f32 to bf16
        linalg.yield %t : bf16
      } -> tensor<64x512xbf16>
      bufferization.materialize_in_destination %d in restrict writable %out : (tensor<64x512xbf16>, memref<64x512xbf16>) -> ()
      return
    }

    // Row sums of 8192 f32: 2048 groups of 4 take a block of 1024 threads
    // (two groups each), a block per row.
    // CHECK-LABEL: func.func @block_rows
    // CHECK-SAME: #fuser.gpu_schedule<rows, blocks = 8, threads = 1024, vector_width = 4>
    func.func @block_rows(%in: memref<8x8192xf32>, %out: memref<8xf32>) {
      %x = bufferization.to_tensor %in restrict : memref<8x8192xf32> to tensor<8x8192xf32>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<8xf32>
      %init = linalg.fill ins(%zero : f32) outs(%e : tensor<8xf32>) -> tensor<8xf32>
      %sum = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<8x8192xf32>) outs(%init : tensor<8xf32>) {
      ^bb0(%v: f32, %acc: f32):
        %s = arith.addf %acc, %v : f32
        linalg.yield %s : f32
      } -> tensor<8xf32>
      bufferization.materialize_in_destination %sum in restrict writable %out : (tensor<8xf32>, memref<8xf32>) -> ()
      return
    }

    // A bias gradient: sums over 2048 rows of 1024 bf16 columns, 32
    // slices of 8 threads, a block per 64 columns.
    // CHECK-LABEL: func.func @column_sums
    // CHECK-SAME: #fuser.gpu_schedule<outer_reduction, blocks = 128, threads = 256, vector_width = 8, slices = 32>
    func.func @column_sums(%in: memref<2048x1024xbf16>, %out: memref<1024xf32>) {
      %x = bufferization.to_tensor %in restrict : memref<2048x1024xbf16> to tensor<2048x1024xbf16>
      %zero = arith.constant 0.0 : f32
      %e = tensor.empty() : tensor<1024xf32>
      %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1024xf32>) -> tensor<1024xf32>
      %sum = linalg.generic {indexing_maps = [#id2, #col], iterator_types = ["reduction", "parallel"]} ins(%x : tensor<2048x1024xbf16>) outs(%init : tensor<1024xf32>) {
      ^bb0(%v: bf16, %acc: f32):
        %w = arith.extf %v : bf16 to f32
        %s = arith.addf %acc, %w : f32
        linalg.yield %s : f32
      } -> tensor<1024xf32>
      bufferization.materialize_in_destination %sum in restrict writable %out : (tensor<1024xf32>, memref<1024xf32>) -> ()
      return
    }

    // A transposing copy into a row-major output: the input is read
    // fastest along the output's dim 0. 3 x 2 tiles of 32 x 32.
    // CHECK-LABEL: func.func @transpose
    // CHECK-SAME: #fuser.gpu_schedule<transpose, blocks = 6, threads = 256, vector_width = 1, load_dim = 0, store_dim = 1>
    func.func @transpose(%in: memref<64x96xf32>, %out: memref<96x64xf32>) {
      %x = bufferization.to_tensor %in restrict : memref<64x96xf32> to tensor<64x96xf32>
      %e = tensor.empty() : tensor<96x64xf32>
      %t = linalg.transpose ins(%x : tensor<64x96xf32>) outs(%e : tensor<96x64xf32>) permutation = [1, 0]
      bufferization.materialize_in_destination %t in restrict writable %out : (tensor<96x64xf32>, memref<96x64xf32>) -> ()
      return
    }

    // A copy between buffers of one layout moves no tile: four lanes
    // along the fastest dim (0) of both.
    // CHECK-LABEL: func.func @strided_copy
    // CHECK-SAME: #fuser.gpu_schedule<pointwise, blocks = 6, threads = 256, vector_width = 4>
    func.func @strided_copy(%in: memref<96x64xf32, strided<[1, 96]>>, %out: memref<96x64xf32, strided<[1, 96]>>) {
      %x = bufferization.to_tensor %in restrict : memref<96x64xf32, strided<[1, 96]>> to tensor<96x64xf32>
      bufferization.materialize_in_destination %x in restrict writable %out : (tensor<96x64xf32>, memref<96x64xf32, strided<[1, 96]>>) -> ()
      return
    }

    // 1 GiB of f32 added: 2^26 groups of four, a thread each in 262144
    // blocks of 256.
    // CHECK-LABEL: func.func @add
    // CHECK-SAME: #fuser.gpu_schedule<pointwise, blocks = 262144, threads = 256, vector_width = 4>
    func.func @add(%a: memref<4096x65536xf32>, %b: memref<4096x65536xf32>, %out: memref<4096x65536xf32>) {
      %x = bufferization.to_tensor %a restrict : memref<4096x65536xf32> to tensor<4096x65536xf32>
      %y = bufferization.to_tensor %b restrict : memref<4096x65536xf32> to tensor<4096x65536xf32>
      %e = tensor.empty() : tensor<4096x65536xf32>
      %s = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]} ins(%x, %y : tensor<4096x65536xf32>, tensor<4096x65536xf32>) outs(%e : tensor<4096x65536xf32>) {
      ^bb0(%v: f32, %w: f32, %o: f32):
        %r = arith.addf %v, %w : f32
        linalg.yield %r : f32
      } -> tensor<4096x65536xf32>
      bufferization.materialize_in_destination %s in restrict writable %out : (tensor<4096x65536xf32>, memref<4096x65536xf32>) -> ()
      return
    }
  }
}
