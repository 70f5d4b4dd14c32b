"""The benchmark's report: the markdown tables (peers.md) and the plot
(peers.png), both from the data run.py measured (peers.json)."""

import re

SIFT = {"sift-hand", "sift-auto", "sift-auto-sort", "sift"}
SAMPLER_SIFT = ("sift-hand", "sift-auto", "sift-auto-sort")

LEGEND = [
    ("torch-dynamic", "PyTorch eager, the natural sampler (`nonzero`, "
     "`randperm`, slices, `cat`; bench/sampler/torch_sampler.py), a Python "
     "loop over the rows"),
    ("torch-static", "PyTorch eager, the hand-written static form (counts, "
     "random keys, `topk`, `gather`), the whole batch at once"),
    ("torch-compile-static", "`torch.compile(fullgraph=True)` of the static "
     "form"),
    ("torch-compile-dynamic", "`torch.compile` of the natural per-row sampler "
     "with `capture_dynamic_output_shape_ops` and `capture_scalar_outputs`, "
     "looped over the rows"),
    ("jax", "`jax.jit(jax.vmap(...))` of the sampler written with "
     "`jnp.nonzero(size=N)` and `lax.top_k` over random keys; cross-entropy "
     "as `log_softmax` + `take_along_axis`"),
    ("sift-hand", "sift, the static batched sampler written by hand in the "
     "dialect (bench/sampler/sift_sampler.py), JIT-compiled by tensor-run"),
    ("sift-auto", "sift, compiler-made: examples/sampler.mlir (dynamic, one "
     "sample) through `--sift-staticize` and `--sift-batch`"),
    ("sift-auto-sort", "the same program with `sort` on its three "
     "`sift.randperm`s (an argsort of random words instead of the default "
     "keyed bijection per element: a sort or top-k; another, equally "
     "uniform stream)"),
    ("torch", "PyTorch eager, `F.cross_entropy`"),
    ("torch-compile", "`torch.compile(F.cross_entropy)`"),
    ("sift", "sift, `sift.cross_entropy` (reduction = mean), JIT-compiled by "
     "tensor-run"),
]


def fmt_ms(seconds):
    ms = seconds * 1e3
    if ms >= 100:
        return "%.0f" % ms
    if ms >= 10:
        return "%.1f" % ms
    if ms >= 1:
        return "%.2f" % ms
    return "%.3f" % ms


def fmt_n(n):
    """1000 -> 1e3; other numbers as they are."""
    e = len(str(n)) - 1
    return "1e%d" % e if n == 10**e and e >= 3 else str(n)


def describe(rec):
    """One line for the console."""
    if "read_gbps" in rec:
        return "read %.1f GB/s" % rec["read_gbps"]
    if rec["status"] == "ok":
        text = "%s ms (%d calls" % (fmt_ms(rec["median_s"]), rec["calls"])
        if rec.get("compile_s") is not None:
            text += ", compile %.2f s" % rec["compile_s"]
        return text + ")" + (" [%s]" % rec["note"] if rec.get("note") else "")
    return "%s: %s" % (rec["status"], rec.get("reason", ""))


class Notes:
    """Numbered footnotes; reasons alike but for their numbers share one."""

    def __init__(self):
        self.texts, self.keys, self.where = [], {}, []

    def ref(self, text, where):
        key = re.sub(r"\d+", "#", text)
        if key not in self.keys:
            self.keys[key] = len(self.texts)
            self.texts.append(text)
            self.where.append([])
        i = self.keys[key]
        self.where[i].append(where)
        return "[%d]" % (i + 1)

    def lines(self):
        out = []
        for i, (text, where) in enumerate(zip(self.texts, self.where)):
            out.append("%d. %s: %s" % (i + 1, ", ".join(where),
                                       text.replace("|", "\\|")))
        return out


def cell(rec, notes, where, extra=None):
    if rec is None:
        return ""
    if rec["status"] == "ok":
        text = fmt_ms(rec["median_s"])
        if extra:
            text += " " + extra(rec)
        if rec.get("note"):
            text += " " + notes.ref(rec["note"], where)
        return text
    return "%s %s" % (rec["status"], notes.ref(rec.get("reason", "?"), where))


def fastest_peer(results, impls, key):
    best = None
    for impl in impls:
        rec = results.get(impl, {}).get(key)
        if impl not in SIFT and rec and rec["status"] == "ok":
            if best is None or rec["median_s"] < best[1]:
                best = (impl, rec["median_s"])
    return best


def ratio(results, impl, key, best):
    rec = results.get(impl, {}).get(key)
    if best is None or not rec or rec["status"] != "ok":
        return ""
    return "%.2f" % (rec["median_s"] / best[1])


def _table(header, rows):
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---:" if i < 2 else "---"
                            for i in range(len(header))) + "|"]
    lines += ["| " + " | ".join(r) + " |" for r in rows]
    return lines


def write_markdown(data, path):
    m, v, bw = data["machine"], data["versions"], data["bandwidth"]
    results, impls = data["results"], data["impls"]
    notes = Notes()
    lines = ["# sift next to its peers (bench/peers)", ""]
    kind = ("**Quick run** (`--quick`: small sizes, few calls; the full run "
            "is `python bench/peers/run.py`)" if data["quick"]
            else "Full run")
    lines.append("%s, %s: %s, %d cores, %.0f GiB; sift %s; PyTorch %s (%s "
                 "threads), JAX %s; Python %s. Run time %.0f s." % (
                     kind, m["date"], m["cpu"], m["cores"], m["memory_gib"],
                     v.get("sift_commit", "?"), v.get("torch", "?"),
                     v.get("torch_threads", "?"), v.get("jax", "?"),
                     m["python"], data["run_s"]))
    lines.append("")
    if bw.get("status") == "ok":
        lines.append(
            "Memory bandwidth, measured in this run over %d MiB: **%.1f GB/s "
            "read** (NumPy sum on 1 thread %.1f, PyTorch sum on %s threads "
            "%.1f; NumPy copy, read + write, %.1f)." % (
                bw["bytes"] // 2**20, bw["read_gbps"], bw["numpy_sum_gbps"],
                bw.get("torch_threads", "?"), bw.get("torch_sum_gbps", 0),
                bw["numpy_copy_gbps"]))
    else:
        lines.append("Memory bandwidth: not measured (%s)." %
                     bw.get("reason", bw.get("status")))
    lines.append("")
    lines.append("Times are medians per call in ms (warm-up excluded); the "
                 "ratio columns are sift's time over the fastest peer's "
                 "(below 1: sift is faster). Every result was checked before "
                 "it was timed.")

    cases = data["cases"]
    sampler = [c for c in cases if c["task"] == "sampler"]
    s_impls = [i for i in impls if i in (
        "torch-dynamic", "torch-static", "torch-compile-static",
        "torch-compile-dynamic", "jax") + SAMPLER_SIFT]
    if sampler and s_impls:
        lines += ["", "## Balanced sampler (D = 16, K = N/10, 30% positives)",
                  ""]
        rows, compile_rows = [], []
        compiled = [i for i in s_impls
                    if i in ("torch-compile-static", "torch-compile-dynamic",
                             "jax") + SAMPLER_SIFT]
        for c in sampler:
            key = "sampler/N=%d/B=%d" % (c["n"], c["b"])
            where = "N=%s B=%d" % (fmt_n(c["n"]), c["b"])
            best = fastest_peer(results, s_impls, key)
            row = [fmt_n(c["n"]), str(c["b"])]
            row += [cell(results[i].get(key), notes, "%s %s" % (i, where))
                    for i in s_impls]
            row.append(best[0] if best else "")
            row += [ratio(results, i, key, best) for i in s_impls
                    if i in SAMPLER_SIFT]
            rows.append(row)
            crow = row[:2]
            for i in compiled:
                rec = results[i].get(key)
                crow.append("%.2f" % rec["compile_s"]
                            if rec and rec.get("compile_s") is not None
                            else "")
            compile_rows.append(crow)
        header = ["N", "B"] + s_impls + ["fastest peer"] + [
            "%s / peer" % i for i in s_impls if i in SAMPLER_SIFT]
        lines += _table(header, rows)
        lines += ["", "Compile time, s (the compiled peers: first call minus "
                  "a timed one; sift: tensor-run's JIT compile):", ""]
        lines += _table(["N", "B"] + compiled, compile_rows)

    ce = [c for c in cases if c["task"] == "cross_entropy"]
    c_impls = [i for i in impls if i in ("torch", "torch-compile", "jax",
                                         "sift")]
    if ce and c_impls:
        read = bw.get("read_gbps")
        lines += ["", "## Cross-entropy (mean over B x C float32 logits, "
                  "%g MB each)" % data["settings"]["ce_mb"], "",
                  "Each cell: ms per call (GB/s of logits and targets read, "
                  "%% of the measured %s GB/s)." % (
                      "%.1f" % read if read else "?"), ""]
        rows = []
        for c in ce:
            key = "cross_entropy/C=%d/B=%d" % (c["c"], c["b"])
            nbytes = c["b"] * (4 * c["c"] + 8)

            def rate(rec, nbytes=nbytes):
                gbps = nbytes / rec["median_s"] / 1e9
                pct = ", %.0f%%" % (100 * gbps / read) if read else ""
                return "(%.1f GB/s%s)" % (gbps, pct)
            best = fastest_peer(results, c_impls, key)
            row = [str(c["c"]), str(c["b"])]
            row += [cell(results[i].get(key), notes,
                         "%s C=%d" % (i, c["c"]), rate) for i in c_impls]
            row.append(best[0] if best else "")
            if "sift" in c_impls:
                row.append(ratio(results, "sift", key, best))
            rows.append(row)
        header = ["C", "B"] + c_impls + ["fastest peer"] + (
            ["sift / peer"] if "sift" in c_impls else [])
        lines += _table(header, rows)

    if notes.texts:
        lines += ["", "Notes:", ""] + notes.lines()
    lines += ["", "Implementations:", ""]
    lines += ["- `%s`: %s" % (name, text) for name, text in LEGEND
              if name in impls]
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")


STYLE = {
    "torch-dynamic": ("tab:orange", "o", "-"),
    "torch-static": ("tab:red", "s", "-"),
    "torch-compile-static": ("tab:purple", "^", "--"),
    "torch-compile-dynamic": ("tab:brown", "v", "--"),
    "torch": ("tab:red", "s", "-"),
    "torch-compile": ("tab:purple", "^", "--"),
    "jax": ("tab:green", "D", "-"),
    "sift-hand": ("tab:blue", "o", "-"),
    "sift-auto": ("tab:cyan", "P", "-"),
    "sift-auto-sort": ("tab:olive", "X", "-"),
    "sift": ("tab:blue", "o", "-"),
}


def write_plot(data, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    results, impls = data["results"], data["impls"]
    sampler = [c for c in data["cases"] if c["task"] == "sampler"]
    ce = [c for c in data["cases"] if c["task"] == "cross_entropy"]
    batches = sorted({c["b"] for c in sampler})
    panels = [("sampler", b) for b in batches] + ([("ce", None)] if ce
                                                  else [])
    fig, axes = plt.subplots(1, len(panels), figsize=(4.6 * len(panels), 4.2),
                             squeeze=False)
    for ax, (task, b) in zip(axes[0], panels):
        for impl in impls:
            pts = []
            for c in (sampler if task == "sampler" else ce):
                if task == "sampler" and c["b"] != b:
                    continue
                key = ("sampler/N=%d/B=%d" % (c["n"], c["b"])
                       if task == "sampler"
                       else "cross_entropy/C=%d/B=%d" % (c["c"], c["b"]))
                rec = results.get(impl, {}).get(key)
                if rec and rec["status"] == "ok":
                    pts.append((c["n"] if task == "sampler" else c["c"],
                                rec["median_s"] * 1e3))
            if not pts:
                continue
            color, marker, ls = STYLE.get(impl, (None, "o", "-"))
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker=marker,
                    linestyle=ls, color=color, label=impl,
                    linewidth=2.2 if impl in SIFT else 1.2, markersize=4)
        ax.set_xscale("log")
        ax.set_yscale("log")
        ax.grid(True, which="both", alpha=0.3)
        ax.set_ylabel("ms per call (median)")
        if task == "sampler":
            ax.set_title("Balanced sampler, B = %d" % b)
            ax.set_xlabel("N items per row")
        else:
            ax.set_title("Cross-entropy, %g MB of logits"
                         % data["settings"]["ce_mb"])
            ax.set_xlabel("C classes")
        if ax.lines:
            ax.legend(fontsize=7)
    title = "sift and its peers on %s, %d cores%s" % (
        data["machine"]["cpu"], data["machine"]["cores"],
        " (quick run)" if data["quick"] else "")
    fig.suptitle(title, fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


README_BEGIN = "<!-- bench/peers: begin (written by bench/peers/run.py) -->"
README_END = "<!-- bench/peers: end -->"


def embed_in_readme(md_path, readme_path):
    """Puts peers.md (without its title, its headings two levels down) and
    the plot between the README's markers. Returns False when the README
    has no markers."""
    with open(readme_path) as f:
        readme = f.read()
    begin, end = readme.find(README_BEGIN), readme.find(README_END)
    if begin < 0 or end < begin:
        return False
    with open(md_path) as f:
        body = f.read().split("\n", 1)[1].strip()
    body = re.sub(r"^(#+) ", lambda m: "##" + m.group(1) + " ", body,
                  flags=re.M)
    block = "%s\n\n%s\n\n![%s](bench/results/peers.png)\n\n" % (
        README_BEGIN, body, "Time per call against N, log scales, one line "
        "per implementation")
    with open(readme_path, "w") as f:
        f.write(readme[:begin] + block + readme[end:])
    return True
