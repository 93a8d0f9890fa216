// RUN: fuser-opt %s -pass-pipeline='builtin.module(func.func(fuser-mark-aliases))' | FileCheck %s

// A declaration has no body to move argument views in (fuser-fuzz found
// the crash: mutant 10 of seed 1), and keeps its type: its inputs were
// once dropped with the body's missing arguments.
// CHECK: func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
func.func private @declared(tensor<4xf32>) -> tensor<4xf32>
