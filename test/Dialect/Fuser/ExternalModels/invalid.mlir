// What upstream ops cannot carry or compute is reported, not left to the
// ops' verifiers or a crash.
// RUN: fuser-opt %s -split-input-file -verify-diagnostics -pass-pipeline='builtin.module(func.func(fuser-propagate-shardings,fuser-decompose-reshardings))'

// A dense constant's value has the type without an encoding, so its result
// cannot be sharded.
#mesh = #fuser.mesh<[2]>
func.func @sharded_constant(%a: tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>> {
  // expected-error @+1 {{cannot carry the shardings propagation gave it: 'arith.constant' op}}
  %c = arith.constant dense<1.0> : tensor<8x16xf32>
  %e = tensor.empty() : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>
  %0 = linalg.add ins(%a, %c : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>, tensor<8x16xf32>)
                  outs(%e : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>
  return %0 : tensor<8x16xf32, #fuser.sharding<#mesh, [[0], []]>>
}

// -----

// A split K makes the product partial, but the caller's accumulator holds
// resolved values, which no resharding makes partial.
#mesh = #fuser.mesh<[2]>
func.func @resolved_accumulator(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                                %w: tensor<16x32xf32, #fuser.sharding<#mesh, [[0], []]>>,
                                %acc: tensor<8x32xf32>) -> tensor<8x32xf32> {
  // expected-error @+1 {{operand #2 must carry the sharding of result #0, which is partial, but it is not}}
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<16x32xf32, #fuser.sharding<#mesh, [[0], []]>>)
                     outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// Ones summed over the ranks are not ones: a fill is a partial sum only of
// zeros.
#mesh = #fuser.mesh<[2]>
func.func @nonzero_accumulator(%x: tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                               %w: tensor<16x32xf32, #fuser.sharding<#mesh, [[0], []]>>) -> tensor<8x32xf32> {
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x32xf32>
  // expected-error @+1 {{the result sharding cannot be computed locally (the results are partial, but the op reduces nothing)}}
  %acc = linalg.fill ins(%one : f32) outs(%e : tensor<8x32xf32>) -> tensor<8x32xf32>
  %y = linalg.matmul ins(%x, %w : tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>, tensor<16x32xf32, #fuser.sharding<#mesh, [[0], []]>>)
                     outs(%acc : tensor<8x32xf32>) -> tensor<8x32xf32>
  return %y : tensor<8x32xf32>
}

// -----

// A reduction whose combiner is no known reduction cannot produce partial
// values (its loop is blocked, not a reduction factor).
#mesh = #fuser.mesh<[2]>
#identity = affine_map<(d0, d1) -> (d0, d1)>
#rows = affine_map<(d0, d1) -> (d0)>
func.func @unknown_combiner(%t: tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>,
                            %r: tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>) {
  // expected-error @+1 {{the result sharding cannot be computed locally (the results are partial, but the op reduces nothing)}}
  %0 = linalg.generic {indexing_maps = [#identity, #rows], iterator_types = ["parallel", "reduction"]}
      ins(%t : tensor<8x16xf32, #fuser.sharding<#mesh, [[], [0]]>>) outs(%r : tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>) {
  ^bb0(%x: f32, %out: f32):
    %d = arith.subf %out, %x : f32
    linalg.yield %d : f32
  } -> tensor<8xf32, #fuser.sharding<#mesh, [[]], partial = {0 : sum}>>
  return
}
