"""One rank of test_derivatives.py: for every program @f of the library that
has generated derivative programs, with seeded inputs x, output cotangents
c and a direction v (the same on every rank), checks

* @f__vjp's gradients g (sharded, gathered) against its unsharded
  reference;
* the directional derivative: sum(g . v) against the central difference
  (c . f(x + h v) - c . f(x - h v)) / 2h of f's unsharded reference (f64);
* @f__fwd then @f__bwd against @f__vjp.

The cases file (JSON, written by the test) gives, per program, the interval
its floating-point inputs are drawn from, the finite differences' step and
tolerance, and which of its inputs @f__bwd takes first. Prints one line per rank, and one per mismatch.
"""

import json
import sys
import zlib

import numpy as np

from fuser_mlir import runtime
from rank_support import relative_error


def is_float(tensor):
    return tensor["dtype"] in ("f16", "bf16", "f32", "f64")


def draw(generator, tensor, low, high):
    shape = tensor["shape"]
    if tensor["dtype"] == "i1":
        return generator.random(shape) < 0.5
    if not is_float(tensor):
        return generator.integers(0, 4, shape).astype(np.int64)
    return generator.uniform(low, high, shape)


def mismatches(library, program, case):
    generator = np.random.default_rng(zlib.crc32(program.encode()))
    inputs = [draw(generator, tensor, *case["interval"])
              for tensor in library.inputs(program)]
    outputs = library.outputs(program)
    cotangents = [generator.normal(size=t["shape"]) for t in outputs if is_float(t)]
    floats = [i for i, t in enumerate(library.inputs(program)) if is_float(t)]
    direction = {i: generator.normal(size=inputs[i].shape) for i in floats}
    found = []
    try:
        gradients = library.run(program + "__vjp", inputs + cotangents)
        expected = library.reference(program + "__vjp", inputs + cotangents)
        for index, (gradient, reference) in enumerate(zip(gradients, expected)):
            error = relative_error(gradient, reference)
            if not error <= 1e-9:
                found.append("gradient #%d differs from the unsharded @%s__vjp's "
                             "by %.3g" % (index, program, error))

        def along(step):
            moved = list(inputs)
            for i in floats:
                moved[i] = inputs[i] + step * direction[i]
            values = [v for v, t in zip(library.reference(program, moved), outputs)
                      if is_float(t)]
            return sum(float(np.sum(np.asarray(v) * c))
                       for v, c in zip(values, cotangents))

        step, tolerance = case["precision"]
        numeric = (along(step) - along(-step)) / (2 * step)
        analytic = sum(float(np.sum(np.asarray(g) * direction[i]))
                       for g, i in zip(gradients, floats))
        if not abs(numeric - analytic) <= tolerance * max(1.0, abs(numeric)):
            found.append("directional derivative %.12g, finite differences %.12g"
                         % (analytic, numeric))

        saved = library.run(program + "__fwd", inputs)[len(outputs):]
        taken = [inputs[i] for i in case["bwd_inputs"]]
        split = library.run(program + "__bwd", taken + saved + cotangents)
        for index, (gradient, whole) in enumerate(zip(split, gradients)):
            error = relative_error(gradient, whole)
            if not error <= 1e-9:
                found.append("@%s__bwd's gradient #%d differs from @%s__vjp's by "
                             "%.3g" % (program, index, program, error))
    except Exception as problem:  # a runtime failure is the case's verdict
        found.append("%s: %s" % (type(problem).__name__, problem))
    return found


def main(path, cases_path):
    library = runtime.Library(path)
    with open(cases_path) as source:
        cases = json.load(source)
    rank = runtime.rank()
    failed = 0
    for program, case in sorted(cases.items()):
        for problem in mismatches(library, program, case):
            print("rank %d: %s: %s" % (rank, program, problem), flush=True)
            failed += 1
    print("rank %d of %d: %d programs differentiated, %d mismatches"
          % (rank, runtime.world_size(), len(cases), failed), flush=True)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])
