#!/usr/bin/env python3
"""The JIT's compile cache: the first compile of the batched sampler against
the second, each in a new process.

examples/sampler.mlir is compiled by tensor-run with the transforms
scripts/example.sh applies (--sift-staticize, --sift-batch with B = 32,
canonicalize, cse) and run once on random inputs. Each round uses a fresh,
empty cache directory (SIFT_CACHE_DIR) and runs three processes:

  off    --no-compile-cache: the compile without the cache (the baseline);
  first  an empty cache: the same compile, which also stores the entry;
  second a new process: the compile that loads the entry.

The compile time is tensor-run's own (Engine::compileSource, inside the
process); the process times are printed apart. The script checks that the
second compile came from the cache and that the three processes printed the
same results, then prints the medians and the ratio first/second (the
target is at least 20).

    python3 bench/compile_cache/run.py [--rounds 5] [--batch 32]
        [--tensor-run build/bin/tensor-run]
"""
import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def run(tensor_run, batch, cache_dir, extra):
    cmd = [tensor_run, os.path.join(ROOT, "examples", "sampler.mlir"),
           "--transforms",
           "sift-staticize,sift-batch{func=sampler size=%d},canonicalize,cse"
           % batch,
           "-e", "sampler_batched", "--random", "--seed", "7",
           "--repeat", "2"] + extra
    env = dict(os.environ, SIFT_CACHE_DIR=cache_dir)
    env.pop("SIFT_CACHE", None)
    start = time.perf_counter()
    p = subprocess.run(cmd, capture_output=True, text=True, env=env)
    wall = (time.perf_counter() - start) * 1e3
    if p.returncode != 0:
        sys.exit("tensor-run failed:\n" + p.stderr + p.stdout)
    m = re.search(r"compile time: ([0-9.]+) ms(.*)", p.stdout)
    if not m:
        sys.exit("no compile time in:\n" + p.stdout)
    results = [line for line in p.stdout.splitlines() if "time" not in line]
    return float(m.group(1)), "compile cache" in m.group(2), wall, results


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--batch", type=int, default=32)
    parser.add_argument("--tensor-run",
                        default=os.path.join(ROOT, "build", "bin",
                                             "tensor-run"))
    args = parser.parse_args()

    times = {"off": [], "first": [], "second": []}
    walls = {"off": [], "first": [], "second": []}
    for r in range(args.rounds):
        cache_dir = tempfile.mkdtemp(prefix="sift-compile-cache-bench-")
        try:
            outputs = {}
            for name, extra in (("off", ["--no-compile-cache"]),
                                ("first", []), ("second", [])):
                ms, cached, wall, results = run(args.tensor_run, args.batch,
                                                cache_dir, extra)
                if cached != (name == "second"):
                    sys.exit("round %d: the %s compile %s the cache" %
                             (r, name, "used" if cached else "missed"))
                times[name].append(ms)
                walls[name].append(wall)
                outputs[name] = results
            if not outputs["off"] == outputs["first"] == outputs["second"]:
                sys.exit("round %d: the results differ between the processes"
                         % r)
        finally:
            shutil.rmtree(cache_dir)
        print("round %d: off %.1f ms, first %.1f ms, second %.1f ms" %
              (r, times["off"][-1], times["first"][-1], times["second"][-1]),
              flush=True)

    med = {k: statistics.median(v) for k, v in times.items()}
    wall = {k: statistics.median(v) for k, v in walls.items()}
    print()
    print("batched sampler (B = %d), median of %d rounds:" %
          (args.batch, args.rounds))
    print("| compile | in-process (ms) | whole process (ms) |")
    print("|---|---:|---:|")
    print("| no cache | %.1f | %.0f |" % (med["off"], wall["off"]))
    print("| first, empty cache (stores) | %.1f | %.0f |" %
          (med["first"], wall["first"]))
    print("| second, new process (loads) | %.1f | %.0f |" %
          (med["second"], wall["second"]))
    ratio = med["first"] / med["second"]
    print("first / second: %.0fx (target: at least 20x)" % ratio)
    return 0 if ratio >= 20 else 1


if __name__ == "__main__":
    sys.exit(main())
