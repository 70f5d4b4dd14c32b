"""The programs of examples/patterns/, written in PyTorch as their
comments show, through sift.torch.compile against eager PyTorch (exact for
indices and integers, a tight tolerance for floats)."""

import pytest

torch = pytest.importorskip("torch", reason="PyTorch is not installed")
st = pytest.importorskip("sift.torch", reason="sift.torch needs PyTorch")

F = torch.nn.functional
G = torch.Generator().manual_seed(7)


def same(got, want):
    got = got if isinstance(got, tuple) else (got,)
    want = want if isinstance(want, tuple) else (want,)
    assert len(got) == len(want)
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape, (g, w)
        if w.dtype.is_floating_point:
            torch.testing.assert_close(g, w, rtol=1e-5, atol=1e-5)
        else:
            assert torch.equal(g, w)


def run(fn, *cases):
    compiled = st.compile(fn, cases[0])
    for case in cases:
        same(compiled(*case), fn(*case))
    assert "loc(" in compiled.mlir
    return compiled


def test_det_postprocess_topn():
    def topn(boxes, scores):
        keep = scores > 0.05
        boxes, scores = boxes[keep], scores[keep]
        order = torch.argsort(scores, descending=True)[
            :min(scores.numel(), 100)]
        return boxes[order], scores[order]
    boxes = torch.rand(1000, 4, generator=G)
    scores = torch.randperm(1000, generator=G).float() / 1000  # no ties
    c = run(topn, (boxes, scores), (boxes, scores * 0.06),
            (boxes, torch.zeros(1000)))
    assert c.function.signature.results[0].data.shape == (100, 4)


def test_recsys_dedupe():
    def dedupe(ids, table):
        u, inv, cnt = torch.unique(ids, return_inverse=True,
                                   return_counts=True)
        return table[u], inv, cnt
    ids = torch.randint(0, 50, (256,), generator=G)
    table = torch.randn(50, 8, generator=G)
    run(dedupe, (ids, table), (torch.zeros(256, dtype=torch.int64), table))


def test_rpn_positive_l1():
    def rpn(iou, pred, target):
        pos = torch.nonzero(iou > 0.7).squeeze(1)
        return (pred[pos] - target[pos]).abs().sum() / (pos.numel() * 4)
    iou = torch.rand(500, generator=G)
    pred, target = torch.randn(500, 4, generator=G), torch.randn(
        500, 4, generator=G)
    run(rpn, (iou, pred, target), (iou * 0.8, pred, target))


def test_seg_valid_pixels_loss():
    def seg(logits, labels):
        valid = labels != 255
        return F.cross_entropy(logits[valid], labels[valid])
    logits = torch.randn(400, 6, generator=G)
    labels = torch.randint(0, 6, (400,), generator=G)
    labels[::3] = 255
    c = run(seg, (logits, labels), (logits, labels.clamp(max=5)))
    assert "sift.cross_entropy" in c.mlir


def test_ssd_hard_negatives():
    def ssd(labels, loss):
        pos = torch.nonzero(labels > 0).squeeze(1)
        neg = torch.nonzero(labels == 0).squeeze(1)
        k = min(3 * pos.numel(), neg.numel())
        hard = torch.sort(loss[neg], descending=True).values[:k]
        return hard.sum()
    labels = torch.randint(0, 3, (300,), generator=G)
    labels[labels == 2] = 0
    labels[:250][labels[:250] == 1] = 0
    loss = torch.rand(300, generator=G)
    run(ssd, (labels, loss), (torch.zeros(300, dtype=torch.int64), loss),
        (torch.ones(300, dtype=torch.int64), loss))


def test_patterns_batch_row_by_row():
    def rpn(iou, pred, target):
        pos = torch.nonzero(iou > 0.7).squeeze(1)
        return (pred[pos] - target[pos]).abs().sum() / (pos.numel() * 4)

    def topn(boxes, scores):
        keep = scores > 0.05
        boxes, scores = boxes[keep], scores[keep]
        order = torch.argsort(scores, descending=True)[
            :min(scores.numel(), 100)]
        return boxes[order], scores[order]
    B = 3
    iou = torch.rand(B, 200, generator=G)
    pred, target = torch.randn(B, 200, 4, generator=G), torch.randn(
        B, 200, 4, generator=G)
    out = st.compile(rpn, (iou[0], pred[0], target[0]), batch=B)(
        iou, pred, target)
    assert out.shape == (B,)
    for i in range(B):
        torch.testing.assert_close(out[i], rpn(iou[i], pred[i], target[i]),
                                   rtol=1e-5, atol=1e-6)
    boxes = torch.rand(B, 300, 4, generator=G)
    scores = torch.stack([torch.randperm(300, generator=G).float() / 300
                          for _ in range(B)])
    got_b, got_s = st.compile(topn, (boxes[0], scores[0]), batch=B)(
        boxes, scores)
    for i in range(B):
        want_b, want_s = topn(boxes[i], scores[i])
        assert torch.equal(got_b[i], want_b) and torch.equal(got_s[i],
                                                              want_s)


class BalancedPositiveNegativeSampler(torch.nn.Module):
    """torchvision's detection sampler (models/detection/_utils.py), its
    loop body as written there: torch.where(...)[0], randperm slices, uint8
    masks set by index."""

    def __init__(self, batch_size_per_image, positive_fraction):
        super().__init__()
        self.batch_size_per_image = batch_size_per_image
        self.positive_fraction = positive_fraction

    def forward(self, matched_idxs_per_image):
        positive = torch.where(matched_idxs_per_image >= 1)[0]
        negative = torch.where(matched_idxs_per_image == 0)[0]
        num_pos = int(self.batch_size_per_image * self.positive_fraction)
        num_pos = min(positive.numel(), num_pos)
        num_neg = self.batch_size_per_image - num_pos
        num_neg = min(negative.numel(), num_neg)
        perm1 = torch.randperm(positive.numel(),
                               device=positive.device)[:num_pos]
        perm2 = torch.randperm(negative.numel(),
                               device=negative.device)[:num_neg]
        pos_idx_per_image = positive[perm1]
        neg_idx_per_image = negative[perm2]
        pos_idx_per_image_mask = torch.zeros_like(matched_idxs_per_image,
                                                  dtype=torch.uint8)
        neg_idx_per_image_mask = torch.zeros_like(matched_idxs_per_image,
                                                  dtype=torch.uint8)
        pos_idx_per_image_mask[pos_idx_per_image] = 1
        neg_idx_per_image_mask[neg_idx_per_image] = 1
        return pos_idx_per_image_mask, neg_idx_per_image_mask


def test_torchvision_balanced_sampler_as_written():
    # Random draws differ from PyTorch's (sift's streams): the masks must
    # have eager's counts and pick only positives (>= 1) and negatives
    # (== 0), unbatched and batched.
    m = BalancedPositiveNegativeSampler(256, 0.25)
    matched = torch.randint(-2, 5, (2000,), generator=G)
    cases = [matched, torch.zeros(2000, dtype=torch.int64),
             torch.ones(2000, dtype=torch.int64), torch.full((2000,), -1)]
    single = st.compile(m, (matched,))
    batched = st.compile(m, (matched,), batch=2)
    for case in cases:
        rows = [(case,) + tuple(single(case, seed=3))]
        pos, neg = batched(torch.stack([case, case.flip(0)]), seed=3)
        rows += [(case, pos[0], neg[0]), (case.flip(0), pos[1], neg[1])]
        for labels, p, n in rows:
            want_p, want_n = m(labels)
            assert p.dtype == torch.uint8 and p.shape == want_p.shape
            assert int(p.sum()) == int(want_p.sum())
            assert int(n.sum()) == int(want_n.sum())
            assert bool((labels[p.bool()] >= 1).all())
            assert bool((labels[n.bool()] == 0).all())


def test_torchvision_filters_of_boxes_as_written():
    # remove_small_boxes then a score threshold, each `torch.where(...)[0]`
    # of a selection: nonzero's [n, 1] form of a bounded mask.
    def rpn_filter(boxes, scores):
        ws, hs = boxes[:, 2] - boxes[:, 0], boxes[:, 3] - boxes[:, 1]
        keep = (ws >= 1e-3) & (hs >= 1e-3)
        keep = torch.where(keep)[0]
        boxes, scores = boxes[keep], scores[keep]
        keep = torch.where(scores >= 0.5)[0]
        return boxes[keep], scores[keep]
    boxes = torch.rand(200, 4, generator=G)
    boxes[:, 2:] += boxes[:, :2] * torch.randint(0, 2, (200, 1), generator=G)
    scores = torch.rand(200, generator=G)
    run(rpn_filter, (boxes, scores), (boxes, scores * 0.4),
        (boxes * 0, scores))


def test_torchvision_fastrcnn_loss_and_matcher_as_written():
    # roi_heads.fastrcnn_loss (positives by torch.where, a per-row pick of
    # the labels' boxes, smooth_l1 decomposed by PyTorch), box_iou and the
    # Matcher's thresholds (max along a dim, assignments through masks).
    def fastrcnn_loss(class_logits, box_regression, labels,
                      regression_targets):
        classification_loss = F.cross_entropy(class_logits, labels)
        sampled_pos_inds_subset = torch.where(labels > 0)[0]
        labels_pos = labels[sampled_pos_inds_subset]
        N, num_classes = class_logits.shape
        box_regression = box_regression.reshape(
            N, box_regression.size(-1) // 4, 4)
        box_loss = F.smooth_l1_loss(
            box_regression[sampled_pos_inds_subset, labels_pos],
            regression_targets[sampled_pos_inds_subset],
            beta=1 / 9,
            reduction="sum",
        )
        box_loss = box_loss / labels.numel()
        return classification_loss, box_loss

    def box_iou(boxes1, boxes2):
        area1 = (boxes1[:, 2] - boxes1[:, 0]) * (boxes1[:, 3] - boxes1[:, 1])
        area2 = (boxes2[:, 2] - boxes2[:, 0]) * (boxes2[:, 3] - boxes2[:, 1])
        lt = torch.max(boxes1[:, None, :2], boxes2[:, :2])
        rb = torch.min(boxes1[:, None, 2:], boxes2[:, 2:])
        wh = (rb - lt).clamp(min=0)
        inter = wh[:, :, 0] * wh[:, :, 1]
        union = area1[:, None] + area2 - inter
        return inter / union

    def matcher(match_quality_matrix):
        matched_vals, matches = match_quality_matrix.max(dim=0)
        below_low_threshold = matched_vals < 0.3
        between_thresholds = (matched_vals >= 0.3) & (matched_vals < 0.7)
        matches[below_low_threshold] = -1
        matches[between_thresholds] = -2
        return matches

    n, c = 64, 5
    logits, reg = torch.randn(n, c, generator=G), torch.randn(
        n, c * 4, generator=G)
    labels = torch.randint(0, c, (n,), generator=G)
    targets = torch.randn(n, 4, generator=G)
    run(fastrcnn_loss, (logits, reg, labels, targets),
        (logits, reg, torch.zeros(n, dtype=torch.int64), targets))
    b1, b2 = torch.rand(20, 4, generator=G), torch.rand(30, 4, generator=G)
    b1[:, 2:] += b1[:, :2]
    b2[:, 2:] += b2[:, :2]
    run(box_iou, (b1, b2))
    run(matcher, (box_iou(b1, b2),), (box_iou(b1, b2 * 1.01),))


# PyTorch Geometric's edge filters (torch_geometric/utils): a selection of
# the columns of a [2, E] edge_index, data-dependent along dimension 1.
def dropout_edge(edge_index, u):
    edge_mask = u >= 0.5  # torch.rand(E) >= p in PyG; drawn by the caller
    return edge_index[:, edge_mask], edge_mask


def remove_self_loops(edge_index, edge_attr):
    mask = edge_index[0] != edge_index[1]
    return edge_index[:, mask], edge_attr[mask]


def filter_then_add_self_loops(edge_index, u):
    edge_index = edge_index[:, u > 0.3]
    loop_index = torch.arange(0, 10).unsqueeze(0).repeat(2, 1)
    return torch.cat([edge_index, loop_index], dim=1)


def to_undirected_kept(edge_index, u):
    edge_index = edge_index[:, u > 0.5]
    row, col = edge_index
    return torch.cat([edge_index, edge_index.flip(0)], dim=1), col + 1


def edge_stats(edge_index, edge_attr, u):
    mask = u > 0.5
    edge_index = edge_index[:, mask]
    return (edge_index.sum(1), (edge_index[0] == edge_index[1]).sum(),
            (edge_index % 3).sum(1), edge_attr[:, edge_attr[0] > 0].t())


def stack_swapped(edge_index, u):
    # to_undirected's reversed edges: row, col = edge_index, then stacked.
    edge_index = edge_index[:, u > 0.5]
    row, col = edge_index
    return torch.stack([col, row], dim=0), torch.stack([row, col], dim=1)


def reversed_rows(edge_index, u):
    edge_index = edge_index[:, u > 0.5]
    return edge_index[[1, 0]], edge_index[[1, 0, 1]].sum(0)


def subgraph(edge_index, u):
    # subgraph() of a node subset given as a mask, the mask set in place.
    node_mask = torch.zeros(10, dtype=torch.bool)
    node_mask[:6] = True
    edge_mask = node_mask[edge_index[0]] & node_mask[edge_index[1]] & (u > 0.2)
    return edge_index[:, edge_mask]


def degree(edge_index, u):
    # degree(): a scatter_add of ones at the kept edges' targets, and a
    # product over the edge dimension.
    col = edge_index[:, u > 0.5][1]
    deg = torch.zeros(10).scatter_add(0, col, torch.ones(col.size(0)))
    return deg, (edge_index % 3 + 1).prod(1)


@pytest.mark.parametrize("fn, kind", [
    (dropout_edge, "u"), (remove_self_loops, "attr"),
    (filter_then_add_self_loops, "u"), (to_undirected_kept, "u"),
    (edge_stats, "attr_u"), (stack_swapped, "u"), (reversed_rows, "u"),
    (subgraph, "u"), (degree, "u")])
def test_pyg_edge_filters(fn, kind):
    def inputs(e):
        ei = torch.randint(0, 10, (2, e), generator=G)
        attr = torch.randn(e, 3, generator=G)
        u = torch.rand(e, generator=G)
        return {"u": (ei, u), "attr": (ei, attr),
                "attr_u": (ei, attr.t().contiguous(), u)}[kind]
    e = 60
    cases = [inputs(e) for _ in range(3)]
    # No edge kept, every edge kept.
    for keep in (0.0, 2.0):
        ei, *rest = inputs(e)
        if kind == "attr":
            ei = ei[:1].repeat(2, 1) if keep == 0 else torch.stack(
                [ei[0], (ei[0] + 1) % 10])
            cases.append((ei, *rest))
        else:
            cases.append((ei, *rest[:-1], torch.full((e,), keep)))
    run(fn, *cases)
    # Batched: row i of each result is the per-sample call on row i.
    B = 3
    stacked = tuple(torch.stack(xs) for xs in zip(*cases[:B]))
    got = st.compile(fn, cases[0], batch=B)(*stacked)
    got = got if isinstance(got, tuple) else (got,)
    for i in range(B):
        want = fn(*cases[i])
        want = want if isinstance(want, tuple) else (want,)
        same(tuple(g[i] for g in got), want)
