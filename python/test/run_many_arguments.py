"""One rank of test_runtime.py: runs test/e2e/Inputs/many-arguments.mlir
(40 inputs, 12 outputs, more than any fixed-arity call takes) from NumPy,
sharded and as its unsharded reference, and checks every output: output k
adds inputs k, k + 12, k + 24 (and k + 36). Prints one line per rank."""

import sys

import numpy as np

from fuser_mlir import runtime


def main(path):
    library = runtime.Library(path)
    generator = np.random.default_rng(3)
    inputs = [generator.uniform(-1, 1, (8, 4)).astype(np.float32) for _ in range(40)]
    expected = [sum(inputs[i] for i in (k, k + 12, k + 24, k + 36) if i < 40)
                for k in range(12)]
    outputs = library.run("many_arguments", inputs)
    references = library.reference("many_arguments", inputs)
    assert len(outputs) == len(references) == 12, (len(outputs), len(references))
    for output, reference, wanted in zip(outputs, references, expected):
        assert np.allclose(output, wanted, atol=1e-5), np.abs(output - wanted).max()
        assert np.allclose(reference, wanted, atol=1e-5), np.abs(reference - wanted).max()
    print(f"rank {runtime.rank()} of {runtime.world_size()}: 40 inputs, 12 outputs ok")


if __name__ == "__main__":
    main(sys.argv[1])
