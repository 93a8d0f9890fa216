"""Tests of fuser_mlir.ir: contexts, modules, pass managers, the compiler."""

import importlib.util
import json
import os
import tempfile
import unittest

# A build without the compiler has no IR bindings; one with them must load.
if importlib.util.find_spec("fuser_mlir._ir") is not None:
    from fuser_mlir import ir
else:
    ir = None

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
with open(os.path.join(ROOT, "examples", "tp_mlp.mlir")) as example:
    TP_MLP = example.read()


@unittest.skipIf(ir is None, "built without the compiler")
class IRTest(unittest.TestCase):
    def setUp(self):
        self.context = ir.Context()

    def test_parse_print_verify(self):
        module = ir.Module.parse(TP_MLP, self.context)
        module.verify()
        text = str(module)
        self.assertIn("func.func @tp_mlp", text)
        self.assertIn("#fuser.sharding<#mesh, [[0], []]>", text)
        self.assertEqual(str(ir.Module.parse(text, self.context)), text)

    def test_parse_error_carries_message_and_location(self):
        with self.assertRaises(ir.MLIRError) as raised:
            ir.Module.parse("func.func @f() {\n  fuser.bogus\n}", self.context)
        severity, location, message = raised.exception.diagnostics[0]
        self.assertEqual(severity, "error")
        self.assertIn(":2:3", location)
        self.assertIn("'fuser.bogus' is unknown", message)
        self.assertIn("'fuser.bogus' is unknown", str(raised.exception))

    def test_pipeline_by_name(self):
        module = ir.Module.parse(TP_MLP, self.context)
        ir.PassManager.parse("builtin.module(fuser-to-hostir-pipeline)",
                             self.context).run(module)
        text = str(module)
        self.assertIn("hostir.linear", text)
        self.assertEqual(text.count("hostir.allreduce"), 1)
        # Upstream's generic transforms are there too.
        ir.PassManager.parse("builtin.module(canonicalize,cse)",
                             self.context).run(module)

    def test_pipeline_errors_raise(self):
        with self.assertRaises(ir.MLIRError) as raised:
            ir.PassManager.parse("builtin.module(no-such-pass)", self.context)
        self.assertIn("no-such-pass", str(raised.exception))
        # Host lowering needs segmented functions: a diagnostic, not a crash.
        module = ir.Module.parse(TP_MLP, self.context)
        passes = ir.PassManager.parse("builtin.module(convert-fuser-to-hostir)",
                                      self.context)
        with self.assertRaises(ir.MLIRError) as raised:
            passes.run(module)
        self.assertTrue(raised.exception.diagnostics)

    def test_module_of_another_context_is_refused(self):
        module = ir.Module.parse(TP_MLP, ir.Context())
        passes = ir.PassManager.parse("builtin.module(canonicalize)",
                                      self.context)
        with self.assertRaises(ValueError):
            passes.run(module)

    def test_compile(self):
        with tempfile.TemporaryDirectory() as directory:
            library = os.path.join(directory, "tp_mlp.so")
            ir.compile(ir.Module.parse(TP_MLP, self.context), library)
            self.assertTrue(os.path.exists(library))
            with open(library + ".json") as metadata:
                programs = json.load(metadata)["programs"]
            self.assertEqual([program["name"] for program in programs],
                             ["tp_mlp"])
            with self.assertRaises(ir.MLIRError) as raised:
                ir.compile(ir.Module.parse(TP_MLP, self.context), library,
                           target="cuda", backend="mpi")
            self.assertIn("MPI collectives on device buffers",
                          str(raised.exception))
            with self.assertRaises(ValueError):
                ir.compile(ir.Module.parse(TP_MLP, self.context), library,
                           target="tpu")
            with self.assertRaises(ir.MLIRError) as raised:
                ir.compile(ir.Module.parse(TP_MLP, self.context), library,
                           pipelining="tree")
            self.assertIn("unknown pipelining 'tree'", str(raised.exception))

    def test_interop_capsules(self):
        self.assertIs(ir.Context._CAPICreate(self.context._CAPIPtr),
                      self.context)
        module = ir.Module.parse(TP_MLP, self.context)
        borrowed = ir.Module._CAPICreate(module._CAPIPtr)
        self.assertIs(borrowed.context, self.context)
        self.assertEqual(str(borrowed), str(module))


if __name__ == "__main__":
    unittest.main()
