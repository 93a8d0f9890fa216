// Which values can be views of another value's buffer, and with which layout.
// RUN: fuser-opt %s -fuser-test-alias-analysis -split-input-file -verify-diagnostics -o /dev/null

func.func @meta_ops(%a: tensor<4x8xf32>, %b: tensor<4x1x8xf32>) {
  // A permute changes the logical order, not the memory order.
  // expected-remark @+1 {{alias of argument #0 (root argument #0): order [1, 0] contiguity [true, true]}}
  %0 = fuser.permute %a perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
  // Merging dims that are not adjacent in memory needs a copy.
  // expected-remark @+1 {{not an alias: result dim 0 merges data that is not adjacent in memory}}
  %1 = fuser.reshape %0 : tensor<8x4xf32> -> tensor<32xf32>
  // expected-remark @+1 {{alias of argument #0 (root argument #0): order [0] contiguity [true]}}
  %2 = fuser.reshape %a : tensor<4x8xf32> -> tensor<32xf32>
  // expected-remark @+1 {{alias of argument #0 (root argument #0): order [0, 1, 2] contiguity [true, true, true]}}
  %3 = fuser.reshape %a : tensor<4x8xf32> -> tensor<4x2x4xf32>
  // Chains resolve to their root.
  // expected-remark @+1 {{alias of result of 'fuser.reshape' (root argument #0): order [0, 1, 2] contiguity [true, true, true]}}
  %4 = fuser.set %3 : tensor<4x2x4xf32> -> tensor<4x2x4xf32>
  // New dims repeat data (stride 0): outermost, not contiguous.
  // expected-remark @+1 {{alias of argument #0 (root argument #0): order [1, 0, 2] contiguity [false, true, true]}}
  %5 = fuser.broadcast %a dims = [0, 2] : tensor<4x8xf32> -> tensor<4x5x8xf32>
  // expected-remark @+1 {{alias of argument #1 (root argument #1): order [0, 1] contiguity [true, true]}}
  %6 = fuser.squeeze %b dims = [1] : tensor<4x1x8xf32> -> tensor<4x8xf32>
  // expected-remark @+1 {{alias of argument #1 (root argument #1): order [1, 0, 2] contiguity [false, true, true]}}
  %7 = fuser.expand %b : tensor<4x1x8xf32> -> tensor<4x6x8xf32>
  return
}

// -----

func.func @slices(%a: tensor<4x8xf32>) {
  // Narrowing the inner dim leaves gaps before the next outer dim.
  // expected-remark @+1 {{alias of argument #0 (root argument #0): order [0, 1] contiguity [false, true]}}
  %0 = fuser.slice %a starts = [0, 2] limits = [4, 6] steps = [1, 1] : tensor<4x8xf32> -> tensor<4x4xf32>
  // ... so the slice cannot then be merged.
  // expected-remark @+1 {{not an alias: result dim 0 merges dims that are not contiguous}}
  %1 = fuser.reshape %0 : tensor<4x4xf32> -> tensor<16xf32>
  // Narrowing the outer dim keeps everything contiguous; a step does not.
  // expected-remark @+1 {{alias of argument #0 (root argument #0): order [0, 1] contiguity [true, true]}}
  %2 = fuser.slice %a starts = [1, 0] limits = [3, 8] steps = [1, 1] : tensor<4x8xf32> -> tensor<2x8xf32>
  // expected-remark @+1 {{alias of argument #0 (root argument #0): order [0, 1] contiguity [true, false]}}
  %3 = fuser.slice %a starts = [0, 0] limits = [4, 8] steps = [1, 2] : tensor<4x8xf32> -> tensor<4x4xf32>
  return
}

// -----

// Reshapes of a sharded dim alias when the local data stays contiguous.
#mesh = #fuser.mesh<[2]>
func.func @sharded_reshapes(%bs: tensor<8x4x16xf32, #fuser.sharding<#mesh, [[0], [], []]>>,
                            %heads: tensor<4x12x64xf32, #fuser.sharding<#mesh, [[], [0], []]>>,
                            %hidden: tensor<4x768xf32, #fuser.sharding<#mesh, [[], [0]]>>) {
  // Merge with the split dim outer.
  // expected-remark @+1 {{alias of argument #0 (root argument #0): order [0, 1] contiguity [true, true]}}
  %0 = fuser.reshape %bs : tensor<8x4x16xf32, #fuser.sharding<#mesh, [[0], [], []]>> -> tensor<32x16xf32, #fuser.sharding<#mesh, [[0], []]>>
  // expected-remark @+1 {{alias of argument #1 (root argument #1): order [0, 1] contiguity [true, true]}}
  %1 = fuser.reshape %heads : tensor<4x12x64xf32, #fuser.sharding<#mesh, [[], [0], []]>> -> tensor<4x768xf32, #fuser.sharding<#mesh, [[], [0]]>>
  // Split of the split dim.
  // expected-remark @+1 {{alias of argument #2 (root argument #2): order [0, 1, 2] contiguity [true, true, true]}}
  %2 = fuser.reshape %hidden : tensor<4x768xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<4x12x64xf32, #fuser.sharding<#mesh, [[], [0], []]>>
  // Not contiguous: a slice of the heads first.
  // expected-remark @+1 {{alias of argument #1 (root argument #1): order [0, 1, 2] contiguity [true, false, true]}}
  %3 = fuser.slice %heads starts = [0, 0, 0] limits = [4, 12, 32] steps = [1, 1, 1] : tensor<4x12x64xf32, #fuser.sharding<#mesh, [[], [0], []]>> -> tensor<4x12x32xf32, #fuser.sharding<#mesh, [[], [0], []]>>
  // expected-remark @+1 {{not an alias: result dim 1 merges dims that are not contiguous}}
  %4 = fuser.reshape %3 : tensor<4x12x32xf32, #fuser.sharding<#mesh, [[], [0], []]>> -> tensor<4x384xf32, #fuser.sharding<#mesh, [[], [0]]>>
  return
}

// -----

#mesh = #fuser.mesh<[2]>
func.func @copies(%x: tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>) {
  // A set that reshards moves data.
  // expected-remark @+1 {{not an alias: the op reshards: its data moves between ranks}}
  %0 = fuser.set %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[], []]>>
  // A set to another stated layout is a transposing copy.
  // expected-remark @+1 {{not an alias: the result's stated layout differs from the view's layout}}
  %1 = fuser.set %x : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []], order = [1, 0]>>
  // A permute whose stated layout matches the view is one.
  // expected-remark @+1 {{alias of argument #0 (root argument #0): order [1, 0] contiguity [true, true]}}
  %2 = fuser.permute %x perm = [1, 0] : tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]], order = [1, 0]>>
  return
}

// -----

// Libraries read their own kind of buffer: a communication one contiguous
// piece, a library call rows or columns in memory. Views that are no such
// buffer (repeated data, a transposed block) are computed into one.
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#rows1 = #fuser.sharding<#mesh, [[0]]>
#rep = #fuser.sharding<#mesh, [[], []]>
func.func @library_readers(%s: tensor<8xf32, #rows1>, %t: tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>>, %w: tensor<4x4xf32, #rep>) {
  // expected-remark @+1 {{not an alias: a communication reads it as one contiguous buffer}}
  %0 = fuser.broadcast %s dims = [0] : tensor<8xf32, #rows1> -> tensor<8x4xf32, #rows>
  %1 = fuser.comm.allgather %0 axis = 0 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  // expected-remark @+1 {{not an alias: a communication reads it as one contiguous buffer}}
  %2 = fuser.permute %t perm = [1, 0] : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8x4xf32, #rows>
  %3 = fuser.comm.allgather %2 axis = 0 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rep>
  // A view of a view that repeats data repeats it too.
  // expected-remark @+1 {{alias of argument #0 (root argument #0): order [1, 0] contiguity [false, true]}}
  %4 = fuser.broadcast %s dims = [0] : tensor<8xf32, #rows1> -> tensor<8x4xf32, #rows>
  // expected-remark @+1 {{not an alias: a library call reads it, and it repeats data}}
  %5 = fuser.set %4 : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rows>
  %6 = fuser.linear %5, %w : (tensor<8x4xf32, #rows>, tensor<4x4xf32, #rep>) -> tensor<8x4xf32, #rows>
  // A transposed block is read through its strides.
  // expected-remark @+1 {{alias of argument #1 (root argument #1): order [1, 0] contiguity [true, true]}}
  %7 = fuser.permute %t perm = [1, 0] : tensor<4x8xf32, #fuser.sharding<#mesh, [[], [0]]>> -> tensor<8x4xf32, #rows>
  %8 = fuser.linear %7, %w : (tensor<8x4xf32, #rows>, tensor<4x4xf32, #rep>) -> tensor<8x4xf32, #rows>
  return
}

// -----

// An all_slice's block is a view of its operand's buffer whatever its type
// states: a block of rows of a column-major buffer is column-major with
// gaps between its columns, so merging its dims needs a copy, and a set
// of it keeps that layout.
#mesh = #fuser.mesh<[2]>
func.func @block_of_a_column_major_buffer(%x: tensor<4x8xf32, #fuser.sharding<#mesh, [[], []], order = [1, 0]>>) {
  %0 = fuser.comm.all_slice %x axis = 0 : tensor<4x8xf32, #fuser.sharding<#mesh, [[], []], order = [1, 0]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[0], []]>>
  // expected-remark @+1 {{not an alias: result dim 0 merges data that is not adjacent in memory}}
  %1 = fuser.reshape %0 : tensor<4x8xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#mesh, [[0], []]>>
  // expected-remark @+1 {{alias of result of 'fuser.comm.all_slice' (root result of 'fuser.comm.all_slice'): order [1, 0] contiguity [false, true]}}
  %2 = fuser.set %0 : tensor<4x8xf32, #fuser.sharding<#mesh, [[0], []]>> -> tensor<4x8xf32, #fuser.sharding<#mesh, [[0], []]>>
  return
}
