// Annotated programs through the whole named pipeline to host programs.
// RUN: fuser-opt %s -split-input-file --fuser-to-hostir-pipeline -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s -split-input-file --fuser-to-hostir-pipeline='backend=mpi' | FileCheck %s --check-prefix=MPI
// RUN: fuser-opt %s -split-input-file --fuser-to-hostir-pipeline='cache-allocations=true' | FileCheck %s --check-prefix=CACHE
// RUN: fuser-opt %s -split-input-file --fuser-to-hostir-pipeline | FileCheck %s --check-prefix=FREE

// Tensor parallel: linear, kernel, linear, one allreduce, on local buffers.
// CHECK-LABEL: func.func @tp_mlp(%{{.*}}: memref<8x64xf32>, %{{.*}}: memref<128x64xf32>, %{{.*}}: memref<64x128xf32>) -> memref<8x64xf32>
// CHECK: hostir.linear
// CHECK: hostir.launch @kernels::@tp_mlp_kernel_0
// CHECK: hostir.linear
// CHECK: hostir.allreduce {{.*}} backend = nccl kind = sum
// CHECK: hostir.wait
// CHECK-NOT: hostir.allreduce
// CHECK: module @kernels
// CHECK: fuser.gelu {{.*}} : tensor<8x128xf32> -> tensor<8x128xf32>
// MPI: hostir.allreduce {{.*}} backend = mpi
// Every intermediate is freed; the returned buffer is the caller's.
// FREE-LABEL: func.func @tp_mlp
// FREE-COUNT-3: hostir.deallocate
// FREE-NOT: hostir.deallocate
// FREE: return
// Intermediates persist across executions; the returned buffer does not.
// The first linear's output is dead once gelu has read it: the second's
// takes its turn in the same bytes.
// CACHE: hostir.cached_buffer @[[TURNS:.*]] device storage : memref<4096xi8>
// CACHE: hostir.cached_buffer @{{.*}} device : memref<8x128xf32>
// CACHE-NOT: hostir.cached_buffer
// CACHE-LABEL: func.func @tp_mlp
// CACHE: hostir.get_cached_buffer @[[TURNS]] : memref<8x128xf32>
// CACHE: hostir.get_cached_buffer @[[TURNS]] : memref<8x64xf32>
// CACHE-NOT: hostir.deallocate
// CACHE: %[[OUT:.*]] = hostir.allocate device : memref<8x64xf32>
// CACHE: return %[[OUT]]
#mesh = #fuser.mesh<[2]>
func.func @tp_mlp(%x: tensor<8x64xf32>,
                  %w1: tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>,
                  %w2: tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x64xf32> {
  %h = fuser.linear %x, %w1 : (tensor<8x64xf32>, tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x256xf32>
  %a = fuser.gelu %h : tensor<8x256xf32> -> tensor<8x256xf32>
  %y = fuser.linear %a, %w2 : (tensor<8x256xf32>, tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x64xf32>
  return %y : tensor<8x64xf32>
}

// -----

// Sequence parallel: allgather before, reduce_scatter after, the residual add
// in a kernel on the rank's sequence block.
// CHECK-LABEL: func.func @sp_mlp(%{{.*}}: memref<4x64xf32>
// CHECK: hostir.allgather {{.*}} : memref<4x64xf32>, memref<8x64xf32>, !hostir.team<2>
// CHECK: hostir.linear
// CHECK: hostir.launch @kernels::@sp_mlp_kernel_0
// CHECK: hostir.linear
// CHECK: hostir.reduce_scatter {{.*}} : memref<8x64xf32>, memref<4x64xf32>, !hostir.team<2>
// CHECK: hostir.launch @kernels::@sp_mlp_kernel_1
// CHECK: module @kernels
// CHECK: func.func @sp_mlp_kernel_1
// CHECK: fuser.add {{.*}} : (tensor<4x64xf32>, tensor<4x64xf32>) -> tensor<4x64xf32>
#mesh = #fuser.mesh<[2]>
func.func @sp_mlp(%x: tensor<8x64xf32, #fuser.sharding<#mesh, [[0], []]>>,
                  %w1: tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>,
                  %w2: tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x64xf32> {
  %h = fuser.linear %x, %w1 : (tensor<8x64xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<256x64xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x256xf32>
  %a = fuser.gelu %h : tensor<8x256xf32> -> tensor<8x256xf32>
  %y = fuser.linear %a, %w2 : (tensor<8x256xf32>, tensor<64x256xf32, #fuser.sharding<#mesh, [[], [0]]>>) -> tensor<8x64xf32>
  %r = fuser.add %y, %x : (tensor<8x64xf32>, tensor<8x64xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x64xf32>
  return %r : tensor<8x64xf32>
}
