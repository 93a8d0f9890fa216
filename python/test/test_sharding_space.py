"""Every op of the dialect with every sharding of its operands and result
that the verifier accepts (sharding_space.py): on a mesh of 2 all of them,
on meshes of 4 a seeded sample per op. Each case either compiles and
matches its unsharded reference in every rank's piece of every output
(run_sharding_space.py on the mesh's CPU ranks), or is refused with a
diagnostic about what the program asks; a diagnostic of the compiler
losing track (an invalid op it built, a layout it cannot meet, a type it
broke) fails like a wrong result."""

import collections
import os
import re
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from test_runtime import CAN_RUN, rank_problems, run_on_ranks  # noqa: E402

PIPELINE = "builtin.module(fuser-to-hostir-pipeline, fuser-cpu-to-llvm)"

# Diagnostics that say the compiler built something invalid or could not
# meet its own layout, not that the program asks for what is unsupported.
INTERNAL = re.compile(
    "doesn't match function result type|does not match the result's layout|"
    "is not laid out for the communication|op result sharding must be|"
    "failed to legalize|unrealized_conversion_cast|does not dominate")


class ShardingSpaceTest(unittest.TestCase):
    maxDiff = None

    def check_space(self, mesh_shape, budget):
        import sharding_space
        from fuser_mlir import ir

        context = ir.Context()
        pipeline = ir.PassManager.parse(PIPELINE, context)
        compiled, problems, refused = [], {}, collections.Counter()
        for name, definition in sharding_space.cases(mesh_shape, budget):
            try:
                pipeline.run(definition.module(context))
            except ir.MLIRError as error:
                messages = "; ".join(message for _, _, message in error.diagnostics)
                if INTERNAL.search(messages):
                    problems[name] = "refused by an internal error: " + messages
                refused[re.sub(r"\d+", "N", messages)] += 1
                continue
            compiled.append(definition.text())
        ranks = 1
        for size in mesh_shape:
            ranks *= size
        with tempfile.TemporaryDirectory() as directory:
            library = os.path.join(directory, "space.so")
            ir.compile(ir.Module.parse("\n".join(compiled), context), library)
            run = run_on_ranks(ranks, "run_sharding_space.py", library)
        for case, problem in rank_problems(run.stdout).items():
            problems.setdefault(case, problem)
        summary = ("mesh %s: %d compiled and ran, %d refused, %d wrong or broken"
                   % (mesh_shape, len(compiled), sum(refused.values()), len(problems)))
        print(summary)
        for message, count in refused.most_common():
            print("  %4d refused: %s" % (count, message[:200]))
        self.assertIn("of %d:" % ranks, run.stdout, run.stdout + run.stderr)
        self.assertEqual(problems, {}, summary)

    @unittest.skipUnless(CAN_RUN, "needs the compiler, the runtime, NumPy and mpirun")
    def test_every_sharding_on_2_ranks(self):
        self.check_space([2], budget=None)

    @unittest.skipUnless(CAN_RUN, "needs the compiler, the runtime, NumPy and mpirun")
    def test_sampled_shardings_on_a_2x2_mesh(self):
        self.check_space([2, 2], budget=8)

    @unittest.skipUnless(CAN_RUN, "needs the compiler, the runtime, NumPy and mpirun")
    def test_sampled_shardings_on_4_ranks_in_a_row(self):
        self.check_space([4], budget=8)


if __name__ == "__main__":
    unittest.main()
