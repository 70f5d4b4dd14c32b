"""sift.torch.compile: export, translate, staticize (and batch), compile;
the compiled object shows what happened (`mlir`, `static_mlir`,
`report`)."""

import os
import re
import shutil
import subprocess

import torch
import torch.utils._pytree as pytree

from ..bounded import Bounded
from ..errors import InvalidArgumentError

_SYNC_OPS = re.compile(r"= sift\.(nonzero|masked_select|unique|randperm)\b"
                       r"(.*)$", re.MULTILINE)


class CompiledFunction:
    """`fn` exported and compiled by sift. Call it with torch tensors of the
    example inputs' shapes and dtypes (with `batch=B`: each with a leading
    dimension of B), and `seed=` when it draws random numbers; results are
    torch tensors (views of sift's result buffers, no copy).

    Attributes: `mlir` (the translated, dynamic program), `static_mlir`
    (after --sift-staticize and --sift-batch), `report` (bounds chosen and
    why, host syncs removed, what was batched), `function` (the underlying
    sift.Function, with its signature), `batch`, `takes_seed`.
    """

    def __init__(self, fn, example_args, batch=None, trim=True,
                 name="forward", **options):
        from . import _export, _translate
        from .._runtime import compile_mlir
        if batch is not None and (not isinstance(batch, int) or batch < 1):
            raise InvalidArgumentError(
                f"sift.torch.compile: batch must be a positive int, got "
                f"{batch!r}")
        program = _export(fn, example_args)
        self._translation = _translate(program, name)
        # The results' structure as the function returns them (a tuple,
        # a list, a dict, torch's named (values, indices) of max.dim).
        spec = getattr(getattr(program, "call_spec", None), "out_spec", None)
        self._out_spec = spec if spec is not None and getattr(
            spec, "num_leaves", None) == len(
                self._translation.result_dtypes) else None
        self.mlir = self._translation.text
        self.batch = batch
        self.trim = trim
        self.takes_seed = self._translation.has_seed
        self._inputs = self._translation.inputs
        self.name = f"{name}_batched" if batch else name
        transforms = ["sift-staticize"]
        if batch:
            shared = [str(i) for i, (kind, _) in enumerate(self._inputs)
                      if kind == "state"]
            unbatched = f" unbatched={','.join(shared)}" if shared else ""
            transforms.append(
                f"sift-batch{{func={name} size={batch}{unbatched}}}")
        extra = options.pop("transforms", None) or []
        if isinstance(extra, str):
            extra = [extra]
        self.transforms = transforms + list(extra)
        self.module = compile_mlir(
            self.mlir, transforms=self.transforms, functions=[self.name],
            name=f"<sift.torch {name}>", **options)
        self.function = self.module[self.name]
        self._static = None
        self._bounds = None

    # -- calling ------------------------------------------------------------
    def _seed(self, seed):
        if self.batch is None:
            if seed is None:
                seed = int(torch.randint(0, 2 ** 62, ()))
            if isinstance(seed, torch.Tensor):
                seed = int(seed)
            return int(seed)
        if seed is None:
            return torch.randint(0, 2 ** 62, (self.batch,))
        if isinstance(seed, int):
            return seed + torch.arange(self.batch)
        seed = torch.as_tensor(seed, dtype=torch.int64)
        if tuple(seed.shape) != (self.batch,):
            raise InvalidArgumentError(
                f"sift.torch: a batched function takes {self.batch} seeds, "
                f"one per row (or an int s: rows use s, s+1, ...); got "
                f"shape {tuple(seed.shape)}")
        return seed.contiguous()

    def __call__(self, *args, seed=None):
        users = sum(1 for kind, _ in self._inputs if kind == "user")
        if len(args) != users:
            raise InvalidArgumentError(
                f"sift.torch: the function takes {users} tensor "
                f"argument(s), got {len(args)}")
        call = []
        for kind, x in self._inputs:
            v = args[x] if kind == "user" else x.detach()
            if isinstance(v, torch.Tensor) and v.dtype == torch.uint8:
                v = v.to(torch.int16)  # sift carries uint8 as int16
            if isinstance(v, torch.Tensor) and not v.is_contiguous():
                v = v.contiguous()
            call.append(v)
        if self.takes_seed:
            call.append(self._seed(seed))
        elif seed is not None:
            raise InvalidArgumentError(
                "sift.torch: the function draws no random numbers; it "
                "takes no seed")
        out = self.function(*call)
        # (A Bounded is a named pair: a tuple too.)
        single = isinstance(out, Bounded) or not isinstance(out, tuple)
        out = (out,) if single else out
        converted = []
        for r, dtype in zip(out, self._translation.result_dtypes):
            def as_torch(x, dtype=dtype):
                x = torch.from_dlpack(x)
                return x.to(dtype) if dtype == torch.uint8 else x
            if isinstance(r, Bounded):
                pair = Bounded(as_torch(r.data), torch.from_dlpack(r.count),
                               r.dim)
                converted.append(pair.trim() if self.trim else pair)
            else:
                converted.append(as_torch(r))
        if self._out_spec is not None:
            return pytree.tree_unflatten(converted, self._out_spec)
        return converted[0] if single else tuple(converted)

    # -- seeing what happened ----------------------------------------------
    @property
    def static_mlir(self):
        """The program after --sift-staticize (and --sift-batch): every
        shape static. None when no pass runner is available (see
        `_passes`)."""
        if self._static is None:
            self._static = _passes(self.mlir, ",".join(self.transforms))
        return self._static[0] if self._static else None

    def _bound_remarks(self):
        if self._bounds is None:
            self._bounds = _passes(self.mlir, "sift-staticize{report=1}")
        return self._bounds[1] if self._bounds else None

    @property
    def report(self):
        """What sift did with the program, as text: the bounds it padded
        each data-dependent value to (and why), the host syncs it removed,
        export's ranges it used, and what was batched."""
        lines = [f"sift.torch report for @{self.name}"]
        syncs = _SYNC_OPS.findall(self.mlir)
        lines.append(f"host syncs removed: {len(syncs)} (each "
                     "nonzero / masked_select / unique / randperm of a "
                     "computed size would have read a size back)")
        for op, rest in syncs:
            where = re.search(r'loc\("([^"]*)":(\d+)', rest)
            at = f" at {os.path.basename(where[1])}:{where[2]}" if where \
                else ""
            lines.append(f"  sift.{op}{at}")
        remarks = self._bound_remarks()
        lines.append("bounds chosen (--sift-staticize, from the program's "
                     "own sizes; docs/Staticize.md):")
        if remarks is None:
            lines.append("  (no pass runner: see the signature below)")
        else:
            for line in remarks.splitlines():
                m = re.search(r"^(.*?):(\d+):\d+: remark: (.*)$", line)
                if m and m[1] in ("<stdin>", "<sift>"):
                    if "host syncs removed" in m[3]:
                        continue  # Said above.
                    # No source location: the line of `mlir`.
                    lines.append(f"  mlir line {m[2]}: {m[3]}")
                elif m:
                    lines.append(f"  {os.path.basename(m[1])}:{m[2]}: "
                                 f"{m[3]}")
                elif "remark:" in line:
                    lines.append("  " + line.split("remark: ", 1)[1])
        for sym, bound, where in self._translation.clamped:
            lines.append(f"  export's range: size {sym} <= {bound} "
                         f"(torch._check or the op) at {where}, used as a "
                         "clamp")
        sig = self.function.signature
        lines.append("results:")
        for r in sig.results:
            if hasattr(r, "count"):
                lines.append(f"  {r.name}: padded {r.data.mlir_type}, valid "
                             f"count {r.count.mlir_type}")
            else:
                lines.append(f"  {r.name}: {r.mlir_type}")
        if self.batch:
            lines.append(f"batched (--sift-batch size={self.batch}): every "
                         "input and result gains a leading dimension of "
                         f"{self.batch}; one call runs all rows")
            if self.takes_seed:
                lines.append("  the seed becomes one seed per row "
                             f"(tensor<{self.batch}xi64>): row i draws what "
                             "an unbatched call with seed[i] draws")
        else:
            lines.append("not batched (compile with batch=B to batch)")
        if self.takes_seed:
            lines.append("random ops: sift's Philox streams keyed by `seed`, "
                         "one offset per call site; they match PyTorch in "
                         "distribution, not bit for bit")
        return "\n".join(lines) + "\n"

    def __repr__(self):
        return f"<sift.torch.CompiledFunction {self.function.signature!r}>"


def _tensor_opt():
    """A tensor-opt binary (for an extension without `transform`):
    $SIFT_TENSOR_OPT, the build tree's next to the extension, or one on
    PATH."""
    env = os.environ.get("SIFT_TENSOR_OPT")
    if env:
        return env
    try:
        from .. import _sift
        here = os.path.dirname(os.path.abspath(_sift.__file__))
        candidate = os.path.join(here, "..", "..", "bin", "tensor-opt")
        if os.path.exists(candidate):
            return os.path.normpath(candidate)
    except ImportError:
        pass
    return shutil.which("tensor-opt")


def _passes(text, pipeline):
    """(output MLIR, diagnostics) of running `pipeline` on `text` (the
    extension's `transform`, else a tensor-opt), or None when neither is
    available or the passes fail."""
    from .. import _sift
    from ..errors import Error
    transform = getattr(_sift, "transform", None)
    if transform is not None:
        try:
            return transform(text, pipeline)
        except Error:
            return None
    opt = _tensor_opt()
    if opt is None:
        return None
    proc = subprocess.run(
        [opt, f"--pass-pipeline=builtin.module({pipeline})",
         "--mlir-print-debuginfo=false"],
        input=text, capture_output=True, text=True)
    if proc.returncode:
        return None
    return proc.stdout, proc.stderr


def compile(fn, example_args, batch=None, trim=True, name="forward",
            **options):
    """Exports `fn` (a function or an nn.Module) with torch.export on
    `example_args`, translates it (export_mlir), staticizes it, batches it
    when `batch=B` and compiles it for the CPU. Options go to
    sift.compile_mlir (`transforms` after sift-staticize, `opt_level`,
    `num_threads`). With `trim`, a data-dependent result comes back as its
    valid part (as eager PyTorch returns it; for a batch, a list of rows);
    without, as a sift.Bounded pair of torch tensors."""
    return CompiledFunction(fn, example_args, batch=batch, trim=trim,
                            name=name, **options)


def backend(**options):
    """A `torch.compile` backend: `torch.compile(model,
    backend=sift.torch.backend())`. Each graph torch.compile captures is
    exported again and compiled by sift (same op set as `compile`; capture
    `nonzero` with `torch._dynamo.config.capture_dynamic_output_shape_ops
    = True`). A graph sift cannot translate, or one that draws random
    numbers (whose streams PyTorch owns there), runs as PyTorch captured
    it; the backend's `compiled` and `fallbacks` lists say which."""
    def sift_backend(gm, example_inputs):
        try:
            compiled = CompiledFunction(gm, example_inputs, **options)
        except Exception as e:  # Not translatable: PyTorch runs it.
            sift_backend.fallbacks.append(e)
            return gm.forward
        if compiled.takes_seed:
            sift_backend.fallbacks.append(compiled)
            return gm.forward
        sift_backend.compiled.append(compiled)

        def run(*args):
            out = compiled(*args)
            return out if isinstance(out, tuple) else (out,)
        return run

    sift_backend.compiled = []
    sift_backend.fallbacks = []
    return sift_backend
