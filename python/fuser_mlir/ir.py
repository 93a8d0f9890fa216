"""MLIR contexts, modules and pass managers, and the compiler.

    from fuser_mlir import ir
    context = ir.Context()                       # every dialect loaded
    module = ir.Module.parse(text, context)
    module.verify()
    ir.PassManager.parse("builtin.module(fuser-to-hostir-pipeline)",
                         context).run(module)
    print(module)
    ir.compile(ir.Module.parse(text, context), "prog.so")   # fuser-exec runs it

Errors raise MLIRError, whose `diagnostics` lists (severity, location,
message) for every diagnostic the failed operation emitted. Contexts and
modules carry upstream's interop capsules (`_CAPIPtr`, `_CAPICreate`), for
bindings built on the same libMLIR.so.
"""

from ._ir import Context, Module, PassManager, compile


class MLIRError(Exception):
    """An MLIR operation failed; `diagnostics` says where and why."""

    def __init__(self, message, diagnostics):
        super().__init__(message)
        self.diagnostics = diagnostics


__all__ = ["Context", "MLIRError", "Module", "PassManager", "compile"]
