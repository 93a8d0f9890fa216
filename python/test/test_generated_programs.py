"""The derivative programs of every program of examples/ and test/e2e with
floating-point inputs (and of the GPT layer, TP and SP, on 2 and 4 ranks):
each source gets @f__vjp, @f__fwd and @f__bwd (fuser-generate-vjp) for
every such function, compiles through the whole pipeline, and on its
mesh's CPU ranks each generated program matches its unsharded reference
(run_generated_programs.py, one launch per rank count and group of
libraries without shared program names). A function the pipeline refuses
fails the test with the diagnostic; only those that differentiate
attention by hand have no derivative (no second derivatives)."""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)

from test_runtime import CAN_RUN, rank_problems, run_on_ranks  # noqa: E402
from vjp_support import bwd_inputs, without_shared_names  # noqa: E402


def sources():
    """(name, program text) of every program source to differentiate."""
    paths = [os.path.join(ROOT, "examples", "tp_mlp.mlir"),
             os.path.join(ROOT, "test", "scenarios", "sp-mlp.mlir"),
             os.path.join(ROOT, "test", "scenarios", "dp-tp-mlp.mlir")]
    paths += sorted(glob.glob(os.path.join(ROOT, "test", "e2e", "Inputs", "*.mlir")))
    found = []
    for path in paths:
        with open(path) as source:
            found.append((os.path.splitext(os.path.basename(path))[0], source.read()))
    for mode in ("tp", "sp"):
        for devices in (2, 4):
            found.append(("gpt-layer-%s%d" % (mode, devices), subprocess.run(
                [sys.executable,
                 os.path.join(ROOT, "examples", "transformer", "gpt_layer.py"),
                 "--mode", mode, "--devices", str(devices), "--function", "layer"],
                capture_output=True, text=True, check=True).stdout))
    return found


FUNCTION = re.compile(r"^func\.func @(\w+)\(", re.MULTILINE)
# The one derivative that does not exist: a function that differentiates
# attention by hand (fuser.sdpa_backward) has no second derivative.
SECOND_ORDER = re.compile(r"'fuser\.sdpa_backward' op has no derivative|"
                          r"cannot be differentiated: see the op above")


def differentiate(module, functions):
    from fuser_mlir import ir

    ir.PassManager.parse("builtin.module(fuser-generate-vjp{functions=%s})"
                         % ",".join(functions), module.context).run(module)


def devices_of(program):
    """The ranks a program runs on: one past its highest device."""
    return 1 + max(device for tensor in program["inputs"] + program["outputs"]
                   for device in tensor["mesh"]["devices"])


@unittest.skipUnless(CAN_RUN, "needs the compiler, the runtime, NumPy and mpirun")
class GeneratedProgramsTest(unittest.TestCase):
    maxDiff = None

    def test_every_program_of_the_examples_and_e2e_tests(self):
        from fuser_mlir import ir

        refused = {}
        # ranks -> library path -> program -> @program__bwd's leading inputs
        by_ranks = {}
        with tempfile.TemporaryDirectory() as directory:
            for name, text in sources():
                context = ir.Context()
                differentiable = []
                for function in FUNCTION.findall(text):
                    try:
                        differentiate(ir.Module.parse(text, context), [function])
                        differentiable.append(function)
                    except ir.MLIRError as error:
                        messages = [m for _, _, m in error.diagnostics]
                        if not all(SECOND_ORDER.search(m) for m in messages):
                            refused[function] = "; ".join(messages)
                if not differentiable:
                    continue
                module = ir.Module.parse(text, context)
                library = os.path.join(directory, name + ".so")
                try:
                    differentiate(module, differentiable)
                    taken = bwd_inputs(str(module))
                    ir.compile(module, library)
                except ir.MLIRError as error:
                    refused[name] = "; ".join(m for _, _, m in error.diagnostics)
                    continue
                with open(library + ".json") as metadata:
                    programs = {p["name"]: p for p in json.load(metadata)["programs"]}
                for program, leading in taken.items():
                    ranks = devices_of(programs[program + "__vjp"])
                    by_ranks.setdefault(ranks, {}).setdefault(library, {})[program] = \
                        leading
            problems = {}
            summaries = []
            for ranks, libraries in sorted(by_ranks.items()):
                count = sum(len(programs) for programs in libraries.values())
                summaries.append("%d on %d ranks" % (count, ranks))
                for index, group in enumerate(without_shared_names(libraries)):
                    cases = os.path.join(directory, "cases-%d-%d.json" % (ranks, index))
                    with open(cases, "w") as out:
                        json.dump(group, out)
                    run = run_on_ranks(ranks, "run_generated_programs.py", cases,
                                       timeout=900)
                    for program, problem in rank_problems(run.stdout).items():
                        problems.setdefault(program, problem)
                    ran = sum(len(programs) for programs in group.values())
                    if "of %d: %d programs differentiated" % (ranks, ran) not in run.stdout:
                        problems["%d ranks, group %d" % (ranks, index)] = \
                            (run.stdout + run.stderr)[-3000:]
        print("programs differentiated: %s" % ", ".join(summaries))
        self.assertEqual(refused, {})
        self.assertEqual(problems, {})


if __name__ == "__main__":
    unittest.main()
