// RUN: not fuser-opt %s -pass-pipeline='builtin.module(func.func(fuser-decompose-reshardings{reshard-placement=sideways}))' 2>&1 | FileCheck %s
// CHECK: reshard-placement must be auto, before or after, got 'sideways'
func.func @f() {
  return
}
