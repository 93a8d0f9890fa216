// Every diagnostic of #fuser.mesh and #fuser.sharding.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{mesh must have at least one axis}}
func.func private @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[]>, [[]]>>)

// -----

// expected-error @+1 {{mesh axis 1 has size 0; sizes must be positive}}
func.func private @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2, 0]>, [[]]>>)

// -----

// expected-error @+1 {{mesh of 4 positions has 3 device ids}}
func.func private @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2, 2], devices = [0, 1, 2]>, [[]]>>)

// -----

// expected-error @+1 {{device id -1 at position 0 is negative}}
func.func private @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2], devices = [-1, 0]>, [[]]>>)

// -----

// expected-error @+1 {{device id 3 appears at positions 0 and 1}}
func.func private @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2], devices = [3, 3]>, [[]]>>)

// -----

// expected-error @+1 {{dim 0 uses mesh axis 1, but the mesh has 1 axes}}
func.func private @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[1]]>>)

// -----

// expected-error @+1 {{mesh axis 0 is used twice: by dim 0 and by dim 1}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], [0]]>>)

// -----

// expected-error @+1 {{mesh axis 1 is used twice: by dim 0 and by dim 0}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, [[1, 1], []]>>)

// -----

// expected-error @+1 {{mesh axis 0 is used twice: by dim 1 and by the partial state}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], [0]], partial = {0 : sum}>>)

// -----

// expected-error @+1 {{the partial state uses mesh axis 2, but the mesh has 2 axes}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, [[], []], partial = {2 : sum}>>)

// -----

// expected-error @+1 {{unknown reduction kind 'mul' for partial mesh axis 0}}
func.func private @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[]], partial = {0 : mul}>>)

// -----

// expected-error @+1 {{partial mesh axes 0 (sum) and 1 (max) have different reduction kinds}}
func.func private @f(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, [[]], partial = {0 : sum, 1 : max}>>)

// -----

// expected-error @+1 {{stream split on two dims (0 and 1); at most one dim can be stream-split}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], stream = {0 : 2, 1 : 2}>>)

// -----

// expected-error @+1 {{stream split of dim 2, but the sharding has 2 dims}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], stream = {2 : 2}>>)

// -----

// expected-error @+1 {{stream split of dim 0 into 0 chunks; need at least 1}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], stream = {0 : 0}>>)

// -----

// expected-error @+1 {{order [0, 0] is not a permutation of the 2 dims}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], order = [0, 0]>>)

// -----

// expected-error @+1 {{order [1, 0, 2] is not a permutation of the 2 dims}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], order = [1, 0, 2]>>)

// -----

// An identity order of another length is no default to drop.
// expected-error @+1 {{order [0] is not a permutation of the 2 dims}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], order = [0]>>)

// -----

// expected-error @+1 {{contiguity has 1 entries for 2 dims}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], contiguity = [true]>>)

// -----

// expected-error @+1 {{contiguity has 1 entries for 2 dims}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], contiguity = [false]>>)

// -----

// expected-error @+1 {{expected 'true' or 'false' in contiguity, got 'yes'}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], contiguity = [yes, true]>>)

// -----

// expected-error @+1 {{sharding field 'order' given twice}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], order = [1, 0], order = [1, 0]>>)

// -----

// expected-error @+1 {{unknown sharding field 'layout'; expected partial, stream, order or contiguity}}
func.func private @f(%a: tensor<8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []], layout = [1, 0]>>)

// -----

// expected-error @+1 {{sharding describes 2 dims but the tensor has rank 3}}
func.func private @f(%a: tensor<8x8x8xf32, #fuser.sharding<#fuser.mesh<[2]>, [[], []]>>)

// -----

// expected-error @+1 {{dim 1 of size 6 is not divisible by 4 (mesh axes [0, 1] of sizes 2x2)}}
func.func private @f(%a: tensor<8x6xf32, #fuser.sharding<#fuser.mesh<[2, 2]>, [[], [0, 1]]>>)

// -----

// expected-error @+1 {{stream split of dim 0 into 3 chunks does not divide its local size 4}}
func.func private @f(%a: tensor<8x6xf32, #fuser.sharding<#fuser.mesh<[2]>, [[0], []], stream = {0 : 3}>>)

// -----

// expected-error @+1 {{axis 2 is out of range for mesh #fuser.mesh<[2, 4]>}}
func.func private @f(%r: index {fuser.mesh_position = #fuser.mesh_position<#fuser.mesh<[2, 4]>, 2>})
