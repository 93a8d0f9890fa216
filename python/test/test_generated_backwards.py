"""The backward programs fuser-generate-vjp derives, against the ones
written by hand in examples/: the tensor-parallel MLP's
(tp_mlp_backward.mlir, with @tp_mlp__vjp's signature) and the GPT layer's
(@gpt_forward then @gpt_backward of examples/transformer/gpt_layer.py, TP
and SP, on 2 and 4 ranks, dropout on: the generated programs recompute the
same masks). Every gradient of @f__vjp and of @f__fwd then @f__bwd matches
the hand-written one in f32 on the mesh's CPU ranks
(run_generated_backwards.py)."""

import json
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from test_runtime import CAN_RUN, run_on_ranks  # noqa: E402
from vjp_support import bwd_inputs  # noqa: E402


def gpt_layer_text(mode, devices):
    return subprocess.run(
        [sys.executable, os.path.join(ROOT, "examples", "transformer", "gpt_layer.py"),
         "--mode", mode, "--devices", str(devices), "--function", "all"],
        capture_output=True, text=True, check=True).stdout


@unittest.skipUnless(CAN_RUN, "needs the compiler, the runtime, NumPy and mpirun")
class GeneratedBackwardsTest(unittest.TestCase):
    def generate(self, text, program, path):
        """Compiles `text` with the derivative programs of `program` into
        `path`; returns which of its inputs @program__bwd takes."""
        from fuser_mlir import ir

        context = ir.Context()
        module = ir.Module.parse(text, context)
        ir.PassManager.parse(
            "builtin.module(fuser-generate-vjp{functions=%s})" % program,
            context).run(module)
        taken = bwd_inputs(str(module))
        self.assertIn(program, taken, "no @%s__bwd" % program)
        ir.compile(module, path)
        return taken[program]

    def compare(self, ranks, comparisons):
        """Runs each comparison on `ranks` ranks, one launch each: the
        runtime keys cached buffers by program name, and the layers' share
        theirs."""
        from fuser_mlir import ir

        for name, comparison in comparisons.items():
            with tempfile.TemporaryDirectory() as directory:
                generated = os.path.join(directory, "generated.so")
                comparison["bwd_inputs"] = self.generate(
                    comparison.pop("text"), comparison["program"], generated)
                handwritten = generated
                if "handwritten_text" in comparison:
                    handwritten = os.path.join(directory, "handwritten.so")
                    ir.compile(ir.Module.parse(comparison.pop("handwritten_text"),
                                               ir.Context()), handwritten)
                comparison.update(generated=generated, handwritten=handwritten)
                path = os.path.join(directory, "comparisons.json")
                with open(path, "w") as out:
                    json.dump({name: comparison}, out)
                run = run_on_ranks(ranks, "run_generated_backwards.py", path)
            output = run.stdout + run.stderr
            self.assertEqual(run.returncode, 0, output)
            self.assertIn("of %d: 1 backwards compared, 0 mismatches" % ranks,
                          run.stdout, output)

    def gpt_layer_comparisons(self, devices):
        """The generated backward of the layer of gpt_layer.py against its
        @gpt_forward / @gpt_backward, compiled into the same library."""
        return {"gpt_" + mode: dict(program="gpt_layer",
                                    text=gpt_layer_text(mode, devices),
                                    kind="forward-backward", forward="gpt_forward",
                                    backward="gpt_backward")
                for mode in ("tp", "sp")}

    def test_on_2_ranks(self):
        with open(os.path.join(ROOT, "examples", "tp_mlp.mlir")) as source:
            tp_mlp = source.read()
        with open(os.path.join(ROOT, "examples", "tp_mlp_backward.mlir")) as source:
            tp_mlp_backward = source.read()
        comparisons = {"tp_mlp": dict(program="tp_mlp", text=tp_mlp, kind="vjp",
                                      handwritten_text=tp_mlp_backward,
                                      vjp="tp_mlp_backward")}
        comparisons.update(self.gpt_layer_comparisons(2))
        self.compare(2, comparisons)

    def test_on_4_ranks(self):
        self.compare(4, self.gpt_layer_comparisons(4))


if __name__ == "__main__":
    unittest.main()
