"""The derivative rule of every differentiable op, with every sharding of its
operands on a mesh of 2 (a seeded sample on meshes of 4): each program of
derivative_space.py gets its @f__vjp, @f__fwd and @f__bwd
(fuser-generate-vjp), compiles through the whole pipeline, and on the
mesh's CPU ranks matches finite differences of the unsharded program in f64
(run_derivatives.py). A case whose forward the pipeline refuses is not a
program and is left out; one whose derivative programs it refuses fails
the test, with the diagnostic: the derivative programs of a program that
compiles are programs that compile."""

import json
import os
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from test_runtime import CAN_RUN, rank_problems, run_on_ranks  # noqa: E402
from vjp_support import bwd_inputs  # noqa: E402

DIFFERENTIATE = "builtin.module(fuser-generate-vjp)"
PIPELINE = "builtin.module(fuser-to-hostir-pipeline, fuser-cpu-to-llvm)"


class DerivativesTest(unittest.TestCase):
    maxDiff = None

    def check_space(self, mesh_shape, budget):
        import derivative_space
        from fuser_mlir import ir

        context = ir.Context()
        differentiate = ir.PassManager.parse(DIFFERENTIATE, context)
        pipeline = ir.PassManager.parse(PIPELINE, context)
        texts, cases, problems = [], {}, {}
        for name, definition, interval, precision in derivative_space.cases(
                mesh_shape, budget):
            module = definition.module(context)
            try:
                pipeline.run(module.clone())
            except ir.MLIRError:
                continue  # a sharding the pipeline refuses: not a program
            try:
                differentiate.run(module)
                taken = bwd_inputs(str(module))[name]
                pipeline.run(module)
            except ir.MLIRError as error:
                problems[name] = "; ".join(m for _, _, m in error.diagnostics)
                continue
            cases[name] = {"interval": interval, "precision": precision,
                           "bwd_inputs": taken}
            texts.append(definition.text())
        ranks = 1
        for size in mesh_shape:
            ranks *= size
        with tempfile.TemporaryDirectory() as directory:
            library = os.path.join(directory, "derivatives.so")
            module = ir.Module.parse("\n".join(texts), context)
            differentiate.run(module)
            ir.compile(module, library)
            cases_path = os.path.join(directory, "cases.json")
            with open(cases_path, "w") as out:
                json.dump(cases, out)
            run = run_on_ranks(ranks, "run_derivatives.py", library, cases_path,
                               timeout=900)
        for case, problem in rank_problems(run.stdout).items():
            problems.setdefault(case, problem)
        summary = "mesh %s: %d cases differentiated, %d wrong or refused" % (
            mesh_shape, len(cases), len(problems))
        print(summary)
        self.assertIn("of %d:" % ranks, run.stdout, run.stdout + run.stderr)
        self.assertEqual(problems, {}, summary)

    @unittest.skipUnless(CAN_RUN, "needs the compiler, the runtime, NumPy and mpirun")
    def test_every_sharding_on_2_ranks(self):
        self.check_space([2], budget=None)

    @unittest.skipUnless(CAN_RUN, "needs the compiler, the runtime, NumPy and mpirun")
    def test_sampled_shardings_on_a_2x2_mesh(self):
        self.check_space([2, 2], budget=4)

    @unittest.skipUnless(CAN_RUN, "needs the compiler, the runtime, NumPy and mpirun")
    def test_sampled_shardings_on_4_ranks_in_a_row(self):
        self.check_space([4], budget=4)


if __name__ == "__main__":
    unittest.main()
