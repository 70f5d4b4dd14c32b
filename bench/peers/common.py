"""What every implementation of the benchmark shares: the cases, their
inputs on disk, the checks of the results and the timing loop.

A case is a dict, the same in the driver and in the workers:
  sampler:        {"task": "sampler", "n": N, "b": B, "k": K, "d": D,
                   "dir": folder of features.npy, labels.npy, seeds.npy}
  cross_entropy:  {"task": "cross_entropy", "b": B, "c": C,
                   "dir": folder of logits.npy, targets.npy}
Inputs are written once by the driver (`write_inputs`) and read by every
implementation, so all of them see the same data.
"""

import os
import statistics
import time

import numpy as np

SAMPLER_D = 16
POSITIVE_FRACTION = 0.3


def case_name(case):
    if case["task"] == "bandwidth":
        return "memory bandwidth, %d MiB" % (case["bytes"] // 2**20)
    if case["task"] == "sampler":
        return "sampler N=%d B=%d" % (case["n"], case["b"])
    return "cross_entropy C=%d B=%d" % (case["c"], case["b"])


def input_bytes(case):
    if case["task"] == "sampler":
        return case["b"] * case["n"] * (case["d"] * 4 + 8)
    return case["b"] * (case["c"] * 4 + 8)


def write_inputs(case):
    """Writes the inputs of `case` into case["dir"] (once)."""
    folder = case["dir"]
    os.makedirs(folder, exist_ok=True)
    done = os.path.join(folder, "done")
    if os.path.exists(done):
        return
    if case["task"] == "sampler":
        b, n, d = case["b"], case["n"], case["d"]
        rng = np.random.default_rng(n * 100 + b)
        feats = rng.random((b, n, d), dtype=np.float32)
        # Feature 0 of item i is i (exact in f32 below 2^24), so a sampled
        # feature row names the item it came from and the checks can follow
        # it back.
        feats[:, :, 0] = np.arange(n, dtype=np.float32)
        np.save(os.path.join(folder, "features.npy"), feats)
        del feats
        labels = (rng.random((b, n)) < POSITIVE_FRACTION).astype(np.int64)
        np.save(os.path.join(folder, "labels.npy"), labels)
        seeds = rng.integers(0, 2**62, b, dtype=np.int64)
        np.save(os.path.join(folder, "seeds.npy"), seeds)
    else:
        b, c = case["b"], case["c"]
        rng = np.random.default_rng(c * 7 + b)
        logits = rng.standard_normal((b, c), dtype=np.float32) * 3
        np.save(os.path.join(folder, "logits.npy"), logits)
        np.save(os.path.join(folder, "targets.npy"),
                rng.integers(0, c, b, dtype=np.int64))
    open(done, "w").close()


def load(case, name, mmap=False):
    return np.load(os.path.join(case["dir"], name + ".npy"),
                   mmap_mode="r" if mmap else None)


# -- The sampler's expected counts and the check of its results ------------

def expected_counts(labels, k):
    """Per row: (positives, negatives) the balanced sampler must take."""
    half = k // 2
    n_pos = (labels == 1).sum(axis=1)
    n_neg = (labels == 0).sum(axis=1)
    num_pos = np.minimum(n_pos, half)
    num_neg = np.minimum(n_neg, half)
    neg_short = num_neg < half
    pos_short = num_pos < half
    fill_pos = np.minimum(k - num_neg, n_pos)
    fill_neg = np.minimum(k - num_pos, n_neg)
    return (np.where(neg_short, fill_pos, num_pos),
            np.where(neg_short | ~pos_short, num_neg, fill_neg))


def check_sampler(case, rows):
    """rows: per batch row, (features [>=count, D], labels [>=count], count)
    as NumPy arrays; only the first `count` lanes are looked at. Returns None
    when every row is a valid balanced sample of its input, else what is
    wrong."""
    feats = load(case, "features", mmap=True)
    labels = load(case, "labels")
    want_pos, want_neg = expected_counts(labels, case["k"])
    if len(rows) != case["b"]:
        return "%d rows, expected %d" % (len(rows), case["b"])
    for r, (f, lab, count) in enumerate(rows):
        count = int(count)
        want = int(want_pos[r] + want_neg[r])
        if count != want:
            return "row %d: %d valid samples, expected %d" % (r, count, want)
        f, lab = np.asarray(f)[:count], np.asarray(lab)[:count]
        if f.shape != (count, case["d"]) or lab.shape != (count,):
            return "row %d: shapes %s and %s for %d samples" % (
                r, f.shape, lab.shape, count)
        idx = f[:, 0].astype(np.int64)
        if idx.min(initial=0) < 0 or idx.max(initial=0) >= case["n"]:
            return "row %d: item index out of range" % r
        if len(np.unique(idx)) != count:
            return "row %d: an item is sampled twice" % r
        if not np.array_equal(lab, labels[r, idx]):
            return "row %d: labels do not match the sampled items" % r
        if not np.array_equal(f, feats[r, idx]):
            return "row %d: features do not match the sampled items" % r
        if (lab == 1).sum() != want_pos[r]:
            return "row %d: %d positives, expected %d" % (
                r, (lab == 1).sum(), want_pos[r])
    return None


# -- Cross-entropy: the float64 reference ----------------------------------

CE_RTOL = 1e-4


def cross_entropy_reference(case):
    """Mean cross-entropy of the case's logits in float64."""
    x = load(case, "logits").astype(np.float64)
    t = load(case, "targets")
    m = x.max(axis=1)
    lse = m + np.log(np.exp(x - m[:, None]).sum(axis=1))
    return float((lse - x[np.arange(len(t)), t]).mean())


def check_cross_entropy(case, value):
    ref = cross_entropy_reference(case)
    value = float(value)
    if not abs(value - ref) <= CE_RTOL * abs(ref):
        return "loss %.7g, float64 reference %.7g" % (value, ref)
    return None


# -- Timing ----------------------------------------------------------------

MIN_CALLS = 3


def time_calls(fn, repeat, budget_s):
    """Calls fn once as a warm-up, then up to `repeat` timed times, stopping
    early (after at least MIN_CALLS) once `budget_s` seconds are spent.
    Returns (result of the warm-up call, warm-up seconds, per-call
    seconds)."""
    t0 = time.perf_counter()
    result = fn()
    warm = time.perf_counter() - t0
    times = []
    spent = 0.0
    while len(times) < repeat and (len(times) < MIN_CALLS or
                                   spent < budget_s):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
        spent += times[-1]
    return result, warm, times


def timing_record(times, warm=None, compile_s=None):
    rec = {"median_s": statistics.median(times), "min_s": min(times),
           "calls": len(times)}
    if warm is not None:
        rec["warmup_s"] = warm
    if compile_s is not None:
        rec["compile_s"] = compile_s
    return rec
