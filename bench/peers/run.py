#!/usr/bin/env python3
"""bench/peers: sift next to PyTorch and JAX, in one run on this machine.

Two workloads:
  sampler        the balanced positive/negative sampler (D = 16 features,
                 K = N/10 samples, 30% positives) for N = 1e3..1e7 and
                 B = 1 and 32 rows;
  cross_entropy  the mean cross-entropy of B x C float32 logits, C = 10 to
                 32000, B chosen so that the logits have the same size.
and the machine's memory bandwidth, measured first in the same run.

Each implementation runs in its own process (worker.py), one after the
other, never two at once; the cases go to it one by one, so a case that
crashes or runs too long costs only itself, and a size that would take too
long (from the time of the size before) or too much memory is skipped and
marked so. Each result is checked before it is timed: the sampler's counts,
labels and sampled items against the input, cross-entropy against NumPy in
float64. Times are medians per call, warm-up excluded (sift: tensor-run's
median, see sift_impl.py); compile times are reported apart.

Writes bench/results/peers.md (the tables), peers.png (time against N, one
line per implementation) and peers.json (everything measured).

    scripts/venv.sh                       # once: the peers' Python 3.12
    python bench/peers/run.py --quick     # small sizes, about 2 minutes
    python bench/peers/run.py             # the full run
"""

import argparse
import importlib.util
import json
import os
import platform
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DEFAULT_OUT = os.path.join(ROOT, "bench", "results")
DEFAULT_VENV = os.path.join(os.path.expanduser("~"), ".cache", "sift",
                            "venv-py312")


def ensure_peers_python():
    """Re-runs this script with the peers' venv python when the running one
    lacks a package of the benchmark (the workers run with the same
    python)."""
    if all(importlib.util.find_spec(p) is not None
           for p in ("numpy", "matplotlib", "torch", "jax")):
        return
    venv = os.environ.get("SIFT_VENV", DEFAULT_VENV)
    venv_python = os.path.join(venv, "bin", "python")
    if os.path.exists(venv_python) and \
            os.path.realpath(sys.prefix) != os.path.realpath(venv):
        os.execv(venv_python, [venv_python] + sys.argv)
    sys.exit("bench/peers: NumPy, Matplotlib, PyTorch or JAX is missing; "
             "run scripts/venv.sh first (it makes %s)" % venv_python)


ensure_peers_python()
sys.path.insert(0, HERE)
import common  # noqa: E402
import report  # noqa: E402

# In the order they run and appear in the tables.
SAMPLER_IMPLS = ["torch-dynamic", "torch-static", "torch-compile-static",
                 "torch-compile-dynamic", "jax", "sift-hand", "sift-auto",
                 "sift-auto-sort"]
CE_IMPLS = ["torch", "torch-compile", "jax", "sift"]
IMPL_ORDER = ["torch-dynamic", "torch-static", "torch-compile-static",
              "torch-compile-dynamic", "torch", "torch-compile", "jax",
              "sift-hand", "sift-auto", "sift-auto-sort", "sift"]


def parse_args():
    ap = argparse.ArgumentParser(
        description=__doc__.splitlines()[0],
        formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="N = 1e3 and 1e4, 16 MB of logits, few calls")
    ap.add_argument("--sizes", help="N of the sampler, comma-separated "
                    "(default 1e3,1e4,1e5,1e6,1e7; --quick 1e3,1e4)")
    ap.add_argument("--batches", default="1,32",
                    help="B of the sampler (default 1,32)")
    ap.add_argument("--classes", default="10,100,1000,32000",
                    help="C of cross-entropy (default 10,100,1000,32000)")
    ap.add_argument("--ce-mb", type=float,
                    help="MB of logits per cross-entropy case (default "
                    "256; --quick 16)")
    ap.add_argument("--repeat", type=int,
                    help="timed calls per case, at most (default 20; "
                    "--quick 5)")
    ap.add_argument("--budget", type=float,
                    help="seconds of timed calls per case, at most (default "
                    "10; --quick 0.5)")
    ap.add_argument("--case-limit", type=float, default=60.0,
                    help="skip a case whose calls would take longer than "
                    "this many seconds, from the size before (default 60)")
    ap.add_argument("--case-timeout", type=float, default=300.0,
                    help="stop a case after this many seconds, compile "
                    "included (default 300)")
    ap.add_argument("--memory-gb", type=float,
                    help="skip cases estimated to need more (default: 80%% "
                    "of this machine's memory)")
    ap.add_argument("--impls", default=",".join(IMPL_ORDER),
                    help="the implementations to run, comma-separated")
    ap.add_argument("--out", default=DEFAULT_OUT,
                    help="folder of peers.md, peers.png and peers.json")
    ap.add_argument("--no-readme", dest="readme", action="store_false",
                    help="leave README.md alone (by default a run that "
                    "writes to bench/results puts its table and plot into "
                    "the README's Benchmarks section)")
    ap.add_argument("--data-dir", help="keep the inputs here and reuse them "
                    "in later runs (default: a temporary folder)")
    args = ap.parse_args()
    quick = args.quick
    if args.sizes is None:
        args.sizes = "1e3,1e4" if quick else "1e3,1e4,1e5,1e6,1e7"
    if args.ce_mb is None:
        args.ce_mb = 16 if quick else 256
    if args.repeat is None:
        args.repeat = 5 if quick else 20
    if args.budget is None:
        args.budget = 0.5 if quick else 10.0
    if args.memory_gb is None:
        args.memory_gb = 0.8 * total_memory_bytes() / 2**30
    return args


def total_memory_bytes():
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    return 0


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
            "memory_gib": round(total_memory_bytes() / 2**30, 1),
            "python": platform.python_version(),
            "date": datetime.now(timezone.utc).strftime("%Y-%m-%d %H:%M UTC")}


# -- Cases -----------------------------------------------------------------

def make_cases(args, data_dir):
    cases = []
    for b in (int(x) for x in args.batches.split(",")):
        for n in (int(float(x)) for x in args.sizes.split(",")):
            cases.append({"task": "sampler", "n": n, "b": b, "k": n // 10,
                          "d": common.SAMPLER_D,
                          "dir": os.path.join(data_dir,
                                              "sampler_n%d_b%d" % (n, b))})
    for c in (int(float(x)) for x in args.classes.split(",")):
        b = max(1, int(args.ce_mb * 2**20 / (4 * c)))
        cases.append({"task": "cross_entropy", "c": c, "b": b,
                      "dir": os.path.join(data_dir, "ce_c%d_b%d" % (c, b))})
    return cases


def memory_needed(case):
    """A generous estimate of the most memory any implementation needs: the
    inputs, a copy of them, and int64 work arrays the size of the items."""
    if case["task"] == "sampler":
        return 2 * common.input_bytes(case) + 8 * 8 * case["b"] * case["n"]
    return 4 * common.input_bytes(case)


def case_key(case):
    if case["task"] == "bandwidth":
        return "bandwidth"
    if case["task"] == "sampler":
        return "sampler/N=%d/B=%d" % (case["n"], case["b"])
    return "cross_entropy/C=%d/B=%d" % (case["c"], case["b"])


# -- Running one implementation --------------------------------------------

class Worker:
    """worker.py IMPL as a child process: cases in, JSON events out."""

    def __init__(self, impl, args, log):
        self.impl = impl
        self.log = log
        self.proc = subprocess.Popen(
            [sys.executable, os.path.join(HERE, "worker.py"), impl,
             "--repeat", str(args.repeat), "--budget", str(args.budget)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
            text=True, bufsize=1)
        self.events = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.versions = {}

    def _read(self):
        for line in self.proc.stdout:
            try:
                self.events.put(json.loads(line))
            except json.JSONDecodeError:
                pass  # a library's print; only JSON lines are events
        self.events.put(None)

    def run(self, case, timeout):
        """The result of one case, or a failure that says why."""
        try:
            self.proc.stdin.write(json.dumps(case) + "\n")
            self.proc.stdin.flush()
        except BrokenPipeError:
            return self._died()
        deadline = time.monotonic() + timeout
        while True:
            try:
                event = self.events.get(
                    timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                self.stop()
                return {"status": "skipped",
                        "reason": "over %.0f s (stopped)" % timeout}
            if event is None:
                return self._died()
            if event.get("event") == "versions":
                event.pop("event")
                self.versions.update(event)
            elif event.get("event") == "result":
                event.pop("event")
                return event

    def _died(self):
        code = self.proc.wait()
        return {"status": "failed",
                "reason": "the process ended (exit %d); see %s" % (
                    code, self.log.name)}

    def alive(self):
        return self.proc.poll() is None

    def stop(self):
        if self.alive():
            self.proc.kill()
        self.proc.wait()

    def close(self):
        if self.alive():
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def too_slow(impl, case, done, limit):
    """Why `case` would take too long for `impl`, from the largest smaller N
    of the same B it ran (its time scaled linearly in N), or None."""
    if case["task"] != "sampler":
        return None
    before = [(c["n"], rec) for c, rec in done
              if c["task"] == "sampler" and c["b"] == case["b"]
              and c["n"] < case["n"]]
    if not before:
        return None
    n_prev, rec = max(before, key=lambda x: x[0])
    if rec["status"] == "skipped" and "memory" not in rec.get("reason", ""):
        return "N=%s was too slow" % report.fmt_n(n_prev)
    if rec["status"] != "ok":
        return None
    per_call = rec["median_s"] * case["n"] / n_prev
    # A warm-up call and at least three timed ones.
    if 4 * per_call > limit:
        return "~%.0f s per call (from N=%s)" % (per_call,
                                                 report.fmt_n(n_prev))
    return None


def run_impl(impl, cases, args, log_dir, timeout=None):
    """Runs `cases` in one process of `impl` (another after a crash or a
    timeout), each for `timeout` seconds at most (--case-timeout). Returns
    ({case key: result}, versions)."""
    results, done = {}, []
    log = open(os.path.join(log_dir, impl + ".log"), "w")
    worker = None
    versions = {}
    for case in cases:
        key = case_key(case)
        slow = too_slow(impl, case, done, args.case_limit)
        if case.get("skip"):
            rec = {"status": "skipped", "reason": case["skip"]}
        elif slow:
            rec = {"status": "skipped", "reason": slow}
        else:
            if worker is None or not worker.alive():
                worker = Worker(impl, args, log)
            t0 = time.monotonic()
            rec = worker.run(case, timeout or args.case_timeout)
            rec["wall_s"] = time.monotonic() - t0
            versions.update(worker.versions)
        results[key] = rec
        done.append((case, rec))
        print("  %-22s %-30s %s" % (impl, common.case_name(case),
                                    report.describe(rec)), flush=True)
    if worker is not None:
        worker.close()
    log.close()
    return results, versions


def measure(args, impls, data_dir, log_dir, started):
    """Writes the inputs, measures the bandwidth, runs every implementation
    and returns all of it as peers.json's data."""
    cases = make_cases(args, data_dir)
    limit = args.memory_gb * 2**30
    for case in cases:
        need = memory_needed(case)
        if need > limit:
            case["skip"] = "memory (~%.0f GB of %.0f)" % (need / 1e9,
                                                          limit / 1e9)
        else:
            common.write_inputs(case)
    print("inputs ready (%.0f s)" % (time.monotonic() - started), flush=True)

    # The bandwidth first, on an idle machine, 1 GiB (--quick 256 MiB).
    probe = {"task": "bandwidth", "bytes": (256 if args.quick else 1024)
             * 2**20}
    bw, bw_versions = run_impl("bandwidth", [probe], args, log_dir,
                               timeout=300)
    bandwidth = bw[case_key(probe)]

    results, versions = {}, dict(bw_versions)
    for impl in impls:
        mine = [c for c in cases
                if (c["task"] == "sampler" and impl in SAMPLER_IMPLS) or
                (c["task"] == "cross_entropy" and impl in CE_IMPLS)]
        results[impl], v = run_impl(impl, mine, args, log_dir)
        versions.update(v)

    data = {"quick": args.quick, "machine": machine_info(),
            "versions": versions, "bandwidth": bandwidth,
            "settings": {"repeat": args.repeat, "budget_s": args.budget,
                         "case_limit_s": args.case_limit,
                         "ce_mb": args.ce_mb, "memory_gb": args.memory_gb},
            "cases": [{k: v for k, v in c.items() if k != "dir"}
                      for c in cases],
            "impls": impls, "results": results,
            "run_s": time.monotonic() - started}
    return data


def main():
    args = parse_args()
    tensor_run = os.path.join(os.environ.get(
        "SIFT_BUILD_DIR", os.path.join(ROOT, "build")), "bin", "tensor-run")
    if not os.path.exists(tensor_run):
        sys.exit("bench/peers: %s is missing; run ./scripts/build.sh first"
                 % tensor_run)
    impls = [i for i in IMPL_ORDER if i in args.impls.split(",")]
    started = time.monotonic()
    data_dir = args.data_dir or tempfile.mkdtemp(prefix="sift-peers-data-")
    os.makedirs(args.out, exist_ok=True)
    log_dir = tempfile.mkdtemp(prefix="sift-peers-logs-")
    print("bench/peers: %s run, python %s, inputs in %s, worker logs in %s"
          % ("quick" if args.quick else "full", sys.executable, data_dir,
             log_dir), flush=True)

    try:
        data = measure(args, impls, data_dir, log_dir, started)
    finally:
        if not args.data_dir:
            shutil.rmtree(data_dir, ignore_errors=True)
    with open(os.path.join(args.out, "peers.json"), "w") as f:
        json.dump(data, f, indent=1)
    report.write_markdown(data, os.path.join(args.out, "peers.md"))
    report.write_plot(data, os.path.join(args.out, "peers.png"))
    if args.readme and os.path.realpath(args.out) == os.path.realpath(
            DEFAULT_OUT):
        if report.embed_in_readme(os.path.join(args.out, "peers.md"),
                                  os.path.join(ROOT, "README.md")):
            print("README.md: Benchmarks section updated")
    print("wrote %s/peers.{md,png,json} (%.0f s in all)" % (
        args.out, time.monotonic() - started))
    return 0


if __name__ == "__main__":
    sys.exit(main())
