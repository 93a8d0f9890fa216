// How each kind of kernel is scheduled and emitted, from fuser ops through the host pipeline.
// RUN: fuser-opt %s --split-input-file --fuser-to-hostir-pipeline --convert-fuser-to-linalg --fuser-copies-to-kernels --fuser-choose-gpu-kernel-schedules --fuser-emit-gpu-kernels | FileCheck %s

// Pointwise, bf16: a grid-stride loop, eight bf16 (16 bytes) per thread
// and access, computed in f32, behind a run-time alignment check.
#mesh = #fuser.mesh<[1]>
#rep = #fuser.sharding<#mesh, [[], []]>
#rep1 = #fuser.sharding<#mesh, [[]]>
func.func @bias_gelu(%x: tensor<64x1024xbf16, #rep>, %b: tensor<1024xbf16, #rep1>) -> tensor<64x1024xbf16, #rep> {
  %bb = fuser.broadcast %b dims = [1] : tensor<1024xbf16, #rep1> -> tensor<64x1024xbf16, #rep>
  %s = fuser.add %x, %bb : (tensor<64x1024xbf16, #rep>, tensor<64x1024xbf16, #rep>) -> tensor<64x1024xbf16, #rep>
  %y = fuser.gelu %s approximation = tanh : tensor<64x1024xbf16, #rep> -> tensor<64x1024xbf16, #rep>
  return %y : tensor<64x1024xbf16, #rep>
}
// CHECK-LABEL: func.func @bias_gelu
// CHECK: hostir.launch @kernels::@bias_gelu_kernel_0 blocks(%[[B:.*]], %{{.*}}, %{{.*}}) threads(%[[T:.*]], %{{.*}}, %{{.*}})
// The broadcast bias is a view whose row stride (0) the launch passes.
// CHECK-LABEL: gpu.func @bias_gelu_kernel_0
// CHECK-SAME: (%{{.*}}: memref<64x1024xbf16>, %[[BIAS:.*]]: memref<1xbf16>, %{{.*}}: memref<64x1024xbf16>, %[[STRIDE:.*]]: index)
// CHECK-SAME: kernel attributes {known_block_size = array<i32: 256, 1, 1>}
// CHECK: %[[VIEW:.*]] = memref.reinterpret_cast %[[BIAS]] to offset: [0], sizes: [64, 1024], strides: [%[[STRIDE]], 1]
// CHECK: memref.extract_aligned_pointer_as_index
// The bias is read as vectors too where its row stride is whole vectors
// (0, broadcast) at run time.
// CHECK: %{{.*}}, %{{.*}}, %{{.*}}:2, %[[STRIDES:.*]]:2 = memref.extract_strided_metadata %[[VIEW]]
// CHECK: arith.remui %[[STRIDES]]#0, %c8
// CHECK: scf.if
// CHECK: scf.for
// CHECK: vector.transfer_read %{{.*}}, %{{.*}} {in_bounds = [true]} : memref<64x1024xbf16>, vector<8xbf16>
// CHECK: vector.transfer_read %[[VIEW]][{{.*}}], %{{.*}} {in_bounds = [true]} : memref<64x1024xbf16, strided<[?, 1]>>, vector<8xbf16>
// CHECK: arith.extf %{{.*}} : bf16 to f32
// gelu's tanh form as x / (1 + exp(-2u)).
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: vector.transfer_write %{{.*}} {in_bounds = [true]} : vector<8xbf16>, memref<64x1024xbf16>
// CHECK: } else {
// CHECK: scf.for
// CHECK: memref.load %{{.*}} : memref<64x1024xbf16>

// -----

// Softmax over rows of 4096 bf16: a block per row (4096 / 8 = 512 lane
// groups, 256 threads each owning 2), the row held in registers between
// the two block reductions. Each reduction shuffles within the warps, and
// the warps' values meet in shared memory of its own behind one barrier.
#mesh = #fuser.mesh<[1]>
#rep = #fuser.sharding<#mesh, [[], []]>
func.func @softmax(%x: tensor<16x4096xbf16, #rep>) -> tensor<16x4096xbf16, #rep> {
  %mx = fuser.max %x dims = [1] keepdim : tensor<16x4096xbf16, #rep> -> tensor<16x1xbf16, #rep>
  %mxb = fuser.expand %mx : tensor<16x1xbf16, #rep> -> tensor<16x4096xbf16, #rep>
  %d = fuser.sub %x, %mxb : (tensor<16x4096xbf16, #rep>, tensor<16x4096xbf16, #rep>) -> tensor<16x4096xbf16, #rep>
  %e = fuser.exp %d : tensor<16x4096xbf16, #rep> -> tensor<16x4096xbf16, #rep>
  %s = fuser.sum %e dims = [1] keepdim : tensor<16x4096xbf16, #rep> -> tensor<16x1xbf16, #rep>
  %sb = fuser.expand %s : tensor<16x1xbf16, #rep> -> tensor<16x4096xbf16, #rep>
  %y = fuser.div %e, %sb : (tensor<16x4096xbf16, #rep>, tensor<16x4096xbf16, #rep>) -> tensor<16x4096xbf16, #rep>
  return %y : tensor<16x4096xbf16, #rep>
}
// CHECK-LABEL: func.func @softmax
// CHECK: %[[ROWS:.*]] = arith.constant 16 : index
// CHECK: %[[THREADS:.*]] = arith.constant 256 : index
// CHECK: hostir.launch @kernels::@softmax_kernel_0 blocks(%[[ROWS]], %{{.*}}, %{{.*}}) threads(%[[THREADS]], %{{.*}}, %{{.*}})
// CHECK-LABEL: gpu.func @softmax_kernel_0
// CHECK-SAME: workgroup(%[[MAXES:[^ ]*]] : memref<8xf32, #gpu.address_space<workgroup>>, %[[SUMS:[^ ]*]] : memref<8xf32, #gpu.address_space<workgroup>>,
// CHECK-SAME: known_block_size = array<i32: 256, 1, 1>
// CHECK: scf.if
// CHECK-COUNT-2: vector.transfer_read %{{.*}} : memref<16x4096xbf16>, vector<8xbf16>
// CHECK-NOT: vector.transfer_read
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.store %{{.*}}, %[[MAXES]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-8: memref.load %[[MAXES]]
// CHECK-NOT: gpu.barrier
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: memref.store %{{.*}}, %[[SUMS]]
// CHECK-NEXT: }
// CHECK-NEXT: gpu.barrier
// CHECK-COUNT-8: memref.load %[[SUMS]]
// CHECK-NOT: gpu.barrier
// CHECK-NOT: vector.transfer_read
// CHECK-COUNT-2: vector.transfer_write %{{.*}} : vector<8xbf16>, memref<16x4096xbf16>
// CHECK: } else {

// -----

// Layer norm statistics over short rows (64 f32): one warp per row, warp
// shuffles, four rows per block; the per-row outputs stored by the first
// thread of each row.
#mesh = #fuser.mesh<[1]>
#rep = #fuser.sharding<#mesh, [[], []]>
func.func @var_mean(%x: tensor<32x64xf32, #rep>) -> (tensor<32x1xf32, #rep>, tensor<32x1xf32, #rep>) {
  %v, %m = fuser.var_mean %x dims = [1] keepdim {correction = 0 : i64} : tensor<32x64xf32, #rep> -> tensor<32x1xf32, #rep>, tensor<32x1xf32, #rep>
  return %v, %m : tensor<32x1xf32, #rep>, tensor<32x1xf32, #rep>
}
// CHECK-LABEL: func.func @var_mean
// CHECK: %[[BLOCKS:.*]] = arith.constant 8 : index
// CHECK: hostir.launch @kernels::@var_mean_kernel_0 blocks(%[[BLOCKS]]
// CHECK-LABEL: gpu.func @var_mean_kernel_0
// CHECK-SAME: known_block_size = array<i32: 128, 1, 1>
// CHECK: vector.transfer_read %{{.*}} : memref<32x64xf32>, vector<4xf32>
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK-COUNT-5: gpu.shuffle  xor
// CHECK: arith.cmpi eq
// CHECK: scf.if
// CHECK: memref.store

// -----

// A transpose: the output keeps %x's column-major layout (the layout
// pass's choice), %y is row-major, so one of the two reads would stride.
// Computed through a padded 32x32 shared-memory tile.
#mesh = #fuser.mesh<[1]>
#rep = #fuser.sharding<#mesh, [[], []]>
func.func @transpose(%x: tensor<64x96xf32, #rep>, %y: tensor<96x64xf32, #rep>) -> tensor<96x64xf32, #rep> {
  %t = fuser.permute %x perm = [1, 0] : tensor<64x96xf32, #rep> -> tensor<96x64xf32, #rep>
  %e = fuser.exp %t : tensor<96x64xf32, #rep> -> tensor<96x64xf32, #rep>
  %s = fuser.add %e, %y : (tensor<96x64xf32, #rep>, tensor<96x64xf32, #rep>) -> tensor<96x64xf32, #rep>
  return %s : tensor<96x64xf32, #rep>
}
// CHECK-LABEL: func.func @transpose
// CHECK: %[[TILES:.*]] = arith.constant 6 : index
// CHECK: hostir.launch @kernels::@transpose_kernel_0 blocks(%[[TILES]]
// CHECK-LABEL: gpu.func @transpose_kernel_0
// CHECK-SAME: workgroup(%[[TILE:.*]] : memref<32x33xf32, #gpu.address_space<workgroup>>)
// CHECK-COUNT-4: memref.store %{{.*}}, %[[TILE]]
// CHECK: gpu.barrier
// CHECK-COUNT-4: memref.load %[[TILE]]

// -----

// Sums over the leading dim: a thread per four consecutive columns folds
// them down the rows in a loop, loads coalesced across the warp.
#mesh = #fuser.mesh<[1]>
#rep = #fuser.sharding<#mesh, [[], []]>
#rep1 = #fuser.sharding<#mesh, [[]]>
func.func @column_sums(%x: tensor<96x256xf32, #rep>) -> tensor<256xf32, #rep1> {
  %s = fuser.sum %x dims = [0] : tensor<96x256xf32, #rep> -> tensor<256xf32, #rep1>
  return %s : tensor<256xf32, #rep1>
}
// CHECK-LABEL: gpu.func @column_sums_kernel_0
// CHECK: scf.if
// CHECK: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (f32, f32, f32, f32)
// CHECK: vector.transfer_read %{{.*}} : memref<96x256xf32>, vector<4xf32>
// CHECK: vector.transfer_write %{{.*}} : vector<4xf32>, memref<256xf32>

// -----

// Attention's output [b, h, s, d] laid out as the out-projection reads it,
// [b, s, h*d]: a copy whose merged dim keeps the head dim fastest, so each
// thread's eight lanes are consecutive elements of one head on both sides,
// read and written as 16-byte vectors.
#mesh = #fuser.mesh<[1]>
#r4 = #fuser.sharding<#mesh, [[], [], [], []]>
#r3 = #fuser.sharding<#mesh, [[], [], []]>
func.func @heads_merged(%out: tensor<1x4x16x64xbf16, #r4>) -> tensor<1x16x256xbf16, #r3> {
  %p = fuser.permute %out perm = [0, 2, 1, 3] : tensor<1x4x16x64xbf16, #r4> -> tensor<1x16x4x64xbf16, #r4>
  %m = fuser.reshape %p : tensor<1x16x4x64xbf16, #r4> -> tensor<1x16x256xbf16, #r3>
  return %m : tensor<1x16x256xbf16, #r3>
}
// CHECK-LABEL: gpu.func @heads_merged_kernel_0
// CHECK-SAME: (%[[IN:.*]]: memref<1x16x4x64xbf16, strided<[4096, 64, 1024, 1]>>, %[[OUT:.*]]: memref<1x16x256xbf16>)
// CHECK: vector.transfer_read %[[IN]][{{.*}}], %{{.*}} {in_bounds = [true]} : memref<1x16x4x64xbf16, strided<[4096, 64, 1024, 1]>>, vector<8xbf16>
// CHECK: vector.transfer_write %{{.*}}, %[[OUT]][{{.*}}] {in_bounds = [true]} : vector<8xbf16>, memref<1x16x256xbf16>
