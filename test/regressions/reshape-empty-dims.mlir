// The factors of a reshape between shapes with empty dims: an empty dim
// shares a factor only with an empty dim (the rule used to divide a size
// by 0 and stop the compiler with SIGFPE).
// RUN: fuser-opt %s -fuser-test-sharding-rules -verify-diagnostics

func.func @empty(%x: tensor<4x0xf32>) -> tensor<0x4xf32> {
  // expected-remark @+1 {{factors f0=4:blocked f1=0:blocked f2=0:blocked f3=4:blocked; operands (f0)(f1); results (f2)(f3)}}
  %y = fuser.reshape %x : tensor<4x0xf32> -> tensor<0x4xf32>
  return %y : tensor<0x4xf32>
}
