"""Building fuser programs from Python, in the manner of nvFuser's FusionDefinition.

    from fuser_mlir import FusionDefinition, Mesh, ir

    with FusionDefinition("tp_mlp", mesh=Mesh([2])) as fd:
        x = fd.input([8, 64], "f32", name="x")
        w1 = fd.input([256, 64], "f32", sharding=[[0], []])
        w2 = fd.input([64, 256], "f32", sharding=[[], [0]])
        a = fd.gelu(fd.linear(x, w1), approximation="tanh")
        fd.output(fd.linear(a, w2))
    module = fd.module(ir.Context())        # or fd.text() without the compiler

The builder writes the program's text, exactly as a hand-written `.mlir`
file spells it, and `module()` parses it. Shapes are global; a tensor
annotated with a sharding carries it in its type, every other result is
left to sharding propagation, as in hand-written programs.

Result types are computed the way the ops infer them, so the builder
checks what that needs (ranks, shapes, dims, element types, shardings
against the mesh) and raises `ValueError("fuser.<op>: ...")` at the call.
The remaining rules (element-type classes, creation values, activations)
are the verifier's: `module()` raises `ir.MLIRError`, whose locations are
the Python lines that built the offending ops.

The conveniences of PyTorch and nvFuser (operators on tensors, Python
scalars as operands, negative dims, NumPy and PyTorch dtypes, and with
`broadcasting="numpy"` implicit broadcasting) emit the explicit ops a
hand-written program spells: a scalar is a `fuser.full`, a broadcast
operand a `fuser.broadcast` or `fuser.expand`.
"""

import math
import numbers
import operator
import os
import re
import struct
import sys

from .dtypes import mlir_dtype
from .mesh import Mesh

BROADCASTING = ("explicit", "numpy")
REDUCTION_KINDS = ("sum", "prod", "max", "min", "avg")
COMPARE_KINDS = ("eq", "ne", "lt", "le", "gt", "ge")
GELU_APPROXIMATIONS = ("none", "tanh")
ACTIVATIONS = ("gelu_tanh", "relu")

# Names MLIR accepts after `@` without quoting.
_SYMBOL_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_$.]*\Z")
# Names of inputs, spelled %name: identifiers, as MLIR and Python read them.
_INPUT_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
# The names of unnamed inputs, %arg<position>.
_GENERATED_INPUT_NAME = re.compile(r"arg(0|[1-9][0-9]*)\Z")


def _float_literal(value):
    """`value` as an MLIR f64 literal that reads back bit for bit."""
    value = float(value)
    if not math.isfinite(value):
        # MLIR has no inf/nan keywords: a float is spelled by its bits.
        return "0x%016X" % struct.unpack("<Q", struct.pack("<d", value))[0]
    text = repr(value)
    if "." not in text:
        # Python writes 1e-05; MLIR's float literals need the dot.
        mantissa, exponent = text.split("e")
        text = mantissa + ".0e" + exponent
    return text


def _string_literal(text):
    """`text` as an MLIR string literal."""
    escaped = []
    for char in text:
        if char in '"\\' or not char.isprintable():
            escaped.extend("\\%02X" % byte for byte in char.encode())
        else:
            escaped.append(char)
    return '"' + "".join(escaped) + '"'


# A tensor type without an encoding: its dims ("8x64x") and element type.
_PLAIN_TENSOR_TYPE = re.compile(r"tensor<((?:\d+x)*)(\w+)>")


def _int_list(values):
    return "[" + ", ".join(str(value) for value in values) + "]"


def _as_list(values):
    """A list of dims from a list or a single dim."""
    try:
        return [operator.index(values)]
    except TypeError:
        return list(values)


def _from_end(dim, rank):
    """`dim` counted from the end when negative and in range, as PyTorch
    counts; any other dim as given."""
    return dim + rank if -rank <= dim < 0 else dim


def _is_scalar(value):
    """Whether `value` is a Python scalar, which pointwise ops take as a
    `full` of their tensor operands' shape."""
    return isinstance(value, numbers.Real)


def _caller_location():
    """The location of the first frame outside this file: the user's line."""
    frame = sys._getframe(1)
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    if frame is None:
        return None
    return "loc(%s:%d:0)" % (_string_literal(os.path.abspath(frame.f_code.co_filename)),
                             frame.f_lineno)


def _mesh_of(mesh):
    """A Mesh from a Mesh or a list of axis sizes."""
    return mesh if isinstance(mesh, Mesh) else Mesh(list(mesh))


def _mesh_text(mesh):
    text = "#fuser.mesh<" + _int_list(mesh.shape)
    # The default device order is spelled by leaving the ids out.
    if list(mesh.devices) != list(range(mesh.num_devices)):
        text += ", devices = " + _int_list(mesh.devices)
    return text + ">"


class Sharding:
    """How a tensor is distributed over a mesh, as in `#fuser.sharding`.

    `dims` lists per tensor dim the mesh axes that split it, outermost
    first; `partial` the mesh axes over which the value is a pending
    `partial_kind` reduction; `stream` a `(dim, chunks)` split for
    host-side pipelining; `order` and `contiguity` the allocation layout.
    Negative dims in `stream` and `order` count from the end. `mesh`
    defaults to the definition's mesh.
    """

    def __init__(self, dims, partial=(), partial_kind="sum", stream=None,
                 order=None, contiguity=None, mesh=None):
        self.dims = [list(axes) for axes in dims]
        self.partial = sorted(partial)
        self.partial_kind = partial_kind
        # `dims` gives the rank, so dims counted from the end resolve here;
        # out-of-range ones are left for _check to report.
        rank = len(self.dims)
        self.stream = tuple(stream) if stream is not None else None
        if self.stream:
            self.stream = (_from_end(self.stream[0], rank),) + self.stream[1:]
        self.order = ([_from_end(dim, rank) for dim in order]
                      if order is not None else None)
        self.contiguity = list(contiguity) if contiguity is not None else None
        self.mesh = _mesh_of(mesh) if mesh is not None else None

    def __repr__(self):
        return "Sharding(%r, partial=%r, partial_kind=%r, stream=%r)" % (
            self.dims, self.partial, self.partial_kind, self.stream)

    def _check(self, shape, mesh, where):
        """Raises ValueError (prefixed by `where`) unless this sharding fits
        a tensor of global `shape` on `mesh`, as the attribute's verifier
        requires."""
        def fail(message):
            raise ValueError("%s: %s" % (where, message))

        rank = len(shape)
        if len(self.dims) != rank:
            fail("sharding describes %d dims but the tensor has rank %d"
                 % (len(self.dims), rank))
        user_of = {}

        def claim(axis, user):
            if not 0 <= axis < len(mesh.shape):
                fail("%s uses mesh axis %d, but the mesh has %d axes"
                     % (user, axis, len(mesh.shape)))
            if axis in user_of:
                fail("mesh axis %d is used twice: by %s and by %s"
                     % (axis, user_of[axis], user))
            user_of[axis] = user

        local_shape = list(shape)
        for dim, axes in enumerate(self.dims):
            for axis in axes:
                claim(axis, "dim %d" % dim)
            split = math.prod(mesh.shape[axis] for axis in axes)
            if shape[dim] % split:
                fail("dim %d of size %d is not divisible by the %d shards of "
                     "mesh axes %s" % (dim, shape[dim], split, axes))
            local_shape[dim] //= split
        for axis in self.partial:
            claim(axis, "the partial state")
        if self.partial_kind not in REDUCTION_KINDS:
            fail("unknown reduction kind %r; expected one of %s"
                 % (self.partial_kind, ", ".join(REDUCTION_KINDS)))
        if not self.partial and self.partial_kind != "sum":
            fail("a reduction kind without partial mesh axes")
        if self.stream is not None:
            if len(self.stream) != 2:
                fail("stream is (dim, chunks), got %r" % (self.stream,))
            dim, chunks = self.stream
            if not 0 <= dim < rank:
                fail("stream split of dim %d, but the tensor has rank %d"
                     % (dim, rank))
            if chunks < 1 or local_shape[dim] % chunks:
                fail("stream split of dim %d into %d chunks does not divide "
                     "its local size %d" % (dim, chunks, local_shape[dim]))
        if self.order is not None and sorted(self.order) != list(range(rank)):
            fail("order %s is not a permutation of the %d dims"
                 % (self.order, rank))
        if self.contiguity is not None and len(self.contiguity) != rank:
            fail("contiguity has %d entries for %d dims"
                 % (len(self.contiguity), rank))

    def _text(self, mesh):
        """The attribute in its canonical form (defaults left out)."""
        text = "#fuser.sharding<%s, [%s]" % (
            _mesh_text(mesh), ", ".join(_int_list(axes) for axes in self.dims))
        if self.partial:
            text += ", partial = {%s}" % ", ".join(
                "%d : %s" % (axis, self.partial_kind) for axis in self.partial)
        if self.stream is not None:
            text += ", stream = {%d : %d}" % self.stream
        if self.order is not None and self.order != sorted(self.order):
            text += ", order = " + _int_list(self.order)
        if self.contiguity is not None and not all(self.contiguity):
            text += ", contiguity = [%s]" % ", ".join(
                "true" if contiguous else "false"
                for contiguous in self.contiguity)
        return text + ">"


class Tensor:
    """A value of a FusionDefinition: its global shape, element type and,
    where annotated, its sharding.

    Operators append ops to its definition: `+ - * / **`, unary `-`,
    `abs()`, `@` (matmul) and `< <= > >=` (compare), with Python scalars
    on either side. `==` and `!=` stay Python's identity, and with it the
    hash, because tensors are dict keys and set members; `fd.eq` and
    `fd.ne` compare elements.
    """

    def __init__(self, definition, name, shape, dtype, sharding, mesh):
        self._definition = definition
        self.name = name
        self.shape = list(shape)
        self.dtype = dtype
        self.sharding = sharding
        self._mesh = mesh

    @property
    def definition(self):
        """The FusionDefinition this tensor is a value of."""
        return self._definition

    @property
    def rank(self):
        return len(self.shape)

    @property
    def type(self):
        """The MLIR tensor type, with the sharding as its encoding."""
        text = "tensor<" + "".join("%dx" % size for size in self.shape) + self.dtype
        if self.sharding is not None:
            text += ", " + self.sharding._text(self._mesh)
        return text + ">"

    def __repr__(self):
        return "Tensor(%s : %s)" % (self.name, self.type)

    def __add__(self, other):
        return self._definition.add(self, other)

    def __radd__(self, other):
        return self._definition.add(other, self)

    def __sub__(self, other):
        return self._definition.sub(self, other)

    def __rsub__(self, other):
        return self._definition.sub(other, self)

    def __mul__(self, other):
        return self._definition.mul(self, other)

    def __rmul__(self, other):
        return self._definition.mul(other, self)

    def __truediv__(self, other):
        return self._definition.div(self, other)

    def __rtruediv__(self, other):
        return self._definition.div(other, self)

    def __pow__(self, other):
        return self._definition.pow(self, other)

    def __rpow__(self, other):
        return self._definition.pow(other, self)

    def __neg__(self):
        return self._definition.neg(self)

    def __abs__(self):
        return self._definition.abs(self)

    def __matmul__(self, other):
        return self._definition.matmul(self, other)

    def __lt__(self, other):
        return self._definition.compare("lt", self, other)

    def __le__(self, other):
        return self._definition.compare("le", self, other)

    def __gt__(self, other):
        return self._definition.compare("gt", self, other)

    def __ge__(self, other):
        return self._definition.compare("ge", self, other)


class FusionDefinition:
    """One function of global-shape tensor ops over a device mesh.

    Methods named after fuser ops append that op and return its result(s).
    Each takes `sharding=` to annotate its result (a `Sharding`, or the
    per-dim mesh axes as a list); unannotated results get theirs from
    sharding propagation.

    `broadcasting` is "explicit" (pointwise operands have equal shapes, as
    in the dialect) or "numpy" (operands that differ in rank or in size-1
    dims are broadcast by NumPy's and PyTorch's rule, through the
    `broadcast` and `expand` ops). `with FusionDefinition(...) as fd:`
    gives the definition.
    """

    def __init__(self, name, mesh=None, broadcasting="explicit"):
        if not _SYMBOL_NAME.match(name):
            raise ValueError("func.func: %r is not a valid function name" % name)
        if broadcasting not in BROADCASTING:
            raise ValueError("FusionDefinition: unknown broadcasting %r; expected "
                             "explicit or numpy" % (broadcasting,))
        self.name = name
        self.mesh = _mesh_of(mesh) if mesh is not None else None
        self.broadcasting = broadcasting
        self.inputs = []
        self.outputs = []
        self._ops = []  # (text of the op, location of the Python line)
        self._next_value = 0
        self._libraries = {}  # (text, target, options) -> runtime.Library

    def __enter__(self):
        return self

    def __exit__(self, exception_type, exception, traceback):
        """Nothing to finish: the ops are written as they are called, and
        an exception in the block propagates."""

    # -- compiling and running --------------------------------------------

    def compiled(self, *, target="cpu", **options):
        """The definition compiled with ir.compile's `options` into a
        runtime.Library, once per process and once in the cache folder
        (fuser_mlir.programs). Collective on several ranks."""
        from . import programs  # Only here: building needs no runtime.

        text = self.text()
        key = (text, target, repr(sorted(options.items())))
        if key not in self._libraries:
            self._libraries[key] = programs.load(text, target=target, **options)
        return self._libraries[key]

    def execute(self, inputs, *, target=None, pieces=False, gather=True,
                stream=None, check_replicated=False, **options):
        """Compiles the definition (once) and runs it on this process's
        ranks over `inputs` (NumPy arrays, or tensors on the rank's device);
        returns its outputs, as runtime.Library.run does. `target` is
        "cuda" for inputs on a GPU, else "cpu"; the other options are
        ir.compile's."""
        inputs = list(inputs)
        if target is None:
            on_gpu = any(getattr(getattr(value, "device", None), "type", None)
                         == "cuda" for value in inputs)
            target = "cuda" if on_gpu else "cpu"
        library = self.compiled(target=target, **options)
        return library.run(self.name, inputs, pieces=pieces, gather=gather,
                           stream=stream, names=self.input_names,
                           check_replicated=check_replicated)

    @property
    def input_names(self):
        """The name of each input, in order: the one given, or `argN`."""
        return [tensor.name[1:] for tensor in self.inputs]

    # -- values and types ---------------------------------------------------

    def _sharding(self, sharding, shape, where):
        """A checked Sharding for a value of `shape`, or None."""
        if sharding is None:
            return None, None
        if not isinstance(sharding, Sharding):
            sharding = Sharding(sharding)
        mesh = sharding.mesh or self.mesh
        if mesh is None:
            raise ValueError("%s: a sharding needs a mesh; give FusionDefinition "
                             "one or the Sharding its own" % where)
        sharding._check(shape, mesh, where)
        return sharding, mesh

    def _operand(self, op, value, role):
        if not isinstance(value, Tensor) or value._definition is not self:
            raise ValueError("fuser.%s: %s must be a tensor of this definition, "
                             "got %r" % (op, role, value))
        return value

    def _emit(self, op, operands, syntax, results, result_syntax=None):
        """Appends `%r = fuser.<op> <syntax> : <types>` and returns the
        result tensors. `results` lists (shape, dtype, sharding) per result;
        the types are spelled functionally unless `result_syntax` says how."""
        tensors = []
        for shape, dtype, sharding in results:
            sharding, mesh = self._sharding(sharding, shape, "fuser." + op)
            tensors.append(Tensor(self, "%%%d" % self._next_value, shape, dtype,
                                  sharding, mesh))
            self._next_value += 1
        if result_syntax is None:
            types = "(%s) -> %s" % (", ".join(t.type for t in operands),
                                    ", ".join(t.type for t in tensors))
        else:
            types = result_syntax(operands, tensors)
        names = ", ".join(t.name for t in tensors)
        if len(tensors) > 1:
            # Results of one op are spelled %name:N and used as %name#i.
            first = tensors[0].name
            names = "%s:%d" % (first, len(tensors))
            for index, tensor in enumerate(tensors):
                tensor.name = "%s#%d" % (first, index)
        self._ops.append(("%s = fuser.%s %s : %s" % (names, op, syntax, types),
                          _caller_location()))
        return tensors[0] if len(tensors) == 1 else tuple(tensors)

    @staticmethod
    def _input_to_result(operands, results):
        return "%s -> %s" % (operands[0].type, ", ".join(t.type for t in results))

    @staticmethod
    def _result_only(operands, results):
        return results[0].type

    @staticmethod
    def _shape(op, shape, what="shape"):
        shape = list(shape)
        if not all(isinstance(size, int) and size >= 0 for size in shape):
            raise ValueError("fuser.%s: %s %r needs sizes >= 0" % (op, what, shape))
        return shape

    @staticmethod
    def _dim(op, dim, rank, what):
        """`dim` in [0, rank), as the ops take it: negative dims count from
        the end."""
        dim = operator.index(dim)
        if not -rank <= dim < rank:
            raise ValueError("fuser.%s: %s %d is out of range for rank %d"
                             % (op, what, dim, rank))
        return _from_end(dim, rank)

    @classmethod
    def _dim_list(cls, op, dims, rank, what):
        """`dims` (a list, or one dim) as the ops take them: each in
        [0, rank), each once."""
        given = _as_list(dims)
        dims = [cls._dim(op, dim, rank, what) for dim in given]
        for dim in dims:
            if dims.count(dim) > 1:
                raise ValueError("fuser.%s: %ss %s name dim %d twice"
                                 % (op, what, given, dim))
        return dims

    # -- inputs and outputs -------------------------------------------------

    def input(self, shape, dtype, sharding=None, name=None):
        """A function argument of global `shape` and element type `dtype`,
        spelled `%name` in the text (unnamed: `%argN`, N its position)."""
        position = len(self.inputs)
        where = "func.func @%s argument #%d" % (self.name, position)
        dtype = mlir_dtype(dtype, where)
        shape = self._shape("input", shape)
        sharding, mesh = self._sharding(sharding, shape, where)
        if name is None:
            name = "arg%d" % position
        else:
            self._check_input_name(name, position, where)
        tensor = Tensor(self, "%" + name, shape, dtype, sharding, mesh)
        self.inputs.append(tensor)
        return tensor

    def _check_input_name(self, name, position, where):
        if not isinstance(name, str) or not _INPUT_NAME.match(name):
            raise ValueError("%s: name %r is not an identifier" % (where, name))
        names = self.input_names
        if name in names:
            raise ValueError("%s: name %r is taken by argument #%d"
                             % (where, name, names.index(name)))
        generated = _GENERATED_INPUT_NAME.match(name)
        if generated and int(generated.group(1)) != position:
            raise ValueError("%s: name %r is the name of unnamed argument #%s"
                             % (where, name, generated.group(1)))

    def output(self, *tensors):
        """Returns `tensors` from the function, in this order."""
        for tensor in tensors:
            self.outputs.append(self._operand("output", tensor, "an output"))

    # -- pointwise ----------------------------------------------------------

    @staticmethod
    def _check_alike(op, operands, roles):
        """Pointwise operands have equal shapes and element types."""
        first = operands[0]
        for other, role in zip(operands[1:], roles[1:]):
            if other.shape != first.shape:
                raise ValueError(
                    "fuser.%s: operand '%s' has shape %s but '%s' has shape %s; "
                    "broadcasting is explicit (fuser.broadcast, fuser.expand, or "
                    "FusionDefinition(broadcasting=\"numpy\"))"
                    % (op, roles[0], first.shape, role, other.shape))
            if other.dtype != first.dtype:
                raise ValueError(
                    "fuser.%s: operand '%s' has element type %s but '%s' has %s; "
                    "convert one with fuser.cast"
                    % (op, roles[0], first.dtype, role, other.dtype))

    def _pointwise(self, op, operands, roles, dtype=None, prefix="",
                   attributes="", sharding=None, unary=False):
        self._check_alike(op, operands, roles)
        first = operands[0]
        syntax = prefix + ", ".join(t.name for t in operands) + attributes
        return self._emit(op, operands, syntax,
                          [(first.shape, dtype or first.dtype, sharding)],
                          self._input_to_result if unary else None)

    def _operand_or_scalar(self, op, value, role):
        return value if _is_scalar(value) else self._operand(op, value, role)

    @staticmethod
    def _broadcast_shape(op, values, roles):
        """The shape of the tensors among `values` broadcast together by
        NumPy's rule: aligned at their last dims, sizes equal or 1."""
        rank = max(value.rank for value in values if not _is_scalar(value))
        shape = [1] * rank
        giver = [None] * rank  # per dim, the (role, tensor) of its size
        for value, role in zip(values, roles):
            if _is_scalar(value):
                continue
            for dim, size in enumerate(value.shape, rank - value.rank):
                if size == 1:
                    continue
                if shape[dim] == 1:
                    shape[dim], giver[dim] = size, (role, value)
                elif shape[dim] != size:
                    other_role, other = giver[dim]
                    raise ValueError(
                        "fuser.%s: operand '%s' of shape %s and operand '%s' of "
                        "shape %s do not broadcast (aligned at their last dims, "
                        "sizes must match or be 1)"
                        % (op, other_role, other.shape, role, value.shape))
        return shape

    def _broadcast_to(self, x, shape):
        """`x` repeated to `shape`: new leading dims with `broadcast`, which
        also expands size-1 dims; those alone with `expand`."""
        if x.rank == len(shape):
            return self.expand(x, shape)
        return self.broadcast(x, shape, list(range(len(shape) - x.rank, len(shape))))

    def _pointwise_operands(self, op, values, roles, like, scalar_dtypes):
        """`values` (tensors and Python scalars) as the tensor operands of a
        pointwise op. Their shape is `like`'s, or with numpy broadcasting
        that of all tensors broadcast together, to which each is broadcast.
        A scalar becomes a `full` of that shape, of element type
        scalar_dtypes[i]. Neither gets a sharding: propagation decides."""
        if self.broadcasting == "numpy":
            shape = self._broadcast_shape(op, values, roles)
        else:
            shape = like.shape  # the op's checks report other shapes
        operands = []
        for value, dtype in zip(values, scalar_dtypes):
            if _is_scalar(value):
                value = self.full(shape, value, dtype)
            elif self.broadcasting == "numpy" and value.shape != shape:
                value = self._broadcast_to(value, shape)
            operands.append(value)
        return operands

    def _unary(self, op, x, sharding, attributes=""):
        x = self._operand(op, x, "input")
        return self._pointwise(op, [x], ["input"], attributes=attributes,
                               sharding=sharding, unary=True)

    def neg(self, x, sharding=None):
        return self._unary("neg", x, sharding)

    def abs(self, x, sharding=None):
        return self._unary("abs", x, sharding)

    def relu(self, x, sharding=None):
        return self._unary("relu", x, sharding)

    def exp(self, x, sharding=None):
        return self._unary("exp", x, sharding)

    def log(self, x, sharding=None):
        return self._unary("log", x, sharding)

    def sqrt(self, x, sharding=None):
        return self._unary("sqrt", x, sharding)

    def rsqrt(self, x, sharding=None):
        return self._unary("rsqrt", x, sharding)

    def tanh(self, x, sharding=None):
        return self._unary("tanh", x, sharding)

    def sin(self, x, sharding=None):
        return self._unary("sin", x, sharding)

    def cos(self, x, sharding=None):
        return self._unary("cos", x, sharding)

    def erf(self, x, sharding=None):
        return self._unary("erf", x, sharding)

    def sigmoid(self, x, sharding=None):
        return self._unary("sigmoid", x, sharding)

    def gelu(self, x, approximation="none", sharding=None):
        """GELU, exact (`"none"`, erf) or `"tanh"`-approximated."""
        if approximation not in GELU_APPROXIMATIONS:
            raise ValueError("fuser.gelu: unknown approximation %r; expected "
                             "none or tanh" % (approximation,))
        # The default is spelled by leaving it out.
        attributes = "" if approximation == "none" else " approximation = " + approximation
        return self._unary("gelu", x, sharding, attributes)

    def _binary(self, op, lhs, rhs, sharding, dtype=None, prefix=""):
        """`op` of two tensors, or of a tensor and a Python scalar of its
        element type."""
        roles = ["lhs", "rhs"]
        values = [self._operand_or_scalar(op, lhs, "lhs"),
                  self._operand_or_scalar(op, rhs, "rhs")]
        tensors = [value for value in values if not _is_scalar(value)]
        if not tensors:
            raise ValueError("fuser.%s: lhs and rhs are both Python scalars; one "
                             "must be a tensor of this definition" % op)
        operands = self._pointwise_operands(op, values, roles, tensors[0],
                                            [tensors[0].dtype] * 2)
        return self._pointwise(op, operands, roles, dtype=dtype, prefix=prefix,
                               sharding=sharding)

    def add(self, lhs, rhs, sharding=None):
        return self._binary("add", lhs, rhs, sharding)

    def sub(self, lhs, rhs, sharding=None):
        return self._binary("sub", lhs, rhs, sharding)

    def mul(self, lhs, rhs, sharding=None):
        return self._binary("mul", lhs, rhs, sharding)

    def div(self, lhs, rhs, sharding=None):
        return self._binary("div", lhs, rhs, sharding)

    def maximum(self, lhs, rhs, sharding=None):
        return self._binary("maximum", lhs, rhs, sharding)

    def minimum(self, lhs, rhs, sharding=None):
        return self._binary("minimum", lhs, rhs, sharding)

    def pow(self, lhs, rhs, sharding=None):
        return self._binary("pow", lhs, rhs, sharding)

    def compare(self, kind, lhs, rhs, sharding=None):
        """`lhs <kind> rhs` as i1, kind one of eq, ne, lt, le, gt, ge."""
        if kind not in COMPARE_KINDS:
            raise ValueError("fuser.compare: unknown kind %r; expected one of %s"
                             % (kind, ", ".join(COMPARE_KINDS)))
        # The kind leads the operands: `fuser.compare lt, %a, %b`.
        return self._binary("compare", lhs, rhs, sharding, dtype="i1",
                            prefix=kind + ", ")

    def eq(self, lhs, rhs, sharding=None):
        """`lhs == rhs` elementwise (the operator is Python's identity)."""
        return self.compare("eq", lhs, rhs, sharding)

    def ne(self, lhs, rhs, sharding=None):
        """`lhs != rhs` elementwise (the operator is Python's identity)."""
        return self.compare("ne", lhs, rhs, sharding)

    def where(self, condition, on_true, on_false, sharding=None):
        """`condition ? on_true : on_false`, elementwise."""
        roles = ["condition", "on_true", "on_false"]
        values = [self._operand_or_scalar("where", value, role)
                  for value, role in zip((condition, on_true, on_false), roles)]
        branches = [value for value in values[1:] if not _is_scalar(value)]
        if not branches:
            raise ValueError("fuser.where: on_true and on_false are both Python "
                             "scalars; one must be a tensor to give the result's "
                             "element type")
        result = branches[0]
        operands = self._pointwise_operands("where", values, roles, result,
                                            ["i1", result.dtype, result.dtype])
        condition, on_true, on_false = operands
        # The branches agree in shape and type; the condition in shape.
        self._check_alike("where", operands[1:], roles[1:])
        if condition.shape != on_true.shape:
            raise ValueError("fuser.where: operand 'condition' has shape %s but "
                             "'on_true' has shape %s; broadcasting is explicit"
                             % (condition.shape, on_true.shape))
        syntax = ", ".join(t.name for t in operands)
        return self._emit("where", operands, syntax,
                          [(on_true.shape, on_true.dtype, sharding)])

    def cast(self, x, dtype, sharding=None):
        """`x` converted to element type `dtype`."""
        x = self._operand("cast", x, "input")
        return self._emit("cast", [x], x.name,
                          [(x.shape, mlir_dtype(dtype, "fuser.cast"), sharding)],
                          self._input_to_result)

    # -- reductions ---------------------------------------------------------

    def _reduction(self, op, x, dims, dim, keepdim, sharding, results=1,
                   attributes=""):
        """`dims` (or its alias `dim`, as PyTorch spells it) are a list or
        one dim."""
        if dims is not None and dim is not None:
            raise TypeError("fuser.%s: give dims or dim, not both" % op)
        if dims is None and dim is None:
            raise TypeError("fuser.%s: needs dims (or dim), the dims to reduce" % op)
        x = self._operand(op, x, "input")
        dims = self._dim_list(op, dim if dims is None else dims, x.rank,
                              "reduction dim")
        if not dims:
            raise ValueError("fuser.%s: reduction needs at least one dim" % op)
        shape = [1 if dim in dims else size for dim, size in enumerate(x.shape)
                 if keepdim or dim not in dims]
        syntax = "%s dims = %s%s%s" % (x.name, _int_list(dims),
                                       " keepdim" if keepdim else "", attributes)
        return self._emit(op, [x], syntax, [(shape, x.dtype, sharding)] * results,
                          self._input_to_result)

    def sum(self, x, dims=None, keepdim=False, sharding=None, *, dim=None):
        return self._reduction("sum", x, dims, dim, keepdim, sharding)

    def max(self, x, dims=None, keepdim=False, sharding=None, *, dim=None):
        return self._reduction("max", x, dims, dim, keepdim, sharding)

    def min(self, x, dims=None, keepdim=False, sharding=None, *, dim=None):
        return self._reduction("min", x, dims, dim, keepdim, sharding)

    def mean(self, x, dims=None, keepdim=False, sharding=None, *, dim=None):
        return self._reduction("mean", x, dims, dim, keepdim, sharding)

    def var_mean(self, x, dims=None, keepdim=False, correction=1, sharding=None, *,
                 dim=None):
        """(variance divided by N - correction, mean) over `dims`."""
        attributes = "" if correction == 1 else " {correction = %d : i64}" % correction
        return self._reduction("var_mean", x, dims, dim, keepdim, sharding,
                               results=2, attributes=attributes)

    # -- creation -----------------------------------------------------------

    def _creation(self, op, shape, dtype, syntax, sharding):
        shape = self._shape(op, shape)
        return self._emit(op, [], syntax,
                          [(shape, mlir_dtype(dtype, "fuser." + op), sharding)],
                          self._result_only)

    def full(self, shape, value, dtype, sharding=None):
        """A tensor of `shape` filled with `value`."""
        return self._creation("full", shape, dtype, _float_literal(value), sharding)

    def iota(self, shape, dtype, dim, start=0.0, step=1.0, sharding=None):
        """`start + i * step` along `dim`, i the global index."""
        shape = self._shape("iota", shape)
        dim = self._dim("iota", dim, len(shape), "dim")
        defaults = []
        if start != 0.0:
            defaults.append("start = %s : f64" % _float_literal(start))
        if step != 1.0:
            defaults.append("step = %s : f64" % _float_literal(step))
        syntax = "dim = %d" % dim
        if defaults:
            syntax += " {%s}" % ", ".join(defaults)
        return self._creation("iota", shape, dtype, syntax, sharding)

    def uniform(self, shape, dtype, low=0.0, high=1.0, seed=0, sharding=None):
        """Values drawn uniformly from [low, high), the same however sharded."""
        syntax = "low = %s, high = %s, seed = %d" % (
            _float_literal(low), _float_literal(high), seed)
        return self._creation("uniform", shape, dtype, syntax, sharding)

    def normal(self, shape, dtype, mean=0.0, std=1.0, seed=0, sharding=None):
        """Values drawn from N(mean, std^2), the same however sharded."""
        syntax = "mean = %s, std = %s, seed = %d" % (
            _float_literal(mean), _float_literal(std), seed)
        return self._creation("normal", shape, dtype, syntax, sharding)

    # -- layout and meta ops ------------------------------------------------

    def broadcast(self, x, shape, dims, sharding=None):
        """`x` placed into a tensor of `shape`: input dim i becomes dim
        dims[i] (strictly increasing); size-1 dims repeat, new dims too."""
        x = self._operand("broadcast", x, "input")
        shape = self._shape("broadcast", shape)
        dims = _as_list(dims)
        if len(dims) != x.rank:
            raise ValueError("fuser.broadcast: dims has %d entries for an input "
                             "of rank %d" % (len(dims), x.rank))
        for input_dim, result_dim in enumerate(dims):
            if not -len(shape) <= result_dim < len(shape):
                raise ValueError("fuser.broadcast: input dim %d maps to result dim "
                                 "%d, out of range for rank %d"
                                 % (input_dim, result_dim, len(shape)))
        dims = [_from_end(dim, len(shape)) for dim in dims]
        for input_dim, result_dim in enumerate(dims):
            if input_dim > 0 and result_dim <= dims[input_dim - 1]:
                raise ValueError("fuser.broadcast: dims must be strictly increasing; "
                                 "reorder dims with fuser.permute")
            if x.shape[input_dim] not in (1, shape[result_dim]):
                raise ValueError("fuser.broadcast: input dim %d of size %d cannot "
                                 "broadcast to result dim %d of size %d"
                                 % (input_dim, x.shape[input_dim], result_dim,
                                    shape[result_dim]))
        return self._emit("broadcast", [x], "%s dims = %s" % (x.name, _int_list(dims)),
                          [(shape, x.dtype, sharding)], self._input_to_result)

    def expand(self, x, shape, sharding=None):
        """`x` with its size-1 dims repeated to `shape`."""
        x = self._operand("expand", x, "input")
        shape = self._shape("expand", shape)
        if len(shape) != x.rank:
            raise ValueError("fuser.expand: input rank %d differs from result rank "
                             "%d; add dims with fuser.broadcast" % (x.rank, len(shape)))
        for dim, (old, new) in enumerate(zip(x.shape, shape)):
            if old not in (1, new):
                raise ValueError("fuser.expand: input dim %d of size %d cannot "
                                 "expand to size %d (only size-1 dims expand)"
                                 % (dim, old, new))
        return self._emit("expand", [x], x.name, [(shape, x.dtype, sharding)],
                          self._input_to_result)

    def squeeze(self, x, dims, sharding=None):
        """`x` without its size-1 dims `dims`."""
        x = self._operand("squeeze", x, "input")
        dims = self._dim_list("squeeze", dims, x.rank, "squeezed dim")
        for dim in dims:
            if x.shape[dim] != 1:
                raise ValueError("fuser.squeeze: squeezed dim %d has size %d, not 1"
                                 % (dim, x.shape[dim]))
        shape = [size for dim, size in enumerate(x.shape) if dim not in dims]
        return self._emit("squeeze", [x], "%s dims = %s" % (x.name, _int_list(dims)),
                          [(shape, x.dtype, sharding)], self._input_to_result)

    def reshape(self, x, shape, sharding=None):
        """The elements of `x` in row-major order, as `shape`."""
        x = self._operand("reshape", x, "input")
        shape = self._shape("reshape", shape)
        if math.prod(shape) != math.prod(x.shape):
            raise ValueError("fuser.reshape: changes the number of elements from "
                             "%d to %d" % (math.prod(x.shape), math.prod(shape)))
        return self._emit("reshape", [x], x.name, [(shape, x.dtype, sharding)],
                          self._input_to_result)

    def permute(self, x, perm, sharding=None):
        """`x` with result dim i taken from input dim perm[i]."""
        x = self._operand("permute", x, "input")
        given = _as_list(perm)
        perm = self._dim_list("permute", given, x.rank, "perm dim")
        if len(perm) != x.rank:
            raise ValueError("fuser.permute: perm %s is not a permutation of the "
                             "%d input dims" % (given, x.rank))
        shape = [x.shape[dim] for dim in perm]
        return self._emit("permute", [x], "%s perm = %s" % (x.name, _int_list(perm)),
                          [(shape, x.dtype, sharding)], self._input_to_result)

    def slice(self, x, starts, limits, steps=None, sharding=None):
        """The window [starts, limits) of `x`, every steps-th element."""
        x = self._operand("slice", x, "input")
        starts, limits = list(starts), list(limits)
        steps = [1] * x.rank if steps is None else list(steps)
        for name, values in (("starts", starts), ("limits", limits), ("steps", steps)):
            if len(values) != x.rank:
                raise ValueError("fuser.slice: %s has %d entries for an input of "
                                 "rank %d" % (name, len(values), x.rank))
        shape = []
        for dim, (start, limit, step, size) in enumerate(zip(starts, limits, steps,
                                                             x.shape)):
            if step < 1:
                raise ValueError("fuser.slice: step %d of dim %d must be at least 1"
                                 % (step, dim))
            if not 0 <= start <= limit <= size:
                raise ValueError("fuser.slice: slice [%d, %d) of dim %d is outside "
                                 "[0, %d]" % (start, limit, dim, size))
            shape.append((limit - start + step - 1) // step)
        syntax = "%s starts = %s limits = %s steps = %s" % (
            x.name, _int_list(starts), _int_list(limits), _int_list(steps))
        return self._emit("slice", [x], syntax, [(shape, x.dtype, sharding)],
                          self._input_to_result)

    def cat(self, tensors, dim, sharding=None):
        """`tensors` concatenated along `dim`."""
        tensors = [self._operand("cat", t, "input #%d" % i)
                   for i, t in enumerate(tensors)]
        if not tensors:
            raise ValueError("fuser.cat: cat needs at least one input")
        first = tensors[0]
        dim = self._dim("cat", dim, first.rank, "cat dim")
        shape = list(first.shape)
        for index, tensor in enumerate(tensors[1:], 1):
            if tensor.dtype != first.dtype:
                raise ValueError("fuser.cat: input #%d has element type %s but "
                                 "input #0 has %s" % (index, tensor.dtype, first.dtype))
            if tensor.rank != first.rank:
                raise ValueError("fuser.cat: input #%d has rank %d but input #0 has "
                                 "rank %d" % (index, tensor.rank, first.rank))
            for d, size in enumerate(tensor.shape):
                if d != dim and size != shape[d]:
                    raise ValueError("fuser.cat: input #%d dim %d has size %d but "
                                     "input #0 has %d; only the cat dim may differ"
                                     % (index, d, size, shape[d]))
            shape[dim] += tensor.shape[dim]
        syntax = "%s dim = %d" % (", ".join(t.name for t in tensors), dim)
        return self._emit("cat", tensors, syntax, [(shape, first.dtype, sharding)])

    def pad(self, x, low, high, value=0.0, sharding=None):
        """`x` with low[d] and high[d] elements of `value` around dim d."""
        x = self._operand("pad", x, "input")
        low, high = list(low), list(high)
        if len(low) != x.rank or len(high) != x.rank:
            raise ValueError("fuser.pad: low and high need %d entries each, got "
                             "%d and %d" % (x.rank, len(low), len(high)))
        for dim, (before, after) in enumerate(zip(low, high)):
            if before < 0 or after < 0:
                raise ValueError("fuser.pad: padding of dim %d is negative; use "
                                 "fuser.slice to shrink" % dim)
        shape = [size + before + after
                 for size, before, after in zip(x.shape, low, high)]
        syntax = "%s low = %s high = %s" % (x.name, _int_list(low), _int_list(high))
        if value != 0.0:
            syntax += " {value = %s : f64}" % _float_literal(value)
        return self._emit("pad", [x], syntax, [(shape, x.dtype, sharding)],
                          self._input_to_result)

    def select(self, x, dim, index, sharding=None):
        """Element `index` of dim `dim` of `x`, the dim removed."""
        x = self._operand("select", x, "input")
        dim = self._dim("select", dim, x.rank, "select dim")
        if not 0 <= index < x.shape[dim]:
            raise ValueError("fuser.select: index %d is out of range for dim %d of "
                             "size %d" % (index, dim, x.shape[dim]))
        shape = x.shape[:dim] + x.shape[dim + 1:]
        return self._emit("select", [x], "%s dim = %d index = %d" % (x.name, dim, index),
                          [(shape, x.dtype, sharding)], self._input_to_result)

    # -- products and resharding --------------------------------------------

    @staticmethod
    def _activation(op, activation):
        if activation is None:
            return ""
        if activation not in ACTIVATIONS:
            raise ValueError("fuser.%s: unknown activation %r; expected gelu_tanh "
                             "or relu" % (op, activation))
        return " activation = " + activation

    def matmul(self, lhs, rhs, activation=None, sharding=None):
        """[..., M, K] x [..., K, N] (or a shared [K, N]) -> [..., M, N]."""
        a = self._operand("matmul", lhs, "lhs")
        b = self._operand("matmul", rhs, "rhs")
        if a.rank < 2 or b.rank < 2:
            raise ValueError("fuser.matmul: operands need rank >= 2, got lhs rank "
                             "%d and rhs rank %d" % (a.rank, b.rank))
        if b.rank != 2 and b.rank != a.rank:
            raise ValueError("fuser.matmul: lhs has rank %d but rhs has rank %d; "
                             "batch dims are matched exactly unless rhs is a matrix"
                             % (a.rank, b.rank))
        if a.dtype != b.dtype:
            raise ValueError("fuser.matmul: lhs element type %s differs from rhs "
                             "element type %s" % (a.dtype, b.dtype))
        if b.rank != 2 and a.shape[:-2] != b.shape[:-2]:
            raise ValueError("fuser.matmul: batch dims differ: lhs has %s, rhs has %s"
                             % (a.shape[:-2], b.shape[:-2]))
        if a.shape[-1] != b.shape[-2]:
            raise ValueError("fuser.matmul: contracted sizes differ: lhs K is %d but "
                             "rhs K is %d" % (a.shape[-1], b.shape[-2]))
        shape = a.shape[:-1] + [b.shape[-1]]
        syntax = "%s, %s%s" % (a.name, b.name, self._activation("matmul", activation))
        return self._emit("matmul", [a, b], syntax, [(shape, a.dtype, sharding)])

    def linear(self, x, weight, bias=None, activation=None, sharding=None):
        """PyTorch's linear: x [..., K], weight [N, K] (or [K]), bias [N]."""
        x = self._operand("linear", x, "input")
        w = self._operand("linear", weight, "weight")
        operands = [x, w]
        if x.rank < 1:
            raise ValueError("fuser.linear: input needs rank >= 1")
        if w.rank not in (1, 2):
            raise ValueError("fuser.linear: weight must be [N, K] or [K], got rank %d"
                             % w.rank)
        if w.dtype != x.dtype:
            raise ValueError("fuser.linear: weight element type %s differs from "
                             "input element type %s" % (w.dtype, x.dtype))
        if x.shape[-1] != w.shape[-1]:
            raise ValueError("fuser.linear: contracted sizes differ: input K is %d "
                             "but weight K is %d" % (x.shape[-1], w.shape[-1]))
        shape = x.shape[:-1] + w.shape[:-1]
        syntax = "%s, %s" % (x.name, w.name)
        if bias is not None:
            b = self._operand("linear", bias, "bias")
            if b.dtype != x.dtype:
                raise ValueError("fuser.linear: bias element type %s differs from "
                                 "input element type %s" % (b.dtype, x.dtype))
            if b.shape != w.shape[:-1]:
                raise ValueError("fuser.linear: bias has shape %s but the weight "
                                 "needs %s" % (b.shape, w.shape[:-1]))
            operands.append(b)
            syntax += " bias " + b.name
        syntax += self._activation("linear", activation)
        return self._emit("linear", operands, syntax, [(shape, x.dtype, sharding)])

    def _attention_syntax(self, op, operands, causal, scale, dropout, seed):
        if not 0.0 <= dropout < 1.0:
            raise ValueError("fuser.%s: dropout probability must be in [0, 1), "
                             "got %r" % (op, dropout))
        syntax = ", ".join(t.name for t in operands)
        if causal:
            syntax += " causal"
        if scale is not None:
            syntax += " scale = " + _float_literal(scale)
        if dropout:
            syntax += " dropout = " + _float_literal(dropout)
        if seed:
            syntax += " seed = %d" % seed
        return syntax

    @staticmethod
    def _functional_results(operands, results):
        return "(%s) -> (%s)" % (", ".join(t.type for t in operands),
                                 ", ".join(t.type for t in results))

    def sdpa(self, query, key, value, causal=False, scale=None, dropout=0.0,
             seed=0, sharding=None):
        """Fused scaled dot-product attention (PyTorch's semantics) on
        query [b, h, sq, d], key [b, h, skv, d], value [b, h, skv, dv]:
        (output [b, h, sq, dv], logsumexp [b, h, sq] f32). `sharding` is the
        output's; the log-sum-exp's follows it."""
        q = self._operand("sdpa", query, "query")
        k = self._operand("sdpa", key, "key")
        v = self._operand("sdpa", value, "value")
        for role, t in (("query", q), ("key", k), ("value", v)):
            if t.rank != 4:
                raise ValueError("fuser.sdpa: %s must be [batch, heads, sequence, "
                                 "head dim], got rank %d" % (role, t.rank))
        syntax = self._attention_syntax("sdpa", [q, k, v], causal, scale, dropout,
                                        seed)
        b, h, sq = q.shape[:3]
        return self._emit("sdpa", [q, k, v], syntax,
                          [(q.shape[:3] + [v.shape[3]], q.dtype, sharding),
                           ([b, h, sq], "f32", None)],
                          self._functional_results)

    def sdpa_backward(self, query, key, value, output, grad_output, logsumexp,
                      causal=False, scale=None, dropout=0.0, seed=0):
        """(grad_query, grad_key, grad_value) of `sdpa` with the forward's
        settings, given its output, log-sum-exp and the output's gradient."""
        operands = [self._operand("sdpa_backward", t, role) for t, role in (
            (query, "query"), (key, "key"), (value, "value"), (output, "output"),
            (grad_output, "grad_output"), (logsumexp, "logsumexp"))]
        syntax = self._attention_syntax("sdpa_backward", operands, causal, scale,
                                        dropout, seed)
        return self._emit("sdpa_backward", operands, syntax,
                          [(t.shape, t.dtype, None) for t in operands[:3]],
                          self._functional_results)

    def embedding(self, table, indices, sharding=None):
        """Rows of table [V, E] picked by integer `indices` [...]: [..., E]."""
        t = self._operand("embedding", table, "table")
        i = self._operand("embedding", indices, "indices")
        if t.rank != 2:
            raise ValueError("fuser.embedding: table must be [rows, features], got "
                             "rank %d" % t.rank)
        return self._emit("embedding", [t, i], "%s, %s" % (t.name, i.name),
                          [(i.shape + [t.shape[1]], t.dtype, sharding)])

    def set(self, x, sharding):
        """`x` with another sharding: the user's way to request resharding."""
        x = self._operand("set", x, "input")
        return self._emit("set", [x], x.name, [(x.shape, x.dtype, sharding)],
                          self._input_to_result)

    # -- the program --------------------------------------------------------

    def text(self, locations=False):
        """The function as MLIR text; `locations` adds each op's Python line.
        A definition with a mesh whose tensors carry no sharding runs
        replicated on that mesh: each type then says so, as a program
        without a mesh would run on one device."""
        text = self._unplaced_text(locations)
        if self.mesh is None or "#fuser.sharding" in text:
            return text
        mesh = _mesh_text(self.mesh)

        def replicated(found):
            rank = found.group(1).count("x")
            return "tensor<%s%s, #fuser.sharding<%s, [%s]>>" % (
                found.group(1), found.group(2), mesh, ", ".join(["[]"] * rank))
        return _PLAIN_TENSOR_TYPE.sub(replicated, text)

    def _unplaced_text(self, locations):
        arguments = ", ".join("%s: %s" % (t.name, t.type) for t in self.inputs)
        result_types = [t.type for t in self.outputs]
        signature = "func.func @%s(%s)" % (self.name, arguments)
        if len(result_types) == 1:
            signature += " -> " + result_types[0]
        elif result_types:
            signature += " -> (%s)" % ", ".join(result_types)
        lines = [signature + " {"]
        for op, location in self._ops:
            lines.append("  " + op + (" " + location if locations and location else ""))
        if self.outputs:
            lines.append("  return %s : %s" % (", ".join(t.name for t in self.outputs),
                                               ", ".join(result_types)))
        else:
            lines.append("  return")
        lines.append("}")
        return "\n".join(lines) + "\n"

    def module(self, context):
        """The function parsed and verified in `context` (an ir.Context);
        verifier errors raise ir.MLIRError located at the Python lines."""
        from . import ir  # Only here: the rest works without the compiler.

        module = ir.Module.parse(self.text(locations=True), context)
        module.verify()
        return module

    def __str__(self):
        return self.text()
