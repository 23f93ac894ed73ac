"""The report's figures (matplotlib, Agg backend), saved as PNG files.

``python -m benchmarks.plots benchmarks/results/quick.json [--report]`` redraws
them from a saved run, running no benchmark (``--report`` rewrites the
markdown report beside it too).
"""

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


def _log_ratio_axis(ax, ratios):
    """Log x axis around 1.0 spanning ``ratios``, with the goal line."""
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


def by_family(results):
    """``{family: [results]}``, families in name order, cases in run order."""
    groups = defaultdict(list)
    for r in results:
        groups[r.get("family") or "other"].append(r)
    return dict(sorted(groups.items()))


def fit_ratio_plot(results, path):
    """Horizontal bars of skml/reference fit time per case, from 1.0, log scale
    (one family's detail: a few dozen rows at most)."""
    names = [r["case"] for r in results]
    ratios = [primary(r)["fit_ratio"] for r in results]
    fig, ax = plt.subplots(figsize=(8, 1.2 + 0.28 * len(names)))
    colors = ["tab:green" if x <= GOAL_RATIO else "tab:red" for x in ratios]
    ax.barh(names, [x - 1.0 for x in ratios], left=1.0, color=colors)
    for y, x in enumerate(ratios):
        ax.annotate(f"{x:.2f}", (x, y), xytext=(3 if x >= 1 else -3, 0),
                    textcoords="offset points", va="center", fontsize=8,
                    ha="left" if x >= 1 else "right")
    _log_ratio_axis(ax, ratios)
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=8)
    ax.set_xlabel("fit time skml / reference (log scale; < 1 means skml is faster)")
    ax.legend(loc="lower right")
    return _save(fig, path)


def family_summary_plot(results, path):
    """One row per family: every case's fit-time ratio as a dot (red above the
    goal), the family's median as a bar, and "within goal / cases" beside the
    name; the chart to read first, the per-family charts give the detail."""
    groups = by_family(results)
    fig, ax = plt.subplots(figsize=(8, 1.4 + 0.32 * len(groups)))
    all_ratios = []
    labels = []
    for y, (family, rs) in enumerate(groups.items()):
        ratios = sorted(primary(r)["fit_ratio"] for r in rs)
        all_ratios += ratios
        median = ratios[len(ratios) // 2] if len(ratios) % 2 else (
            (ratios[len(ratios) // 2 - 1] * ratios[len(ratios) // 2]) ** 0.5)
        ax.barh(y, median - 1.0, left=1.0, height=0.6, alpha=0.35,
                color="tab:green" if median <= GOAL_RATIO else "tab:red")
        ax.scatter(ratios, [y] * len(ratios), s=14, zorder=3,
                   c=["tab:green" if x <= GOAL_RATIO else "tab:red" for x in ratios])
        within = sum(x <= GOAL_RATIO for x in ratios)
        labels.append(f"{family}  ({within}/{len(ratios)})")
    _log_ratio_axis(ax, all_ratios)
    ax.set_yticks(range(len(groups)), labels, fontsize=9)
    ax.set_ylim(len(groups) - 0.5, -0.5)
    ax.set_xlabel("fit time skml / reference per case (dots) and family median (bar);"
                  " log scale", fontsize=9)
    ax.set_title("Fit-time ratio by family (cases within the goal / cases)", fontsize=10)
    ax.legend(loc="lower right", fontsize=8)
    return _save(fig, path)


def _clip_limits(values):
    """Axis limits for a score panel: the whole range, unless a few outliers
    would squeeze the other points into a corner (then they are drawn at the
    edge)."""
    v = sorted(values)
    lo, hi = v[0], v[-1]
    p10, p90 = v[len(v) // 10], v[-1 - len(v) // 10]
    span = (p90 - p10) or abs(p90) * 0.05 or 0.05
    lo, hi = max(lo, p10 - 2 * span), min(hi, p90 + 2 * span)
    pad = 0.05 * (hi - lo) or 0.01
    return lo - pad, hi + pad


def score_plot(results, path):
    """skml's score against the reference's, one small panel per score name:
    a case on the diagonal scores the same on both sides. The cases worse than
    the report's tolerance are red and numbered, their names listed under the
    panel; points off the scale are drawn as crosses at its edge."""
    from benchmarks.report import score_gaps

    by_score = defaultdict(list)
    for r in results:
        if r["score"]["reference"] is not None and r["score"]["skml"] is not None:
            by_score[r["score_name"]].append(r)
    if not by_score:
        return None
    gaps = {id(r) for r, _ in score_gaps(results)}
    cols = min(3, len(by_score))
    rows = -(-len(by_score) // cols)
    fig, axes = plt.subplots(rows, cols, squeeze=False, figsize=(4.4 * cols, 4.6 * rows))
    for ax, (score, rs) in zip(axes.flat, sorted(by_score.items())):
        ref = [r["score"]["reference"] for r in rs]
        me = [r["score"]["skml"] for r in rs]
        lo, hi = _clip_limits(ref + me)
        ax.plot([lo, hi], [lo, hi], color="grey", lw=0.8)
        worse = []
        for r, x, y in zip(rs, ref, me):
            cx, cy = min(max(x, lo), hi), min(max(y, lo), hi)
            bad = id(r) in gaps
            ax.scatter(cx, cy, s=16, marker="o" if (cx, cy) == (x, y) else "x",
                       color="tab:red" if bad else COLORS["skml"])
            if bad:
                worse.append(r["case"])
                ax.annotate(str(len(worse)), (cx, cy), fontsize=7, color="tab:red",
                            xytext=(3, 2), textcoords="offset points")
        ax.set_xlim(lo, hi)
        ax.set_ylim(lo, hi)
        ax.set_title(f"{score}: {len(rs)} cases, {len(worse)} worse", fontsize=9)
        ax.set_xlabel("reference", fontsize=8)
        ax.set_ylabel("skml", fontsize=8)
        ax.tick_params(labelsize=7)
        if worse:
            listed = [f"{i}. {name}" for i, name in enumerate(worse[:6], 1)]
            if len(worse) > 6:
                listed.append(f"... and {len(worse) - 6} more (see the report)")
            ax.text(0.0, -0.2, "\n".join(listed), transform=ax.transAxes, fontsize=6,
                    va="top", color="tab:red")
    for ax in list(axes.flat)[len(by_score):]:
        ax.axis("off")
    return _save(fig, path)


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
    """Write the PNGs of the cases that ran; returns {name: file name}: the
    family summary of the fit-time ratios, one detail chart per family
    (``<profile>-fit-ratio-<family>.png``, named "fit time ratio: <family>"),
    the scores and the scaling curves."""
    ok = [r for r in results if r["status"] == "ok"]
    if not ok:
        return {}
    for old in out_dir.glob(f"{profile}-fit-ratio-*.png"):  # families of an older run
        old.unlink()
    made = {"fit time ratio": family_summary_plot(ok, out_dir / f"{profile}-fit-ratio.png")}
    for family, rs in by_family(ok).items():
        made[f"fit time ratio: {family}"] = fit_ratio_plot(
            rs, out_dir / f"{profile}-fit-ratio-{family}.png")
    made["scores"] = score_plot(ok, out_dir / f"{profile}-scores.png")
    made["scaling"] = scaling_plot(ok, out_dir / f"{profile}-scaling.png")
    return {name: png for name, png in made.items() if png}


def replot(json_path, out_dir=None, report=False):
    """Redraw the PNGs of a saved run (``<profile>.json``) without running
    anything; with ``report``, rewrite its ``report-<profile>.md`` too (the
    report is a function of the JSON and the plots' names). Returns what
    :func:`make_plots` returns."""
    import json
    from pathlib import Path

    from benchmarks.report import write_report

    json_path = Path(json_path)
    out_dir = Path(out_dir or json_path.parent)
    saved = json.loads(json_path.read_text())
    profile = saved["meta"]["profile"]
    plots = make_plots(saved["results"], out_dir, profile)
    if report:
        write_report(out_dir / f"report-{profile}.md", saved["meta"], saved["results"],
                     plots)
    return plots


if __name__ == "__main__":
    import sys

    args = [a for a in sys.argv[1:] if a != "--report"]
    if len(args) != 1:
        sys.exit("usage: python -m benchmarks.plots benchmarks/results/<profile>.json"
                 " [--report]")
    for name, png in replot(args[0], report="--report" in sys.argv).items():
        print(f"{name}: {png}")
