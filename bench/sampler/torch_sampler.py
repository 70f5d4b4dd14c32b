"""The balanced sampler in PyTorch, the two ways people write it.

`dynamic_sampler` is the natural version: nonzero, sizes read back on the
host, randperm, slices and a concatenation; a batch needs a Python loop over
its rows. `static_sampler` is the hand-written static rewrite: counts,
random keys, top-k selections and gathers, with every shape static, so it
takes the whole batch at once.

Both work on the device of their inputs (the random numbers and index
ranges are made there too; a generator must be of that device). Both
return, per row, K item indices into the row (the sampled positives and
negatives in random order) and how many of them are valid. Labels are 1
(positive) and 0 (negative); K/2 of each are wanted, and a short label group
is filled up from the other one.
"""

import torch


def dynamic_sampler(labels, k, generator=None):
    """labels: [N] int64. Returns (indices [<=K] int64)."""
    half = k // 2
    dev = labels.device
    pos = torch.nonzero(labels == 1).flatten()
    neg = torch.nonzero(labels == 0).flatten()
    num_pos = min(pos.numel(), half)
    num_neg = min(neg.numel(), half)
    if num_neg < half:
        num_pos = min(k - num_neg, pos.numel())
    elif num_pos < half:
        num_neg = min(k - num_pos, neg.numel())
    take_pos = torch.randperm(pos.numel(), generator=generator,
                              device=dev)[:num_pos]
    take_neg = torch.randperm(neg.numel(), generator=generator,
                              device=dev)[:num_neg]
    idx = torch.cat([pos[take_pos], neg[take_neg]])
    return idx[torch.randperm(idx.numel(), generator=generator,
                              device=dev)]


def dynamic_sampler_batch(features, labels, k, generator=None):
    """A Python loop over the rows: features [B, N, D], labels [B, N]."""
    out_f, out_l = [], []
    for row in range(labels.shape[0]):
        idx = dynamic_sampler(labels[row], k, generator)
        out_f.append(features[row, idx])
        out_l.append(labels[row, idx])
    return out_f, out_l


def static_sampler(features, labels, k, generator=None):
    """The whole batch at once: features [B, N, D], labels [B, N].

    Returns features [B, K, D], labels [B, K] and the valid count [B].
    Invalid lanes (when fewer than K items are eligible) come last.
    """
    b, n = labels.shape
    dev = labels.device
    half = k // 2
    is_pos = labels == 1
    is_neg = labels == 0
    n_pos = is_pos.sum(dim=1)
    n_neg = is_neg.sum(dim=1)
    num_pos = torch.clamp(n_pos, max=half)
    num_neg = torch.clamp(n_neg, max=half)
    neg_short = num_neg < half
    pos_short = num_pos < half
    num_pos, num_neg = (
        torch.where(neg_short, torch.minimum(k - num_neg, n_pos), num_pos),
        torch.where(neg_short | ~pos_short, num_neg,
                    torch.minimum(k - num_pos, n_neg)),
    )
    # One random key per item; ineligible items get a key above every
    # eligible one, so the K smallest keys of a group are a random subset of
    # it in random order.
    r = torch.rand(b, n, generator=generator, device=dev)
    kk = min(k, n)
    pos_key = torch.where(is_pos, r, 2.0)
    neg_key = torch.where(is_neg, r, 2.0)
    pos_idx = torch.topk(pos_key, kk, dim=1, largest=False).indices
    neg_idx = torch.topk(neg_key, kk, dim=1, largest=False).indices
    lane = torch.arange(k, device=dev).expand(b, k)
    total = num_pos + num_neg
    # Lane j takes the j-th positive, then the (j - num_pos)-th negative.
    from_pos = lane < num_pos[:, None]
    pos_lane = torch.clamp(lane, max=kk - 1)
    neg_lane = torch.clamp(lane - num_pos[:, None], min=0, max=kk - 1)
    idx = torch.where(from_pos, torch.gather(pos_idx, 1, pos_lane),
                      torch.gather(neg_idx, 1, neg_lane))
    # Shuffle the valid lanes; invalid ones stay last.
    mix_key = torch.where(lane < total[:, None],
                          torch.rand(b, k, generator=generator, device=dev),
                          2.0)
    order = torch.argsort(mix_key, dim=1)
    idx = torch.gather(idx, 1, order)
    out_f = torch.gather(features, 1,
                         idx[:, :, None].expand(b, k, features.shape[2]))
    out_l = torch.gather(labels, 1, idx)
    return out_f, out_l, total
