#!/usr/bin/env python3
"""bench/sampler: the balanced sampler in sift next to PyTorch eager.

For each N and batch size B, in one run on this machine:
  torch-dynamic  the natural PyTorch sampler (nonzero, randperm, slices),
                 looped over the rows of the batch;
  torch-static   the hand-written static rewrite (counts, keys, top-k,
                 gathers) on the whole batch;
  sift           the batched static sampler compiled by sift
                 (examples/sampler_batched.mlir's template) and run through
                 tensor-run, which JIT-compiles it once and times the calls;
  sift-auto      the seed's dynamic sampler (examples/sampler.mlir, resized)
                 made static and batched by the compiler alone
                 (--sift-staticize, --sift-batch), one seed per row.
It prints the time per call (median of --repeat calls) and the ratios of
each PyTorch form to sift and of torch-dynamic to sift-auto (> 1: sift is
faster), plus sift's JIT compile time. K = N / 10, D = 16 features, labels
0/1 with 30% positives.

PyTorch comes from PyPI (`python3 -m pip install torch numpy`); without it
the benchmark says so and exits 0.
"""

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)


def median_time(fn, repeat):
    fn()  # warm up
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def run_sift(tensor_run, mlir, feats_npy, labels_npy, repeat, extra=None):
    """Returns (median seconds per call, compile seconds, wall seconds)."""
    cmd = [tensor_run, mlir, "--input", feats_npy, "--input", labels_npy,
           "--repeat", str(repeat), "--no-compile-cache"]
    cmd += extra or ["-e", "sampler", "--arg", "seed=1"]
    t0 = time.perf_counter()
    out = subprocess.run(cmd, capture_output=True, text=True)
    wall = time.perf_counter() - t0
    if out.returncode != 0:
        raise RuntimeError("tensor-run failed:\n" + out.stdout + out.stderr)
    m = re.search(r"min ([0-9.]+) ms, median ([0-9.]+) ms", out.stdout)
    if not m:
        raise RuntimeError("no timing in tensor-run output:\n" + out.stdout)
    median = float(m.group(2)) / 1e3
    c = re.search(r"compile[^0-9]*([0-9.]+) ms", out.stdout)
    compile_s = float(c.group(1)) / 1e3 if c else None
    return median, compile_s, wall


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000,1000000")
    parser.add_argument("--batches", default="1,32")
    parser.add_argument("--repeat", type=int, default=10)
    parser.add_argument("--tensor-run", default=os.path.join(
        HERE, "..", "..", "build", "bin", "tensor-run"))
    parser.add_argument("--threads", type=int, default=0,
                        help="torch.set_num_threads (0: PyTorch's default)")
    args = parser.parse_args()

    try:
        import numpy as np
        import torch
    except ImportError as e:
        print("bench/sampler: PyTorch and NumPy are needed for the peers "
              "(python3 -m pip install torch numpy): %s; skipping." % e)
        return 0
    from sift_sampler import auto_sampler_mlir, batched_static_sampler_mlir
    from torch_sampler import dynamic_sampler_batch, static_sampler

    if args.threads:
        torch.set_num_threads(args.threads)
    print("torch %s, %d threads; sift via %s" %
          (torch.__version__, torch.get_num_threads(), args.tensor_run))
    header = ("%8s %3s | %14s %14s %12s %12s | %9s %9s %9s | %10s" %
              ("N", "B", "torch-dynamic", "torch-static", "sift",
               "sift-auto", "dyn/sift", "stat/sift", "dyn/auto", "compile"))
    print(header)
    print("-" * len(header))
    rng = np.random.default_rng(0)
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(float(x)) for x in args.sizes.split(",")):
            k = n // 10
            for b in (int(x) for x in args.batches.split(",")):
                labels = (rng.random((b, n)) < 0.3).astype(np.int64)
                feats = rng.random((b, n, 16), dtype=np.float32)
                tl, tf = torch.from_numpy(labels), torch.from_numpy(feats)
                gen = torch.Generator().manual_seed(0)
                rep = max(3, args.repeat // (1 + n * b // 1000000))
                t_dyn = median_time(
                    lambda: dynamic_sampler_batch(tf, tl, k, gen), rep)
                t_stat = median_time(
                    lambda: static_sampler(tf, tl, k, gen), rep)
                mlir = os.path.join(tmp, "sampler_%d_%d.mlir" % (b, n))
                with open(mlir, "w") as f:
                    f.write(batched_static_sampler_mlir(b, n, k))
                fnpy = os.path.join(tmp, "f.npy")
                lnpy = os.path.join(tmp, "l.npy")
                np.save(fnpy, feats)
                np.save(lnpy, labels)
                t_sift, t_compile, wall = run_sift(args.tensor_run, mlir,
                                                   fnpy, lnpy, rep)
                if t_compile is None:
                    # Whole tensor-run process minus the timed calls.
                    t_compile = wall - (rep + 1) * t_sift
                auto = os.path.join(tmp, "auto_%d.mlir" % n)
                with open(auto, "w") as f:
                    f.write(auto_sampler_mlir(n, k))
                snpy = os.path.join(tmp, "s.npy")
                np.save(snpy, rng.integers(0, 2 ** 62, b, dtype=np.int64))
                t_auto, _, _ = run_sift(
                    args.tensor_run, auto, fnpy, lnpy, rep,
                    ["--input", snpy, "-e", "sampler_batched",
                     "--transforms=sift-staticize,sift-batch{func=sampler "
                     "size=%d}" % b])
                print("%8d %3d | %11.3f ms %11.3f ms %9.3f ms %9.3f ms | "
                      "%8.2fx %8.2fx %8.2fx | %7.0f ms" %
                      (n, b, t_dyn * 1e3, t_stat * 1e3, t_sift * 1e3,
                       t_auto * 1e3, t_dyn / t_sift, t_stat / t_sift,
                       t_dyn / t_auto, t_compile * 1e3))
                sys.stdout.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main())
