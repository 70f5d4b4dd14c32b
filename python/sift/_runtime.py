"""The MLIR-level API: compile MLIR text, call its functions on arrays.

This module imports the compiled extension (sift._sift); `import sift`
does not, so that the pure-Python references work without it.
"""

import inspect
import keyword
import os

import numpy as np

from . import _sift
from .bounded import Bounded
from .errors import Error, InvalidArgumentError

__all__ = ["compile_mlir", "Module", "Function", "Signature", "TensorType",
           "BoundedType"]

# sift's element types (the MLIR spelling) and their NumPy dtypes.
_NUMPY_DTYPES = {
    "i1": np.dtype(np.bool_), "i8": np.dtype(np.int8),
    "i16": np.dtype(np.int16), "i32": np.dtype(np.int32),
    "i64": np.dtype(np.int64), "u8": np.dtype(np.uint8),
    "f32": np.dtype(np.float32), "f64": np.dtype(np.float64),
}


class TensorType:
    """The type of one parameter or result.

    `name` (the SSA name in the source, a `sift.name` attribute, or
    ``arg<i>``/``result<i>``), `dtype` (a NumPy dtype), `element_type` (the
    MLIR spelling, e.g. ``"f32"``), `shape` (a tuple; None for a dynamic
    extent; empty for scalars), `is_tensor` (False for a scalar), `bound`
    (the declared `sift.bound` of a size parameter, else None).
    """

    __slots__ = ("name", "is_tensor", "element_type", "dtype", "shape",
                 "bound")

    def __init__(self, name, is_tensor, element_type, shape, bound=None):
        self.name = name
        self.is_tensor = is_tensor
        self.element_type = element_type
        self.dtype = _NUMPY_DTYPES[element_type]
        self.shape = tuple(shape)
        self.bound = bound

    @property
    def mlir_type(self):
        """The MLIR spelling: ``tensor<4x?xf32>`` or ``i64``."""
        if not self.is_tensor:
            return self.element_type
        dims = "".join(("?" if d is None else str(d)) + "x"
                       for d in self.shape)
        return f"tensor<{dims}{self.element_type}>"

    def __repr__(self):
        bound = f" {{sift.bound = {self.bound}}}" if self.bound is not None \
            else ""
        return f"{self.name}: {self.mlir_type}{bound}"


class BoundedType:
    """A bounded result (made by --sift-staticize): `data`, the padded
    tensor, and `count`, its valid length along the padded dimension:
    dimension `dim` after count's own (batch) dimensions (0 unless the
    data-dependent dimension is a later one, as in ``x[:, mask]``)."""

    __slots__ = ("name", "data", "count", "dim")

    def __init__(self, name, data, count, dim=0):
        self.name = name
        self.data = data
        self.count = count
        self.dim = dim

    def __repr__(self):
        return (f"{self.name}: Bounded({self.data.mlir_type}, "
                f"{self.count.mlir_type})")


class Signature:
    """A function's `name`, `inputs` (TensorTypes) and `results`
    (TensorTypes and BoundedTypes, one per value a call returns)."""

    __slots__ = ("name", "inputs", "results", "_raw_results")

    def __init__(self, name, inputs, raw_results):
        self.name = name
        self.inputs = tuple(
            TensorType(n or f"arg{i}", t, e, s, b)
            for i, (n, t, e, s, b, *_) in enumerate(inputs))
        # Pair every bounded padded tensor with its count (the next
        # result); the engine marks them from `sift.bounded_results`.
        results, raw, i = [], [], 0
        while i < len(raw_results):
            n, t, e, s, b, bounded, dim = raw_results[i]
            name = n or f"result{len(results)}"
            if bounded:
                cn, ct, ce, cs, cb, *_ = raw_results[i + 1]
                results.append(BoundedType(
                    name, TensorType(name, t, e, s, b),
                    TensorType(cn or f"{name}_count", ct, ce, cs, cb), dim))
                raw.append(True)
                i += 2
            else:
                results.append(TensorType(name, t, e, s, b))
                raw.append(False)
                i += 1
        self.results = tuple(results)
        self._raw_results = tuple(raw)

    def __repr__(self):
        inputs = ", ".join(map(repr, self.inputs))
        results = ", ".join(map(repr, self.results))
        return f"{self.name}({inputs}) -> ({results})"


def _parameter_names(inputs):
    """Python parameter names for the inputs: their names where they are
    unique identifiers, else ``arg<i>``."""
    names, seen = [], set()
    for i, t in enumerate(inputs):
        name = t.name
        if (not name.isidentifier() or keyword.iskeyword(name)
                or name in seen):
            name = f"arg{i}"
        seen.add(name)
        names.append(name)
    return names


class Function:
    """A compiled function. Call it with NumPy arrays, DLPack producers
    (PyTorch or JAX CPU tensors) and Python or NumPy scalars, positionally
    or by parameter name; it returns one value, or a tuple of them when the
    function has several results: NumPy arrays owning their memory (scalar
    results as NumPy scalars) and `Bounded` pairs for bounded results."""

    def __init__(self, module, engine, raw_signature):
        name, inputs, results = raw_signature
        self._module = module  # keeps the engine alive
        self._engine = engine
        self.signature = Signature(name, inputs, results)
        self.__name__ = self.__qualname__ = name
        self._scalar_results = tuple(
            isinstance(r, TensorType) and not r.is_tensor
            for r in self.signature.results)
        self._trivial_results = (not any(self.signature._raw_results)
                                 and not any(self._scalar_results))
        self.__signature__ = inspect.Signature([
            inspect.Parameter(p, inspect.Parameter.POSITIONAL_OR_KEYWORD)
            for p in _parameter_names(self.signature.inputs)])
        self.__doc__ = f"sift function {self.signature!r}"

    @property
    def name(self):
        return self.signature.name

    def __repr__(self):
        return f"<sift.Function {self.signature!r}>"

    def __call__(self, *args, **kwargs):
        if kwargs:
            try:
                bound = self.__signature__.bind(*args, **kwargs)
            except TypeError as e:
                raise InvalidArgumentError(
                    f"function '{self.name}': {e}") from None
            args = bound.args
        try:
            raw = self._engine.call(self.name, *args)
        except Error as e:
            if e.argument is not None and e.argument < len(
                    self.signature.inputs):
                e.argument_name = self.signature.inputs[e.argument].name
            raise
        if self._trivial_results:
            return raw[0] if len(raw) == 1 else tuple(raw)
        out, i = [], 0
        for r, scalar in zip(self.signature.results, self._scalar_results):
            if isinstance(r, BoundedType):
                out.append(Bounded(raw[i], raw[i + 1], r.dim))
                i += 2
            else:
                out.append(raw[i][()] if scalar else raw[i])
                i += 1
        return out[0] if len(out) == 1 else tuple(out)


class Module:
    """A compiled MLIR module. Its public functions are attributes
    (``module.sampler``) and items (``module["sampler"]``);
    `functions` maps their names to them, in source order."""

    def __init__(self, engine):
        self._engine = engine
        self.functions = {}
        for raw in engine.signatures():
            self.functions[raw[0]] = Function(self, engine, raw)

    @property
    def loaded_from_cache(self):
        """Whether the object code came from the compile cache."""
        return self._engine.loaded_from_cache

    def __getattr__(self, name):
        functions = self.__dict__.get("functions", {})
        if name in functions:
            return functions[name]
        raise AttributeError(
            f"the module has no public function '{name}' (it has: "
            f"{', '.join(functions) or 'none'})")

    def __getitem__(self, name):
        try:
            return self.functions[name]
        except KeyError:
            raise KeyError(name) from None

    def __dir__(self):
        return sorted(set(super().__dir__()) | set(self.functions))

    def __repr__(self):
        return f"<sift.Module with {', '.join(self.functions) or 'no'} " \
               f"function(s)>"


def _is_source_text(source):
    # MLIR text always holds a brace or a newline; a path never should.
    return "{" in source or "\n" in source


def compile_mlir(source, transforms=None, target="cpu", functions=None,
                 pipeline=None, opt_level=2, num_threads=0,
                 name="<source>", cache=True):
    """Compiles MLIR and returns a `Module` of its public functions.

    source      MLIR text (a str holding ``{`` or a newline), or the path of
                a ``.mlir`` file (a str or os.PathLike).
    transforms  source-level passes run right after parsing, a pipeline
                string or a list of passes joined with ``,``, e.g.
                ``["sift-staticize", "sift-batch{func=sampler size=4}"]``;
                the functions they add are callable like the others.
    target      ``"cpu"``, or ``"cuda"`` (the GPU pipeline; without a CUDA
                driver or device: UnsupportedError "no CUDA driver/device").
    functions   names of the public functions to compile (default: all).
    pipeline    a textual pass pipeline replacing the CPU pipeline.
    opt_level   LLVM optimization level, 0-3.
    num_threads threads of each parallel loop; 0 lets OpenMP choose (with
                a pipeline of your own, set num-threads in it instead:
                giving both is an InvalidArgumentError).
    name        the buffer name diagnostics use for source text.
    cache       reuse the object code of an earlier compile of the same
                source with the same options, in this process or another
                (the compile cache in ``$SIFT_CACHE_DIR``, else
                ``~/.cache/sift/jit``; ``SIFT_CACHE=0`` turns it off);
                ``Module.loaded_from_cache`` says whether it did.

    Compiling releases the GIL. Errors are sift.Error subclasses.
    """
    if isinstance(transforms, (list, tuple)):
        transforms = ",".join(transforms)
    if isinstance(functions, str):
        functions = [functions]
    if isinstance(source, os.PathLike):
        source, is_path = os.fspath(source), True
    elif isinstance(source, str):
        is_path = not _is_source_text(source)
    elif isinstance(source, bytes):
        source, is_path = source.decode(), False
    else:
        raise InvalidArgumentError(
            f"compile_mlir: expected MLIR text or a path, got "
            f"{type(source).__name__}")
    if not isinstance(opt_level, int) or not 0 <= opt_level <= 3:
        raise InvalidArgumentError(
            f"compile_mlir: opt_level must be 0-3, got {opt_level!r}")
    engine = _sift.Engine.compile(
        source, is_path, name, transforms or "", pipeline or "",
        list(functions or []), target, opt_level, num_threads, cache)
    return Module(engine)
