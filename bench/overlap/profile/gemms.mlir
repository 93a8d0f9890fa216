// bf16 products on one GPU (a mesh of one device: fuser-exec under
// mpirun -np 1), at the sizes the overlap benchmark's programs multiply
// whole and in pipeline chunks: A [m, k] x B [k, n], named matmul_MxKxN.
// bench/overlap/profile/gemm_tuning.sh times them against torch.mm.

func.func @matmul_32768x16384x8192(%a: tensor<32768x16384xbf16>, %b: tensor<16384x8192xbf16>) -> tensor<32768x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<32768x16384xbf16>, tensor<16384x8192xbf16>) -> tensor<32768x8192xbf16>
  return %c : tensor<32768x8192xbf16>
}

func.func @matmul_16384x16384x8192(%a: tensor<16384x16384xbf16>, %b: tensor<16384x8192xbf16>) -> tensor<16384x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<16384x16384xbf16>, tensor<16384x8192xbf16>) -> tensor<16384x8192xbf16>
  return %c : tensor<16384x8192xbf16>
}

func.func @matmul_8192x16384x8192(%a: tensor<8192x16384xbf16>, %b: tensor<16384x8192xbf16>) -> tensor<8192x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<8192x16384xbf16>, tensor<16384x8192xbf16>) -> tensor<8192x8192xbf16>
  return %c : tensor<8192x8192xbf16>
}

func.func @matmul_32768x8192x8192(%a: tensor<32768x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<32768x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<32768x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<32768x8192xbf16>
  return %c : tensor<32768x8192xbf16>
}

func.func @matmul_16384x8192x8192(%a: tensor<16384x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<16384x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<16384x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<16384x8192xbf16>
  return %c : tensor<16384x8192xbf16>
}

func.func @matmul_8192x8192x8192(%a: tensor<8192x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
  return %c : tensor<8192x8192xbf16>
}

func.func @matmul_4096x8192x8192(%a: tensor<4096x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<4096x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<4096x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<4096x8192xbf16>
  return %c : tensor<4096x8192xbf16>
}

func.func @matmul_2048x8192x8192(%a: tensor<2048x8192xbf16>, %b: tensor<8192x8192xbf16>) -> tensor<2048x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<2048x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<2048x8192xbf16>
  return %c : tensor<2048x8192xbf16>
}

func.func @matmul_16384x8192x1024(%a: tensor<16384x8192xbf16>, %b: tensor<8192x1024xbf16>) -> tensor<16384x1024xbf16> {
  %c = fuser.matmul %a, %b : (tensor<16384x8192xbf16>, tensor<8192x1024xbf16>) -> tensor<16384x1024xbf16>
  return %c : tensor<16384x1024xbf16>
}

func.func @matmul_8192x8192x1024(%a: tensor<8192x8192xbf16>, %b: tensor<8192x1024xbf16>) -> tensor<8192x1024xbf16> {
  %c = fuser.matmul %a, %b : (tensor<8192x8192xbf16>, tensor<8192x1024xbf16>) -> tensor<8192x1024xbf16>
  return %c : tensor<8192x1024xbf16>
}

func.func @matmul_16384x1024x8192(%a: tensor<16384x1024xbf16>, %b: tensor<1024x8192xbf16>) -> tensor<16384x8192xbf16> {
  %c = fuser.matmul %a, %b : (tensor<16384x1024xbf16>, tensor<1024x8192xbf16>) -> tensor<16384x8192xbf16>
  return %c : tensor<16384x8192xbf16>
}
