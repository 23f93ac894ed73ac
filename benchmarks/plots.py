"""The report's figures (matplotlib, Agg backend), saved as PNG files."""

from collections import defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter, NullFormatter  # noqa: E402

from benchmarks.report import GOAL_RATIO, primary  # noqa: E402
from benchmarks.runner import SIDES  # noqa: E402

COLORS = {"skml": "tab:blue", "reference": "tab:orange"}
TICKS = [m * 10.0**e for e in range(-3, 4) for m in (1, 2, 5)] + [1.5]


def _save(fig, path, layout=True):
    if layout:
        fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name


def fit_ratio_plot(results, path):
    """Horizontal bars of skml/reference fit time per case, from 1.0, log scale."""
    names = [r["case"] for r in results]
    ratios = [primary(r)["fit_ratio"] for r in results]
    fig, ax = plt.subplots(figsize=(8, 1.5 + 0.3 * len(names)))
    colors = ["tab:green" if x <= GOAL_RATIO else "tab:red" for x in ratios]
    ax.barh(names, [x - 1.0 for x in ratios], left=1.0, color=colors)
    for y, x in enumerate(ratios):
        ax.annotate(f"{x:.2f}", (x, y), xytext=(3 if x >= 1 else -3, 0),
                    textcoords="offset points", va="center", fontsize=8,
                    ha="left" if x >= 1 else "right")
    finite = [x for x in ratios if x > 0]
    ax.set_xscale("log")
    lo, hi = min([0.5, *finite]) / 1.5, max([2 * GOAL_RATIO, *finite]) * 1.5
    ax.set_xlim(lo, hi)
    ax.set_xticks([t for t in TICKS if lo <= t <= hi])
    ax.xaxis.set_major_formatter(FuncFormatter(lambda x, _: f"{x:g}"))
    ax.xaxis.set_minor_formatter(NullFormatter())
    ax.axvline(1.0, color="black", linewidth=1)
    ax.axvline(GOAL_RATIO, color="tab:red", linestyle="--", linewidth=1,
               label=f"goal {GOAL_RATIO}")
    ax.invert_yaxis()
    ax.set_xlabel("fit time skml / reference (log scale; < 1 means skml is faster)")
    ax.legend(loc="lower right")
    return _save(fig, path)


def score_plot(results, path):
    """Scores of both sides, one panel per score name."""
    by_score = defaultdict(list)
    for r in results:
        if r["score"]["reference"] is not None:
            by_score[r["score_name"]].append(r)
    if not by_score:
        return None
    sizes = [len(rs) for rs in by_score.values()]
    fig, axes = plt.subplots(len(by_score), 1, squeeze=False,
                             figsize=(8, 1.5 + 1.2 * len(sizes) + 0.35 * sum(sizes)),
                             gridspec_kw={"height_ratios": sizes})
    for ax, (score, rs) in zip(axes[:, 0], by_score.items()):
        pos = range(len(rs))
        for k, side in enumerate(SIDES):
            ax.barh([p + 0.4 * k - 0.2 for p in pos], [r["score"][side] for r in rs],
                    height=0.4, color=COLORS[side], label=side)
        ax.set_yticks(list(pos), [r["case"] for r in rs])
        ax.invert_yaxis()
        ax.set_xlabel(score)
    fig.legend(*axes[0, 0].get_legend_handles_labels(), loc="upper right", ncol=2)
    fig.tight_layout(rect=(0, 0, 1, 0.95))
    return _save(fig, path, layout=False)


def scaling_plot(results, path):
    """Log-log fit time against n for both sides, one panel per scaled case."""
    scaled = [r for r in results if r.get("scaling")]
    if not scaled:
        return None
    cols = min(3, len(scaled))
    rows = -(-len(scaled) // cols)
    fig, axes = plt.subplots(rows, cols, squeeze=False,
                             figsize=(4.5 * cols, 3.5 * rows))
    for ax, r in zip(axes.flat, scaled):
        sc = r["scaling"]
        for side in SIDES:
            pts = [(n, t) for n, t in zip(sc["n"], sc["fit_s"][side]) if t]
            if not pts:
                continue
            slope = sc["slope"][side]
            label = f"{side} (slope {slope:.2f})" if slope is not None else side
            ax.loglog(*zip(*pts), "o-", color=COLORS[side], label=label)
        ax.set_title(r["case"], fontsize=9)
        ax.set_xlabel("n train")
        ax.set_ylabel("fit s")
        ax.legend(fontsize=8)
    for ax in list(axes.flat)[len(scaled):]:
        ax.axis("off")
    return _save(fig, path)


def make_plots(results, out_dir, profile):
    """Write the PNGs of the cases that ran; returns {name: file name}."""
    ok = [r for r in results if r["status"] == "ok"]
    if not ok:
        return {}
    made = {
        "fit time ratio": fit_ratio_plot(ok, out_dir / f"{profile}-fit-ratio.png"),
        "scores": score_plot(ok, out_dir / f"{profile}-scores.png"),
        "scaling": scaling_plot(ok, out_dir / f"{profile}-scaling.png"),
    }
    return {name: png for name, png in made.items() if png}
