// Debian's mlir-opt loads the dialects and passes from the plugin and runs
// them: sharding propagation, then the whole host pipeline, which turns
// the row-parallel linear's partial sum into one allreduce.
// REQUIRES: mlir-opt-plugin
// RUN: %mlir_opt --load-dialect-plugin=%fuser_plugin %s --pass-pipeline='builtin.module(func.func(fuser-propagate-shardings))' | FileCheck %s --check-prefix=PROPAGATE
// RUN: %mlir_opt --load-dialect-plugin=%fuser_plugin --load-pass-plugin=%fuser_plugin %s --pass-pipeline='builtin.module(fuser-to-hostir-pipeline)' | FileCheck %s --check-prefix=HOST
// A pass plugin alone registers no dialect: the fuser types do not parse.
// RUN: not %mlir_opt --load-pass-plugin=%fuser_plugin %s 2>&1 | FileCheck %s --check-prefix=NO-DIALECT

// PROPAGATE: #[[PARTIAL:sharding[0-9]*]] = #fuser.sharding<#mesh, {{\[\[\], \[\]\]}}, partial = {0 : sum}>
// PROPAGATE-LABEL: func.func @row_parallel
// PROPAGATE: fuser.linear {{.*}} -> tensor<8x32xf32, #[[PARTIAL]]>
// HOST-LABEL: func.func @row_parallel
// HOST: hostir.linear
// HOST: hostir.allreduce
// HOST: hostir.wait
// NO-DIALECT: error: #"fuser"<"mesh<[2]>"> : 'none' attribute created with unregistered dialect
#mesh = #fuser.mesh<[2]>
#split_k = #fuser.sharding<#mesh, [[], [0]]>
#replicated = #fuser.sharding<#mesh, [[], []]>
func.func @row_parallel(%x: tensor<8x16xf32, #split_k>, %w: tensor<32x16xf32, #split_k>) -> tensor<8x32xf32, #replicated> {
  %y = fuser.linear %x, %w : (tensor<8x16xf32, #split_k>, tensor<32x16xf32, #split_k>) -> tensor<8x32xf32>
  %r = fuser.set %y : tensor<8x32xf32> -> tensor<8x32xf32, #replicated>
  return %r : tensor<8x32xf32, #replicated>
}
