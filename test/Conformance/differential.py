#!/usr/bin/env python3
"""Differential tester of --sift-staticize and --sift-batch on random programs.

Each case is a small random program @f written the way users write
data-dependent code: static-shape arguments (data, rows, labels, a mask, a
seed), masks from comparisons, then selections (`sift.nonzero`,
`sift.masked_select`, `sift.compact` + a slice of its count, `sift.unique`,
`sift.randperm` of a computed size), size arithmetic on `index`
(`tensor.dim`, `arith.minsi/maxsi/addi/subi/divsi/select`), slices of
computed length, `tensor.concat`, `sift.gather` by selected indices,
elementwise `arith`/`math` ops and `linalg.generic` elementwise bodies,
reductions over the selected rows (`linalg.generic` with arbitrary bodies:
sum(exp(x)), max, count-like, matches against a label, dot products, row
sums; `linalg.reduce`; means), rows with their columns reversed (a
`linalg.generic` whose map decreases: torch.flip), `sift.count`, `sort/argsort/topk/cumsum` of
selections, `sift.cross_entropy` on selected rows, `tensor.extract` of an
element below the count, `scf.for` loops over range(count) that read the
selection, and `scf.for` loops that carry a selection and filter it again
at each step (a size carried from one iteration to the next). The generator builds the NumPy evaluation of the same program
alongside the MLIR text.

For each program, on several input sets (random, nothing selected,
everything selected, NaN, ties, a single row, ignored targets):

1. the dynamic program runs with tensor-run; its results must equal the
   NumPy evaluation;
2. `tensor-opt --sift-staticize`, then `--sift-verify-static`; the static
   program runs on the same inputs (an scf.for of per-sample calls, the
   @f_rows of check_batch.py); the first `count` rows of each padded result
   must equal the dynamic result and the NumPy one, static results theirs;
3. `--sift-batch="func=f size=B"` with one input set per row: every result
   of @f_batched must equal the per-sample calls bit for bit (check_batch.py's
   machinery).
4. with --gpu-pipeline PIPELINE (e.g. the GPU pipeline with its kernels
   executed on the CPU, `builtin.module(sift-gpu-pipeline{on-cpu=1})`):
   the static @f on the random and the everything-selected sets, and
   @f_batched alone, compiled by that pipeline, must equal the per-sample
   calls (integers exactly, floats within the static-vs-dynamic tolerance:
   kernels sum in another order). What the pipeline refuses as host code
   (--sift-verify-gpu) is counted, not a bug.

Integers, indices and booleans compare exactly; floats within
|a - b| <= 1e-5 + 1e-5 |b| (static vs dynamic: summation order may differ)
and 1e-4 + 1e-4 |b| against NumPy (which sums in float64); NaN matches
only NaN.

Outcomes: `pass`; `refused` (--sift-staticize, or --sift-batch, declined
with a diagnostic: an honest refusal, counted); `skip` (an op without a CPU
lowering); `BUG` (a crash, "LLVM ERROR", invalid IR after a pass, a run-time
failure, or a mismatch). A bug is minimized (results are dropped while the
same failure remains) and written to OUT/<seed>/ with the program, the
inputs, the commands and what differs; the exit status is then 1. Every
failure prints its seed and the command that replays just that case.

    test/Conformance/differential.py --tensor-run build/bin/tensor-run \\
        --tensor-opt build/bin/tensor-opt [--seed S] [--count N] \\
        [--time-budget SECONDS] [-j JOBS] [--out DIR] [--skip REGEX] [-v]
"""

import argparse
import concurrent.futures
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

try:
    import numpy as np
except ImportError:  # pragma: no cover
    print("differential: skipped: numpy is not installed "
          "(scripts/bootstrap.sh installs it)")
    sys.exit(77)

from run_conformance import (GPU_HOST_CODE, SKIP_PATTERNS, Tools,  # noqa: E402
                             compare)
from check_batch import rows_function, same_bits, signature  # noqa: E402
from sift.reference import ops  # noqa: E402

DYN_TOL = (1e-5, 1e-5)     # static vs dynamic (rtol, atol)
REF_TOL = (1e-4, 1e-4)     # either vs NumPy

# ----------------------------------------------------------------------------
# Program representation
# ----------------------------------------------------------------------------

NPT = {"f32": np.float32, "i64": np.int64, "i1": np.bool_, "i8": np.int8}


def filter_steps(x, steps, elt):
    """NumPy's filter_loop: at step k, keep the values above k / 2 (f32) or
    2 k (i64)."""
    for k in range(steps):
        t = np.float32(k * 0.5) if elt == "f32" else np.int64(2 * k)
        x = x[x > t]
    return x


class V:
    """An SSA value: a tensor (shape with None for a data-dependent leading
    dimension) or a scalar (shape None). For a dynamic tensor, `size` names
    its size class (values of one class always have the same number of
    rows), `minrows` is a guaranteed lower bound on the rows, and `index`
    says that its elements are valid row indices of the arguments."""

    def __init__(self, name, shape, elt, size=None, minrows=0, index=False):
        self.name, self.shape, self.elt = name, shape, elt
        self.size, self.minrows, self.index = size, minrows, index

    @property
    def dynamic(self):
        return self.shape is not None and len(self.shape) > 0 and \
            self.shape[0] is None

    @property
    def type(self):
        if self.shape is None:
            return self.elt
        dims = "".join(("?" if d is None else str(d)) + "x"
                       for d in self.shape)
        return "tensor<%s%s>" % (dims, self.elt)

    def __str__(self):
        return self.name


class Stmt:
    def __init__(self, lines, defs, uses, fn, tag):
        self.lines, self.defs, self.uses, self.fn, self.tag = \
            lines, defs, uses, fn, tag


class Program:
    """A function @f built statement by statement, with its NumPy
    evaluation. `results` are V's; render(keep) prints the function with
    only the results at positions `keep` (and the statements they need)."""

    def __init__(self, n, c):
        self.n, self.c = n, c
        self.stmts = []
        self.results = []
        self.counter = 0
        self.consts = {}
        self.args = [V("%x", (n,), "f32"), V("%r", (n, c), "f32"),
                     V("%y", (n,), "i64"), V("%m", (n,), "i1"),
                     V("%seed", None, "i64")]
        self.tags = set()

    def fresh(self, hint="v"):
        self.counter += 1
        return "%%%s%d" % (hint, self.counter)

    def emit(self, lines, defs, uses, fn, tag=None):
        """Appends a statement defining `defs` from `uses` (outer values
        its text reads); fn(env) gives the NumPy values of `defs`."""
        if isinstance(lines, str):
            lines = [lines]
        names = [d.name if isinstance(d, V) else d for d in defs]
        used = [u.name if isinstance(u, V) else u for u in uses]
        self.stmts.append(Stmt(lines, names, used, fn, tag))
        if tag:
            self.tags.add(tag)
        return defs[0] if len(defs) == 1 else defs

    # --- constants ---------------------------------------------------------

    def const(self, value, typ):
        key = (repr(value), typ)
        if key in self.consts:
            return self.consts[key]
        elt = typ
        name = self.fresh("c")
        if typ == "index":
            text = "%s = arith.constant %d : index" % (name, value)
            v = V(name, None, "index")
            val = int(value)
        elif typ.startswith("tensor"):
            raise ValueError(typ)
        else:
            lit = repr(float(value)) if elt == "f32" else str(int(value))
            if elt == "f32" and np.isinf(value):
                lit = "0xFF800000" if value < 0 else "0x7F800000"
            text = "%s = arith.constant %s : %s" % (name, lit, elt)
            v = V(name, None, elt)
            val = NPT[elt](value)
        self.emit(text, [v], [], lambda env, val=val: [val])
        self.consts[key] = v
        return v

    def dense(self, values, elt):
        values = np.asarray(values, dtype=NPT[elt])
        name = self.fresh("d")
        v = V(name, values.shape, elt)
        if elt == "i1":
            lits = ["true" if b else "false" for b in values.tolist()]
        elif elt == "f32":
            lits = [repr(float(a)) for a in values.tolist()]
        else:
            lits = [str(int(a)) for a in values.tolist()]
        if len(set(lits)) == 1:
            body = lits[0]
        else:
            body = "[%s]" % ", ".join(lits)
        self.emit("%s = arith.constant dense<%s> : %s" % (name, body, v.type),
                  [v], [], lambda env, a=values: [a.copy()])
        return v

    def dim(self, v):
        c0 = self.const(0, "index")
        d = V(self.fresh("n"), None, "index")
        self.emit("%s = tensor.dim %s, %s : %s" % (d, v, c0, v.type),
                  [d], [v, c0], lambda env, v=v.name: [len(env[v])])
        return d

    def ibin(self, op, a, b):
        """Binary op on index values."""
        fns = {"minsi": min, "maxsi": max, "addi": lambda p, q: p + q,
               "subi": lambda p, q: p - q,
               "divsi": lambda p, q: int(p / q)}
        d = V(self.fresh("s"), None, "index")
        self.emit("%s = arith.%s %s, %s : index" % (d, op, a, b), [d], [a, b],
                  lambda env, a=a.name, b=b.name, f=fns[op]:
                  [f(env[a], env[b])])
        return d

    def to_i64_tensor(self, s):
        """An index scalar returned as tensor<i64>."""
        i = V(self.fresh("i"), None, "i64")
        t = V(self.fresh("t"), (), "i64")
        self.emit(["%s = arith.index_cast %s : index to i64" % (i, s),
                   "%s = tensor.from_elements %s : tensor<i64>" % (t, i)],
                  [i, t], [s],
                  lambda env, s=s.name: [np.int64(env[s]),
                                         np.array(env[s], dtype=np.int64)])
        return t

    def scalar_tensor(self, s):
        t = V(self.fresh("t"), (), s.elt)
        self.emit("%s = tensor.from_elements %s : %s" % (t, s, t.type), [t],
                  [s], lambda env, s=s.name, e=s.elt:
                  [np.array(env[s], dtype=NPT[e])])
        return t

    # --- rendering ---------------------------------------------------------

    def render(self, keep=None):
        results = (self.results if keep is None
                   else [self.results[i] for i in keep])
        needed = set(r.name for r in results)
        kept = []
        for s in reversed(self.stmts):
            if any(d in needed for d in s.defs):
                kept.append(s)
                needed.update(s.uses)
        kept.reverse()
        params = ", ".join("%s: %s" % (a, a.type) for a in self.args)
        rtypes = ", ".join(r.type for r in results)
        lines = ["func.func @f(%s) -> (%s) {" % (params, rtypes)]
        for s in kept:
            lines += ["  " + l for l in s.lines]
        lines.append("  return %s : %s" % (", ".join(r.name for r in results),
                                           rtypes))
        lines.append("}")
        return "\n".join(lines) + "\n", kept

    def evaluate(self, inputs, keep=None):
        """NumPy results of the program on `inputs` (one per argument)."""
        env = {}
        for a, val in zip(self.args, inputs):
            env[a.name] = val
        _, kept = self.render(keep)
        with np.errstate(all="ignore"):
            for s in kept:
                vals = s.fn(env)
                for d, val in zip(s.defs, vals):
                    env[d] = val
        results = (self.results if keep is None
                   else [self.results[i] for i in keep])
        return [np.asarray(env[r.name], dtype=NPT[r.elt]) for r in results]


# ----------------------------------------------------------------------------
# The generator
# ----------------------------------------------------------------------------

def f32(a):
    return np.asarray(a, dtype=np.float32)


def kind_ok_dot(gen, v, kinds):
    """True when no other value has v's rows (no dot product possible)."""
    return "dot" in kinds and not [
        w for w in gen.dyn if w.size == v.size and w.elt == "f32" and
        w.shape == v.shape]


def slice_rows(env, v, off, size, stride):
    o = env[off.name] if isinstance(off, V) else off
    n = env[size]
    return env[v][o:o + stride * n:stride]


class Generator:
    """Random programs; `skip` is a regex of construct tags not to use."""

    def __init__(self, rng, skip=None):
        self.rng = rng
        self.skip = re.compile(skip) if skip else None

    def allowed(self, tag):
        return not (self.skip and self.skip.search(tag))

    def choose(self, options):
        """options: [(weight, tag, fn)]; picks an allowed one and runs it
        (fn returns None when its preconditions do not hold)."""
        opts = [o for o in options if self.allowed(o[1])]
        for _ in range(8):
            if not opts:
                return None
            w = np.array([o[0] for o in opts], dtype=float)
            i = self.rng.choice(len(opts), p=w / w.sum())
            out = opts[i][2]()
            if out is not None:
                return out
            opts = opts[:i] + opts[i + 1:]
        return None

    def pick(self, seq):
        return seq[self.rng.integers(len(seq))]

    # --- masks -------------------------------------------------------------

    def mask(self):
        p = self.p
        x, y, m = p.args[0], p.args[2], p.args[3]

        def cmpf():
            pred, fn = self.pick([("ogt", np.greater), ("olt", np.less),
                                  ("oge", np.greater_equal),
                                  ("une", np.not_equal)])
            t = p.dense([self.pick([0.0, 0.5, -0.5, 1.0])] * p.n, "f32")
            v = V(p.fresh("mk"), (p.n,), "i1")
            return p.emit("%s = arith.cmpf %s, %s, %s : %s" %
                          (v, pred, x, t, x.type), [v], [x, t],
                          lambda env, t=t.name, fn=fn:
                          [fn(env["%x"], env[t])], "mask-cmpf")

        def cmpi():
            pred, fn = self.pick([("eq", np.equal), ("ne", np.not_equal),
                                  ("sgt", np.greater)])
            t = p.dense([int(self.rng.integers(0, p.c))] * p.n, "i64")
            v = V(p.fresh("mk"), (p.n,), "i1")
            return p.emit("%s = arith.cmpi %s, %s, %s : %s" %
                          (v, pred, y, t, y.type), [v], [y, t],
                          lambda env, t=t.name, fn=fn:
                          [fn(env["%y"], env[t])], "mask-cmpi")

        def combine():
            a = self.mask_simple(cmpf, cmpi)
            op, fn = self.pick([("andi", np.logical_and),
                                ("ori", np.logical_or)])
            v = V(p.fresh("mk"), (p.n,), "i1")
            return p.emit("%s = arith.%s %s, %s : %s" % (v, op, a, m, m.type),
                          [v], [a, m], lambda env, a=a.name, fn=fn:
                          [fn(env[a], env["%m"])], "mask-logic")

        mk = self.choose([(3, "mask-arg", lambda: m), (3, "mask-cmpf", cmpf),
                          (2, "mask-cmpi", cmpi), (1, "mask-logic", combine)])
        mk = mk or m
        mk.minrows = 0
        # Sometimes force the first k lanes on, so that sizes have a lower
        # bound (what topk on a selection needs).
        if self.rng.random() < 0.3 and self.allowed("mask-forced"):
            k = int(self.rng.integers(1, 4))
            lanes = p.dense([True] * k + [False] * (p.n - k), "i1")
            v = V(p.fresh("mk"), (p.n,), "i1")
            p.emit("%s = arith.ori %s, %s : %s" % (v, mk, lanes, m.type),
                   [v], [mk, lanes], lambda env, a=mk.name, b=lanes.name:
                   [np.logical_or(env[a], env[b])], "mask-forced")
            v.minrows = k
            return v
        return mk

    def mask_simple(self, cmpf, cmpi):
        return (cmpf if self.rng.random() < 0.6 else cmpi)()

    # --- sources of data-dependent values ----------------------------------

    def source(self):
        p = self.p
        x, r, y = p.args[0], p.args[1], p.args[2]

        def nonzero():
            mk = self.mask()
            v = V(p.fresh("nz"), (None,), "i64", size=mk.name,
                  minrows=mk.minrows, index=True)
            return p.emit("%s = sift.nonzero %s : %s -> %s" %
                          (v, mk, mk.type, v.type), [v], [mk],
                          lambda env, mk=mk.name:
                          [np.flatnonzero(env[mk]).astype(np.int64)],
                          "nonzero")

        def masked(src, tag):
            mk = self.mask()
            shape = (None,) + src.shape[1:]
            v = V(p.fresh("sel"), shape, src.elt, size=mk.name,
                  minrows=mk.minrows)
            v.how = ("masked", src, mk)
            return p.emit("%s = sift.masked_select %s, %s : %s, %s -> %s" %
                          (v, src, mk, src.type, mk.type, v.type), [v],
                          [src, mk], lambda env, s=src.name, mk=mk.name:
                          [env[s][env[mk]]], tag)

        def compact():
            mk = self.mask()
            k = self.pick([p.n, p.n // 2, 3])
            ci = V(p.fresh("ci"), (k,), "i64")
            cn = V(p.fresh("cn"), (), "i64")
            n = V(p.fresh("cnt"), None, "i64")
            ni = V(p.fresh("cnti"), None, "index")
            v = V(p.fresh("cs"), (None,), "i64", size=p.fresh("compact"),
                  minrows=min(mk.minrows, k), index=True)

            def fn(env, mk=mk.name, k=k):
                idx, cnt = ops.compact(env[mk], k)
                c = int(cnt)
                return [idx, np.array(c, dtype=np.int64), np.int64(c), c,
                        idx[:c]]
            return p.emit(["%s, %s = sift.compact %s : %s -> %s, %s" %
                           (ci, cn, mk, mk.type, ci.type, cn.type),
                           "%s = tensor.extract %s[] : %s" % (n, cn, cn.type),
                           "%s = arith.index_cast %s : i64 to index" % (ni, n),
                           "%s = tensor.extract_slice %s[0] [%s] [1] : %s to "
                           "%s" % (v, ci, ni, ci.type, v.type)],
                          [ci, cn, n, ni, v], [mk], fn, "compact")[-1]

        def unique():
            v = V(p.fresh("u"), (None,), "i64", size=p.fresh("unique"),
                  minrows=1)
            v.ids = True   # ids to gather rows by (-100 gathers the fill)
            if self.rng.random() < 0.5 or not self.allowed("unique_counts"):
                return p.emit("%s = sift.unique %s : %s -> %s" %
                              (v, y, y.type, v.type), [v], [y],
                              lambda env: [np.unique(env["%y"])], "unique")
            inv = V(p.fresh("inv"), (p.n,), "i64")
            cnt = V(p.fresh("uc"), (None,), "i64", size=v.size, minrows=1)

            def fn(env):
                u, i, c = np.unique(env["%y"], return_inverse=True,
                                    return_counts=True)
                return [u, i.reshape(-1).astype(np.int64),
                        c.astype(np.int64)]
            p.emit("%s, %s, %s = sift.unique %s inverse counts : %s -> %s, "
                   "%s, %s" % (v, inv, cnt, y, y.type, v.type, inv.type,
                               cnt.type), [v, inv, cnt], [y], fn,
                   "unique_counts")
            p.results.append(inv)
            self.dyn.append(cnt)
            return v

        return self.choose([
            (3, "nonzero", nonzero),
            (3, "masked_select", lambda: masked(x, "masked_select")),
            (1, "masked_select", lambda: masked(y, "masked_select")),
            (2, "masked_rows", lambda: masked(r, "masked_rows")),
            (2, "compact", compact),
            (1, "unique", unique)])

    # --- size arithmetic ---------------------------------------------------

    def length(self, v, bound):
        """An index value <= dim(v), and <= bound: (size, minimum)."""
        p = self.p
        d = self.dims.get(v.name) or p.dim(v)
        self.dims[v.name] = d
        kc = p.const(bound, "index")
        form = self.pick(["min", "min-rev", "select", "sub-clamp",
                          "div"])
        if not self.allowed("size-" + form):
            form = "min"
        if form == "min":
            s = p.ibin("minsi", d, kc)
            low = min(v.minrows, bound)
        elif form == "min-rev":
            s = p.ibin("minsi", kc, d)
            low = min(v.minrows, bound)
        elif form == "select":
            lt = V(p.fresh("lt"), None, "i1")
            s = V(p.fresh("s"), None, "index")
            p.emit(["%s = arith.cmpi slt, %s, %s : index" % (lt, d, kc),
                    "%s = arith.select %s, %s, %s : index" % (s, lt, d, kc)],
                   [lt, s], [d, kc], lambda env, d=d.name, k=kc.name:
                   [env[d] < env[k], min(env[d], env[k])], "size-select")
            low = min(v.minrows, bound)
        elif form == "sub-clamp":
            # min(max(K - something, 0), dim): the sampler's "the rest".
            other = self.pick([x for x in self.dyn if x is not v] or [v])
            od = self.dims.get(other.name) or p.dim(other)
            self.dims[other.name] = od
            c0 = p.const(0, "index")
            k2 = p.const(bound + int(self.rng.integers(0, 3)), "index")
            rest = p.ibin("maxsi", p.ibin("subi", k2, od), c0)
            s = p.ibin("minsi", rest, d)
            s = p.ibin("minsi", s, kc)
            low = 0
        else:
            # (dim + 1) / 2, clamped
            c1 = p.const(1, "index")
            c2 = p.const(2, "index")
            h = p.ibin("divsi", p.ibin("addi", d, c1), c2)
            s = p.ibin("minsi", p.ibin("minsi", h, kc), d)
            low = min((v.minrows + 1) // 2, bound, v.minrows)
        self.p.tags.add("size-" + form)
        return s, low

    # --- transforms of dynamic values --------------------------------------

    def transform(self, v):
        p = self.p
        x, r, y = p.args[0], p.args[1], p.args[2]
        one_d = len(v.shape) == 1

        def elementwise():
            if v.elt != "f32":
                return None
            op = self.pick(["exp", "absf", "negf", "addself", "mulc",
                            "relu"])
            e = V(p.fresh("e"), v.shape, "f32", v.size, v.minrows)
            e.how = ("same", v)
            if op in ("exp", "absf", "negf"):
                fn = {"exp": np.exp, "absf": np.abs, "negf": np.negative}[op]
                mop = "arith.negf" if op == "negf" else "math." + op
                return p.emit("%s = %s %s : %s" % (e, mop, v, v.type), [e],
                              [v], lambda env, v=v.name, fn=fn:
                              [f32(fn(env[v]))], "elementwise")
            if op == "addself":
                return p.emit("%s = arith.addf %s, %s : %s" % (e, v, v,
                                                              v.type),
                              [e], [v], lambda env, v=v.name:
                              [f32(env[v] + env[v])], "elementwise")
            if not one_d:
                return None
            # with a splat of a constant of the selection's size
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            c = p.const(self.pick([0.5, 2.0, -1.0]) if op == "mulc" else 0.0,
                        "f32")
            s = V(p.fresh("sp"), v.shape, "f32", v.size)
            p.emit("%s = tensor.splat %s[%s] : %s" % (s, c, d, s.type), [s],
                   [c, d], lambda env, c=c.name, d=d.name:
                   [np.full(env[d], env[c], dtype=np.float32)], "splat")
            if op == "mulc":
                return p.emit("%s = arith.mulf %s, %s : %s" % (e, v, s,
                                                              v.type),
                              [e], [v, s], lambda env, v=v.name, s=s.name:
                              [f32(env[v] * env[s])], "elementwise")
            mk = V(p.fresh("pos"), v.shape, "i1", v.size)
            p.emit("%s = arith.cmpf ogt, %s, %s : %s" % (mk, v, s, v.type),
                   [mk], [v, s], lambda env, v=v.name, s=s.name:
                   [env[v] > env[s]], "elementwise")
            return p.emit("%s = arith.select %s, %s, %s : %s, %s" %
                          (e, mk, v, s, mk.type, v.type), [e], [mk, v, s],
                          lambda env, mk=mk.name, v=v.name, s=s.name:
                          [np.where(env[mk], env[v], env[s])],
                          "elementwise")

        def div_i():
            # 100 / (v * v + 1) on i64: a division (which may trap) whose
            # divisor is never 0 on real rows; elementwise or in a body
            if v.elt != "i64" or not one_d:
                return None
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            e = V(p.fresh("q"), v.shape, "i64", v.size, v.minrows)

            def ref(env, v=v.name):
                a = env[v]
                den = a * a + 1
                q = np.abs(100) // np.abs(den) * np.sign(den)  # truncation
                return q.astype(np.int64)
            if self.rng.random() < 0.5:
                c1, c100 = p.const(1, "i64"), p.const(100, "i64")
                s1 = V(p.fresh("sp"), v.shape, "i64", v.size)
                s100 = V(p.fresh("sp"), v.shape, "i64", v.size)
                sq, den = p.fresh("sq"), p.fresh("den")
                return p.emit(["%s = tensor.splat %s[%s] : %s" % (s1, c1, d,
                                                                 v.type),
                               "%s = tensor.splat %s[%s] : %s" % (s100, c100,
                                                                 d, v.type),
                               "%s = arith.muli %s, %s : %s" % (sq, v, v,
                                                               v.type),
                               "%s = arith.addi %s, %s : %s" % (den, sq, s1,
                                                               v.type),
                               "%s = arith.divsi %s, %s : %s" % (e, s100, den,
                                                                v.type)],
                              [s1, s100, sq, den, e], [v, d, c1, c100],
                              lambda env: [None] * 4 + [ref(env)],
                              "div_i")[-1]
            c1, c100 = p.const(1, "i64"), p.const(100, "i64")
            emp = p.fresh("empty")
            a, o, t1, t2, t3 = (p.fresh("a"), p.fresh("o"), p.fresh("t"),
                                p.fresh("t"), p.fresh("t"))
            lines = ["%s = tensor.empty(%s) : %s" % (emp, d, v.type),
                     "%s = linalg.generic {indexing_maps = [affine_map<(i) -> "
                     "(i)>, affine_map<(i) -> (i)>], iterator_types = "
                     "[\"parallel\"]} ins(%s : %s) outs(%s : %s) {" %
                     (e, v, v.type, emp, v.type),
                     "^bb0(%s: i64, %s: i64):" % (a, o),
                     "  %s = arith.muli %s, %s : i64" % (t1, a, a),
                     "  %s = arith.addi %s, %s : i64" % (t2, t1, c1),
                     "  %s = arith.divsi %s, %s : i64" % (t3, c100, t2),
                     "  linalg.yield %s : i64" % t3,
                     "} -> %s" % v.type]
            return p.emit(lines, [emp, e], [v, d, c1, c100],
                          lambda env: [None, ref(env)], "div_i")[-1]

        def generic_map():
            if v.elt != "f32" or not one_d:
                return None
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            e = V(p.fresh("g"), v.shape, "f32", v.size, v.minrows)
            emp = p.fresh("empty")
            a, o, t1, t2 = (p.fresh("a"), p.fresh("o"), p.fresh("t"),
                            p.fresh("t"))
            one = p.const(1.0, "f32")
            kind = self.pick(["sqplus1", "expm1", "index"])
            if kind == "sqplus1":
                body = ["  %s = arith.mulf %s, %s : f32" % (t1, a, a),
                        "  %s = arith.addf %s, %s : f32" % (t2, t1, one)]
                fn = (lambda env, v=v.name, one=one.name:
                      [None, f32(env[v] * env[v] + np.float32(1))])
            elif kind == "expm1":
                body = ["  %s = math.exp %s : f32" % (t1, a),
                        "  %s = arith.subf %s, %s : f32" % (t2, t1, one)]
                fn = (lambda env, v=v.name:
                      [None, f32(np.exp(env[v]) - np.float32(1))])
            else:
                # x + row index
                t0 = p.fresh("t")
                body = ["  %s = linalg.index 0 : index" % t0,
                        "  %s = arith.index_cast %s : index to i64" % (t1 + "i",
                                                                       t0),
                        "  %s = arith.sitofp %s : i64 to f32" % (t1, t1 + "i"),
                        "  %s = arith.addf %s, %s : f32" % (t2, a, t1)]
                fn = (lambda env, v=v.name:
                      [None, f32(env[v] + np.arange(len(env[v]),
                                                    dtype=np.float32))])
            lines = ["%s = tensor.empty(%s) : %s" % (emp, d, v.type),
                     "%s = linalg.generic {indexing_maps = [affine_map<(i) -> "
                     "(i)>, affine_map<(i) -> (i)>], iterator_types = "
                     "[\"parallel\"]} ins(%s : %s) outs(%s : %s) {" %
                     (e, v, v.type, emp, v.type),
                     "^bb0(%s: f32, %s: f32):" % (a, o)] + body + [
                     "  linalg.yield %s : f32" % t2,
                     "} -> %s" % v.type]
            return p.emit(lines, [emp, e], [v, d, one], fn, "generic_map")[-1]

        def slice_():
            bound = int(self.rng.integers(1, p.n))
            s, low = self.length(v, bound)
            d = self.dims[v.name]
            off, stride = 0, 1
            if self.rng.random() < 0.3 and self.allowed("slice-offset"):
                # offset min(o, dim), size at most dim - offset
                off = p.ibin("minsi", p.const(int(self.rng.integers(1, 4)),
                                              "index"), d)
                s = p.ibin("minsi", s, p.ibin("subi", d, off))
                low = 0
                p.tags.add("slice-offset")
            if self.rng.random() < 0.3 and self.allowed("slice-stride"):
                # stride 2: at most (dim - offset + 1) / 2 rows
                rest = p.ibin("subi", d, off) if isinstance(off, V) else d
                half = p.ibin("divsi", p.ibin("addi", rest,
                                              p.const(1, "index")),
                              p.const(2, "index"))
                s = p.ibin("minsi", s, half)
                stride, low = 2, 0
                p.tags.add("slice-stride")
            e = V(p.fresh("sl"), v.shape, v.elt, p.fresh("slice"), low,
                  v.index)
            e.how = ("slice", v, off, s, stride)
            offs = ", ".join([str(off)] + ["0"] * (len(v.shape) - 1))
            sizes = ", ".join([str(s)] + [str(k) for k in v.shape[1:]])
            strides = ", ".join([str(stride)] + ["1"] * (len(v.shape) - 1))
            uses = [v, s] + ([off] if isinstance(off, V) else [])
            return p.emit("%s = tensor.extract_slice %s[%s] [%s] [%s] : %s to "
                          "%s" % (e, v, offs, sizes, strides, v.type, e.type),
                          [e], uses, lambda env, v=v.name, s=s.name, off=off,
                          st=stride: [slice_rows(env, v, off, s, st)],
                          "slice")

        def perm_gather():
            # v[randperm(len(v))] or v[randperm(len(v))[:k]]: the sampler.
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            seed = p.args[4]
            pv = V(p.fresh("perm"), (None,), "i64", v.size, v.minrows, False)
            # Every third permutation (by its name's number, which draws
            # nothing from the generator, so a seed's program keeps its
            # shape) is the argsort one.
            by_sort = (int(re.sub(r"\D", "", pv.name) or 0) % 3 == 2 and
                       self.allowed("randperm_sort"))
            kw = " sort" if by_sort else ""
            perm = ops.randperm_sort if by_sort else ops.randperm
            if self.rng.random() < 0.3 and self.allowed("randperm_offset"):
                off = p.const(int(self.rng.integers(1, 100)), "i64")
                p.emit("%s = sift.randperm %s, %s offset %s%s : %s" %
                       (pv, d, seed, off, kw, pv.type), [pv], [d, seed, off],
                       lambda env, d=d.name, o=off.name, perm=perm:
                       [perm(env[d], int(env["%seed"]), int(env[o]))],
                       "randperm_offset")
            else:
                p.emit("%s = sift.randperm %s, %s%s : %s" % (pv, d, seed, kw,
                                                            pv.type),
                       [pv], [d, seed], lambda env, d=d.name, perm=perm:
                       [perm(env[d], int(env["%seed"]))], "randperm")
            tag = "perm_gather"
            if self.rng.random() < 0.5 and self.allowed("perm_slice"):
                bound = int(self.rng.integers(1, p.n))
                s, low = self.length(pv, bound)
                sl = V(p.fresh("ps"), (None,), "i64", p.fresh("pslice"), low)
                p.emit("%s = tensor.extract_slice %s[0] [%s] [1] : %s to %s" %
                       (sl, pv, s, pv.type, sl.type), [sl], [pv, s],
                       lambda env, pv=pv.name, s=s.name:
                       [env[pv][:env[s]]], "perm_slice")
                pv, tag = sl, "perm_slice"
            e = V(p.fresh("pg"), v.shape, v.elt, pv.size, pv.minrows, v.index)
            e.how = ("gather", v, pv)
            return p.emit("%s = sift.gather %s[%s] : %s, %s -> %s" %
                          (e, v, pv, v.type, pv.type, e.type), [e], [v, pv],
                          lambda env, v=v.name, pv=pv.name:
                          [env[v][env[pv]]], tag)

        def concat():
            others = [w for w in self.dyn if w is not v and w.elt == v.elt
                      and w.shape == v.shape]
            if not others:
                return None
            w = self.pick(others)
            e = V(p.fresh("cat"), v.shape, v.elt, p.fresh("concat"),
                  v.minrows + w.minrows, v.index and w.index)
            e.how = ("concat", v, w)
            return p.emit("%s = tensor.concat dim(0) %s, %s : (%s, %s) -> %s" %
                          (e, v, w, v.type, w.type, e.type), [e], [v, w],
                          lambda env, v=v.name, w=w.name:
                          [np.concatenate([env[v], env[w]])], "concat")

        def gather():
            if not (v.index or getattr(v, "ids", False)):
                return None
            src = self.pick([x, r, y])
            e = V(p.fresh("ga"), (None,) + src.shape[1:], src.elt, v.size,
                  v.minrows)
            e.how = ("gather", src, v)
            return p.emit("%s = sift.gather %s[%s] : %s, %s -> %s" %
                          (e, src, v, src.type, v.type, e.type), [e],
                          [src, v], lambda env, s=src.name, v=v.name:
                          [ops.gather(env[s], env[v])], "gather")

        def sort_rows():
            # rows [?, C]: along the data-dependent dimension (dim 0) or
            # within each row (dim 1)
            if one_d or v.elt != "f32":
                return None
            dim = self.pick([0, 1])
            desc = self.rng.random() < 0.5
            kind = self.pick(["sort", "argsort", "cumsum"])
            attr = " {dim = %d : i64}" % dim
            word = " descending" if desc and kind != "cumsum" else ""
            if kind == "sort":
                sv = V(p.fresh("sv"), v.shape, "f32", v.size, v.minrows)
                si = V(p.fresh("si"), v.shape, "i64", v.size, v.minrows)
                return p.emit("%s, %s = sift.sort %s%s%s : %s -> %s, %s" %
                              (sv, si, v, word, attr, v.type, sv.type,
                               si.type), [sv, si], [v],
                              lambda env, v=v.name, d=desc, dim=dim:
                              list(ops.sort(env[v], dim=dim, descending=d)),
                              "sort_rows")[self.rng.integers(2)]
            if kind == "argsort":
                a = V(p.fresh("as"), v.shape, "i64", v.size, v.minrows)
                return p.emit("%s = sift.argsort %s%s%s : %s -> %s" %
                              (a, v, word, attr, v.type, a.type), [a], [v],
                              lambda env, v=v.name, d=desc, dim=dim:
                              [ops.argsort(env[v], dim=dim, descending=d)],
                              "sort_rows")
            c = V(p.fresh("cu"), v.shape, "f32", v.size, v.minrows)
            c.how = ("same", v)
            return p.emit("%s = sift.cumsum %s%s : %s -> %s" %
                          (c, v, attr, v.type, c.type), [c], [v],
                          lambda env, v=v.name, dim=dim:
                          [ops.cumsum(env[v], dim=dim)], "sort_rows")

        def sort():
            if not one_d or v.elt == "i1":
                return None
            desc = self.rng.random() < 0.5
            kind = self.pick(["sort", "argsort", "cumsum"])
            if not self.allowed(kind):
                return None
            word = " descending" if desc else ""
            if kind == "sort":
                sv = V(p.fresh("sv"), v.shape, v.elt, v.size, v.minrows,
                       v.index)
                si = V(p.fresh("si"), v.shape, "i64", v.size, v.minrows, True)
                return p.emit("%s, %s = sift.sort %s%s : %s -> %s, %s" %
                              (sv, si, v, word, v.type, sv.type, si.type),
                              [sv, si], [v], lambda env, v=v.name, d=desc:
                              list(ops.sort(env[v], descending=d)),
                              "sort")[self.rng.integers(2)]
            if kind == "argsort":
                a = V(p.fresh("as"), v.shape, "i64", v.size, v.minrows, True)
                return p.emit("%s = sift.argsort %s%s : %s -> %s" %
                              (a, v, word, v.type, a.type), [a], [v],
                              lambda env, v=v.name, d=desc:
                              [ops.argsort(env[v], descending=d)], "argsort")
            ex = self.rng.random() < 0.3
            c = V(p.fresh("cu"), v.shape, v.elt, v.size, v.minrows)
            return p.emit("%s = sift.cumsum %s%s : %s -> %s" %
                          (c, v, " exclusive" if ex else "", v.type, c.type),
                          [c], [v], lambda env, v=v.name, ex=ex:
                          [ops.cumsum(env[v], exclusive=ex)], "cumsum")

        def binary():
            others = [w for w in self.dyn if w.size == v.size and
                      w.elt == v.elt and w.shape == v.shape]
            if v.elt not in ("f32", "i64") or not others:
                return None
            w = self.pick(others)
            if v.elt == "f32":
                op, fn = self.pick([("addf", np.add), ("mulf", np.multiply),
                                    ("subf", np.subtract),
                                    ("maximumf", np.maximum)])
            else:
                op, fn = self.pick([("addi", np.add), ("maxsi", np.maximum),
                                    ("subi", np.subtract)])
            e = V(p.fresh("bin"), v.shape, v.elt, v.size,
                  v.minrows, v.index and op == "maxsi" and w.index)
            e.how = ("same", v)
            return p.emit("%s = arith.%s %s, %s : %s" % (e, op, v, w, v.type),
                          [e], [v, w], lambda env, a=v.name, b=w.name, fn=fn:
                          [fn(env[a], env[b])], "binary")

        def rowsum():
            # rows [?, C] -> [?]: a parallel loop over the data-dependent
            # rows, a reduction over the columns, into a dynamic init.
            if v.elt != "f32" or one_d:
                return None
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            z = p.const(0.0, "f32")
            emp, acc = p.fresh("empty"), V(p.fresh("acc"), (None,), "f32",
                                           v.size)
            e = V(p.fresh("rs"), (None,), "f32", v.size, v.minrows)
            a, o, t1, t2 = (p.fresh("a"), p.fresh("o"), p.fresh("t"),
                            p.fresh("t"))
            exp = self.rng.random() < 0.5
            body = (["  %s = math.exp %s : f32" % (t1, a)] if exp else
                    ["  %s = arith.mulf %s, %s : f32" % (t1, a, a)])
            lines = ["%s = tensor.empty(%s) : %s" % (emp, d, acc.type),
                     "%s = linalg.fill ins(%s : f32) outs(%s : %s) -> %s" %
                     (acc, z, emp, acc.type, acc.type),
                     "%s = linalg.generic {indexing_maps = [affine_map<(i, j)"
                     " -> (i, j)>, affine_map<(i, j) -> (i)>], iterator_types"
                     " = [\"parallel\", \"reduction\"]} ins(%s : %s) "
                     "outs(%s : %s) {" % (e, v, v.type, acc, acc.type),
                     "^bb0(%s: f32, %s: f32):" % (a, o)] + body + [
                     "  %s = arith.addf %s, %s : f32" % (t2, o, t1),
                     "  linalg.yield %s : f32" % t2,
                     "} -> %s" % acc.type]

            def fn(env, v=v.name, exp=exp):
                xs = env[v].astype(np.float64)
                xs = np.exp(xs) if exp else xs * xs
                return [None, None, f32(np.sum(xs, axis=1))]
            return p.emit(lines, [emp, acc, e], [v, d, z], fn, "rowsum")[-1]

        def flip_cols():
            # rows [?, C] with their columns reversed: a linalg.generic
            # whose input map decreases, (i, j) -> (i, C - 1 - j) (what
            # torch.flip becomes); --sift-fuse must keep it whole
            if v.elt != "f32" or len(v.shape) != 2 or v.shape[1] is None:
                return None
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            cols = v.shape[1]
            emp = p.fresh("empty")
            e = V(p.fresh("fl"), v.shape, "f32", v.size, v.minrows)
            a, o = p.fresh("a"), p.fresh("o")
            lines = ["%s = tensor.empty(%s) : %s" % (emp, d, v.type),
                     "%s = linalg.generic {indexing_maps = [affine_map<(i, j)"
                     " -> (i, %d - j)>, affine_map<(i, j) -> (i, j)>], "
                     "iterator_types = [\"parallel\", \"parallel\"]} "
                     "ins(%s : %s) outs(%s : %s) {" % (e, cols - 1, v, v.type,
                                                      emp, v.type),
                     "^bb0(%s: f32, %s: f32):" % (a, o),
                     "  linalg.yield %s : f32" % a,
                     "} -> %s" % v.type]
            return p.emit(lines, [emp, e], [v, d],
                          lambda env, v=v.name:
                          [None, env[v][:, ::-1].copy()], "flip_cols")[-1]

        def empty_fill():
            # tensor.empty of a computed size (a sum of two sizes, or a
            # size picked by scf.if), filled with a constant
            others = [w for w in self.dyn if w is not v]
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            if others and self.rng.random() < 0.5:
                w = self.pick(others)
                od = self.dims.get(w.name) or p.dim(w)
                self.dims[w.name] = od
                n = p.ibin("addi", d, od)
                low = v.minrows + w.minrows
            else:
                kc = p.const(int(self.rng.integers(1, p.n)), "index")
                c = V(p.fresh("big"), None, "i1")
                n = V(p.fresh("sz"), None, "index")
                p.emit(["%s = arith.cmpi sgt, %s, %s : index" % (c, d, kc),
                        "%s = scf.if %s -> (index) {" % (n, c),
                        "  scf.yield %s : index" % kc,
                        "} else {",
                        "  scf.yield %s : index" % d,
                        "}"], [c, n], [d, kc],
                       lambda env, d=d.name, k=kc.name:
                       [env[d] > env[k], min(env[d], env[k])], "size-if")
                low = min(v.minrows, 1)
            val = p.const(self.pick([1.5, -2.0]), "f32")
            emp = p.fresh("empty")
            e = V(p.fresh("ef"), (None,), "f32", p.fresh("efill"), low)
            return p.emit(["%s = tensor.empty(%s) : tensor<?xf32>" % (emp, n),
                           "%s = linalg.fill ins(%s : f32) outs(%s : "
                           "tensor<?xf32>) -> tensor<?xf32>" % (e, val, emp)],
                          [emp, e], [n, val], lambda env, n=n.name,
                          c=val.name: [None, np.full(env[n], env[c],
                                                     dtype=np.float32)],
                          "empty_fill")[-1]

        return self.choose([
            (2, "binary", binary), (1, "rowsum", rowsum), (1, "div_i", div_i),
            (1, "empty_fill", empty_fill), (1, "flip_cols", flip_cols),
            (3, "elementwise", elementwise), (2, "generic_map", generic_map),
            (3, "slice", slice_), (2, "perm_gather", perm_gather),
            (2, "concat", concat), (3, "gather", gather), (2, "sort", sort),
            (1, "sort_rows", sort_rows)])

    # --- consumers: the results --------------------------------------------

    def consume(self, v):
        p = self.p
        one_d = len(v.shape) == 1

        def ret():
            if v.elt == "i1":
                return None
            p.results.append(v)
            p.tags.add("return-dynamic")
            return v

        def fill(elt, value, shape=()):
            z = p.const(value, elt)
            e = V(p.fresh("empty"), shape, elt)
            acc = V(p.fresh("acc"), shape, elt)
            p.emit(["%s = tensor.empty() : %s" % (e, e.type),
                    "%s = linalg.fill ins(%s : %s) outs(%s : %s) -> %s" %
                    (acc, z, elt, e, e.type, e.type)], [e, acc], [z],
                   lambda env, z=z.name, s=shape:
                   [None, np.full(s, env[z])])
            return acc

        def reduce_generic():
            if v.elt not in ("f32", "i64"):
                return None
            rows = not one_d
            if v.elt == "i64" and rows:
                return None
            if v.elt == "i64":
                kinds = ["sum", "match", "countlike", "max", "min_i"]
            else:
                kinds = ["sum", "sum_exp", "sum_sq", "max", "min",
                         "countlike", "relu_sum", "dot", "prod", "max_exp"]
            if kind_ok_dot(self, v, kinds):
                kinds.remove("dot")
            kind = self.pick(kinds)
            if not self.allowed("reduce-" + kind):
                return None
            elt = v.elt
            shape = (v.shape[1],) if rows else ()
            init = {"max": -np.inf if elt == "f32" else -2 ** 63,
                    "max_exp": -np.inf, "min_i": 2 ** 63 - 1,
                    "min": np.inf, "prod": 1.0}.get(kind, 0)
            acc = fill(elt, init, shape)
            a, o, t1, t2 = (p.fresh("a"), p.fresh("o"), p.fresh("t"),
                            p.fresh("t"))
            ins, uses = [v], [v, acc]
            F = "f" if elt == "f32" else "i"
            if kind == "sum":
                body = ["%s = arith.add%s %s, %s : %s" % (t2, F, o, a, elt)]
                ref = lambda xs: np.sum(xs.astype(np.float64), axis=0) \
                    if elt == "f32" else np.sum(xs, axis=0)
            elif kind == "sum_exp":
                body = ["%s = math.exp %s : f32" % (t1, a),
                        "%s = arith.addf %s, %s : f32" % (t2, o, t1)]
                ref = lambda xs: np.sum(np.exp(xs.astype(np.float64)), axis=0)
            elif kind == "sum_sq":
                body = ["%s = arith.mulf %s, %s : f32" % (t1, a, a),
                        "%s = arith.addf %s, %s : f32" % (t2, t1, o)]
                ref = lambda xs: np.sum(xs.astype(np.float64) ** 2, axis=0)
            elif kind == "max":
                op = "maximumf" if elt == "f32" else "maxsi"
                body = ["%s = arith.%s %s, %s : %s" % (t2, op, a, o, elt)]
                ref = lambda xs, i=init: np.max(
                    np.concatenate([np.full((1,) + xs.shape[1:], i,
                                            dtype=xs.dtype), xs]), axis=0)
            elif kind == "min":
                body = ["%s = arith.minimumf %s, %s : f32" % (t2, o, a)]
                ref = lambda xs: np.min(
                    np.concatenate([np.full((1,) + xs.shape[1:], np.inf,
                                            dtype=xs.dtype), xs]), axis=0)
            elif kind == "prod":
                body = ["%s = arith.mulf %s, %s : f32" % (t2, o, a)]
                ref = lambda xs: np.prod(xs.astype(np.float64), axis=0)
            elif kind == "max_exp":
                body = ["%s = math.exp %s : f32" % (t1, a),
                        "%s = arith.maximumf %s, %s : f32" % (t2, o, t1)]
                ref = lambda xs: np.max(np.concatenate(
                    [np.full((1,) + xs.shape[1:], -np.inf),
                     np.exp(xs.astype(np.float64))]), axis=0)
            elif kind == "min_i":
                body = ["%s = arith.minsi %s, %s : i64" % (t2, a, o)]
                ref = lambda xs: np.min(np.concatenate(
                    [np.full((1,) + xs.shape[1:], 2 ** 63 - 1,
                             dtype=np.int64), xs]), axis=0)
            elif kind == "countlike":
                one = p.const(1 if elt == "i64" else 1.0, elt)
                uses.append(one)
                body = ["%s = arith.add%s %s, %s : %s" % (t2, F, o, one, elt)]
                ref = lambda xs: np.full(xs.shape[1:], len(xs))
            elif kind == "match":
                k = p.const(int(self.rng.integers(0, p.c)), "i64")
                one = p.const(1, "i64")
                zero = p.const(0, "i64")
                uses += [k, one, zero]
                t0, t3 = p.fresh("t"), p.fresh("t")
                body = ["%s = arith.cmpi eq, %s, %s : i64" % (t0, a, k),
                        "%s = arith.select %s, %s, %s : i64" % (t1, t0, one,
                                                               zero),
                        "%s = arith.addi %s, %s : i64" % (t2, o, t1)]
                ref = None
            elif kind == "relu_sum":
                zero = p.const(0.0, "f32")
                uses.append(zero)
                t0 = p.fresh("t")
                body = ["%s = arith.cmpf ogt, %s, %s : f32" % (t0, a, zero),
                        "%s = arith.select %s, %s, %s : f32" % (t1, t0, a,
                                                               zero),
                        "%s = arith.addf %s, %s : f32" % (t2, o, t1)]
                ref = lambda xs: np.sum(np.where(xs > 0, xs, 0).astype(
                    np.float64), axis=0)
            else:  # dot with another value of the same size
                others = [w for w in self.dyn if w.size == v.size and
                          w.elt == "f32" and w.shape == v.shape]
                w = self.pick(others)
                ins, uses = [v, w], [v, w, acc]
                b = p.fresh("b")
                body = ["%s = arith.mulf %s, %s : f32" % (t1, a, b),
                        "%s = arith.addf %s, %s : f32" % (t2, o, t1)]
                ref = None
            rank = len(v.shape)
            dims = "(i, j)" if rows else "(i)"
            imap = "affine_map<%s -> %s>" % (dims, dims)
            omap = "affine_map<%s -> %s>" % (dims, "(j)" if rows else "()")
            iters = '"reduction", "parallel"' if rows else '"reduction"'
            out = V(p.fresh("red"), shape, elt)
            bbargs = ["%s: %s" % (a, elt)]
            if len(ins) == 2:
                bbargs.append("%s: f32" % b)
            bbargs.append("%s: %s" % (o, elt))
            lines = ["%s = linalg.generic {indexing_maps = [%s], "
                     "iterator_types = [%s]} ins(%s : %s) outs(%s : %s) {" %
                     (out, ", ".join([imap] * len(ins) + [omap]), iters,
                      ", ".join(str(i) for i in ins),
                      ", ".join(i.type for i in ins), acc, acc.type),
                     "^bb0(%s):" % ", ".join(bbargs)]
            lines += ["  " + l for l in body]
            lines += ["  linalg.yield %s : %s" % (t2, elt),
                      "} -> %s" % acc.type]
            del rank

            kname = k.name if kind == "match" else None

            def fn(env, kind=kind, v=v.name, ins=[i.name for i in ins],
                   ref=ref, elt=elt, kname=kname):
                xs = env[v]
                if kind == "match":
                    val = np.sum(xs == env[kname])
                elif kind == "dot":
                    val = np.sum(env[ins[0]].astype(np.float64) *
                                 env[ins[1]].astype(np.float64), axis=0)
                else:
                    val = ref(xs)
                return [np.asarray(val).astype(NPT[elt])]
            p.emit(lines, [out], uses, fn, "reduce-" + kind)
            p.results.append(out)
            return out

        def reduce_named():
            if v.elt != "f32" or not one_d:
                return None
            kind = self.pick(["sum", "max"])
            acc = fill("f32", 0.0 if kind == "sum" else -np.inf)
            a, b, t = p.fresh("a"), p.fresh("b"), p.fresh("t")
            op = "addf" if kind == "sum" else "maximumf"
            out = V(p.fresh("rn"), (), "f32")
            lines = ["%s = linalg.reduce ins(%s : %s) outs(%s : %s) "
                     "dimensions = [0]" % (out, v, v.type, acc, acc.type),
                     "  (%s: f32, %s: f32) {" % (a, b),
                     "    %s = arith.%s %s, %s : f32" % (t, op, a, b),
                     "    linalg.yield %s : f32" % t,
                     "  }"]

            def fn(env, v=v.name, kind=kind):
                xs = env[v].astype(np.float64)
                if kind == "sum":
                    return [f32(np.sum(xs))]
                return [f32(np.max(np.concatenate([[-np.inf], xs])))]
            p.emit(lines, [out], [v, acc], fn, "reduce_named")
            p.results.append(out)
            return out

        def mean():
            if v.elt != "f32" or not one_d:
                return None
            acc = fill("f32", 0.0)
            a, b, t = p.fresh("a"), p.fresh("b"), p.fresh("t")
            s = V(p.fresh("sum"), (), "f32")
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            se, di, df, mv = (p.fresh("se"), p.fresh("di"), p.fresh("df"),
                              p.fresh("mean"))
            out = V(p.fresh("mt"), (), "f32")
            lines = ["%s = linalg.reduce ins(%s : %s) outs(%s : %s) "
                     "dimensions = [0]" % (s, v, v.type, acc, acc.type),
                     "  (%s: f32, %s: f32) {" % (a, b),
                     "    %s = arith.addf %s, %s : f32" % (t, a, b),
                     "    linalg.yield %s : f32" % t,
                     "  }",
                     "%s = tensor.extract %s[] : tensor<f32>" % (se, s),
                     "%s = arith.index_cast %s : index to i64" % (di, d),
                     "%s = arith.sitofp %s : i64 to f32" % (df, di),
                     "%s = arith.divf %s, %s : f32" % (mv, se, df),
                     "%s = tensor.from_elements %s : tensor<f32>" % (out, mv)]

            def fn(env, v=v.name):
                xs = env[v].astype(np.float64)
                return [None, f32(np.float64(np.sum(xs)) / len(xs))
                        if len(xs) else f32(np.nan)]
            p.emit(lines, [s, out], [v, acc, d], fn, "mean")
            p.results.append(out)
            return out

        def count():
            if v.elt == "i1":
                return None
            out = V(p.fresh("cnt"), tuple(v.shape[1:-1]) if not one_d else (),
                    "i64")
            if not one_d:
                return None
            p.emit("%s = sift.count %s : %s -> %s" % (out, v, v.type,
                                                     out.type), [out], [v],
                   lambda env, v=v.name: [ops.count(env[v])], "count")
            p.results.append(out)
            return out

        def topk():
            if not one_d or v.minrows < 1 or v.elt == "i1":
                return None
            k = int(self.rng.integers(1, v.minrows + 1))
            small = self.rng.random() < 0.5
            tv = V(p.fresh("tv"), (k,), v.elt)
            ti = V(p.fresh("ti"), (k,), "i64")
            p.emit("%s, %s = sift.topk %s k(%d)%s : %s -> %s, %s" %
                   (tv, ti, v, k, " smallest" if small else "", v.type,
                    tv.type, ti.type), [tv, ti], [v],
                   lambda env, v=v.name, k=k, s=small:
                   list(ops.topk(env[v], k, smallest=s)), "topk")
            p.results += [tv, ti]
            return tv

        def cross_entropy():
            if v.shape != (None, p.c) or v.elt != "f32":
                return None
            # targets of the same rows: y through the same selection
            tg = self.targets.get(v.name)
            if tg is None:
                return None
            red = self.pick(["mean", "sum", "none"])
            shape = (None,) if red == "none" else ()
            out = V(p.fresh("ce"), shape, "f32", v.size)
            weight, wtext, uses = None, "", [v, tg]
            if self.rng.random() < 0.4:
                wv = p.dense([float(w) for w in
                              self.rng.integers(1, 4, p.c) / 2], "f32")
                weight, wtext = wv, " weight(%s : %s)" % (wv, wv.type)
                uses.append(wv)
            ls = self.pick([0.0, 0.0, 0.1])
            attr = " {label_smoothing = %r : f64}" % ls if ls else ""
            p.emit("%s = sift.cross_entropy %s, %s%s reduction = %s%s : %s, %s"
                   " -> %s" % (out, v, tg, wtext, red, attr, v.type, tg.type,
                               out.type), [out], uses,
                   lambda env, v=v.name, t=tg.name, red=red, ls=ls,
                   w=weight and weight.name:
                   [ops.cross_entropy(env[v], env[t], reduction=red,
                                      weight=env[w] if w else None,
                                      label_smoothing=ls)],
                   "cross_entropy")
            p.results.append(out)
            return out

        def extract_sentinel():
            if not one_d or v.elt not in ("f32", "i64"):
                return None
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            sent = p.dense([-7], v.elt)
            cat = V(p.fresh("sc"), (None,), v.elt, p.fresh("sent"))
            k = p.const(int(self.rng.integers(0, 4)), "index")
            i = V(p.fresh("k"), None, "index")
            e = V(p.fresh("el"), None, v.elt)
            p.emit(["%s = tensor.concat dim(0) %s, %s : (%s, %s) -> %s" %
                    (cat, v, sent, v.type, sent.type, cat.type),
                    "%s = arith.minsi %s, %s : index" % (i, k, d),
                    "%s = tensor.extract %s[%s] : %s" % (e, cat, i,
                                                         cat.type)],
                   [cat, i, e], [v, sent, k, d],
                   lambda env, v=v.name, s=sent.name, k=k.name, d=d.name:
                   [None, None, np.concatenate([env[v], env[s]])[
                       min(env[k], env[d])]], "extract_sentinel")
            out = p.scalar_tensor(e)
            p.results.append(out)
            return out

        def extract_if():
            if not one_d or v.elt not in ("f32", "i64"):
                return None
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            c0, c1 = p.const(0, "index"), p.const(1, "index")
            k = p.const(int(self.rng.integers(0, 4)), "index")
            dflt = p.const(-7 if v.elt == "i64" else -7.0, v.elt)
            c, d1, i, e, res = (p.fresh("c"), p.fresh("d"), p.fresh("k"),
                                p.fresh("el"), V(p.fresh("pick"), None,
                                                 v.elt))
            p.emit(["%s = arith.cmpi sgt, %s, %s : index" % (c, d, c0),
                    "%s = scf.if %s -> (%s) {" % (res, c, v.elt),
                    "  %s = arith.subi %s, %s : index" % (d1, d, c1),
                    "  %s = arith.minsi %s, %s : index" % (i, k, d1),
                    "  %s = tensor.extract %s[%s] : %s" % (e, v, i, v.type),
                    "  scf.yield %s : %s" % (e, v.elt),
                    "} else {",
                    "  scf.yield %s : %s" % (dflt, v.elt),
                    "}"], [c, res], [v, d, c0, c1, k, dflt],
                   lambda env, v=v.name, k=k.name, df=dflt.name:
                   [None, env[v][min(env[k], len(env[v]) - 1)]
                    if len(env[v]) else env[df]], "extract_if")
            out = p.scalar_tensor(res)
            p.results.append(out)
            return out

        def for_sum():
            if not one_d or v.elt not in ("f32", "i64"):
                return None
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            c0, c1 = p.const(0, "index"), p.const(1, "index")
            z = p.const(0 if v.elt == "i64" else 0.0, v.elt)
            k, acc, e, s = p.fresh("k"), p.fresh("acc"), p.fresh("el"), \
                p.fresh("t")
            res = V(p.fresh("loop"), None, v.elt)
            F = "f" if v.elt == "f32" else "i"
            p.emit(["%s = scf.for %s = %s to %s step %s iter_args(%s = %s) "
                    "-> (%s) {" % (res, k, c0, d, c1, acc, z, v.elt),
                    "  %s = tensor.extract %s[%s] : %s" % (e, v, k, v.type),
                    "  %s = arith.add%s %s, %s : %s" % (s, F, acc, e, v.elt),
                    "  scf.yield %s : %s" % (s, v.elt),
                    "}"], [res], [v, d, c0, c1, z],
                   lambda env, v=v.name, e=v.elt:
                   [np.sum(env[v].astype(np.float64)).astype(NPT[e])
                    if e == "f32" else np.sum(env[v])], "for_sum")
            out = p.scalar_tensor(res)
            p.results.append(out)
            return out

        def for_scatter():
            if not (one_d and v.index):
                return None
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            c0, c1 = p.const(0, "index"), p.const(1, "index")
            one = p.const(1, "i8")
            zeros = p.dense([0] * p.n, "i8")
            k, acc, j, jj, nx = (p.fresh("k"), p.fresh("acc"), p.fresh("j"),
                                 p.fresh("jj"), p.fresh("nx"))
            res = V(p.fresh("scat"), (p.n,), "i8")

            def fn(env, v=v.name, n=p.n):
                out = np.zeros(n, dtype=np.int8)
                out[env[v]] = 1
                return [out]
            p.emit(["%s = scf.for %s = %s to %s step %s iter_args(%s = %s) "
                    "-> (%s) {" % (res, k, c0, d, c1, acc, zeros, res.type),
                    "  %s = tensor.extract %s[%s] : %s" % (j, v, k, v.type),
                    "  %s = arith.index_cast %s : i64 to index" % (jj, j),
                    "  %s = tensor.insert %s into %s[%s] : %s" % (nx, one,
                                                                 acc, jj,
                                                                 res.type),
                    "  scf.yield %s : %s" % (nx, res.type),
                    "}"], [res], [v, d, c0, c1, one, zeros], fn,
                   "for_scatter")
            p.results.append(res)
            return res

        def size():
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            out = p.to_i64_tensor(d)
            p.tags.add("size")
            p.results.append(out)
            return out

        def count_cmp():
            # sift.count of a comparison of the selected values
            if v.elt != "f32" or not one_d:
                return None
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            c = p.const(self.pick([0.0, 0.5]), "f32")
            sp = V(p.fresh("sp"), v.shape, "f32", v.size)
            mk = V(p.fresh("cmp"), v.shape, "i1", v.size)
            out = V(p.fresh("cnt"), (), "i64")
            p.emit(["%s = tensor.splat %s[%s] : %s" % (sp, c, d, sp.type),
                    "%s = arith.cmpf ogt, %s, %s : %s" % (mk, v, sp, v.type),
                    "%s = sift.count %s : %s -> %s" % (out, mk, mk.type,
                                                      out.type)],
                   [sp, mk, out], [v, c, d], lambda env, v=v.name, c=c.name:
                   [None, None, np.int64(np.sum(env[v] > env[c]))],
                   "count_cmp")
            p.results.append(out)
            return out

        def gather_at():
            # a static index tensor into the selection (fill past its end)
            if v.elt not in ("f32", "i64"):
                return None
            idx = p.dense([int(i) for i in self.rng.integers(-1, p.n + 1,
                                                             4)], "i64")
            fillv = -9 if v.elt == "i64" else -9.0
            attr = "%d : i64" % fillv if v.elt == "i64" else "-9.0 : f32"
            out = V(p.fresh("gat"), (4,) + v.shape[1:], v.elt)

            def fn(env, v=v.name, i=idx.name, fv=fillv):
                return [ops.gather(env[v], env[i], fill=fv)]
            p.emit("%s = sift.gather %s[%s] {fill = %s} : %s, %s -> %s" %
                   (out, v, idx, attr, v.type, idx.type, out.type), [out],
                   [v, idx], fn, "gather_at")
            p.results.append(out)
            return out

        def nested_selection():
            # a selection of a selection: not supported by staticize (an
            # honest refusal is the expected outcome)
            if v.elt != "f32" or not one_d:
                return None
            d = self.dims.get(v.name) or p.dim(v)
            self.dims[v.name] = d
            c = p.const(0.0, "f32")
            sp = V(p.fresh("sp"), v.shape, "f32", v.size)
            mk = V(p.fresh("cmp"), v.shape, "i1", v.size)
            out = V(p.fresh("sel2"), v.shape, "f32", p.fresh("nested"))
            p.emit(["%s = tensor.splat %s[%s] : %s" % (sp, c, d, sp.type),
                    "%s = arith.cmpf ogt, %s, %s : %s" % (mk, v, sp, v.type),
                    "%s = sift.masked_select %s, %s : %s, %s -> %s" %
                    (out, v, mk, v.type, mk.type, out.type)],
                   [sp, mk, out], [v, c, d], lambda env, v=v.name, c=c.name:
                   [None, None, env[v][env[v] > env[c]]], "nested_selection")
            p.results.append(out)
            return out

        def filter_loop():
            # An iterative filter: a loop that carries the selection and
            # keeps, at step k, the values above k / 2 (a shrinking,
            # data-dependent size carried from one iteration to the next).
            if v.elt not in ("f32", "i64") or not one_d:
                return None
            steps = int(self.rng.integers(1, 4))
            c0, c1 = p.const(0, "index"), p.const(1, "index")
            cs = p.const(steps, "index")
            out = V(p.fresh("flt"), v.shape, v.elt, p.fresh("filtered"))
            k, s, ki, t, n, sp, mk, s2 = (
                p.fresh("k"), p.fresh("s"), p.fresh("ki"), p.fresh("t"),
                p.fresh("n"), p.fresh("sp"), p.fresh("keep"), p.fresh("s"))
            if v.elt == "f32":
                half = p.const(0.5, "f32")
                thr = ["  %s_f = arith.sitofp %s : i64 to f32" % (t, ki),
                       "  %s = arith.mulf %s_f, %s : f32" % (t, t, half)]
                cmp = "arith.cmpf ogt,"
                extra = [half]
            else:
                thr = ["  %s = arith.addi %s, %s : i64" % (t, ki, ki)]
                cmp = "arith.cmpi sgt,"
                extra = []
            mtype = "tensor<?xi1>"
            p.emit(["%s = scf.for %s = %s to %s step %s iter_args(%s = %s) "
                    "-> (%s) {" % (out, k, c0, cs, c1, s, v, v.type),
                    "  %s = arith.index_cast %s : index to i64" % (ki, k)] +
                   thr +
                   ["  %s = tensor.dim %s, %s : %s" % (n, s, c0, v.type),
                    "  %s = tensor.splat %s[%s] : %s" % (sp, t, n, v.type),
                    "  %s = %s %s, %s : %s" % (mk, cmp, s, sp, v.type),
                    "  %s = sift.masked_select %s, %s : %s, %s -> %s" %
                    (s2, s, mk, v.type, mtype, v.type),
                    "  scf.yield %s : %s" % (s2, v.type),
                    "}"], [out], [v, c0, c1, cs] + extra,
                   lambda env, v=v.name, steps=steps, e=v.elt:
                   [filter_steps(env[v], steps, e)], "filter_loop")
            p.results.append(out)
            return out

        return self.choose([
            (1, "count_cmp", count_cmp), (1, "gather_at", gather_at),
            (0.3, "nested_selection", nested_selection),
            (0.5, "filter_loop", filter_loop),
            (3, "return", ret), (4, "reduce_generic", reduce_generic),
            (2, "reduce_named", reduce_named), (2, "mean", mean),
            (2, "count", count), (3, "topk", topk),
            (4, "cross_entropy", cross_entropy),
            (2, "extract_sentinel", extract_sentinel),
            (2, "extract_if", extract_if), (2, "for_sum", for_sum),
            (1, "for_scatter", for_scatter), (1, "size", size)])

    # --- a whole program ---------------------------------------------------

    def program(self):
        n = int(self.pick([8, 13, 16, 24]))
        c = int(self.rng.integers(2, 5))
        self.p = p = Program(n, c)
        self.dyn = []       # dynamic values so far
        self.dims = {}      # value name -> its tensor.dim
        self.targets = {}   # size class -> i64 targets of those rows
        chains = int(self.rng.integers(1, 4))
        for _ in range(chains):
            v = self.source()
            if v is None:
                continue
            self.dyn.append(v)
            self.add_targets(v)
            for _ in range(int(self.rng.integers(0, 3))):
                w = self.transform(self.pick(self.dyn))
                if w is not None:
                    self.dyn.append(w)
                    self.add_targets(w)
                    v = w
            for _ in range(int(self.rng.integers(1, 3))):
                self.consume(self.pick([v] + self.dyn))
        if not p.results:
            p.results.append(self.dyn[-1] if self.dyn else p.args[0])
        return p

    def add_targets(self, v):
        """For rows of logits, i64 targets over the same rows (y selected,
        gathered, sliced, concatenated the same way), for cross_entropy."""
        p = self.p
        how = getattr(v, "how", None)
        if v.shape != (None, p.c) or how is None:
            return
        y = p.args[2]
        t = V(p.fresh("tg"), (None,), "i64", v.size)
        kind = how[0]
        if kind == "masked":
            mk = how[2]
            p.emit("%s = sift.masked_select %s, %s : %s, %s -> %s" %
                   (t, y, mk, y.type, mk.type, t.type), [t], [y, mk],
                   lambda env, mk=mk.name: [env["%y"][env[mk]]])
        elif kind == "gather":
            src, idx = how[1], how[2]
            ts = y if src.name == "%r" else self.targets.get(src.name)
            if ts is None:
                return
            p.emit("%s = sift.gather %s[%s] : %s, %s -> %s" %
                   (t, ts, idx, ts.type, idx.type, t.type), [t], [ts, idx],
                   lambda env, ts=ts.name, idx=idx.name:
                   [ops.gather(env[ts], env[idx])])
        elif kind == "slice":
            src, off, size, stride = how[1:]
            ts = self.targets.get(src.name)
            if ts is None:
                return
            uses = [ts, size] + ([off] if isinstance(off, V) else [])
            p.emit("%s = tensor.extract_slice %s[%s] [%s] [%d] : %s to %s" %
                   (t, ts, off, size, stride, ts.type, t.type), [t], uses,
                   lambda env, ts=ts.name, off=off, s=size.name, st=stride:
                   [slice_rows(env, ts, off, s, st)])
        elif kind == "concat":
            ta = self.targets.get(how[1].name)
            tb = self.targets.get(how[2].name)
            if ta is None or tb is None:
                return
            p.emit("%s = tensor.concat dim(0) %s, %s : (%s, %s) -> %s" %
                   (t, ta, tb, ta.type, tb.type, t.type), [t], [ta, tb],
                   lambda env, a=ta.name, b=tb.name:
                   [np.concatenate([env[a], env[b]])])
        elif kind == "same":
            t = self.targets.get(how[1].name)
            if t is None:
                return
        self.targets[v.name] = t


# ----------------------------------------------------------------------------
# Inputs
# ----------------------------------------------------------------------------

SET_NAMES = ["random", "nothing-selected", "everything-selected", "nan",
             "ties", "one-row", "ignored-targets"]


def input_sets(rng, p):
    """One list of argument values per input set (SET_NAMES)."""
    n, c = p.n, p.c
    sets = []
    for kind in SET_NAMES:
        x = (np.round(rng.standard_normal(n) * 2) / 2).astype(np.float32)
        r = rng.standard_normal((n, c)).astype(np.float32)
        y = rng.integers(0, c, n).astype(np.int64)
        m = rng.random(n) < 0.5
        seed = int(rng.integers(0, 2 ** 62))
        if kind == "nothing-selected":
            m[:] = False
            x = -np.abs(x) - 2.0     # ogt/oge against 0, 0.5, 1 select none
            y[:] = 0                 # sgt against a label: none
        elif kind == "everything-selected":
            m[:] = True
            x = np.abs(x) + 2.0
        elif kind == "nan":
            x[rng.random(n) < 0.3] = np.nan
            r[rng.random((n, c)) < 0.1] = np.nan
        elif kind == "ties":
            x[:] = 0.5
            y[:] = int(rng.integers(0, c))
            r[:] = 1.0
        elif kind == "one-row":
            m[:] = False
            m[-1] = True
            x = -np.abs(x) - 2.0
            x[-1] = 3.0
        elif kind == "ignored-targets":
            y[rng.random(n) < 0.5] = -100
        sets.append([x, r, y, m, np.int64(seed)])
    return sets


# ----------------------------------------------------------------------------
# Running one program
# ----------------------------------------------------------------------------

CRASH_MARKERS = ["LLVM ERROR", "PLEASE submit a bug report", "Assertion",
                 "Stack dump", "UNREACHABLE", "Segmentation fault"]
INVALID_MARKERS = ["null operand", "does not dominate", "<<NULL",
                   "failed to verify", "verification failed",
                   "expects different type", "use of value",
                   "operand #"]


def classify_tool_error(rc, text, refusal_words):
    """'crash', 'invalid-ir' or 'refused' for a failed tensor-opt run."""
    if rc < 0 or any(k in text for k in CRASH_MARKERS):
        return "crash"
    if any(k in text for k in INVALID_MARKERS):
        return "invalid-ir"
    if any(w in text for w in refusal_words):
        return "refused"
    return "tool-error"


def strip_stack(text):
    lines = [l for l in text.splitlines()
             if not re.match(r"\s*#\d+ 0x", l) and "PLEASE submit" not in l]
    return "\n".join(lines[:30])


class Outcome(Exception):
    """The end of a case: kind is 'pass', 'refused', 'skip' or a bug kind
    ('bug:...'); detail says what happened."""

    def __init__(self, kind, detail=""):
        Exception.__init__(self, kind)
        self.kind, self.detail = kind, detail


def without_func(module, name):
    """`module` without func.func @name, unless something refers to it."""
    m = re.search(r"^(\s*)func\.func (?:private )?@%s\(" % re.escape(name),
                  module, re.M)
    if not m:
        return module
    end = re.compile(r"^%s}\s*$" % m.group(1), re.M).search(module, m.end())
    if not end:
        return module
    rest = module[:m.start()] + module[end.end():]
    if re.search(r"@%s\b" % re.escape(name), rest):
        return module
    return rest


class Runner:
    def __init__(self, tools, verbose=False, gpu_tools=None):
        self.tools = tools
        self.verbose = verbose
        # With --gpu-pipeline: the batched program also runs through that
        # pipeline (the GPU kernels executed on the CPU).
        self.gpu_tools = gpu_tools

    def opt(self, path, passes, out):
        cmd = [self.tools.tensor_opt, path] + passes + ["-o", out]
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=120)
        except subprocess.TimeoutExpired:
            return -9, "tensor-opt timed out", cmd
        return p.returncode, p.stderr + p.stdout, cmd

    def check(self, key, prog, sets, keep=None):
        """Runs the whole check on `prog` (restricted to results `keep`).
        Raises Outcome; returns notes (batch refusal) on a pass."""
        tools = self.tools
        d = os.path.join(tools.workdir, key)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        text, _ = prog.render(keep)
        src = os.path.join(d, "dynamic.mlir")
        with open(src, "w") as f:
            f.write(text)
        results = (prog.results if keep is None
                   else [prog.results[i] for i in keep])
        nres = len(results)
        # NumPy
        refs = [prog.evaluate(s, keep) for s in sets]

        # 1. The dynamic program, each set through one @many wrapper.
        rc, err, _ = self.opt(src, [], os.devnull)
        if rc != 0:
            raise Outcome("generator-invalid", strip_stack(err))
        dyn = self.run_dynamic(key, text, prog, sets, nres)
        errors = []
        for k, (got, want) in enumerate(zip(dyn, refs)):
            for i, (g, w) in enumerate(zip(got, want)):
                errors += compare(g, w, "set %d (%s) result %d: dynamic vs "
                                  "NumPy" % (k, SET_NAMES[k], i), *REF_TOL)
        if errors:
            raise Outcome("bug:dynamic-vs-numpy", "\n".join(errors[:6]))

        # 2. --sift-staticize, then --sift-verify-static.
        static_path = os.path.join(d, "static.mlir")
        rc, err, cmd = self.opt(src, ["--sift-staticize"], static_path)
        if rc != 0:
            kind = classify_tool_error(rc, err, ["sift-staticize",
                                                 "not supported"])
            if kind == "refused":
                raise Outcome("refused", strip_stack(err).splitlines()[0])
            raise Outcome("bug:staticize-" + kind, strip_stack(err))
        # A static program that --sift-verify-static rejects is a bug, but
        # it still runs: check its values first (a wrong value is worse).
        rc, err, _ = self.opt(static_path, ["--sift-verify-static"],
                              os.devnull)
        unverified = strip_stack(err) if rc != 0 else None
        static = open(static_path).read()

        # 3. --sift-batch over the input sets; @f_rows (check_batch.py) is
        # the loop of per-sample calls of the static @f.
        size = len(sets)
        batched_path = os.path.join(d, "batched.mlir")
        rc, err, _ = self.opt(static_path,
                              ["--sift-batch=func=f size=%d" % size],
                              batched_path)
        notes = []
        if rc != 0:
            kind = classify_tool_error(rc, err, ["sift-batch",
                                                 "not supported"])
            if kind != "refused":
                raise Outcome("bug:batch-" + kind, strip_stack(err))
            notes.append("batch refused: " + strip_stack(err).splitlines()[0])
            module = static
        else:
            module = open(batched_path).read()
        end = module.rstrip().rindex("}")
        module = module[:end] + rows_function(module, size) + "\n}\n"
        stacked = [np.stack([s[a] for s in sets])
                   for a in range(len(prog.args))]
        ok, rows = tools.run(key + "/rows", module, "f_rows", stacked)
        if not ok:
            raise self.run_failure("static", rows)
        # the ABI: padded + count for each dynamic result
        _, stypes = signature(static, "f")
        want_n = sum(2 if r.dynamic else 1 for r in results)
        if len(stypes) != want_n or len(rows) != want_n:
            raise Outcome("bug:static-abi", "the static @f has %d results "
                          "(%s), expected %d" % (len(stypes),
                                                 ", ".join(stypes), want_n))
        for k in range(size):
            j = 0
            for i, r in enumerate(results):
                what = "set %d (%s) result %d" % (k, SET_NAMES[k], i)
                if r.dynamic:
                    padded, count = rows[j][k], rows[j + 1][k]
                    j += 2
                    n = int(count)
                    if count.shape != () or not 0 <= n <= padded.shape[0]:
                        errors.append("%s: count %r outside [0, %d]" %
                                      (what, count, padded.shape[0]))
                        continue
                    got = padded[:n]
                else:
                    got = rows[j][k]
                    j += 1
                errors += compare(got, dyn[k][i], what + ": static (first "
                                  "count rows) vs dynamic", *DYN_TOL)
                errors += compare(got, refs[k][i], what + ": static vs NumPy",
                                  *REF_TOL)
        if errors:
            raise Outcome("bug:static-vs-dynamic", "\n".join(errors[:6]))
        if self.gpu_tools:
            notes += self.check_gpu_static(key, static, prog, sets, rows)
        if rc == 0:
            self.check_batched(key, module, stacked, rows, size)
            if self.gpu_tools:
                notes += self.check_gpu(key, open(batched_path).read(),
                                        stacked, rows)
        if unverified:
            raise Outcome("bug:verify-static", unverified)
        return notes

    def check_batched(self, key, module, stacked, rows, size):
        """Every result of @f_batched equals the per-sample calls."""
        tools = self.tools
        errors = []
        ok, bat = tools.run(key + "/batched", module, "f_batched", stacked)
        if not ok:
            raise self.run_failure("batched", bat)
        if len(bat) != len(rows):
            errors.append("f_batched has %d results, f_rows %d" %
                          (len(bat), len(rows)))
        for i, (g, w) in enumerate(zip(bat, rows)):
            if not same_bits(g, w):
                bad = [k for k in range(size)
                       if g.shape != w.shape or not same_bits(g[k], w[k])]
                errors.append("result %d of f_batched differs from the "
                              "per-sample calls in rows %s (sets %s)\n"
                              "  batched %s\n  per-row %s" %
                              (i, bad, [SET_NAMES[k] for k in bad],
                               g[bad[0]].tolist() if bad else g.shape,
                               w[bad[0]].tolist() if bad else w.shape))
        if errors:
            raise Outcome("bug:batch-vs-rows", "\n".join(errors[:6]))

    def check_gpu_static(self, key, static, prog, sets, rows,
                         set_indices=(0, 2)):
        """The static (unbatched) @f through the GPU pipeline, on the random
        and the everything-selected sets, equals the per-sample calls on the
        CPU (as check_gpu)."""
        for k in set_indices:
            inputs, scalars = [], {}
            for pos, (a, val) in enumerate(zip(prog.args, sets[k])):
                if a.shape is None:
                    scalars[str(pos)] = int(val)
                else:
                    inputs.append(val)
            refused = self.run_gpu_and_compare(
                "%s/gpu-static-%d" % (key, k), static, "f", inputs, scalars,
                [w[k] for w in rows], "the GPU pipeline's static @f (set %d, "
                "%s)" % (k, SET_NAMES[k]), "gpu-static")
            if refused:
                return ["gpu refused (static): " + refused]
        return []

    def check_gpu(self, key, module, stacked, rows):
        """@f_batched through the GPU pipeline equals the per-sample calls
        on the CPU: integers exactly, floats within DYN_TOL (the kernels
        sum in another order). Host code the GPU pipeline refuses by design
        is a note, not a bug. Only @f_batched and what it calls are
        compiled: the per-sample @f is not what the GPU runs."""
        refused = self.run_gpu_and_compare(
            key + "/gpu", without_func(module, "f"), "f_batched", stacked, {},
            rows, "the GPU pipeline's @f_batched", "gpu")
        return ["gpu refused: " + refused] if refused else []

    def run_gpu_and_compare(self, run_key, module, entry, inputs, scalars,
                            want, what, kind):
        """Runs @entry through the GPU pipeline; its results must equal
        `want` (integers exactly, floats within DYN_TOL), else Outcome
        bug:<kind>-vs-rows. Returns the finding when the pipeline refuses
        the program as host code, else None."""
        ok, got = self.gpu_tools.run(run_key, module, entry, inputs, scalars)
        if not ok:
            if "no CUDA driver/device" in got:
                raise Outcome("skip", got.strip().splitlines()[-1])
            m = GPU_HOST_CODE.search(got)
            if m:
                return m.group(1)[:100]
            raise self.run_failure(kind, got)
        errors = []
        if len(got) != len(want):
            errors.append("%s has %d results, the per-sample calls %d" %
                          (what, len(got), len(want)))
        for i, (g, w) in enumerate(zip(got, want)):
            errors += compare(g, w, "result %d: %s vs the per-sample calls "
                              "on the CPU" % (i, what), *DYN_TOL)
        if errors:
            raise Outcome("bug:%s-vs-rows" % kind, "\n".join(errors[:6]))
        return None

    def run_failure(self, what, text):
        for pat in SKIP_PATTERNS:
            if pat.search(text):
                return Outcome("skip", "%s: %s" % (what, pat.search(text)
                                                   .group(0)))
        if "crashed" in text or any(k in text for k in CRASH_MARKERS):
            return Outcome("bug:%s-run-crash" % what, strip_stack(text))
        return Outcome("bug:%s-run-error" % what, strip_stack(text))

    def run_dynamic(self, key, text, prog, sets, nres):
        """The dynamic @f on every set: one @many that calls it per set."""
        types = signature(text, "f")[1]
        params, inputs, scalars, lines = [], [], {}, []
        pos = 0
        for k, s in enumerate(sets):
            names = []
            for a, val in zip(prog.args, s):
                nm = "%%s%d_%s" % (k, a.name[1:])
                params.append("%s: %s" % (nm, a.type))
                names.append(nm)
                if a.shape is None:
                    scalars[str(pos)] = int(val)
                else:
                    inputs.append(val)
                pos += 1
            lines.append("  %%o%d:%d = func.call @f(%s) : (%s) -> (%s)" %
                         (k, nres, ", ".join(names),
                          ", ".join(a.type for a in prog.args),
                          ", ".join(types)))
        outs = ["%%o%d#%d" % (k, i) for k in range(len(sets))
                for i in range(nres)]
        many = ("func.func @many(%s) -> (%s) {\n%s\n  return %s : %s\n}\n" %
                (", ".join(params), ", ".join(types * len(sets)),
                 "\n".join(lines), ", ".join(outs),
                 ", ".join(types * len(sets))))
        ok, res = self.tools.run(key + "/dynamic", text + many, "many",
                                 inputs, scalars)
        if not ok:
            raise self.run_failure("dynamic", res)
        return [res[k * nres:(k + 1) * nres] for k in range(len(sets))]


# ----------------------------------------------------------------------------
# Cases, minimization, reports
# ----------------------------------------------------------------------------

def make_case(seed, skip):
    rng = np.random.default_rng(seed)
    prog = Generator(rng, skip).program()
    sets = input_sets(rng, prog)
    return prog, sets


def minimize(runner, key, prog, sets, kind):
    """The results to keep: a single result that fails the same way if
    there is one (the common case), else results dropped greedily while the
    failure keeps its kind."""
    def same(keep):
        try:
            runner.check(key + "-min", prog, sets, keep)
        except Outcome as o:
            return o.kind == kind
        return False

    n = len(prog.results)
    if n == 1:
        return [0]
    for i in range(n):
        if same([i]):
            return [i]
    keep = list(range(n))
    i = 0
    while i < len(keep) and len(keep) > 1:
        trial = keep[:i] + keep[i + 1:]
        if same(trial):
            keep = trial
        else:
            i += 1
    return keep


def signature_of(prog, keep, outcome):
    """What identifies a failure: its kind, the op a tool complained about,
    and the constructs left in the minimized program."""
    _, kept = prog.render(keep)
    consumers = ("reduce", "mean", "count", "topk", "cross_entropy",
                 "extract", "for_", "size")
    tags = sorted(set(s.tag for s in kept
                      if s.tag and s.tag.startswith(consumers)))
    results = (prog.results if keep is None
               else [prog.results[i] for i in keep])
    for r in results:
        if r.dynamic:
            tag = [s.tag for s in kept if r.name in s.defs][0]
            tags.append("return-%s" % tag)
    m = re.search(r"error: ([^\n]*)\n\s*(%\S+ = )?([\w.]+)",
                  outcome.detail)
    where = ""
    if m:
        where = " [%s at %s]" % (re.sub(r"%\w+", "%_", m.group(1))[:60],
                                 m.group(3))
    return "%s%s {%s}" % (outcome.kind, where, " ".join(tags))


def seed_key(seed):
    return "seed-%d" % seed


def write_bug(out_dir, seed, prog, sets, keep, outcome, tools, opts):
    d = os.path.join(out_dir, "seed-%d" % seed)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(d)
    text, _ = prog.render(keep)
    with open(os.path.join(d, "dynamic.mlir"), "w") as f:
        f.write(text)
    cmds = ["#!/bin/sh",
            "# %s (seed %d): %s" % (outcome.kind, seed,
                                    outcome.detail.splitlines()[0]
                                    if outcome.detail else ""),
            "# replay the case:",
            "# %s %s --seed %d --count 1 --tensor-run %s --tensor-opt %s"
            % (sys.executable, os.path.abspath(__file__), seed,
               tools.tensor_run, tools.tensor_opt)
            + (" --skip '%s'" % opts.skip if opts.skip else "")
            + (" --gpu-pipeline '%s'" % opts.gpu_pipeline
               if opts.gpu_pipeline else "")
            + (" --gpu-target %s" % opts.gpu_target
               if opts.gpu_target else ""),
            "set -x",
            "%s dynamic.mlir --sift-staticize -o static.mlir" %
            tools.tensor_opt]
    for k, s in enumerate(sets):
        args = []
        for a, val in zip(prog.args, s):
            if a.shape is None:
                args.append("--arg %s=%d" % (a.name[1:], int(val)))
            else:
                p = "set%d_%s.npy" % (k, a.name[1:])
                np.save(os.path.join(d, p), val)
                args.append("--input %s" % p)
        for which in ("dynamic", "static"):
            cmds.append("%s %s.mlir -e f %s --output-dir out_%s_set%d" %
                        (tools.tensor_run, which, " ".join(args), which, k))
    cmds.append("%s static.mlir --sift-batch='func=f size=%d' -o batched.mlir"
                % (tools.tensor_opt, len(sets)))
    # A GPU-pipeline failure: its program, stacked inputs and command too
    # (Tools.run wrote them; the minimized case's when it was minimized).
    for run in ([seed_key(seed) + "-min", seed_key(seed)]
                if outcome.kind.startswith("bug:gpu") else []):
        runs = sorted(r for r in (os.listdir(os.path.join(tools.workdir, run))
                                  if os.path.isdir(os.path.join(
                                      tools.workdir, run)) else [])
                      if r.startswith("gpu"))
        for r in runs:
            shutil.copytree(os.path.join(tools.workdir, run, r),
                            os.path.join(d, r))
            cmds.append("# the GPU pipeline's run: %s/cmd.sh" % r)
        if runs:
            break
    with open(os.path.join(d, "cmd.sh"), "w") as f:
        f.write("\n".join(cmds) + "\n")
    with open(os.path.join(d, "report.txt"), "w") as f:
        f.write("%s\nseed %d; input sets: %s\n\n%s\n" %
                (outcome.kind, seed, ", ".join(SET_NAMES), outcome.detail))
    return d


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tensor-run", required=True)
    ap.add_argument("--tensor-opt", required=True)
    ap.add_argument("--seed", type=int, default=1,
                    help="seed of the first case; case i uses seed + i")
    ap.add_argument("--count", type=int, default=40,
                    help="number of programs (default 40)")
    ap.add_argument("--time-budget", type=float, default=None,
                    help="stop starting new cases after SECONDS")
    ap.add_argument("-j", type=int, default=min(2, os.cpu_count() or 1))
    ap.add_argument("--out", default=None,
                    help="directory for bug reproducers (default: a "
                    "temporary one, kept when a bug is found)")
    ap.add_argument("--keep", default=None, help="keep every case in DIR")
    ap.add_argument("--skip", default=None,
                    help="regex of construct tags not to generate")
    ap.add_argument("--gpu-pipeline", default=None, metavar="PIPELINE",
                    help="also run each batched program with tensor-run "
                    "--pipeline PIPELINE and compare it with the per-sample "
                    "calls, e.g. the GPU pipeline's kernels executed on "
                    "the CPU: 'builtin.module(sift-gpu-pipeline{on-cpu=1})'"
                    " (host code it refuses is counted, not a bug)")
    ap.add_argument("--gpu-target", default=None, choices=["cuda"],
                    help="also run each static and batched program with "
                    "tensor-run --target cuda (on a machine with a GPU: "
                    "the default GPU pipeline, launched on the device) and "
                    "compare it with the per-sample calls on the CPU, as "
                    "--gpu-pipeline does")
    ap.add_argument("--no-minimize", action="store_true")
    ap.add_argument("--print", action="store_true",
                    help="print the generated programs and exit")
    ap.add_argument("-v", action="store_true")
    opts = ap.parse_args()

    if opts.print:
        for i in range(opts.count):
            prog, _ = make_case(opts.seed + i, opts.skip)
            print("// seed %d: %s" % (opts.seed + i,
                                      " ".join(sorted(prog.tags))))
            print(prog.render()[0])
        return 0

    work = opts.keep or tempfile.mkdtemp(prefix="sift-diff-")
    out_dir = opts.out or os.path.join(work, "bugs")
    tools = Tools(opts.tensor_run, opts.tensor_opt, work, opts.v)
    if opts.gpu_pipeline and opts.gpu_target:
        ap.error("--gpu-pipeline and --gpu-target exclude each other")
    gpu_tools = None
    if opts.gpu_pipeline:
        gpu_tools = Tools(opts.tensor_run, opts.tensor_opt, work, opts.v,
                          pipeline=opts.gpu_pipeline)
    elif opts.gpu_target:
        gpu_tools = Tools(opts.tensor_run, opts.tensor_opt, work, opts.v,
                          target=opts.gpu_target)
    runner = Runner(tools, opts.v, gpu_tools)
    start = time.time()

    def one(seed):
        if opts.time_budget and time.time() - start > opts.time_budget:
            return seed, None, None, None
        try:
            prog, sets = make_case(seed, opts.skip)
        except Exception:
            return seed, Outcome("generator-error", traceback.format_exc()), \
                None, None
        key = seed_key(seed)
        try:
            notes = runner.check(key, prog, sets)
            outcome = Outcome("pass", "; ".join(notes))
        except Outcome as o:
            outcome = o
        except Exception:
            outcome = Outcome("harness-error", traceback.format_exc())
        where = None
        if outcome.kind.startswith("bug:") or outcome.kind in (
                "generator-invalid",):
            keep = None
            late = (opts.time_budget and
                    time.time() - start > 1.5 * opts.time_budget)
            if not (opts.no_minimize or late) and \
                    outcome.kind.startswith("bug:"):
                keep = minimize(runner, key, prog, sets, outcome.kind)
                if keep is not None and len(keep) < len(prog.results):
                    try:
                        runner.check(key + "-min", prog, sets, keep)
                    except Outcome as o:
                        if o.kind == outcome.kind:
                            outcome = o
            where = write_bug(out_dir, seed, prog, sets, keep, outcome,
                              tools, opts)
            outcome.signature = signature_of(prog, keep, outcome)
        if not opts.keep:
            shutil.rmtree(os.path.join(work, key), ignore_errors=True)
            shutil.rmtree(os.path.join(work, key + "-min"),
                          ignore_errors=True)
        return seed, outcome, prog, where

    counts = {}
    gpu_counts = {"compared": 0, "refused": 0, "static compared": 0,
                  "static refused": 0}
    distinct = {}
    tags = {}
    bugs = 0
    ran = 0
    seeds = range(opts.seed, opts.seed + opts.count)
    with concurrent.futures.ThreadPoolExecutor(max(1, opts.j)) as pool:
        for seed, outcome, prog, where in pool.map(one, seeds):
            if outcome is None:
                continue
            ran += 1
            kind = outcome.kind
            if kind == "pass" and gpu_tools:
                static_refused = "gpu refused (static)" in outcome.detail
                refused = "gpu refused: " in outcome.detail
                batched = "batch refused" not in outcome.detail
                gpu_counts["static refused"] += static_refused
                gpu_counts["static compared"] += not static_refused
                gpu_counts["refused"] += batched and refused
                gpu_counts["compared"] += batched and not refused
            counts[kind] = counts.get(kind, 0) + 1
            if prog is not None:
                for t in prog.tags:
                    tags[t] = tags.get(t, 0) + 1
            bad = kind.startswith("bug:") or kind in (
                "generator-invalid", "generator-error", "harness-error")
            if bad:
                bugs += 1
                print("FAIL seed %d: %s\n%s" % (seed, kind, "\n".join(
                    "    " + l for l in outcome.detail.splitlines()[:12])))
                if where:
                    print("    reproducer: %s" % where)
                sig = getattr(outcome, "signature", kind)
                distinct.setdefault(sig, []).append(seed)
                print("    replay: %s %s --seed %d --count 1 --tensor-run %s "
                      "--tensor-opt %s%s" % (
                          sys.executable, os.path.abspath(__file__), seed,
                          tools.tensor_run, tools.tensor_opt,
                          (" --skip '%s'" % opts.skip if opts.skip else "")
                          + (" --gpu-pipeline '%s'" % opts.gpu_pipeline
                             if opts.gpu_pipeline else "")
                          + (" --gpu-target %s" % opts.gpu_target
                             if opts.gpu_target else "")))
            elif opts.v:
                print("%-7s seed %d%s" % (kind, seed, (": " + outcome.detail
                                                      .splitlines()[0])
                                          if outcome.detail else ""))
            sys.stdout.flush()
    elapsed = time.time() - start
    if gpu_tools:
        print("differential: through the GPU pipeline: batched %d compared, "
              "%d refused as host code; static (unbatched) %d compared, %d "
              "refused" % (gpu_counts["compared"], gpu_counts["refused"],
                           gpu_counts["static compared"],
                           gpu_counts["static refused"]))
    print("constructs: " + ", ".join("%s %d" % kv for kv in sorted(
        tags.items())))
    print("differential: %d programs in %.0f s: %s" % (
        ran, elapsed, ", ".join("%s %d" % kv for kv in sorted(
            counts.items()))))
    if not opts.keep and not bugs:
        shutil.rmtree(work, ignore_errors=True)
    elif bugs:
        print("differential: %d distinct failures (kind [message at op] "
              "{constructs of the minimized program}):" % len(distinct))
        for sig, seeds_ in sorted(distinct.items()):
            print("  %s: seeds %s" % (sig, " ".join(map(str, seeds_))))
        print("differential: reproducers in %s" % out_dir)
    return 1 if bugs else 0


if __name__ == "__main__":
    sys.exit(main())
