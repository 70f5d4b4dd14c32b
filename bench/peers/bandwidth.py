"""The machine's memory bandwidth, measured in the benchmark's run: the sum
of a large float32 array read once (NumPy on one thread; PyTorch on all its
threads) and a NumPy copy (read + write). The array is far larger than the
caches; each figure is the median of a few passes."""

import numpy as np

import common


def _gbps(nbytes, times):
    return nbytes / min(sorted(times)[len(times) // 2], 1e30) / 1e9


def measure(case, repeat, budget):
    nbytes = case["bytes"]
    a = np.ones(nbytes // 4, dtype=np.float32)
    b = np.empty_like(a)
    reps = max(3, min(repeat, 10))
    _, _, t_sum = common.time_calls(lambda: a.sum(), reps, budget)
    _, _, t_copy = common.time_calls(lambda: np.copyto(b, a), reps, budget)
    rec = {"status": "ok", "bytes": nbytes,
           "numpy_sum_gbps": _gbps(nbytes, t_sum),
           "numpy_copy_gbps": _gbps(2 * nbytes, t_copy)}
    try:
        import torch
        ta = torch.from_numpy(a)
        _, _, t_tsum = common.time_calls(lambda: ta.sum(), reps, budget)
        rec["torch_sum_gbps"] = _gbps(nbytes, t_tsum)
        rec["torch_threads"] = torch.get_num_threads()
    except ImportError:
        pass
    # The read bandwidth that the cross-entropy figures are compared with.
    rec["read_gbps"] = max(rec["numpy_sum_gbps"],
                           rec.get("torch_sum_gbps", 0.0))
    return rec


IMPLS = {"bandwidth": {"bandwidth": measure}}
