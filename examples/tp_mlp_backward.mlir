// The backward of the tensor-parallel MLP of tp_mlp.mlir, written by hand:
// the gradients of x and of both weights given the gradient of the output,
// with the signature of the @tp_mlp__vjp that `fuser-compile --vjp`
// generates from tp_mlp.mlir, which the tests check it against. It
// recomputes the first linear (the forward saves nothing here), takes
// GELU's derivative from it, and differentiates each linear into its two
// products. Only the arguments and results are annotated; propagation
// splits the hidden features as the forward does, and the data gradient of
// the column-parallel linear is a pending sum that one allreduce resolves.
//
// Global shapes: x [8, 64], w1 [256, 64], w2 [64, 256], grad_y [8, 64].

#mesh = #fuser.mesh<[2]>
#split_rows = #fuser.sharding<#mesh, [[0], []]>
#split_cols = #fuser.sharding<#mesh, [[], [0]]>
#whole = #fuser.sharding<#mesh, [[], []]>

func.func @tp_mlp_backward(%x: tensor<8x64xf32, #whole>,
                           %w1: tensor<256x64xf32, #split_rows>,
                           %w2: tensor<64x256xf32, #split_cols>,
                           %grad_y: tensor<8x64xf32, #whole>)
    -> (tensor<8x64xf32, #whole>, tensor<256x64xf32, #split_rows>,
        tensor<64x256xf32, #split_cols>) {
  %h = fuser.linear %x, %w1
      : (tensor<8x64xf32, #whole>, tensor<256x64xf32, #split_rows>) -> tensor<8x256xf32>
  %a = fuser.gelu %h approximation = tanh : tensor<8x256xf32> -> tensor<8x256xf32>
  // y = a w2^T: grad_a = grad_y w2, grad_w2 = grad_y^T a.
  %grad_a = fuser.matmul %grad_y, %w2
      : (tensor<8x64xf32, #whole>, tensor<64x256xf32, #split_cols>) -> tensor<8x256xf32>
  %grad_y_t = fuser.permute %grad_y perm = [1, 0] : tensor<8x64xf32, #whole> -> tensor<64x8xf32>
  %grad_w2 = fuser.matmul %grad_y_t, %a
      : (tensor<64x8xf32>, tensor<8x256xf32>) -> tensor<64x256xf32>
  // gelu'(h) = (1 + t) / 2 + h/2 (1 - t^2) c (1 + 3 a h^2),
  // t = tanh(c (h + a h^3)), c = sqrt(2 / pi), a = 0.044715.
  %c = fuser.full 0.7978845608028654 : tensor<8x256xf32>
  %cubic = fuser.full 0.044715 : tensor<8x256xf32>
  %cubic3 = fuser.full 0.134145 : tensor<8x256xf32>
  %one = fuser.full 1.0 : tensor<8x256xf32>
  %half = fuser.full 0.5 : tensor<8x256xf32>
  %h2 = fuser.mul %h, %h : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %h3 = fuser.mul %h2, %h : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %ah3 = fuser.mul %h3, %cubic : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %inner0 = fuser.add %h, %ah3 : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %inner = fuser.mul %inner0, %c : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %t = fuser.tanh %inner : tensor<8x256xf32> -> tensor<8x256xf32>
  %t2 = fuser.mul %t, %t : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %sech2 = fuser.sub %one, %t2 : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %a3h2 = fuser.mul %h2, %cubic3 : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %slope0 = fuser.add %one, %a3h2 : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %slope = fuser.mul %slope0, %c : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %onet = fuser.add %one, %t : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %left = fuser.mul %onet, %half : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %halfh = fuser.mul %h, %half : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %right0 = fuser.mul %sech2, %slope : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %right = fuser.mul %halfh, %right0 : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %derivative = fuser.add %left, %right : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  %grad_h = fuser.mul %grad_a, %derivative : (tensor<8x256xf32>, tensor<8x256xf32>) -> tensor<8x256xf32>
  // h = x w1^T: grad_x = grad_h w1, grad_w1 = grad_h^T x.
  %grad_x = fuser.matmul %grad_h, %w1
      : (tensor<8x256xf32>, tensor<256x64xf32, #split_rows>) -> tensor<8x64xf32>
  %grad_h_t = fuser.permute %grad_h perm = [1, 0] : tensor<8x256xf32> -> tensor<256x8xf32>
  %grad_w1 = fuser.matmul %grad_h_t, %x
      : (tensor<256x8xf32>, tensor<8x64xf32, #whole>) -> tensor<256x64xf32>
  %gx = fuser.set %grad_x : tensor<8x64xf32> -> tensor<8x64xf32, #whole>
  %gw1 = fuser.set %grad_w1 : tensor<256x64xf32> -> tensor<256x64xf32, #split_rows>
  %gw2 = fuser.set %grad_w2 : tensor<64x256xf32> -> tensor<64x256xf32, #split_cols>
  return %gx, %gw1, %gw2
      : tensor<8x64xf32, #whole>, tensor<256x64xf32, #split_rows>, tensor<64x256xf32, #split_cols>
}
