// RUN: fuser-opt %s -split-input-file --convert-shard-to-fuser -verify-diagnostics

// A mesh has a fixed number of devices.
// expected-error @+1 {{grid @grid has a dynamic size along axis 1: a #fuser.mesh needs the number of devices}}
shard.grid @grid(shape = 2x?)

func.func @dynamic_grid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<8xf32>
  return %x1 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @halo(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{halo_sizes have no fuser form: every shard of a fuser tensor holds only its own block}}
  %s = shard.sharding @grid split_axes = [[0]] halo_sizes = [1, 1] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<8xf32>
  return %x1 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @offsets(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{sharded_dims_offsets have no fuser form: the shards of a fuser tensor dim are equal blocks}}
  %s = shard.sharding @grid split_axes = [[0]] sharded_dims_offsets = [0, 3, 8] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<8xf32>
  return %x1 : tensor<8xf32>
}

// -----

// Upstream's verifier already refuses an unknown grid when the module is
// read.
func.func @unknown_grid(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{Undefined required grid symbol "missing".}}
  %s = shard.sharding @missing split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<8xf32>
  return %x1 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @too_many_dims(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  // expected-error @+1 {{split_axes lists 2 dims for a tensor of rank 1}}
  %x1 = shard.shard %x to %s : tensor<8xf32>
  return %x1 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 3)

func.func @not_divisible(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{dim 0 of size 8 is not divisible by 3}}
  %x1 = shard.shard %x to %s : tensor<8xf32>
  return %x1 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @two_shardings(%x: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %rows = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %cols = shard.sharding @grid split_axes = [[], [0]] : !shard.sharding
  %x1 = shard.shard %x to %rows : tensor<8x8xf32>
  // expected-error @+1 {{gives a value of type 'tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []]>>' a second, different sharding: 'tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], [0]]>>'}}
  %x2 = shard.shard %x to %cols : tensor<8x8xf32>
  return %x2 : tensor<8x8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @stated_otherwise(%x: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[]]>>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{a second, different sharding}}
  %x1 = shard.shard %x to %s : tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[]]>>
  %y = fuser.set %x1 : tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[]]>> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @other_encoding(%x: tensor<8xf32, "layout">) -> tensor<8xf32, "layout"> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  // expected-error @+1 {{the annotated tensor already has encoding "layout"}}
  %x1 = shard.shard %x to %s : tensor<8xf32, "layout">
  return %x1 : tensor<8xf32, "layout">
}

// -----

// Collectives and queries belong to upstream's partitioned programs.
shard.grid @grid(shape = 2)

func.func @collective(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{'shard.all_reduce' has no fuser form; only shard.grid, shard.sharding and shard.shard are imported}}
  %y = shard.all_reduce %x on @grid grid_axes = [0] : tensor<8xf32> -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @sharding_argument(%x: tensor<8xf32>, %s: !shard.sharding) -> tensor<8xf32> {
  // expected-error @+1 {{the sharding is not defined by shard.sharding}}
  %x1 = shard.shard %x to %s : tensor<8xf32>
  return %x1 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @sharding_escapes() -> !shard.sharding {
  // expected-error @+1 {{sharding used by 'func.return', which the import cannot rewrite}}
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  return %s : !shard.sharding
}

// -----

shard.grid @grid(shape = 2)

func.func @loop_carried(%x: tensor<8xf32>, %n: index) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %x) -> tensor<8xf32> {
    // expected-error @+1 {{annotates a block argument that is not a function argument: its type is tied to the region's op}}
    %acc1 = shard.shard %acc to %s : tensor<8xf32>
    scf.yield %acc1 : tensor<8xf32>
  }
  return %r : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @after_users_annotation(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s annotate_for_users : tensor<8xf32>
  // expected-error @+1 {{annotates the result of a shard.shard with annotate_for_users; annotate its operand instead}}
  %x2 = shard.shard %x1 to %s : tensor<8xf32>
  return %x2 : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @callee(%x: tensor<8xf32>) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<8xf32>
  return %x1 : tensor<8xf32>
}

func.func @caller(%x: tensor<8xf32>) -> tensor<8xf32> {
  // expected-error @+1 {{calls @callee, whose signature the import changes; inline it first}}
  %y = func.call @callee(%x) : (tensor<8xf32>) -> tensor<8xf32>
  return %y : tensor<8xf32>
}

// -----

shard.grid @grid(shape = 2)

func.func @two_returns(%x: tensor<8xf32>, %y: tensor<8xf32>, %c: i1) -> tensor<8xf32> {
  %s = shard.sharding @grid split_axes = [[0]] : !shard.sharding
  %x1 = shard.shard %x to %s : tensor<8xf32>
  cf.cond_br %c, ^a, ^b
^a:
  return %x1 : tensor<8xf32>
^b:
  // expected-error @+1 {{returns other shardings than the function's first return; annotate the values every return returns}}
  return %y : tensor<8xf32>
}
