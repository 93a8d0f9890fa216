"""One rank of test_runtime.py's one-call tests: definitions built with
operators and Python scalars run through fd.execute (compiled once, by one
rank, into the cache folder given), a definition whose tensors are all
replicated runs on both ranks, and every rank compiling to one path at
once writes one whole library."""

import os
import sys

import numpy as np

from fuser_mlir import FusionDefinition, Mesh, ir, runtime


def main(cache):
    os.environ["FUSER_CACHE_DIR"] = cache
    rank = runtime.rank()
    generator = np.random.default_rng(3)
    x = generator.uniform(-1, 1, (8, 16)).astype(np.float32)
    w = generator.uniform(-1, 1, (32, 16)).astype(np.float32)

    with FusionDefinition("scaled_linear", mesh=Mesh([2])) as fd:
        fx = fd.input([8, 16], np.float32, name="x")
        fw = fd.input([32, 16], "f32", sharding=[[0], []], name="w")
        y = fd.linear(fx, fw)
        fd.output(0.5 * y + 1, fd.sum(y, dim=-1))
    y, total = fd.execute([x, w])
    expected = x @ w.T
    assert np.allclose(y, 0.5 * expected + 1, atol=1e-5), "scaled_linear"
    assert np.allclose(total, expected.sum(-1), atol=1e-4), "sum"
    again, _ = fd.execute([x, w])
    assert np.array_equal(again, y)
    libraries = [name for name in os.listdir(cache) if name.endswith(".so")]
    assert len(libraries) == 1, libraries

    with FusionDefinition("replicated", mesh=Mesh([2])) as fd:
        fx = fd.input([8, 16], "f32")
        fd.output(fx * fx)
    squared, = fd.execute([x])
    assert np.allclose(squared, x * x), "replicated"
    library = fd.compiled()
    assert len(library.inputs("replicated")[0]["devices"]) == 2

    # Every rank compiles to one path at once, and loads it.
    module = ir.Module.parse(fd.text(), ir.Context())
    shared = os.path.join(cache, "shared.so")
    for _ in range(5):
        ir.compile(module, shared)
        runtime.barrier("compiling to one path")
        squared, = runtime.Library(shared).run("replicated", [x])
        assert np.allclose(squared, x * x)
        runtime.barrier("loading the shared library")
    print(f"rank {rank}: execute ok")


if __name__ == "__main__":
    main(sys.argv[1])
