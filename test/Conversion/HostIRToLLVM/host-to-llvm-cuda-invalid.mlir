// RUN: fuser-opt %s -split-input-file --convert-hostir-to-llvm=target=cuda -verify-diagnostics

// GPUs launch kernels of a compiled kernel module (a gpu.binary): one still
// in a builtin module is refused, naming the kernel.
module {
  func.func @program(%b: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'hostir.launch' op kernel @kernels::@fused_0 is not compiled for GPUs: for target=cuda the kernel module must be compiled to a gpu.binary first (run the GPU kernel pipeline, fuser-kernels-to-ptx)}}
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

// A gpu.module is not compiled yet either.
module attributes {gpu.container_module} {
  func.func @program(%b: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{kernel @kernels::@fused_0 is not compiled for GPUs}}
    hostir.launch @kernels::@fused_0 blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<8xf32>)
    return
  }
  gpu.module @kernels {
    gpu.func @fused_0(%b: memref<8xf32>) kernel {
      gpu.return
    }
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, assembly = "sm_90 PTX">,
                       #gpu.object<#nvvm.target<chip = "sm_80">, assembly = "sm_80 PTX">]
  func.func @program(%b: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'hostir.launch' op kernel @kernels::@fused_0 is in a gpu.binary of 2 objects; target=cuda embeds one (compile the kernels for one GPU)}}
    hostir.launch @kernels::@fused_0 blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<8xf32>)
    return
  }
}

// -----

module attributes {gpu.container_module} {
  gpu.binary @kernels [#gpu.object<#nvvm.target<chip = "sm_90">, offload = "LLVM bitcode">]
  func.func @program(%b: memref<8xf32>) {
    %c1 = arith.constant 1 : index
    // expected-error @+1 {{'hostir.launch' op kernel @kernels::@fused_0 is LLVM bitcode (a gpu.binary of format offload), which the CUDA driver cannot load; compile the kernels to PTX (gpu-module-to-binary{format=isa})}}
    hostir.launch @kernels::@fused_0 blocks(%c1, %c1, %c1) threads(%c1, %c1, %c1) args(%b : memref<8xf32>)
    return
  }
}

// -----

// expected-error @+1 {{symbol @_mlir_ciface_program is reserved for the runtime and the programs' C entry points}}
func.func private @_mlir_ciface_program()

// -----

// The CUDA runtime backend posts on NCCL: an MPI communication is refused.
func.func @mpi_on_gpus(%a: memref<4xf32>, %b: memref<8xf32>) {
  %r = hostir.rank : index
  %t = hostir.team %r mesh = #fuser.mesh<[2]> axes = [0] : !hostir.team<2>
  // expected-error @+1 {{'hostir.allgather' op posts on MPI, which the CUDA runtime backend does not run on device buffers; lower with backend=nccl}}
  %w = hostir.allgather %a, %b on %t backend = mpi : memref<4xf32>, memref<8xf32>, !hostir.team<2>
  hostir.wait %w for %a, %b : memref<4xf32>, memref<8xf32>
  return
}
