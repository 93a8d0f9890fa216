// RUN: fuser-opt %s -split-input-file --convert-fuser-to-linalg | FileCheck %s

// Pointwise ops become one linalg.generic each; bf16 computes in f32;
// gelu is the erf form.
// CHECK-LABEL: func.func @pointwise
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} ins(%{{.*}} : tensor<4x8xbf16>)
// CHECK: ^bb0(%[[IN:.*]]: bf16, %{{.*}}: bf16):
// CHECK: %[[X:.*]] = arith.extf %[[IN]] : bf16 to f32
// CHECK: math.erf
// CHECK: %[[R:.*]] = arith.truncf %{{.*}} : f32 to bf16
// CHECK: linalg.yield %[[R]] : bf16
// CHECK: linalg.generic
// CHECK: arith.addf %{{.*}}, %{{.*}} : f32
// CHECK-NOT: fuser.
module @program {
  module @kernels {
    func.func @pointwise(%a: memref<4x8xbf16>, %out: memref<4x8xbf16>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x8xbf16> to tensor<4x8xbf16>
      %1 = fuser.gelu %0 : tensor<4x8xbf16> -> tensor<4x8xbf16>
      %2 = fuser.add %1, %0 : (tensor<4x8xbf16>, tensor<4x8xbf16>) -> tensor<4x8xbf16>
      bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<4x8xbf16>, memref<4x8xbf16>) -> ()
      return
    }
  }
}

// -----

// Sigmoid and the tanh form of GELU take approximate exp and division on
// f32 (bf16 computes in f32); f64 keeps exact ones.
// CHECK-LABEL: func.func @approximate_activations
// CHECK: math.exp %{{.*}} fastmath<afn> : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<afn> : f32
// CHECK: linalg.generic
// CHECK: math.exp %{{.*}} fastmath<afn> : f32
// CHECK: arith.divf %{{.*}}, %{{.*}} fastmath<afn> : f32
// CHECK: linalg.generic
// CHECK: math.exp %{{.*}} : f64
// CHECK: arith.divf %{{.*}}, %{{.*}} : f64
module @program {
  module @kernels {
    func.func @approximate_activations(%a: memref<64xbf16>, %b: memref<64xf64>, %out: memref<64xbf16>, %out64: memref<64xf64>) {
      %0 = bufferization.to_tensor %a restrict : memref<64xbf16> to tensor<64xbf16>
      %1 = fuser.sigmoid %0 : tensor<64xbf16> -> tensor<64xbf16>
      %2 = fuser.gelu %1 approximation = tanh : tensor<64xbf16> -> tensor<64xbf16>
      bufferization.materialize_in_destination %2 in restrict writable %out : (tensor<64xbf16>, memref<64xbf16>) -> ()
      %3 = bufferization.to_tensor %b restrict : memref<64xf64> to tensor<64xf64>
      %4 = fuser.sigmoid %3 : tensor<64xf64> -> tensor<64xf64>
      bufferization.materialize_in_destination %4 in restrict writable %out64 : (tensor<64xf64>, memref<64xf64>) -> ()
      return
    }
  }
}

// -----

// sin, cos and erf are math ops of the element (f32 for bf16).
// CHECK-LABEL: func.func @trigonometry
// CHECK: arith.extf %{{.*}} : bf16 to f32
// CHECK-NEXT: math.sin %{{.*}} : f32
// CHECK: math.cos %{{.*}} : f32
// CHECK: math.erf %{{.*}} : f32
// CHECK-NOT: fuser.
module @program {
  module @kernels {
    func.func @trigonometry(%a: memref<64xbf16>, %out: memref<64xbf16>) {
      %0 = bufferization.to_tensor %a restrict : memref<64xbf16> to tensor<64xbf16>
      %1 = fuser.sin %0 : tensor<64xbf16> -> tensor<64xbf16>
      %2 = fuser.cos %1 : tensor<64xbf16> -> tensor<64xbf16>
      %3 = fuser.erf %2 : tensor<64xbf16> -> tensor<64xbf16>
      bufferization.materialize_in_destination %3 in restrict writable %out : (tensor<64xbf16>, memref<64xbf16>) -> ()
      return
    }
  }
}

// -----

// Reductions accumulate from the kind's identity, keepdim maps the reduced
// dim to index 0; mean divides by the reduced count; broadcasts read the
// input through a map that drops the new dims.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[ROW:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @reduce_and_broadcast
// CHECK: %[[NEG_INF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEG_INF]] : f32)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.maximumf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: arith.constant 8.000000e+00 : f32
// CHECK: arith.divf
// CHECK: linalg.generic {indexing_maps = [#[[ROW]], #[[ID]]]
module @program {
  module @kernels {
    func.func @reduce_and_broadcast(%a: memref<4x8xf32>, %b: memref<8xf32>, %m: memref<4x1xf32>, %s: memref<4x1xf32>, %out: memref<4x8xf32>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x8xf32> to tensor<4x8xf32>
      %1 = bufferization.to_tensor %b restrict : memref<8xf32> to tensor<8xf32>
      %2 = fuser.max %0 dims = [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
      %3 = fuser.mean %0 dims = [1] keepdim : tensor<4x8xf32> -> tensor<4x1xf32>
      %4 = fuser.broadcast %1 dims = [1] : tensor<8xf32> -> tensor<4x8xf32>
      bufferization.materialize_in_destination %2 in restrict writable %m : (tensor<4x1xf32>, memref<4x1xf32>) -> ()
      bufferization.materialize_in_destination %3 in restrict writable %s : (tensor<4x1xf32>, memref<4x1xf32>) -> ()
      bufferization.materialize_in_destination %4 in restrict writable %out : (tensor<4x8xf32>, memref<4x8xf32>) -> ()
      return
    }
  }
}

// -----

// Creation ops: iota adds its piece's offset to the local index; uniform
// hashes the seed with each element's global coordinates.
// CHECK-LABEL: func.func @creation
// CHECK-SAME: (%{{.*}}: memref<4xi64>, %{{.*}}: memref<4x2xf32>, %[[ROW:.*]]: index, %[[COL:.*]]: index)
// CHECK: linalg.generic
// CHECK: %[[I:.*]] = linalg.index 0 : index
// CHECK: arith.addi %[[I]], %[[ROW]] : index
// CHECK: arith.fptosi %{{.*}} : f64 to i64
// CHECK: linalg.generic
// CHECK: %[[R:.*]] = linalg.index 0 : index
// CHECK: %[[C:.*]] = linalg.index 1 : index
// CHECK: %[[SEED:.*]] = arith.constant 5 : i64
// CHECK: arith.addi %[[R]], %[[ROW]] : index
// CHECK: arith.xori %[[SEED]]
// CHECK: arith.addi %[[C]], %[[COL]] : index
// CHECK: arith.uitofp
module @program {
  module @kernels {
    func.func @creation(%iota: memref<4xi64>, %draw: memref<4x2xf32>, %row: index, %col: index) {
      %0 = fuser.iota dim = 0 at [%row] : tensor<4xi64>
      %1 = fuser.uniform low = 0.0, high = 1.0, seed = 5 at [%row, %col] : tensor<4x2xf32>
      bufferization.materialize_in_destination %0 in restrict writable %iota : (tensor<4xi64>, memref<4xi64>) -> ()
      bufferization.materialize_in_destination %1 in restrict writable %draw : (tensor<4x2xf32>, memref<4x2xf32>) -> ()
      return
    }
  }
}

// -----

// Integer pointwise ops use the signed ops and predicates; compare yields
// i1 and where selects; negation of an integer subtracts it from 0.
// CHECK-LABEL: func.func @compare_where
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<4x8xi32>, tensor<4x8xi32>) outs(%{{.*}} : tensor<4x8xi1>)
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i32
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<4x8xi32>)
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: arith.subi %[[ZERO]], %{{.*}} : i32
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}}, %{{.*}} : tensor<4x8xi1>, tensor<4x8xi32>, tensor<4x8xi32>)
// CHECK: arith.select %{{.*}}, %{{.*}}, %{{.*}} : i32
module @program {
  module @kernels {
    func.func @compare_where(%a: memref<4x8xi32>, %b: memref<4x8xi32>, %out: memref<4x8xi32>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x8xi32> to tensor<4x8xi32>
      %1 = bufferization.to_tensor %b restrict : memref<4x8xi32> to tensor<4x8xi32>
      %2 = fuser.compare lt, %0, %1 : (tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi1>
      %3 = fuser.neg %1 : tensor<4x8xi32> -> tensor<4x8xi32>
      %4 = fuser.where %2, %0, %3 : (tensor<4x8xi1>, tensor<4x8xi32>, tensor<4x8xi32>) -> tensor<4x8xi32>
      bufferization.materialize_in_destination %4 in restrict writable %out : (tensor<4x8xi32>, memref<4x8xi32>) -> ()
      return
    }
  }
}

// -----

// Copies are generics that convert each element: to i1 is `!= 0`, from i1
// is unsigned, other integers are signed; bf16 goes through f32; set and
// segment_set copy as they are.
// CHECK-LABEL: func.func @copies
// CHECK: ^bb0(%[[F:.*]]: f32, %{{.*}}: i1):
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[NONZERO:.*]] = arith.cmpf une, %[[F]], %[[ZERO]] : f32
// CHECK: linalg.yield %[[NONZERO]] : i1
// CHECK: arith.uitofp %{{.*}} : i1 to f32
// CHECK: ^bb0(%[[B:.*]]: bf16, %{{.*}}: i32):
// CHECK: %[[WIDE:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK: arith.fptosi %[[WIDE]] : f32 to i32
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN]] : f32
// CHECK: ^bb0(%[[IN2:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[IN2]] : f32
module @program {
  module @kernels {
    func.func @copies(%a: memref<4xf32>, %b: memref<4xbf16>, %f: memref<4xf32>, %i: memref<4xi32>, %s: memref<4xf32>) {
      %0 = bufferization.to_tensor %a restrict : memref<4xf32> to tensor<4xf32>
      %1 = bufferization.to_tensor %b restrict : memref<4xbf16> to tensor<4xbf16>
      %2 = fuser.cast %0 : tensor<4xf32> -> tensor<4xi1>
      %3 = fuser.cast %2 : tensor<4xi1> -> tensor<4xf32>
      %4 = fuser.cast %1 : tensor<4xbf16> -> tensor<4xi32>
      %5 = fuser.set %0 : tensor<4xf32> -> tensor<4xf32>
      %6 = fuser.segment_set %5 : tensor<4xf32> -> tensor<4xf32>
      bufferization.materialize_in_destination %3 in restrict writable %f : (tensor<4xf32>, memref<4xf32>) -> ()
      bufferization.materialize_in_destination %4 in restrict writable %i : (tensor<4xi32>, memref<4xi32>) -> ()
      bufferization.materialize_in_destination %6 in restrict writable %s : (tensor<4xf32>, memref<4xf32>) -> ()
      return
    }
  }
}

// -----

// full fills; normal draws by Box-Muller from the hashed state, in f64,
// converted to the element type at the end.
// CHECK-LABEL: func.func @full_and_normal
// CHECK-DAG: %[[VALUE:.*]] = arith.constant 2.500000e+00 : bf16
// CHECK-DAG: %[[EMPTY:.*]] = tensor.empty() : tensor<4x2xbf16>
// CHECK: linalg.fill ins(%[[VALUE]] : bf16) outs(%[[EMPTY]] : tensor<4x2xbf16>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}} outs(%{{.*}} : tensor<4x2xf16>)
// CHECK: linalg.index 0 : index
// CHECK: linalg.index 1 : index
// CHECK: arith.constant 9 : i64
// CHECK: math.log %{{.*}} : f64
// CHECK: math.sqrt %{{.*}} : f64
// CHECK: math.cos %{{.*}} : f64
// CHECK: %[[DRAW:.*]] = arith.truncf %{{.*}} : f64 to f16
// CHECK: linalg.yield %[[DRAW]] : f16
module @program {
  module @kernels {
    func.func @full_and_normal(%full: memref<4x2xbf16>, %draw: memref<4x2xf16>) {
      %0 = fuser.full 2.5 : tensor<4x2xbf16>
      %1 = fuser.normal mean = 0.0, std = 1.0, seed = 9 : tensor<4x2xf16>
      bufferization.materialize_in_destination %0 in restrict writable %full : (tensor<4x2xbf16>, memref<4x2xbf16>) -> ()
      bufferization.materialize_in_destination %1 in restrict writable %draw : (tensor<4x2xf16>, memref<4x2xf16>) -> ()
      return
    }
  }
}

// -----

// Integer reductions start from the combiner's identity at full width and
// combine with one signed op; dims dropped without keepdim; bf16 sums
// accumulate in f32 and truncate afterwards.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1) -> (d0)>
// CHECK-LABEL: func.func @reductions
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i32
// CHECK: linalg.fill ins(%[[ZERO]] : i32)
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[ROWS]]], iterator_types = ["parallel", "reduction"]}
// CHECK-NEXT: ^bb0(%[[IN:.*]]: i32, %[[ACC:.*]]: i32):
// CHECK-NEXT: %[[SUM:.*]] = arith.addi %[[ACC]], %[[IN]] : i32
// CHECK-NEXT: linalg.yield %[[SUM]] : i32
// CHECK: %[[MAX:.*]] = arith.constant 2147483647 : i32
// CHECK: linalg.fill ins(%[[MAX]] : i32)
// CHECK: arith.minsi
// CHECK: %[[FZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: linalg.fill ins(%[[FZERO]] : f32) outs(%{{.*}} : tensor<4xf32>)
// CHECK: ^bb0(%[[B:.*]]: bf16, %[[FACC:.*]]: f32):
// CHECK-NEXT: %[[WIDE:.*]] = arith.extf %[[B]] : bf16 to f32
// CHECK-NEXT: %[[FSUM:.*]] = arith.addf %[[FACC]], %[[WIDE]] : f32
// CHECK-NEXT: linalg.yield %[[FSUM]] : f32
// CHECK: arith.truncf %{{.*}} : f32 to bf16
module @program {
  module @kernels {
    func.func @reductions(%a: memref<4x8xi32>, %b: memref<4x8xbf16>, %s: memref<4xi32>, %m: memref<4xi32>, %t: memref<4xbf16>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x8xi32> to tensor<4x8xi32>
      %1 = bufferization.to_tensor %b restrict : memref<4x8xbf16> to tensor<4x8xbf16>
      %2 = fuser.sum %0 dims = [1] : tensor<4x8xi32> -> tensor<4xi32>
      %3 = fuser.min %0 dims = [1] : tensor<4x8xi32> -> tensor<4xi32>
      %4 = fuser.sum %1 dims = [1] : tensor<4x8xbf16> -> tensor<4xbf16>
      bufferization.materialize_in_destination %2 in restrict writable %s : (tensor<4xi32>, memref<4xi32>) -> ()
      bufferization.materialize_in_destination %3 in restrict writable %m : (tensor<4xi32>, memref<4xi32>) -> ()
      bufferization.materialize_in_destination %4 in restrict writable %t : (tensor<4xbf16>, memref<4xbf16>) -> ()
      return
    }
  }
}

// -----

// var_mean: the mean (sum / N), the squared differences from it read back
// over the input, their sum divided by N - correction, each result read out
// of the keepdim form.
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[KEEP:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0) -> (d0, 0)>
// CHECK-LABEL: func.func @var_mean
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: ^bb0(%[[SUM:.*]]: f32, %{{.*}}: f32):
// CHECK-NEXT: linalg.yield %[[SUM]] : f32
// CHECK: %[[MEAN:.*]] = linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.constant 8.000000e+00 : f32
// CHECK-NEXT: arith.divf
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]], #[[ID]]], iterator_types = ["parallel", "parallel"]} ins(%{{.*}}, %[[MEAN]] : tensor<4x8xf32>, tensor<4x1xf32>)
// CHECK: %[[DIFF:.*]] = arith.subf
// CHECK: arith.mulf %[[DIFF]], %[[DIFF]] : f32
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[KEEP]]], iterator_types = ["parallel", "reduction"]}
// CHECK: arith.addf
// CHECK: arith.constant 7.000000e+00 : f32
// CHECK: arith.divf
// CHECK: linalg.generic {indexing_maps = [#[[OUT]], #{{.*}}], iterator_types = ["parallel"]} ins(%{{.*}} : tensor<4x1xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: linalg.generic {indexing_maps = [#[[OUT]], #{{.*}}], iterator_types = ["parallel"]} ins(%[[MEAN]] : tensor<4x1xf32>) outs(%{{.*}} : tensor<4xf32>)
module @program {
  module @kernels {
    func.func @var_mean(%a: memref<4x8xf32>, %v: memref<4xf32>, %m: memref<4xf32>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x8xf32> to tensor<4x8xf32>
      %var, %mean = fuser.var_mean %0 dims = [1] : tensor<4x8xf32> -> tensor<4xf32>, tensor<4xf32>
      bufferization.materialize_in_destination %var in restrict writable %v : (tensor<4xf32>, memref<4xf32>) -> ()
      bufferization.materialize_in_destination %mean in restrict writable %m : (tensor<4xf32>, memref<4xf32>) -> ()
      return
    }
  }
}

// -----

// Views: expand reads its size-1 dim at index 0; squeeze and reshape go
// through one flat dim (a rank-0 tensor expands into it); permute is a
// linalg.transpose, slice and select extract slices (select drops its dim).
// CHECK-DAG: #[[EXPAND:.*]] = affine_map<(d0, d1) -> (d0, 0)>
// CHECK-LABEL: func.func @views
// CHECK: linalg.generic {indexing_maps = [#[[EXPAND]], #{{.*}}], iterator_types = ["parallel", "parallel"]} ins(%{{.*}} : tensor<4x1xf32>) outs(%{{.*}} : tensor<4x8xf32>)
// CHECK: %[[FLAT:.*]] = tensor.collapse_shape %{{.*}} {{\[}}[0, 1, 2]] : tensor<4x1x8xf32> into tensor<32xf32>
// CHECK: tensor.expand_shape %[[FLAT]] {{\[}}[0, 1]] output_shape [4, 8] : tensor<32xf32> into tensor<4x8xf32>
// CHECK: %[[ONE:.*]] = tensor.expand_shape %{{.*}} [] output_shape [1] : tensor<f32> into tensor<1xf32>
// CHECK: tensor.expand_shape %[[ONE]] {{\[}}[0, 1]] output_shape [1, 1] : tensor<1xf32> into tensor<1x1xf32>
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<8x4xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<4x8xf32>) outs(%[[EMPTY]] : tensor<8x4xf32>) permutation = [1, 0]
// CHECK: tensor.extract_slice %{{.*}}[0, 2] [4, 3] [1, 2] : tensor<4x8xf32> to tensor<4x3xf32>
// CHECK: tensor.extract_slice %{{.*}}[0, 3] [4, 1] [1, 1] : tensor<4x8xf32> to tensor<4xf32>
module @program {
  module @kernels {
    func.func @views(%a: memref<4x8xf32>, %b: memref<4x1x8xf32>, %c: memref<4x1xf32>, %d: memref<f32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x1xf32>, tensor<8x4xf32>, tensor<4x3xf32>, tensor<4xf32>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x8xf32> to tensor<4x8xf32>
      %1 = bufferization.to_tensor %b restrict : memref<4x1x8xf32> to tensor<4x1x8xf32>
      %2 = bufferization.to_tensor %c restrict : memref<4x1xf32> to tensor<4x1xf32>
      %3 = bufferization.to_tensor %d restrict : memref<f32> to tensor<f32>
      %4 = fuser.expand %2 : tensor<4x1xf32> -> tensor<4x8xf32>
      %5 = fuser.squeeze %1 dims = [1] : tensor<4x1x8xf32> -> tensor<4x8xf32>
      %6 = fuser.reshape %3 : tensor<f32> -> tensor<1x1xf32>
      %7 = fuser.permute %0 perm = [1, 0] : tensor<4x8xf32> -> tensor<8x4xf32>
      %8 = fuser.slice %0 starts = [0, 2] limits = [4, 8] steps = [1, 2] : tensor<4x8xf32> -> tensor<4x3xf32>
      %9 = fuser.select %0 dim = 1 index = 3 : tensor<4x8xf32> -> tensor<4xf32>
      return %4, %5, %6, %7, %8, %9 : tensor<4x8xf32>, tensor<4x8xf32>, tensor<1x1xf32>, tensor<8x4xf32>, tensor<4x3xf32>, tensor<4xf32>
    }
  }
}

// -----

// cat inserts its inputs one after the other into an empty tensor; pad
// inserts its input at the low offsets into a tensor full of the value.
// CHECK-LABEL: func.func @cat_and_pad
// CHECK: %[[EMPTY:.*]] = tensor.empty() : tensor<4x11xf32>
// CHECK: %[[FIRST:.*]] = tensor.insert_slice %{{.*}} into %[[EMPTY]][0, 0] [4, 8] [1, 1] : tensor<4x8xf32> into tensor<4x11xf32>
// CHECK: %[[CAT:.*]] = tensor.insert_slice %{{.*}} into %[[FIRST]][0, 8] [4, 3] [1, 1] : tensor<4x3xf32> into tensor<4x11xf32>
// CHECK-DAG: %[[VALUE:.*]] = arith.constant 3 : i32
// CHECK-DAG: %[[PADDED:.*]] = tensor.empty() : tensor<5x9xi32>
// CHECK: %[[FILLED:.*]] = linalg.fill ins(%[[VALUE]] : i32) outs(%[[PADDED]] : tensor<5x9xi32>)
// CHECK: tensor.insert_slice %{{.*}} into %[[FILLED]][0, 1] [4, 8] [1, 1] : tensor<4x8xi32> into tensor<5x9xi32>
module @program {
  module @kernels {
    func.func @cat_and_pad(%a: memref<4x8xf32>, %b: memref<4x3xf32>, %i: memref<4x8xi32>) -> (tensor<4x11xf32>, tensor<5x9xi32>) {
      %0 = bufferization.to_tensor %a restrict : memref<4x8xf32> to tensor<4x8xf32>
      %1 = bufferization.to_tensor %b restrict : memref<4x3xf32> to tensor<4x3xf32>
      %2 = bufferization.to_tensor %i restrict : memref<4x8xi32> to tensor<4x8xi32>
      %3 = fuser.cat %0, %1 dim = 1 : (tensor<4x8xf32>, tensor<4x3xf32>) -> tensor<4x11xf32>
      %4 = fuser.pad %2 low = [0, 1] high = [1, 0] {value = 3.0 : f64} : tensor<4x8xi32> -> tensor<5x9xi32>
      return %3, %4 : tensor<4x11xf32>, tensor<5x9xi32>
    }
  }
}

// -----

// The rank's position along the mesh reaches the kernel as an argument; once
// in linalg, the mark that says so is gone (LLVM would warn about it).
// CHECK-LABEL: func.func @positioned
// CHECK-SAME: (%{{.*}}: memref<2x4xi64>, %{{.*}}: index)
// CHECK-NOT: mesh_position
module @program {
  module @kernels {
    func.func @positioned(%out: memref<2x4xi64>, %row: index {fuser.mesh_position = #fuser.mesh_position<#fuser.mesh<[2]>, 0>}) {
      %c0 = arith.constant 0 : index
      %0 = fuser.iota dim = 0 at [%row, %c0] : tensor<2x4xi64>
      bufferization.materialize_in_destination %0 in restrict writable %out : (tensor<2x4xi64>, memref<2x4xi64>) -> ()
      return
    }
  }
}
