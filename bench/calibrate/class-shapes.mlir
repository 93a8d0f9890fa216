// bf16 products on one GPU whose smallest dim is 2048, 1024, 512 or 256,
// in every position: the shape classes of the pipelining cost model
// (docs/stream-pipelining.md), at the sizes fuser-calibrate measures them
// (8192 x 8192 by the class's dim) and at the pipelines' chunk GEMMs
// (4096 or 16384 rows). A [m, k] x B [k, n], named matmul_MxKxN.

func.func @matmul_2048x8192x8192(%a: tensor<2048x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<2048x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<2048x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<2048x8192xbf16>
  return %c : tensor<2048x8192xbf16>
}

func.func @matmul_4096x2048x8192(%a: tensor<4096x2048xbf16>, %b: tensor<2048x8192xbf16>) -> tensor<4096x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<4096x2048xbf16>, tensor<2048x8192xbf16>) -> tensor<4096x8192xbf16>
  return %c : tensor<4096x8192xbf16>
}

func.func @matmul_8192x2048x8192(%a: tensor<8192x2048xbf16>, %b: tensor<2048x8192xbf16>) -> tensor<8192x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<8192x2048xbf16>, tensor<2048x8192xbf16>) -> tensor<8192x8192xbf16>
  return %c : tensor<8192x8192xbf16>
}

func.func @matmul_8192x8192x2048(%a: tensor<8192x8192xbf16>, %b: tensor<8192x2048xbf16>) -> tensor<8192x2048xbf16> {
  %c = fuser.matmul %a, %b : (tensor<8192x8192xbf16>, tensor<8192x2048xbf16>) -> tensor<8192x2048xbf16>
  return %c : tensor<8192x2048xbf16>
}

func.func @matmul_4096x1024x8192(%a: tensor<4096x1024xbf16>, %b: tensor<1024x8192xbf16>) -> tensor<4096x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<4096x1024xbf16>, tensor<1024x8192xbf16>) -> tensor<4096x8192xbf16>
  return %c : tensor<4096x8192xbf16>
}

func.func @matmul_8192x1024x8192(%a: tensor<8192x1024xbf16>, %b: tensor<1024x8192xbf16>) -> tensor<8192x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<8192x1024xbf16>, tensor<1024x8192xbf16>) -> tensor<8192x8192xbf16>
  return %c : tensor<8192x8192xbf16>
}

func.func @matmul_8192x8192x1024(%a: tensor<8192x8192xbf16>, %b: tensor<8192x1024xbf16>) -> tensor<8192x1024xbf16> {
  %c = fuser.matmul %a, %b : (tensor<8192x8192xbf16>, tensor<8192x1024xbf16>) -> tensor<8192x1024xbf16>
  return %c : tensor<8192x1024xbf16>
}

func.func @matmul_16384x1024x8192(%a: tensor<16384x1024xbf16>, %b: tensor<1024x8192xbf16>) -> tensor<16384x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<16384x1024xbf16>, tensor<1024x8192xbf16>) -> tensor<16384x8192xbf16>
  return %c : tensor<16384x8192xbf16>
}

func.func @matmul_4096x512x8192(%a: tensor<4096x512xbf16>, %b: tensor<512x8192xbf16>) -> tensor<4096x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<4096x512xbf16>, tensor<512x8192xbf16>) -> tensor<4096x8192xbf16>
  return %c : tensor<4096x8192xbf16>
}

func.func @matmul_8192x512x8192(%a: tensor<8192x512xbf16>, %b: tensor<512x8192xbf16>) -> tensor<8192x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<8192x512xbf16>, tensor<512x8192xbf16>) -> tensor<8192x8192xbf16>
  return %c : tensor<8192x8192xbf16>
}

func.func @matmul_16384x512x8192(%a: tensor<16384x512xbf16>, %b: tensor<512x8192xbf16>) -> tensor<16384x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<16384x512xbf16>, tensor<512x8192xbf16>) -> tensor<16384x8192xbf16>
  return %c : tensor<16384x8192xbf16>
}

func.func @matmul_8192x8192x512(%a: tensor<8192x8192xbf16>, %b: tensor<8192x512xbf16>) -> tensor<8192x512xbf16> {
  %c = fuser.matmul %a, %b : (tensor<8192x8192xbf16>, tensor<8192x512xbf16>) -> tensor<8192x512xbf16>
  return %c : tensor<8192x512xbf16>
}

func.func @matmul_4096x256x8192(%a: tensor<4096x256xbf16>, %b: tensor<256x8192xbf16>) -> tensor<4096x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<4096x256xbf16>, tensor<256x8192xbf16>) -> tensor<4096x8192xbf16>
  return %c : tensor<4096x8192xbf16>
}

func.func @matmul_8192x256x8192(%a: tensor<8192x256xbf16>, %b: tensor<256x8192xbf16>) -> tensor<8192x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<8192x256xbf16>, tensor<256x8192xbf16>) -> tensor<8192x8192xbf16>
  return %c : tensor<8192x8192xbf16>
}

func.func @matmul_8192x8192x256(%a: tensor<8192x8192xbf16>, %b: tensor<8192x256xbf16>) -> tensor<8192x256xbf16> {
  %c = fuser.matmul %a, %b : (tensor<8192x8192xbf16>, tensor<8192x256xbf16>) -> tensor<8192x256xbf16>
  return %c : tensor<8192x256xbf16>
}
