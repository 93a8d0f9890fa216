// Which calibration pipelining=auto weighs: the `calibration` option (a
// file, a folder of them, or `builtin`), else $FUSER_CALIBRATION (lit sets
// it to `builtin`), else the default folder, else the built-in one. In a
// folder, the calibration of as many devices as the function's meshes
// span; the function records which in `fuser.calibration`.
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto backend=cuda_ipc}))' -mlir-print-local-scope | FileCheck %s --check-prefix=BUILTIN
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto backend=cuda_ipc calibration=%S/Inputs/calibrations}))' -mlir-print-local-scope | FileCheck %s --check-prefix=FOLDER
// RUN: env FUSER_CALIBRATION=%S/Inputs/calibrations fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto backend=cuda_ipc}))' -mlir-print-local-scope | FileCheck %s --check-prefix=FOLDER
// The default folder, where neither names one.
// RUN: rm -rf %t && mkdir -p %t/fuser && cp -r %S/Inputs/calibrations %t/fuser/calibrations
// RUN: env -u FUSER_CALIBRATION XDG_DATA_HOME=%t fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto backend=cuda_ipc}))' -mlir-print-local-scope | FileCheck %s --check-prefix=FOLDER
// RUN: env -u FUSER_CALIBRATION XDG_DATA_HOME=%t fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto backend=cuda_ipc calibration=builtin}))' -mlir-print-local-scope | FileCheck %s --check-prefix=BUILTIN
// Two calibrations of 2 devices: the ranks per node choose, else an error.
// RUN: not fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto calibration=%S/Inputs/ambiguous-calibrations}))' 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto calibration=%S/Inputs/ambiguous-calibrations ranks-per-node=1}))' -mlir-print-local-scope | FileCheck %s --check-prefix=CHOSEN
// RUN: not fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=auto calibration=%S/Inputs/newer-calibration.json}))' 2>&1 | FileCheck %s --check-prefix=NEWER
// A fixed mode weighs no calibration.
// RUN: fuser-opt %s -split-input-file -pass-pipeline='builtin.module(func.func(fuser-expose-pipelined-axes{pipelining=ring calibration=%S/Inputs/newer-calibration.json}))' | FileCheck %s --check-prefix=FIXED

// AMBIGUOUS: error: more than one calibration in '{{.*}}ambiguous-calibrations' fits 2 devices: name one (--pipelining-calibration, $FUSER_CALIBRATION) or the ranks per node (--ranks-per-node):
// AMBIGUOUS-NEXT: {{.*}}test-gpu-2gpu-1node.json (Test GPU, 2 devices, 2 per node)
// AMBIGUOUS-NEXT: {{.*}}test-gpu-2gpu-2node.json (Test GPU, 2 devices, 1 per node)
// NEWER: error: the calibration '{{.*}}newer-calibration.json': it is of another format version (this compiler reads version 1): measure the machine again with fuser-calibrate
// FIXED-NOT: fuser.calibration

// An 8192^3 bf16 AG+GEMM on 2 devices: the built-in calibration's copy
// engine hides the allgather in a ring; the folder's calibration of 2
// devices has collectives that do not interfere and a slow copy engine, so
// the collective pipeline wins.
// BUILTIN-LABEL: func.func @on_two_devices
// BUILTIN-SAME: fuser.calibration = "built-in (2 x NVIDIA H200, NVLink)"
// BUILTIN: fuser.pipelining = #fuser.pipelining<ring>
// FOLDER-LABEL: func.func @on_two_devices
// FOLDER-SAME: fuser.calibration = "{{.*}}calibrations/test-gpu-2gpu-1node.json (Test GPU, 2 devices, 2 per node)"
// FOLDER: fuser.pipelining = #fuser.pipelining<collective>
// CHOSEN-LABEL: func.func @on_two_devices
// CHOSEN-SAME: fuser.calibration = "{{.*}}test-gpu-2gpu-2node.json (Test GPU, 2 devices, 1 per node)"
#mesh = #fuser.mesh<[2]>
#x = #fuser.sharding<#mesh, [[0], []], stream = {0 : 4}>
#whole = #fuser.sharding<#mesh, [[], []]>
func.func @on_two_devices(%x: tensor<8192x8192xbf16, #x>, %b: tensor<8192x8192xbf16, #whole>) -> tensor<8192x8192xbf16, #whole> {
  %g = fuser.comm.allgather %x axis = 0 : tensor<8192x8192xbf16, #x> -> tensor<8192x8192xbf16, #whole>
  %y = fuser.matmul %g, %b : (tensor<8192x8192xbf16, #whole>, tensor<8192x8192xbf16, #whole>) -> tensor<8192x8192xbf16, #whole>
  return %y : tensor<8192x8192xbf16, #whole>
}

// -----

// A mesh of 4 devices takes the folder's calibration of 4; none of 1
// device is there, so a function on one device gets the built-in one.
// FOLDER-LABEL: func.func @on_four_devices
// FOLDER-SAME: fuser.calibration = "{{.*}}calibrations/test-gpu-4gpu-2node.json (Test GPU, 4 devices, 2 per node)"
#mesh = #fuser.mesh<[4]>
#x = #fuser.sharding<#mesh, [[0], []]>
#whole = #fuser.sharding<#mesh, [[], []]>
func.func @on_four_devices(%x: tensor<256x64xbf16, #x>, %b: tensor<64x64xbf16, #whole>) -> tensor<256x64xbf16, #whole> {
  %g = fuser.comm.allgather %x axis = 0 : tensor<256x64xbf16, #x> -> tensor<256x64xbf16, #whole>
  %y = fuser.matmul %g, %b : (tensor<256x64xbf16, #whole>, tensor<64x64xbf16, #whole>) -> tensor<256x64xbf16, #whole>
  return %y : tensor<256x64xbf16, #whole>
}

// -----

// FOLDER-LABEL: func.func @on_one_device
// FOLDER-SAME: fuser.calibration = "built-in (2 x NVIDIA H200, NVLink)"
func.func @on_one_device(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}
