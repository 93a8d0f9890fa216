// Values moved between meshes that are neither the same shape nor slices
// of one another: blocks of shards go point to point (send_recv).
#three = #fuser.mesh<[3]>
#outside = #fuser.mesh<[1], devices = [3]>
#pair = #fuser.mesh<[2]>
#last3 = #fuser.mesh<[3], devices = [1, 2, 3]>

// Rows split over devices 0-2, gathered onto device 3, outside their mesh.
func.func @gather_outside(%x: tensor<6x4xf32, #fuser.sharding<#three, [[0], []]>>) -> tensor<6x4xf32, #fuser.sharding<#outside, [[], []]>> {
  %0 = fuser.set %x : tensor<6x4xf32, #fuser.sharding<#three, [[0], []]>> -> tensor<6x4xf32, #fuser.sharding<#outside, [[], []]>>
  %1 = fuser.exp %0 : tensor<6x4xf32, #fuser.sharding<#outside, [[], []]>> -> tensor<6x4xf32, #fuser.sharding<#outside, [[], []]>>
  return %1 : tensor<6x4xf32, #fuser.sharding<#outside, [[], []]>>
}

// Columns split in 2 become rows split in 3 on overlapping devices: every
// block is strided on both sides, and device 1 keeps the part it holds.
func.func @columns_to_rows(%x: tensor<6x4xf32, #fuser.sharding<#pair, [[], [0]]>>) -> tensor<6x4xf32, #fuser.sharding<#last3, [[0], []]>> {
  %0 = fuser.set %x : tensor<6x4xf32, #fuser.sharding<#pair, [[], [0]]>> -> tensor<6x4xf32, #fuser.sharding<#last3, [[0], []]>>
  %1 = fuser.mul %0, %0 : (tensor<6x4xf32, #fuser.sharding<#last3, [[0], []]>>, tensor<6x4xf32, #fuser.sharding<#last3, [[0], []]>>) -> tensor<6x4xf32, #fuser.sharding<#last3, [[0], []]>>
  return %1 : tensor<6x4xf32, #fuser.sharding<#last3, [[0], []]>>
}

// A partial sum on two devices (a matmul over a split contraction dim) is
// resolved there, then replicated onto three.
func.func @partial_to_three(%a: tensor<6x8xf32, #fuser.sharding<#pair, [[], [0]]>>, %b: tensor<8x4xf32, #fuser.sharding<#pair, [[0], []]>>) -> tensor<6x4xf32, #fuser.sharding<#last3, [[], []]>> {
  %0 = fuser.matmul %a, %b : (tensor<6x8xf32, #fuser.sharding<#pair, [[], [0]]>>, tensor<8x4xf32, #fuser.sharding<#pair, [[0], []]>>) -> tensor<6x4xf32, #fuser.sharding<#pair, [[], []], partial = {0 : sum}>>
  %1 = fuser.set %0 : tensor<6x4xf32, #fuser.sharding<#pair, [[], []], partial = {0 : sum}>> -> tensor<6x4xf32, #fuser.sharding<#last3, [[], []]>>
  return %1 : tensor<6x4xf32, #fuser.sharding<#last3, [[], []]>>
}
