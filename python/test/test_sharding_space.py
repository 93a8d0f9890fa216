"""Every op of the dialect with every sharding of its operands and result
that the verifier accepts (sharding_space.py): on a mesh of 2 all of them,
on meshes of 4 a seeded sample per op. Each case either compiles and
matches its unsharded reference in every rank's piece of every output
(run_sharding_space.py on the mesh's CPU ranks), or is refused with a
diagnostic about what the program asks; a diagnostic of the compiler
losing track (an invalid op it built, a layout it cannot meet, a type it
broke) fails like a wrong result.

Cases known to fail are listed with the reason: the test fails when one
of them passes, so that the list only shrinks."""

import collections
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)

from test_runtime import CAN_RUN, RANK_PYTHON  # noqa: E402

PIPELINE = "builtin.module(fuser-to-hostir-pipeline, fuser-cpu-to-llvm)"

# Diagnostics that say the compiler built something invalid or could not
# meet its own layout, not that the program asks for what is unsupported.
INTERNAL = re.compile(
    "doesn't match function result type|does not match the result's layout|"
    "is not laid out for the communication|op result sharding must be|"
    "failed to legalize|unrealized_conversion_cast|does not dominate")

COMMUNICATION_LAYOUT = ("a communication on a 2-D mesh reads a buffer laid out with the "
                        "moved dim inner, and no copy is made")
SLICE_ORDER = ("an all_slice of a buffer laid out in another order than its result "
               "is a view no layout states (a transposing copy), and no copy is made")
PARTIAL_KIND = ("a reduction's result annotated partial with another kind than its "
                "own builds invalid communications on a 2-D mesh")

# (mesh shape, case) -> why it fails today.
KNOWN = {
    ("2x2", "add_1"): COMMUNICATION_LAYOUT,
    ("2x2", "compare_6"): COMMUNICATION_LAYOUT,
    ("2x2", "div_6"): COMMUNICATION_LAYOUT,
    ("2x2", "matmul_6"): COMMUNICATION_LAYOUT,
    ("2x2", "max_dim0_6"): PARTIAL_KIND,
    ("2x2", "maximum_2"): COMMUNICATION_LAYOUT,
    ("2x2", "mean_dim0_1"): PARTIAL_KIND,
    ("2x2", "min_dim0_7"): PARTIAL_KIND,
    ("2x2", "pow_1"): COMMUNICATION_LAYOUT,
    ("2x2", "reshape_flat_4"): COMMUNICATION_LAYOUT,
    ("2x2", "reshape_flat_5"): SLICE_ORDER,
    ("2x2", "reshape_flat_7"): COMMUNICATION_LAYOUT,
    ("2x2", "reshape_split_6"): SLICE_ORDER,
    ("2x2", "select_5"): COMMUNICATION_LAYOUT,
    ("2x2", "set_1"): COMMUNICATION_LAYOUT,
    ("2x2", "set_3"): COMMUNICATION_LAYOUT,
    ("2x2", "sigmoid_3"): COMMUNICATION_LAYOUT,
    ("2x2", "sub_4"): COMMUNICATION_LAYOUT,
    ("2x2", "sub_6"): COMMUNICATION_LAYOUT,
    ("2x2", "tanh_1"): COMMUNICATION_LAYOUT,
    ("2x2", "where_5"): COMMUNICATION_LAYOUT,
}


class ShardingSpaceTest(unittest.TestCase):
    maxDiff = None

    def check_space(self, mesh_shape, budget):
        import sharding_space
        from fuser_mlir import ir

        key = "x".join(map(str, mesh_shape))
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
            run = subprocess.run(
                ["mpirun", "--allow-run-as-root", "--oversubscribe", "-np", str(ranks),
                 "-x", "PYTHONPATH", "-x", "FUSER_TIMEOUT_S=60", RANK_PYTHON,
                 os.path.join(HERE, "run_sharding_space.py"), library],
                capture_output=True, text=True, timeout=600)
        for line in run.stdout.splitlines():
            found = re.match(r"rank \d+: (\w+): (.*)", line)
            if found:
                problems.setdefault(found.group(1), found.group(2))
        summary = ("mesh %s: %d compiled and ran, %d refused, %d wrong or broken"
                   % (mesh_shape, len(compiled), sum(refused.values()), len(problems)))
        print(summary)
        for message, count in refused.most_common():
            print("  %4d refused: %s" % (count, message[:200]))
        self.assertIn("of %d:" % ranks, run.stdout, run.stdout + run.stderr)
        unexpected = {name: problem for name, problem in problems.items()
                      if (key, name) not in KNOWN}
        fixed = [name for (mesh, name) in KNOWN if mesh == key and name not in problems]
        self.assertEqual(unexpected, {}, summary)
        self.assertEqual(fixed, [], "known failures that pass now: drop them from KNOWN")

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
