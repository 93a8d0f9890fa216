// RUN: not fuser-opt %s -pass-pipeline='builtin.module(func.func(fuser-decompose-reshardings{reshard-placement=sideways}))' 2>&1 | FileCheck %s
// CHECK: for the --reshard-placement option: Cannot find option named 'sideways'!
func.func @f() {
  return
}
