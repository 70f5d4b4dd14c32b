"""The JAX peer: `jit` of a `vmap` over the batch rows, the sampler written
with `nonzero(size=)` (JAX's way to give nonzero a static size), and
cross-entropy as log_softmax + take_along_axis.

64-bit types are on so that the labels and targets stay int64, as for the
other implementations; the random keys are float32.
"""

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np

import common

jax.config.update("jax_enable_x64", True)


def versions():
    return {"jax": jax.__version__,
            "jax_devices": ", ".join(str(d) for d in jax.devices())}


def sampler_row(feats, labels, key, k):
    """One row: feats [N, D], labels [N]. Returns the sampled features
    [K, D], their labels [K] (-1 past the count) and the count."""
    n = labels.shape[0]
    half = k // 2
    kk = min(k, n)
    is_pos = labels == 1
    is_neg = labels == 0
    # The item indices of each label, padded to N with N.
    pos = jnp.nonzero(is_pos, size=n, fill_value=n)[0]
    neg = jnp.nonzero(is_neg, size=n, fill_value=n)[0]
    n_pos = is_pos.sum()
    n_neg = is_neg.sum()
    num_pos = jnp.minimum(n_pos, half)
    num_neg = jnp.minimum(n_neg, half)
    neg_short = num_neg < half
    pos_short = num_pos < half
    num_pos, num_neg = (
        jnp.where(neg_short, jnp.minimum(k - num_neg, n_pos), num_pos),
        jnp.where(neg_short | ~pos_short, num_neg,
                  jnp.minimum(k - num_pos, n_neg)),
    )
    total = num_pos + num_neg
    # A random subset of the first n_pos entries of `pos` (of n_neg of
    # `neg`), in random order: the smallest random keys, padding keyed last.
    key_pos, key_neg, key_mix = jax.random.split(key, 3)
    slot = jnp.arange(n)
    pos_keys = jnp.where(slot < n_pos,
                         jax.random.uniform(key_pos, (n,), jnp.float32), 2.0)
    neg_keys = jnp.where(slot < n_neg,
                         jax.random.uniform(key_neg, (n,), jnp.float32), 2.0)
    pos_take = pos[jax.lax.top_k(-pos_keys, kk)[1]]
    neg_take = neg[jax.lax.top_k(-neg_keys, kk)[1]]
    # Lane j takes positive j, then negative j - num_pos.
    lane = jnp.arange(k)
    idx = jnp.where(lane < num_pos, pos_take[jnp.minimum(lane, kk - 1)],
                    neg_take[jnp.clip(lane - num_pos, 0, kk - 1)])
    valid = lane < total
    mix_keys = jnp.where(valid, jax.random.uniform(key_mix, (k,), jnp.float32),
                         2.0)
    order = jnp.argsort(mix_keys)
    idx = jnp.where(valid, idx, n)[order]
    out_f = jnp.take(feats, idx, axis=0, mode="fill", fill_value=0)
    out_l = jnp.take(labels, idx, axis=0, mode="fill", fill_value=-1)
    return out_f, out_l, total


@partial(jax.jit, static_argnums=3)
def sampler_batch(feats, labels, keys, k):
    return jax.vmap(sampler_row, in_axes=(0, 0, 0, None))(feats, labels,
                                                          keys, k)


@jax.jit
def cross_entropy(logits, targets):
    logp = jax.nn.log_softmax(logits, axis=-1)
    return -jnp.take_along_axis(logp, targets[:, None], axis=-1).mean()


def _block(out):
    return jax.block_until_ready(out)


def sampler(case, repeat, budget):
    feats = jax.device_put(common.load(case, "features"))
    labels = jax.device_put(common.load(case, "labels"))
    keys = jax.random.split(jax.random.key(0), case["b"])
    fn = lambda: _block(sampler_batch(feats, labels, keys, case["k"]))
    out, warm, times = common.time_calls(fn, repeat, budget)
    rec = common.timing_record(times, warm)
    rec["compile_s"] = max(warm - rec["median_s"], 0.0)
    f, lab, total = (np.asarray(t) for t in out)
    problem = common.check_sampler(
        case, [(f[r], lab[r], total[r]) for r in range(case["b"])])
    return {"status": "wrong", "reason": problem, **rec} if problem else \
        {"status": "ok", **rec}


def ce(case, repeat, budget):
    x = jax.device_put(common.load(case, "logits"))
    t = jax.device_put(common.load(case, "targets"))
    fn = lambda: _block(cross_entropy(x, t))
    out, warm, times = common.time_calls(fn, repeat, budget)
    rec = common.timing_record(times, warm)
    rec["compile_s"] = max(warm - rec["median_s"], 0.0)
    problem = common.check_cross_entropy(case, float(out))
    return {"status": "wrong", "reason": problem, **rec} if problem else \
        {"status": "ok", **rec}


IMPLS = {"jax": {"sampler": sampler, "cross_entropy": ce}}
