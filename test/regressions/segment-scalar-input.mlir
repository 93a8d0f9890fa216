// A kernel op whose operand is not a tensor (the scalar of a linalg.fill
// that convert-linalg-to-fuser cannot raise) gets a diagnostic from
// segmentation instead of an assertion on the operand's type.
// RUN: not fuser-opt %s --fuser-segment 2>&1 | FileCheck %s
// RUN: not fuser-opt %s --fuser-to-hostir-pipeline 2>&1 | FileCheck %s

// CHECK: error: 'linalg.fill' op operand #0 of type 'f32' comes from outside the segment; kernels take ranked tensors only
#s = #fuser.sharding<#fuser.mesh<[2]>, [[0]]>
func.func @fill(%x: f32) -> tensor<8xf32, #s> {
  %e = tensor.empty() : tensor<8xf32, #s>
  %f = linalg.fill ins(%x : f32) outs(%e : tensor<8xf32, #s>) -> tensor<8xf32, #s>
  return %f : tensor<8xf32, #s>
}
