// RUN: fuser-opt %s -split-input-file --convert-hostir-to-llvm -verify-diagnostics
// RUN: fuser-opt %s -split-input-file --convert-hostir-to-llvm=target=cpu -verify-diagnostics

func.func @ipc(%b: memref<8xf32>) {
  %r = hostir.rank : index
  %t = hostir.team %r mesh = #fuser.mesh<[2]> axes = [0] : !hostir.team<2>
  // expected-error @+1 {{CUDA IPC needs the CUDA runtime backend (target=cuda); compile for CPU ranks with backend=mpi or backend=nccl}}
  %h = hostir.ipc_share %b on %t : memref<8xf32>, !hostir.team<2>
  return
}

// -----

module {
  func.func @launch(%b: memref<8xf32>) {
    return
  }
  module @kernels {
    // expected-error @+1 {{the kernel module is not in the LLVM dialect; run fuser-kernels-to-llvm first}}
    func.func @k(%b: memref<8xf32>) {
      return
    }
  }
}

// -----

// expected-error @+1 {{symbol @fuser_rank is reserved for the runtime and the programs' C entry points}}
func.func private @fuser_rank() -> i32

// -----

// Kernels compiled for GPUs do not run on CPU ranks.
module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "PTX">]
  func.func @program(%b: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'hostir.launch' op kernel @kernels::@fused_0 is compiled for GPUs (a gpu.binary); target=cpu launches kernels compiled for CPU ranks (fuser-kernels-to-llvm)}}
    hostir.launch @kernels::@fused_0 blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<8xf32>)
    return
  }
}
