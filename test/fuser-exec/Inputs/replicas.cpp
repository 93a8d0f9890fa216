//===- replicas.cpp - a program library written by hand -------------------===//
//
// What fuser-compile writes for two programs on a mesh of 3 devices, both
// taking x: f32[3, 4], replicated, and returning
//   #0: 2 * x, its rows split over the mesh (each rank holds one row),
//   #1: x + 1, replicated (each rank holds a whole copy),
// and their unsharded references. `replicated` is right on every rank;
// `replica_differs` is a miscompile whose rank 1 copy of #1 is off by one
// at [1, 2], while rank 0's and rank 2's copies, the first and the last,
// are right: only a check of every replica sees it.
//
//===----------------------------------------------------------------------===//

#include "fuser/Runtime/Runtime.h"

#define STRINGIFY(x) #x
#define VERSION(x) STRINGIFY(x)
#define MESH R"("mesh": {"shape": [3], "devices": [0, 1, 2]})"
#define PROGRAM(name)                                                          \
  R"({"name": ")" name R"(", "entry": "_mlir_)" name                           \
  R"(", "reference": "_mlir_)" name R"(__reference",)"                         \
  R"("inputs": [{"dtype": "f32", "shape": [3, 4], )" MESH                      \
  R"(, "dim_axes": [[], []]}], "outputs": [)"                                  \
  R"({"dtype": "f32", "shape": [3, 4], )" MESH R"(, "dim_axes": [[0], []]},)"  \
  R"({"dtype": "f32", "shape": [3, 4], )" MESH R"(, "dim_axes": [[], []]}]})"

#define FORMAT                                                                 \
  R"("format": "fuser-program", "version": )" VERSION(                         \
      FUSER_PROGRAM_ABI_VERSION) R"(, "target": "cpu")"

extern "C" const char fuser_program_metadata[] =
    "{" FORMAT R"(, "programs": [)" PROGRAM("replicated") "," PROGRAM(
        "replica_differs") "]}";

namespace {
/// A memref descriptor of rank 2, as the entry points take them.
struct Memref {
  float *allocated, *aligned;
  int64_t offset, sizes[2], strides[2];
};

Memref allocate(int64_t rows, int64_t columns) {
  auto *data = static_cast<float *>(fuser_checked(
      fuser_allocate(rows * columns * sizeof(float), FUSER_MEMORY_HOST, 0)));
  return {data, data, 0, {rows, columns}, {columns, 1}};
}

/// #0 holds `rows` rows of 2 * x from `firstRow`; #1 is x + 1, whole.
void compute(Memref *results, const Memref *x, int64_t firstRow, int64_t rows) {
  results[0] = allocate(rows, 4);
  results[1] = allocate(3, 4);
  for (int64_t row = 0; row < 3; ++row)
    for (int64_t column = 0; column < 4; ++column) {
      float value = x->aligned[row * 4 + column];
      results[1].aligned[row * 4 + column] = value + 1;
      if (row >= firstRow && row < firstRow + rows)
        results[0].aligned[(row - firstRow) * 4 + column] = 2 * value;
    }
}
} // namespace

// The packed entry points: arguments[0] points to the results' descriptors,
// arguments[1] to x's.
extern "C" {
void _mlir_replicated(void **arguments) {
  compute(*static_cast<Memref **>(arguments[0]),
          *static_cast<Memref **>(arguments[1]), fuser_rank(), 1);
}

void _mlir_replica_differs(void **arguments) {
  Memref *results = *static_cast<Memref **>(arguments[0]);
  compute(results, *static_cast<Memref **>(arguments[1]), fuser_rank(), 1);
  if (fuser_rank() == 1)
    results[1].aligned[1 * 4 + 2] += 1;
}

void _mlir_replicated__reference(void **arguments) {
  compute(*static_cast<Memref **>(arguments[0]),
          *static_cast<Memref **>(arguments[1]), 0, 3);
}

void _mlir_replica_differs__reference(void **arguments) {
  compute(*static_cast<Memref **>(arguments[0]),
          *static_cast<Memref **>(arguments[1]), 0, 3);
}
}
