#!/usr/bin/env python3
"""Runs the kernels of test/GPU/launch-to-cpu.mlir with
`tensor-run --transforms sift-gpu-launch-to-cpu` and compares each result
with a NumPy model of the PTX semantics (shfl.sync as the NVVM lowering of
gpu.shuffle emits it; subgroup reductions as the shuffle butterflies they
expand to). Prints `<kernel>: ok` or the differences, then `all ok`."""
import argparse
import os
import subprocess
import sys

import numpy as np

WARP = 32


def shfl(values, mode, offset, width):
    """PTX shfl.sync over each warp of `values` (c = width - 1, or
    32 - width for up; segmask 0); returns (result, valid)."""
    n = len(values)
    out = values.copy()
    valid = np.zeros(n, bool)
    b = offset & 31
    for t in range(n):
        lane, base = t % WARP, t - t % WARP
        if mode == "up":
            j = lane - b
            ok = j >= WARP - width
        else:
            j = {"down": lane + b, "xor": lane ^ b, "idx": b}[mode]
            ok = j <= width - 1
        valid[t] = ok
        if ok and base + j < n:
            out[t] = values[base + j]
    return out, valid


def cluster_reduce(values, op, size=WARP, stride=1):
    """The xor butterfly of gpu.subgroup_reduce's expansion."""
    acc = values.copy()
    step = 1
    while step < size:
        other, _ = shfl(acc, "xor", step * stride, WARP)
        acc = op(acc, other)
        step *= 2
    return acc


def ref_shuffles():
    v = np.arange(64, dtype=np.int32) * 10
    rows = []
    for mode, off, width in (("up", 3, 32), ("down", 5, 16), ("xor", 7, 32),
                             ("idx", 33, 32)):
        r, ok = shfl(v, mode, off, width)
        rows.append(np.where(ok, r, -1))
    return np.stack(rows).astype(np.int32)


def ref_subgroup_reduce():
    t = np.arange(64, dtype=np.int64)
    v = ((t * t) % 7 + t).astype(np.int32)
    a = cluster_reduce(v, np.add)
    b = cluster_reduce(v, np.add, size=4)
    c = cluster_reduce(v, np.maximum, size=8, stride=2)
    # Independent of the butterfly: sums and maxima over the lanes.
    for lane in range(64):
        base = lane - lane % 32
        assert a[lane] == v[base:base + 32].sum()
        assert b[lane] == v[lane - lane % 4:lane - lane % 4 + 4].sum()
        w = lane % 32
        first = base + w % 2 + (w // 16) * 16
        assert c[lane] == v[first:first + 16:2].max()
    return np.stack([a, b, c]).astype(np.int32)


def ref_float_reduce():
    v = (np.float32(1) / (np.arange(32, dtype=np.float32) + 1)).astype(
        np.float32)
    return cluster_reduce(v, lambda x, y: (x + y).astype(np.float32))


def ref_barrier_loop():
    out = np.zeros((2, 96), np.int32)
    for blk in range(2):
        acc = blk * 1000 + np.arange(96, dtype=np.int32)
        for _ in range(3):
            acc = acc + np.roll(acc, -1)
        out[blk] = acc
    return out


def ref_divergent_shuffle():
    t = np.arange(64)
    return np.where(t % 2 == 0, (t - t % 32 + (t % 32 ^ 2)) * 10,
                    -1).astype(np.int32)


KERNELS = [("shuffles", ref_shuffles), ("subgroup_reduce", ref_subgroup_reduce),
           ("float_reduce", ref_float_reduce),
           ("barrier_loop", ref_barrier_loop),
           ("divergent_shuffle", ref_divergent_shuffle)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tensor-run", required=True)
    ap.add_argument("--kernels", required=True)
    ap.add_argument("--workdir", required=True)
    a = ap.parse_args()
    failed = False
    for name, ref in KERNELS:
        out = os.path.join(a.workdir, name)
        os.makedirs(out, exist_ok=True)
        p = subprocess.run([a.tensor_run, a.kernels, "-e", name, "--transforms",
                            "sift-gpu-launch-to-cpu", "--output-dir", out],
                           capture_output=True, text=True)
        if p.returncode != 0:
            print("%s: tensor-run failed:\n%s" % (name, p.stderr))
            failed = True
            continue
        got = np.load(os.path.join(out, "result0.npy"))
        want = ref()
        if got.dtype != want.dtype or not np.array_equal(got, want):
            print("%s: MISMATCH\n got %s\nwant %s" % (name, got, want))
            failed = True
        else:
            print("%s: ok" % name)
    if not failed:
        print("all ok")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
