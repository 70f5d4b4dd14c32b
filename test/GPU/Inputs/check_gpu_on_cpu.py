#!/usr/bin/env python3
"""Runs programs through `--sift-gpu-pipeline=on-cpu=1` (the GPU pipeline's
kernels and host code, each launch executed on the CPU) with tensor-run and
checks the results against NumPy. Prints `<case>: ok` or the differences,
then `all ok`.

Cases:
  split    test/GPU/host-scalars-on-cpu.mlir @split: two compactions whose
           counts host code reads for later kernels and a scalar result.
  sampler  examples/sampler.mlir staticized, unbatched @sampler (its sorts
           stay on the host: allow-host-code): a balanced sample, checked by
           its properties (the random permutation is not modelled).
"""
import argparse
import os
import subprocess
import sys

import numpy as np

PIPELINE = "builtin.module(sift-gpu-pipeline{{on-cpu=1{extra}}})"


def run(args, program, func, inputs, scalars=(), extra=""):
    out = os.path.join(args.workdir, func)
    os.makedirs(out, exist_ok=True)
    cmd = [args.tensor_run, program, "-e", func,
           "--pipeline=" + PIPELINE.format(extra=extra), "--output-dir", out]
    for i, value in enumerate(inputs):
        path = os.path.join(out, "in%d.npy" % i)
        np.save(path, value)
        cmd.append("--input=" + path)
    cmd += ["--arg=" + s for s in scalars]
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if proc.returncode != 0:
        sys.exit("%s failed:\n%s" % (" ".join(cmd), proc.stderr[-4000:]))
    results = []
    i = 0
    while os.path.exists(os.path.join(out, "result%d.npy" % i)):
        results.append(np.load(os.path.join(out, "result%d.npy" % i)))
        i += 1
    return results


def check_split(args):
    rng = np.random.default_rng(1)
    failures = []
    # Fewer and more than the 256 slots of each compaction.
    for p_one in (0.1, 0.5, 0.9):
        labels = np.where(rng.random(1024) < p_one, 1,
                          rng.integers(2, 5, 1024)).astype(np.int64)
        r, t = run(args, args.split, "split", [labels])
        pos = np.flatnonzero(labels == 1)[:256]
        neg = np.flatnonzero(labels != 1)[:256]
        both = np.concatenate([np.pad(pos, (0, 256 - len(pos)),
                                      constant_values=-1),
                               np.pad(neg, (0, 256 - len(neg)),
                                      constant_values=-1)])
        total = len(pos) + len(neg)
        m = min(total, len(pos))
        want = np.where(np.arange(512) < m, both, -1)
        if not np.array_equal(r, want) or int(t) != total:
            failures.append("p=%g: total %d (want %d), %d of 512 differ" %
                            (p_one, int(t), total, int((r != want).sum())))
    return failures


def check_sampler(args):
    rng = np.random.default_rng(3)
    failures = []
    # Few positives (all taken, negatives fill up), and many of both.
    for p_one, p_zero in ((0.013, 0.5), (0.3, 0.3)):
        x = rng.random((10000, 16), dtype=np.float32)
        u = rng.random(10000)
        labels = np.where(u < p_one, 1,
                          np.where(u < p_one + p_zero, 0, 2)).astype(np.int64)
        feats, n, labs, n2 = run(args, args.sampler, "sampler", [x, labels],
                                 ["arg2=7"], " allow-host-code=1")
        n, n2 = int(n), int(n2)
        npos, nneg = int((labels == 1).sum()), int((labels == 0).sum())
        take_pos, take_neg = min(npos, 500), min(nneg, 500)
        if take_neg < 500:
            take_pos = min(1000 - take_neg, npos)
        elif take_pos < 500:
            take_neg = min(1000 - take_pos, nneg)
        rows = {r.tobytes(): i for i, r in enumerate(x)}
        idx = [rows.get(r.tobytes(), -1) for r in feats[:n]]
        problems = []
        if n != take_pos + take_neg or n2 != n:
            problems.append("%d, %d items (want %d)" %
                            (n, n2, take_pos + take_neg))
        if min(idx, default=0) < 0 or len(set(idx)) != len(idx):
            problems.append("rows not distinct rows of the input")
        elif not np.array_equal(labels[idx], labs[:n]):
            problems.append("labels are not the rows' labels")
        elif (labs[:n] == 1).sum() != take_pos or (labs[:n] == 0).sum() != \
                take_neg:
            problems.append("%d positives, %d negatives (want %d, %d)" %
                            ((labs[:n] == 1).sum(), (labs[:n] == 0).sum(),
                             take_pos, take_neg))
        if problems:
            failures.append("p=%g/%g: %s" % (p_one, p_zero,
                                              "; ".join(problems)))
    return failures


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tensor-run", required=True)
    parser.add_argument("--split", required=True)
    parser.add_argument("--sampler", required=True)
    parser.add_argument("--workdir", required=True)
    args = parser.parse_args()
    ok = True
    for name, check in (("split", check_split), ("sampler", check_sampler)):
        failures = check(args)
        print("%s: %s" % (name, "ok" if not failures else "; ".join(failures)))
        ok &= not failures
    if ok:
        print("all ok")


if __name__ == "__main__":
    main()
