#!/usr/bin/env python3
"""Runs the batched static sampler (bench/sampler/sift_sampler.py, the
template of examples/sampler_batched.mlir) through tensor-run on rows with
very different label balances and checks, per row, against the sampler's
definition computed here with NumPy: the valid count, the exact number of
positives and negatives, distinct sampled items whose features and labels
are the input's, -1 labels and zero features past the count, and that the
same seed gives the same result and another seed another one.

usage: check_sampler_batched.py --tensor-run PATH [--pipeline TEXT] [--dim D]
(--pipeline: what tensor-run compiles with instead of the CPU pipeline, e.g.
the GPU pipeline with its launches executed on the CPU; --dim: features per
item, 4 unless given: 16 makes rows of a whole cache line.)
Prints "sampler-batched: N passed, M failed"; exit 77 without numpy.
"""
import argparse
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench", "sampler"))

try:
    import numpy as np
except ImportError:
    print("sampler-batched: skipped: numpy is not installed")
    sys.exit(77)

from sift_sampler import batched_static_sampler_mlir  # noqa: E402


def expected_counts(labels, k):
    half = k // 2
    p, q = int((labels == 1).sum()), int((labels == 0).sum())
    num_pos, num_neg = min(p, half), min(q, half)
    if num_neg < half:
        num_pos = min(k - num_neg, p)
    elif num_pos < half:
        num_neg = min(k - num_pos, q)
    return num_pos, num_neg


def run(tensor_run, tmp, feats, labels, k, seed, pipeline=""):
    b, n = labels.shape
    mlir = os.path.join(tmp, "s.mlir")
    with open(mlir, "w") as f:
        f.write(batched_static_sampler_mlir(b, n, k, feats.shape[2]))
    np.save(os.path.join(tmp, "f.npy"), feats)
    np.save(os.path.join(tmp, "l.npy"), labels)
    out = os.path.join(tmp, "out%d" % seed)
    subprocess.run([tensor_run, mlir, "--input", os.path.join(tmp, "f.npy"),
                    "--input", os.path.join(tmp, "l.npy"), "--arg",
                    "seed=%d" % seed, "--output-dir", out] +
                   (["--pipeline", pipeline] if pipeline else []),
                   check=True, capture_output=True)
    return [np.load(os.path.join(out, "result%d.npy" % i)) for i in range(3)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--tensor-run", required=True)
    parser.add_argument("--pipeline", default="")
    parser.add_argument("--dim", type=int, default=4)
    args = parser.parse_args()
    rng = np.random.default_rng(3)
    n, k, d = 200, 20, args.dim
    # Row balances: typical, positives short, negatives short, both short,
    # all positive, all negative, nothing eligible, a single positive.
    rates = [0.3, 0.03, 0.97, None, 1.0, 0.0, "none", "one"]
    labels = np.zeros((len(rates), n), dtype=np.int64)
    for r, rate in enumerate(rates):
        if rate is None:  # both short: 4 positives, 5 negatives, rest -1
            labels[r] = -1
            labels[r, rng.choice(n, 9, replace=False)[:4]] = 1
            where = np.flatnonzero(labels[r] == -1)[:5]
            labels[r, where] = 0
        elif rate == "none":
            labels[r] = 2
        elif rate == "one":
            labels[r] = 7
            labels[r, 17] = 1
        else:
            labels[r] = (rng.random(n) < rate).astype(np.int64)
    feats = rng.random((len(rates), n, d), dtype=np.float32)
    passed = failed = 0
    with tempfile.TemporaryDirectory() as tmp:
        f1, l1, c1 = run(args.tensor_run, tmp, feats, labels, k, 11,
                         args.pipeline)
        f2, l2, c2 = run(args.tensor_run, tmp, feats, labels, k, 11,
                         args.pipeline)
        f3, _, _ = run(args.tensor_run, tmp, feats, labels, k, 12,
                       args.pipeline)
        for r in range(len(rates)):
            errors = []
            num_pos, num_neg = expected_counts(labels[r], k)
            cnt = int(c1[r])
            if cnt != num_pos + num_neg:
                errors.append("count %d, expected %d" % (cnt,
                                                         num_pos + num_neg))
            got = l1[r, :cnt]
            if (got == 1).sum() != num_pos or (got == 0).sum() != num_neg:
                errors.append("labels %s, expected %d positives and %d "
                              "negatives" % (np.bincount(got + 1), num_pos,
                                             num_neg))
            rows = {tuple(feats[r, i]): i for i in range(n)}
            idx = [rows.get(tuple(v)) for v in f1[r, :cnt]]
            if None in idx or len(set(idx)) != cnt:
                errors.append("sampled features are not distinct input rows")
            elif not np.array_equal(labels[r, idx], got):
                errors.append("sampled labels do not match the items")
            if (l1[r, cnt:] != -1).any() or (f1[r, cnt:] != 0).any():
                errors.append("lanes past the count are not -1 / zero")
            if errors:
                failed += 1
                print("FAIL row %d (%s): %s" % (r, rates[r], "; ".join(errors)))
            else:
                passed += 1
        for what, ok in (("same seed, same result",
                          np.array_equal(f1, f2) and np.array_equal(l1, l2)),
                         ("another seed, another result",
                          not np.array_equal(f1[0], f3[0]))):
            if ok:
                passed += 1
            else:
                failed += 1
                print("FAIL " + what)
    print("sampler-batched: %d passed, %d failed" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
