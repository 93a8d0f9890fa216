// Two overlapping meshes over three ranks: the value is split on the
// first (rank 2 holds none of it: its team there is empty, and it only
// holds a placeholder), moved to the second by position, and computed on
// there (rank 0 stays out).
#a = #fuser.mesh<[2]>
#b = #fuser.mesh<[2], devices = [1, 2]>
func.func @shift(%x: tensor<8x4xf32, #fuser.sharding<#a, [[], []]>>) -> tensor<8x4xf32, #fuser.sharding<#b, [[0], []]>> {
  %0 = fuser.set %x : tensor<8x4xf32, #fuser.sharding<#a, [[], []]>> -> tensor<8x4xf32, #fuser.sharding<#a, [[0], []]>>
  %1 = fuser.set %0 : tensor<8x4xf32, #fuser.sharding<#a, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#b, [[0], []]>>
  %2 = fuser.exp %1 : tensor<8x4xf32, #fuser.sharding<#b, [[0], []]>> -> tensor<8x4xf32, #fuser.sharding<#b, [[0], []]>>
  return %2 : tensor<8x4xf32, #fuser.sharding<#b, [[0], []]>>
}
