// A program of 40 inputs and 12 outputs on 2 ranks: more arguments than any
// fixed-arity call could take, so the runner reaches it through its packed
// entry point. Inputs 0-11 and 24-35 are split by rows, the others
// replicated; output k adds inputs k, k + 12, k + 24 (and k + 36), so that
// split and replicated operands meet.
#mesh = #fuser.mesh<[2]>
#rows = #fuser.sharding<#mesh, [[0], []]>
#whole = #fuser.sharding<#mesh, [[], []]>
func.func @many_arguments(%a0: tensor<8x4xf32, #rows>, %a1: tensor<8x4xf32, #rows>, %a2: tensor<8x4xf32, #rows>, %a3: tensor<8x4xf32, #rows>, %a4: tensor<8x4xf32, #rows>, %a5: tensor<8x4xf32, #rows>, %a6: tensor<8x4xf32, #rows>, %a7: tensor<8x4xf32, #rows>, %a8: tensor<8x4xf32, #rows>, %a9: tensor<8x4xf32, #rows>, %a10: tensor<8x4xf32, #rows>, %a11: tensor<8x4xf32, #rows>, %a12: tensor<8x4xf32, #whole>, %a13: tensor<8x4xf32, #whole>, %a14: tensor<8x4xf32, #whole>, %a15: tensor<8x4xf32, #whole>, %a16: tensor<8x4xf32, #whole>, %a17: tensor<8x4xf32, #whole>, %a18: tensor<8x4xf32, #whole>, %a19: tensor<8x4xf32, #whole>, %a20: tensor<8x4xf32, #whole>, %a21: tensor<8x4xf32, #whole>, %a22: tensor<8x4xf32, #whole>, %a23: tensor<8x4xf32, #whole>, %a24: tensor<8x4xf32, #rows>, %a25: tensor<8x4xf32, #rows>, %a26: tensor<8x4xf32, #rows>, %a27: tensor<8x4xf32, #rows>, %a28: tensor<8x4xf32, #rows>, %a29: tensor<8x4xf32, #rows>, %a30: tensor<8x4xf32, #rows>, %a31: tensor<8x4xf32, #rows>, %a32: tensor<8x4xf32, #rows>, %a33: tensor<8x4xf32, #rows>, %a34: tensor<8x4xf32, #rows>, %a35: tensor<8x4xf32, #rows>, %a36: tensor<8x4xf32, #whole>, %a37: tensor<8x4xf32, #whole>, %a38: tensor<8x4xf32, #whole>, %a39: tensor<8x4xf32, #whole>) -> (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) {
  %s0_0 = fuser.add %a0, %a12 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s0_1 = fuser.add %s0_0, %a24 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %s0_2 = fuser.add %s0_1, %a36 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s1_0 = fuser.add %a1, %a13 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s1_1 = fuser.add %s1_0, %a25 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %s1_2 = fuser.add %s1_1, %a37 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s2_0 = fuser.add %a2, %a14 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s2_1 = fuser.add %s2_0, %a26 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %s2_2 = fuser.add %s2_1, %a38 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s3_0 = fuser.add %a3, %a15 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s3_1 = fuser.add %s3_0, %a27 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %s3_2 = fuser.add %s3_1, %a39 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s4_0 = fuser.add %a4, %a16 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s4_1 = fuser.add %s4_0, %a28 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %s5_0 = fuser.add %a5, %a17 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s5_1 = fuser.add %s5_0, %a29 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %s6_0 = fuser.add %a6, %a18 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s6_1 = fuser.add %s6_0, %a30 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %s7_0 = fuser.add %a7, %a19 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s7_1 = fuser.add %s7_0, %a31 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %s8_0 = fuser.add %a8, %a20 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s8_1 = fuser.add %s8_0, %a32 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %s9_0 = fuser.add %a9, %a21 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s9_1 = fuser.add %s9_0, %a33 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %s10_0 = fuser.add %a10, %a22 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s10_1 = fuser.add %s10_0, %a34 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  %s11_0 = fuser.add %a11, %a23 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #whole>) -> tensor<8x4xf32, #rows>
  %s11_1 = fuser.add %s11_0, %a35 : (tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>) -> tensor<8x4xf32, #rows>
  return %s0_2, %s1_2, %s2_2, %s3_2, %s4_1, %s5_1, %s6_1, %s7_1, %s8_1, %s9_1, %s10_1, %s11_1 : tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>, tensor<8x4xf32, #rows>
}
