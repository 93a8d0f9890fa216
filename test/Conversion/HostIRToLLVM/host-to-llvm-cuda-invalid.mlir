// RUN: fuser-opt %s -split-input-file --fuser-lower-host-to-llvm=target=cuda -verify-diagnostics

// Kernels have no GPU code generation yet: a program that launches one is
// refused, naming the kernel.
module {
  func.func @program(%b: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'hostir.launch' op kernel @kernels::@fused_0 needs GPU code generation, which --target=cuda does not have yet}}
    hostir.launch @kernels::@fused_0 blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<8xf32>)
    return
  }
  module @kernels {
    func.func @fused_0(%b: memref<8xf32>) {
      return
    }
  }
}

// -----

// expected-error @+1 {{symbol @_mlir_ciface_program is reserved for the runtime and the programs' C entry points}}
func.func private @_mlir_ciface_program()
