// A 2x2 mesh: rows split over axis 0 and columns over axis 1 become rows
// over axis 1 and columns over axis 0, which moves both axes.
#mesh = #fuser.mesh<[2, 2]>
#from = #fuser.sharding<#mesh, [[0], [1]]>
#to = #fuser.sharding<#mesh, [[1], [0]]>
func.func @swap_axes(%x: tensor<8x8xf32, #from>) -> tensor<8x8xf32, #to> {
  %0 = fuser.set %x : tensor<8x8xf32, #from> -> tensor<8x8xf32, #to>
  return %0 : tensor<8x8xf32, #to>
}
