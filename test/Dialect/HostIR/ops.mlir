// Every hostir op and type, printed, reparsed and reprinted, and through the
// generic form.
// RUN: fuser-opt %s -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s | fuser-opt -mlir-print-local-scope | FileCheck %s
// RUN: fuser-opt %s -mlir-print-op-generic | fuser-opt -mlir-print-local-scope | FileCheck %s

module {
  func.func private @fused_add(memref<4x8xf32>, memref<4x8xf32>)
  gpu.module @kernels {
    gpu.func @scale(%buffer: memref<4x8xf32>) kernel {
      gpu.return
    }
  }

  // CHECK-LABEL: func.func @ranks_teams_streams
  func.func @ranks_teams_streams(%i: index) {
    // CHECK: %[[RANK:.*]] = hostir.rank : index
    %rank = hostir.rank : index
    // CHECK: %[[TEAM:.*]] = hostir.team %[[RANK]] mesh = #fuser.mesh<[2, 4]> axes = [1] : !hostir.team<4>
    %team = hostir.team %rank mesh = #fuser.mesh<[2, 4]> axes = [1] : !hostir.team<4>
    // CHECK: hostir.team %[[RANK]] mesh = #fuser.mesh<[2, 4]> axes = [0, 1] : !hostir.team<8>
    %world = hostir.team %rank mesh = #fuser.mesh<[2, 4]> axes = [0, 1] : !hostir.team<8>
    // CHECK: hostir.in_mesh %[[RANK]] mesh = #fuser.mesh<[2], devices = [2, 3]>
    %member = hostir.in_mesh %rank mesh = #fuser.mesh<[2], devices = [2, 3]>
    // CHECK: hostir.team_index %[[TEAM]] : !hostir.team<4>
    %index = hostir.team_index %team : !hostir.team<4>
    // CHECK: %[[MAIN:.*]] = hostir.get_current_stream
    %main = hostir.get_current_stream
    // CHECK: %[[WORKER:.*]] = hostir.stream_from_pool %{{.*}}
    %worker = hostir.stream_from_pool %i
    // CHECK: hostir.set_current_stream %[[WORKER]]
    hostir.set_current_stream %worker
    // CHECK: hostir.synchronize_stream %[[MAIN]]
    hostir.synchronize_stream %main
    return
  }

  // CHECK-LABEL: func.func @compute
  func.func @compute(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %w: memref<16x8xf32>,
                     %bias: memref<16xf32>, %out: memref<4x16xf32>,
                     %m: memref<8x16xf32>, %s: !hostir.stream) {
    %c1 = arith.constant 1 : index
    %c128 = arith.constant 128 : index
    // CHECK: hostir.launch @fused_add blocks(%{{.*}}, %{{.*}}, %{{.*}}) threads(%{{.*}}, %{{.*}}, %{{.*}}) args(%{{.*}}, %{{.*}} : memref<4x8xf32>, memref<4x8xf32>)
    hostir.launch @fused_add blocks(%c1, %c1, %c1) threads(%c128, %c1, %c1) args(%a, %b : memref<4x8xf32>, memref<4x8xf32>)
    // CHECK: hostir.launch @kernels::@scale blocks({{.*}}) threads({{.*}}) args(%{{.*}} : memref<4x8xf32>) on %{{.*}}
    hostir.launch @kernels::@scale blocks(%c1, %c1, %c1) threads(%c128, %c1, %c1) args(%a : memref<4x8xf32>) on %s
    // CHECK: hostir.matmul %{{.*}}, %{{.*}}, %{{.*}} : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
    hostir.matmul %a, %m, %out : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
    // CHECK: hostir.linear %{{.*}}, %{{.*}}, %{{.*}} : memref<4x8xf32>, memref<16x8xf32>, memref<4x16xf32>
    hostir.linear %a, %w, %out : memref<4x8xf32>, memref<16x8xf32>, memref<4x16xf32>
    // CHECK: hostir.linear %{{.*}}, %{{.*}} bias %{{.*}} : memref<16xf32>, %{{.*}} : memref<4x8xf32>, memref<16x8xf32>, memref<4x16xf32>
    hostir.linear %a, %w bias %bias : memref<16xf32>, %out : memref<4x8xf32>, memref<16x8xf32>, memref<4x16xf32>
    // CHECK: hostir.matmul %{{.*}}, %{{.*}}, accumulate %{{.*}} : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
    hostir.matmul %a, %m, accumulate %out : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
    // CHECK: hostir.linear %{{.*}}, %{{.*}} bias %{{.*}} : memref<16xf32>, accumulate %{{.*}} : memref<4x8xf32>, memref<16x8xf32>, memref<4x16xf32>
    hostir.linear %a, %w bias %bias : memref<16xf32>, accumulate %out : memref<4x8xf32>, memref<16x8xf32>, memref<4x16xf32>
    // CHECK: hostir.matmul %{{.*}}, %{{.*}}, %{{.*}} activation = relu : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
    hostir.matmul %a, %m, %out activation = relu : memref<4x8xf32>, memref<8x16xf32>, memref<4x16xf32>
    // CHECK: hostir.linear %{{.*}}, %{{.*}} bias %{{.*}} : memref<16xf32>, %{{.*}} activation = gelu_tanh : memref<4x8xf32>, memref<16x8xf32>, memref<4x16xf32>
    hostir.linear %a, %w bias %bias : memref<16xf32>, %out activation = gelu_tanh : memref<4x8xf32>, memref<16x8xf32>, memref<4x16xf32>
    return
  }

  // CHECK-LABEL: func.func @attention
  func.func @attention(%q: memref<1x2x64x32xbf16>, %o: memref<1x2x64x32xbf16>,
                       %lse: memref<1x2x64xf32>, %head: index) {
    %c0 = arith.constant 0 : index
    // CHECK: hostir.sdpa %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} at[%{{.*}}, %{{.*}}] causal scale = 1.250000e-01 dropout = 1.000000e-01 seed = 7 : memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64xf32>
    hostir.sdpa %q, %q, %q, %o, %lse at [%c0, %head] causal scale = 0.125 dropout = 0.1 seed = 7 : memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64xf32>
    // CHECK: hostir.sdpa_backward %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}}, %{{.*}} at[%{{.*}}, %{{.*}}] scale = 1.250000e-01 : memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64xf32>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>
    hostir.sdpa_backward %q, %q, %q, %o, %o, %lse, %o, %o, %o at [%c0, %head] scale = 0.125 : memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64xf32>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>, memref<1x2x64x32xbf16>
    return
  }

  // CHECK-LABEL: func.func @reduce_blocks
  func.func @reduce_blocks(%partials: memref<2x4x8xbf16>, %sum: memref<1x4x8xbf16>,
                           %blocks: memref<4x8xf32>, %max: memref<8xf32>) {
    // CHECK: hostir.reduce_blocks %{{.*}}, %{{.*}} kind = sum : memref<2x4x8xbf16>, memref<1x4x8xbf16>
    hostir.reduce_blocks %partials, %sum kind = sum : memref<2x4x8xbf16>, memref<1x4x8xbf16>
    // One block's elements in any shape.
    // CHECK: hostir.reduce_blocks %{{.*}}, %{{.*}} kind = max : memref<4x8xf32>, memref<8xf32>
    hostir.reduce_blocks %blocks, %max kind = max : memref<4x8xf32>, memref<8xf32>
    return
  }

  // CHECK-LABEL: func.func @collectives
  func.func @collectives(%small: memref<4xf32>, %big: memref<8xf32>,
                         %team: !hostir.team<2>) {
    // CHECK: %[[W:.*]] = hostir.allgather %{{.*}}, %{{.*}} on %{{.*}} backend = nccl : memref<4xf32>, memref<8xf32>, !hostir.team<2>
    %0 = hostir.allgather %small, %big on %team backend = nccl : memref<4xf32>, memref<8xf32>, !hostir.team<2>
    // CHECK: hostir.wait %[[W]] for %{{.*}}, %{{.*}} : memref<4xf32>, memref<8xf32>
    hostir.wait %0 for %small, %big : memref<4xf32>, memref<8xf32>
    // CHECK: hostir.allreduce %{{.*}}, %{{.*}} on %{{.*}} backend = mpi kind = sum : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    %1 = hostir.allreduce %big, %big on %team backend = mpi kind = sum : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    // CHECK: hostir.reduce_scatter %{{.*}}, %{{.*}} on %{{.*}} backend = nccl kind = max : memref<8xf32>, memref<4xf32>, !hostir.team<2>
    %2 = hostir.reduce_scatter %big, %small on %team backend = nccl kind = max : memref<8xf32>, memref<4xf32>, !hostir.team<2>
    // CHECK: hostir.reduce %{{.*}}, %{{.*}} on %{{.*}} backend = nccl kind = avg root = 1 : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    %3 = hostir.reduce %big, %big on %team backend = nccl kind = avg root = 1 : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    // CHECK: hostir.broadcast %{{.*}}, %{{.*}} on %{{.*}} backend = nccl root = 0 : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    %4 = hostir.broadcast %big, %big on %team backend = nccl root = 0 : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    // CHECK: hostir.gather %{{.*}}, %{{.*}} on %{{.*}} backend = mpi root = 1 : memref<4xf32>, memref<8xf32>, !hostir.team<2>
    %5 = hostir.gather %small, %big on %team backend = mpi root = 1 : memref<4xf32>, memref<8xf32>, !hostir.team<2>
    // CHECK: hostir.scatter %{{.*}}, %{{.*}} on %{{.*}} backend = nccl root = 0 : memref<8xf32>, memref<4xf32>, !hostir.team<2>
    %6 = hostir.scatter %big, %small on %team backend = nccl root = 0 : memref<8xf32>, memref<4xf32>, !hostir.team<2>
    // CHECK: hostir.all_to_all %{{.*}}, %{{.*}} on %{{.*}} backend = nccl : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    %7 = hostir.all_to_all %big, %big on %team backend = nccl : memref<8xf32>, memref<8xf32>, !hostir.team<2>
    return
  }

  // CHECK-LABEL: func.func @point_to_point
  func.func @point_to_point(%send: memref<4xf32>, %recv: memref<4xf32>,
                            %team: !hostir.team<2>, %peer: index) {
    // CHECK: hostir.send %{{.*}} to %{{.*}} on %{{.*}} backend = nccl : memref<4xf32>, !hostir.team<2>
    %0 = hostir.send %send to %peer on %team backend = nccl : memref<4xf32>, !hostir.team<2>
    // CHECK: hostir.recv %{{.*}} from %{{.*}} on %{{.*}} backend = mpi : memref<4xf32>, !hostir.team<2>
    %1 = hostir.recv %recv from %peer on %team backend = mpi : memref<4xf32>, !hostir.team<2>
    // CHECK: %[[GROUP:.*]] = hostir.coalesce {
    // CHECK-NEXT: hostir.send
    // CHECK-NEXT: hostir.recv
    // CHECK-NEXT: }
    %2 = hostir.coalesce {
      %s = hostir.send %send to %peer on %team backend = nccl : memref<4xf32>, !hostir.team<2>
      %r = hostir.recv %recv from %peer on %team backend = nccl : memref<4xf32>, !hostir.team<2>
    }
    // CHECK: hostir.wait %[[GROUP]] for %{{.*}}, %{{.*}} : memref<4xf32>, memref<4xf32>
    hostir.wait %2 for %send, %recv : memref<4xf32>, memref<4xf32>
    return
  }

  // CHECK-LABEL: func.func @ipc
  func.func @ipc(%buffer: memref<4x8xbf16>, %local: memref<4x8xbf16>,
                 %team: !hostir.team<2>, %peer: index) {
    // CHECK: %[[H:.*]] = hostir.ipc_share %{{.*}} on %{{.*}} : memref<4x8xbf16>, !hostir.team<2>
    %handles = hostir.ipc_share %buffer on %team : memref<4x8xbf16>, !hostir.team<2>
    // CHECK: %[[REMOTE:.*]] = hostir.ipc_peer_buffer %[[H]][%{{.*}}] : !hostir.ipc_handles<memref<4x8xbf16>>
    %remote = hostir.ipc_peer_buffer %handles[%peer] : !hostir.ipc_handles<memref<4x8xbf16>>
    // CHECK: hostir.ipc_wait %[[H]][%{{.*}}] : !hostir.ipc_handles<memref<4x8xbf16>>
    hostir.ipc_wait %handles[%peer] : !hostir.ipc_handles<memref<4x8xbf16>>
    // CHECK: hostir.copy %[[REMOTE]], %{{.*}} : memref<4x8xbf16>, memref<4x8xbf16>
    hostir.copy %remote, %local : memref<4x8xbf16>, memref<4x8xbf16>
    // CHECK: hostir.ipc_signal %[[H]][%{{.*}}] : !hostir.ipc_handles<memref<4x8xbf16>>
    hostir.ipc_signal %handles[%peer] : !hostir.ipc_handles<memref<4x8xbf16>>
    return
  }

  // CHECK: hostir.cached_buffer @pool device : memref<8x4xf32>
  hostir.cached_buffer @pool device : memref<8x4xf32>

  // CHECK: hostir.cached_buffer @turns device storage : memref<128xi8>
  hostir.cached_buffer @turns device storage : memref<128xi8>

  // CHECK-LABEL: func.func @cached
  func.func @cached() {
    // CHECK: hostir.get_cached_buffer @pool : memref<8x4xf32>
    %b = hostir.get_cached_buffer @pool : memref<8x4xf32>
    // CHECK: hostir.get_cached_buffer @turns : memref<8x4xf32>
    %c = hostir.get_cached_buffer @turns : memref<8x4xf32>
    // CHECK: hostir.get_cached_buffer @turns : memref<4x8xbf16, strided<[1, 4]>>
    %d = hostir.get_cached_buffer @turns : memref<4x8xbf16, strided<[1, 4]>>
    return
  }

  // CHECK-LABEL: func.func @buffers
  func.func @buffers(%n: index, %i: index) {
    // CHECK: %[[D:.*]] = hostir.allocate device : memref<8x4xf32>
    %d = hostir.allocate device : memref<8x4xf32>
    // CHECK: hostir.allocate(%{{.*}}) host zeroed : memref<?x4xf32>
    %h = hostir.allocate(%n) host zeroed : memref<?x4xf32>
    // CHECK: hostir.allocate symmetric : memref<8x4xbf16>
    %s = hostir.allocate symmetric : memref<8x4xbf16>
    // CHECK: hostir.alias_select %[[D]][%{{.*}}] dim = 0 chunks = 4 : memref<8x4xf32> -> memref<2x4xf32, strided<[4, 1], offset: ?>>
    %chunk = hostir.alias_select %d[%i] dim = 0 chunks = 4 : memref<8x4xf32> -> memref<2x4xf32, strided<[4, 1], offset: ?>>
    // CHECK: hostir.deallocate %[[D]] : memref<8x4xf32>
    hostir.deallocate %d : memref<8x4xf32>
    hostir.deallocate %h : memref<?x4xf32>
    hostir.deallocate %s : memref<8x4xbf16>
    return
  }
}
