#!/usr/bin/env python3
"""Conformance of the compiled sift ops against the NumPy references.

For every sift op and a set of configurations (random inputs at fixed seeds
and edge cases), this writes a small .mlir function and its inputs as .npy,
runs it with `tensor-run` (which applies the CPU pipeline), reads the results
back and compares them with python/sift/reference/ops.py: exactly for integer,
index and boolean results and for values that are only moved (sort, gather,
...), with a tight NaN-aware tolerance for float arithmetic. The random ops
are compared bit for bit with the Philox reference, and checked for their
properties (permutations, distinct indices, exact label counts, seeds).

It then checks `--sift-staticize`: each program of examples/patterns/ and
examples/sampler.mlir (plus small-N variants for the edge cases) is run as
written and after `tensor-opt --sift-staticize` on the same inputs; the first
`count` rows of each padded result must equal the dynamic result and the
NumPy reference of the program.

A case whose op has no CPU lowering yet is reported as skipped with the
reason tensor-run gave; it never passes silently. The last line is
"conformance: N passed, M failed, S skipped"; the exit status is 1 when
anything failed, 77 when nothing could run at all (numpy missing), else 0.

    test/Conformance/run_conformance.py --tensor-run build/bin/tensor-run \\
        --tensor-opt build/bin/tensor-opt [-k REGEX] [-j JOBS] [--keep DIR] [-v]
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python"))

try:
    import numpy as np
except ImportError:  # pragma: no cover
    print("conformance: skipped: numpy is not installed "
          "(scripts/bootstrap.sh installs it)")
    sys.exit(77)

from sift.reference import ops, philox  # noqa: E402

NAN = float("nan")
INF = float("inf")

# ----------------------------------------------------------------------------
# Types and text
# ----------------------------------------------------------------------------

ELT = {
    np.dtype(np.bool_): "i1", np.dtype(np.int8): "i8",
    np.dtype(np.int16): "i16", np.dtype(np.int32): "i32",
    np.dtype(np.int64): "i64", np.dtype(np.float16): "f16",
    np.dtype(np.float32): "f32", np.dtype(np.float64): "f64",
}


def ttype(shape, elt):
    """MLIR tensor type text; `elt` is an MLIR element name or a dtype;
    a None extent prints as '?'."""
    if not isinstance(elt, str):
        elt = ELT[np.dtype(elt)]
    dims = "".join(("?" if d is None else str(d)) + "x" for d in shape)
    return "tensor<%s%s>" % (dims, elt)


def tt(a):
    return ttype(a.shape, a.dtype)


def fattr(v, elt="f64"):
    return "%s : %s" % (repr(float(v)), elt)


def func(name, params, results, body):
    """A func.func text. params: [(name, type)], results: [(value, type)]."""
    ps = ", ".join("%%%s: %s" % p for p in params)
    rs = ", ".join(t for _, t in results)
    ret = ", ".join(v for v, _ in results)
    if len(results) != 1:
        rs = "(%s)" % rs
    lines = "\n".join("  " + l for l in body)
    return ("func.func @%s(%s) -> %s {\n%s\n  return %s : %s\n}\n"
            % (name, ps, rs, lines, ret, ", ".join(t for _, t in results)))


# ----------------------------------------------------------------------------
# Comparison
# ----------------------------------------------------------------------------

def compare(got, want, what, rtol=0.0, atol=0.0):
    """Errors (strings) comparing one result with its expected value."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return ["%s: shape %s, expected %s" % (what, got.shape, want.shape)]
    if got.dtype != want.dtype:
        return ["%s: dtype %s, expected %s" % (what, got.dtype, want.dtype)]
    if want.dtype.kind == "f":
        g = got.astype(np.float64)
        w = want.astype(np.float64)
        gn, wn = np.isnan(g), np.isnan(w)
        bad = gn != wn
        fin = ~gn & ~wn
        with np.errstate(invalid="ignore"):
            inf_bad = fin & (np.isinf(g) | np.isinf(w)) & (g != w)
            close = np.abs(g - w) <= atol + rtol * np.abs(w)
        bad |= inf_bad | (fin & ~np.isinf(w) & ~close)
    else:
        bad = got != want
    if np.any(bad):
        where = np.argwhere(bad)
        first = tuple(int(i) for i in where[0]) if bad.ndim else ()
        return ["%s: %d of %d elements differ; first at %s: got %r, "
                "expected %r%s" % (what, int(np.count_nonzero(bad)),
                                   want.size, first, got[first], want[first],
                                   "" if want.size > 16 else
                                   "\n      got      %s\n      expected %s"
                                   % (got.tolist(), want.tolist()))]
    return []


# ----------------------------------------------------------------------------
# Running tensor-run
# ----------------------------------------------------------------------------

SKIP_PATTERNS = [
    re.compile(r"'sift\.(\w+)' op has no CPU lowering[^\n]*"),
    re.compile(r"failed to legalize operation 'sift\.(\w+)'[^\n]*"),
    re.compile(r"'sift\.(\w+)' op[^\n]*(?:not|no) (?:yet )?(?:supported|lowered|"
               r"implemented)[^\n]*"),
]


class Skip(Exception):
    pass


class HostCodeSkip(Skip):
    """The GPU pipeline refused a program as host code (--sift-verify-gpu)."""


class Fail(Exception):
    pass


def arg_position(mlir, entry, name):
    """The position of argument %name of func.func @entry in `mlir`."""
    m = re.search(r"func\.func\s+@%s\s*\(" % re.escape(entry), mlir)
    if not m:
        raise Fail("no func.func @%s in the program" % entry)
    names = re.findall(r"%([A-Za-z_][A-Za-z0-9_$.]*)\s*:",
                       mlir[m.end():mlir.index("{", m.end())])
    if name not in names:
        raise Fail("@%s has no argument %%%s" % (entry, name))
    return names.index(name)


class Tools:
    def __init__(self, tensor_run, tensor_opt, workdir, verbose,
                 transforms="", pipeline="", target=None):
        self.tensor_run = os.path.abspath(tensor_run)
        self.transforms = transforms
        self.pipeline = pipeline
        # tensor-run --target: this Tools' own, else the suite's (--target).
        self.target = target
        self.tensor_opt = os.path.abspath(tensor_opt)
        self.workdir = workdir
        self.verbose = verbose

    def run(self, name, mlir, entry, inputs=(), args=None, timeout=300):
        """Runs @entry of `mlir`; returns (ok, results or error text)."""
        d = os.path.join(self.workdir, name)
        os.makedirs(d, exist_ok=True)
        path = os.path.join(d, "prog.mlir")
        with open(path, "w") as f:
            f.write(mlir)
        cmd = [self.tensor_run, path, "-e", entry]
        if self.transforms:
            cmd += ["--transforms", self.transforms]
        if self.pipeline:
            cmd += ["--pipeline", self.pipeline]
        target = self.target or TARGET["name"]
        if target != "cpu":
            cmd += ["--target", target]
        for i, a in enumerate(inputs):
            p = os.path.join(d, "in%d.npy" % i)
            np.save(p, np.ascontiguousarray(a).reshape(np.shape(a)))  # 0-d stays 0-d
            cmd += ["--input", p]
        for k, v in (args or {}).items():
            cmd += ["--arg", "%s=%s" % (k, v)]
        out = os.path.join(d, "out")
        shutil.rmtree(out, ignore_errors=True)
        cmd += ["--output-dir", out]
        with open(os.path.join(d, "cmd.sh"), "w") as f:
            f.write(" ".join(cmd) + "\n")
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=timeout)
        except subprocess.TimeoutExpired:
            return False, "tensor-run timed out after %d s" % timeout
        if p.returncode < 0:
            return False, ("tensor-run crashed (signal %d)\n" % -p.returncode
                           + (p.stderr + p.stdout).strip())
        if p.returncode != 0:
            return False, (p.stderr + p.stdout).strip()
        results = []
        i = 0
        while os.path.exists(os.path.join(out, "result%d.npy" % i)):
            results.append(np.load(os.path.join(out, "result%d.npy" % i)))
            i += 1
        return True, results

    def must_run(self, name, mlir, entry, inputs=(), args=None):
        ok, res = self.run(name, mlir, entry, inputs, args)
        if not ok:
            raise_for_error(res)
        return res

    def staticize(self, name, mlir):
        d = os.path.join(self.workdir, name)
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "dynamic.mlir")
        with open(src, "w") as f:
            f.write(mlir)
        passes = ["--sift-staticize", "--sift-verify-static"]
        p = subprocess.run([self.tensor_opt, src] + passes,
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            raise Fail("tensor-opt --sift-staticize failed:\n" +
                       indent(p.stderr.strip()))
        return p.stdout


def indent(text, prefix="      "):
    lines = text.splitlines()
    if len(lines) > 25:
        lines = lines[:25] + ["... (%d more lines)" % (len(lines) - 25)]
    return "\n".join(prefix + l for l in lines)


# With --target cuda: what --sift-verify-gpu rejects by design (code that
# would stay on the host between kernels: scatter's sequential loop, integer
# whole-tensor reductions, dynamic shapes) is a skip with its finding, not a
# failure. Anything else that fails to compile is a failure.
GPU_HOST_CODE = re.compile(
    r"error: (.*(?:stays on the host|in host memory|host memory between "
    r"kernels|on the host between kernels).*)")
TARGET = {"name": "cpu"}
# A strict GPU pipeline through --pipeline (no allow-host-code): its
# host-code findings are skips too, as with --target cuda.
GPU_STRICT = {"on": False}
# Staticize cases whose static program is known to keep host code there
# (--known-host-code): a skip, not a failure.
KNOWN_HOST_CODE = {"regex": r"(?!)"}
# Staticize cases that passed on their static program alone.
PARTIAL = []
PARTIAL_LOCK = threading.Lock()


def raise_for_error(text):
    for pat in SKIP_PATTERNS:
        m = pat.search(text)
        if m:
            raise Skip("sift.%s has no CPU lowering yet (tensor-run: %s)"
                       % (m.group(1), m.group(0).strip()))
    m = GPU_HOST_CODE.search(text)
    if (TARGET["name"] == "cuda" or GPU_STRICT["on"]) and m:
        raise HostCodeSkip("the GPU pipeline leaves host code (%s)" %
                           m.group(1))
    # A crash: keep the message, drop the stack frames.
    lines = [l for l in text.splitlines()
             if not re.match(r"\s*#\d+ 0x", l) and "PLEASE submit" not in l]
    raise Fail("tensor-run failed:\n" + indent("\n".join(lines)))


# ----------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------

class Case:
    """One program run once and compared with expected results.

    expect: expected results in order (None to skip one); tol: (rtol, atol)
    for float results; check: extra property checks, a function of the
    results returning a list of errors; expect_error: a regex the run must
    fail with (a contract's run-time error)."""

    def __init__(self, op, name, mlir, inputs=(), args=None, expect=None,
                 tol=(0.0, 0.0), check=None, expect_error=None,
                 entry="f", compare_fn=None):
        self.op = op
        self.name = "%s/%s" % (op, name)
        self.mlir = mlir
        self.inputs = list(inputs)
        self.args = args or {}
        self.expect = expect
        self.tol = tol
        self.check = check
        self.expect_error = expect_error
        self.entry = entry
        self.compare_fn = compare_fn

    def run(self, tools):
        key = self.name.replace("/", "__")
        ok, res = tools.run(key, self.mlir, self.entry, self.inputs,
                            self.args)
        if self.expect_error is not None:
            if ok:
                raise Fail("expected a run-time error matching /%s/, but it "
                           "ran" % self.expect_error)
            for pat in SKIP_PATTERNS + [GPU_HOST_CODE]:
                if pat.search(res):
                    raise_for_error(res)
            if not re.search(self.expect_error, res):
                raise Fail("failed, but not with /%s/:\n%s"
                           % (self.expect_error, indent(res)))
            return
        if not ok:
            raise_for_error(res)
        errors = []
        if self.expect is not None:
            if len(res) != len(self.expect):
                raise Fail("%d results, expected %d" % (len(res),
                                                        len(self.expect)))
            for i, (g, w) in enumerate(zip(res, self.expect)):
                if w is None:
                    continue
                if self.compare_fn:
                    errors += self.compare_fn(i, g, w)
                else:
                    errors += compare(g, w, "result %d" % i, *self.tol)
        if self.check:
            errors += self.check(res)
        if errors:
            raise Fail("\n".join(errors))


def rng_for(name):
    """A generator seeded from the case name (stable across runs)."""
    h = 0
    for ch in name:
        h = (h * 131 + ord(ch)) & 0xFFFFFFFF
    return np.random.default_rng(h)


# --- data-dependent ops -----------------------------------------------------

def nonzero_cases():
    out = []
    r = rng_for("nonzero")
    f32 = np.float32
    inputs = {
        "1d_i1": r.random(200) < 0.3,
        "1d_f32_nan_signed_zero": np.array([0.0, -0.0, NAN, 1.5, 0.0, -INF,
                                            INF, -2.0], f32),
        "1d_i32": r.integers(-2, 3, 64).astype(np.int32),
        "2d_i64": r.integers(0, 3, (7, 9)).astype(np.int64),
        "3d_f32": (r.random((3, 4, 5)) < 0.4).astype(f32) * r.standard_normal(
            (3, 4, 5)).astype(f32),
        "2d_i1": r.random((16, 16)) < 0.1,
        "nothing": np.zeros(50, np.bool_),
        "all": np.ones((4, 3), np.bool_),
        "n1_true": np.array([True]),
        "n1_false": np.array([False]),
        "empty": np.zeros(0, f32),
        "empty_2d": np.zeros((0, 3), np.int64),
        "i8": r.integers(-1, 2, 40).astype(np.int8),
    }
    for name, x in inputs.items():
        rt = ttype((None,), "i64") if x.ndim == 1 else ttype((None, x.ndim),
                                                             "i64")
        # Each input also as an argument of a dynamic shape (on the GPU, a
        # compaction of a run-time length, strides from the extents).
        for prefix, xt in (("", tt(x)),
                           ("dynamic_", ttype((None,) * x.ndim, x.dtype))):
            mlir = func("f", [("x", xt)], [("%r", rt)],
                        ["%%r = sift.nonzero %%x : %s -> %s" % (xt, rt)])
            out.append(Case("nonzero", prefix + name, mlir, [x],
                            expect=[ops.nonzero(x)]))
    return out


def unique_cases():
    out = []
    r = rng_for("unique")
    data = {
        "i64": r.integers(-5, 20, 300).astype(np.int64),
        "i32_2d": r.integers(0, 7, (6, 11)).astype(np.int32),
        "f32_nan_signed_zero": np.array([NAN, 2.0, -0.0, NAN, 0.0, -1.0, 2.0,
                                         INF, NAN, -INF, 0.0], np.float32),
        "f64": np.round(r.standard_normal(100), 1),
        "all_same": np.full(20, 7, np.int64),
        "all_distinct": r.permutation(64).astype(np.int64),
        "n1": np.array([42], np.int64),
        "empty": np.zeros(0, np.int64),
        "i1": r.random(30) < 0.5,
        "all_nan": np.full(5, NAN, np.float32),
        # A line of 20000: the sort takes 11-bit digits.
        "i64_wide_digits": r.integers(-3000, 3000, 20000).astype(np.int64),
    }
    for name, x in data.items():
        vt = ttype((None,), x.dtype)
        it = ttype(x.shape, "i64")
        ct = ttype((None,), "i64")
        u, inv, cnt = ops.unique(x, True, True)
        for variant, kw, types, exp in (
                ("all", " inverse counts", [vt, it, ct], [u, inv, cnt]),
                ("values", "", [vt], [u]),
                ("counts", " counts", [vt, ct], [u, cnt]),
                ("inverse", " inverse", [vt, it], [u, inv])):
            if variant not in ("all", "values") and name not in (
                    "i64", "f32_nan_signed_zero", "empty"):
                continue
            names = ["%%r%d" % i for i in range(len(types))]
            mlir = func("f", [("x", tt(x))], list(zip(names, types)),
                        ["%s = sift.unique %%x%s : %s -> %s"
                         % (", ".join(names), kw, tt(x), ", ".join(types))])
            out.append(Case("unique", "%s_%s" % (name, variant), mlir, [x],
                            expect=exp))
            if variant != "all":
                continue
            # An argument of a dynamic shape (on the GPU, a sort and a
            # compaction of a run-time length).
            xt = ttype((None,) * x.ndim, x.dtype)
            types[1] = ttype((None,) * x.ndim, "i64")
            mlir = func("f", [("x", xt)], list(zip(names, types)),
                        ["%s = sift.unique %%x%s : %s -> %s"
                         % (", ".join(names), kw, xt, ", ".join(types))])
            out.append(Case("unique", "dynamic_%s_%s" % (name, variant), mlir,
                            [x], expect=exp))
    return out


def masked_select_cases():
    out = []
    r = rng_for("masked_select")
    cfgs = [
        ("1d_f32", r.standard_normal(100).astype(np.float32), 1, 0.5),
        ("rows_f32", r.standard_normal((50, 4)).astype(np.float32), 1, 0.3),
        ("full_2d_i64", r.integers(0, 100, (8, 9)).astype(np.int64), 2, 0.5),
        ("lead2_of_3d", r.standard_normal((4, 5, 3)).astype(np.float64), 2,
         0.4),
        ("i1_data", r.random((20, 2)) < 0.5, 1, 0.5),
        ("nothing", r.standard_normal((30, 4)).astype(np.float32), 1, 0.0),
        ("all", r.integers(0, 9, (30, 2)).astype(np.int32), 1, 1.0),
        ("n1", np.array([[1.0, 2.0]], np.float32), 1, 1.0),
        ("n1_none", np.array([3], np.int64), 1, 0.0),
        ("empty", np.zeros((0, 3), np.float32), 1, 0.5),
    ]
    for name, x, rank, p in cfgs:
        m = r.random(x.shape[:rank]) < p
        if p == 1.0:
            m[...] = True
        rt = ttype((None,) + x.shape[rank:], x.dtype)
        mlir = func("f", [("x", tt(x)), ("m", tt(m))], [("%r", rt)],
                    ["%%r = sift.masked_select %%x, %%m : %s, %s -> %s"
                     % (tt(x), tt(m), rt)])
        out.append(Case("masked_select", name, mlir, [x, m],
                        expect=[ops.masked_select(x, m)]))
        # Arguments of dynamic shapes (on the GPU, the extents checked on
        # the host, a compaction of a run-time length).
        xt, mt = ttype((None,) * x.ndim, x.dtype), ttype((None,) * rank, "i1")
        rt = ttype((None,) * (1 + x.ndim - rank), x.dtype)
        mlir = func("f", [("x", xt), ("m", mt)], [("%r", rt)],
                    ["%%r = sift.masked_select %%x, %%m : %s, %s -> %s"
                     % (xt, mt, rt)])
        out.append(Case("masked_select", "dynamic_" + name, mlir, [x, m],
                        expect=[ops.masked_select(x, m)]))
    # A mask whose extents are not the input's leading ones.
    x = r.standard_normal((6, 2)).astype(np.float32)
    m = r.random(5) < 0.5
    mlir = func("f", [("x", "tensor<?x?xf32>"), ("m", "tensor<?xi1>")],
                [("%r", "tensor<?x?xf32>")],
                ["%r = sift.masked_select %x, %m : tensor<?x?xf32>, "
                 "tensor<?xi1> -> tensor<?x?xf32>"])
    out.append(Case("masked_select", "dynamic_extents_disagree", mlir, [x, m],
                    expect_error=r"(?i)disagree|extent"))
    # The same after a buffer is allocated (and would be returned): the
    # failed call frees it (the sanitizer stage checks for leaks).
    mlir = func("f", [("x", "tensor<?x?xf32>"), ("m", "tensor<?xi1>")],
                [("%y", "tensor<?x?xf32>"), ("%r", "tensor<?x?xf32>")],
                ["%y = arith.mulf %x, %x : tensor<?x?xf32>",
                 "%r = sift.masked_select %y, %m : tensor<?x?xf32>, "
                 "tensor<?xi1> -> tensor<?x?xf32>"])
    out.append(Case("masked_select", "dynamic_extents_disagree_after_alloc",
                    mlir, [x, m], expect_error=r"(?i)disagree|extent"))
    return out


def is_perm(p, n, what):
    if p.shape != (n,) or sorted(p.tolist()) != list(range(n)):
        return ["%s is not a permutation of 0..%d" % (what, n - 1)]
    return []


def randperm_sort_cases():
    """`sift.randperm ... sort` against ops.randperm_sort (the argsort of
    the stream's words): lengths, a static result, seeds and offsets, and
    uniformity."""
    out = []
    body = ["%r = sift.randperm %n, %seed offset %off sort : tensor<?xi64>"]
    mlir = func("f", [("n", "index"), ("seed", "i64"), ("off", "i64")],
                [("%r", "tensor<?xi64>")], body)
    for n, seed, off in ((0, 1, 0), (1, 7, 0), (2, 7, 0), (10, 123, 5),
                         (1000, 42, 0), (4097, -3, 1 << 40), (33, 0, -1)):
        exp = ops.randperm_sort(n, seed, off)
        out.append(Case(
            "randperm_sort", "n%d_seed%d_off%d" % (n, seed, off), mlir,
            args={"n": n, "seed": seed, "off": off}, expect=[exp],
            check=lambda res, n=n: is_perm(res[0], n, "the result")))
    # No offset operand, a static result of constant n.
    mlir = func("f", [("seed", "i64")], [("%r", "tensor<16xi64>")],
                ["%c16 = arith.constant 16 : index",
                 "%r = sift.randperm %c16, %seed sort : tensor<16xi64>"])
    out.append(Case("randperm_sort", "static16_no_offset", mlir,
                    args={"seed": 99}, expect=[ops.randperm_sort(16, 99)]))
    # Same seed twice, then another seed and another offset, in one call.
    n = 500
    mlir = func("f", [("n", "index"), ("seed", "i64"), ("seed2", "i64")],
                [("%a", "tensor<?xi64>"), ("%b", "tensor<?xi64>"),
                 ("%c", "tensor<?xi64>"), ("%d", "tensor<?xi64>")],
                ["%one = arith.constant 1 : i64",
                 "%a = sift.randperm %n, %seed sort : tensor<?xi64>",
                 "%b = sift.randperm %n, %seed sort : tensor<?xi64>",
                 "%c = sift.randperm %n, %seed2 sort : tensor<?xi64>",
                 "%d = sift.randperm %n, %seed offset %one sort : "
                 "tensor<?xi64>"])

    def seeds(res):
        e = []
        if not np.array_equal(res[0], res[1]):
            e.append("the same seed gave different permutations")
        if np.array_equal(res[0], res[2]):
            e.append("different seeds gave the same permutation")
        if np.array_equal(res[0], res[3]):
            e.append("different offsets gave the same permutation")
        return e
    out.append(Case("randperm_sort", "seed_properties", mlir,
                    args={"n": n, "seed": 5, "seed2": 6},
                    expect=[ops.randperm_sort(n, 5), ops.randperm_sort(n, 5),
                            ops.randperm_sort(n, 6),
                            ops.randperm_sort(n, 5, 1)],
                    check=seeds))
    # Chi-square uniformity of positions: R permutations of n elements (one
    # per offset, from an scf.for), counts of (element, position).
    n, reps = 6, 1200
    mlir = func("f", [("seed", "i64")], [("%all", ttype((reps, n), "i64"))], [
        "%c0 = arith.constant 0 : index",
        "%c1 = arith.constant 1 : index",
        "%cr = arith.constant " + str(reps) + " : index",
        "%cn = arith.constant " + str(n) + " : index",
        "%init = tensor.empty() : " + ttype((reps, n), "i64"),
        "%all = scf.for %i = %c0 to %cr step %c1 iter_args(%acc = %init) -> ("
        + ttype((reps, n), "i64") + ") {",
        "  %off = arith.index_cast %i : index to i64",
        "  %p = sift.randperm %cn, %seed offset %off sort : " +
        ttype((n,), "i64"),
        "  %ins = tensor.insert_slice %p into %acc[%i, 0] [1, " + str(n) +
        "] [1, 1] : " + ttype((n,), "i64") + " into " + ttype((reps, n), "i64"),
        "  scf.yield %ins : " + ttype((reps, n), "i64"),
        "}"])
    exp = np.stack([ops.randperm_sort(n, 2024, o) for o in range(reps)])

    def chi2(res):
        a = res[0]
        e = []
        for row in range(a.shape[0]):
            if sorted(a[row].tolist()) != list(range(n)):
                return ["row %d is not a permutation" % row]
        counts = np.zeros((n, n))
        for row in a:
            for pos, v in enumerate(row):
                counts[v, pos] += 1
        expected = reps / n
        stat = float(np.sum((counts - expected) ** 2 / expected))
        # df = (n-1)^2 = 25; the 0.999 quantile of chi2(25) is 52.62.
        if stat > 52.62:
            e.append("chi-square %.1f > 52.62 (df 25, p < 0.001): positions "
                     "are not uniform" % stat)
        return e
    out.append(Case("randperm_sort", "chi_square_positions", mlir,
                    args={"seed": 2024}, expect=[exp], check=chi2))
    return out


def randperm_cases():
    """`sift.randperm` (the Feistel bijection) and `sift.randperm_prefix`
    against ops.randperm: lengths around the rounds' domain (2^8 at least)
    and the CPU routine's chunks of 4096 lanes, prefixes shorter and longer
    than n, per-line n with per-row streams, and uniformity."""
    out = []
    body = ["%r = sift.randperm %n, %seed offset %off : tensor<?xi64>"]
    mlir = func("f", [("n", "index"), ("seed", "i64"), ("off", "i64")],
                [("%r", "tensor<?xi64>")], body)
    for n, seed, off in ((0, 1, 0), (1, 7, 0), (2, 7, 0), (5, 3, 2),
                         (255, 11, 0), (256, 11, 0), (257, 11, 0),
                         (1000, 42, 0), (4097, -3, 1 << 40), (33, 0, -1),
                         (65536, 9, 4), (70001, 5, 0)):
        exp = ops.randperm(n, seed, off)
        out.append(Case(
            "randperm", "n%d_seed%d_off%d" % (n, seed, off), mlir,
            args={"n": n, "seed": seed, "off": off}, expect=[exp],
            check=lambda res, n=n: is_perm(res[0], n, "the result")))
    # A constant n (a static result), no offset.
    mlir = func("f", [("seed", "i64")], [("%r", "tensor<300xi64>")],
                ["%c = arith.constant 300 : index",
                 "%r = sift.randperm %c, %seed : tensor<300xi64>"])
    out.append(Case("randperm", "static300", mlir, args={"seed": 99},
                    expect=[ops.randperm(300, 99)]))
    # Prefixes of a scalar n: shorter than n, longer (padding), n = 0 and a
    # negative n (all padding).
    for n, k in ((1000, 10), (10, 16), (0, 4), (-5, 4), (5000, 4500)):
        mlir = func("f", [("n", "index"), ("seed", "i64"), ("off", "i64")],
                    [("%r", ttype((k,), "i64"))],
                    ["%r = sift.randperm_prefix %n, %seed offset %off : "
                     "(index, i64, i64) -> " + ttype((k,), "i64")])
        out.append(Case("randperm_prefix", "n%d_k%d" % (n, k), mlir,
                        args={"n": n, "seed": 21, "off": 3},
                        expect=[ops.randperm_prefix(n, 21, k, 3)]))
    # A limit: below n, past n, past k, zero and negative; per line.
    for n, k, lim in ((1000, 40, 17), (10, 16, 12), (5000, 64, 100),
                      (300, 32, 0), (300, 32, -3), (70000, 4500, 4111)):
        mlir = func("f", [("n", "index"), ("seed", "i64"), ("lim", "index")],
                    [("%r", ttype((k,), "i64"))],
                    ["%r = sift.randperm_prefix %n, %seed limit %lim : "
                     "(index, i64, index) -> " + ttype((k,), "i64")])
        out.append(Case("randperm_prefix", "n%d_k%d_limit%d" % (n, k, lim),
                        mlir, args={"n": n, "seed": 8, "lim": lim},
                        expect=[ops.randperm_prefix(n, 8, k, limit=lim)]))
    ns = np.array([3000, 40, 0], np.int64)
    lims = np.array([2000, 50, 4], np.int64)
    mlir = func("f", [("ns", ttype((3,), "index")),
                      ("lims", ttype((3,), "index")), ("seed", "i64")],
                [("%r", ttype((3, 2100), "i64"))],
                ["%r = sift.randperm_prefix %ns, %seed limit %lims : (" +
                 ttype((3,), "index") + ", i64, " + ttype((3,), "index") +
                 ") -> " + ttype((3, 2100), "i64")])
    out.append(Case("randperm_prefix", "per_line_limit", mlir,
                    inputs=[ns, lims], args={"seed": 5},
                    expect=[ops.randperm_prefix(ns, 5, 2100, limit=lims)]))
    # Per-line n (2 x 3 lines) with per-row seeds and offsets over the first
    # dimension; a shared seed with per-line n.
    ns = np.array([[0, 1, 300], [5000, 7, 256]], np.int64)
    seeds = np.array([4, -8], np.int64)
    offs = np.array([0, 1 << 33], np.int64)
    k = 300
    mlir = func("f", [("ns", ttype((2, 3), "index")),
                      ("seeds", ttype((2,), "i64")),
                      ("offs", ttype((2,), "i64")), ("seed", "i64")],
                [("%a", ttype((2, 3, k), "i64")), ("%b", ttype((2, 3, k), "i64"))],
                ["%a = sift.randperm_prefix %ns, %seeds offset %offs : (" +
                 ttype((2, 3), "index") + ", " + ttype((2,), "i64") + ", " +
                 ttype((2,), "i64") + ") -> " + ttype((2, 3, k), "i64"),
                 "%b = sift.randperm_prefix %ns, %seed : (" +
                 ttype((2, 3), "index") + ", i64) -> " +
                 ttype((2, 3, k), "i64")])
    out.append(Case("randperm_prefix", "per_line", mlir,
                    inputs=[ns, seeds, offs], args={"seed": 77},
                    expect=[ops.randperm_prefix(ns, seeds, k, offs),
                            ops.randperm_prefix(ns, 77, k)]))
    # Uniformity at a small n: the position of each element over 1200
    # offsets (the chi-square of randperm_sort_cases), and the first 50 of
    # n = 1000 over 400 offsets: how often each element is taken.
    n, reps = 6, 1200
    mlir = func("f", [("seed", "i64"), ("n", "index")],
                [("%a", ttype((reps, n), "i64")),
                 ("%b", ttype((400, 50), "i64"))],
                ["%offs = sift.random_bits %seed : " + ttype((reps,), "i64"),
                 "%seeds = tensor.splat %seed : " + ttype((reps,), "i64"),
                 "%a = sift.randperm_prefix %n, %seeds offset %offs : (index, "
                 + ttype((reps,), "i64") + ", " + ttype((reps,), "i64") +
                 ") -> " + ttype((reps, n), "i64"),
                 "%c1000 = arith.constant 1000 : index",
                 "%offs2 = tensor.extract_slice %offs[0] [400] [1] : " +
                 ttype((reps,), "i64") + " to " + ttype((400,), "i64"),
                 "%b = sift.randperm_prefix %c1000, %seed offset %offs2 : "
                 "(index, i64, " + ttype((400,), "i64") + ") -> " +
                 ttype((400, 50), "i64")])
    offs = ops.random_bits(2024, (reps,), np.int64)

    def chi2(res):
        a, b = res
        e = []
        counts = np.zeros((n, n))
        for row in a:
            if sorted(row.tolist()) != list(range(n)):
                return ["a row is not a permutation"]
            counts[row, np.arange(n)] += 1
        expected = reps / n
        stat = float(np.sum((counts - expected) ** 2 / expected))
        # df = (n-1)^2 = 25; the 0.999 quantile of chi2(25) is 52.62.
        if stat > 52.62:
            e.append("chi-square %.1f > 52.62 (df 25, p < 0.001): positions "
                     "are not uniform" % stat)
        taken = np.bincount(b.ravel(), minlength=1000)
        expected = 400 * 50 / 1000
        stat = float(np.sum((taken - expected) ** 2 / expected))
        # df = 999; the 0.999 quantile of chi2(999) is about 1143.
        if stat > 1143:
            e.append("chi-square %.1f > 1143 (df 999): the first 50 of "
                     "1000 are not uniform" % stat)
        return e
    out.append(Case("randperm", "chi_square", mlir,
                    args={"seed": 2024, "n": n},
                    expect=[ops.randperm_prefix(n, 2024, n, offs),
                            ops.randperm_prefix(1000, 2024, 50, offs[:400])],
                    check=chi2))
    return out


# --- static primitives ------------------------------------------------------

def count_cases():
    out = []
    r = rng_for("count")
    data = {
        "1d_i1": r.random(100) < 0.3,
        "2d_f32_nan": np.where(r.random((5, 9)) < 0.3, NAN,
                               np.where(r.random((5, 9)) < 0.5, -0.0, 1.0)
                               ).astype(np.float32),
        "3d_i32": r.integers(-1, 2, (2, 3, 7)).astype(np.int32),
        "empty_axis": np.zeros((3, 0), np.float32),
        "empty_batch": np.zeros((0, 4), np.int64),
        "n1": np.array([5], np.int64),
        "f64": r.integers(0, 2, (4, 6)).astype(np.float64),
        # Rows long enough for the GPU kernels to split across blocks (with
        # conformance-gpu-kernels-split's small segments).
        "long_rows_nan": np.where(r.random((3, 3000)) < 0.2, NAN,
                                  np.where(r.random((3, 3000)) < 0.5, -0.0,
                                           2.0)).astype(np.float32),
    }
    for name, x in data.items():
        rt = ttype(x.shape[:-1], "i64")
        mlir = func("f", [("x", tt(x))], [("%r", rt)],
                    ["%%r = sift.count %%x : %s -> %s" % (tt(x), rt)])
        out.append(Case("count", name, mlir, [x], expect=[ops.count(x)]))
    return out


def compact_cases():
    out = []
    r = rng_for("compact")
    cfgs = [
        ("k_lt_n", r.random(100) < 0.3, 10, None),
        ("k_eq_n", r.random(100) < 0.3, 100, None),
        ("k_gt_n", r.random(20) < 0.5, 32, None),
        ("fill0", r.random(40) < 0.2, 16, 0),
        ("batched", r.random((4, 50)) < 0.2, 16, None),
        ("batched_3d", r.random((2, 3, 30)) < 0.5, 8, 7),
        ("nothing", np.zeros(30, np.bool_), 8, None),
        ("all", np.ones(30, np.bool_), 8, None),
        ("n1_true", np.array([True]), 1, None),
        ("n1_false", np.array([False]), 2, None),
        ("k0", r.random(10) < 0.5, 0, None),
        ("empty", np.zeros(0, np.bool_), 4, None),
        # Long rows (split across blocks on the GPU with small segments):
        # K beyond the set ones (the fill), K reached early (the later
        # segments write nothing), K = N.
        ("long_k_gt_count", r.random((2, 700)) < 0.1, 300, None),
        ("long_stops_early", r.random((3, 1000)) < 0.5, 100, 5),
        ("long_k_eq_n", r.random(900) < 0.7, 900, None),
        ("long_k_gt_n", r.random(200) < 0.9, 250, 3),
    ]
    for name, m, k, fill in cfgs:
        it = ttype(m.shape[:-1] + (k,), "i64")
        ct = ttype(m.shape[:-1], "i64")
        attr = " {fill = %d : i64}" % fill if fill is not None else ""
        mlir = func("f", [("m", tt(m))], [("%i", it), ("%n", ct)],
                    ["%%i, %%n = sift.compact %%m%s : %s -> %s, %s"
                     % (attr, tt(m), it, ct)])
        exp = ops.compact(m, k, -1 if fill is None else fill)
        out.append(Case("compact", name, mlir, [m], expect=list(exp)))

    # i32 indices and `unpadded` (the lanes past the count unspecified: only
    # each row's first count lanes are compared).
    def valid_lanes_equal(want, counts):
        def check(res):
            got = res[0].reshape(-1, want.shape[-1])
            w = want.reshape(-1, want.shape[-1])
            e = []
            if res[0].dtype != want.dtype:
                e.append("indices of %s, expected %s" % (res[0].dtype,
                                                         want.dtype))
            for row, c in enumerate(counts.reshape(-1)):
                if not np.array_equal(got[row, :c], w[row, :c]):
                    e.append("row %d: the first %d indices differ" % (row, c))
            return e
        return check
    for name, m, k, elt, unpadded in [
            ("i32_padded", r.random((3, 70)) < 0.3, 40, "i32", False),
            ("i32_unpadded", r.random((4, 500)) < 0.6, 500, "i32", True),
            ("i64_unpadded", r.random(300) < 0.1, 64, "i64", True),
            ("i32_unpadded_nothing", np.zeros((2, 9), np.bool_), 9, "i32",
             True)]:
        it = ttype(m.shape[:-1] + (k,), elt)
        ct = ttype(m.shape[:-1], "i64")
        mlir = func("f", [("m", tt(m))], [("%i", it), ("%n", ct)],
                    ["%%i, %%n = sift.compact %%m%s : %s -> %s, %s"
                     % (" unpadded" if unpadded else "", tt(m), it, ct)])
        idx, cnt = ops.compact(m, k, -1)
        idx = idx.astype(np.int32 if elt == "i32" else np.int64)
        out.append(Case("compact", name, mlir, [m],
                        expect=[None if unpadded else idx, cnt],
                        check=valid_lanes_equal(idx, cnt)))

    # Indices only gathered as values (the CPU pipeline compacts them as i32
    # and widens what the gather reads): lanes past the count read the -1
    # padding, lanes outside the row the gather's fill.
    m = r.random((3, 400)) < 0.4
    sel = r.integers(-3, 420, size=(3, 50)).astype(np.int64)
    mlir = func("f", [("m", tt(m)), ("s", tt(sel))],
                [("%g", "tensor<3x50xi64>"), ("%n", "tensor<3xi64>")],
                ["%%i, %%n = sift.compact %%m : %s -> tensor<3x400xi64>, "
                 "tensor<3xi64>" % tt(m),
                 "%%g = sift.gather %%i[%%s] {batch_dims = 1 : i64, fill = 9 "
                 ": i64} : tensor<3x400xi64>, %s -> tensor<3x50xi64>"
                 % tt(sel)])
    idx, cnt = ops.compact(m, 400, -1)
    out.append(Case("compact", "gathered_values", mlir, [m, sel],
                    expect=[ops.gather(idx, sel, 1, 9), cnt]))

    # Indices only gathered through a permutation of their count,
    # `nonzero(m)[randperm(len)[:k]]` (the GPU's compact kernel stores each
    # element at its lane of the inverse permutation and writes no
    # indices): per-row and shared streams, offsets, limits (per row, past
    # the count, zero), a fill, i32 indices, rows with nothing or
    # everything set, a K below the count, a rank-1 mask whose count is
    # extracted, batch dimensions of rank 2, long rows (split on the GPU).
    def permuted(name, m, k, width, seeds=None, seed=None, offset=None,
                 limit=None, fill=None, elt="i64", cast="tensor"):
        lines = m.shape[:-1]
        it = ttype(m.shape[:-1] + (k,), elt)
        ct = ttype(lines, "i64")
        nt = ttype(lines, "index")
        rt = ttype(lines + (width,), elt)
        pt = ttype(lines + (width,), "i64")
        params = [("m", tt(m))]
        inputs = [m]
        args = {}
        body = ["%%i, %%n = sift.compact %%m unpadded : %s -> %s, %s"
                % (tt(m), it, ct)]
        if not lines:
            body += ["%e = tensor.extract %n[] : tensor<i64>",
                     "%ni = arith.index_cast %e : i64 to index"]
            nt = "index"
        elif cast == "tensor":
            body.append("%%ni = arith.index_cast %%n : %s to %s" % (ct, nt))
        else:
            rank = len(lines)
            dims = ", ".join("d%d" % i for i in range(rank))
            body += ["%%z = tensor.empty() : %s" % nt,
                     "%%ni = linalg.generic {indexing_maps = "
                     "[affine_map<(%s) -> (%s)>, affine_map<(%s) -> (%s)>], "
                     "iterator_types = [%s]} ins(%%n : %s) outs(%%z : %s) {"
                     % (dims, dims, dims, dims,
                        ", ".join(['"parallel"'] * rank), ct, nt),
                     "^bb0(%a: i64, %b: index):",
                     "  %c = arith.index_cast %a : i64 to index",
                     "  linalg.yield %c : index",
                     "} -> %s" % nt]
        if seeds is not None:
            params.append(("s", tt(seeds)))
            inputs.append(seeds)
            st = tt(seeds)
        else:
            params.append(("s", "i64"))
            args["s"] = seed
            st = "i64"
        operands, types = "%ni, %s", [nt, st]
        if offset is not None:
            body.append("%%off = arith.constant %d : i64" % offset)
            operands += " offset %off"
            types.append("i64")
        if limit is not None:
            if np.ndim(limit):
                limit = np.asarray(limit, np.int64)
                params.append(("lim", ttype(lines, "index")))
                inputs.append(limit)
                types.append(ttype(lines, "index"))
            else:
                params.append(("lim", "index"))
                args["lim"] = limit
                types.append("index")
            operands += " limit %lim"
        body.append("%%p = sift.randperm_prefix %s : (%s) -> %s"
                    % (operands, ", ".join(types), pt))
        fattr = "" if fill is None else ", fill = %d : %s" % (fill, elt)
        body.append("%%g = sift.gather %%i[%%p] {batch_dims = %d : i64%s} : "
                    "%s, %s -> %s" % (len(lines), fattr, it, pt, rt))
        mlir = func("f", params, [("%g", rt), ("%n", ct)], body)
        idx, cnt = ops.compact(m, k, -1)
        perm = ops.randperm_prefix(cnt, seed if seeds is None else seeds,
                                   width, 0 if offset is None else offset,
                                   limit)
        want = ops.gather(idx, perm, len(lines), 0 if fill is None else fill)
        out.append(Case("compact", "permuted_" + name, mlir, inputs,
                        args=args, expect=[want.astype(
                            np.int32 if elt == "i32" else np.int64), cnt]))

    rows = r.random((5, 300)) < 0.35
    rows[3] = False
    rows[4] = True
    permuted("per_row_seeds", rows, 300, 120,
             seeds=np.array([5, -7, 1 << 40, 3, 11], np.int64), offset=3)
    permuted("limits_fill_i32", rows, 300, 64, seed=42,
             limit=[0, 5, 200, 64, 31], fill=9, elt="i32", cast="generic")
    permuted("rank1", r.random(500) < 0.2, 500, 100, seed=-1, limit=77)
    permuted("k_below_count", r.random((2, 400)) < 0.9, 100, 80, seed=6,
             offset=1)
    permuted("rank3", r.random((2, 3, 200)) < 0.5, 200, 50,
             seeds=np.array([[1, 2, 3], [4, 5, 6]], np.int64), cast="generic")
    permuted("long_rows", r.random((3, 1000)) < np.array([[0.05], [0.5],
                                                          [0.97]]),
             1000, 300, seeds=np.array([9, 8, 7], np.int64), offset=2,
             limit=[250, 300, 299])
    # Empty rows (every lane the fill) and an empty result.
    permuted("empty_rows", np.zeros((3, 0), np.bool_), 0, 5,
             seeds=np.array([1, 2, 3], np.int64), fill=7)
    permuted("width0", r.random((3, 40)) < 0.5, 40, 0, seed=4)

    # Masks computed by element-wise code that the CPU lowering runs in the
    # compaction's own loop (no mask buffer), siblings reading the same
    # rows in one loop: k = n (i32, the fill), k > n, k < n (a loop that
    # stops at k, two rows read), a mask also counted (read as a mask), and
    # an op that is not speculatable (remsi) read as a row.
    x = r.standard_normal((4, 300)).astype(np.float32)
    x[r.random(x.shape) < 0.05] = np.nan
    y = r.integers(-6, 7, size=(4, 300)).astype(np.int64)
    t = "tensor<4x300xf32>"
    u = "tensor<4x300xi64>"
    b = "tensor<4x300xi1>"
    mlir = func(
        "f", [("x", t), ("y", u)],
        [("%i1", "tensor<4x300xi32>"), ("%n1", "tensor<4xi64>"),
         ("%i2", "tensor<4x300xi32>"), ("%n2", "tensor<4xi64>"),
         ("%i3", "tensor<4x310xi64>"), ("%n3", "tensor<4xi64>"),
         ("%i4", "tensor<4x310xi64>"), ("%n4", "tensor<4xi64>"),
         ("%i5", "tensor<4x20xi64>"), ("%n5", "tensor<4xi64>"),
         ("%i6", "tensor<4x50xi64>"), ("%n6", "tensor<4xi64>"),
         ("%c6", "tensor<4xi64>")],
        ["%%half = arith.constant dense<0.5> : %s" % t,
         "%%two = arith.constant dense<2> : %s" % u,
         "%%three = arith.constant dense<3> : %s" % u,
         "%%zero = arith.constant dense<0> : %s" % u,
         "%%m1 = arith.cmpf ogt, %%x, %%half : %s" % t,
         "%%m2 = arith.cmpf une, %%x, %%x : %s" % t,
         "%%i1, %%n1 = sift.compact %%m1 {fill = 7 : i64} : %s -> "
         "tensor<4x300xi32>, tensor<4xi64>" % b,
         "%%i2, %%n2 = sift.compact %%m2 {fill = 7 : i64} : %s -> "
         "tensor<4x300xi32>, tensor<4xi64>" % b,
         "%%a = arith.andi %%y, %%three : %s" % u,
         "%%m3 = arith.cmpi eq, %%a, %%zero : %s" % u,
         "%%m4 = arith.cmpi sgt, %%y, %%two : %s" % u,
         "%%i3, %%n3 = sift.compact %%m3 : %s -> tensor<4x310xi64>, "
         "tensor<4xi64>" % b,
         "%%i4, %%n4 = sift.compact %%m4 : %s -> tensor<4x310xi64>, "
         "tensor<4xi64>" % b,
         "%%m5a = arith.cmpf olt, %%x, %%half : %s" % t,
         "%%m5b = arith.cmpi eq, %%y, %%two : %s" % u,
         "%%m5 = arith.xori %%m5a, %%m5b : %s" % b,
         "%%i5, %%n5 = sift.compact %%m5 : %s -> tensor<4x20xi64>, "
         "tensor<4xi64>" % b,
         "%%r = arith.remsi %%y, %%three : %s" % u,
         "%%m6 = arith.cmpi ne, %%r, %%zero : %s" % u,
         "%%i6, %%n6 = sift.compact %%m6 : %s -> tensor<4x50xi64>, "
         "tensor<4xi64>" % b,
         "%%c6 = sift.count %%m6 : %s -> tensor<4xi64>" % b])
    m1, m2 = x > 0.5, np.isnan(x)
    m3, m4 = (y & 3) == 0, y > 2
    m5 = (x < 0.5) ^ (y == 2)
    m6 = np.fmod(y, 3) != 0
    exp = []
    for m, k, fill, dtype in [(m1, 300, 7, np.int32), (m2, 300, 7, np.int32),
                              (m3, 310, -1, np.int64),
                              (m4, 310, -1, np.int64),
                              (m5, 20, -1, np.int64), (m6, 50, -1, np.int64)]:
        idx, cnt = ops.compact(m, k, fill)
        exp += [idx.astype(dtype), cnt]
    out.append(Case("compact", "computed_masks", mlir, [x, y],
                    expect=exp + [ops.count(m6)]))
    return out


def dynamic_row_cases():
    """count, cumsum and compact of rows whose length is known at run time
    only (arguments of a dynamic type): the GPU kernels split such rows
    across blocks with segments of a run-time length, a short row leaving
    the last segments empty. Long and short rows, and a compaction of a
    mask computed element by element (read where the kernels need it)."""
    out = []
    r = rng_for("dynamic_rows")
    for n in (3000, 40):
        m = r.random((2, n)) < 0.3
        dm = ttype((2, None), "i1")
        mlir = func("f", [("d", dm)], [("%r", "tensor<2xi64>")],
                    ["%%r = sift.count %%d : %s -> tensor<2xi64>" % dm])
        out.append(Case("count", "dynamic_rows_%d" % n, mlir, [m],
                        expect=[ops.count(m)]))
        x = r.integers(-50, 50, (3, n)).astype(np.int64)
        dx = ttype((3, None), "i64")
        mlir = func("f", [("d", dx)], [("%r", dx)],
                    ["%%r = sift.cumsum %%d exclusive : %s -> %s" % (dx, dx)])
        out.append(Case("cumsum", "dynamic_rows_excl_%d" % n, mlir, [x],
                        expect=[ops.cumsum(x, -1, True, None)]))
        for k in (25, 500):
            it, ct = "tensor<2x%dxi64>" % k, "tensor<2xi64>"
            mlir = func("f", [("d", dm)], [("%i", it), ("%n", ct)],
                        ["%%i, %%n = sift.compact %%d {fill = 7 : i64} : "
                         "%s -> %s, %s" % (dm, it, ct)])
            out.append(Case("compact", "dynamic_rows_%d_k%d" % (n, k), mlir,
                            [m], expect=list(ops.compact(m, k, 7))))
        # The mask of a compaction computed from floats where it is read.
        x = r.standard_normal((2, n)).astype(np.float32)
        df, dm = ttype((2, None), "f32"), ttype((2, None), "i1")
        body = [
            "%c1 = arith.constant 1 : index",
            "%%n0 = tensor.dim %%d, %%c1 : %s" % df,
            "%c = arith.constant 5.000000e-01 : f32",
            "%%z = tensor.empty(%%n0) : %s" % dm,
            "%%m = linalg.generic {indexing_maps = [affine_map<(i, j) -> "
            "(i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = "
            "[\"parallel\", \"parallel\"]} ins(%%d : %s) outs(%%z : %s) {"
            % (df, dm),
            "^bb0(%a: f32, %o: i1):",
            "  %g = arith.cmpf ogt, %a, %c : f32",
            "  linalg.yield %g : i1",
            "} -> %s" % dm,
            "%%i, %%n = sift.compact %%m : %s -> tensor<2x64xi64>, "
            "tensor<2xi64>" % dm]
        mlir = func("f", [("d", df)],
                    [("%i", "tensor<2x64xi64>"), ("%n", "tensor<2xi64>")],
                    body)
        out.append(Case("compact", "dynamic_rows_predicate_%d" % n, mlir,
                        [x], expect=list(ops.compact(x > 0.5, 64, -1))))
    return out


def cumsum_cases():
    out = []
    r = rng_for("cumsum")
    cfgs = [
        ("i64", r.integers(-100, 100, 50).astype(np.int64), -1, False, None),
        ("i64_excl", r.integers(-100, 100, 50).astype(np.int64), -1, True,
         None),
        ("i1_to_i64", r.random(64) < 0.5, -1, False, "i64"),
        ("i1_to_i64_excl", r.random(64) < 0.5, -1, True, "i64"),
        ("i1_to_i32_excl_2d", r.random((3, 40)) < 0.5, 1, True, "i32"),
        ("f32_dim0", r.standard_normal((6, 5)).astype(np.float32), 0, False,
         None),
        ("f32_dim_neg1", r.standard_normal((6, 5)).astype(np.float32), -1,
         False, None),
        ("f32_excl_dim_neg2", r.standard_normal((3, 6, 4)).astype(np.float32),
         -2, True, None),
        ("f64", r.standard_normal(100), -1, False, None),
        ("i32_wraps", np.array([2**31 - 5, 3, 3, -7, 2**31 - 1], np.int32),
         -1, False, None),
        ("i8_wraps", np.array([100, 27, 1, 1, -128], np.int8), -1, False,
         None),
        ("n1", np.array([3.5], np.float32), -1, True, None),
        ("empty_axis", np.zeros((2, 0), np.int64), -1, False, None),
        ("inf_nan", np.array([1.0, INF, -INF, 2.0, NAN, 1.0], np.float32),
         -1, False, None),
        # Narrower than 32 bits (the GPU kernel sums them in i32 and
        # truncates): sums that wrap.
        ("i16_wraps_2d", np.array([[32000, 1000, -5, 32767],
                                   [-32768, -1, 7, 30000]], np.int16), -1,
         False, None),
        ("i1_to_i8_wraps", r.random((3, 300)) < 0.9, -1, True, "i8"),
        # Long rows (split across blocks on the GPU, reduce then scan: the
        # default splits the 2 x 20000 one, the -split suite's small
        # segments all of them), a length not a multiple of a warp.
        ("long_i64", r.integers(-1000, 1000, (2, 20000)).astype(np.int64),
         -1, False, None),
        ("long_f32_excl", r.standard_normal((3, 777)).astype(np.float32), -1,
         True, None),
        ("long_i1_to_i32", r.random((4, 3000)) < 0.3, -1, False, "i32"),
        ("long_f64", r.standard_normal(2500), -1, False, None),
        ("long_i8_wraps", r.integers(-128, 128, (2, 700)).astype(np.int8),
         -1, True, None),
        # Long lines along other axes than the last (on the GPU, scanned as
        # the rows of the input transposed).
        ("long_i64_dim0", r.integers(-1000, 1000, (20000, 3)).astype(
            np.int64), 0, False, None),
        ("long_f32_excl_dim1_3d", r.standard_normal((2, 3000, 4)).astype(
            np.float32), 1, True, None),
        ("long_i1_to_i32_dim0", r.random((5000, 2)) < 0.3, 0, False, "i32"),
    ]
    for name, x, dim, excl, rtype in cfgs:
        relt = rtype or ELT[x.dtype]
        rt = ttype(x.shape, relt)
        attrs = " {dim = %d : i64}" % dim if dim != -1 else ""
        mlir = func("f", [("x", tt(x))], [("%r", rt)],
                    ["%%r = sift.cumsum %%x%s%s : %s -> %s"
                     % (" exclusive" if excl else "", attrs, tt(x), rt)])
        exp = ops.cumsum(x, dim, excl, {"i64": np.int64, "i32": np.int32,
                                       "i8": np.int8, None: None}[rtype])
        # (Float sums in another order: the tolerance grows with the row.)
        tol = ((2e-6, 1e-5 * max(1.0, np.sqrt(x.shape[dim] / 100.0)))
               if x.dtype.kind == "f" else (0, 0))
        out.append(Case("cumsum", name, mlir, [x], expect=[exp], tol=tol))
    return out


def sort_inputs():
    r = rng_for("sort")
    ties = r.integers(0, 5, 64).astype(np.float32)
    ties[ties == 4] = NAN
    ties[::7] = -0.0
    # Rows longer than the GPU kernels' bitonic sort in workgroup memory
    # (4096 32-bit or 2048 64-bit keys) take their radix sort: ties, NaN,
    # -0.0 and the extremes of the key, in one row and in batches.
    long_f32 = r.standard_normal(5000).astype(np.float32)
    long_f32[r.random(5000) < 0.1] = NAN
    long_f32[r.random(5000) < 0.1] = -0.0
    long_f32[r.random(5000) < 0.1] = 0.0
    long_f32[r.random(5000) < 0.05] = -INF
    long_i64 = r.integers(-20, 20, (3, 2100)).astype(np.int64)
    long_i64[:, ::97] = -2**63
    long_i64[:, 5::89] = 2**63 - 1
    return [
        ("f32_ties_nan_zero", ties, -1),
        ("f32_long_nan_zero", long_f32, -1),
        ("i64_long_2d", long_i64, -1),
        ("i16_4096", r.integers(-300, 300, 4096).astype(np.int16), -1),
        ("f64_2d_ties", r.integers(-8, 8, (5, 300)).astype(np.float64) / 4,
         -1),
        ("f32_random", r.standard_normal(1000).astype(np.float32), -1),
        ("f32_2d_dim0", np.round(r.standard_normal((9, 7)), 0).astype(
            np.float32), 0),
        ("f32_3d_dim1", r.integers(0, 3, (2, 5, 4)).astype(np.float32), 1),
        ("f64_inf_nan", np.array([INF, NAN, -INF, 0.0, -0.0, NAN, 1.0, INF],
                                 np.float64), -1),
        ("i64_ties", r.integers(-3, 3, 100).astype(np.int64), -1),
        ("i64_extremes", np.array([0, -2**63, 2**63 - 1, -1, 2**63 - 1,
                                   -2**63], np.int64), -1),
        ("i32_2d", r.integers(-50, 50, (4, 33)).astype(np.int32), -1),
        ("i8", r.integers(-128, 128, 40).astype(np.int8), -1),
        ("i1", r.random(20) < 0.5, -1),
        ("n1", np.array([2.0], np.float32), -1),
        ("empty", np.zeros(0, np.float32), -1),
        # Lines of a static length of at least 16384 sort with 11-bit
        # digits (RadixSort.cpp): ties, NaN, -0.0, the extremes of 64-bit
        # keys (six passes), a batch of rows, the length at the limit.
        ("f32_wide_digits", wide_f32(r, 20000), -1),
        ("i64_wide_digits_2d", wide_i64(r, (2, 17000)), -1),
        ("i32_wide_digits_16384",
         r.integers(-2**31, 2**31 - 1, 16384, dtype=np.int64).astype(
             np.int32), -1),
        # Long lines along another axis than the last (on the GPU, sorted
        # as the rows of the input transposed: radix sorts here).
        ("f32_long_dim0", np.ascontiguousarray(np.stack(
            [long_f32, long_f32[::-1]], axis=1)), 0),
        ("i64_long_3d_dim1", np.ascontiguousarray(
            long_i64.reshape(3, 2100, 1).repeat(2, axis=2) +
            np.arange(2, dtype=np.int64)), 1),
    ]


def wide_f32(r, n):
    """n float32 values with ties, NaN, -0.0 and infinities."""
    x = np.round(r.standard_normal(n) * 1000).astype(np.float32) / 8
    x[r.random(n) < 0.05] = NAN
    x[r.random(n) < 0.05] = -0.0
    x[r.random(n) < 0.02] = INF
    x[r.random(n) < 0.02] = -INF
    return x


def wide_i64(r, shape):
    """int64 values over the whole range, with ties and the extremes."""
    x = r.integers(-2**63, 2**63 - 1, shape, dtype=np.int64)
    x[..., ::50] = r.integers(-3, 3, x[..., ::50].shape)
    x[..., ::97] = -2**63
    x[..., 5::89] = 2**63 - 1
    return x


def sort_cases():
    out = []
    for name, x, dim in sort_inputs():
        it = ttype(x.shape, "i64")
        attrs = " {dim = %d : i64}" % dim if dim != -1 else ""
        for desc in (False, True):
            kw = " descending" if desc else ""
            v, i = ops.sort(x, dim, desc)
            mlir = func("f", [("x", tt(x))], [("%v", tt(x)), ("%i", it)],
                        ["%%v, %%i = sift.sort %%x%s%s : %s -> %s, %s"
                         % (kw, attrs, tt(x), tt(x), it)])
            out.append(Case("sort", name + ("_desc" if desc else "_asc"),
                            mlir, [x], expect=[v, i]))
            mlir = func("f", [("x", tt(x))], [("%i", it)],
                        ["%%i = sift.argsort %%x%s%s : %s -> %s"
                         % (kw, attrs, tt(x), it)])
            out.append(Case("argsort", name + ("_desc" if desc else "_asc"),
                            mlir, [x], expect=[i]))
    return out


def topk_cases():
    out = []
    r = rng_for("topk")
    ties = r.integers(0, 6, 50).astype(np.float32)
    ties[ties == 5] = NAN
    long_ties = r.integers(0, 50, 6000).astype(np.float32)
    long_ties[long_ties == 49] = NAN
    cfgs = [
        ("ties_nan_k5", ties, 5, -1),
        ("random_k100", r.standard_normal(1000).astype(np.float32), 100, -1),
        ("k_eq_n", ties, 50, -1),
        ("k1", ties, 1, -1),
        ("k0", ties, 0, -1),
        ("2d_dim1", r.integers(0, 4, (8, 64)).astype(np.float32), 5, 1),
        ("2d_dim0", r.integers(0, 4, (10, 6)).astype(np.int64), 3, 0),
        ("i32", r.integers(-5, 5, 40).astype(np.int32), 7, -1),
        ("n1", np.array([1.0], np.float32), 1, -1),
        ("inf", np.array([-INF, 1.0, INF, NAN, INF, -INF], np.float32), 4,
         -1),
        # Rows longer than the GPU kernels' bitonic limit: the selection
        # over the long row, then the bitonic sort of the K taken (K = 100),
        # the radix sort of them (K = 3000 of 64-bit keys), or of the whole
        # row (K = N); many ties at the K-th key.
        ("long_k100", long_ties, 100, -1),
        ("long_i64_k3000", r.integers(-50, 50, 5000).astype(np.int64), 3000,
         -1),
        ("long_k_eq_n", long_ties[:4500], 4500, -1),
        ("long_2d_k1", r.integers(0, 3, (2, 5000)).astype(np.float32), 1,
         -1),
        ("2d_k_ties_n_minus_1", r.integers(0, 2, (4, 33)).astype(np.int32),
         32, -1),
        # The K = 20000 taken sort with 11-bit digits.
        ("wide_digits_k20000", wide_f32(r, 40000), 20000, -1),
        # Long lines along the first axis (on the GPU, the rows of the
        # input transposed: a selection over 6000, then the sort of 100).
        ("long_dim0_k100", np.ascontiguousarray(np.stack(
            [long_ties, long_ties[::-1], -long_ties], axis=1)), 100, 0),
    ]
    for name, x, k, dim in cfgs:
        axis = dim % x.ndim
        kshape = list(x.shape)
        kshape[axis] = k
        vt = ttype(kshape, x.dtype)
        it = ttype(kshape, "i64")
        attrs = " {dim = %d : i64}" % dim if dim != -1 else ""
        for mode in ("largest", "smallest", "unsorted"):
            if mode == "unsorted" and name not in (
                    "ties_nan_k5", "2d_dim1", "k_eq_n", "long_k100",
                    "long_i64_k3000", "long_k_eq_n", "2d_k_ties_n_minus_1"):
                continue
            kw = {"largest": "", "smallest": " smallest",
                  "unsorted": " unsorted"}[mode]
            v, i = ops.topk(x, k, dim, smallest=(mode == "smallest"))
            mlir = func("f", [("x", tt(x))], [("%v", vt), ("%i", it)],
                        ["%%v, %%i = sift.topk %%x k(%d)%s%s : %s -> %s, %s"
                         % (k, kw, attrs, tt(x), vt, it)])
            if mode == "unsorted":
                out.append(Case("topk", "%s_%s" % (name, mode), mlir, [x],
                                check=unsorted_check(x, axis, v, i)))
            else:
                out.append(Case("topk", "%s_%s" % (name, mode), mlir, [x],
                                expect=[v, i]))
    return out


def topk_dynamic_cases():
    """topk along an axis whose extent is known at run time only (an
    argument of a dynamic type; on the GPU, the argsort of the lines and
    their first k): ties and NaNs, k = n, a row past the bitonic limit,
    the first axis, unsigned words, unsorted, a per-line `valid` and a
    `limit` with dynamic rows, and k above the extent (the run-time error
    of the CPU lowering)."""
    out = []
    r = rng_for("topk_dynamic")
    ties = r.integers(0, 6, (3, 70)).astype(np.float32)
    ties[ties == 5] = NAN
    words = r.integers(-(1 << 31), 1 << 31, 3000, dtype=np.int64)
    # (name, x, k, dim, the dynamic shape, modes)
    cfgs = [
        ("rows_ties_nan_k5", ties, 5, 1, (3, None),
         ("largest", "smallest", "unsorted")),
        ("rows_k_eq_n", ties, 70, 1, (None, None), ("largest", "smallest")),
        ("long_i64_k100", r.integers(-50, 50, 5000).astype(np.int64), 100,
         0, (None,), ("largest", "smallest")),
        ("dim0_i32_k7", r.integers(-4, 4, (40, 3)).astype(np.int32), 7, 0,
         (None, 3), ("largest", "smallest", "unsorted")),
        ("unsigned_words_k9", words.astype(np.int32), 9, 0, (None,),
         ("smallest unsigned", "largest unsigned")),
    ]
    for name, x, k, dim, dshape, modes in cfgs:
        vshape = [k if a == dim else (None if dshape[a] is None else
                                      x.shape[a]) for a in range(x.ndim)]
        vt, it = ttype(vshape, x.dtype), ttype(vshape, "i64")
        dt = ttype(dshape, x.dtype)
        attrs = " {dim = %d : i64}" % dim
        for mode in modes:
            unsigned = mode.endswith("unsigned")
            smallest = mode.startswith("smallest")
            kw = {"largest": "", "smallest": " smallest",
                  "unsorted": " unsorted"}[mode.split()[0]]
            if unsigned:
                kw += " unsigned"
            key = _unsigned(x) if unsigned else x
            _, i = ops.topk(key, k, dim, smallest=smallest)
            v = np.take_along_axis(x, i, dim)
            mlir = func("f", [("d", dt)], [("%v", vt), ("%i", it)],
                        ["%%v, %%i = sift.topk %%d k(%d)%s%s : %s -> %s, %s"
                         % (k, kw, attrs, dt, vt, it)])
            cname = "dynamic_%s_%s" % (name, mode.replace(" ", "_"))
            if mode == "unsorted":
                out.append(Case("topk", cname, mlir, [x],
                                check=unsorted_check(x, dim, v, i)))
            else:
                out.append(Case("topk", cname, mlir, [x], expect=[v, i]))
    # `valid` per line and `limit` per line, on dynamic rows of a dynamic
    # length.
    x = r.integers(0, 4, (8, 64)).astype(np.float32)
    valid = np.array([0, 3, 64, 10, 5, 70, 1, 32], np.int64)
    limit = np.array([0, 3, 5, 1, 9, -2, 4, 2], np.int64)
    dt = ttype((None, None), "f32")
    lt, ltx = "tensor<?xi64>", "tensor<?xindex>"
    results = [("%v", "tensor<?x5xf32>"), ("%i", "tensor<?x5xi64>")]
    for mode in ("largest", "smallest"):
        kw = " smallest" if mode == "smallest" else ""
        for op, with_limit in (("topk_valid", False), ("topk_limit", True)):
            params = [("d", dt), ("n", lt)]
            body = ["%%m = arith.index_cast %%n : %s to %s" % (lt, ltx)]
            attrs = " valid(%%m : %s)" % ltx
            inputs = [x, valid]
            if with_limit:
                params.append(("c", lt))
                body.append("%%l = arith.index_cast %%c : %s to %s"
                            % (lt, ltx))
                attrs += " limit(%%l : %s)" % ltx
                inputs.append(limit)
                v, i = topk_limit_ref(x, 5, 1, mode == "smallest", limit,
                                      valid)
            else:
                v, i = topk_valid_ref(x, 5, 1, mode == "smallest", valid)
            body.append("%%v, %%i = sift.topk %%d k(5)%s%s : %s -> %s, %s"
                        % (attrs, kw, dt, results[0][1], results[1][1]))
            out.append(Case(op, "dynamic_rows_%s" % mode,
                            func("f", params, results, body), inputs,
                            expect=[v, i]))
    # k above the run-time extent: the CPU lowering's error.
    x = r.standard_normal(6).astype(np.float32)
    mlir = func("f", [("d", "tensor<?xf32>")],
                [("%v", "tensor<8xf32>"), ("%i", "tensor<8xi64>")],
                ["%v, %i = sift.topk %d k(8) : tensor<?xf32> -> "
                 "tensor<8xf32>, tensor<8xi64>"])
    out.append(Case("topk", "dynamic_k_exceeds_size", mlir, [x],
                    expect_error=r"topk: k = 8 exceeds the input's size 6"))
    return out


def topk_valid_ref(x, k, axis, smallest, valid):
    """sift.topk with `valid`: per line, the top-k of its first `valid`
    elements (clamped to [0, n]), then, when fewer than k, the positions
    from `valid` on in index order, with the input's values there."""
    xl = np.moveaxis(x, axis, -1)
    n = xl.shape[-1]
    lines = xl.reshape(-1, n)
    counts = np.broadcast_to(np.asarray(valid, np.int64).reshape(-1),
                             (lines.shape[0],))
    vals = np.empty((lines.shape[0], k), x.dtype)
    idxs = np.empty((lines.shape[0], k), np.int64)
    for r, line in enumerate(lines):
        v = int(min(max(counts[r], 0), n))
        take = min(k, v)
        if take:
            _, i = ops.topk(line[:v], take, -1, smallest=smallest)
        else:
            i = np.zeros(0, np.int64)
        i = np.concatenate([i, np.arange(v, v + k - take, dtype=np.int64)])
        idxs[r] = i
        vals[r] = line[i]
    shape = xl.shape[:-1] + (k,)
    return (np.moveaxis(vals.reshape(shape), -1, axis),
            np.moveaxis(idxs.reshape(shape), -1, axis))


def prefix_test_lines(r):
    """Lines for the `valid` and `limit` cases: 50 floats of few distinct
    values with NaNs (ties), and 6000 i32 over the full range."""
    ties = r.integers(0, 6, 50).astype(np.float32)
    ties[ties == 5] = NAN
    ints = r.integers(-(1 << 31), 1 << 31, 6000, dtype=np.int64)
    return ties, ints.astype(np.int32)


def topk_valid_cases():
    """`valid`: only a prefix of each line ranks by value; the rest ranks
    last in index order with its own values (not the extreme the CPU and
    GPU lowerings rank it as). A scalar length (a run-time argument) or
    one per line (a tensor argument): shorter than k, zero, negative, past
    the line's end; lines along the last axis and along the first (moved
    last by --sift-layout); a row longer than the GPU's bitonic limit."""
    out = []
    r = rng_for("topk_valid")
    ties, ints = prefix_test_lines(r)
    scalar_cfgs = [
        ("prefix20_k5", ties, 5, 20),
        ("shorter_than_k", ties, 10, 4),
        ("zero", ties, 3, 0),
        ("negative", ties, 3, -7),
        ("past_the_end", ties, 5, 80),
        ("whole_line_k_eq_n", ties, 50, 30),
        ("long_i32_k100", ints, 100, 3000),
        ("long_i32_k3000", ints, 3000, 2500),
    ]
    for name, x, k, valid in scalar_cfgs:
        vt, it = ttype([k], x.dtype), ttype([k], "i64")
        for mode in ("largest", "smallest", "unsorted"):
            kw = {"largest": "", "smallest": " smallest",
                  "unsorted": " unsorted"}[mode]
            v, i = topk_valid_ref(x, k, 0, mode == "smallest", valid)
            mlir = func("f", [("x", tt(x)), ("n", "index")],
                        [("%v", vt), ("%i", it)],
                        ["%%v, %%i = sift.topk %%x k(%d) valid(%%n : index)%s"
                         " : %s -> %s, %s" % (k, kw, tt(x), vt, it)])
            cname = "%s_%s" % (name, mode)
            if mode == "unsorted":
                out.append(Case("topk_valid", cname, mlir, [x],
                                args={"n": valid},
                                check=unsorted_check(x, 0, v, i)))
            else:
                out.append(Case("topk_valid", cname, mlir, [x],
                                args={"n": valid}, expect=[v, i]))
    line_cfgs = [
        ("rows_dim1", r.integers(0, 4, (8, 64)).astype(np.float32), 5, 1,
         np.array([0, 3, 64, 10, 5, 70, 1, 32], np.int64)),
        ("cols_dim0", r.integers(-3, 3, (10, 6)).astype(np.int64), 3, 0,
         np.array([10, 2, 0, 7, -1, 3], np.int64)),
    ]
    for name, x, k, dim, valid in line_cfgs:
        kshape = list(x.shape)
        kshape[dim] = k
        vt, it = ttype(kshape, x.dtype), ttype(kshape, "i64")
        lt = ttype(valid.shape, "i64")
        ltx = ttype(valid.shape, "index")
        for mode in ("largest", "smallest"):
            kw = " smallest" if mode == "smallest" else ""
            v, i = topk_valid_ref(x, k, dim, mode == "smallest", valid)
            mlir = func("f", [("x", tt(x)), ("n", lt)],
                        [("%v", vt), ("%i", it)],
                        ["%%m = arith.index_cast %%n : %s to %s" % (lt, ltx),
                         "%%v, %%i = sift.topk %%x k(%d) valid(%%m : %s)%s "
                         "{dim = %d : i64} : %s -> %s, %s"
                         % (k, ltx, kw, dim, tt(x), vt, it)])
            out.append(Case("topk_valid", "%s_%s" % (name, mode), mlir,
                            [x, valid], expect=[v, i]))
    return out


def topk_limit_ref(x, k, axis, smallest, limit, valid=None, unsigned=False):
    """sift.topk with `limit`: per line, the top-c (c = limit clamped to
    [0, k]) of the top-k (of the `valid` prefix when given), then padding:
    value zero, index -1."""
    key = _unsigned(x) if unsigned else x
    if valid is None:
        _, i = ops.topk(key, k, axis, smallest=smallest)
    else:
        _, i = topk_valid_ref(key, k, axis, smallest, valid)
    il = np.moveaxis(i, axis, -1).copy()
    counts = np.broadcast_to(np.asarray(limit, np.int64).reshape(-1),
                             (int(np.prod(il.shape[:-1], dtype=np.int64)),))
    flat = il.reshape(-1, k)
    for r_, c in enumerate(counts):
        flat[r_, int(min(max(c, 0), k)):] = -1
    il = flat.reshape(il.shape)
    i = np.moveaxis(il, -1, axis)
    v = np.where(i >= 0, np.take_along_axis(x, np.maximum(i, 0), axis),
                 np.zeros((), x.dtype))
    return v.astype(x.dtype), i


def limit_unsorted_check(x, want_i):
    """`unsorted` with `limit` (1-D): the same set of indices before the
    limit as the sorted form, each value paired with its index, and the
    padding (index -1, value zero) at the same lanes."""
    def check(res):
        if len(res) != 2:
            return ["%d results, expected 2" % len(res)]
        v, i = res
        e = compare(i < 0, want_i < 0, "padding lanes")
        if e:
            return e
        kept = want_i >= 0
        e = compare(np.sort(i[kept]), np.sort(want_i[kept]),
                    "indices (as sets)")
        if e:
            return e
        return compare(v, np.where(kept, x[np.maximum(i, 0)],
                                   np.zeros((), x.dtype)),
                       "values vs input[indices]")
    return check


def topk_limit_cases():
    """`limit`: k is a bound and each line gives its top-c, the rest
    padding (value zero, index -1), as `randperm(n)[:m]` becomes once
    staticized. A scalar limit (a run-time argument) or one per line (a
    tensor argument): zero, one, inside, k, past k, negative; with and
    without `valid`; a selection (k < n) and a whole line (k = n); long
    unsigned lines that sort with 11-bit digits (k >= 16384)."""
    out = []
    r = rng_for("topk_limit")
    ties, ints = prefix_test_lines(r)
    words = r.integers(-(1 << 31), 1 << 31, 40000, dtype=np.int64)
    words = words.astype(np.int32)
    # (name, x, k, limit, valid, unsigned)
    scalar_cfgs = [
        ("ties_k8_limit3", ties, 8, 3, None, False),
        ("ties_k8_limit0", ties, 8, 0, None, False),
        ("ties_k8_limit1", ties, 8, 1, None, False),
        ("ties_k8_limit_k", ties, 8, 8, None, False),
        ("ties_k8_past_k", ties, 8, 30, None, False),
        ("ties_k8_negative", ties, 8, -4, None, False),
        ("ties_valid20_k10_limit6", ties, 10, 6, 20, False),
        ("ties_valid4_k10_limit7", ties, 10, 7, 4, False),
        ("whole_line_k_eq_n", ties, 50, 17, None, False),
        ("long_i32_k3000_limit1234", ints, 3000, 1234, 5000, False),
        ("wide_digits_u32_k20000_limit7001", words, 20000, 7001, 31000,
         True),
    ]
    for name, x, k, limit, valid, unsigned in scalar_cfgs:
        vt, it = ttype([k], x.dtype), ttype([k], "i64")
        params = [("x", tt(x)), ("c", "index")]
        attrs = " limit(%c : index)"
        args = {"c": limit}
        if valid is not None:
            params.append(("n", "index"))
            attrs = " valid(%n : index)" + attrs
            args["n"] = valid
        for mode in ("largest", "smallest", "unsorted"):
            if unsigned and mode != "smallest":
                continue
            kw = {"largest": "", "smallest": " smallest",
                  "unsorted": " unsorted"}[mode]
            if unsigned:
                kw += " unsigned"
            v, i = topk_limit_ref(x, k, 0, mode == "smallest", limit, valid,
                                  unsigned)
            mlir = func("f", params, [("%v", vt), ("%i", it)],
                        ["%%v, %%i = sift.topk %%x k(%d)%s%s : %s -> %s, %s"
                         % (k, attrs, kw, tt(x), vt, it)])
            cname = "%s_%s" % (name, mode)
            if mode == "unsorted":
                out.append(Case("topk_limit", cname, mlir, [x], args=args,
                                check=limit_unsorted_check(x, i)))
            else:
                out.append(Case("topk_limit", cname, mlir, [x], args=args,
                                expect=[v, i]))
    line_cfgs = [
        ("rows_dim1", r.integers(0, 4, (8, 64)).astype(np.float32), 5, 1,
         np.array([0, 3, 5, 1, 9, -2, 4, 2], np.int64),
         np.array([0, 3, 64, 10, 5, 70, 1, 32], np.int64)),
        ("cols_dim0", r.integers(-3, 3, (10, 6)).astype(np.int64), 4, 0,
         np.array([4, 2, 0, 3, 1, 7], np.int64), None),
    ]
    for name, x, k, dim, limit, valid in line_cfgs:
        kshape = list(x.shape)
        kshape[dim] = k
        vt, it = ttype(kshape, x.dtype), ttype(kshape, "i64")
        lt = ttype(limit.shape, "i64")
        ltx = ttype(limit.shape, "index")
        params = [("x", tt(x)), ("c", lt)]
        body = ["%%l = arith.index_cast %%c : %s to %s" % (lt, ltx)]
        attrs = " limit(%%l : %s)" % ltx
        inputs = [x, limit]
        if valid is not None:
            params.append(("n", lt))
            body.append("%%m = arith.index_cast %%n : %s to %s" % (lt, ltx))
            attrs = " valid(%%m : %s)" % ltx + attrs
            inputs.append(valid)
        for mode in ("largest", "smallest"):
            kw = " smallest" if mode == "smallest" else ""
            v, i = topk_limit_ref(x, k, dim, mode == "smallest", limit, valid)
            mlir = func("f", params, [("%v", vt), ("%i", it)],
                        body + ["%%v, %%i = sift.topk %%x k(%d)%s%s "
                                "{dim = %d : i64} : %s -> %s, %s"
                                % (k, attrs, kw, dim, tt(x), vt, it)])
            out.append(Case("topk_limit", "%s_%s" % (name, mode), mlir,
                            inputs, expect=[v, i]))
    return out


def stack_siblings_cases():
    """Independent single-line sorts and top-ks of lines long enough for
    the CPU pipeline's --sift-stack-siblings (65536 elements): two top-ks
    with `valid` and `limit` (a sampler's groups), two argsorts with an op
    on the first between them, and a sort whose partner differs
    (descending): each stacked pair runs as the two lines of one op and
    must give what each op gives alone."""
    out = []
    r = rng_for("stack_siblings")
    n = 70000
    x = r.integers(-(1 << 31), 1 << 31, n, dtype=np.int64).astype(np.int32)
    y = r.integers(-(1 << 31), 1 << 31, n, dtype=np.int64).astype(np.int32)
    k = 9000
    vx, ix = topk_limit_ref(x, k, 0, True, 7000, valid=50000, unsigned=True)
    vy, iy = topk_limit_ref(y, k, 0, True, 8500, valid=n, unsigned=True)
    xt, kt = tt(x), ttype([k], "i32")
    it = ttype([k], "i64")
    mlir = func("f", [("x", xt), ("y", xt), ("n", "index"), ("m", "index"),
                      ("c", "index"), ("d", "index")],
                [("%a", kt), ("%ai", it), ("%b", kt), ("%bi", it)],
                ["%%a, %%ai = sift.topk %%x k(%d) valid(%%n : index) "
                 "limit(%%c : index) smallest unsigned : %s -> %s, %s"
                 % (k, xt, kt, it),
                 "%%b, %%bi = sift.topk %%y k(%d) valid(%%m : index) "
                 "limit(%%d : index) smallest unsigned : %s -> %s, %s"
                 % (k, xt, kt, it)])
    out.append(Case("stack_siblings", "two_topks_valid_limit", mlir, [x, y],
                    args={"n": 50000, "m": n, "c": 7000, "d": 8500},
                    expect=[vx, ix, vy, iy]))
    f = r.integers(-50, 50, (1, n)).astype(np.float32)
    g = r.standard_normal((1, n)).astype(np.float32)
    ft, lt = tt(f), ttype([1, n], "i64")
    af = np.argsort(f, axis=1, kind="stable").astype(np.int64)
    ag = np.argsort(g, axis=1, kind="stable").astype(np.int64)
    ad = np.argsort(-g, axis=1, kind="stable").astype(np.int64)
    mlir = func("f", [("f", ft), ("g", ft)],
                [("%s", lt), ("%b", lt), ("%c", lt)],
                ["%%a = sift.argsort %%f {dim = 1 : i64} : %s -> %s" % (ft, lt),
                 "%%s = arith.addi %%a, %%a : %s" % lt,
                 "%%b = sift.argsort %%g {dim = 1 : i64} : %s -> %s" % (ft, lt),
                 "%%c = sift.argsort %%g descending {dim = 1 : i64} : %s -> %s"
                 % (ft, lt)])
    out.append(Case("stack_siblings", "argsorts_use_between", mlir, [f, g],
                    expect=[2 * af, ag, ad]))
    # randperm(n)[:m] of two groups, as --sift-staticize makes it: top-ks
    # of two random streams (one seed, offsets 0 and 1, each drawn only for
    # its valid prefix), drawn as one stream of two rows.
    seed, k = 11, 5000
    words = [ops.random_bits(seed, (n,), np.int32, offset=o) for o in (0, 1)]
    refs = [topk_limit_ref(w, k, 0, True, c, valid=v, unsigned=True)[1]
            for w, c, v in zip(words, (3000, 4200), (40000, 66000))]
    wt = ttype([n], "i32")
    mlir = func("f", [("seed", "i64"), ("n", "index"), ("m", "index"),
                      ("c", "index"), ("d", "index")],
                [("%ai", ttype([k], "i64")), ("%bi", ttype([k], "i64"))],
                ["%one = arith.constant 1 : i64",
                 "%%x = sift.random_bits %%seed valid(%%n : index) : %s" % wt,
                 "%%y = sift.random_bits %%seed offset %%one valid(%%m : index)"
                 " : %s" % wt,
                 "%%a, %%ai = sift.topk %%x k(%d) valid(%%n : index) "
                 "limit(%%c : index) smallest unsigned : %s -> %s, %s"
                 % (k, wt, ttype([k], "i32"), ttype([k], "i64")),
                 "%%b, %%bi = sift.topk %%y k(%d) valid(%%m : index) "
                 "limit(%%d : index) smallest unsigned : %s -> %s, %s"
                 % (k, wt, ttype([k], "i32"), ttype([k], "i64"))])
    out.append(Case("stack_siblings", "two_streams_topks", mlir,
                    args={"seed": seed, "n": 40000, "m": 66000, "c": 3000,
                          "d": 4200},
                    expect=refs))
    return out


def unsigned_order_cases():
    """argsort and topk marked `unsigned`: integers compared as unsigned
    (NumPy's order of the bits viewed as uint), so negatives rank above
    every non-negative; the extremes of each width, ties, a row longer than
    the GPU's bitonic limit, a top-k along the first axis and with `valid`
    (as --sift-staticize gives randperm(n)[:k])."""
    out = []
    r = rng_for("unsigned_order")
    wide = r.integers(-(1 << 31), 1 << 31, 5000, dtype=np.int64).astype(
        np.int32)
    wide[::53] = -1
    wide[7::61] = 0
    wide[11::67] = -(1 << 31)
    wide[13::71] = (1 << 31) - 1
    inputs = [
        ("i32_mixed_signs", wide[:300], -1),
        ("i32_long", wide, -1),
        ("i64_extremes", np.array([0, -2**63, 2**63 - 1, -1, 5, -1, 0,
                                   2**63 - 1], np.int64), -1),
        ("i8_ties", r.integers(-4, 4, 60).astype(np.int8), -1),
        ("i16_2d_dim0", r.integers(-3, 3, (9, 5)).astype(np.int16), 0),
    ]
    for name, x, dim in inputs:
        it = ttype(x.shape, "i64")
        attrs = " {dim = %d : i64}" % dim if dim != -1 else ""
        for desc in (False, True):
            kw = " descending" if desc else ""
            i = ops.argsort(x, dim, desc, unsigned=True)
            mlir = func("f", [("x", tt(x))], [("%i", it)],
                        ["%%i = sift.argsort %%x%s unsigned%s : %s -> %s"
                         % (kw, attrs, tt(x), it)])
            out.append(Case("argsort_unsigned",
                            name + ("_desc" if desc else "_asc"), mlir, [x],
                            expect=[i]))
        axis = dim % x.ndim
        k = min(7, x.shape[axis] - 1) if name != "i32_long" else 300
        kshape = list(x.shape)
        kshape[axis] = k
        vt, kt = ttype(kshape, x.dtype), ttype(kshape, "i64")
        for smallest in (False, True):
            kw = " smallest" if smallest else ""
            v, i = ops.topk(x, k, dim, smallest=smallest, unsigned=True)
            mlir = func("f", [("x", tt(x))], [("%v", vt), ("%i", kt)],
                        ["%%v, %%i = sift.topk %%x k(%d)%s unsigned%s : "
                         "%s -> %s, %s" % (k, kw, attrs, tt(x), vt, kt)])
            out.append(Case("topk_unsigned",
                            "%s_%s" % (name, "smallest" if smallest
                                       else "largest"),
                            mlir, [x], expect=[v, i]))
    # `valid`: the prefix ranks as unsigned, the rest last in index order.
    for name, x, k, valid in [("prefix", wide[:300], 20, 150),
                              ("shorter_than_k", wide[:300], 40, 25),
                              ("long", wide, 300, 4000)]:
        vt, kt = ttype([k], x.dtype), ttype([k], "i64")
        for smallest in (False, True):
            kw = " smallest" if smallest else ""
            v, i = topk_valid_ref(_unsigned(x), k, 0, smallest, valid)
            mlir = func("f", [("x", tt(x)), ("n", "index")],
                        [("%v", vt), ("%i", kt)],
                        ["%%v, %%i = sift.topk %%x k(%d) valid(%%n : index)%s"
                         " unsigned : %s -> %s, %s" % (k, kw, tt(x), vt, kt)])
            out.append(Case("topk_unsigned",
                            "valid_%s_%s" % (name, "smallest" if smallest
                                             else "largest"),
                            mlir, [x], args={"n": valid},
                            expect=[x[i], i]))
    return out


def _unsigned(x):
    return x.view(np.dtype("u%d" % x.dtype.itemsize))


def unsorted_check(x, axis, want_v, want_i):
    """`unsorted`: per row the same set of indices as the sorted form, each
    value paired with its index (values[j] == input[indices[j]])."""
    def check(res):
        if len(res) != 2:
            return ["%d results, expected 2" % len(res)]
        v, i = res
        e = compare(np.sort(np.moveaxis(i, axis, -1), -1),
                    np.sort(np.moveaxis(want_i, axis, -1), -1),
                    "indices (as sets)")
        if e:
            return e
        return compare(v, np.take_along_axis(x, i, axis),
                       "values vs input[indices]")
    return check


def gather_cases():
    out = []
    r = rng_for("gather")
    cfgs = [
        ("1d_invalid", np.arange(10, 20, dtype=np.int64),
         np.array([0, 9, -1, 10, 3, -5, 1 << 40, 2], np.int64), 0, -1),
        ("rows_f32", r.standard_normal((100, 16)).astype(np.float32),
         r.integers(-2, 102, 40).astype(np.int64), 0, None),
        ("rows_f32_fill", r.standard_normal((10, 3)).astype(np.float32),
         np.array([[0, -1], [12, 9]], np.int64), 0, 2.5),
        ("batched", r.integers(0, 1000, (4, 50)).astype(np.int64),
         r.integers(-1, 52, (4, 16)).astype(np.int64), 1, -1),
        ("batched_tail", r.standard_normal((3, 8, 2)).astype(np.float64),
         r.integers(-1, 9, (3, 2, 5)).astype(np.int64), 1, None),
        ("i1_source", r.random(12) < 0.5,
         np.array([0, 5, 11, 12, -1], np.int64), 0, None),
        ("i32_source", r.integers(-9, 9, (7, 3)).astype(np.int32),
         r.integers(0, 7, 9).astype(np.int64), 0, None),
        ("empty_indices", r.standard_normal((5, 2)).astype(np.float32),
         np.zeros(0, np.int64), 0, None),
        ("empty_source", np.zeros((0, 2), np.float32),
         np.array([0, -1, 1], np.int64), 0, 1.0),
        ("n1", np.array([7], np.int64), np.array([0], np.int64), 0, None),
    ]
    for name, src, idx, b, fill in cfgs:
        rshape = idx.shape + src.shape[b + 1:]
        rt = ttype(rshape, src.dtype)
        attrs = []
        if b:
            attrs.append("batch_dims = %d : i64" % b)
        if fill is not None:
            attrs.append("fill = %s : %s" % (repr(fill) if src.dtype.kind == "f"
                                              else str(int(fill)),
                                              ELT[src.dtype]))
        a = " {%s}" % ", ".join(attrs) if attrs else ""
        mlir = func("f", [("s", tt(src)), ("i", tt(idx))], [("%r", rt)],
                    ["%%r = sift.gather %%s[%%i]%s : %s, %s -> %s"
                     % (a, tt(src), tt(idx), rt)])
        exp = ops.gather(src, idx, b, 0 if fill is None else fill)
        out.append(Case("gather", name, mlir, [src, idx], expect=[exp]))
    return out


def scatter_cases():
    out = []
    r = rng_for("scatter")
    f32, i64 = np.float32, np.int64
    wide = np.iinfo(np.int32).max
    nan_upd = r.standard_normal(12).astype(f32)
    nan_upd[[2, 7]] = NAN
    # (name, dest, indices, updates, batch_dims, reduce)
    cfgs = [
        ("1d_none_repeats_invalid", np.arange(10, 20, dtype=i64),
         np.array([3, 9, -1, 10, 3, -5, 1 << 40, 3, 0], i64),
         np.arange(100, 109, dtype=i64), 0, "none"),
        ("bincount", np.zeros(21, i64), r.integers(-1, 23, 500).astype(i64),
         np.ones(500, i64), 0, "add"),
        ("rows_add_f32", r.standard_normal((10, 16)).astype(f32),
         r.integers(-2, 12, 40).astype(i64),
         r.standard_normal((40, 16)).astype(f32), 0, "add"),
        ("rows_none_f64", r.standard_normal((6, 3)),
         r.integers(0, 6, (2, 5)).astype(i64),
         r.standard_normal((2, 5, 3)), 0, "none"),
        ("max_nan", np.full(5, -INF, f32), r.integers(0, 5, 12).astype(i64),
         nan_upd, 0, "max"),
        ("min_f32", np.full(5, INF, f32), r.integers(-1, 6, 12).astype(i64),
         r.standard_normal(12).astype(f32), 0, "min"),
        ("i32_add_wraps", np.array([wide, 0], np.int32),
         np.array([0, 0, 1], i64), np.array([1, 2, -3], np.int32), 0, "add"),
        ("i32_max_signed", np.zeros(4, np.int32),
         r.integers(0, 4, 20).astype(i64),
         r.integers(-9, 9, 20).astype(np.int32), 0, "max"),
        ("batched_add", r.integers(0, 9, (4, 30)).astype(i64),
         r.integers(-1, 32, (4, 16)).astype(i64),
         r.integers(0, 5, (4, 16)).astype(i64), 1, "add"),
        ("batched_tail_none", r.standard_normal((3, 8, 2)).astype(f32),
         r.integers(-1, 9, (3, 2, 5)).astype(i64),
         r.standard_normal((3, 2, 5, 2)).astype(f32), 1, "none"),
        ("i1_none", np.zeros(6, np.bool_), np.array([1, 4, 9, -1], i64),
         np.array([True, True, True, True]), 0, "none"),
        ("empty_indices", r.standard_normal((5, 2)).astype(f32),
         np.zeros(0, i64), np.zeros((0, 2), f32), 0, "add"),
        ("empty_dest", np.zeros((0, 2), f32), np.array([0, -1, 1], i64),
         np.ones((3, 2), f32), 0, "max"),
        ("n1", np.array([7], i64), np.array([0], i64), np.array([5], i64), 0,
         "min"),
        # Lanes over many blocks of the GPU kernels (a thread per element):
        # repeated rows whose last lane sits in another block than their
        # first ones, and atomics contending for a few rows.
        ("many_none_repeats_f64", r.standard_normal((300, 4)),
         r.integers(-3, 303, 5000).astype(i64),
         r.standard_normal((5000, 4)), 0, "none"),
        ("many_bincount", np.zeros(1000, i64),
         r.integers(-5, 1005, 100000).astype(i64),
         np.ones(100000, i64), 0, "add"),
        ("many_add_f32", r.standard_normal((50, 8)).astype(f32),
         r.integers(0, 50, 20000).astype(i64),
         r.standard_normal((20000, 8)).astype(f32), 0, "add"),
        ("many_max_f32_contended", np.full(4, -INF, f32),
         r.integers(0, 4, 5000).astype(i64),
         r.standard_normal(5000).astype(f32), 0, "max"),
        # NaNs of either sign in dest, signed zeros in both.
        ("max_dest_nan_zeros", np.array([-NAN, 1.0, -0.0, 0.0, NAN], f32),
         np.array([0, 2, 3, 2, 1, 4, 3], i64),
         np.array([5.0, 0.0, -0.0, -1.0, 2.0, -3.0, -0.0], f32), 0, "max"),
        ("min_dest_nan_zeros", np.array([-NAN, 1.0, -0.0, 0.0, NAN]),
         np.array([0, 2, 3, 2, 1, 4, 3], i64),
         np.array([5.0, 0.0, -0.0, 1.0, -2.0, 3.0, -0.0]), 0, "min"),
        ("many_min_f64_nan", np.full(3, INF),
         r.integers(0, 3, 3000).astype(i64),
         np.where(np.arange(3000) == 2500, NAN, r.standard_normal(3000)), 0,
         "min"),
        ("many_i32_min_batched", r.integers(-50, 50, (6, 40)).astype(np.int32),
         r.integers(-1, 41, (6, 7, 90)).astype(i64),
         r.integers(-1000, 1000, (6, 7, 90)).astype(np.int32), 1, "min"),
        ("many_batched_tail_none", r.integers(0, 9, (2, 3, 20, 3)).astype(i64),
         r.integers(0, 20, (2, 3, 700)).astype(i64),
         r.integers(100, 999, (2, 3, 700, 3)).astype(i64), 2, "none"),
    ]
    for name, dest, idx, upd, b, reduce in cfgs:
        attrs = " {batch_dims = %d : i64}" % b if b else ""
        red = "" if reduce == "none" else " reduce(%s)" % reduce
        mlir = func("f", [("d", tt(dest)), ("i", tt(idx)), ("u", tt(upd))],
                    [("%r", tt(dest))],
                    ["%%r = sift.scatter %%u into %%d[%%i]%s%s : %s, %s into %s"
                     % (red, attrs, tt(upd), tt(idx), tt(dest))])
        exp = ops.scatter(dest, idx, upd, b, reduce)
        # (Float sums: the GPU kernels add in the atomics' order.)
        tol = ((1e-6, 1e-5 * max(1.0, np.sqrt(len(idx.reshape(-1)) / 100.0)))
               if reduce == "add" and dest.dtype.kind == "f" else (0.0, 0.0))
        out.append(Case("scatter", name, mlir, [dest, idx, upd], expect=[exp],
                        tol=tol))
    # Lanes of a dynamic extent: indices and updates of a size known at run
    # time only.
    dest = r.standard_normal((50, 3)).astype(f32)
    idx = r.integers(-1, 51, 777).astype(i64)
    upd = r.standard_normal((777, 3)).astype(f32)
    for reduce in ("none", "max"):
        red = "" if reduce == "none" else " reduce(%s)" % reduce
        mlir = func("f", [("d", tt(dest)), ("i", "tensor<?xi64>"),
                          ("u", "tensor<?x3xf32>")], [("%r", tt(dest))],
                    ["%%r = sift.scatter %%u into %%d[%%i]%s : "
                     "tensor<?x3xf32>, tensor<?xi64> into %s"
                     % (red, tt(dest))])
        out.append(Case("scatter", "dynamic_lanes_" + reduce, mlir,
                        [dest, idx, upd],
                        expect=[ops.scatter(dest, idx, upd, 0, reduce)]))
    return out


def scatter_distinct_cases():
    """Scatters through indices that the program makes distinct: a
    permutation's inverse (`inv[perm] = arange(n)`), rows through a per-row
    argsort or top-k, lanes of a compaction, a slice of a permutation. On
    the GPU these store each lane directly (no winner), into nothing where
    the dest is a tensor.empty. The last case is not distinct (a [4, 50]
    argsort into one row of 50): the last lane must still win."""
    out = []
    r = rng_for("scatter_distinct")
    f32, i64 = np.float32, np.int64

    def case(name, params, inputs, body, result, expect):
        mlir = func("f", params, [("%r", result)], body)
        out.append(Case("scatter", "distinct_" + name, mlir, inputs,
                        expect=[expect]))

    # inv[perm] = arange(n), perm = argsort(keys): into a tensor.empty.
    keys = r.permutation(5000).astype(np.int32)
    iota = np.arange(5000, dtype=i64)
    perm = ops.argsort(keys)
    inv = np.empty(5000, i64)
    inv[perm] = iota
    case("inverse_permutation", [("k", tt(keys)), ("u", tt(iota))],
         [keys, iota],
         ["%p = sift.argsort %k : tensor<5000xi32> -> tensor<5000xi64>",
          "%e = tensor.empty() : tensor<5000xi64>",
          "%r = sift.scatter %u into %e[%p] : tensor<5000xi64>, "
          "tensor<5000xi64> into tensor<5000xi64>"],
         "tensor<5000xi64>", inv)
    # Per-row: rows of a dest through each row's argsort (batch_dims 1).
    keys2 = r.standard_normal((8, 300)).astype(f32)
    dest2 = r.standard_normal((8, 300)).astype(f32)
    upd2 = r.standard_normal((8, 300)).astype(f32)
    perm2 = ops.argsort(keys2)
    case("rows_argsort", [("k", tt(keys2)), ("d", tt(dest2)),
                          ("u", tt(upd2))], [keys2, dest2, upd2],
         ["%p = sift.argsort %k : tensor<8x300xf32> -> tensor<8x300xi64>",
          "%r = sift.scatter %u into %d[%p] {batch_dims = 1 : i64} : "
          "tensor<8x300xf32>, tensor<8x300xi64> into tensor<8x300xf32>"],
         "tensor<8x300xf32>", ops.scatter(dest2, perm2, upd2, 1, "none"))
    # Rows of 2 features through each row's top-40 of 1000 (batch_dims 1).
    keys3 = r.standard_normal((4, 1000)).astype(f32)
    dest3 = r.standard_normal((4, 1000, 2)).astype(f32)
    upd3 = r.standard_normal((4, 40, 2)).astype(f32)
    top3 = ops.topk(keys3, 40)[1]
    case("rows_topk_tail", [("k", tt(keys3)), ("d", tt(dest3)),
                            ("u", tt(upd3))], [keys3, dest3, upd3],
         ["%v, %i = sift.topk %k k(40) : tensor<4x1000xf32> -> "
          "tensor<4x40xf32>, tensor<4x40xi64>",
          "%r = sift.scatter %u into %d[%i] {batch_dims = 1 : i64} : "
          "tensor<4x40x2xf32>, tensor<4x40xi64> into tensor<4x1000x2xf32>"],
         "tensor<4x1000x2xf32>", ops.scatter(dest3, top3, upd3, 1, "none"))
    # The lanes of a compaction (-1 past its count: skipped), reduce(add).
    mask4 = r.random(3000) < 0.3
    dest4 = r.integers(0, 9, 3000).astype(i64)
    upd4 = r.integers(0, 100, 3000).astype(i64)
    idx4 = ops.compact(mask4, 3000)[0]
    case("compact_add", [("m", tt(mask4)), ("d", tt(dest4)), ("u", tt(upd4))],
         [mask4, dest4, upd4],
         ["%i, %n = sift.compact %m : tensor<3000xi1> -> tensor<3000xi64>, "
          "tensor<i64>",
          "%r = sift.scatter %u into %d[%i] reduce(add) : tensor<3000xi64>, "
          "tensor<3000xi64> into tensor<3000xi64>"],
         "tensor<3000xi64>", ops.scatter(dest4, idx4, upd4, 0, "add"))
    # A slice of a permutation (its first 700 lanes), into a dest.
    keys5 = r.permutation(2000).astype(i64)
    dest5 = r.standard_normal((2000, 3))
    upd5 = r.standard_normal((700, 3))
    idx5 = ops.argsort(keys5)[:700]
    case("permutation_prefix", [("k", tt(keys5)), ("d", tt(dest5)),
                                ("u", tt(upd5))], [keys5, dest5, upd5],
         ["%p = sift.argsort %k : tensor<2000xi64> -> tensor<2000xi64>",
          "%s = tensor.extract_slice %p[0] [700] [1] : tensor<2000xi64> to "
          "tensor<700xi64>",
          "%r = sift.scatter %u into %d[%s] : tensor<700x3xf64>, "
          "tensor<700xi64> into tensor<2000x3xf64>"],
         "tensor<2000x3xf64>", ops.scatter(dest5, idx5, upd5, 0, "none"))
    # Not distinct: each of 4 rows of an argsort is a permutation of the
    # same 50 rows; the last lane in row-major order wins.
    keys6 = r.standard_normal((4, 50)).astype(f32)
    dest6 = r.integers(0, 9, 50).astype(i64)
    upd6 = r.integers(100, 999, (4, 50)).astype(i64)
    idx6 = ops.argsort(keys6)
    case("not_rows", [("k", tt(keys6)), ("d", tt(dest6)), ("u", tt(upd6))],
         [keys6, dest6, upd6],
         ["%p = sift.argsort %k : tensor<4x50xf32> -> tensor<4x50xi64>",
          "%r = sift.scatter %u into %d[%p] : tensor<4x50xi64>, "
          "tensor<4x50xi64> into tensor<50xi64>"],
         "tensor<50xi64>", ops.scatter(dest6, idx6, upd6, 0, "none"))
    return out


def random_cases():
    out = []
    for shape, elt, seed, off in (((4, 256), "i32", 7, 5), ((1000,), "i32", 0, 0),
                                  ((100,), "i64", -1, 3),
                                  ((3, 5), "i64", 1 << 62, (1 << 63) - 1),
                                  ((1,), "i32", 12, 0), ((0,), "i32", 1, 0)):
        rt = ttype(shape, elt)
        mlir = func("f", [("seed", "i64"), ("off", "i64")], [("%r", rt)],
                    ["%%r = sift.random_bits %%seed offset %%off : %s" % rt])
        exp = ops.random_bits(seed, shape, {"i32": np.int32,
                                            "i64": np.int64}[elt], off)
        out.append(Case("random_bits", "%s_%s_seed%d" % (
            elt, "x".join(map(str, shape)), seed), mlir,
            args={"seed": seed, "off": off}, expect=[exp]))
    # No offset operand.
    mlir = func("f", [("seed", "i64")], [("%r", "tensor<64xi32>")],
                ["%r = sift.random_bits %seed : tensor<64xi32>"])
    out.append(Case("random_bits", "no_offset", mlir, args={"seed": 3},
                    expect=[ops.random_bits(3, (64,), np.int32)]))

    # valid(%v): the first v[r] words of each line are the stream's (the
    # rest unspecified, not compared); v clamped to the line, v = 0, v not a
    # multiple of a Philox block, per-row streams with one v per row, and
    # one stream with one v.
    def prefixes_equal(want_rows, valid):
        def check(res):
            got = res[0].reshape(len(want_rows), -1)
            e = []
            for r, (want, v) in enumerate(zip(want_rows, valid)):
                v = min(max(v, 0), want.size)
                if not np.array_equal(got[r, :v], want[:v]):
                    e.append("row %d: the first %d words differ from the "
                             "stream" % (r, v))
            return e
        return check
    seeds = np.array([7, -1, 1 << 40, 3], dtype=np.int64)
    for elt, dt in (("i32", np.int32), ("i64", np.int64)):
        valid = [0, 1001, 5, 998]
        rt = "tensor<4x1000x%s>" % elt
        mlir = func("f", [("s", "tensor<4xi64>"), ("vi", "tensor<4xi64>")],
                    [("%r", rt)],
                    ["%v = arith.index_cast %vi : tensor<4xi64> to "
                     "tensor<4xindex>",
                     "%%r = sift.random_bits %%s valid(%%v : tensor<4xindex>)"
                     " : tensor<4xi64> -> %s" % rt])
        want = [ops.random_bits(int(x), (1000,), dt) for x in seeds]
        out.append(Case("random_bits", "valid_per_row_%s" % elt, mlir,
                        [seeds, np.array(valid, dtype=np.int64)],
                        check=prefixes_equal(want, valid)))
    for v in (0, 3, 4097, 5000):
        mlir = func("f", [("seed", "i64"), ("vi", "i64")],
                    [("%r", "tensor<4099xi32>")],
                    ["%v = arith.index_cast %vi : i64 to index",
                     "%r = sift.random_bits %seed valid(%v : index) "
                     ": tensor<4099xi32>"])
        out.append(Case("random_bits", "valid_%d" % v, mlir,
                        args={"seed": 9, "vi": v},
                        check=prefixes_equal(
                            [ops.random_bits(9, (4099,), np.int32)], [v])))

    def in_unit(res):
        e = []
        for i, a in enumerate(res):
            if a.size and not (np.all(a >= 0) and np.all(a < 1)):
                e.append("result %d has values outside [0, 1)" % i)
        return e
    for shape, elt, seed, off in (((32, 100), "f32", 11, 0),
                                  ((257,), "f64", 5, 9),
                                  ((4000,), "f32", -7, 1)):
        rt = ttype(shape, elt)
        mlir = func("f", [("seed", "i64"), ("off", "i64")], [("%r", rt)],
                    ["%%r = sift.random_uniform %%seed offset %%off : %s"
                     % rt])
        exp = ops.random_uniform(seed, shape, {"f32": np.float32,
                                               "f64": np.float64}[elt], off)
        out.append(Case("random_uniform", "%s_%s" % (
            elt, "x".join(map(str, shape))), mlir,
            args={"seed": seed, "off": off}, expect=[exp], check=in_unit))
    # f16 and bf16, widened to f32 in the program (exact) for the .npy.
    for elt, dt in (("f16", np.float16), ("bf16", "bfloat16")):
        shape = (512,)
        rt = ttype(shape, elt)
        wt = ttype(shape, "f32")
        # A linalg.generic, not arith.extf on tensors: only the op under
        # test should decide whether the case runs.
        mlir = func("f", [("seed", "i64")], [("%w", wt)], [
            "%%r = sift.random_uniform %%seed : %s" % rt,
            "%%e = tensor.empty() : %s" % wt,
            "%%w = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, "
            "affine_map<(d0) -> (d0)>], iterator_types = [\"parallel\"]} "
            "ins(%%r : %s) outs(%%e : %s) {" % (rt, wt),
            "^bb0(%%a: %s, %%b: f32):" % elt,
            "  %%x = arith.extf %%a : %s to f32" % elt,
            "  linalg.yield %x : f32",
            "} -> " + wt])
        exp = ops.random_uniform(21, shape, dt).astype(np.float32)
        out.append(Case("random_uniform", elt + "_truncated", mlir,
                        args={"seed": 21}, expect=[exp], check=in_unit))
    return out


# --- sampling and loss -------------------------------------------------------

def balanced_check(labels, k, frac, ign, neg):
    quota = int(k * frac)

    def check(res):
        idx, cnt = res[0], res[1]
        e = []
        lab = labels.reshape(int(np.prod(labels.shape[:-1])),
                             labels.shape[-1])
        idx2 = idx.reshape(lab.shape[0], k)
        cnt2 = cnt.reshape(-1)
        for r in range(lab.shape[0]):
            row = lab[r]
            P = int(np.sum((row != ign) & (row != neg)))
            Q = int(np.sum(row == neg))
            npos = min(P, quota)
            nneg = min(Q, k - npos)
            c = int(cnt2[r])
            if c != npos + nneg:
                e.append("row %d: count %d, expected %d" % (r, c,
                                                            npos + nneg))
                continue
            valid = idx2[r, :c]
            if np.any(idx2[r, c:] != -1):
                e.append("row %d: lanes past the count are not -1" % r)
            if len(set(valid.tolist())) != c or np.any(valid < 0) or np.any(
                    valid >= row.size):
                e.append("row %d: indices not distinct and in range" % r)
                continue
            lv = row[valid]
            if np.any((lv[:npos] == ign) | (lv[:npos] == neg)):
                e.append("row %d: the first %d are not all positives"
                         % (r, npos))
            if np.any(lv[npos:] != neg):
                e.append("row %d: lanes %d..%d are not all negatives"
                         % (r, npos, c))
        return e
    return check


def sample_balanced_cases():
    out = []
    r = rng_for("sample_balanced")

    def labels_of(shape, p_pos, p_neg, dtype=np.int64, pos_label=1):
        u = r.random(shape)
        lab = np.where(u < p_pos, pos_label, np.where(u < p_pos + p_neg, 0, -1))
        return lab.astype(dtype)
    cfgs = [
        ("rpn_20000_k512", labels_of((20000,), 0.01, 0.9), 512, 0.25, -1, 0,
         77, 0),
        ("batched_4x1000", labels_of((4, 1000), 0.05, 0.8), 64, 0.5, -1, 0,
         1, 10),
        ("batched_3d", labels_of((2, 2, 300), 0.1, 0.5), 32, 0.25, -1, 0, 5,
         0),
        ("pos_short", labels_of((200,), 0.01, 0.9), 64, 0.5, -1, 0, 3, 0),
        ("neg_short", labels_of((200,), 0.9, 0.02), 64, 0.5, -1, 0, 3, 0),
        ("both_short", labels_of((40,), 0.1, 0.1), 64, 0.5, -1, 0, 3, 0),
        ("nothing_eligible", np.full((3, 50), -1, np.int64), 16, 0.5, -1, 0,
         3, 0),
        ("num_samples_0", labels_of((2, 30), 0.3, 0.3), 0, 0.5, -1, 0, 3, 0),
        ("n1", np.array([1], np.int64), 1, 0.5, -1, 0, 3, 0),
        ("n1_neg", np.array([[0], [1]], np.int64), 2, 0.5, -1, 0, 3, 0),
        ("i32_custom_labels", labels_of((500,), 0.2, 0.5, np.int32, 4) + 1, 50,
         0.3, 0, 1, 11, 0),
        ("frac_1", labels_of((300,), 0.2, 0.5), 100, 1.0, -1, 0, 8, 0),
        ("frac_0", labels_of((300,), 0.2, 0.5), 100, 0.0, -1, 0, 8, 0),
        ("offset_big", labels_of((2, 100), 0.3, 0.5), 20, 0.5, -1, 0, 9,
         (1 << 63) - 1),
    ]
    # Each also with a dynamic N (on the GPU, K lanes past N are fill), and
    # rows of none at run time; some with every extent dynamic, and none of
    # the rows at run time.
    dynamic = [("dynamic_" + c[0],) + c[1:] + ("n",) for c in cfgs]
    dynamic.append(("dynamic_empty", np.zeros((3, 0), np.int64), 8, 0.5, -1,
                    0, 3, 0, "n"))
    dynamic += [("dynamic_all_" + c[0],) + c[1:] + ("all",) for c in cfgs
                if c[1].ndim > 1]
    dynamic.append(("dynamic_all_no_rows", np.zeros((0, 2, 5), np.int64), 4,
                    0.5, -1, 0, 3, 0, "all"))
    for name, lab, k, frac, ign, neg, seed, off, dyn in (
            [c + (None,) for c in cfgs] + dynamic):
        batch = (None,) * (lab.ndim - 1) if dyn == "all" else lab.shape[:-1]
        it = ttype(batch + (k,), "i64")
        ct = ttype(batch, "i64")
        lt = ttype(batch + (None,), lab.dtype) if dyn else tt(lab)
        attrs = ["num_samples = %d : i64" % k]
        if frac != 0.5:
            attrs.append("positive_fraction = " + fattr(frac))
        if ign != -1:
            attrs.append("ignore_label = %d : i64" % ign)
        if neg != 0:
            attrs.append("negative_label = %d : i64" % neg)
        mlir = func("f", [("l", lt), ("seed", "i64"), ("off", "i64")],
                    [("%i", it), ("%n", ct)],
                    ["%%i, %%n = sift.sample_balanced %%l, %%seed offset %%off "
                     "{%s} : %s -> %s, %s" % (", ".join(attrs), lt, it, ct)])
        exp = ops.sample_balanced(lab, seed, k, frac, ign, neg, off)
        out.append(Case("sample_balanced", name, mlir, [lab],
                        args={"seed": seed, "off": off}, expect=list(exp),
                        check=balanced_check(lab, k, frac, ign, neg)))
    # Per-row seeds and offsets: tensors over the first batch dimension, row
    # (p, q) keyed by seed[p] and stream offset[p] + q, as the op on
    # labels[p] with scalars.
    lab = labels_of((2, 3, 300), 0.1, 0.6)
    sd = np.array([5, 6], np.int64)
    of = np.array([0, 1 << 40], np.int64)
    rows = [ops.sample_balanced(lab[p], int(sd[p]), 24, 0.25,
                                offset=int(of[p])) for p in range(2)]
    # Also of a run-time N, and of every extent at run time; seeds of an
    # extent other than the labels' is the run-time error of extents that
    # disagree.
    def seeded(batch, n, seeds=2):
        lt = ttype(batch + (n,), "i64")
        st = ttype((seeds,), "i64")
        it, ct = ttype(batch + (24,), "i64"), ttype(batch, "i64")
        return func("f", [("l", lt), ("s", st), ("o", st)],
                    [("%i", it), ("%n", ct)],
                    ["%%i, %%n = sift.sample_balanced %%l, %%s offset %%o "
                     "{num_samples = 24 : i64, positive_fraction = 2.5e-01 : "
                     "f64} : %s, %s, %s -> %s, %s" % (lt, st, st, it, ct)])
    for name, batch, n in (("seed_tensors", (2, 3), 300),
                           ("dynamic_seed_tensors", (2, 3), None),
                           ("dynamic_rows_seed_tensors", (None, 3), None)):
        out.append(Case("sample_balanced", name, seeded(batch, n),
                        [lab, sd, of],
                        expect=[np.stack([x[0] for x in rows]),
                                np.stack([x[1] for x in rows])],
                        check=balanced_check(lab, 24, 0.25, -1, 0)))
    out.append(Case("sample_balanced", "dynamic_seeds_disagree",
                    seeded((None, 3), None, seeds=3),
                    [lab, np.array([5, 6, 7], np.int64),
                     np.array([0, 1, 2], np.int64)],
                    expect_error=r"disagree on an extent: 2 and 3"))
    # Seeds and rows: the same seed twice, another seed; no offset operand.
    lab = labels_of((2, 400), 0.2, 0.6)
    it, ct = ttype((2, 64), "i64"), ttype((2,), "i64")
    mlir = func("f", [("l", tt(lab)), ("s1", "i64"), ("s2", "i64")],
                [("%a", it), ("%an", ct), ("%b", it), ("%bn", ct),
                 ("%c", it), ("%cn", ct)],
                ["%%a, %%an = sift.sample_balanced %%l, %%s1 {num_samples = 64 "
                 ": i64} : %s -> %s, %s" % (tt(lab), it, ct),
                 "%%b, %%bn = sift.sample_balanced %%l, %%s1 {num_samples = 64 "
                 ": i64} : %s -> %s, %s" % (tt(lab), it, ct),
                 "%%c, %%cn = sift.sample_balanced %%l, %%s2 {num_samples = 64 "
                 ": i64} : %s -> %s, %s" % (tt(lab), it, ct)])

    def seeds(res):
        e = []
        if not (np.array_equal(res[0], res[2]) and
                np.array_equal(res[1], res[3])):
            e.append("the same seed gave different samples")
        if np.array_equal(res[0], res[4]):
            e.append("different seeds gave the same samples")
        if np.array_equal(res[0][0], res[0][1]):
            e.append("two batch rows with different streams are identical")
        return e + balanced_check(lab, 64, 0.5, -1, 0)(res[:2])
    a = ops.sample_balanced(lab, 100, 64)
    c = ops.sample_balanced(lab, 101, 64)
    out.append(Case("sample_balanced", "seed_properties", mlir, [lab],
                    args={"s1": 100, "s2": 101},
                    expect=[a[0], a[1], a[0], a[1], c[0], c[1]], check=seeds))
    return out


def cross_entropy_cases():
    out = []
    r = rng_for("cross_entropy")

    def targets(shape, c, p_ignore=0.0, ignore=-100, dtype=np.int64):
        t = r.integers(0, c, shape)
        t[r.random(shape) < p_ignore] = ignore
        return t.astype(dtype)
    x32 = r.standard_normal((32, 10)).astype(np.float32) * 3
    w10 = (r.random(10) + 0.1).astype(np.float32)
    nonfinite = r.standard_normal((6, 4)).astype(np.float32)
    nonfinite[0, 1] = NAN
    nonfinite[1, 2] = INF
    nonfinite[2, 0] = -INF
    nonfinite[3, :] = -INF
    nonfinite[4, 3] = -INF
    tn = np.array([1, 0, 1, 2, 3, 0], np.int64)  # row 4 targets its -inf
    big = np.array([[1000.0, -1000.0, 0.0], [88.0, 89.0, 90.0]], np.float32)
    cfgs = [
        ("basic", x32, targets(32, 10), None, 0.0, -100),
        ("ignored_some", x32, targets(32, 10, 0.3), None, 0.0, -100),
        ("weights", x32, targets(32, 10, 0.2), w10, 0.0, -100),
        ("smoothing", x32, targets(32, 10, 0.2), None, 0.1, -100),
        ("weights_smoothing", x32, targets(32, 10, 0.2), w10, 0.25, -100),
        ("smoothing_1", x32, targets(32, 10), w10, 1.0, -100),
        ("all_ignored", x32, np.full(32, -100, np.int64), None, 0.0, -100),
        ("all_ignored_weights", x32, np.full(32, 3, np.int64), w10, 0.1, 3),
        ("ignore_index_in_range", x32, targets(32, 10), None, 0.0, 0),
        ("batched_3d", r.standard_normal((4, 5, 7)).astype(np.float32),
         targets((4, 5), 7, 0.2), None, 0.05, -100),
        ("f64", r.standard_normal((16, 5)), targets(16, 5, 0.1), None, 0.0,
         -100),
        ("i32_targets", x32, targets(32, 10, 0.1, -1, np.int32), None, 0.0,
         -1),
        ("c1", r.standard_normal((5, 1)).astype(np.float32),
         np.zeros(5, np.int64), None, 0.0, -100),
        ("n1", r.standard_normal((1, 3)).astype(np.float32),
         np.array([2], np.int64), None, 0.0, -100),
        ("large_logits", big, np.array([1, 0], np.int64), None, 0.0, -100),
        ("nonfinite", nonfinite, tn, None, 0.0, -100),
        ("nonfinite_smoothing", nonfinite, tn, None, 0.1, -100),
        ("empty", np.zeros((0, 4), np.float32), np.zeros(0, np.int64), None,
         0.0, -100),
    ]
    for name, x, t, w, s, ign in cfgs:
        for red in ("none", "sum", "mean"):
            rt = ttype(t.shape if red == "none" else (), x.dtype)
            attrs = []
            if ign != -100:
                attrs.append("ignore_index = %d : i64" % ign)
            if s:
                attrs.append("label_smoothing = " + fattr(s))
            a = " {%s}" % ", ".join(attrs) if attrs else ""
            params = [("x", tt(x)), ("t", tt(t))]
            inputs = [x, t]
            wtext = ""
            if w is not None:
                params.append(("w", tt(w)))
                inputs.append(w)
                wtext = " weight(%%w : %s)" % tt(w)
            mlir = func("f", params, [("%r", rt)],
                        ["%%r = sift.cross_entropy %%x, %%t%s reduction = %s%s"
                         " : %s, %s -> %s" % (wtext, red, a, tt(x), tt(t), rt)])
            exp = ops.cross_entropy(x, t, w, red, ign, s)
            tol = (1e-5, 1e-5) if x.dtype == np.float32 else (1e-12, 1e-12)
            if red != "none":
                tol = (1e-4, 1e-4) if x.dtype == np.float32 else tol
            out.append(Case("cross_entropy", "%s_%s" % (name, red), mlir,
                            inputs, expect=[exp], tol=tol))
    # A target outside [0, C) that is not ignore_index: a run-time error.
    x = r.standard_normal((4, 3)).astype(np.float32)
    for name, t in (("target_too_big", np.array([0, 3, 1, 2], np.int64)),
                    ("target_negative", np.array([0, -1, 1, 2], np.int64))):
        mlir = func("f", [("x", tt(x)), ("t", tt(t))], [("%r", "tensor<f32>")],
                    ["%%r = sift.cross_entropy %%x, %%t reduction = sum : %s, "
                     "%s -> tensor<f32>" % (tt(x), tt(t))])
        out.append(Case("cross_entropy", name + "_is_error", mlir, [x, t],
                        expect_error=r"(?i)target|range|bound|abort|error"))
    out += cross_entropy_million_rows_cases()
    out += cross_entropy_segmented_items_cases()
    out += cross_entropy_wide_rows_cases()
    out += cross_entropy_many_rows_mean_cases()
    return out


def cross_entropy_wide_rows_cases():
    """Rows of every length around the vector widths and up to C = 32000,
    against float64: the CPU lowering vectorizes the row loops, with a
    reassociated sum, its own polynomial exp (exponents at most 0, within
    4e-7) and an approximate log (--sift-approximate-math).
    Per element the error stays within 1e-5 + 1e-5*|loss| (measured: about
    1e-6 absolute at C = 32000, where a sequential float32 sum of the exps
    drifted further). Special values sit past the first vector and in the
    tail, where the loops' masks and remainders are."""
    out = []
    r = rng_for("cross_entropy_wide_rows")
    for c in (1, 3, 7, 8, 9, 15, 16, 17, 31, 33, 63, 65, 100, 127, 128, 129,
              257, 1000, 1003, 32000):
        n = max(4, min(64, 2000000 // (c * 16)))
        clean = (r.standard_normal((n, c)) * 4).astype(np.float32)
        clean[n - 1] += 80.0                  # large logits: shifted by m
        t = r.integers(0, c, n).astype(np.int64)
        special = clean.copy()
        if c >= 3:
            special[0, c - 1] = NAN           # NaN in the tail: NaN
            special[1, c // 2] = INF          # +inf: NaN
            special[2, c - 1] = -INF          # -inf: a finite loss
            t[2] = 0
            special[3, :] = -INF              # all -inf: NaN
        if c >= 3 and n > 5:
            special[4, 0] = NAN               # NaN in the first step: NaN
            # Logits down to 100 below the maximum: exps that underflow
            # (below -88 they are 0) next to ones that do not.
            special[5] = np.linspace(-100.0, 0.0, c, dtype=np.float32)
        for red in ("none", "mean"):
            x = special if red == "none" else clean
            rt = ttype(t.shape if red == "none" else (), x.dtype)
            mlir = func("f", [("x", tt(x)), ("t", tt(t))], [("%r", rt)],
                        ["%%r = sift.cross_entropy %%x, %%t reduction = %s "
                         ": %s, %s -> %s" % (red, tt(x), tt(t), rt)])
            exp = ops.cross_entropy(x, t, None, red, -100, 0.0)
            out.append(Case("cross_entropy", "wide_c%d_%s" % (c, red), mlir,
                            [x, t], expect=[exp], tol=(1e-5, 1e-5)))
        # The same rows with a dynamic C: the blocks of 128 logits up to
        # C - C mod 128, then a block of eight masked vectors (reading
        # nothing when C is a multiple of 128).
        if c in (1, 7, 31, 33, 65, 100, 128, 129, 1003):
            dyn, rt = ttype((None, None), x.dtype), ttype(t.shape, x.dtype)
            mlir = func("f", [("x", tt(special)), ("t", tt(t))], [("%r", rt)],
                        ["%%d = tensor.cast %%x : %s to %s"
                         % (tt(special), dyn),
                         "%%r = sift.cross_entropy %%d, %%t reduction = none "
                         ": %s, %s -> %s" % (dyn, tt(t), rt)])
            exp = ops.cross_entropy(special, t, None, "none", -100, 0.0)
            out.append(Case("cross_entropy", "wide_dynamic_c%d_none" % c,
                            mlir, [special, t], expect=[exp],
                            tol=(1e-5, 1e-5)))
    # Half logits are read as f16 vectors and widened: f32 arithmetic, one
    # rounding of each loss to f16 (half an ulp: 5e-4 relative). The host
    # passes f32; the function rounds the logits to f16 and widens the
    # losses back.
    x = (r.standard_normal((64, 1003)) * 4).astype(np.float32)
    t = r.integers(0, 1003, 64).astype(np.int64)
    h, rh = ttype(x.shape, "f16"), ttype(t.shape, "f16")
    rt = ttype(t.shape, np.float32)
    mlir = func("f", [("x", tt(x)), ("t", tt(t))], [("%r", rt)],
                ["%%h = arith.truncf %%x : %s to %s" % (tt(x), h),
                 "%%l = sift.cross_entropy %%h, %%t reduction = none : %s, "
                 "%s -> %s" % (h, tt(t), rh),
                 "%%r = arith.extf %%l : %s to %s" % (rh, rt)])
    exp = ops.cross_entropy(x.astype(np.float16), t, None, "none", -100, 0.0)
    out.append(Case("cross_entropy", "wide_c1003_f16_none", mlir, [x, t],
                    expect=[exp.astype(np.float32)],
                    tol=(1e-3, 1e-3)))
    return out


def cross_entropy_many_rows_mean_cases():
    """The mean of 2^23 (8.4M) float32 losses against float64: within 1e-6
    relative (a sequential float32 sum was 1.2e-4 off here)."""
    out = []
    r = rng_for("cross_entropy_many_rows_mean")
    n, c = 1 << 23, 2
    x = (r.standard_normal((n, c)) * 2).astype(np.float32)
    t = r.integers(0, c, n).astype(np.int64)
    x64 = x.astype(np.float64)
    m = x64.max(axis=1)
    lse = m + np.log(np.exp(x64 - m[:, None]).sum(axis=1))
    want = float((lse - x64[np.arange(n), t]).mean())
    mlir = func("f", [("x", tt(x)), ("t", tt(t))], [("%r", "tensor<f32>")],
                ["%%r = sift.cross_entropy %%x, %%t reduction = mean : %s, "
                 "%s -> tensor<f32>" % (tt(x), tt(t))])

    def check(res, want=want):
        got = float(np.asarray(res[0]))
        rel = abs(got - want) / abs(want)
        if rel <= 1e-6:
            return []
        return ["%r is %.3g relative from the float64 reference %r (allowed "
                "1e-6)" % (got, rel, want)]
    out.append(Case("cross_entropy", "many_rows_mean", mlir, [x, t],
                    check=check))
    return out


def cross_entropy_segmented_items_cases():
    """Sums and means per item (batch_dims = 1) of items with enough rows
    that the GPU kernels sum each in segments (33333 rows: 5 segments, the
    last one shorter), with class weights, ignored targets and smoothing,
    against the float64 reference of each item."""
    out = []
    r = rng_for("cross_entropy_segmented_items")
    b, n, c = 3, 33333, 5
    x = (r.standard_normal((b, n, c)) * 2).astype(np.float32)
    t = r.integers(0, c, (b, n)).astype(np.int64)
    t[r.random((b, n)) < 0.1] = -100
    w = (r.random(c) + 0.5).astype(np.float32)
    for red in ("sum", "mean"):
        mlir = func("f", [("x", tt(x)), ("t", tt(t)), ("w", tt(w))],
                    [("%r", "tensor<3xf32>")],
                    ["%%r = sift.cross_entropy %%x, %%t weight(%%w : %s) "
                     "reduction = %s {batch_dims = 1 : i64, label_smoothing "
                     "= 1.000000e-01 : f64} : %s, %s -> tensor<3xf32>"
                     % (tt(w), red, tt(x), tt(t))])
        exp = np.array([ops.cross_entropy(x[i], t[i], w, red, -100, 0.1)
                        for i in range(b)], np.float32)
        out.append(Case("cross_entropy", "segmented_items_%s" % red, mlir,
                        [x, t, w], expect=[exp], tol=(1e-5, 1e-5)))
    return out


def cross_entropy_million_rows_cases():
    """mean/sum over 10^6 f32 rows against a float64 NumPy reference: the
    error must be near NumPy's own float32 result (its pairwise sum of the
    float32 losses), not that of a sequential float32 sum (some 3000x
    larger here)."""
    out = []
    r = rng_for("cross_entropy_million_rows")
    n, c = 1000000, 4
    x = (r.standard_normal((n, c)) * 2).astype(np.float32)
    t = r.integers(0, c, n).astype(np.int64)
    x64 = x.astype(np.float64)
    m = x64.max(axis=1)
    lse = m + np.log(np.exp(x64 - m[:, None]).sum(axis=1))
    loss64 = lse - x64[np.arange(n), t]
    loss32 = loss64.astype(np.float32)
    for red in ("mean", "sum"):
        want = loss64.mean() if red == "mean" else loss64.sum()
        numpy32 = float(loss32.mean(dtype=np.float32) if red == "mean"
                        else loss32.sum(dtype=np.float32))
        bound = max(2 * abs(numpy32 - want),
                    4 * float(np.spacing(np.float32(want))))
        mlir = func("f", [("x", tt(x)), ("t", tt(t))], [("%r", "tensor<f32>")],
                    ["%%r = sift.cross_entropy %%x, %%t reduction = %s : %s, "
                     "%s -> tensor<f32>" % (red, tt(x), tt(t))])

        def check(res, want=want, bound=bound, numpy32=numpy32):
            got = float(np.asarray(res[0]))
            if abs(got - want) <= bound:
                return []
            return ["%r is %.3g from the float64 reference %r (NumPy float32: "
                    "%.3g; allowed %.3g)" % (got, abs(got - want), want,
                                             abs(numpy32 - want), bound)]
        out.append(Case("cross_entropy", "million_rows_%s" % red, mlir,
                        [x, t], check=check))
    return out


# ----------------------------------------------------------------------------
# --sift-staticize: dynamic vs static vs NumPy
# ----------------------------------------------------------------------------

def result_types(mlir, entry):
    """The result types of @entry in the source text."""
    m = re.search(r"func\.func @%s\((.*?)\)\s*->\s*" % re.escape(entry), mlir,
                  re.S)
    rest = mlir[m.end():]
    if rest.startswith("("):
        depth, i = 0, 0
        for i, ch in enumerate(rest):
            depth += ch in "(<[" and 1 or 0
            depth -= ch in ")>]" and 1 or 0
            if depth == 0:
                break
        text = rest[1:i]
    else:
        text = re.match(r"[^{]*", rest).group(0)
    parts, depth, cur = [], 0, ""
    for ch in text:
        if ch == "," and depth == 0:
            parts.append(cur.strip())
            cur = ""
            continue
        depth += (ch in "<([") - (ch in ">)]")
        cur += ch
    parts.append(cur.strip())
    return parts


class StaticizeCase:
    """Runs `mlir` as written and after --sift-staticize on the same inputs;
    each dynamic result's first `count` rows in the static program must equal
    the dynamic result, and both must match `reference` (a list of arrays)."""

    def __init__(self, name, mlir, entry, inputs, args, reference, tol):
        self.op = "staticize"
        self.name = "staticize/" + name
        self.mlir = mlir
        self.entry = entry
        self.inputs = inputs
        self.args = args
        self.reference = reference
        self.tol = tol

    def run(self, tools):
        key = self.name.replace("/", "__")
        types = result_types(self.mlir, self.entry)
        errors = []
        skips = []

        def attempt(fn, what):
            try:
                return fn()
            except HostCodeSkip as e:
                # A static program is what the GPU pipeline is for: host
                # code left in it is a failure (a dynamic one's, a skip).
                if what == "static program" and not re.search(
                        KNOWN_HOST_CODE["regex"], self.name):
                    errors.append("%s: %s" % (what, e))
                else:
                    skips.append("%s: %s" % (what, e))
            except Skip as e:
                skips.append("%s: %s" % (what, e))
            except Fail as e:
                errors.append("%s: %s" % (what, e))
            return None

        # Both programs run even when one of them fails, so that a failure
        # says which side (dynamic lowering, staticize, static lowering) broke.
        dyn = attempt(lambda: tools.must_run(key + "__dynamic", self.mlir,
                                             self.entry, self.inputs,
                                             self.args), "dynamic program")
        if dyn is not None:
            if len(dyn) != len(types):
                errors.append("the dynamic program gave %d results, its "
                              "signature has %d" % (len(dyn), len(types)))
                dyn = None
            else:
                for i, (g, w) in enumerate(zip(dyn, self.reference)):
                    errors += compare(g, w, "dynamic result %d vs NumPy" % i,
                                      *self.tol)
        static = attempt(lambda: tools.staticize(key, self.mlir),
                         "--sift-staticize")
        st = None
        if static is not None:
            # The printed static program has lost the argument names: pass
            # scalar arguments by position, taken from the source.
            positional = {str(arg_position(self.mlir, self.entry, k)): v
                          for k, v in (self.args or {}).items()}
            st = attempt(lambda: tools.must_run(key + "__static", static,
                                                self.entry, self.inputs,
                                                positional), "static program")
        if st is not None:
            want = sum(2 if "?" in t else 1 for t in types)
            if len(st) != want:
                errors.append("the static program gave %d results, expected "
                              "%d (the ABI: padded tensor + count per dynamic "
                              "result)" % (len(st), want))
                st = None
        if st is not None:
            j = 0
            for i, t in enumerate(types):
                if "?" in t:
                    padded, count = st[j], st[j + 1]
                    j += 2
                    if count.shape != () or count.dtype != np.int64:
                        errors.append("result %d: count is %s %s, expected a "
                                      "rank-0 i64" % (i, count.dtype,
                                                      count.shape))
                        continue
                    # The data-dependent dimension: the `?` of the type
                    # (a later one for x[:, mask], sift.bounded_dims).
                    d = t[len("tensor<"):].split("x").index("?")
                    n = int(count)
                    if not 0 <= n <= padded.shape[d]:
                        errors.append("result %d: count %d outside [0, %d]"
                                      % (i, n, padded.shape[d]))
                        continue
                    got = padded[(slice(None),) * d + (slice(0, n),)]
                else:
                    got = st[j]
                    j += 1
                if dyn is not None:
                    errors += compare(got, dyn[i], "static result %d (first "
                                      "count rows) vs dynamic" % i, *self.tol)
                errors += compare(got, self.reference[i], "static result %d "
                                  "vs NumPy" % i, *self.tol)
        if errors:
            raise Fail("\n".join(errors + ["(skipped part) " + s
                                            for s in skips]))
        if skips and st is None:
            raise Skip("; ".join(skips))
        if skips:
            # The static program ran and matched NumPy: a pass, counted
            # apart (on the GPU, the dynamic program may be host code).
            with PARTIAL_LOCK:
                PARTIAL.append("%s (%s)" % (self.name, "; ".join(skips)))


def read_example(rel):
    with open(os.path.join(ROOT, "examples", rel)) as f:
        return f.read()


def sampler_reference(inp, labels, seed, k):
    half = k // 2
    pos = ops.nonzero(labels == 1)
    neg = ops.nonzero(labels == 0)
    lp, ln = len(pos), len(neg)
    np0, nn0 = min(lp, half), min(ln, half)
    neg_short, pos_short = nn0 < half, np0 < half
    num_pos1 = k - nn0 if neg_short else np0
    num_neg1 = k - np0 if pos_short else nn0
    num_neg2 = nn0 if neg_short else num_neg1
    num_pos, num_neg = min(num_pos1, lp), min(num_neg2, ln)
    pos_idx = ops.gather(pos, ops.randperm(lp, seed, 0)[:num_pos])
    neg_idx = ops.gather(neg, ops.randperm(ln, seed, 1)[:num_neg])
    both = np.concatenate([pos_idx, neg_idx])
    idx = ops.gather(both, ops.randperm(num_pos + num_neg, seed, 2))
    return [ops.gather(inp, idx), ops.gather(labels, idx)]


def sampler_variant(n, k):
    text = read_example("sampler.mlir")
    text = re.sub(r"(?<!\d)10000(?!\d)", str(n), text)
    text = text.replace("arith.constant 500 : index",
                        "arith.constant %d : index" % (k // 2))
    text = text.replace("arith.constant 1000 : index",
                        "arith.constant %d : index" % k)
    return text


def staticize_cases():
    out = []
    r = rng_for("staticize")
    # The sampler as written (N = 10000, K = 1000), then small-N variants.
    sampler_cfgs = [
        ("sampler", 10000, 1000, None),
        ("sampler_random_n200_k32", 200, 32, None),
        ("sampler_empty_mask", 50, 16, np.full(50, -1, np.int64)),
        ("sampler_all_positive", 50, 16, np.ones(50, np.int64)),
        ("sampler_all_negative", 50, 16, np.zeros(50, np.int64)),
        ("sampler_pos_short", 60, 16,
         np.array([1] * 3 + [0] * 40 + [-1] * 17, np.int64)),
        ("sampler_neg_short", 60, 16,
         np.array([1] * 40 + [0] * 3 + [-1] * 17, np.int64)),
        ("sampler_both_short", 60, 16,
         np.array([1] * 3 + [0] * 4 + [-1] * 53, np.int64)),
        ("sampler_n1_pos", 1, 2, np.array([1], np.int64)),
        ("sampler_n1_neg", 1, 2, np.array([0], np.int64)),
        ("sampler_n1_ignored", 1, 2, np.array([-1], np.int64)),
    ]
    for name, n, k, labels in sampler_cfgs:
        text = read_example("sampler.mlir") if name == "sampler" else \
            sampler_variant(n, k)
        if labels is None:
            u = r.random(n)
            labels = np.where(u < 0.1, 1, np.where(u < 0.8, 0, -1)).astype(
                np.int64)
        inp = r.standard_normal((n, 16)).astype(np.float32)
        seed = 1234
        out.append(StaticizeCase(name, text, "sampler", [inp, labels],
                                 {"seed": seed},
                                 sampler_reference(inp, labels, seed, k),
                                 (0.0, 0.0)))

    # Labels of sampled items: three classes (the constant on either side
    # of the compare), each a slice of a randperm of its own length,
    # concatenated and shuffled; the labels gathered through all of it are
    # a select on the shuffle's positions, a class's own labels a splat,
    # and so is a float selection of 0.5 (GatherOfSelection.cpp). The
    # scores of the sampled items stay a gather.
    sampled_prog = """
func.func @sampled_labels(%labels: tensor<NNxi64>, %scores: tensor<NNxf32>, %seed: i64)
    -> (tensor<?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %k = arith.constant KK : index
  %o1 = arith.constant 1 : i64
  %o2 = arith.constant 2 : i64
  %o3 = arith.constant 3 : i64
  %zero = arith.constant dense<0> : tensor<NNxi64>
  %one = arith.constant dense<1> : tensor<NNxi64>
  %two = arith.constant dense<2> : tensor<NNxi64>
  %half = arith.constant dense<0.5> : tensor<NNxf32>
  %ma = arith.cmpi eq, %labels, %one : tensor<NNxi64>
  %mb = arith.cmpi eq, %two, %labels : tensor<NNxi64>
  %mc = arith.cmpi eq, %labels, %zero : tensor<NNxi64>
  %ia = sift.nonzero %ma : tensor<NNxi1> -> tensor<?xi64>
  %ib = sift.nonzero %mb : tensor<NNxi1> -> tensor<?xi64>
  %ic = sift.nonzero %mc : tensor<NNxi1> -> tensor<?xi64>
  %na = tensor.dim %ia, %c0 : tensor<?xi64>
  %nb = tensor.dim %ib, %c0 : tensor<?xi64>
  %nc = tensor.dim %ic, %c0 : tensor<?xi64>
  %ka = arith.minui %na, %k : index
  %kb = arith.minui %nb, %k : index
  %kc = arith.minui %nc, %k : index
  %pa = sift.randperm %na, %seed : tensor<?xi64>
  %pb = sift.randperm %nb, %seed offset %o1 : tensor<?xi64>
  %pc = sift.randperm %nc, %seed offset %o2 : tensor<?xi64>
  %ta = tensor.extract_slice %pa[0] [%ka] [1] : tensor<?xi64> to tensor<?xi64>
  %tb = tensor.extract_slice %pb[0] [%kb] [1] : tensor<?xi64> to tensor<?xi64>
  %tc = tensor.extract_slice %pc[0] [%kc] [1] : tensor<?xi64> to tensor<?xi64>
  %sa = sift.gather %ia[%ta] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %sb = sift.gather %ib[%tb] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %sc = sift.gather %ic[%tc] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %all = tensor.concat dim(0) %sa, %sb, %sc : (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) -> tensor<?xi64>
  %kab = arith.addi %ka, %kb : index
  %total = arith.addi %kab, %kc : index
  %mix = sift.randperm %total, %seed offset %o3 : tensor<?xi64>
  %idx = sift.gather %all[%mix] : tensor<?xi64>, tensor<?xi64> -> tensor<?xi64>
  %lab = sift.gather %labels[%idx] : tensor<NNxi64>, tensor<?xi64> -> tensor<?xi64>
  %lab_b = sift.gather %labels[%sb] : tensor<NNxi64>, tensor<?xi64> -> tensor<?xi64>
  %sco = sift.gather %scores[%idx] : tensor<NNxf32>, tensor<?xi64> -> tensor<?xf32>
  %mh = arith.cmpf oeq, %scores, %half : tensor<NNxf32>
  %ih = sift.nonzero %mh : tensor<NNxi1> -> tensor<?xi64>
  %sh = sift.gather %scores[%ih] : tensor<NNxf32>, tensor<?xi64> -> tensor<?xf32>
  return %lab, %lab_b, %sco, %sh : tensor<?xi64>, tensor<?xi64>, tensor<?xf32>, tensor<?xf32>
}
"""

    def sampled_ref(labels, scores, seed, k):
        sel = []
        for off, c in enumerate((1, 2, 0)):
            i = ops.nonzero(labels == c)
            sel.append(ops.gather(i, ops.randperm(len(i), seed, off)[
                :min(len(i), k)]))
        both = np.concatenate(sel)
        idx = ops.gather(both, ops.randperm(len(both), seed, 3))
        return [ops.gather(labels, idx), ops.gather(labels, sel[1]),
                ops.gather(scores, idx),
                ops.gather(scores, ops.nonzero(scores == np.float32(0.5)))]
    for name, n, k, labels in (
            ("random", 300, 40, None),
            ("one_class_short", 60, 16,
             np.array([1] * 40 + [0] * 3 + [-1] * 17, np.int64)),
            ("no_class_2", 50, 8, np.array([0, 1] * 25, np.int64)),
            ("none_selected", 20, 4, np.full(20, -1, np.int64)),
            ("n1", 1, 2, np.array([2], np.int64))):
        if labels is None:
            labels = r.integers(-1, 3, n).astype(np.int64)
        scores = np.where(r.random(n) < 0.3, 0.5,
                          r.random(n)).astype(np.float32)
        out.append(StaticizeCase(
            "sampled_labels_" + name,
            sampled_prog.replace("NN", str(n)).replace("KK", str(k)),
            "sampled_labels", [labels, scores], {"seed": 77},
            sampled_ref(labels, scores, 77, k), (0.0, 0.0)))

    # Small programs of one rewrite each (nonzero -> compact; a dynamic
    # randperm -> randperm_prefix, or with `sort` random_bits + argsort), so
    # that the plumbing is checked even while the examples' ops do not all
    # lower yet.
    mask_prog = (
        "func.func @nz(%m: tensor<N" "xi1>) -> tensor<?xi64> {\n"
        "  %r = sift.nonzero %m : tensor<N" "xi1> -> tensor<?xi64>\n"
        "  return %r : tensor<?xi64>\n}\n")
    for name, m in (("random", r.random(64) < 0.3),
                     ("empty_mask", np.zeros(64, np.bool_)),
                     ("all_true", np.ones(64, np.bool_)),
                     ("n1", np.array([True]))):
        out.append(StaticizeCase("nonzero_" + name,
                                 mask_prog.replace("N", str(m.size)), "nz",
                                 [m], {}, [ops.nonzero(m)], (0.0, 0.0)))
    perm_prog = (
        "func.func @perm(%m: tensor<N" "xi1>, %seed: i64) -> tensor<?xi64> {\n"
        "  %c = sift.count %m : tensor<N" "xi1> -> tensor<i64>\n"
        "  %ci = tensor.extract %c[] : tensor<i64>\n"
        "  %n = arith.index_cast %ci : i64 to index\n"
        "  %p = sift.randperm %n, %seed offset %ci : tensor<?xi64>\n"
        "  return %p : tensor<?xi64>\n}\n")
    for name, m in (("random", r.random(100) < 0.4),
                     ("empty_mask", np.zeros(100, np.bool_)),
                     ("n1", np.array([True]))):
        c = int(np.count_nonzero(m))
        out.append(StaticizeCase("randperm_of_count_" + name,
                                 perm_prog.replace("N", str(m.size)), "perm",
                                 [m], {"seed": 31},
                                 [ops.randperm(c, 31, c)], (0.0, 0.0)))
        out.append(StaticizeCase(
            "randperm_sort_of_count_" + name,
            perm_prog.replace("N", str(m.size)).replace(
                " : tensor<?xi64>\n  return", " sort : tensor<?xi64>\n  return"),
            "perm", [m], {"seed": 31}, [ops.randperm_sort(c, 31, c)],
            (0.0, 0.0)))

    # det_postprocess_topn: N boxes, threshold 0.05, top min(n, 100).
    def post_ref(boxes, scores):
        keep = scores > np.float32(0.05)
        b = ops.masked_select(boxes, keep)
        s = ops.masked_select(scores, keep)
        order = ops.argsort(s, descending=True)
        top = order[:min(len(s), 100)]
        return [ops.gather(b, top), ops.gather(s, top)]
    for name, n, scores in (
            ("random", 2000, None), ("none_kept", 2000, np.full(2000, 0.01)),
            ("all_kept", 2000, r.random(2000) + 0.1),
            ("ties", 300, np.round(r.random(300), 1)),
            ("n1", 1, np.array([0.5])), ("n1_none", 1, np.array([0.0]))):
        text = re.sub(r"(?<!\d)2000(?!\d)", str(n), read_example(
            "patterns/det_postprocess_topn.mlir"))
        scores = (r.random(n) if scores is None else scores).astype(np.float32)
        boxes = r.standard_normal((n, 4)).astype(np.float32)
        out.append(StaticizeCase("det_postprocess_topn_" + name, text,
                                 "postprocess", [boxes, scores], {},
                                 post_ref(boxes, scores), (0.0, 0.0)))

    # recsys_dedupe: unique ids, embedding gather, counts, inverse.
    def dedupe_ref(ids, table):
        u, inv, cnt = ops.unique(ids, True, True)
        return [ops.gather(table, u), cnt, inv]
    for name, n, ids in (
            ("random", 256, None), ("all_same", 256, np.full(256, 17)),
            ("out_of_range_ids", 256, None),
            ("all_distinct", 256, np.arange(256) * 3),
            ("n1", 1, np.array([5]))):
        text = re.sub(r"(?<!\d)256(?!\d)", str(n), read_example(
            "patterns/recsys_dedupe.mlir"))
        if ids is None:
            ids = r.integers(0, 1000 if name == "random" else 1100, n)
        ids = ids.astype(np.int64)
        table = r.standard_normal((1000, 8)).astype(np.float32)
        out.append(StaticizeCase("recsys_dedupe_" + name, text, "dedupe",
                                 [ids, table], {}, dedupe_ref(ids, table),
                                 (0.0, 0.0)))

    # rpn_positive_l1: mean |pred - tgt| over positives (NaN when none).
    def l1_ref(iou, pred, tgt):
        pos = ops.nonzero(iou > np.float32(0.7))
        d = np.abs(ops.gather(pred, pos).astype(np.float64) -
                   ops.gather(tgt, pos))
        with np.errstate(invalid="ignore"):
            return [np.array(np.sum(d) / (4.0 * len(pos)), np.float32)]
    for name, n, iou in (("random", 512, None),
                         ("none_positive", 512, np.zeros(512)),
                         ("all_positive", 512, np.ones(512)),
                         ("n1", 1, np.array([0.9]))):
        text = re.sub(r"(?<!\d)512(?!\d)", str(n), read_example(
            "patterns/rpn_positive_l1.mlir"))
        iou = (r.random(n) if iou is None else iou).astype(np.float32)
        pred = r.standard_normal((n, 4)).astype(np.float32)
        tgt = r.standard_normal((n, 4)).astype(np.float32)
        out.append(StaticizeCase("rpn_positive_l1_" + name, text,
                                 "positive_l1", [iou, pred, tgt], {},
                                 l1_ref(iou, pred, tgt), (1e-5, 1e-5)))

    # seg_valid_pixels_loss: cross-entropy over the labels != 255.
    def seg_ref(logits, labels):
        valid = labels != 255
        return [ops.cross_entropy(ops.masked_select(logits, valid),
                                  ops.masked_select(labels, valid), None,
                                  "mean")]
    for name, n, void in (("random", 4096, 0.2), ("all_void", 4096, 1.0),
                          ("none_void", 4096, 0.0), ("n1", 1, 0.0)):
        text = re.sub(r"(?<!\d)4096(?!\d)", str(n), read_example(
            "patterns/seg_valid_pixels_loss.mlir"))
        logits = r.standard_normal((n, 21)).astype(np.float32)
        labels = r.integers(0, 21, n)
        labels[r.random(n) < void] = 255
        if void == 1.0:
            labels[:] = 255
        labels = labels.astype(np.int64)
        out.append(StaticizeCase("seg_valid_pixels_loss_" + name, text,
                                 "valid_pixels_loss", [logits, labels], {},
                                 seg_ref(logits, labels), (1e-4, 1e-5)))

    # ssd_hard_negatives: sum of the top min(3 * P, Q) negative losses.
    def ssd_ref(loss, labels):
        pos = ops.nonzero(labels > 0)
        neg = ops.nonzero(labels == 0)
        k = min(3 * len(pos), len(neg))
        v, _ = ops.sort(ops.gather(loss, neg), descending=True)
        return [np.array(np.sum(v[:k].astype(np.float64)), np.float32)]
    for name, n, labels in (
            ("random", 1000, None), ("no_positive", 1000, np.zeros(1000)),
            ("all_positive", 1000, np.ones(1000)),
            ("few_negatives", 1000, np.array([1] * 900 + [0] * 50 +
                                             [-1] * 50)),
            ("n1", 1, np.array([0]))):
        text = re.sub(r"(?<!\d)1000(?!\d)", str(n), read_example(
            "patterns/ssd_hard_negatives.mlir"))
        if labels is None:
            u = r.random(n)
            labels = np.where(u < 0.05, r.integers(1, 5, n),
                              np.where(u < 0.9, 0, -1))
        labels = labels.astype(np.int64)
        loss = r.random(n).astype(np.float32)
        out.append(StaticizeCase("ssd_hard_negatives_" + name, text,
                                 "hard_negatives", [loss, labels], {},
                                 ssd_ref(loss, labels), (1e-5, 1e-5)))

    # class_stats_scatter: per-class count, loss sum and max of the
    # confident detections, and the class written back to their positions.
    def class_stats_ref(scores, labels, loss):
        idx = ops.nonzero(scores > np.float32(0.5))
        cls = ops.gather(labels, idx)
        lo = ops.gather(loss, idx)
        return [ops.scatter(np.zeros(21, np.int64), cls,
                            np.ones(len(cls), np.int64), reduce="add"),
                ops.scatter(np.zeros(21, np.float32), cls, lo, reduce="add"),
                ops.scatter(np.full(21, -INF, np.float32), cls, lo,
                            reduce="max"),
                ops.scatter(np.full(len(scores), -1, np.int64), idx, cls)]
    for name, n, scores in (
            ("random", 512, None), ("none_kept", 512, np.zeros(512)),
            ("all_kept", 512, np.ones(512)), ("n1", 1, np.array([0.9])),
            ("n1_none", 1, np.array([0.1]))):
        text = re.sub(r"(?<!\d)512(?!\d)", str(n), read_example(
            "patterns/class_stats_scatter.mlir"))
        scores = (r.random(n) if scores is None else scores).astype(
            np.float32)
        labels = r.integers(-1, 21, n).astype(np.int64)
        loss = r.random(n).astype(np.float32)
        out.append(StaticizeCase("class_stats_scatter_" + name, text,
                                 "class_stats", [scores, labels, loss], {},
                                 class_stats_ref(scores, labels, loss),
                                 (0.0, 0.0)))

    # flat_bce_valid_anchors: nonzero as [n, 1], squeeze, flatten of the
    # gathered rows, a BCE-with-logits sum.
    def flat_bce_ref(labels, logits, targets):
        idx = ops.nonzero(labels != -2)
        x = ops.gather(logits, idx).reshape(-1).astype(np.float64)
        t = ops.gather(targets, idx).reshape(-1).astype(np.float64)
        loss = np.maximum(x, 0) - x * t + np.log1p(np.exp(-np.abs(x)))
        return [np.array(np.sum(loss), np.float32)]
    for name, n, p_ignored in (("random", 256, 0.3), ("all_ignored", 256, 1.0),
                               ("none_ignored", 256, 0.0), ("n1", 1, 0.0),
                               ("n1_ignored", 1, 1.0)):
        text = re.sub(r"(?<!\d)256(?!\d)", str(n), read_example(
            "patterns/flat_bce_valid_anchors.mlir"))
        labels = np.where(r.random(n) < p_ignored, -2,
                          r.integers(-1, 5, n)).astype(np.int64)
        logits = (3 * r.standard_normal((n, 5))).astype(np.float32)
        targets = (r.random((n, 5)) < 0.2).astype(np.float32)
        out.append(StaticizeCase("flat_bce_valid_anchors_" + name, text,
                                 "flat_bce", [labels, logits, targets], {},
                                 flat_bce_ref(labels, logits, targets),
                                 (1e-5, 1e-5)))

    # balanced_counts_branches: the seed's counts as if/elif on the sizes.
    def balanced_ref(labels, k=32):
        pos = ops.nonzero(labels == 1)
        neg = ops.nonzero(labels == 0)
        lp, ln, half = len(pos), len(neg), k // 2
        if ln < half:
            npos, nneg = min(k - ln, lp), ln
        elif lp < half:
            npos, nneg = lp, min(k - lp, ln)
        else:
            npos = nneg = half
        return [pos[:npos], neg[:nneg]]
    for name, n, labels in (
            ("random", 200, None), ("neg_short", 200,
                                    np.array([1] * 150 + [0] * 5 + [-1] * 45)),
            ("pos_short", 200, np.array([1] * 3 + [0] * 150 + [-1] * 47)),
            ("both_short", 200, np.array([1] * 3 + [0] * 4 + [-1] * 193)),
            ("none", 200, np.full(200, -1)), ("n1", 1, np.array([1]))):
        text = re.sub(r"(?<!\d)200(?!\d)", str(n), read_example(
            "patterns/balanced_counts_branches.mlir"))
        if labels is None:
            labels = r.integers(-1, 2, n)
        labels = labels.astype(np.int64)
        out.append(StaticizeCase("balanced_counts_branches_" + name, text,
                                 "balanced_counts", [labels], {},
                                 balanced_ref(labels), (0.0, 0.0)))

    # budgeted_topn_helper: a helper function (inlined by staticize) and a
    # slice of a length read from the data, bounded by its source.
    def budgeted_ref(boxes, scores, budget):
        top = ops.argsort(scores, descending=True)[:int(budget)]
        return [ops.gather(boxes, top), ops.gather(scores, top)]
    for name, n, budget in (("some", 300, 17), ("none", 300, 0),
                            ("all", 300, 300), ("n1", 1, 1),
                            ("ties", 300, 40)):
        text = re.sub(r"(?<!\d)300(?!\d)", str(n), read_example(
            "patterns/budgeted_topn_helper.mlir"))
        scores = r.random(n).astype(np.float32)
        if name == "ties":
            scores = np.round(scores, 1)
        boxes = r.standard_normal((n, 4)).astype(np.float32)
        budget = np.array(budget, np.int64)
        out.append(StaticizeCase("budgeted_topn_helper_" + name, text,
                                 "budgeted_topn", [boxes, scores, budget], {},
                                 budgeted_ref(boxes, scores, budget),
                                 (0.0, 0.0)))

    # selected_target_logits: a per-row pick (gather, batch_dims = 1) of
    # selected rows.
    def target_logits_ref(logits, labels):
        valid = labels >= 0
        l, y = logits[valid], labels[valid]
        picked = l[np.arange(len(y)), y]
        mean = (np.float32(picked.sum(dtype=np.float64) / len(y)) if len(y)
                else np.float32(np.nan))
        return [picked, np.array(mean, np.float32)]
    for name, n, labels in (("random", 256, None),
                            ("none_valid", 256, np.full(256, -1)),
                            ("all_valid", 256, None), ("n1", 1, None)):
        text = re.sub(r"(?<!\d)256(?!\d)", str(n), read_example(
            "patterns/selected_target_logits.mlir"))
        if labels is None:
            labels = r.integers(0 if name == "all_valid" else -1, 5, n)
        labels = labels.astype(np.int64)
        logits = r.standard_normal((n, 5)).astype(np.float32)
        out.append(StaticizeCase("selected_target_logits_" + name, text,
                                 "target_logits", [logits, labels], {},
                                 target_logits_ref(logits, labels),
                                 (1e-5, 1e-6)))

    # scatter with batch_dims = 1 into selected rows (each row adds into
    # its own row; indices outside [0, 4) skip their lane).
    rows_add = """
func.func @rows_add(%d: tensor<Nx4xf32>, %i: tensor<Nx2xi64>, %u: tensor<Nx2xf32>, %m: tensor<Nxi1>) -> tensor<?x4xf32> {
  %ds = sift.masked_select %d, %m : tensor<Nx4xf32>, tensor<Nxi1> -> tensor<?x4xf32>
  %is = sift.masked_select %i, %m : tensor<Nx2xi64>, tensor<Nxi1> -> tensor<?x2xi64>
  %us = sift.masked_select %u, %m : tensor<Nx2xf32>, tensor<Nxi1> -> tensor<?x2xf32>
  %r = sift.scatter %us into %ds[%is] reduce(add) {batch_dims = 1 : i64} : tensor<?x2xf32>, tensor<?x2xi64> into tensor<?x4xf32>
  return %r : tensor<?x4xf32>
}
"""

    def rows_add_ref(d, i, u, m):
        rows, idx, upd = d[m].copy(), i[m], u[m]
        for r in range(len(rows)):
            for k in range(idx.shape[1]):
                if 0 <= idx[r, k] < rows.shape[1]:
                    rows[r, idx[r, k]] += upd[r, k]
        return [rows]
    for name, n, p_keep in (("some", 32, 0.5), ("none", 32, 0.0),
                            ("all", 32, 1.0), ("n1", 1, 1.0)):
        d = r.standard_normal((n, 4)).astype(np.float32)
        i = r.integers(-1, 5, (n, 2)).astype(np.int64)
        u = r.standard_normal((n, 2)).astype(np.float32)
        m = r.random(n) < p_keep
        out.append(StaticizeCase("scatter_rows_batch_dims_" + name,
                                 rows_add.replace("N", str(n)), "rows_add",
                                 [d, i, u, m], {}, rows_add_ref(d, i, u, m),
                                 (1e-6, 1e-6)))

    # A linalg body reading a selection defined outside (x[idx[k]] for the
    # first four k), test/Transforms/Staticize/body-reads.mlir.
    first_four = """
func.func @first_four(%m: tensor<NNxi1>, %x: tensor<NNxf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %zero = arith.constant 0.0 : f32
  %idx = sift.nonzero %m : tensor<NNxi1> -> tensor<?xi64>
  %e = tensor.empty() : tensor<4xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(k) -> (k)>],
                       iterator_types = ["parallel"]}
      outs(%e : tensor<4xf32>) {
    ^bb0(%o: f32):
      %k = linalg.index 0 : index
      %n = tensor.dim %idx, %c0 : tensor<?xi64>
      %in = arith.cmpi slt, %k, %n : index
      %r = scf.if %in -> (f32) {
        %j = tensor.extract %idx[%k] : tensor<?xi64>
        %ji = arith.index_cast %j : i64 to index
        %v = tensor.extract %x[%ji] : tensor<NNxf32>
        scf.yield %v : f32
      } else {
        scf.yield %zero : f32
      }
      linalg.yield %r : f32
  } -> tensor<4xf32>
  return %r : tensor<4xf32>
}
"""

    def first_four_ref(m, x):
        idx = np.nonzero(m)[0]
        return [np.array([x[idx[k]] if k < len(idx) else 0.0
                          for k in range(4)], np.float32)]
    for name, n, p_keep in (("some", 16, 0.4), ("none", 16, 0.0),
                            ("few", 16, 0.1), ("all", 16, 1.0),
                            ("n2", 2, 1.0)):
        m = r.random(n) < p_keep
        x = r.standard_normal(n).astype(np.float32)
        out.append(StaticizeCase("body_reads_" + name,
                                 first_four.replace("NN", str(n)),
                                 "first_four", [m, x], {},
                                 first_four_ref(m, x), (0.0, 0.0)))

    # nested_selection: masked_select and nonzero of bounded selections.
    def nested_ref(boxes, scores):
        keep1 = scores > np.float32(0.05)
        s1 = ops.masked_select(scores, keep1)
        b1 = ops.masked_select(boxes, keep1)
        keep2 = s1 > np.float32(0.5)
        s2 = ops.masked_select(s1, keep2)
        best, _ = ops.sort(s2, descending=True)
        return [ops.masked_select(b1, keep2), ops.nonzero(keep2),
                best[:min(3, len(s2))]]
    for name, n, scores in (
            ("random", 300, None), ("none_kept", 300, np.full(300, 0.01)),
            ("none_second", 300, np.full(300, 0.3)),
            ("all_kept", 300, np.full(300, 0.9)),
            ("n1", 1, np.array([0.7])), ("n1_none", 1, np.array([0.2]))):
        text = re.sub(r"(?<!\d)300(?!\d)", str(n), read_example(
            "patterns/nested_selection.mlir"))
        scores = (r.random(n) if scores is None else scores).astype(
            np.float32)
        boxes = r.standard_normal((n, 4)).astype(np.float32)
        out.append(StaticizeCase("nested_selection_" + name, text,
                                 "nested_selection", [boxes, scores], {},
                                 nested_ref(boxes, scores), (0.0, 0.0)))

    # fallback_selection: an scf.if whose branches yield selections of
    # different bounds (200 and 10 rows).
    def fallback_ref(boxes, scores):
        strong = scores > np.float32(0.5)
        if strong.any():
            idx = ops.nonzero(strong)
        else:
            idx = ops.nonzero(scores > np.float32(0.05))[:10]
        return [ops.gather(boxes, idx), ops.gather(scores, idx), idx]
    for name, n, scores in (
            ("random", 200, None), ("fallback", 200, None),
            ("fallback_few", 200, np.full(200, 0.01)),
            ("fallback_none", 200, np.zeros(200)),
            ("all_strong", 200, np.full(200, 0.9)),
            ("n1", 1, np.array([0.7])), ("n1_fallback", 1, np.array([0.2]))):
        text = re.sub(r"(?<!\d)200(?!\d)", str(n), read_example(
            "patterns/fallback_selection.mlir"))
        if scores is None:
            scores = r.random(n) * (0.5 if name == "fallback" else 1.0)
        scores = scores.astype(np.float32)
        if name == "fallback_few":
            scores[[3, 50, 120]] = 0.3
        boxes = r.standard_normal((n, 4)).astype(np.float32)
        out.append(StaticizeCase("fallback_selection_" + name, text,
                                 "fallback_selection", [boxes, scores], {},
                                 fallback_ref(boxes, scores), (0.0, 0.0)))

    # cascade_filter: an scf.for carrying selections of selections.
    def cascade_ref(boxes, scores, thresholds):
        keep = scores > np.float32(0.05)
        s, b = ops.masked_select(scores, keep), ops.masked_select(boxes, keep)
        for t in thresholds:
            keep = s > t
            s, b = ops.masked_select(s, keep), ops.masked_select(b, keep)
        return [b, s, np.array(np.sum(s.astype(np.float64)), np.float32)]
    for name, n, thresholds in (
            ("random", 200, [0.2, 0.5, 0.7]), ("none_first", 200,
                                                [1.5, 0.1, 0.2]),
            ("none_last", 200, [0.1, 0.3, 2.0]),
            ("all_kept", 200, [-1.0, -1.0, -1.0]),
            ("decreasing", 200, [0.8, 0.5, 0.1]), ("n1", 1, [0.1, 0.2, 0.3])):
        text = re.sub(r"(?<!\d)200(?!\d)", str(n), read_example(
            "patterns/cascade_filter.mlir"))
        scores = r.random(n).astype(np.float32)
        boxes = r.standard_normal((n, 4)).astype(np.float32)
        thresholds = np.array(thresholds, np.float32)
        out.append(StaticizeCase("cascade_filter_" + name, text,
                                 "cascade_filter",
                                 [boxes, scores, thresholds], {},
                                 cascade_ref(boxes, scores, thresholds),
                                 (1e-5, 1e-6)))

    # mode_selection: an scf.index_switch whose cases yield selections.
    def mode_ref(scores, labels, mode):
        m = [labels > 0, labels == 0][mode] if mode < 2 else labels != -1
        s = scores[m]
        return [s, np.array(s.sum(dtype=np.float64), np.float32)]
    labels = r.choice([-1, 0, 1], 128, p=[0.2, 0.5, 0.3]).astype(np.int64)
    scores = r.random(128).astype(np.float32)
    for mode in (0, 1, 2, 7):
        out.append(StaticizeCase("mode_selection_%d" % mode,
                                 read_example("patterns/mode_selection.mlir"),
                                 "mode_selection", [scores, labels],
                                 {"mode": mode},
                                 mode_ref(scores, labels, mode), (1e-5, 1e-5)))

    # valid_fg_presence: unique (with counts) of a selected boolean tensor.
    def fg_ref(labels):
        v, c = np.unique(labels[labels != -1] > 0, return_counts=True)
        return [v, c.astype(np.int64)]
    for name, probs in (("mixed", [0.3, 0.5, 0.2]), ("all_ignored", [1, 0, 0]),
                        ("only_fg", [0.5, 0, 0.5]), ("only_bg", [0, 1, 0])):
        labels = r.choice([-1, 0, 1], 256, p=probs).astype(np.int64)
        out.append(StaticizeCase("valid_fg_presence_" + name,
                                 read_example("patterns/valid_fg_presence.mlir"),
                                 "valid_fg_presence", [labels], {},
                                 fg_ref(labels), (0.0, 0.0)))

    # kept_box_fields: a slice of the trailing dimension of a selection
    # (kept[:, :2]) and rank-reducing slices of it (kept[0], kept[0, 2]).
    def kept_ref(boxes, scores):
        kept = boxes[scores > np.float32(0.5)]
        return [kept[:, :2], kept[0], np.array(kept[0, 2], np.float32)]
    for name, p_keep in (("some", 0.4), ("one", 0.0), ("all", 1.0)):
        boxes = r.standard_normal((64, 4)).astype(np.float32)
        scores = np.where(r.random(64) < p_keep, 0.75, 0.25).astype(
            np.float32)
        scores[r.integers(0, 64)] = 0.9  # kept[0] needs a kept box
        out.append(StaticizeCase("kept_box_fields_" + name,
                                 read_example("patterns/kept_box_fields.mlir"),
                                 "kept_box_fields", [boxes, scores], {},
                                 kept_ref(boxes, scores), (0.0, 0.0)))

    # flat_triples: .view(-1, 3) of a selection padded to 100 rows (3 does
    # not divide the bound).
    def triples_ref(flat):
        t = flat[flat != -1].reshape(-1, 3)
        return [t, t.max(axis=1) if len(t) else np.zeros(0, np.int64)]
    for name, k in (("some", 20), ("none", 0), ("one", 1), ("full", 33)):
        flat = np.full(100, -1, np.int64)
        flat[:3 * k] = r.integers(0, 50, 3 * k)
        if name == "some":  # the valid ids need not lead
            flat = np.concatenate([flat[30:], flat[:30]])
        out.append(StaticizeCase("flat_triples_" + name,
                                 read_example("patterns/flat_triples.mlir"),
                                 "flat_triples", [flat], {},
                                 triples_ref(flat), (0.0, 0.0)))

    # multilabel_counts: sift.count along the rows of a selection.
    def multilabel_ref(logits, labels):
        x = logits[labels != -1]
        probs = (1.0 / (1.0 + np.exp(-x))).astype(np.float32)
        per = (probs > np.float32(0.5)).sum(axis=1).astype(np.int64)
        return [per, np.array((per > 0).sum(), np.int64)]
    for name, p_valid in (("random", 0.6), ("none_valid", 0.0),
                          ("all_valid", 1.0)):
        labels = np.where(r.random(256) < p_valid, r.integers(0, 5, 256),
                          -1).astype(np.int64)
        # Logits away from 0, where the sigmoid's rounding could decide.
        logits = (r.choice([-1, 1], (256, 5)) *
                  (0.1 + r.random((256, 5)))).astype(np.float32)
        out.append(StaticizeCase("multilabel_counts_" + name,
                                 read_example("patterns/multilabel_counts.mlir"),
                                 "multilabel_counts", [logits, labels], {},
                                 multilabel_ref(logits, labels), (0.0, 0.0)))

    # A branch on a host flag (kept, with static results) yielding
    # selections of rows, and a loop over range(count) carrying a selection
    # (run to the count's bound, iterations past it guarded).
    on_flag = """
func.func @on_flag(%flag: i1, %x: tensor<NNx2xf32>, %m: tensor<NNxi1>, %m2: tensor<NNxi1>) -> tensor<?x2xf32> {
  %r = scf.if %flag -> tensor<?x2xf32> {
    %s = sift.masked_select %x, %m : tensor<NNx2xf32>, tensor<NNxi1> -> tensor<?x2xf32>
    scf.yield %s : tensor<?x2xf32>
  } else {
    %s = sift.masked_select %x, %m2 : tensor<NNx2xf32>, tensor<NNxi1> -> tensor<?x2xf32>
    scf.yield %s : tensor<?x2xf32>
  }
  return %r : tensor<?x2xf32>
}
"""
    over_count = """
func.func @over_count(%m: tensor<NNxi1>, %x: tensor<NNxi64>) -> tensor<?xi64> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %idx = sift.nonzero %m : tensor<NNxi1> -> tensor<?xi64>
  %v = sift.gather %x[%idx] : tensor<NNxi64>, tensor<?xi64> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%s = %v) -> tensor<?xi64> {
    %e = tensor.extract %x[%k] : tensor<NNxi64>
    %ns = tensor.dim %s, %c0 : tensor<?xi64>
    %es = tensor.splat %e[%ns] : tensor<?xi64>
    %keep = arith.cmpi ne, %s, %es : tensor<?xi64>
    %s2 = sift.masked_select %s, %keep : tensor<?xi64>, tensor<?xi1> -> tensor<?xi64>
    scf.yield %s2 : tensor<?xi64>
  }
  return %r : tensor<?xi64>
}
"""

    def over_count_ref(m, x):
        v = x[m]
        for k in range(int(m.sum())):
            v = v[v != x[k]]
        return [v]
    for name, n, p_keep in (("some", 12, 0.5), ("none", 12, 0.0),
                            ("all", 12, 1.0), ("n1", 1, 1.0)):
        m = r.random(n) < p_keep
        m2 = r.random(n) < 0.5
        x = r.standard_normal((n, 2)).astype(np.float32)
        for flag in (True, False):
            out.append(StaticizeCase(
                "branch_on_flag_%s_%s" % (name, str(flag).lower()),
                on_flag.replace("NN", str(n)), "on_flag", [x, m, m2],
                {"flag": str(flag).lower()}, [x[m] if flag else x[m2]],
                (0.0, 0.0)))
        xi = r.integers(0, 4, n).astype(np.int64)
        out.append(StaticizeCase("loop_over_count_carried_" + name,
                                 over_count.replace("NN", str(n)),
                                 "over_count", [m, xi], {},
                                 over_count_ref(m, xi), (0.0, 0.0)))

    # unique of a selection (with INT64_MAX and NaN keys, which equal the
    # padding's sort key) and of a 2-D selection of rows.
    unique_sel = """
func.func @unique_sel(%x: tensor<NxT>, %m: tensor<Nxi1>) -> (tensor<?xT>, tensor<?xi64>, tensor<?xi64>) {
  %sel = sift.masked_select %x, %m : tensor<NxT>, tensor<Nxi1> -> tensor<?xT>
  %u, %inv, %cnt = sift.unique %sel inverse counts : tensor<?xT> -> tensor<?xT>, tensor<?xi64>, tensor<?xi64>
  return %u, %inv, %cnt : tensor<?xT>, tensor<?xi64>, tensor<?xi64>
}
"""
    unique_rows = """
func.func @unique_rows(%x: tensor<Nx2xi32>, %m: tensor<Nxi1>) -> (tensor<?xi32>, tensor<?x2xi64>) {
  %sel = sift.masked_select %x, %m : tensor<Nx2xi32>, tensor<Nxi1> -> tensor<?x2xi32>
  %u, %inv = sift.unique %sel inverse : tensor<?x2xi32> -> tensor<?xi32>, tensor<?x2xi64>
  return %u, %inv : tensor<?xi32>, tensor<?x2xi64>
}
"""
    big = np.iinfo(np.int64).max
    for name, x, m in (
            ("i64_random", r.integers(0, 9, 40).astype(np.int64),
             r.random(40) < 0.5),
            ("i64_max_keys", np.array([big, 3, big, 1, 3, big], np.int64),
             np.array([1, 1, 0, 1, 1, 1], np.bool_)),
            ("f32_nan", np.array([NAN, 1.0, NAN, 2.0, 1.0, NAN],
                                 np.float32),
             np.array([1, 1, 1, 0, 1, 0], np.bool_)),
            ("i1_random", r.random(40) < 0.5, r.random(40) < 0.5),
            ("i1_all_true", np.ones(12, np.bool_), r.random(12) < 0.5),
            ("i1_none", r.random(12) < 0.5, np.zeros(12, np.bool_)),
            ("none", r.integers(0, 9, 40).astype(np.int64),
             np.zeros(40, np.bool_)),
            ("all", r.integers(0, 9, 40).astype(np.int64),
             np.ones(40, np.bool_))):
        t = ELT[x.dtype]
        text = unique_sel.replace("N", str(len(x))).replace("T", t)
        out.append(StaticizeCase("unique_of_selection_" + name, text,
                                 "unique_sel", [x, m], {},
                                 list(ops.unique(x[m], True, True)),
                                 (0.0, 0.0)))
    # sort, argsort and top-k of a selection: the padding takes the key that
    # ranks last in the op's direction (NaN / the signed maximum / true
    # ascending, -inf / the minimum / false descending), which valid keys
    # may equal; the stable order keeps them first.
    sort_sel = """
func.func @sort_sel(%x: tensor<NxT>, %m: tensor<Nxi1>) -> (tensor<?xT>, tensor<?xi64>, tensor<?xi64>, tensor<KxT>, tensor<Kxi64>) {
  %sel = sift.masked_select %x, %m : tensor<NxT>, tensor<Nxi1> -> tensor<?xT>
  %v, %i = sift.sort %selDESC : tensor<?xT> -> tensor<?xT>, tensor<?xi64>
  %a = sift.argsort %selDESC : tensor<?xT> -> tensor<?xi64>
  %tv, %ti = sift.topk %sel k(K)SMALLEST : tensor<?xT> -> tensor<KxT>, tensor<Kxi64>
  return %v, %i, %a, %tv, %ti : tensor<?xT>, tensor<?xi64>, tensor<?xi64>, tensor<KxT>, tensor<Kxi64>
}
"""
    small = np.iinfo(np.int64).min
    for name, x, m in (
            ("i64_extremes", np.array([big, 3, small, big, 1, small, 3, big],
                                      np.int64),
             np.array([1, 1, 1, 0, 1, 1, 1, 1], np.bool_)),
            ("f32_nan_inf", np.array([NAN, 1.0, -INF, 2.0, NAN, -INF, 1.0,
                                      INF, -0.0, 0.0], np.float32),
             np.array([1, 1, 1, 0, 1, 1, 1, 1, 1, 0], np.bool_)),
            ("i1_random", r.random(40) < 0.5, r.random(40) < 0.7),
            ("i1_all_true", np.ones(12, np.bool_), r.random(12) < 0.8),
            ("i1_all_false", np.zeros(12, np.bool_), r.random(12) < 0.8),
            ("i32_random", r.integers(-5, 5, 50).astype(np.int32),
             r.random(50) < 0.4)):
        t = ELT[x.dtype]
        k = 3
        sel = x[m]
        assert len(sel) >= k
        for desc in (False, True):
            text = (sort_sel.replace("DESC", " descending" if desc else "")
                    .replace("SMALLEST", "" if desc else " smallest")
                    .replace("N", str(len(x))).replace("T", t)
                    .replace("K", str(k)))
            v, i = ops.sort(sel, descending=desc)
            tv, ti = ops.topk(sel, k, smallest=not desc)
            out.append(StaticizeCase(
                "sort_of_selection_%s_%s" % (name, "desc" if desc else "asc"),
                text, "sort_sel", [x, m], {},
                [v, i, ops.argsort(sel, descending=desc), tv, ti],
                (0.0, 0.0)))
    # Float unique of a static input: equal numbers are one group, all NaNs
    # one group, -0.0 and +0.0 one group.
    xf = np.array([2.0, NAN, -0.0, 2.0, 0.0, NAN, 1.5, 2.0], np.float32)
    unique_static = """
func.func @unique_static(%x: tensor<8xf32>) -> (tensor<?xf32>, tensor<8xi64>, tensor<?xi64>) {
  %u, %inv, %cnt = sift.unique %x inverse counts : tensor<8xf32> -> tensor<?xf32>, tensor<8xi64>, tensor<?xi64>
  return %u, %inv, %cnt : tensor<?xf32>, tensor<8xi64>, tensor<?xi64>
}
"""
    out.append(StaticizeCase("unique_f32_static", unique_static,
                             "unique_static", [xf], {},
                             list(ops.unique(xf, True, True)), (0.0, 0.0)))
    for name, m in (("random", r.random(30) < 0.4),
                    ("none", np.zeros(30, np.bool_))):
        x = r.integers(0, 6, (30, 2)).astype(np.int32)
        u, inv = ops.unique(x[m], True, False)
        out.append(StaticizeCase("unique_of_selected_rows_" + name,
                                 unique_rows.replace("N", "30"), "unique_rows",
                                 [x, m], {}, [u, inv], (0.0, 0.0)))

    # Padding rows must contribute nothing, whatever a body computes on them:
    # a reduction whose body transforms the input (sum(exp(x[m]))), a
    # one-hot histogram that matches indices against positions (a padding
    # index would match 0), integer division by selected non-zeros (padding
    # zeros would trap), and a loop over range(len(idx)) reading idx[k].
    sum_exp = """
func.func @sum_exp(%x: tensor<Nxf32>, %m: tensor<Nxi1>) -> tensor<f32> {
  %sel = sift.masked_select %x, %m : tensor<Nxf32>, tensor<Nxi1> -> tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%sel : tensor<?xf32>) outs(%acc : tensor<f32>) {
    ^bb0(%v: f32, %a: f32):
      %e = math.exp %v : f32
      %r = arith.addf %a, %e : f32
      linalg.yield %r : f32
  } -> tensor<f32>
  return %s : tensor<f32>
}
"""
    histogram = """
func.func @histogram(%m: tensor<Nxi1>) -> tensor<Nxi64> {
  %idx = sift.nonzero %m : tensor<Nxi1> -> tensor<?xi64>
  %zero = arith.constant 0 : i64
  %init = tensor.empty() : tensor<Nxi64>
  %acc = linalg.fill ins(%zero : i64) outs(%init : tensor<Nxi64>) -> tensor<Nxi64>
  %h = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i)>, affine_map<(i, j) -> (j)>],
                       iterator_types = ["reduction", "parallel"]}
      ins(%idx : tensor<?xi64>) outs(%acc : tensor<Nxi64>) {
    ^bb0(%v: i64, %a: i64):
      %j = linalg.index 1 : index
      %jj = arith.index_cast %j : index to i64
      %eq = arith.cmpi eq, %v, %jj : i64
      %one = arith.extui %eq : i1 to i64
      %r = arith.addi %a, %one : i64
      linalg.yield %r : i64
  } -> tensor<Nxi64>
  return %h : tensor<Nxi64>
}
"""
    quotients = """
func.func @quotients(%x: tensor<Nxi32>) -> (tensor<?xi32>, tensor<i32>) {
  %zeros = arith.constant dense<0> : tensor<Nxi32>
  %m = arith.cmpi ne, %x, %zeros : tensor<Nxi32>
  %sel = sift.masked_select %x, %m : tensor<Nxi32>, tensor<Nxi1> -> tensor<?xi32>
  %c0 = arith.constant 0 : index
  %n = tensor.dim %sel, %c0 : tensor<?xi32>
  %c1000 = arith.constant 1000 : i32
  %e = tensor.splat %c1000[%n] : tensor<?xi32>
  %q = arith.divsi %e, %sel : tensor<?xi32>
  %zero = arith.constant 0 : i32
  %init = tensor.empty() : tensor<i32>
  %acc = linalg.fill ins(%zero : i32) outs(%init : tensor<i32>) -> tensor<i32>
  %s = linalg.generic {indexing_maps = [affine_map<(i) -> (i)>, affine_map<(i) -> ()>],
                       iterator_types = ["reduction"]}
      ins(%sel : tensor<?xi32>) outs(%acc : tensor<i32>) {
    ^bb0(%v: i32, %a: i32):
      %r = arith.remsi %c1000, %v : i32
      %t = arith.addi %a, %r : i32
      linalg.yield %t : i32
  } -> tensor<i32>
  return %q, %s : tensor<?xi32>, tensor<i32>
}
"""
    loop = """
func.func @mark(%m: tensor<Nxi1>) -> tensor<Nxi8> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %idx = sift.nonzero %m : tensor<Nxi1> -> tensor<?xi64>
  %n = tensor.dim %idx, %c0 : tensor<?xi64>
  %one = arith.constant 1 : i8
  %zeros = arith.constant dense<0> : tensor<Nxi8>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zeros) -> (tensor<Nxi8>) {
    %j = tensor.extract %idx[%k] : tensor<?xi64>
    %jj = arith.index_cast %j : i64 to index
    %next = tensor.insert %one into %acc[%jj] : tensor<Nxi8>
    scf.yield %next : tensor<Nxi8>
  }
  return %r : tensor<Nxi8>
}
"""
    loop_quotients = """
func.func @loop_quotients(%x: tensor<Nxi32>) -> i32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0 : i32
  %c1000 = arith.constant 1000 : i32
  %z = arith.constant dense<0> : tensor<Nxi32>
  %m = arith.cmpi ne, %x, %z : tensor<Nxi32>
  %sel = sift.masked_select %x, %m : tensor<Nxi32>, tensor<Nxi1> -> tensor<?xi32>
  %n = tensor.dim %sel, %c0 : tensor<?xi32>
  %r = scf.for %k = %c0 to %n step %c1 iter_args(%acc = %zero) -> (i32) {
    %v = tensor.extract %sel[%k] : tensor<?xi32>
    %q = arith.divsi %c1000, %v : i32
    %s = arith.addi %acc, %q : i32
    scf.yield %s : i32
  }
  return %r : i32
}
"""
    # x[m][min(3, n - 1)] if n > 0 else -7, and min(n, 4) ones written as
    # branches on the count.
    branches = """
func.func @branches(%x: tensor<Nxf32>, %m: tensor<Nxi1>) -> (f32, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %dflt = arith.constant -7.0 : f32
  %sel = sift.masked_select %x, %m : tensor<Nxf32>, tensor<Nxi1> -> tensor<?xf32>
  %n = tensor.dim %sel, %c0 : tensor<?xf32>
  %pos = arith.cmpi sgt, %n, %c0 : index
  %r = scf.if %pos -> (f32) {
    %last = arith.subi %n, %c1 : index
    %k = arith.minsi %c3, %last : index
    %v = tensor.extract %sel[%k] : tensor<?xf32>
    scf.yield %v : f32
  } else {
    scf.yield %dflt : f32
  }
  %big = arith.cmpi sgt, %n, %c4 : index
  %k4 = scf.if %big -> (index) {
    scf.yield %c4 : index
  } else {
    scf.yield %n : index
  }
  %e = tensor.extract_slice %sel[0] [%k4] [1] : tensor<?xf32> to tensor<?xf32>
  return %r, %e : f32, tensor<?xf32>
}
"""

    def trunc_div(a, b):
        return np.array([int(a / v) for v in b], np.int32)
    for name, n, m in (("random", 64, r.random(64) < 0.4),
                       ("none", 64, np.zeros(64, np.bool_)),
                       ("all", 64, np.ones(64, np.bool_)),
                       ("n1", 1, np.array([True]))):
        x = r.standard_normal(n).astype(np.float32)
        want = np.array(np.sum(np.exp(x[m].astype(np.float64))), np.float32)
        out.append(StaticizeCase("padding_sum_exp_" + name,
                                 sum_exp.replace("N", str(n)), "sum_exp",
                                 [x, m], {}, [want], (1e-5, 1e-6)))
        out.append(StaticizeCase(
            "padding_histogram_" + name, histogram.replace("N", str(n)),
            "histogram", [m], {},
            [np.bincount(np.nonzero(m)[0], minlength=n).astype(np.int64)],
            (0.0, 0.0)))
        out.append(StaticizeCase(
            "padding_loop_" + name, loop.replace("N", str(n)), "mark", [m],
            {}, [m.astype(np.int8)], (0.0, 0.0)))
        sel = x[m]
        out.append(StaticizeCase(
            "padding_branches_" + name, branches.replace("N", str(n)),
            "branches", [x, m], {},
            [np.array(sel[min(3, len(sel) - 1)] if len(sel) else -7.0,
                      np.float32), sel[:min(len(sel), 4)]],
            (0.0, 0.0)))
        x = np.where(m, r.integers(-50, 50, n), 0).astype(np.int32)
        sel = x[x != 0]
        out.append(StaticizeCase(
            "padding_quotients_" + name, quotients.replace("N", str(n)),
            "quotients", [x], {},
            [trunc_div(1000, sel),
             np.array(sum(int(np.fmod(1000, v)) for v in sel), np.int32)],
            (0.0, 0.0)))
        out.append(StaticizeCase(
            "padding_loop_quotients_" + name,
            loop_quotients.replace("N", str(n)), "loop_quotients", [x], {},
            [np.array(int(trunc_div(1000, sel).sum()), np.int32)],
            (0.0, 0.0)))
    out += later_dimension_cases(r)
    return out


def later_dimension_cases(r):
    """Selections along a later dimension, as PyTorch Geometric filters
    edges (`edge_index[:, mask]`): a transpose, the selection, a transpose
    back, and what is computed from the [2, E'] result: a shifted copy, a
    row of it, the self loops appended along dimension 1, a per-edge sum
    over dimension 0, a linalg.generic that reads it transposed, its rows
    stacked along dimension 0 and 1 (unit expansions and a concatenation)
    and a gather of its rows [1, 0, 1]."""
    prog = """
func.func @edges(%ei: tensor<2xEExi64>, %w: tensor<EExf32>, %loops: tensor<2xNNxi64>)
    -> (tensor<2x?xi64>, tensor<?xi64>, tensor<2x?xi64>, tensor<?xi64>, tensor<?x2xi64>, tensor<2x?xi64>, tensor<2x?xi64>, tensor<?x2xi64>, tensor<3x?xi64>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant dense<0.5> : tensor<EExf32>
  %m = arith.cmpf oge, %w, %p : tensor<EExf32>
  %pos = sift.nonzero %m : tensor<EExi1> -> tensor<?xi64>
  %e0 = tensor.empty() : tensor<EEx2xi64>
  %t = linalg.transpose ins(%ei : tensor<2xEExi64>) outs(%e0 : tensor<EEx2xi64>) permutation = [1, 0]
  %rows = sift.gather %t[%pos] : tensor<EEx2xi64>, tensor<?xi64> -> tensor<?x2xi64>
  %n = tensor.dim %rows, %c0 : tensor<?x2xi64>
  %e1 = tensor.empty(%n) : tensor<2x?xi64>
  %sel = linalg.transpose ins(%rows : tensor<?x2xi64>) outs(%e1 : tensor<2x?xi64>) permutation = [1, 0]
  %c1 = arith.constant 1 : index
  %n2 = tensor.dim %sel, %c1 : tensor<2x?xi64>
  %ten = arith.constant 10 : i64
  %s = tensor.splat %ten[%n2] : tensor<2x?xi64>
  %shift = arith.addi %sel, %s : tensor<2x?xi64>
  %col = tensor.extract_slice %shift[1, 0] [1, %n2] [1, 1] : tensor<2x?xi64> to tensor<?xi64>
  %cat = tensor.concat dim(1) %sel, %loops : (tensor<2x?xi64>, tensor<2xNNxi64>) -> tensor<2x?xi64>
  %z = arith.constant 0 : i64
  %e2 = tensor.empty(%n2) : tensor<?xi64>
  %acc = linalg.fill ins(%z : i64) outs(%e2 : tensor<?xi64>) -> tensor<?xi64>
  %sum = linalg.reduce ins(%sel : tensor<2x?xi64>) outs(%acc : tensor<?xi64>) dimensions = [0]
    (%a: i64, %b: i64) {
      %x = arith.addi %a, %b : i64
      linalg.yield %x : i64
    }
  %e3 = tensor.empty(%n2) : tensor<?x2xi64>
  %back = linalg.generic {indexing_maps = [affine_map<(i, j) -> (j, i)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%shift : tensor<2x?xi64>) outs(%e3 : tensor<?x2xi64>) {
  ^bb0(%a: i64, %o: i64):
    %y = arith.muli %a, %a : i64
    linalg.yield %y : i64
  } -> tensor<?x2xi64>
  %e4 = tensor.empty(%n2) : tensor<2x?xi64>
  %neg = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%sel : tensor<2x?xi64>) outs(%e4 : tensor<2x?xi64>) {
  ^bb0(%a: i64, %o: i64):
    %y = arith.subi %z, %a : i64
    linalg.yield %y : i64
  } -> tensor<2x?xi64>
  %r0 = tensor.extract_slice %sel[0, 0] [1, %n2] [1, 1] : tensor<2x?xi64> to tensor<?xi64>
  %r1 = tensor.extract_slice %sel[1, 0] [1, %n2] [1, 1] : tensor<2x?xi64> to tensor<?xi64>
  %u0 = tensor.expand_shape %r0 [[0, 1]] output_shape [1, %n2] : tensor<?xi64> into tensor<1x?xi64>
  %u1 = tensor.expand_shape %r1 [[0, 1]] output_shape [1, %n2] : tensor<?xi64> into tensor<1x?xi64>
  %st = tensor.concat dim(0) %u1, %u0 : (tensor<1x?xi64>, tensor<1x?xi64>) -> tensor<2x?xi64>
  %v0 = tensor.expand_shape %r0 [[0, 1]] output_shape [%n2, 1] : tensor<?xi64> into tensor<?x1xi64>
  %v1 = tensor.expand_shape %r1 [[0, 1]] output_shape [%n2, 1] : tensor<?xi64> into tensor<?x1xi64>
  %st1 = tensor.concat dim(1) %v0, %v1 : (tensor<?x1xi64>, tensor<?x1xi64>) -> tensor<?x2xi64>
  %swap = arith.constant dense<[1, 0, 1]> : tensor<3xi64>
  %sw = sift.gather %shift[%swap] : tensor<2x?xi64>, tensor<3xi64> -> tensor<3x?xi64>
  return %sel, %col, %cat, %sum, %back, %neg, %st, %st1, %sw : tensor<2x?xi64>, tensor<?xi64>, tensor<2x?xi64>, tensor<?xi64>, tensor<?x2xi64>, tensor<2x?xi64>, tensor<2x?xi64>, tensor<?x2xi64>, tensor<3x?xi64>
}
"""
    out = []
    for name, e, keep in [("some", 40, 0.5), ("none", 16, 0.0),
                          ("all", 16, 1.0), ("one", 1, 1.0)]:
        nn = 5
        ei = r.integers(0, nn, (2, e)).astype(np.int64)
        w = np.where(r.random(e) < keep, 0.75, 0.25).astype(np.float32)
        loops = np.stack([np.arange(nn), np.arange(nn)]).astype(np.int64)
        sel = ei[:, w >= 0.5]
        text = prog.replace("EE", str(e)).replace("NN", str(nn))
        out.append(StaticizeCase(
            "later_dimension_" + name, text, "edges", [ei, w, loops], {},
            [sel, sel[1] + 10, np.concatenate([sel, loops], axis=1),
             sel.sum(axis=0), ((sel + 10) ** 2).T, -sel,
             np.stack([sel[1], sel[0]]), np.stack([sel[0], sel[1]], axis=1),
             (sel + 10)[[1, 0, 1]]], (0.0, 0.0)))
    return out


# ----------------------------------------------------------------------------
# Numerics: float sums against a float64 reference at N = 1e6
# ----------------------------------------------------------------------------

def numerics_cases():
    """A sequential f32 sum of 1e6 values is off by about 2e-5 (relative);
    the blocked order of the CPU pipeline must stay within 1e-6, for a plain
    reduction, per-row sums, and a staticized masked mean."""
    out = []
    r = rng_for("numerics")
    n = 1000003
    x = (r.standard_normal(n) + 0.5).astype(np.float32)
    total = """
func.func @f(%x: tensor<?xf32>) -> tensor<f32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%x : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  return %s : tensor<f32>
}
"""
    out.append(Case("numerics", "sum_1e6", total, [x],
                    expect=[np.array(np.sum(x.astype(np.float64)),
                                     np.float32)], tol=(1e-6, 0.0)))
    rows = x[:4 * 250000].reshape(4, 250000)
    row_sums = """
func.func @f(%x: tensor<4x?xf32>) -> tensor<4xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<4xf32>) -> tensor<4xf32>
  %s = linalg.reduce ins(%x : tensor<4x?xf32>) outs(%acc : tensor<4xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  return %s : tensor<4xf32>
}
"""
    out.append(Case("numerics", "row_sums_4x250000", row_sums, [rows],
                    expect=[rows.astype(np.float64).sum(1).astype(
                        np.float32)], tol=(1e-6, 0.0)))
    # Exact reductions (an integer sum from an initial value, per-row
    # integer maxima, a float maximum with and without NaN): on the GPU
    # they take the blocked form of the float sums (lanes, then the lanes
    # combined), which must give the sequential result exactly.
    exact = """
func.func @f(%i: tensor<100003xi64>, %r: tensor<4x5000xi32>, %x: tensor<20011xf32>, %y: tensor<20011xf32>) -> (tensor<i64>, tensor<4xi32>, tensor<f32>, tensor<f32>) {
  %seven = arith.constant 7 : i64
  %e0 = tensor.empty() : tensor<i64>
  %a0 = linalg.fill ins(%seven : i64) outs(%e0 : tensor<i64>) -> tensor<i64>
  %sum = linalg.reduce ins(%i : tensor<100003xi64>) outs(%a0 : tensor<i64>) dimensions = [0]
    (%a: i64, %b: i64) {
      %t = arith.addi %a, %b : i64
      linalg.yield %t : i64
    }
  %lo = arith.constant -2147483648 : i32
  %e1 = tensor.empty() : tensor<4xi32>
  %a1 = linalg.fill ins(%lo : i32) outs(%e1 : tensor<4xi32>) -> tensor<4xi32>
  %rmax = linalg.reduce ins(%r : tensor<4x5000xi32>) outs(%a1 : tensor<4xi32>) dimensions = [1]
    (%a: i32, %b: i32) {
      %t = arith.maxsi %a, %b : i32
      linalg.yield %t : i32
    }
  %ninf = arith.constant 0xFF800000 : f32
  %e2 = tensor.empty() : tensor<f32>
  %a2 = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<f32>) -> tensor<f32>
  %xmax = linalg.reduce ins(%x : tensor<20011xf32>) outs(%a2 : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %t = arith.maximumf %a, %b : f32
      linalg.yield %t : f32
    }
  %ymax = linalg.reduce ins(%y : tensor<20011xf32>) outs(%a2 : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %t = arith.maximumf %a, %b : f32
      linalg.yield %t : f32
    }
  return %sum, %rmax, %xmax, %ymax : tensor<i64>, tensor<4xi32>, tensor<f32>, tensor<f32>
}
"""
    ints = r.integers(-(1 << 40), 1 << 40, 100003).astype(np.int64)
    rowsi = r.integers(-(1 << 31), (1 << 31) - 1, (4, 5000)).astype(np.int32)
    xs = r.standard_normal(20011).astype(np.float32)
    ys = xs.copy()
    ys[12345] = NAN
    out.append(Case("numerics", "exact_reductions", exact,
                    [ints, rowsi, xs, ys],
                    expect=[np.array(ints.sum() + 7, np.int64),
                            rowsi.max(axis=1), np.array(xs.max(), np.float32),
                            np.array(ys.max(), np.float32)]))
    masked_mean = """
func.func @mean(%x: tensor<Nxf32>, %m: tensor<Nxi1>) -> tensor<f32> {
  %sel = sift.masked_select %x, %m : tensor<Nxf32>, tensor<Nxi1> -> tensor<?xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<f32>
  %acc = linalg.fill ins(%zero : f32) outs(%init : tensor<f32>) -> tensor<f32>
  %s = linalg.reduce ins(%sel : tensor<?xf32>) outs(%acc : tensor<f32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %r = arith.addf %a, %b : f32
      linalg.yield %r : f32
    }
  %c0 = arith.constant 0 : index
  %n = tensor.dim %sel, %c0 : tensor<?xf32>
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %v = tensor.extract %s[] : tensor<f32>
  %mean = arith.divf %v, %nf : f32
  %res = tensor.from_elements %mean : tensor<f32>
  return %res : tensor<f32>
}
""".replace("N", str(n))
    m = r.random(n) < 0.7
    out.append(StaticizeCase(
        "masked_mean_1e6", masked_mean, "mean", [x, m], {},
        [np.array(np.mean(x[m].astype(np.float64)), np.float32)],
        (1e-6, 0.0)))
    return out


# ----------------------------------------------------------------------------
# Driver
# ----------------------------------------------------------------------------

GENERATORS = [nonzero_cases, unique_cases, masked_select_cases,
              randperm_cases, randperm_sort_cases, count_cases, compact_cases,
              cumsum_cases, dynamic_row_cases, topk_dynamic_cases,
              sort_cases, topk_cases, topk_valid_cases, topk_limit_cases,
              stack_siblings_cases,
              unsigned_order_cases, gather_cases, scatter_cases,
              scatter_distinct_cases,
              random_cases, sample_balanced_cases, cross_entropy_cases, staticize_cases,
              numerics_cases]


def run_one(case, tools):
    start = time.monotonic()
    try:
        case.run(tools)
        return "pass", "%.1f s" % (time.monotonic() - start)
    except Skip as e:
        return "skip", str(e)
    except Fail as e:
        return "fail", str(e)
    except Exception:  # a bug in the runner or an unreadable result
        return "fail", "runner error:\n" + indent(traceback.format_exc())


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tensor-run", required=True)
    ap.add_argument("--tensor-opt", required=True)
    ap.add_argument("-k", "--filter", default="",
                    help="run only the cases whose name matches this regex")
    ap.add_argument("-j", "--jobs", type=int, default=min(2, os.cpu_count()
                                                          or 1))
    ap.add_argument("--keep", help="keep the programs, inputs and outputs "
                    "in this directory")
    ap.add_argument("--list", action="store_true", help="list the cases")
    ap.add_argument("-v", "--verbose", action="store_true")
    ap.add_argument("--transforms", default="",
                    help="passes tensor-run applies first (--transforms), "
                    "e.g. sift's GPU kernels executed on the CPU: "
                    "convert-sift-to-gpu,sift-gpu-expand-kernels,"
                    "sift-gpu-launch-to-cpu")
    ap.add_argument("--pipeline", default="",
                    help="the pipeline tensor-run compiles with instead of "
                    "the CPU's (--pipeline), e.g. the GPU pipeline's "
                    "kernels and host code executed on the CPU: "
                    "'builtin.module(sift-gpu-pipeline{on-cpu=1})'. "
                    "Without allow-host-code=1, what --sift-verify-gpu "
                    "rejects as host code is a skip, as with --target "
                    "cuda, except in a staticized program (a failure)")
    ap.add_argument("--known-host-code", default=None, metavar="REGEX",
                    help="staticize cases whose static program the GPU "
                    "pipeline is known to leave host code in: skipped "
                    "(listed), not failed")
    ap.add_argument("--target", default="cpu", choices=["cpu", "cuda"],
                    help="tensor-run --target: cuda runs every case on the "
                    "GPU (the default GPU pipeline); a case whose program "
                    "--sift-verify-gpu rejects as host code is skipped with "
                    "the finding")
    a = ap.parse_args()
    TARGET["name"] = a.target
    GPU_STRICT["on"] = ("sift-gpu-pipeline" in a.pipeline and
                        "allow-host-code=1" not in a.pipeline)
    if a.known_host_code:
        KNOWN_HOST_CODE["regex"] = a.known_host_code

    cases = []
    for gen in GENERATORS:
        cases += gen()
    if a.filter:
        cases = [c for c in cases if re.search(a.filter, c.name)]
    names = [c.name for c in cases]
    dup = {n for n in names if names.count(n) > 1}
    assert not dup, "duplicate case names: %s" % sorted(dup)
    if a.list:
        for c in cases:
            print(c.name)
        return 0
    for tool in (a.tensor_run, a.tensor_opt):
        if not os.access(tool, os.X_OK):
            print("conformance: error: %s is not an executable" % tool)
            return 1

    workdir = a.keep or tempfile.mkdtemp(prefix="sift-conformance-")
    os.makedirs(workdir, exist_ok=True)
    tools = Tools(a.tensor_run, a.tensor_opt, workdir, a.verbose,
                  a.transforms, a.pipeline)
    counts = {"pass": 0, "fail": 0, "skip": 0}
    skips_by_op = {}
    with concurrent.futures.ThreadPoolExecutor(max(1, a.jobs)) as pool:
        futures = [pool.submit(run_one, c, tools) for c in cases]
        for case, fut in zip(cases, futures):
            status, msg = fut.result()
            counts[status] += 1
            if status == "pass":
                if a.verbose:
                    print("PASS %s (%s)" % (case.name, msg))
            elif status == "skip":
                print("SKIP %s: skipped: %s" % (case.name, msg))
                skips_by_op.setdefault(case.op, set()).add(msg.split(" (")[0])
            else:
                print("FAIL %s:\n%s" % (case.name, indent(msg, "    ")))
            sys.stdout.flush()
    if not a.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    for op, reasons in sorted(skips_by_op.items()):
        print("skipped %s cases: %s" % (op, "; ".join(sorted(reasons))))
    if PARTIAL:
        print("passed on the static program alone (the dynamic one "
              "skipped): %d staticize cases" % len(PARTIAL))
        if a.verbose:
            for line in sorted(PARTIAL):
                print("  " + line)
    print("conformance: %d passed, %d failed, %d skipped"
          % (counts["pass"], counts["fail"], counts["skip"]))
    return 1 if counts["fail"] else 0


if __name__ == "__main__":
    sys.exit(main())
