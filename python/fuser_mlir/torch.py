"""Compiled programs as PyTorch autograd functions and modules.

    from fuser_mlir import FusionDefinition, Mesh
    from fuser_mlir.torch import Function, Module

    layer = Function(fd)                 # compiles @f, @f__fwd and @f__bwd
    y = layer(x, w1, w2)                 # torch.Tensors in, torch.Tensors out
    y.sum().backward()                   # runs the generated @f__bwd

A Function runs the generated forward of its program (`@f__fwd`, one
execution that also keeps what the backward reads) and, when autograd asks,
the generated backward (`@f__bwd`); without gradients it runs `@f`. Tensors
are plain `torch.Tensor`s, global (every rank passes the same values, the
outputs come back whole) or, with `pieces=True`, each rank's piece (the
outputs too); or `DTensor`s whose placements match the program's
shardings, which come back as DTensors. The values kept for the backward
stay where the forward left them, on each rank, as pieces.

A Module holds some of a Function's inputs as parameters (`nn.Parameter`s,
given by input name), so that optimizers train them:

    mlp = Module(Function(fd), {"w1": w1, "w2": w2})
    y = mlp(x)                           # the other inputs, in order

Programs run on the caller's CUDA stream for CUDA tensors.
"""

import torch

from . import runtime


def _is_float(spec):
    return spec["dtype"] in ("f32", "f16", "bf16", "f64")


def _dtensor_module():
    """PyTorch's DTensor module, or None where this PyTorch has none."""
    try:
        from torch.distributed import tensor
        return tensor if hasattr(tensor, "DTensor") else None
    except ImportError:
        return None


def placements_of(spec):
    """A program's tensor (`spec`, as runtime.Library.inputs describes it)
    as DTensor placements on its mesh: Shard(d) for the mesh axis that
    splits dim d, Replicate for the others."""
    dtensor = _dtensor_module()
    if dtensor is None:
        raise RuntimeError("this PyTorch has no DTensor")
    placements = [dtensor.Replicate()] * len(spec["mesh_shape"])
    for dim, axes in enumerate(spec["dim_axes"]):
        if axes != sorted(axes):
            raise ValueError(
                "dim %d is split by mesh axes %s, minor axis first: DTensor "
                "splits a dim by its mesh axes in order" % (dim, axes))
        for axis in axes:
            placements[axis] = dtensor.Shard(dim)
    return placements


def _check_placed(value, spec, name):
    """Raises unless the DTensor `value` lies on the program's mesh, placed
    as the program takes it."""
    mesh = value.device_mesh
    devices = mesh.mesh.flatten().tolist()
    if list(mesh.mesh.shape) != spec["mesh_shape"] or devices != spec["devices"]:
        raise ValueError(
            "%s lies on a device mesh %s of ranks %s; the program's is %s of %s"
            % (name, list(mesh.mesh.shape), devices, spec["mesh_shape"],
               spec["devices"]))
    expected = placements_of(spec)
    if list(value.placements) != expected:
        raise ValueError("%s is placed %s; the program takes %s" % (
            name, list(value.placements), expected))


class Function:
    """A compiled program as a differentiable function of torch tensors."""

    def __init__(self, definition=None, *, library=None, program=None,
                 names=None, target=None, pieces=False, **options):
        """From a FusionDefinition (`definition`), compiled with
        ir.compile's `options` and its derivative programs; or from a
        compiled `library` (a path or a runtime.Library) holding `program`,
        `program`__fwd and `program`__bwd (fuser-compile --vjp), whose
        inputs `names` names in messages and for Module."""
        if definition is not None:
            self.names = definition.input_names
            self.program = definition.name
            target = target or ("cuda" if torch.cuda.is_available() else "cpu")
            self.library = definition.compiled(
                target=target, vjp_functions=[definition.name], **options)
        else:
            if library is None or program is None:
                raise TypeError("Function takes a FusionDefinition, or a "
                                "library and the name of its program")
            self.library = (runtime.Library(library) if isinstance(library, str)
                            else library)
            self.program = program
            self.names = list(names or [])
        self.pieces = pieces
        missing = [name for name in (self.program, self.program + "__fwd",
                                     self.program + "__bwd")
                   if name not in self.library.programs]
        if missing:
            raise ValueError("the library has no %s: compile it with its "
                             "derivative programs (fuser-compile --vjp)"
                             % ", ".join(missing))
        self.inputs = self.library.inputs(self.program)
        self.outputs = self.library.outputs(self.program)
        self._backward_reads = self.library.derivative(
            self.program + "__bwd")["vjp_inputs"]
        if not self.names:
            self.names = ["#%d" % index for index in range(len(self.inputs))]

    def __call__(self, *inputs):
        if len(inputs) != len(self.inputs):
            raise TypeError("%s takes %d inputs (%s), not %d" % (
                self.program, len(self.inputs), ", ".join(self.names),
                len(inputs)))
        # Decided here: inside the autograd node, gradients are off.
        keep = torch.is_grad_enabled() and any(
            isinstance(value, torch.Tensor) and value.requires_grad
            for value in inputs)
        outputs = _Apply.apply(self, keep, *inputs)
        return outputs[0] if len(outputs) == 1 else outputs

    # -- what _Apply runs ---------------------------------------------------

    def _as_pieces(self, values, specs):
        """(what the runtime takes, whether each is a piece, the DTensor
        inputs' mesh or None)."""
        dtensor = _dtensor_module()
        given, pieces, mesh = [], [], None
        for index, (value, spec) in enumerate(zip(values, specs)):
            if dtensor is not None and isinstance(value, dtensor.DTensor):
                _check_placed(value, spec, "%s's input %s" % (
                    self.program, self.names[index]))
                mesh = value.device_mesh
                given.append(value.to_local().detach())
                pieces.append(True)
            else:
                # Autograd is this node's: the runtime reads the values.
                given.append(value.detach())
                pieces.append(self.pieces)
        return given, pieces, mesh

    def _wrap(self, values, specs, mesh, pieces):
        """Outputs as the inputs came: DTensors on `mesh`, else tensors."""
        if mesh is None:
            return list(values)
        dtensor = _dtensor_module()
        return [dtensor.DTensor.from_local(value, mesh, placements_of(spec),
                                           shape=torch.Size(spec["shape"]),
                                           stride=_row_major(spec["shape"]))
                if piece else value
                for value, spec, piece in zip(values, specs, pieces)]

    def forward(self, inputs, keep):
        """The outputs, and (when `keep`) what the backward reads: the
        inputs it takes and the values @f__fwd saved, as pieces."""
        given, pieces, mesh = self._as_pieces(inputs, self.inputs)
        # Outputs come back as pieces where the inputs came so.
        out_pieces = [mesh is not None or self.pieces] * len(self.outputs)
        gather = [not piece for piece in out_pieces]
        if not keep:
            outputs = self.library.run(self.program, given, pieces=pieces,
                                       gather=gather, names=self.names)
            return self._wrap(outputs, self.outputs, mesh, out_pieces), None
        saved_count = len(self.library.outputs(self.program + "__fwd")) - len(
            self.outputs)
        results = self.library.run(self.program + "__fwd", given, pieces=pieces,
                                   gather=gather + [False] * saved_count,
                                   names=self.names)
        outputs = results[:len(self.outputs)]
        memory = _Memory(
            kept=[(given[index], pieces[index]) for index in self._backward_reads],
            saved=results[len(self.outputs):], mesh=mesh, input_pieces=pieces,
            output_pieces=out_pieces)
        return self._wrap(outputs, self.outputs, mesh, out_pieces), memory

    def backward(self, memory, cotangents):
        """The gradient of each input (None for those not floating-point),
        as the inputs came."""
        values = [value for value, _ in memory.kept] + list(memory.saved)
        pieces = [piece for _, piece in memory.kept] + [True] * len(memory.saved)
        device = values[0].device if values else None
        for index, spec in enumerate(self.outputs):
            if not _is_float(spec):
                continue
            cotangent = cotangents[index]
            if cotangent is None:
                cotangent = torch.zeros(
                    _local_shape(spec, memory.output_pieces[index]),
                    dtype=_TORCH_DTYPES[spec["dtype"]], device=device)
            elif memory.mesh is not None:
                cotangent = cotangent.redistribute(
                    memory.mesh, placements_of(spec)).to_local()
            values.append(cotangent.contiguous())
            pieces.append(memory.output_pieces[index])
        float_inputs = [index for index, spec in enumerate(self.inputs)
                        if _is_float(spec)]
        as_pieces = [memory.input_pieces[index] for index in float_inputs]
        gradients = self.library.run(self.program + "__bwd", values,
                                     pieces=pieces,
                                     gather=[not piece for piece in as_pieces])
        gradients = self._wrap(gradients, [self.inputs[index] for index in
                                           float_inputs], memory.mesh, as_pieces)
        grads = [None] * len(self.inputs)
        for index, gradient in zip(float_inputs, gradients):
            grads[index] = gradient
        return grads


class _Memory:
    """What one call keeps for its backward: the inputs @f__bwd reads
    (with whether each is a piece), the values @f__fwd saved (pieces), the
    DTensor inputs' mesh, and how the inputs and outputs came."""

    def __init__(self, kept, saved, mesh, input_pieces, output_pieces):
        self.kept, self.saved, self.mesh = kept, saved, mesh
        self.input_pieces, self.output_pieces = input_pieces, output_pieces


_TORCH_DTYPES = {"f32": torch.float32, "f16": torch.float16,
                 "bf16": torch.bfloat16, "f64": torch.float64}


def _row_major(shape):
    strides, stride = [], 1
    for size in reversed(shape):
        strides.insert(0, stride)
        stride *= size
    return tuple(strides)


def _local_shape(spec, piece):
    if not piece:
        return spec["shape"]
    from .mesh import Mesh, local_shape
    return local_shape(spec["shape"], spec["dim_axes"],
                       Mesh(spec["mesh_shape"], spec["devices"]), runtime.rank())


class _Apply(torch.autograd.Function):
    """The autograd node of one call of a Function."""

    @staticmethod
    def forward(ctx, function, keep, *inputs):
        outputs, memory = function.forward(inputs, keep)
        ctx.function, ctx.memory = function, memory
        ctx.mark_non_differentiable(*[
            output for output, spec in zip(outputs, function.outputs)
            if not _is_float(spec)])
        return tuple(outputs)

    @staticmethod
    def backward(ctx, *cotangents):
        if ctx.memory is None:
            raise RuntimeError("the forward ran without gradients")
        grads = ctx.function.backward(ctx.memory, cotangents)
        ctx.memory = None  # A second backward needs retain_graph's forward.
        return (None, None, *grads)


class Module(torch.nn.Module):
    """A Function whose named inputs are the module's parameters."""

    def __init__(self, function, parameters):
        super().__init__()
        self.function = function
        names = function.names
        unknown = sorted(set(parameters) - set(names))
        if unknown:
            raise ValueError("%s has no inputs named %s (its inputs: %s)" % (
                function.program, ", ".join(unknown), ", ".join(names)))
        self._order = names
        self._parameter_names = [name for name in names if name in parameters]
        for name in self._parameter_names:
            value = parameters[name]
            self.register_parameter(
                name, value if isinstance(value, torch.nn.Parameter)
                else torch.nn.Parameter(value))

    def forward(self, *inputs):
        """Calls the function with `inputs` in place of the inputs that are
        not parameters, in order."""
        activations = iter(inputs)
        expected = len(self._order) - len(self._parameter_names)
        if len(inputs) != expected:
            raise TypeError("%s takes %d inputs besides its parameters, not %d"
                            % (self.function.program, expected, len(inputs)))
        return self.function(*[
            getattr(self, name) if name in self._parameter_names
            else next(activations) for name in self._order])


__all__ = ["Function", "Module", "placements_of"]
