// RUN: fuser-opt %s -split-input-file --fuser-lower-host-to-llvm -verify-diagnostics
// RUN: fuser-opt %s -split-input-file --fuser-lower-host-to-llvm=target=cpu -verify-diagnostics

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
