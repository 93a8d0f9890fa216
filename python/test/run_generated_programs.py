"""One rank of test_generated_programs.py: for every program @f of the
libraries named (JSON, written by the test: library path -> {program:
which inputs @f__bwd takes first}), on seeded inputs and cotangents, runs
@f__vjp, @f__fwd and @f__bwd sharded and checks each against its unsharded
reference, as fuser-exec --check does (relative error within 1e-4, 2e-2
with 16-bit floats), and @f__fwd then @f__bwd against @f__vjp. Prints one
line per rank, and one per mismatch.
"""

import json
import sys
import zlib

import numpy as np

from fuser_mlir import runtime
from rank_support import relative_error

NARROW = ("f16", "bf16")


def draw(generator, tensor):
    shape = tensor["shape"]
    if tensor["dtype"] == "i1":
        return generator.random(shape) < 0.5
    if tensor["dtype"] in ("i32", "i64"):
        return generator.integers(0, 4, shape).astype(
            np.int32 if tensor["dtype"] == "i32" else np.int64)
    values = generator.uniform(-1, 1, shape)
    return values.astype(np.float64 if tensor["dtype"] == "f64" else np.float32)


def tolerance(library, program):
    tensors = library.inputs(program) + library.outputs(program)
    return 2e-2 if any(t["dtype"] in NARROW for t in tensors) else 1e-4


def mismatches(library, program, bwd_inputs):
    found = []

    def check(name, inputs, expected=None):
        """Runs `name` sharded; compares with `expected`, or its reference."""
        outputs = library.run(name, inputs)
        if expected is None:
            expected = library.reference(name, inputs)
        limit = tolerance(library, name)
        for index, (value, reference) in enumerate(zip(outputs, expected)):
            error = relative_error(value, reference)
            if not error <= limit:
                found.append("@%s's output #%d differs by %.3g (tolerance %g)"
                             % (name, index, error, limit))
        return outputs

    generator = np.random.default_rng(zlib.crc32(program.encode()))
    inputs = [draw(generator, t) for t in library.inputs(program)]
    outputs = library.outputs(program)
    cotangents = [draw(generator, t) for t in library.inputs(program + "__vjp")
                  [len(inputs):]]
    try:
        gradients = check(program + "__vjp", inputs + cotangents)
        saved = check(program + "__fwd", inputs)[len(outputs):]
        taken = [inputs[i] for i in bwd_inputs]
        check(program + "__bwd", taken + saved + cotangents)
        check(program + "__bwd", taken + saved + cotangents, expected=gradients)
    except Exception as problem:  # a runtime failure is the program's verdict
        found.append("%s: %s" % (type(problem).__name__, problem))
    return found


def main(cases_path):
    with open(cases_path) as source:
        libraries = json.load(source)
    rank = runtime.rank()
    programs = failed = 0
    for path, cases in sorted(libraries.items()):
        library = runtime.Library(path)
        for program, bwd_inputs in sorted(cases.items()):
            programs += 1
            for problem in mismatches(library, program, bwd_inputs):
                print("rank %d: %s: %s" % (rank, program, problem), flush=True)
                failed += 1
    print("rank %d of %d: %d programs differentiated, %d mismatches"
          % (rank, runtime.world_size(), programs, failed), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
