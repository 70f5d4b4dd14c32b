#!/usr/bin/env python3
"""--sift-batch: row i of the batched function equals the per-sample function
on row i, bit for bit.

Each case is a per-sample function @f as people write it. The script runs
`tensor-opt [--sift-staticize] --sift-batch="func=f size=B"`, adds to the
result a reference @f_rows that calls @f once per row in an scf.for (the
"loop of per-row calls" the pass replaces), runs @f_batched and @f_rows with
tensor-run on the same random inputs and compares every result exactly (NaNs
by their bits). It covers every sift op, elementwise and linalg ops, tensor
reshapes and slices, per-row and shared control flow, loops, shared
(unbatched) arguments, batch 1, the programs of examples/patterns/ and the
seed's sampler (examples/sampler.mlir), both through --sift-staticize, on
rows of very different character (label balances, nothing or everything
selected). Per-row random
streams are also checked against the Philox reference: row i of a batched
random op is the unbatched op with seed[i].

    test/Conformance/check_batch.py --tensor-run build/bin/tensor-run \\
        --tensor-opt build/bin/tensor-opt [-k REGEX] [-j JOBS] [-v]
"""

import argparse
import concurrent.futures
import os
import re
import subprocess
import sys
import tempfile
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))

try:
    import numpy as np
except ImportError:  # pragma: no cover
    print("check_batch: skipped: numpy is not installed "
          "(scripts/bootstrap.sh installs it)")
    sys.exit(77)

from run_conformance import Fail, Tools  # noqa: E402
from sift.reference import philox  # noqa: E402


# ----------------------------------------------------------------------------
# The reference loop of per-row calls
# ----------------------------------------------------------------------------

def split_types(text):
    """Top-level comma-separated types of a signature."""
    out, depth, cur = [], 0, ""
    for ch in text:
        if ch in "<({[":
            depth += 1
        elif ch in ">)}]":
            depth -= 1
        if ch == "," and depth == 0:
            out.append(cur.strip())
            cur = ""
        else:
            cur += ch
    if cur.strip():
        out.append(cur.strip())
    return out


def signature(mlir, name):
    """(argument types, result types) of func.func @name."""
    m = re.search(r"func\.func (?:public |private )?@%s\(" % re.escape(name),
                  mlir)
    if not m:
        raise Fail("no @%s in:\n%s" % (name, mlir))
    i, depth = m.end(), 1
    while depth:
        depth += {"(": 1, ")": -1}.get(mlir[i], 0)
        i += 1
    args = [re.sub(r"\s*\{.*\}$", "", a.split(":", 1)[1].strip())
            for a in split_types(mlir[m.end():i - 1])]
    rest = mlir[i:].lstrip()
    results = []
    if rest.startswith("->"):
        rest = rest[2:].lstrip()
        if rest.startswith("("):
            j, depth = 1, 1
            while depth:
                depth += {"(": 1, ")": -1}.get(rest[j], 0)
                j += 1
            results = split_types(rest[1:j - 1])
        else:
            results = [rest.split("{", 1)[0].strip()]
    return args, results


def shape_elt(t):
    """('tensor', dims, elt) or ('scalar', [], t)."""
    m = re.fullmatch(r"tensor<(.*)>", t)
    if not m:
        return "scalar", [], t
    parts = m.group(1).split("x")
    return "tensor", [int(d) for d in parts[:-1]], parts[-1]


def tensor_text(dims, elt):
    return "tensor<%s>" % "x".join([str(d) for d in dims] + [elt])


def rows_function(mlir, size, shared=()):
    """@f_rows: @f called on each row, results stacked like @f_batched's."""
    args, results = signature(mlir, "f")
    lines = []
    params = []
    for i, t in enumerate(args):
        kind, dims, elt = shape_elt(t)
        if i in shared:
            params.append("%%a%d: %s" % (i, t))
        else:
            params.append("%%a%d: %s" % (i, tensor_text([size] + dims, elt)))
    outs = [tensor_text([size] + shape_elt(t)[1], shape_elt(t)[2])
            for t in results]
    lines.append("func.func @f_rows(%s) -> (%s) {" %
                 (", ".join(params), ", ".join(outs)))
    lines.append("  %c0 = arith.constant 0 : index")
    lines.append("  %c1 = arith.constant 1 : index")
    lines.append("  %%cB = arith.constant %d : index" % size)
    for k, t in enumerate(outs):
        lines.append("  %%init%d = tensor.empty() : %s" % (k, t))
    iters = ", ".join("%%acc%d = %%init%d" % (k, k) for k in range(len(outs)))
    lines.append("  %%res:%d = scf.for %%i = %%c0 to %%cB step %%c1 "
                 "iter_args(%s) -> (%s) {" % (len(outs), iters,
                                              ", ".join(outs)))
    call_args = []
    for i, t in enumerate(args):
        kind, dims, elt = shape_elt(t)
        if i in shared:
            call_args.append("%%a%d" % i)
        elif kind == "scalar":
            lines.append("    %%r%d = tensor.extract %%a%d[%%i] : %s" %
                         (i, i, tensor_text([size], elt)))
            call_args.append("%%r%d" % i)
        else:
            offs = ", ".join(["%i"] + ["0"] * len(dims))
            sizes = ", ".join(["1"] + [str(d) for d in dims])
            strides = ", ".join(["1"] * (len(dims) + 1))
            lines.append("    %%r%d = tensor.extract_slice %%a%d[%s] [%s] [%s]"
                         " : %s to %s" % (i, i, offs, sizes, strides,
                                          tensor_text([size] + dims, elt), t))
            call_args.append("%%r%d" % i)
    lines.append("    %%out:%d = func.call @f(%s) : (%s) -> (%s)" %
                 (len(results), ", ".join(call_args), ", ".join(args),
                  ", ".join(results)))
    new = []
    for k, t in enumerate(results):
        kind, dims, elt = shape_elt(t)
        if kind == "scalar":
            lines.append("    %%n%d = tensor.insert %%out#%d into %%acc%d[%%i]"
                         " : %s" % (k, k, k, outs[k]))
        else:
            offs = ", ".join(["%i"] + ["0"] * len(dims))
            sizes = ", ".join(["1"] + [str(d) for d in dims])
            strides = ", ".join(["1"] * (len(dims) + 1))
            lines.append("    %%n%d = tensor.insert_slice %%out#%d into "
                         "%%acc%d[%s] [%s] [%s] : %s into %s" %
                         (k, k, k, offs, sizes, strides, t, outs[k]))
        new.append("%%n%d" % k)
    lines.append("    scf.yield %s : %s" % (", ".join(new), ", ".join(outs)))
    lines.append("  }")
    lines.append("  return %s : %s" % (
        ", ".join("%%res#%d" % k for k in range(len(outs))), ", ".join(outs)))
    lines.append("}")
    return "\n".join(lines)


# ----------------------------------------------------------------------------
# Running a case
# ----------------------------------------------------------------------------

NP = {"i1": np.bool_, "i8": np.int8, "i16": np.int16, "i32": np.int32,
      "i64": np.int64, "f16": np.float16, "f32": np.float32,
      "f64": np.float64}


def same_bits(a, b):
    """Bit for bit, -0.0 and 0.0 apart; but any NaN equals any NaN: which
    operand's NaN an addition of two NaNs returns (and so its sign) depends
    on the operand order, which IEEE 754 leaves open."""
    if a.shape != b.shape or a.dtype != b.dtype:
        return False
    if a.dtype.kind == "f":
        both_nan = np.isnan(a) & np.isnan(b)
        u = np.dtype("u%d" % a.dtype.itemsize)
        return np.array_equal(np.where(both_nan, 0, a.view(u)),
                              np.where(both_nan, 0, b.view(u)))
    return np.array_equal(a, b)


class Case:
    """A per-sample function @f and a generator of its batched inputs:
    gen(rng, size) returns one array per batched argument (with the batch
    dimension) in order; `shared` maps argument positions to the value every
    row gets (a scalar or an array)."""

    def __init__(self, name, mlir, gen, size=4, shared=None,
                 staticize=False, check=None):
        self.name, self.mlir, self.gen, self.size = name, mlir, gen, size
        self.shared = shared or {}
        self.staticize = staticize
        self.check = check

    def run(self, tools):
        d = os.path.join(tools.workdir, self.name)
        os.makedirs(d, exist_ok=True)
        src = os.path.join(d, "f.mlir")
        with open(src, "w") as f:
            f.write(self.mlir)
        passes = ["--sift-staticize"] if self.staticize else []
        option = "func=f size=%d" % self.size
        if self.shared:
            option += " unbatched=%s" % ",".join(
                str(i) for i in sorted(self.shared))
        passes.append("--sift-batch=%s" % option)
        p = subprocess.run([tools.tensor_opt, src] + passes,
                           capture_output=True, text=True, timeout=300)
        if p.returncode != 0:
            raise Fail("tensor-opt %s failed:\n%s" % (" ".join(passes),
                                                     p.stderr.strip()))
        batched = p.stdout
        if "@f_batched" not in batched:
            raise Fail("no @f_batched in the output")
        # @f_rows goes inside the printed module, before its closing brace.
        end = batched.rstrip().rindex("}")
        program = (batched[:end] + rows_function(batched, self.size,
                                                 self.shared) + "\n}\n")
        rng = np.random.default_rng(abs(hash(self.name)) % (2 ** 32))
        inputs = self.gen(rng, self.size)
        # Inputs in argument order: arrays for tensors, --arg for scalars.
        arrays, scalars = [], {}
        args, _ = signature(batched, "f_batched")
        it = iter(inputs)
        for i, t in enumerate(args):
            if i in self.shared:
                v = self.shared[i]
                if isinstance(v, np.ndarray):
                    arrays.append(v)
                else:
                    scalars[str(i)] = v
            else:
                arrays.append(next(it))
        got = tools.must_run(self.name + "/batched", program, "f_batched",
                             arrays, scalars)
        want = tools.must_run(self.name + "/rows", program, "f_rows", arrays,
                              scalars)
        errors = []
        if len(got) != len(want):
            errors.append("%d results, the loop gives %d" %
                          (len(got), len(want)))
        for k, (g, w) in enumerate(zip(got, want)):
            if not same_bits(g, w):
                rows = [i for i in range(min(len(g), len(w)))
                        if g.shape != w.shape or not same_bits(g[i], w[i])]
                errors.append("result %d differs from the per-row calls in "
                              "rows %s (shape %s vs %s)" %
                              (k, rows[:8], g.shape, w.shape))
        if self.check:
            errors += self.check(inputs, got)
        if errors:
            raise Fail("\n".join(errors))


# ----------------------------------------------------------------------------
# Cases
# ----------------------------------------------------------------------------

def ints(lo, hi, *shape, dtype=np.int64):
    return lambda rng, b: rng.integers(lo, hi, size=(b,) + shape).astype(
        dtype)


def floats(*shape, dtype=np.float32):
    return lambda rng, b: rng.standard_normal((b,) + shape).astype(dtype)


def gens(*parts):
    return lambda rng, b: [p(rng, b) for p in parts]


def seeds():
    return lambda rng, b: rng.integers(0, 2 ** 62, size=(b,)).astype(
        np.int64)


def philox_rows(k, shape, offset=0):
    """Row i of result k equals the reference stream of seed[i]."""
    def check(inputs, got):
        errors = []
        seed = inputs[0]
        for i in range(len(seed)):
            n = int(np.prod(shape))
            want = np.asarray(philox.random_bits(int(seed[i]), offset, n))
            want = want.astype(np.uint32).view(np.int32).reshape(shape)
            if not np.array_equal(got[k][i], want):
                errors.append("row %d is not Philox(seed[%d])" % (i, i))
        return errors
    return check


def build_cases():
    cases = []
    add = cases.append

    add(Case("elementwise", """
func.func @f(%x: tensor<8xf32>, %y: tensor<8xf32>, %s: f32) -> (tensor<8xf32>, tensor<8xi1>, f32) {
  %c = arith.constant dense<2.0> : tensor<8xf32>
  %a = arith.mulf %x, %c : tensor<8xf32>
  %b = arith.addf %a, %y : tensor<8xf32>
  %e = math.exp %b : tensor<8xf32>
  %m = arith.cmpf ogt, %e, %x : tensor<8xf32>
  %t = arith.select %m, %e, %y : tensor<8xi1>, tensor<8xf32>
  %two = arith.constant 2.0 : f32
  %s2 = arith.mulf %s, %two : f32
  return %t, %m, %s2 : tensor<8xf32>, tensor<8xi1>, f32
}""", gens(floats(8), floats(8), floats())))

    add(Case("shared-argument", """
func.func @f(%x: tensor<6xf32>, %w: tensor<6xf32>, %k: i64) -> (tensor<6xf32>, tensor<i64>) {
  %p = arith.mulf %x, %w : tensor<6xf32>
  %t = tensor.from_elements %k : tensor<i64>
  return %p, %t : tensor<6xf32>, tensor<i64>
}""", gens(floats(6)), shared={1: np.arange(6, dtype=np.float32),
                                2: 42}))

    add(Case("linalg-named", """
func.func @f(%x: tensor<4x3xf32>, %w: tensor<3x5xf32>) -> (tensor<4x5xf32>, tensor<4xf32>) {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x5xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<4x5xf32>) -> tensor<4x5xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x3xf32>, tensor<3x5xf32>) outs(%o : tensor<4x5xf32>) -> tensor<4x5xf32>
  %e2 = tensor.empty() : tensor<4xf32>
  %o2 = linalg.fill ins(%z : f32) outs(%e2 : tensor<4xf32>) -> tensor<4xf32>
  %r = linalg.reduce ins(%m : tensor<4x5xf32>) outs(%o2 : tensor<4xf32>) dimensions = [1]
    (%in: f32, %acc: f32) {
      %s = arith.addf %in, %acc : f32
      linalg.yield %s : f32
    }
  return %m, %r : tensor<4x5xf32>, tensor<4xf32>
}""", gens(floats(4, 3)), shared={1: np.linspace(-1, 1, 15).astype(
        np.float32).reshape(3, 5)}))

    add(Case("linalg-generic-index-capture", """
func.func @f(%x: tensor<10xi64>, %n: i64) -> tensor<10xi64> {
  %e = tensor.empty() : tensor<10xi64>
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>],
                       iterator_types = ["parallel"]}
      ins(%x : tensor<10xi64>) outs(%e : tensor<10xi64>) {
  ^bb0(%in: i64, %out: i64):
    %i = linalg.index 0 : index
    %i64 = arith.index_cast %i : index to i64
    %lt = arith.cmpi slt, %i64, %n : i64
    %v = arith.addi %in, %i64 : i64
    %m1 = arith.constant -1 : i64
    %s = arith.select %lt, %v, %m1 : i64
    linalg.yield %s : i64
  } -> tensor<10xi64>
  return %r : tensor<10xi64>
}""", gens(ints(-5, 5, 10), ints(0, 11))))

    add(Case("tensor-ops", """
func.func @f(%x: tensor<12xi32>, %i: index) -> (tensor<3x4xi32>, tensor<2x2xi32>, tensor<14xi32>, i32, i32, tensor<12xi32>) {
  %r = tensor.expand_shape %x [[0, 1]] output_shape [3, 4] : tensor<12xi32> into tensor<3x4xi32>
  %s = tensor.extract_slice %r[1, 1] [2, 2] [1, 1] : tensor<3x4xi32> to tensor<2x2xi32>
  %c = tensor.collapse_shape %s [[0, 1]] : tensor<2x2xi32> into tensor<4xi32>
  %h = tensor.extract_slice %x[0] [10] [1] : tensor<12xi32> to tensor<10xi32>
  %cat = tensor.concat dim(0) %c, %h : (tensor<4xi32>, tensor<10xi32>) -> tensor<14xi32>
  %c3 = arith.constant 3 : index
  %a = tensor.extract %x[%c3] : tensor<12xi32>
  %b = tensor.extract %x[%i] : tensor<12xi32>
  %z = arith.constant dense<0> : tensor<2xi32>
  %ins = tensor.insert_slice %z into %x[4] [2] [1] : tensor<2xi32> into tensor<12xi32>
  return %r, %s, %cat, %a, %b, %ins : tensor<3x4xi32>, tensor<2x2xi32>, tensor<14xi32>, i32, i32, tensor<12xi32>
}""", gens(ints(-9, 9, 12, dtype=np.int32)), shared={1: 7}))

    add(Case("count-compact-cumsum", """
func.func @f(%m: tensor<4x30xi1>, %x: tensor<30xi64>) -> (tensor<4xi64>, tensor<4x30xi64>, tensor<4xi64>, tensor<30xi64>, tensor<4x30xi64>) {
  %n = sift.count %m : tensor<4x30xi1> -> tensor<4xi64>
  %i, %k = sift.compact %m {fill = -1 : i64} : tensor<4x30xi1> -> tensor<4x30xi64>, tensor<4xi64>
  %s = sift.cumsum %x exclusive : tensor<30xi64> -> tensor<30xi64>
  %t = sift.cumsum %m {dim = 1 : i64} : tensor<4x30xi1> -> tensor<4x30xi64>
  return %n, %i, %k, %s, %t : tensor<4xi64>, tensor<4x30xi64>, tensor<4xi64>, tensor<30xi64>, tensor<4x30xi64>
}""", lambda rng, b: [rng.random((b, 4, 30)) < rng.random((b, 1, 1)),
                      rng.integers(-50, 50, (b, 30))]))

    add(Case("sort-argsort-topk", """
func.func @f(%x: tensor<3x40xf32>, %y: tensor<50xi32>) -> (tensor<3x40xf32>, tensor<3x40xi64>, tensor<50xi64>, tensor<3x5xf32>, tensor<3x5xi64>, tensor<3x5xf32>, tensor<3x5xi64>, tensor<3x40xi64>) {
  %v, %i = sift.sort %x descending {dim = 1 : i64} : tensor<3x40xf32> -> tensor<3x40xf32>, tensor<3x40xi64>
  %a = sift.argsort %y : tensor<50xi32> -> tensor<50xi64>
  %tv, %ti = sift.topk %x k(5) : tensor<3x40xf32> -> tensor<3x5xf32>, tensor<3x5xi64>
  %uv, %ui = sift.topk %x k(5) smallest unsorted {dim = -1 : i64} : tensor<3x40xf32> -> tensor<3x5xf32>, tensor<3x5xi64>
  %c = sift.argsort %x {dim = 0 : i64} : tensor<3x40xf32> -> tensor<3x40xi64>
  return %v, %i, %a, %tv, %ti, %uv, %ui, %c : tensor<3x40xf32>, tensor<3x40xi64>, tensor<50xi64>, tensor<3x5xf32>, tensor<3x5xi64>, tensor<3x5xf32>, tensor<3x5xi64>, tensor<3x40xi64>
}""", lambda rng, b: [np.round(rng.standard_normal((b, 3, 40)), 1).astype(
        np.float32), rng.integers(-4, 4, (b, 50)).astype(np.int32)]))

    add(Case("gather", """
func.func @f(%src: tensor<20x3xf32>, %idx: tensor<7xi64>, %table: tensor<20xi64>, %rows: tensor<2x20xi64>, %ri: tensor<2x4xi64>) -> (tensor<7x3xf32>, tensor<7xi64>, tensor<2x4xi64>) {
  %g = sift.gather %src[%idx] : tensor<20x3xf32>, tensor<7xi64> -> tensor<7x3xf32>
  %t = sift.gather %table[%idx] {fill = -7 : i64} : tensor<20xi64>, tensor<7xi64> -> tensor<7xi64>
  %b = sift.gather %rows[%ri] {batch_dims = 1 : i64, fill = -1 : i64} : tensor<2x20xi64>, tensor<2x4xi64> -> tensor<2x4xi64>
  return %g, %t, %b : tensor<7x3xf32>, tensor<7xi64>, tensor<2x4xi64>
}""", gens(floats(20, 3), ints(-2, 22, 7), ints(-1, 21, 2, 4)),
        shared={2: np.arange(100, 120, dtype=np.int64),
                3: np.arange(40, dtype=np.int64).reshape(2, 20)}))

    add(Case("scatter", """
func.func @f(%d: tensor<6x3xf32>, %i: tensor<9xi64>, %u: tensor<9x3xf32>, %h: tensor<5xi64>, %c: tensor<9xi64>, %bd: tensor<2x7xi32>, %bi: tensor<2x4xi64>, %bu: tensor<2x4xi32>) -> (tensor<6x3xf32>, tensor<6x3xf32>, tensor<5xi64>, tensor<2x7xi32>) {
  %a = sift.scatter %u into %d[%i] reduce(add) : tensor<9x3xf32>, tensor<9xi64> into tensor<6x3xf32>
  %n = sift.scatter %u into %d[%i] : tensor<9x3xf32>, tensor<9xi64> into tensor<6x3xf32>
  %one = arith.constant dense<1> : tensor<9xi64>
  %b = sift.scatter %one into %h[%c] reduce(add) : tensor<9xi64>, tensor<9xi64> into tensor<5xi64>
  %m = sift.scatter %bu into %bd[%bi] reduce(max) {batch_dims = 1 : i64} : tensor<2x4xi32>, tensor<2x4xi64> into tensor<2x7xi32>
  return %a, %n, %b, %m : tensor<6x3xf32>, tensor<6x3xf32>, tensor<5xi64>, tensor<2x7xi32>
}""", gens(floats(6, 3), ints(-1, 7, 9), floats(9, 3), ints(-1, 6, 9),
           ints(-1, 8, 2, 4), ints(-9, 9, 2, 4, dtype=np.int32)),
        shared={3: np.arange(5, dtype=np.int64),
                5: np.zeros((2, 7), np.int32)}))

    add(Case("random", """
func.func @f(%seed: i64) -> (tensor<2x9xi32>, tensor<5xf32>, tensor<3xi64>, tensor<7xi64>, tensor<4xf64>) {
  %one = arith.constant 1 : i64
  %b = sift.random_bits %seed : tensor<2x9xi32>
  %u = sift.random_uniform %seed offset %one : tensor<5xf32>
  %w = sift.random_bits %seed offset %one : tensor<3xi64>
  %c7 = arith.constant 7 : index
  %p = sift.randperm %c7, %seed sort : tensor<7xi64>
  %d = sift.random_uniform %seed : tensor<4xf64>
  return %b, %u, %w, %p, %d : tensor<2x9xi32>, tensor<5xf32>, tensor<3xi64>, tensor<7xi64>, tensor<4xf64>
}""", gens(seeds()), check=philox_rows(0, (2, 9))))

    # The Feistel randperm (the default): a static one, and the lanes of a
    # per-sample n with a per-sample seed and a shared offset.
    add(Case("randperm", """
func.func @f(%seed: i64, %n: index, %off: i64) -> (tensor<300xi64>, tensor<9xi64>, tensor<2x5xi64>) {
  %c300 = arith.constant 300 : index
  %p = sift.randperm %c300, %seed : tensor<300xi64>
  %q = sift.randperm_prefix %n, %seed offset %off : (index, i64, i64) -> tensor<9xi64>
  %ns = tensor.from_elements %n, %c300 : tensor<2xindex>
  %r = sift.randperm_prefix %ns, %seed : (tensor<2xindex>, i64) -> tensor<2x5xi64>
  return %p, %q, %r : tensor<300xi64>, tensor<9xi64>, tensor<2x5xi64>
}""", gens(seeds(), ints(-2, 12)), shared={2: 3}))

    add(Case("random-shared-seed-per-row-offset", """
func.func @f(%seed: i64, %step: i64) -> tensor<6xi32> {
  %b = sift.random_bits %seed offset %step : tensor<6xi32>
  return %b : tensor<6xi32>
}""", gens(ints(0, 1000)), shared={0: 5}))

    add(Case("sample-balanced", """
func.func @f(%labels: tensor<3x200xi64>, %seed: i64) -> (tensor<3x16xi64>, tensor<3xi64>) {
  %one = arith.constant 1 : i64
  %i, %n = sift.sample_balanced %labels, %seed offset %one {num_samples = 16 : i64, positive_fraction = 0.25 : f64} : tensor<3x200xi64> -> tensor<3x16xi64>, tensor<3xi64>
  return %i, %n : tensor<3x16xi64>, tensor<3xi64>
}""", lambda rng, b: [
        (rng.random((b, 3, 200)) < rng.random((b, 1, 1))).astype(np.int64)
        - (rng.random((b, 3, 200)) < 0.1).astype(np.int64),
        rng.integers(0, 2 ** 40, (b,))]))

    add(Case("cross-entropy", """
func.func @f(%x: tensor<6x5xf32>, %t: tensor<6xi64>, %w: tensor<5xf32>) -> (tensor<f32>, tensor<f32>, tensor<6xf32>, tensor<f32>) {
  %m = sift.cross_entropy %x, %t reduction = mean : tensor<6x5xf32>, tensor<6xi64> -> tensor<f32>
  %s = sift.cross_entropy %x, %t weight(%w : tensor<5xf32>) reduction = sum {label_smoothing = 0.1 : f64} : tensor<6x5xf32>, tensor<6xi64> -> tensor<f32>
  %n = sift.cross_entropy %x, %t reduction = none {label_smoothing = 0.2 : f64} : tensor<6x5xf32>, tensor<6xi64> -> tensor<6xf32>
  %w2 = sift.cross_entropy %x, %t weight(%w : tensor<5xf32>) reduction = mean : tensor<6x5xf32>, tensor<6xi64> -> tensor<f32>
  return %m, %s, %n, %w2 : tensor<f32>, tensor<f32>, tensor<6xf32>, tensor<f32>
}""", lambda rng, b: [
        (rng.standard_normal((b, 6, 5)) * 4).astype(np.float32),
        np.where(rng.random((b, 6)) < 0.2, -100,
                 rng.integers(0, 5, (b, 6))).astype(np.int64)],
        shared={2: np.array([1, 2, 0.5, 1, 3], dtype=np.float32)}))

    add(Case("if-per-row", """
func.func @f(%x: tensor<5xi64>, %k: i64) -> (tensor<5xi64>, i64) {
  %z = arith.constant 0 : i64
  %c = arith.cmpi sgt, %k, %z : i64
  %r:2 = scf.if %c -> (tensor<5xi64>, i64) {
    %n = sift.cumsum %x : tensor<5xi64> -> tensor<5xi64>
    scf.yield %n, %k : tensor<5xi64>, i64
  } else {
    %m = arith.muli %k, %k : i64
    scf.yield %x, %m : tensor<5xi64>, i64
  }
  return %r#0, %r#1 : tensor<5xi64>, i64
}""", gens(ints(-9, 9, 5), ints(-3, 3))))

    # Per-row branches whose untaken side would read out of range or divide
    # by zero: guarded (clamped index, divisor 1) before both sides run.
    add(Case("if-per-row-guarded", """
func.func @f(%x: tensor<6xf32>, %k: index, %d: i64) -> (f32, i64) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %z = arith.constant 0 : i64
  %dflt = arith.constant -1.0 : f32
  %has = arith.cmpi sgt, %k, %c0 : index
  %v = scf.if %has -> f32 {
    %last = arith.subi %k, %c1 : index
    %e = tensor.extract %x[%last] : tensor<6xf32>
    scf.yield %e : f32
  } else {
    scf.yield %dflt : f32
  }
  %nz = arith.cmpi ne, %d, %z : i64
  %hundred = arith.constant 100 : i64
  %q = scf.if %nz -> i64 {
    %r = arith.divsi %hundred, %d : i64
    scf.yield %r : i64
  } else {
    scf.yield %z : i64
  }
  return %v, %q : f32, i64
}""", gens(floats(6), ints(0, 7, dtype=np.int64), ints(-2, 3))))

    # A per-row branch nested in the else branch of another (if/elif on
    # sizes): the inner one is if-converted while the outer one's hoisted
    # ops are batched.
    add(Case("if-per-row-nested", """
func.func @f(%a: index, %b: index) -> (index, index) {
  %c5 = arith.constant 5 : index
  %c10 = arith.constant 10 : index
  %lt = arith.cmpi slt, %a, %c5 : index
  %r:2 = scf.if %lt -> (index, index) {
    %rest = arith.subi %c10, %a : index
    scf.yield %rest, %a : index, index
  } else {
    %lt2 = arith.cmpi slt, %b, %c5 : index
    %r2:2 = scf.if %lt2 -> (index, index) {
      %rest = arith.subi %c10, %b : index
      scf.yield %b, %rest : index, index
    } else {
      scf.yield %c5, %c5 : index, index
    }
    scf.yield %r2#0, %r2#1 : index, index
  }
  return %r#0, %r#1 : index, index
}""", gens(ints(0, 10, dtype=np.int64), ints(0, 10, dtype=np.int64))))

    add(Case("if-shared", """
func.func @f(%x: tensor<5xi64>, %flag: i1) -> tensor<5xi64> {
  %r = scf.if %flag -> tensor<5xi64> {
    %n = sift.cumsum %x : tensor<5xi64> -> tensor<5xi64>
    scf.yield %n : tensor<5xi64>
  } else {
    %c = arith.constant dense<3> : tensor<5xi64>
    scf.yield %c : tensor<5xi64>
  }
  return %r : tensor<5xi64>
}""", gens(ints(-9, 9, 5)), shared={1: 1}))

    add(Case("for-loop", """
func.func @f(%x: tensor<6xf32>, %k: i64) -> (tensor<6xf32>, i64, tensor<6xi64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant dense<0.0> : tensor<6xf32>
  %half = arith.constant dense<0.5> : tensor<6xf32>
  %n0 = arith.constant 0 : i64
  %ids = arith.constant dense<[5, 4, 3, 2, 1, 0]> : tensor<6xi64>
  %r:3 = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero, %n = %n0, %perm = %ids) -> (tensor<6xf32>, i64, tensor<6xi64>) {
    %a = arith.mulf %acc, %half : tensor<6xf32>
    %s = arith.addf %a, %x : tensor<6xf32>
    %m = arith.addi %n, %k : i64
    %p = sift.gather %perm[%perm] : tensor<6xi64>, tensor<6xi64> -> tensor<6xi64>
    scf.yield %s, %m, %p : tensor<6xf32>, i64, tensor<6xi64>
  }
  return %r#0, %r#1, %r#2 : tensor<6xf32>, i64, tensor<6xi64>
}""", gens(floats(6), ints(-5, 5))))

    add(Case("nonzero-masked-select-unique", """
func.func @f(%x: tensor<40xi64>) -> (tensor<?xi64>, tensor<?xi64>, tensor<?xi64>) {
  %z = arith.constant dense<0> : tensor<40xi64>
  %m = arith.cmpi sgt, %x, %z : tensor<40xi64>
  %nz = sift.nonzero %m : tensor<40xi1> -> tensor<?xi64>
  %ms = sift.masked_select %x, %m : tensor<40xi64>, tensor<40xi1> -> tensor<?xi64>
  %u = sift.unique %x : tensor<40xi64> -> tensor<?xi64>
  return %nz, %ms, %u : tensor<?xi64>, tensor<?xi64>, tensor<?xi64>
}""", lambda rng, b: [rng.integers(-8, 8, (b, 40)) *
                      (rng.random((b, 1)) < 0.8)], staticize=True))

    add(Case("unique-of-selected-flags", """
func.func @f(%x: tensor<24xi1>, %m: tensor<24xi1>) -> (tensor<?xi1>, tensor<?xi64>, tensor<?xi64>) {
  %sel = sift.masked_select %x, %m : tensor<24xi1>, tensor<24xi1> -> tensor<?xi1>
  %u, %inv, %cnt = sift.unique %sel inverse counts : tensor<?xi1> -> tensor<?xi1>, tensor<?xi64>, tensor<?xi64>
  return %u, %inv, %cnt : tensor<?xi1>, tensor<?xi64>, tensor<?xi64>
}""", lambda rng, b: [rng.random((b, 24)) < rng.random((b, 1)),
                      rng.random((b, 24)) < rng.random((b, 1))],
             staticize=True))

    # The programs of examples/patterns/, as their authors wrote them, with
    # rows of different character (nothing selected, everything selected,
    # ties, random).
    def pattern(name, entry):
        text = open(os.path.join(ROOT, "examples", "patterns",
                                 name + ".mlir")).read()
        return text.replace("func.func @%s(" % entry, "func.func @f(")

    def per_row(*makers):
        def gen(rng, b):
            return [np.stack([m(rng, i) for i in range(b)]) for m in makers]
        return gen

    add(Case("pattern-det-postprocess-topn",
             pattern("det_postprocess_topn", "postprocess"),
             per_row(lambda rng, i: rng.standard_normal((2000, 4)).astype(
                         np.float32),
                     lambda rng, i: [rng.random(2000), np.full(2000, 0.01),
                                     np.round(rng.random(2000), 1),
                                     rng.random(2000) + 0.1][i % 4].astype(
                         np.float32))))
    add(Case("pattern-recsys-dedupe", pattern("recsys_dedupe", "dedupe"),
             per_row(lambda rng, i: [rng.integers(0, 1000, 256),
                                     np.full(256, 17),
                                     np.arange(256) * 3,
                                     rng.integers(0, 1100, 256)][i % 4]
                     .astype(np.int64)),
             shared={1: np.random.default_rng(1).standard_normal(
                 (1000, 8)).astype(np.float32)}))
    add(Case("pattern-rpn-positive-l1",
             pattern("rpn_positive_l1", "positive_l1"),
             per_row(lambda rng, i: [rng.random(512), np.zeros(512),
                                     np.ones(512), rng.random(512)][i % 4]
                     .astype(np.float32),
                     lambda rng, i: rng.standard_normal((512, 4)).astype(
                         np.float32),
                     lambda rng, i: rng.standard_normal((512, 4)).astype(
                         np.float32))))
    add(Case("pattern-seg-valid-pixels-loss",
             pattern("seg_valid_pixels_loss", "valid_pixels_loss"),
             per_row(lambda rng, i: rng.standard_normal((4096, 21)).astype(
                         np.float32),
                     lambda rng, i: np.where(
                         rng.random(4096) < [0.2, 1.0, 0.0, 0.5][i % 4], 255,
                         rng.integers(0, 21, 4096)).astype(np.int64))))
    add(Case("pattern-ssd-hard-negatives",
             pattern("ssd_hard_negatives", "hard_negatives"),
             per_row(lambda rng, i: rng.random(1000).astype(np.float32),
                     lambda rng, i: [
                         np.where(rng.random(1000) < 0.05, 1,
                                  np.where(rng.random(1000) < 0.9, 0, -1)),
                         np.zeros(1000), np.ones(1000),
                         np.array([1] * 900 + [0] * 50 + [-1] * 50)][i % 4]
                     .astype(np.int64))))

    add(Case("pattern-balanced-counts-branches",
             pattern("balanced_counts_branches", "balanced_counts"),
             per_row(lambda rng, i: [rng.integers(-1, 2, 200),
                                     np.array([1] * 150 + [0] * 5 + [-1] * 45),
                                     np.array([1] * 3 + [0] * 150 + [-1] * 47),
                                     np.full(200, -1)][i % 4]
                     .astype(np.int64))))
    add(Case("pattern-budgeted-topn-helper",
             pattern("budgeted_topn_helper", "budgeted_topn"),
             per_row(lambda rng, i: rng.standard_normal((300, 4)).astype(
                         np.float32),
                     lambda rng, i: [rng.random(300),
                                     np.round(rng.random(300), 1)][i % 2]
                     .astype(np.float32),
                     lambda rng, i: np.array([17, 0, 300, 5][i % 4],
                                             np.int64))))
    add(Case("pattern-selected-target-logits",
             pattern("selected_target_logits", "target_logits"),
             per_row(lambda rng, i: rng.standard_normal((256, 5)).astype(
                         np.float32),
                     lambda rng, i: [rng.integers(-1, 5, 256),
                                     np.full(256, -1), rng.integers(0, 5, 256),
                                     rng.integers(-1, 5, 256)][i % 4]
                     .astype(np.int64))))
    add(Case("pattern-nested-selection",
             pattern("nested_selection", "nested_selection"),
             per_row(lambda rng, i: rng.standard_normal((300, 4)).astype(
                         np.float32),
                     lambda rng, i: [rng.random(300), np.full(300, 0.01),
                                     np.full(300, 0.3), rng.random(300)][i % 4]
                     .astype(np.float32))))
    add(Case("pattern-fallback-selection",
             pattern("fallback_selection", "fallback_selection"),
             per_row(lambda rng, i: rng.standard_normal((200, 4)).astype(
                         np.float32),
                     lambda rng, i: [rng.random(200), rng.random(200) * 0.5,
                                     np.full(200, 0.01), np.zeros(200),
                                     np.full(200, 0.9)][i % 5]
                     .astype(np.float32))))
    add(Case("pattern-cascade-filter",
             pattern("cascade_filter", "cascade_filter"),
             per_row(lambda rng, i: rng.standard_normal((200, 4)).astype(
                         np.float32),
                     lambda rng, i: rng.random(200).astype(np.float32),
                     lambda rng, i: np.array([[0.2, 0.5, 0.7],
                                              [1.5, 0.1, 0.2],
                                              [0.1, 0.3, 2.0],
                                              [-1.0, -1.0, -1.0]][i % 4],
                                             np.float32))))
    def triples(rng, i):
        flat = np.full(100, -1, np.int64)
        k = [20, 0, 1, 33][i % 4]
        flat[:3 * k] = rng.integers(0, 50, 3 * k)
        return np.roll(flat, 7 * i)
    for mode in (0, 2):
        add(Case("pattern-mode-selection-%d" % mode,
                 pattern("mode_selection", "mode_selection"),
                 per_row(lambda rng, i: rng.random(128).astype(np.float32),
                         lambda rng, i: rng.choice(
                             [-1, 0, 1], 128,
                             p=[[0.2, 0.5, 0.3], [1, 0, 0], [0, 0, 1]][i % 3])
                         .astype(np.int64)),
                 shared={2: mode}))
    add(Case("pattern-valid-fg-presence",
             pattern("valid_fg_presence", "valid_fg_presence"),
             per_row(lambda rng, i: rng.choice(
                 [-1, 0, 1], 256, p=[[0.3, 0.5, 0.2], [1, 0, 0], [0.5, 0, 0.5],
                                     [0, 1, 0]][i % 4]).astype(np.int64))))
    def kept_scores(rng, i):
        scores = np.where(rng.random(64) < [0.4, 0.0, 1.0][i % 3], 0.75,
                          0.25).astype(np.float32)
        scores[(5 * i) % 64] = 0.9
        return scores
    add(Case("pattern-kept-box-fields",
             pattern("kept_box_fields", "kept_box_fields"),
             per_row(lambda rng, i: rng.standard_normal((64, 4)).astype(
                         np.float32), kept_scores)))
    add(Case("pattern-flat-triples", pattern("flat_triples", "flat_triples"),
             per_row(triples)))
    add(Case("pattern-multilabel-counts",
             pattern("multilabel_counts", "multilabel_counts"),
             per_row(lambda rng, i: rng.standard_normal((256, 5)).astype(
                         np.float32),
                     lambda rng, i: np.where(
                         rng.random(256) < [0.6, 0.0, 1.0, 0.3][i % 4],
                         rng.integers(0, 5, 256), -1).astype(np.int64))))
    add(Case("pattern-class-stats-scatter",
             pattern("class_stats_scatter", "class_stats"),
             per_row(lambda rng, i: [rng.random(512), np.zeros(512),
                                     np.ones(512), rng.random(512)][i % 4]
                     .astype(np.float32),
                     lambda rng, i: rng.integers(-1, 21, 512).astype(
                         np.int64),
                     lambda rng, i: rng.random(512).astype(np.float32))))

    add(Case("pattern-flat-bce-valid-anchors",
             pattern("flat_bce_valid_anchors", "flat_bce"),
             per_row(lambda rng, i: np.where(
                         rng.random(256) < [0.3, 1.0, 0.0, 0.5][i % 4], -2,
                         rng.integers(-1, 5, 256)).astype(np.int64),
                     lambda rng, i: rng.standard_normal((256, 5)).astype(
                         np.float32),
                     lambda rng, i: (rng.random((256, 5)) < 0.2).astype(
                         np.float32))))

    for case in cases:
        if case.name.startswith("pattern-"):
            case.staticize = True

    sampler = open(os.path.join(ROOT, "examples", "sampler.mlir")).read()
    sampler = sampler.replace("func.func @sampler(", "func.func @f(")
    n = 10000

    def balances(rng, b):
        # positive fractions 0, 1, a few positives, a few negatives, even,
        # and no eligible label at all, then random ones.
        fracs = [0.0, 1.0, 0.001, 0.999, 0.5, -1, 0.3, 0.05]
        labels = np.zeros((b, n), dtype=np.int64)
        for i in range(b):
            f = fracs[i % len(fracs)]
            if f < 0:
                labels[i] = 2  # neither positive nor negative
            else:
                labels[i] = (rng.random(n) < f).astype(np.int64)
        feats = rng.standard_normal((b, n, 16)).astype(np.float32)
        seed = rng.integers(0, 2 ** 62, (b,)).astype(np.int64)
        return [feats, labels, seed]

    add(Case("sampler", sampler, balances, size=8, staticize=True))
    add(Case("sampler-batch-1", sampler, balances, size=1, staticize=True))
    # The sampler's permutations as argsorts of their streams.
    by_sort = re.sub(r"(sift\.randperm [^:]*) :", r"\1 sort :", sampler)
    assert by_sort.count(" sort :") == 3
    add(Case("sampler-sort", by_sort, balances, size=8, staticize=True))
    return cases


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--tensor-run", required=True)
    ap.add_argument("--tensor-opt", required=True)
    ap.add_argument("-k", default=None, help="run cases matching REGEX")
    ap.add_argument("-j", type=int, default=os.cpu_count() or 2)
    ap.add_argument("--keep", default=None, help="keep files in DIR")
    ap.add_argument("-v", action="store_true")
    opts = ap.parse_args()
    work = opts.keep or tempfile.mkdtemp(prefix="sift-batch-")
    tools = Tools(opts.tensor_run, opts.tensor_opt, work, opts.v)
    cases = [c for c in build_cases()
             if not opts.k or re.search(opts.k, c.name)]

    def one(case):
        try:
            case.run(tools)
            return case.name, None
        except Fail as e:
            return case.name, str(e)
        except Exception:  # a bug in the harness reads as a failure
            return case.name, traceback.format_exc()

    failed = 0
    with concurrent.futures.ThreadPoolExecutor(opts.j) as pool:
        for name, error in pool.map(one, cases):
            if error:
                failed += 1
                print("FAIL %s\n%s" % (name, error))
            else:
                print("ok   %s" % name)
    print("check_batch: %d passed, %d failed" % (len(cases) - failed, failed))
    if not opts.keep:
        import shutil
        shutil.rmtree(work, ignore_errors=True)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
