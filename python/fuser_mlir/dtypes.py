"""Element types: the MLIR names the builder writes, from the dtypes
PyTorch and NumPy users pass."""

DTYPES = ("f32", "f16", "bf16", "f64", "i64", "i32", "i8", "i1")

# NumPy's and PyTorch's names of the same types (bfloat16 is NumPy's
# through ml_dtypes).
_BY_LIBRARY_NAME = {
    "float32": "f32", "float16": "f16", "bfloat16": "bf16", "float64": "f64",
    "int64": "i64", "int32": "i32", "int8": "i8", "bool": "i1",
}


def _top_module(value):
    return (getattr(value, "__module__", None) or "").split(".")[0]


def _library_name(dtype):
    """NumPy's or PyTorch's name of `dtype`, or None if it is neither's."""
    # torch.dtype is known by its module and spelling (str(torch.half) is
    # "torch.float16"), so programs built without PyTorch never import it.
    if _top_module(type(dtype)) == "torch":
        return str(dtype).removeprefix("torch.")
    # A dtype (np.dtype("float16")) or a scalar type (np.float32): its
    # caller has imported NumPy already.
    if "numpy" in (_top_module(type(dtype)), _top_module(dtype)):
        import numpy

        try:
            return numpy.dtype(dtype).name
        except TypeError:
            return None
    return None


def mlir_dtype(dtype, where):
    """The MLIR element type of `dtype`: one of DTYPES, or a NumPy or
    PyTorch dtype of one. Anything else raises TypeError prefixed by
    `where`."""
    if isinstance(dtype, str):
        if dtype in DTYPES:
            return dtype
    else:
        name = _library_name(dtype)
        if name in _BY_LIBRARY_NAME:
            return _BY_LIBRARY_NAME[name]
    raise TypeError("%s: unknown dtype %r; expected one of %s, or the NumPy or "
                    "PyTorch dtype of one (%s)"
                    % (where, dtype, ", ".join(DTYPES), ", ".join(_BY_LIBRARY_NAME)))
