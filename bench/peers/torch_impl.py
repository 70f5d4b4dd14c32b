"""The PyTorch peers: eager (the dynamic loop and the static form) and
torch.compile (of the static form, and of the dynamic form with dynamo's
capture flags for data-dependent shapes), for the sampler and for
cross-entropy.

The sampler's two forms are bench/sampler/torch_sampler.py's.
"""

import os
import re
import sys

import torch
import torch.nn.functional as F

import common

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "sampler"))
from torch_sampler import dynamic_sampler, static_sampler  # noqa: E402


def versions():
    return {"torch": torch.__version__,
            "torch_threads": torch.get_num_threads()}


def _sampler_inputs(case):
    return (torch.from_numpy(common.load(case, "features")),
            torch.from_numpy(common.load(case, "labels")))


def _dynamic_loop(row_fn, feats, labels, k):
    """The batch as a Python loop over its rows: [(features, labels)]."""
    out = []
    for r in range(labels.shape[0]):
        idx = row_fn(labels[r], k)
        out.append((feats[r, idx], labels[r, idx]))
    return out


def _dynamic_rows(out):
    return [(f.numpy(), lab.numpy(), len(lab)) for f, lab in out]


def _static_rows(out):
    f, lab, total = (t.numpy() for t in out)
    return [(f[r], lab[r], total[r]) for r in range(len(total))]


def _reason(exc):
    """The line of a dynamo error that says what went wrong."""
    lines = [ln.strip() for ln in str(exc).splitlines() if ln.strip()]
    guard = [ln for ln in lines if "Could not guard" in ln]
    text = guard[0] if guard else (lines[0] if lines else "")
    text = re.sub(r"^Consider annotating your code using "
                  r"torch._check\*\(\)\.\s*", "", text)
    return "%s: %s" % (type(exc).__name__, text[:300])


def _compile(fn, fullgraph=True):
    torch._dynamo.reset()  # one compilation per case, static shapes
    return torch.compile(fn, fullgraph=fullgraph)


def _timed(case, fn, to_rows, repeat, budget, compile_s=False, note=None):
    torch.manual_seed(0)
    out, warm, times = common.time_calls(fn, repeat, budget)
    rec = common.timing_record(times, warm)
    if compile_s:
        rec["compile_s"] = max(warm - rec["median_s"], 0.0)
    if note:
        rec["note"] = note
    problem = common.check_sampler(case, to_rows(out)) \
        if case["task"] == "sampler" else \
        common.check_cross_entropy(case, out.item())
    if problem:
        return {"status": "wrong", "reason": problem, **rec}
    return {"status": "ok", **rec}


# -- Sampler ---------------------------------------------------------------

def sampler_eager_dynamic(case, repeat, budget):
    feats, labels = _sampler_inputs(case)
    return _timed(case, lambda: _dynamic_loop(dynamic_sampler, feats, labels,
                                              case["k"]),
                  _dynamic_rows, repeat, budget)


def sampler_eager_static(case, repeat, budget):
    feats, labels = _sampler_inputs(case)
    return _timed(case, lambda: static_sampler(feats, labels, case["k"]),
                  _static_rows, repeat, budget)


def sampler_compile_static(case, repeat, budget):
    feats, labels = _sampler_inputs(case)
    fn = _compile(static_sampler)
    return _timed(case, lambda: fn(feats, labels, case["k"]), _static_rows,
                  repeat, budget, compile_s=True)


def sampler_compile_dynamic(case, repeat, budget):
    """torch.compile of the per-row dynamic sampler, with the flags that let
    dynamo capture nonzero's data-dependent size and .item()-like scalars.
    Tried as one graph first (fullgraph=True); if dynamo cannot capture it,
    the reason is kept and the function is timed with graph breaks."""
    import torch._dynamo.config as dynamo_config
    dynamo_config.capture_dynamic_output_shape_ops = True
    dynamo_config.capture_scalar_outputs = True
    feats, labels = _sampler_inputs(case)
    k = case["k"]
    note = None
    fn = _compile(dynamic_sampler, fullgraph=True)
    try:
        torch.manual_seed(0)
        fn(labels[0], k)
    except Exception as exc:  # dynamo's errors have no common base class
        note = ("does not compile as one graph (fullgraph=True: %s); timed "
                "with graph breaks" % _reason(exc))
        fn = _compile(dynamic_sampler, fullgraph=False)
    return _timed(case, lambda: _dynamic_loop(fn, feats, labels, k),
                  _dynamic_rows, repeat, budget, compile_s=True, note=note)


# -- Cross-entropy ---------------------------------------------------------

def _ce_inputs(case):
    return (torch.from_numpy(common.load(case, "logits")),
            torch.from_numpy(common.load(case, "targets")))


def ce_eager(case, repeat, budget):
    x, t = _ce_inputs(case)
    return _timed(case, lambda: F.cross_entropy(x, t), None, repeat, budget)


def ce_compile(case, repeat, budget):
    x, t = _ce_inputs(case)
    fn = _compile(F.cross_entropy)
    return _timed(case, lambda: fn(x, t), None, repeat, budget,
                  compile_s=True)


IMPLS = {
    "torch-dynamic": {"sampler": sampler_eager_dynamic},
    "torch-static": {"sampler": sampler_eager_static},
    "torch-compile-static": {"sampler": sampler_compile_static},
    "torch-compile-dynamic": {"sampler": sampler_compile_dynamic},
    "torch": {"cross_entropy": ce_eager},
    "torch-compile": {"cross_entropy": ce_compile},
}
