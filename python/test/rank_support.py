"""What the rank scripts of the runtime tests share."""

import numpy as np


def expect_error(error_type, text, call):
    """Checks that `call()` raises `error_type` with `text` in its message."""
    try:
        call()
    except error_type as problem:
        assert text in str(problem), problem
        return
    raise AssertionError(f"no {error_type.__name__} ({text})")


def relative_error(found, expected):
    """The largest difference of `found` from `expected`, relative to the
    largest magnitude of `expected` (or 1, if smaller); infinite when the
    shapes differ."""
    found = np.asarray(found, dtype=np.float64)
    expected = np.asarray(expected, dtype=np.float64)
    if found.shape != expected.shape:
        return float("inf")
    scale = max(np.abs(expected).max(initial=0.0), 1.0)
    return np.abs(found - expected).max(initial=0.0) / scale
