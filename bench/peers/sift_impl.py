"""sift, driven through build/bin/tensor-run (which JIT-compiles the module
once, then calls the function --repeat times):

  sift-hand  the sampler written static and batched by hand in the sift
             dialect (bench/sampler/sift_sampler.py's template);
  sift-auto  examples/sampler.mlir, the natural dynamic sampler, made static
             and batched by the compiler alone (--transforms=
             "sift-staticize,sift-batch{func=sampler size=B}"), one seed per
             row;
  sift-auto-sort  the same with `sort` on its three randperms (an
             argsort of random words instead of the default keyed
             bijection: another stream);
  sift       sift.cross_entropy over B x C logits (mean).

A first run of 3 calls writes the results for the checks and sizes the
timed run, which makes one untimed call (tensor-run --warmup) before the
timed ones, as the peers do. The JIT compile time is tensor-run's own
figure.
"""

import os
import re
import subprocess
import sys
import tempfile

import numpy as np

import common

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "sampler"))
from sift_sampler import auto_sampler_mlir, batched_static_sampler_mlir  # noqa

CE_TEMPLATE = """\
// Mean cross-entropy of B = {B} rows of C = {C} logits (bench/peers).
func.func @ce(%logits: tensor<{B}x{C}xf32>, %targets: tensor<{B}xi64>)
    -> tensor<f32> {{
  %loss = sift.cross_entropy %logits, %targets reduction = mean
      : tensor<{B}x{C}xf32>, tensor<{B}xi64> -> tensor<f32>
  return %loss : tensor<f32>
}}
"""


def tensor_run_path():
    build = os.environ.get("SIFT_BUILD_DIR", os.path.join(ROOT, "build"))
    return os.path.join(build, "bin", "tensor-run")


def versions():
    return {"tensor_run": tensor_run_path(),
            "sift_commit": subprocess.run(
                ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
                capture_output=True, text=True).stdout.strip()}


class TensorRunError(Exception):
    pass


def _tensor_run(args, repeat, output_dir=None, warmup=0):
    # The compile time reported is a cold compile: no compile cache.
    cmd = [tensor_run_path()] + args + ["--repeat", str(repeat),
                                        "--warmup", str(warmup),
                                        "--no-compile-cache"]
    if output_dir:
        cmd += ["--output-dir", output_dir]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        raise TensorRunError("tensor-run exit %d: %s" % (
            p.returncode, (p.stderr or p.stdout).strip()[-400:]))
    times = re.search(r"min ([0-9.]+) ms, median ([0-9.]+) ms", p.stdout)
    compile_ms = re.search(r"compile time: ([0-9.]+) ms", p.stdout)
    if not times or not compile_ms:
        raise TensorRunError("no timing in tensor-run's output: " +
                             p.stdout[-400:])
    return (float(times.group(1)) / 1e3, float(times.group(2)) / 1e3,
            float(compile_ms.group(1)) / 1e3)


def _run_case(case, mlir_text, args, results_to_problem, repeat, budget):
    with tempfile.TemporaryDirectory(prefix="sift-peers-") as tmp:
        mlir = os.path.join(tmp, "module.mlir")
        with open(mlir, "w") as f:
            f.write(mlir_text)
        args = [mlir] + args
        try:
            first_min, first_median, compile_s = _tensor_run(args, 3, tmp)
            problem = results_to_problem(
                lambda i: np.load(os.path.join(tmp, "result%d.npy" % i)))
            calls, t_min, t_median = 3, first_min, first_median
            more = min(repeat, int(budget / max(first_median, 1e-6)))
            if not problem and more > 3:
                t_min, t_median, compile_s = _tensor_run(args, more,
                                                         warmup=1)
                calls = more
        except TensorRunError as e:
            return {"status": "failed", "reason": str(e)}
    rec = {"median_s": t_median, "min_s": t_min, "calls": calls,
           "compile_s": compile_s}
    if problem:
        return {"status": "wrong", "reason": problem, **rec}
    return {"status": "ok", **rec}


def _inputs(case, *names):
    args = []
    for name in names:
        args += ["--input", os.path.join(case["dir"], name + ".npy")]
    return args


# Each job: (the module's text, tensor-run's arguments after the .mlir
# file, the check of the results: a function of result(i) -> the i-th
# result as a NumPy array, that returns None or what is wrong). bench/gpu
# runs the same jobs with --target cuda.

def sampler_hand_job(case):
    b, n, k, d = case["b"], case["n"], case["k"], case["d"]

    def problem(result):
        f, lab, total = result(0), result(1), result(2)
        return common.check_sampler(case, [(f[r], lab[r], total[r])
                                           for r in range(b)])
    return (batched_static_sampler_mlir(b, n, k, d),
            _inputs(case, "features", "labels") +
            ["-e", "sampler", "--arg", "seed=1"], problem)


def sampler_auto_job(case, by_sort=False):
    b, n, k = case["b"], case["n"], case["k"]

    def problem(result):
        # @sampler_batched returns features, count, labels, count.
        f, total, lab = result(0), result(1), result(2)
        if not np.array_equal(total, result(3)):
            return "the two counts differ"
        return common.check_sampler(case, [(f[r], lab[r], total[r])
                                           for r in range(b)])
    return (auto_sampler_mlir(n, k, by_sort),
            _inputs(case, "features", "labels", "seeds") +
            ["-e", "sampler_batched",
             "--transforms=sift-staticize,"
             "sift-batch{func=sampler size=%d}" % b], problem)


def cross_entropy_job(case):
    return (CE_TEMPLATE.format(B=case["b"], C=case["c"]),
            _inputs(case, "logits", "targets") + ["-e", "ce"],
            lambda result: common.check_cross_entropy(case, result(0)))


def sampler_hand(case, repeat, budget):
    return _run_case(case, *sampler_hand_job(case), repeat, budget)


def sampler_auto(case, repeat, budget):
    return _run_case(case, *sampler_auto_job(case), repeat, budget)


def sampler_auto_sort(case, repeat, budget):
    return _run_case(case, *sampler_auto_job(case, by_sort=True), repeat,
                     budget)


def cross_entropy(case, repeat, budget):
    return _run_case(case, *cross_entropy_job(case), repeat, budget)


IMPLS = {
    "sift-hand": {"sampler": sampler_hand},
    "sift-auto": {"sampler": sampler_auto},
    "sift-auto-sort": {"sampler": sampler_auto_sort},
    "sift": {"cross_entropy": cross_entropy},
}
