"""One rank of test_generated_backwards.py: the generated backward of a
program against the one written by hand, on the same seeded inputs.

Each comparison (JSON, written by the test) names a library with the
generated programs @f__vjp, @f__fwd and @f__bwd, and a library (the same
or another) with the hand-written backward, of one of two kinds:

* "vjp": the hand-written program has @f__vjp's signature (f's inputs, the
  output cotangents -> the input gradients);
* "forward-backward": a hand-written forward @fwd (f's inputs -> f's
  output, then the values it saves) and backward @bwd (f's inputs, those
  values, the cotangent -> the gradients).

Both @f__vjp and @f__fwd then @f__bwd are compared with the hand-written
gradients. Prints one line per rank, and one per mismatch.
"""

import json
import sys

import numpy as np

from fuser_mlir import runtime
from rank_support import relative_error

TOLERANCE = 1e-4


def draw(generator, tensor):
    return generator.uniform(-1, 1, tensor["shape"]).astype(np.float32)


def handwritten_gradients(comparison, handwritten, inputs, cotangents):
    if comparison["kind"] == "vjp":
        return handwritten.run(comparison["vjp"], inputs + cotangents)
    forward = handwritten.run(comparison["forward"], inputs)
    return handwritten.run(comparison["backward"], inputs + forward[1:] + cotangents)


def mismatches(comparison):
    generated = runtime.Library(comparison["generated"])
    handwritten = runtime.Library(comparison["handwritten"])
    program = comparison["program"]
    generator = np.random.default_rng(11)
    inputs = [draw(generator, tensor) for tensor in generated.inputs(program)]
    outputs = generated.outputs(program)
    cotangents = [draw(generator, tensor) for tensor in outputs]
    expected = handwritten_gradients(comparison, handwritten, inputs, cotangents)
    vjp = generated.run(program + "__vjp", inputs + cotangents)
    saved = generated.run(program + "__fwd", inputs)[len(outputs):]
    bwd_inputs = [inputs[i] for i in comparison["bwd_inputs"]]
    split = generated.run(program + "__bwd", bwd_inputs + saved + cotangents)
    found = []
    if len(vjp) != len(expected):
        return ["%d generated gradients, %d written by hand"
                % (len(vjp), len(expected))]
    for which, gradients in (("__vjp", vjp), ("__bwd", split)):
        for index, (gradient, reference) in enumerate(zip(gradients, expected)):
            error = relative_error(gradient, reference)
            if not error <= TOLERANCE:
                found.append("@%s%s's gradient #%d differs from the hand-written "
                             "one by %.3g" % (program, which, index, error))
    return found


def main(comparisons_path):
    with open(comparisons_path) as source:
        comparisons = json.load(source)
    rank = runtime.rank()
    failed = 0
    for name, comparison in sorted(comparisons.items()):
        for problem in mismatches(comparison):
            print("rank %d: %s: %s" % (rank, name, problem), flush=True)
            failed += 1
    print("rank %d of %d: %d backwards compared, %d mismatches"
          % (rank, runtime.world_size(), len(comparisons), failed), flush=True)


if __name__ == "__main__":
    main(sys.argv[1])
