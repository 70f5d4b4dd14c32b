#!/usr/bin/env python3
"""Writes the inputs of the sampler example as .npy files (standard library
only): features [B, N, 16] float32 uniform in [0, 1), labels [B, N] int64,
1 (positive) with probability 0.3, else 0 (negative), and one Philox seed per
row, seeds [B] int64.

usage: make_sampler_inputs.py OUT_DIR [B] [N] [SEED]
"""
import array
import os
import random
import sys


def write_npy(path, descr, shape, values):
    header = "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }" % (
        descr, "".join("%d, " % s for s in shape))
    header += " " * ((64 - (10 + len(header) + 1) % 64) % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00")
        f.write(len(header).to_bytes(2, "little"))
        f.write(header.encode("latin1"))
        values.tofile(f)


def main():
    out = sys.argv[1]
    b = int(sys.argv[2]) if len(sys.argv) > 2 else 32
    n = int(sys.argv[3]) if len(sys.argv) > 3 else 10000
    rng = random.Random(int(sys.argv[4]) if len(sys.argv) > 4 else 0)
    os.makedirs(out, exist_ok=True)
    assert sys.byteorder == "little"
    feats = array.array("f", (rng.random() for _ in range(b * n * 16)))
    labels = array.array("q", (int(rng.random() < 0.3) for _ in range(b * n)))
    write_npy(os.path.join(out, "features.npy"), "<f4", (b, n, 16), feats)
    write_npy(os.path.join(out, "labels.npy"), "<i8", (b, n), labels)
    seeds = array.array("q", (rng.getrandbits(62) for _ in range(b)))
    write_npy(os.path.join(out, "seeds.npy"), "<i8", (b,), seeds)


if __name__ == "__main__":
    main()
