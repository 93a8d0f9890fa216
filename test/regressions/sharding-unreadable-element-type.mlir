// A sharded tensor type whose element type is not a type: the parser's
// error, not a crash in the sharding's verifier (which the parser calls
// with no element type; a fuzz mutant found it).
// RUN: not fuser-opt %s 2>&1 | FileCheck %s
// CHECK: error:
// CHECK-NOT: PLEASE submit a bug report
func.func @unreadable(%x: tensor<8x4xtensor, #fuser.sharding<#fuser.mesh<[1]>, [[], []]>>) {
  return
}
