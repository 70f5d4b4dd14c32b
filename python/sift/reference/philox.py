"""Philox4x32-10 and the sift random streams, in plain Python.

This is the reference the compiled random ops (`sift.random_bits`,
`sift.random_uniform`, `sift.randperm`, the keys of `sift.sample_balanced`)
are checked against bit for bit. It follows Salmon et al., "Parallel random
numbers: as easy as 1, 2, 3" (SC'11), and the stream layout of the sift
dialect (docs/Dialect.md, "Conventions"):

* key = (lo32(seed), hi32(seed));
* block j = Philox4x32-10 of the counter (lo32(j), hi32(j), lo32(offset),
  hi32(offset)), giving four 32-bit words;
* the stream is the concatenation of the blocks.
"""

MASK32 = 0xFFFFFFFF
MASK64 = 0xFFFFFFFFFFFFFFFF

# Multipliers and Weyl key increments of Philox4x32.
M0 = 0xD2511F53
M1 = 0xCD9E8D57
W0 = 0x9E3779B9
W1 = 0xBB67AE85


def _mulhilo(a, b):
    p = a * b
    return (p >> 32) & MASK32, p & MASK32


def philox4x32_10(counter, key):
    """Applies the 10-round Philox4x32 bijection to a 4-word counter."""
    c0, c1, c2, c3 = (w & MASK32 for w in counter)
    k0, k1 = (w & MASK32 for w in key)
    for r in range(10):
        if r:
            k0 = (k0 + W0) & MASK32
            k1 = (k1 + W1) & MASK32
        hi0, lo0 = _mulhilo(M0, c0)
        hi1, lo1 = _mulhilo(M1, c2)
        c0, c1, c2, c3 = hi1 ^ c1 ^ k0, lo1, hi0 ^ c3 ^ k1, lo0
    return c0, c1, c2, c3


def words(seed, offset, count):
    """The first `count` 32-bit words of the stream (seed, offset)."""
    seed &= MASK64
    offset &= MASK64
    key = (seed & MASK32, seed >> 32)
    out = []
    block = 0
    while len(out) < count:
        ctr = (block & MASK32, (block >> 32) & MASK32, offset & MASK32,
               offset >> 32)
        out.extend(philox4x32_10(ctr, key))
        block += 1
    return out[:count]


def random_bits(seed, offset, count, width=32):
    """Elements of `sift.random_bits` as unsigned integers (row-major)."""
    if width == 32:
        return words(seed, offset, count)
    if width == 64:
        w = words(seed, offset, 2 * count)
        return [w[2 * i] | (w[2 * i + 1] << 32) for i in range(count)]
    raise ValueError("random_bits width must be 32 or 64, got %d" % width)


def random_uniform(seed, offset, count, width=32):
    """Elements of `sift.random_uniform` for f32 (width 32) or f64 (64)."""
    if width == 32:
        return [(w >> 8) * 2.0**-24 for w in words(seed, offset, count)]
    if width == 64:
        w = words(seed, offset, 2 * count)
        return [((w[2 * i + 1] >> 11) * 2**32 + w[2 * i]) * 2.0**-53
                for i in range(count)]
    raise ValueError("random_uniform width must be 32 or 64, got %d" % width)


def randperm(n, seed, offset=0):
    """`sift.randperm ... sort`: stable ascending argsort of n unsigned
    words."""
    keys = words(seed, offset, n)
    return sorted(range(n), key=lambda i: (keys[i], i))
