"""Compiled programs, cached: a definition's text and the compiler's
options name a library in a cache folder, compiled once and loaded by
every rank.

    library = programs.load(fd.text(), target="cpu")   # a runtime.Library

The folder is `$FUSER_CACHE_DIR`, else `${XDG_CACHE_HOME:-~/.cache}/fuser`.
A library's name hashes the program's text, the options and the compiler
(its build), so that a changed compiler compiles again. On several ranks
(mpirun), one rank per node compiles while the others wait, bounded by
FUSER_COMPILE_TIMEOUT_S (600 s unless set); a compile error raises on
every rank. The compiler writes
each library whole under a name of its own, then renames it into place, so
that processes of other jobs sharing the folder never load half of one.
"""

import hashlib
import json
import os

from . import runtime

# The compiler's options that change what it writes, as ir.compile takes
# them; those naming files it also writes are not part of a library's name.
_OUTPUT_FILES = ("ptx_output", "report_communication")


def cache_directory():
    """Where compiled libraries are kept."""
    folder = os.environ.get("FUSER_CACHE_DIR")
    if not folder:
        base = os.environ.get("XDG_CACHE_HOME") or os.path.join(
            os.path.expanduser("~"), ".cache")
        folder = os.path.join(base, "fuser")
    return folder


def _compiler_identity():
    """The compiler's build: its library's path, size and modification
    time (a rebuilt compiler is another compiler)."""
    from . import _ir
    status = os.stat(_ir.__file__)
    return "%s:%d:%d" % (_ir.__file__, status.st_size, status.st_mtime_ns)


def library_path(text, options, directory=None):
    """The path of the library compiled from `text` with `options`."""
    key = json.dumps([text, sorted(options.items()), _compiler_identity()])
    digest = hashlib.blake2b(key.encode(), digest_size=16).hexdigest()
    return os.path.join(directory or cache_directory(), digest + ".so")


def _compile(text, options, path):
    from . import ir
    context = ir.Context()
    ir.compile(ir.Module.parse(text, context), path, **options)


def load(text, *, directory=None, **options):
    """The runtime.Library compiled from the fuser program `text` with
    ir.compile's `options`, compiled on first use. Collective when MPI
    runs several ranks: every rank calls it."""
    for name in _OUTPUT_FILES:
        if options.get(name):
            raise ValueError("programs.load caches libraries; call ir.compile "
                             "for %s" % name)
    path = library_path(text, options, directory)
    rank = runtime.rank()
    error = ""
    if runtime.node_of_rank(rank) == rank and not os.path.exists(path):
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            _compile(text, options, path)
        except Exception as problem:  # raised on every rank below
            error = str(problem) or type(problem).__name__
            failure = problem
    # Also the wait for the node's compiling rank.
    first = runtime.agree(error, timeout_s=float(
        os.environ.get("FUSER_COMPILE_TIMEOUT_S", "600")))
    if first is not None:
        if error:
            raise failure
        raise RuntimeError("rank %d could not compile the program: %s" % first)
    return runtime.Library(path)
