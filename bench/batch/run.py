#!/usr/bin/env python3
"""--sift-batch against a loop of per-row calls, on the seed's sampler.

For each N, examples/sampler.mlir is resized (N items, K = N/10 samples,
16 features), passed through `tensor-opt --sift-staticize
--sift-batch="func=sampler size=B"`, and run two ways in one tensor-run
build of the same module:

  batched  @sampler_batched: the whole batch as one program;
  loop     @sampler_rows: an scf.for calling the static per-sample function
           once per row (the loop the pass replaces; no host round trip
           between calls, so it is the loop's best case).

Both get the same inputs (30% positives, one seed per row) and must give
identical results; the script checks that, then prints the median time per
call and the ratio loop/batched (above 1: batching is faster).

    python3 bench/batch/run.py [--sizes 10000,100000] [--batch 32] [--repeat 10]
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "test", "Conformance"))

try:
    import numpy as np
except ImportError:
    print("bench/batch: numpy is not installed (scripts/bootstrap.sh installs "
          "it); nothing to do")
    sys.exit(0)

from check_batch import rows_function  # noqa: E402


def sampler_text(n, k):
    text = open(os.path.join(ROOT, "examples", "sampler.mlir")).read()
    text = text.replace("10000", str(n))
    text = re.sub(r"%half = arith.constant \d+", "%%half = arith.constant %d"
                  % (k // 2), text)
    text = re.sub(r"%k = arith.constant \d+", "%%k = arith.constant %d" % k,
                  text)
    # rows_function calls @f.
    return text.replace("@sampler(", "@f(")


def timed(tensor_run, path, entry, inputs, repeat, out):
    cmd = [tensor_run, path, "-e", entry, "--repeat", str(repeat),
           "--output-dir", out, "--no-compile-cache"]
    for i in inputs:
        cmd += ["--input", i]
    p = subprocess.run(cmd, capture_output=True, text=True)
    if p.returncode != 0:
        sys.exit("tensor-run failed:\n" + p.stderr + p.stdout)
    m = re.search(r"median ([0-9.]+) ms", p.stdout)
    c = re.search(r"compile time: ([0-9.]+) ms", p.stdout)
    return float(m.group(1)), float(c.group(1))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--build", default=os.environ.get(
        "SIFT_BUILD_DIR", os.path.join(ROOT, "build")))
    opts = ap.parse_args()
    opt = os.path.join(opts.build, "bin", "tensor-opt")
    run = os.path.join(opts.build, "bin", "tensor-run")
    b = opts.batch
    work = tempfile.mkdtemp(prefix="sift-bench-batch-")
    print("sampler, B = %d, K = N/10, 16 features; median ms per call "
          "(--repeat %d)" % (b, opts.repeat))
    print("%9s | %10s %10s | %9s | %s" % ("N", "loop", "batched",
                                           "loop/bat", "compile (batched)"))
    print("-" * 64)
    for n in [int(s) for s in opts.sizes.split(",")]:
        k = n // 10
        src = os.path.join(work, "sampler_%d.mlir" % n)
        with open(src, "w") as f:
            f.write(sampler_text(n, k))
        p = subprocess.run([opt, src, "--sift-staticize",
                            "--sift-batch=func=f size=%d" % b],
                           capture_output=True, text=True)
        if p.returncode != 0:
            sys.exit("tensor-opt failed:\n" + p.stderr)
        module = p.stdout
        end = module.rstrip().rindex("}")
        module = module[:end] + rows_function(module, b) + "\n}\n"
        prog = os.path.join(work, "batched_%d.mlir" % n)
        with open(prog, "w") as f:
            f.write(module)
        rng = np.random.default_rng(n)
        inputs = [os.path.join(work, "%s_%d.npy" % (name, n))
                  for name in ("features", "labels", "seeds")]
        np.save(inputs[0], rng.random((b, n, 16), dtype=np.float32))
        np.save(inputs[1], (rng.random((b, n)) < 0.3).astype(np.int64))
        np.save(inputs[2], rng.integers(0, 2 ** 62, b, dtype=np.int64))
        outs = [os.path.join(work, "out_%s_%d" % (e, n))
                for e in ("batched", "rows")]
        t_loop, _ = timed(run, prog, "f_rows", inputs, opts.repeat, outs[1])
        t_batched, compile_ms = timed(run, prog, "f_batched", inputs,
                                      opts.repeat, outs[0])
        for i in range(4):
            a = np.load(os.path.join(outs[0], "result%d.npy" % i))
            r = np.load(os.path.join(outs[1], "result%d.npy" % i))
            if not np.array_equal(a, r):
                sys.exit("result %d of the batched sampler differs from the "
                         "per-row calls at N = %d" % (i, n))
        print("%9d | %10.2f %10.2f | %8.2fx | %.0f ms" % (
            n, t_loop, t_batched, t_loop / t_batched, compile_ms))
    print("(results of the two forms compared: identical)")


if __name__ == "__main__":
    main()
