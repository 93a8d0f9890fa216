// bf16 products on one GPU (a mesh of one device: fuser-exec under
// mpirun -np 1), at the sizes the overlap benchmark's programs multiply
// whole and in pipeline chunks: A [m, k] x B [k, n], named matmul_MxKxN;
// and C products of one size back to back, as a ring's chunks run, named
// chunks_CxMxKxN. bench/overlap/profile/gemm_tuning.sh times them, and
// the single products against torch.mm.

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

func.func @chunks_2x16384x16384x8192(%a0: tensor<16384x16384xbf16>, %a1: tensor<16384x16384xbf16>, %b: tensor<16384x8192xbf16>) -> (tensor<16384x8192xbf16>, tensor<16384x8192xbf16>) {
  %c0 = fuser.matmul %a0, %b : (tensor<16384x16384xbf16>, tensor<16384x8192xbf16>) -> tensor<16384x8192xbf16>
  %c1 = fuser.matmul %a1, %b : (tensor<16384x16384xbf16>, tensor<16384x8192xbf16>) -> tensor<16384x8192xbf16>
  return %c0, %c1 : tensor<16384x8192xbf16>, tensor<16384x8192xbf16>
}

func.func @chunks_4x8192x16384x8192(%a0: tensor<8192x16384xbf16>, %a1: tensor<8192x16384xbf16>, %a2: tensor<8192x16384xbf16>, %a3: tensor<8192x16384xbf16>, %b: tensor<16384x8192xbf16>) -> (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) {
  %c0 = fuser.matmul %a0, %b : (tensor<8192x16384xbf16>, tensor<16384x8192xbf16>) -> tensor<8192x8192xbf16>
  %c1 = fuser.matmul %a1, %b : (tensor<8192x16384xbf16>, tensor<16384x8192xbf16>) -> tensor<8192x8192xbf16>
  %c2 = fuser.matmul %a2, %b : (tensor<8192x16384xbf16>, tensor<16384x8192xbf16>) -> tensor<8192x8192xbf16>
  %c3 = fuser.matmul %a3, %b : (tensor<8192x16384xbf16>, tensor<16384x8192xbf16>) -> tensor<8192x8192xbf16>
  return %c0, %c1, %c2, %c3 : tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>
}

func.func @chunks_4x8192x8192x8192(%a0: tensor<8192x8192xbf16>, %a1: tensor<8192x8192xbf16>, %a2: tensor<8192x8192xbf16>, %a3: tensor<8192x8192xbf16>, %b: tensor<8192x8192xbf16>) -> (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) {
  %c0 = fuser.matmul %a0, %b : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
  %c1 = fuser.matmul %a1, %b : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
  %c2 = fuser.matmul %a2, %b : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
  %c3 = fuser.matmul %a3, %b : (tensor<8192x8192xbf16>, tensor<8192x8192xbf16>) -> tensor<8192x8192xbf16>
  return %c0, %c1, %c2, %c3 : tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>, tensor<8192x8192xbf16>
}
