// A mesh far larger than any machine must be refused by the verifier before
// anything lists its device ids (it used to abort with std::length_error).
// RUN: fuser-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{mesh has more than 1048576 positions, the most supported}}
func.func @huge(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[4000000000, 4000000000]>, [[]]>>) {
  return
}

// -----

// Axis sizes whose product overflows int64_t.
// expected-error @+1 {{mesh has more than 1048576 positions, the most supported}}
func.func @overflow(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[4000000000, 4000000000, 4000000000]>, [[0]]>>) {
  return
}

// -----

// Explicit ids for a mesh too large: refused the same way.
// expected-error @+1 {{mesh has more than 1048576 positions, the most supported}}
func.func @ids(%a: tensor<8xf32, #fuser.sharding<#fuser.mesh<[4611686018427387904, 4], devices = [0, 1, 2, 3]>, [[]]>>) {
  return
}
