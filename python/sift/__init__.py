"""sift: static masked rewrites of data-dependent tensor programs.

The MLIR-level API (needs the compiled extension, sift._sift):

    import sift
    module = sift.compile_mlir("examples/sampler.mlir",
                               transforms=["sift-staticize"])
    feats, labels = module.sampler(x, y, 7)   # two sift.Bounded pairs
    labels.trim()                              # the valid part

`sift.reference` holds pure-Python and NumPy references of the ops; it and
the exceptions (`sift.Error` and its subclasses) import without the
extension, which loads on first use of the API.
"""

import pkgutil

# The extension may sit in another directory named `sift` on sys.path (the
# build tree's python_packages/sift while the sources run from python/).
__path__ = pkgutil.extend_path(__path__, __name__)

from .bounded import Bounded  # noqa: E402
from .errors import (  # noqa: E402
    CompileError, Error, ExecutionError, InvalidArgumentError, NotFoundError,
    OutOfMemoryError, ParseError, SourceLocation, UnsupportedError)

__all__ = [
    "compile_mlir", "Module", "Function", "Signature", "TensorType",
    "BoundedType", "Bounded", "Error", "InvalidArgumentError",
    "NotFoundError", "ParseError", "CompileError", "UnsupportedError",
    "ExecutionError", "OutOfMemoryError", "SourceLocation",
]

_RUNTIME = {"compile_mlir", "Module", "Function", "Signature", "TensorType",
            "BoundedType"}


def __getattr__(name):
    # The API loads the extension (and NumPy) on first use.
    if name in _RUNTIME:
        from . import _runtime
        return getattr(_runtime, name)
    raise AttributeError(f"module 'sift' has no attribute '{name}'")
