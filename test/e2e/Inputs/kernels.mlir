// Kernels the CPU code generator compiles, each on the local pieces of
// row-split tensors (the ops work along unsplit dims).
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#rows1 = #fuser.sharding<#mesh, [[0]]>
#rep = #fuser.sharding<#mesh, [[]]>

// layer normalization without affine parameters
func.func @layer_norm(%x: tensor<8x16xf32, #rows>) -> tensor<8x16xf32, #rows> {
  %v, %m = fuser.var_mean %x dims = [1] keepdim {correction = 0 : i64} : tensor<8x16xf32, #rows> -> tensor<8x1xf32, #rows>, tensor<8x1xf32, #rows>
  %eps = fuser.full 1.0e-5 : tensor<8x1xf32, #rows>
  %ve = fuser.add %v, %eps : (tensor<8x1xf32, #rows>, tensor<8x1xf32, #rows>) -> tensor<8x1xf32, #rows>
  %r = fuser.rsqrt %ve : tensor<8x1xf32, #rows> -> tensor<8x1xf32, #rows>
  %mb = fuser.expand %m : tensor<8x1xf32, #rows> -> tensor<8x16xf32, #rows>
  %rb = fuser.expand %r : tensor<8x1xf32, #rows> -> tensor<8x16xf32, #rows>
  %c = fuser.sub %x, %mb : (tensor<8x16xf32, #rows>, tensor<8x16xf32, #rows>) -> tensor<8x16xf32, #rows>
  %y = fuser.mul %c, %rb : (tensor<8x16xf32, #rows>, tensor<8x16xf32, #rows>) -> tensor<8x16xf32, #rows>
  return %y : tensor<8x16xf32, #rows>
}

// softmax over the last dim
func.func @softmax(%x: tensor<8x16xf32, #rows>) -> tensor<8x16xf32, #rows> {
  %mx = fuser.max %x dims = [1] keepdim : tensor<8x16xf32, #rows> -> tensor<8x1xf32, #rows>
  %mxb = fuser.expand %mx : tensor<8x1xf32, #rows> -> tensor<8x16xf32, #rows>
  %d = fuser.sub %x, %mxb : (tensor<8x16xf32, #rows>, tensor<8x16xf32, #rows>) -> tensor<8x16xf32, #rows>
  %e = fuser.exp %d : tensor<8x16xf32, #rows> -> tensor<8x16xf32, #rows>
  %s = fuser.sum %e dims = [1] keepdim : tensor<8x16xf32, #rows> -> tensor<8x1xf32, #rows>
  %sb = fuser.expand %s : tensor<8x1xf32, #rows> -> tensor<8x16xf32, #rows>
  %y = fuser.div %e, %sb : (tensor<8x16xf32, #rows>, tensor<8x16xf32, #rows>) -> tensor<8x16xf32, #rows>
  return %y : tensor<8x16xf32, #rows>
}

// cat, pad and select along unsplit dims, and a split iota
func.func @shapes(%x: tensor<8x4xf32, #rows>, %z: tensor<8x2xf32, #rows>) -> (tensor<8x9xf32, #rows>, tensor<8xf32, #rows1>, tensor<8xf32, #rows1>) {
  %c = fuser.cat %x, %z dim = 1 : (tensor<8x4xf32, #rows>, tensor<8x2xf32, #rows>) -> tensor<8x6xf32, #rows>
  %p = fuser.pad %c low = [0, 1] high = [0, 2] {value = 0.5 : f64} : tensor<8x6xf32, #rows> -> tensor<8x9xf32, #rows>
  %s = fuser.select %x dim = 1 index = 2 : tensor<8x4xf32, #rows> -> tensor<8xf32, #rows1>
  %i = fuser.iota dim = 0 : tensor<8xf32, #rows1>
  return %p, %s, %i : tensor<8x9xf32, #rows>, tensor<8xf32, #rows1>, tensor<8xf32, #rows1>
}

// one buffer returned twice, and an argument returned as it is
func.func @returned_twice(%x: tensor<8x4xf32, #rows>) -> (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) {
  %0 = fuser.exp %x : tensor<8x4xf32, #rows> -> tensor<8x4xf32, #rows>
  return %0, %0, %x : tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>
}

// sums and maxima over the (unsplit) leading dim of column-split tensors
#cols = #fuser.sharding<#mesh, [[], [0]]>
#cols1 = #fuser.sharding<#mesh, [[0]]>
func.func @column_stats(%x: tensor<24x64xf32, #cols>) -> (tensor<64xf32, #cols1>, tensor<1x64xf32, #cols>) {
  %s = fuser.sum %x dims = [0] : tensor<24x64xf32, #cols> -> tensor<64xf32, #cols1>
  %m = fuser.max %x dims = [0] keepdim : tensor<24x64xf32, #cols> -> tensor<1x64xf32, #cols>
  %e = fuser.exp %m : tensor<1x64xf32, #cols> -> tensor<1x64xf32, #cols>
  return %s, %e : tensor<64xf32, #cols1>, tensor<1x64xf32, #cols>
}
