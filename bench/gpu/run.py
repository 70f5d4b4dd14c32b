#!/usr/bin/env python3
"""bench/gpu: sift's GPU target next to PyTorch and JAX on CUDA, in one run
on a machine with one NVIDIA GPU.

Two workloads, those of bench/peers:
  sampler        the balanced positive/negative sampler, B = 32 rows,
                 D = 16 features, K = N/10 samples, 30% positives,
                 N = 1e4, 1e5, 1e6 (the features of N = 1e6 are 2 GB);
  cross_entropy  the mean cross-entropy of B x C float32 logits,
                 C = 100, 1000, 32000, B such that the logits are 256 MB.

Implementations: sift-auto, sift-auto-sort (its randperms `sort`),
sift-hand and sift (cross-entropy) through
tensor-run --target cuda; torch-static, torch-dynamic and torch
(F.cross_entropy), PyTorch eager on the GPU; torch-compile-static (only with
--compile, only at the largest N); jax, jit(vmap(row)) on the default GPU.
The sampler's forms, the MLIR generators, the inputs and the checks are
bench/peers' and bench/sampler's, imported.

Each (implementation, case) gets two times, medians per call after a
warm-up call:
  host    from host NumPy arrays to host results: the inputs copied to the
          GPU, the call, the results copied back, synchronized (sift:
          tensor-run's "time per call", which is exactly that);
  device  the inputs already on the GPU, the results left there,
          synchronized (sift: tensor-run's "device time per call", from its
          first kernel launch to the end of its last kernel; None where
          tensor-run does not print it).
Every implementation's results are checked (the sampler's counts, labels
and sampled items against the input; cross-entropy against NumPy in
float64); a mismatch is reported as "wrong" with the reason.

Writes gpu.md (the tables, also printed) and gpu.json (everything) into
--out. --device cpu runs the same script on the CPU (torch and jax on the
CPU, tensor-run --target cpu) with tiny sizes, to test it without a GPU.

    python3 bench/gpu/run.py --tensor-run .device/bin/tensor-run
    python3 bench/gpu/run.py --device cpu --quick   # the logic, no GPU
"""

import argparse
import json
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
import time
import traceback
from datetime import datetime, timezone

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "bench", "peers"))
sys.path.insert(0, os.path.join(ROOT, "bench", "sampler"))
import common  # noqa: E402
import sift_impl  # noqa: E402
from report import fmt_ms  # noqa: E402

SAMPLER_IMPLS = ["sift-auto", "sift-auto-sort", "sift-hand",
                 "torch-static", "torch-dynamic", "torch-compile-static",
                 "jax"]
CE_IMPLS = ["sift", "torch", "jax"]
IMPL_ORDER = ["sift-auto", "sift-auto-sort", "sift-hand", "sift",
              "torch-static", "torch-dynamic", "torch-compile-static", "torch",
              "jax"]
# The ratios of the tables: sift's time over a peer's (< 1: sift is faster).
RATIOS = {"sampler": [("sift-auto", "torch-static"),
                      ("sift-auto-sort", "torch-static"),
                      ("sift-hand", "torch-static"),
                      ("sift-auto", "jax")],
          "cross_entropy": [("sift", "torch"), ("sift", "jax")]}
# Per device: sampler N, MB of cross-entropy logits, timed calls at most;
# (default, --quick).
SIZES = {"cuda": (("1e4,1e5,1e6", 256, 10), ("1e4,1e5", 32, 5)),
         "cpu": (("1e3,1e4", 16, 5), ("1e3,1e4", 4, 3))}


def log(*parts):
    print(*parts, flush=True)


def parse_args():
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--device", choices=["cuda", "cpu"], default="cuda",
                    help="cuda (default), or cpu: torch and jax on the "
                    "CPU, tensor-run --target cpu, tiny sizes (to test the "
                    "script without a GPU)")
    ap.add_argument("--tensor-run",
                    default=os.path.join(ROOT, "build", "bin", "tensor-run"),
                    help="the tensor-run binary (default build/bin/"
                    "tensor-run; its shared libraries must be found, e.g. "
                    "by LD_LIBRARY_PATH)")
    ap.add_argument("--out", help="folder of gpu.md and gpu.json (default "
                    "bench/results with --device cuda, a temporary folder "
                    "with --device cpu)")
    ap.add_argument("--quick", action="store_true",
                    help="smaller sizes and fewer calls")
    ap.add_argument("--impls",
                    help="the implementations to run, comma-separated "
                    "(default all but torch-compile-static, which "
                    "--compile adds); of %s" % ", ".join(IMPL_ORDER))
    ap.add_argument("--compile", action="store_true",
                    help="also torch-compile-static, at the largest N only "
                    "(~30-60 s of compile)")
    ap.add_argument("--budget", type=float, default=10.0,
                    help="seconds of timed calls per implementation and "
                    "case, at most (default 10); a size whose calls would "
                    "take longer, from the size before, is skipped")
    ap.add_argument("--repeat", type=int,
                    help="timed calls per time, at most (default 10; "
                    "--quick 5; cpu 5 and 3)")
    ap.add_argument("--sizes", help="N of the sampler, comma-separated")
    ap.add_argument("--batch", type=int, default=32,
                    help="B of the sampler (default 32)")
    ap.add_argument("--classes", default="100,1000,32000",
                    help="C of cross-entropy (default 100,1000,32000)")
    ap.add_argument("--ce-mb", type=float,
                    help="MB of logits per cross-entropy case (default 256)")
    ap.add_argument("--case-timeout", type=float, default=300.0,
                    help="seconds one tensor-run may take (default 300)")
    ap.add_argument("--data-dir", help="keep the inputs here and reuse them "
                    "(default: a temporary folder, removed at the end)")
    args = ap.parse_args()
    sizes, ce_mb, repeat = SIZES[args.device][1 if args.quick else 0]
    args.sizes = args.sizes or sizes
    args.ce_mb = args.ce_mb or ce_mb
    args.repeat = args.repeat or repeat
    if args.out is None:
        args.out = os.path.join(ROOT, "bench", "results") \
            if args.device == "cuda" else \
            tempfile.mkdtemp(prefix="sift-gpu-bench-")
    if args.impls is None:
        args.impls = [i for i in IMPL_ORDER
                      if args.compile or i != "torch-compile-static"]
    else:
        asked = args.impls.split(",")
        unknown = sorted(set(asked) - set(IMPL_ORDER))
        if unknown:
            ap.error("unknown implementations: " + ", ".join(unknown))
        args.impls = [i for i in IMPL_ORDER if i in asked]
        args.compile = args.compile or "torch-compile-static" in asked
    return args


# -- Cases -----------------------------------------------------------------

def make_cases(args, data_dir):
    cases = []
    for n in (int(float(x)) for x in args.sizes.split(",")):
        b = args.batch
        cases.append({"task": "sampler", "n": n, "b": b, "k": n // 10,
                      "d": common.SAMPLER_D,
                      "dir": os.path.join(data_dir,
                                          "sampler_n%d_b%d" % (n, b))})
    for c in (int(float(x)) for x in args.classes.split(",")):
        b = max(1, int(args.ce_mb * 2**20 / (4 * c)))
        cases.append({"task": "cross_entropy", "c": c, "b": b,
                      "dir": os.path.join(data_dir, "ce_c%d_b%d" % (c, b))})
    return cases


def case_key(case):
    if case["task"] == "sampler":
        return "sampler/N=%d/B=%d" % (case["n"], case["b"])
    return "cross_entropy/C=%d/B=%d" % (case["c"], case["b"])


def fmt_n(n):
    e = len(str(n)) - 1
    return "1e%d" % e if n == 10**e else str(n)


def load_inputs(case):
    names = ["features", "labels"] if case["task"] == "sampler" else \
        ["logits", "targets"]
    return {name: common.load(case, name) for name in names}


# -- Timing ----------------------------------------------------------------

def times_of(fn, args):
    """(result of the warm-up call, timing record) of fn: one warm-up call,
    then up to --repeat timed ones within half the --budget (the other half
    is the other time of the pair), at least common.MIN_CALLS."""
    out, warm, times = common.time_calls(fn, args.repeat, args.budget / 2)
    return out, common.timing_record(times, warm)


def result_record(host, device, problem, **more):
    rec = {"status": "wrong" if problem else "ok",
           "host_s": host["median_s"],
           "device_s": device["median_s"] if device else None,
           "host": host, "device": device}
    if problem:
        rec["reason"] = problem
    rec.update(more)
    return rec


# -- sift, through tensor-run ----------------------------------------------

HOST_RE = re.compile(r"^time per call: min ([0-9.]+) ms, median ([0-9.]+) "
                     r"ms \((\d+) calls\)", re.M)
DEVICE_RE = re.compile(r"^device time per call: min ([0-9.]+) ms, median "
                       r"([0-9.]+) ms \((\d+) kernel launches per call\)",
                       re.M)
COMPILE_RE = re.compile(r"^compile time: ([0-9.]+) ms", re.M)

SIFT_JOBS = {"sift-auto": sift_impl.sampler_auto_job,
             "sift-auto-sort": lambda case: sift_impl.sampler_auto_job(
                 case, by_sort=True),
             "sift-hand": sift_impl.sampler_hand_job,
             "sift": sift_impl.cross_entropy_job}


def run_sift(impl, case, args, calls):
    """One tensor-run: compile, one warm-up call, `calls` timed ones; the
    results of the first timed call are checked."""
    text, run_args, problem_of = SIFT_JOBS[impl](case)
    with tempfile.TemporaryDirectory(prefix="sift-gpu-") as tmp:
        mlir = os.path.join(tmp, "module.mlir")
        with open(mlir, "w") as f:
            f.write(text)
        results = os.path.join(tmp, "results")
        cmd = [args.tensor_run, mlir] + run_args + [
            "--target", args.device, "--repeat", str(calls), "--warmup", "1",
            "--no-compile-cache", "--output-dir", results]
        t0 = time.perf_counter()
        try:
            p = subprocess.run(cmd, capture_output=True, text=True,
                               timeout=args.case_timeout)
        except subprocess.TimeoutExpired:
            return {"status": "failed",
                    "reason": "tensor-run ran past %.0f s" % args.case_timeout}
        wall = time.perf_counter() - t0
        if p.returncode != 0:
            return {"status": "failed", "reason": "tensor-run exit %d: %s" % (
                p.returncode, (p.stderr or p.stdout).strip()[-400:])}
        host = HOST_RE.search(p.stdout)
        compile_ms = COMPILE_RE.search(p.stdout)
        if not host or not compile_ms:
            return {"status": "failed", "reason": "no timing in tensor-run's "
                    "output: " + p.stdout.strip()[-400:]}
        dev = DEVICE_RE.search(p.stdout)
        problem = problem_of(
            lambda i: np.load(os.path.join(results, "result%d.npy" % i)))
    host_rec = {"median_s": float(host.group(2)) / 1e3,
                "min_s": float(host.group(1)) / 1e3,
                "calls": int(host.group(3))}
    dev_rec = None
    launches = None
    if dev:
        dev_rec = {"median_s": float(dev.group(2)) / 1e3,
                   "min_s": float(dev.group(1)) / 1e3,
                   "calls": int(host.group(3))}
        launches = int(dev.group(3))
    return result_record(host_rec, dev_rec, problem,
                         compile_s=float(compile_ms.group(1)) / 1e3,
                         launches=launches, tensor_run_s=wall)


# -- PyTorch ---------------------------------------------------------------

class Torch:
    def __init__(self, device):
        import torch
        import torch.nn.functional as F
        import torch_impl
        from torch_sampler import dynamic_sampler, static_sampler
        self.torch, self.F, self.impl = torch, F, torch_impl
        self.dynamic_sampler = dynamic_sampler
        self.static_sampler = static_sampler
        self.device = device
        if device == "cuda" and not torch.cuda.is_available():
            raise RuntimeError("PyTorch sees no CUDA device")

    def versions(self):
        torch = self.torch
        v = {"torch": torch.__version__, "torch_cuda": torch.version.cuda}
        if self.device == "cuda":
            v["gpu"] = torch.cuda.get_device_name(0)
        else:
            v["torch_threads"] = torch.get_num_threads()
        return v

    def sync(self):
        if self.device == "cuda":
            self.torch.cuda.synchronize()

    def to_dev(self, a):
        return self.torch.from_numpy(a).to(self.device)

    def free(self):
        if self.device == "cuda":
            self.torch.cuda.empty_cache()

    def run(self, impl, case, data, args):
        torch = self.torch
        torch.manual_seed(0)
        try:
            if case["task"] == "cross_entropy":
                return self._time(
                    lambda x, t: self.F.cross_entropy(x, t),
                    [data["logits"], data["targets"]],
                    lambda out: common.check_cross_entropy(case, out.item()),
                    args)
            k = case["k"]
            if impl == "torch-dynamic":
                fn = lambda f, lab: self.impl._dynamic_loop(  # noqa: E731
                    self.dynamic_sampler, f, lab, k)
                rows = self.impl._dynamic_rows
            else:
                sampler = self.static_sampler
                if impl == "torch-compile-static":
                    sampler = self.impl._compile(self.static_sampler)
                fn = lambda f, lab: sampler(f, lab, k)  # noqa: E731
                rows = self.impl._static_rows
            return self._time(fn, [data["features"], data["labels"]],
                              lambda out: common.check_sampler(
                                  case, rows(out)),
                              args, compiled=impl == "torch-compile-static")
        finally:
            self.free()

    def _time(self, fn, arrays, check, args, compiled=False):
        def host():
            out = fn(*(self.to_dev(a) for a in arrays))
            return _map_tensors(out, lambda t: t.cpu())
        out, host_rec = times_of(host, args)
        problem = check(out)
        del out
        dev_rec = None
        if not problem:
            inputs = [self.to_dev(a) for a in arrays]
            self.sync()

            def device():
                out = fn(*inputs)
                self.sync()
                return out
            _, dev_rec = times_of(device, args)
            del inputs
        more = {}
        if compiled:
            more["compile_s"] = max(
                host_rec["warmup_s"] - host_rec["median_s"], 0.0)
        return result_record(host_rec, dev_rec, problem, **more)


def _map_tensors(out, fn):
    """fn over the tensors of a result: a tensor, a tuple of them, or a
    list of tuples (the dynamic sampler's rows)."""
    if isinstance(out, (tuple, list)):
        return type(out)(_map_tensors(o, fn) for o in out)
    return fn(out)


# -- JAX -------------------------------------------------------------------

class Jax:
    def __init__(self, device):
        import jax
        import jax_impl
        self.jax, self.impl = jax, jax_impl
        self.backend = jax.default_backend()
        if device == "cuda" and self.backend != "gpu":
            raise RuntimeError("JAX's default backend is %s, not gpu"
                               % self.backend)

    def versions(self):
        return {"jax": self.jax.__version__, "jax_backend": self.backend,
                "jax_devices": ", ".join(str(d)
                                         for d in self.jax.devices())}

    def run(self, impl, case, data, args):
        jax, impl_mod = self.jax, self.impl
        block = jax.block_until_ready
        if case["task"] == "cross_entropy":
            arrays = [data["logits"], data["targets"]]
            fn = impl_mod.cross_entropy
            check = lambda out: common.check_cross_entropy(  # noqa: E731
                case, float(out))
        else:
            keys = jax.random.split(jax.random.key(0), case["b"])
            k = case["k"]
            arrays = [data["features"], data["labels"]]
            fn = lambda f, lab: impl_mod.sampler_batch(  # noqa: E731
                f, lab, keys, k)

            def check(out):
                f, lab, total = out
                return common.check_sampler(
                    case, [(f[r], lab[r], total[r]) for r in range(case["b"])])

        def host():
            out = fn(*(jax.device_put(a) for a in arrays))
            return _map_tensors(out, np.asarray)
        out, host_rec = times_of(host, args)
        problem = check(out)
        del out
        dev_rec = None
        if not problem:
            inputs = [block(jax.device_put(a)) for a in arrays]
            _, dev_rec = times_of(lambda: block(fn(*inputs)), args)
            del inputs
        return result_record(
            host_rec, dev_rec, problem,
            compile_s=max(host_rec["warmup_s"] - host_rec["median_s"], 0.0))


# -- Running ---------------------------------------------------------------

def too_slow(impl, case, done, budget):
    """Why `case` would take too long for `impl`, from the largest smaller N
    it ran (its host time scaled linearly in N), or None."""
    if case["task"] != "sampler":
        return None
    before = [(c["n"], rec) for c, rec in done.get(impl, [])
              if c["task"] == "sampler" and c["n"] < case["n"]]
    if not before:
        return None
    n_prev, rec = max(before, key=lambda x: x[0])
    if rec["status"] == "skipped":
        return "N=%s was skipped" % fmt_n(n_prev)
    if rec["status"] != "ok":
        return None
    per_call = rec["host_s"] * case["n"] / n_prev
    # A warm-up and the fewest timed calls, host and device.
    calls = 2 * (1 + common.MIN_CALLS)
    if calls * per_call > budget:
        return "~%s ms per call (from N=%s): %d calls are over the %g s " \
            "budget" % (fmt_ms(per_call), fmt_n(n_prev), calls, budget)
    return None


def sift_calls(impl, case, done, args):
    """How many timed calls tensor-run makes: --repeat, fewer when the size
    before says they would take longer than the budget."""
    before = [(c["n"], rec) for c, rec in done.get(impl, [])
              if c["task"] == "sampler" and case["task"] == "sampler"
              and c["n"] < case["n"] and rec["status"] == "ok"]
    if not before:
        return args.repeat
    n_prev, rec = max(before, key=lambda x: x[0])
    per_call = rec["host_s"] * case["n"] / n_prev
    return max(common.MIN_CALLS, min(args.repeat,
                                     int(args.budget / max(per_call, 1e-6))))


def describe(rec):
    if rec["status"] == "ok":
        dev = rec.get("device_s")
        text = "host %s ms, device %s" % (
            fmt_ms(rec["host_s"]),
            fmt_ms(dev) + " ms" if dev is not None else "-")
        if rec.get("compile_s") is not None:
            text += ", compile %.1f s" % rec["compile_s"]
        if rec.get("launches") is not None:
            text += ", %d kernel launches" % rec["launches"]
        return text
    return "%s: %s" % (rec["status"], rec.get("reason", ""))


def runtimes(args, versions):
    """The frameworks the implementations need, each started once; a
    framework that fails to start fails only its implementations."""
    frameworks = {}
    wanted = set(args.impls)
    if wanted & {"torch-static", "torch-dynamic", "torch-compile-static",
                 "torch"}:
        try:
            frameworks["torch"] = Torch(args.device)
            versions.update(frameworks["torch"].versions())
        except Exception as exc:
            frameworks["torch"] = exc
            versions["torch"] = _version_of("torch")
    if "jax" in wanted:
        try:
            frameworks["jax"] = Jax(args.device)
            versions.update(frameworks["jax"].versions())
        except Exception as exc:
            frameworks["jax"] = exc
            versions["jax"] = _version_of("jax")
    return frameworks


def _version_of(module):
    try:
        return __import__(module).__version__
    except Exception as exc:
        return "(%s)" % type(exc).__name__


def framework_of(impl):
    if impl.startswith("sift"):
        return "sift"
    return "jax" if impl == "jax" else "torch"


def run_all(args, cases, data_dir, versions):
    frameworks = runtimes(args, versions)
    results = {impl: {} for impl in args.impls}
    done = {}
    largest_n = max([c["n"] for c in cases if c["task"] == "sampler"],
                    default=0)
    for case in cases:
        task_impls = SAMPLER_IMPLS if case["task"] == "sampler" else CE_IMPLS
        impls = [i for i in args.impls if i in task_impls]
        if not impls:
            continue
        t0 = time.perf_counter()
        common.write_inputs(case)
        data = load_inputs(case)
        log("%s: inputs ready (%.1f s)" % (common.case_name(case),
                                           time.perf_counter() - t0))
        for impl in impls:
            key = case_key(case)
            if impl == "torch-compile-static" and case["n"] != largest_n:
                continue  # only the largest N: its compile is slow
            slow = too_slow(impl, case, done, args.budget)
            fw = frameworks.get(framework_of(impl))
            t0 = time.perf_counter()
            if slow:
                rec = {"status": "skipped", "reason": slow}
            elif isinstance(fw, Exception):
                rec = {"status": "failed",
                       "reason": "%s: %s" % (type(fw).__name__, fw)}
            else:
                try:
                    if impl.startswith("sift"):
                        rec = run_sift(impl, case, args,
                                       sift_calls(impl, case, done, args))
                    else:
                        rec = fw.run(impl, case, data, args)
                except Exception as exc:
                    traceback.print_exc()
                    rec = {"status": "failed",
                           "reason": "%s: %s" % (type(exc).__name__,
                                                 str(exc).strip()[:400])}
            rec.setdefault("wall_s", time.perf_counter() - t0)
            results[impl][key] = rec
            done.setdefault(impl, []).append((case, rec))
            log("  %-22s %-34s %s" % (impl, common.case_name(case),
                                      describe(rec)))
        del data
        if not args.data_dir:
            shutil.rmtree(case["dir"], ignore_errors=True)
    return results


# -- Versions and the report -----------------------------------------------

def sift_versions(args):
    v = {"tensor_run": args.tensor_run}
    # The bundle's commit (scripts/device-bundle.sh; device-check.sh passes
    # it on): the copy of the tree on a device machine may carry a stale .git.
    if os.environ.get("SIFT_COMMIT"):
        v["sift_commit"] = os.environ["SIFT_COMMIT"]
        return v
    try:
        v["sift_commit"] = subprocess.run(
            ["git", "-C", ROOT, "rev-parse", "--short", "HEAD"],
            capture_output=True, text=True, timeout=10).stdout.strip() or None
    except (OSError, subprocess.TimeoutExpired):
        v["sift_commit"] = None
    return v


def machine_info():
    cpu = platform.processor()
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(),
            "python": platform.python_version(),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


def cell(rec, notes):
    if rec is None:
        return ""
    if rec["status"] == "ok":
        dev = rec.get("device_s")
        return "%s / %s" % (fmt_ms(rec["host_s"]),
                            fmt_ms(dev) if dev is not None else "–")
    reason = rec.get("reason", "")
    if reason not in notes:
        notes.append(reason)
    return "%s [%d]" % (rec["status"], notes.index(reason) + 1)


def ratio_cell(a, b):
    def one(field):
        if not a or not b or a["status"] != "ok" or b["status"] != "ok" \
                or a.get(field) is None or b.get(field) is None \
                or b[field] <= 0:
            return "–"
        return "%.2f" % (a[field] / b[field])
    return "%s / %s" % (one("host_s"), one("device_s"))


def markdown(data):
    v, m = data["versions"], data["machine"]
    where = v.get("gpu") or "CPU: %s, %s cores" % (m["cpu"], m["cores"])
    lines = ["# sift on the GPU next to PyTorch and JAX", "",
             "%s%s; torch %s (CUDA %s), jax %s (%s); sift %s; %s." % (
                 where, " (--device cpu)" if data["device"] == "cpu" else "",
                 v.get("torch", "-"), v.get("torch_cuda", "-"),
                 v.get("jax", "-"), v.get("jax_backend", "-"),
                 v.get("sift_commit") or "-", m["date"]),
             "",
             "Each cell: **host ms / device ms**, the median per call after "
             "a warm-up. host: from NumPy arrays on the host to results on "
             "the host (the copies to and from the GPU included); device: "
             "inputs already on the GPU, results left there (sift: "
             "tensor-run's device time, from its first kernel launch to "
             "the end of its last kernel). Ratios: sift's time over the "
             "peer's, host / device (below 1: sift is faster). Every "
             "result was checked against NumPy."]
    results, impls = data["results"], data["impls"]
    for task, title in (("sampler", "Sampler (B=%d, D=16, K=N/10, 30%% "
                         "positives)" % data["settings"]["batch"]),
                        ("cross_entropy", "Cross-entropy (mean, B x C "
                         "float32 logits, %g MB)"
                         % data["settings"]["ce_mb"])):
        cases = [c for c in data["cases"] if c["task"] == task]
        cols = [i for i in impls
                if i in (SAMPLER_IMPLS if task == "sampler" else CE_IMPLS)]
        if not cases or not cols:
            continue
        ratios = [(a, b) for a, b in RATIOS[task] if a in cols and b in cols]
        notes = []
        head = ["N" if task == "sampler" else "C x B"] + cols + \
            ["%s / %s" % r for r in ratios]
        lines += ["", "## " + title, "", "| " + " | ".join(head) + " |",
                  "|" + "---|" * len(head)]
        extra = []
        for c in cases:
            key = case_key(c)
            row = [fmt_n(c["n"]) if task == "sampler"
                   else "%d x %d" % (c["c"], c["b"])]
            row += [cell(results[i].get(key), notes) for i in cols]
            row += [ratio_cell(results[a].get(key), results[b].get(key))
                    for a, b in ratios]
            lines.append("| " + " | ".join(row) + " |")
            for i in cols:
                rec = results[i].get(key)
                if rec and rec["status"] == "ok":
                    bits = []
                    if rec.get("compile_s") is not None:
                        bits.append("compile %.1f s" % rec["compile_s"])
                    if rec.get("launches") is not None:
                        bits.append("%d kernel launches per call"
                                    % rec["launches"])
                    if bits:
                        extra.append("%s, %s: %s" % (i, row[0],
                                                     ", ".join(bits)))
        if notes:
            lines.append("")
            lines += ["[%d] %s  " % (j + 1, n) for j, n in enumerate(notes)]
        if extra:
            lines += ["", "Compile times and kernel launches: " +
                      "; ".join(extra) + "."]
    return "\n".join(lines) + "\n"


def main():
    args = parse_args()
    # Before JAX starts: no preallocation of 75% of the GPU (PyTorch and
    # tensor-run share it), and the CPU only with --device cpu.
    os.environ.setdefault("XLA_PYTHON_CLIENT_PREALLOCATE", "false")
    if args.device == "cpu":
        os.environ["JAX_PLATFORMS"] = "cpu"
    if any(i.startswith("sift") for i in args.impls) and \
            not os.path.exists(args.tensor_run):
        sys.exit("bench/gpu: %s is missing (--tensor-run)" % args.tensor_run)
    started = time.perf_counter()
    data_dir = args.data_dir or tempfile.mkdtemp(prefix="sift-gpu-data-")
    os.makedirs(args.out, exist_ok=True)
    log("bench/gpu: %s%s run, python %s, impls %s, inputs in %s" % (
        args.device, " quick" if args.quick else "", sys.executable,
        ",".join(args.impls), data_dir))
    versions = sift_versions(args)
    cases = make_cases(args, data_dir)
    try:
        results = run_all(args, cases, data_dir, versions)
    finally:
        if not args.data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
    data = {"device": args.device, "quick": args.quick,
            "machine": machine_info(), "versions": versions,
            "settings": {"repeat": args.repeat, "budget_s": args.budget,
                         "batch": args.batch, "ce_mb": args.ce_mb,
                         "compile": args.compile},
            "cases": [{k: v for k, v in c.items() if k != "dir"}
                      for c in cases],
            "impls": args.impls, "results": results,
            "run_s": time.perf_counter() - started}
    md = markdown(data)
    with open(os.path.join(args.out, "gpu.json"), "w") as f:
        json.dump(data, f, indent=1)
    with open(os.path.join(args.out, "gpu.md"), "w") as f:
        f.write(md)
    log("")
    log(md)
    log("wrote %s/gpu.{md,json} (%.0f s in all)" % (
        args.out, time.perf_counter() - started))
    bad = [(i, k) for i, r in results.items() for k, rec in r.items()
           if rec["status"] in ("wrong", "failed")]
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
