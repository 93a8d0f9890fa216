// A causal mask over scores split by rows: each rank's kernel takes its
// position along the mesh (an argument marked fuser.mesh_position) to know
// which rows it holds.
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
func.func @causal_mask(%scores: tensor<16x16xf32, #rows>) -> tensor<16x16xf32, #rows> {
  %i = fuser.iota dim = 0 : tensor<16x16xi64, #rows>
  %j = fuser.iota dim = 1 : tensor<16x16xi64, #rows>
  %keep = fuser.compare le, %j, %i : (tensor<16x16xi64, #rows>, tensor<16x16xi64, #rows>) -> tensor<16x16xi1, #rows>
  %neg = fuser.full -1.0e9 : tensor<16x16xf32, #rows>
  %masked = fuser.where %keep, %scores, %neg : (tensor<16x16xi1, #rows>, tensor<16x16xf32, #rows>, tensor<16x16xf32, #rows>) -> tensor<16x16xf32, #rows>
  return %masked : tensor<16x16xf32, #rows>
}
