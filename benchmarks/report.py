"""Terminal table, JSON results and the markdown report of a benchmark run."""

import json
import math
import os
import platform
import subprocess
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path

from threadpoolctl import threadpool_info

from benchmarks.runner import SIDES

GOAL_RATIO = 1.5  # skml time / reference time, 1 BLAS thread
SCORE_TOLERANCE = 0.01  # a worse skml score by more than this is listed


def machine_info():
    """Where and with what the run happened."""
    versions = {}
    for dist in ("numpy", "scipy", "scikit-learn", "skml", "numba", "threadpoolctl"):
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    try:
        commit = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
            cwd=Path(__file__).parent, timeout=5,
        ).stdout.strip() or None
    except (OSError, subprocess.SubprocessError):
        commit = None
    affinity = os.sched_getaffinity(0) if hasattr(os, "sched_getaffinity") else None
    return {
        "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cpu_count": os.cpu_count(),
        "cpus_usable": len(affinity) if affinity is not None else os.cpu_count(),
        "load_average": os.getloadavg()[0] if hasattr(os, "getloadavg") else None,
        "versions": versions,
        "git_commit": commit,
        "threadpools": [
            {k: info.get(k) for k in ("user_api", "internal_api", "prefix",
                                       "version", "num_threads")}
            for info in threadpool_info()
        ],
    }


# --- formatting ---------------------------------------------------------------

def fmt_num(value):
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "-"
    if value != 0 and (abs(value) >= 1e4 or abs(value) < 1e-3):
        return f"{value:.2e}"
    return f"{value:.4f}"


def fmt_ms(seconds):
    if seconds is None:
        return "-"
    ms = seconds * 1e3
    return f"{ms:.0f}" if ms >= 100 else f"{ms:.2f}" if ms < 1 else f"{ms:.1f}"


def fmt_ratio(ratio):
    if ratio is None or math.isnan(ratio):
        return "-"
    return f"{ratio:.2f}"


# A timing whose repeats spread more than this (max - min over the median)
# is marked noisy: a ratio built on it is shown with a "*".
NOISE_SPREAD = 0.3


def spread(samples):
    """(max - min) / median of a list of timings; 0 for fewer than two."""
    if not samples or len(samples) < 2:
        return 0.0
    ordered = sorted(samples)
    median = ordered[len(ordered) // 2]
    return (ordered[-1] - ordered[0]) / median if median > 0 else 0.0


def is_noisy(timing, what):
    """Whether the ``what`` ("fit" or "predict") ratio of a timing block is noisy."""
    samples = timing.get("samples") or {}
    return any(spread(samples.get(side, {}).get(what)) > NOISE_SPREAD for side in SIDES)


def fmt_timing_ratio(timing, what):
    """The ``what`` ratio of a timing block, with "*" when its repeats are noisy."""
    text = fmt_ratio(timing.get(f"{what}_ratio"))
    return text + "*" if text != "-" and is_noisy(timing, what) else text


def fmt_agreement(agree):
    kind, value = agree["kind"], agree["value"]
    if value is None or math.isnan(value):
        return "-"
    if kind == "equal":
        return f"{value:.1%} equal"
    if kind == "same_partition":
        return f"ARI {value:.3f}"
    if kind == "diff_over_std":
        return f"dy/sd {value:.1e}"
    return f"max diff {value:.1e}"


def primary(result):
    return result["timings"][result["primary_threads"]]


def meets_goal(result):
    return primary(result)["fit_ratio"] <= GOAL_RATIO


def table_rows(results):
    """(header, rows) with the terminal table's columns; error rows are shorter."""
    both = any(len(r.get("timings", {})) == 2 for r in results)
    header = ["case", "score", "skml", "ref", "fit ms skml", "fit ms ref",
              "fit ratio", "pred ratio", "agreement", "goal"]
    if both:
        header.append("fit ratio all-thr")
    rows = []
    for r in results:
        if r["status"] != "ok":
            rows.append([r["case"], f"ERROR ({r['error_side']}): {r['error']}"[:110]])
            continue
        t = primary(r)
        row = [r["case"], r["score_name"].replace("transform_", ""),
               fmt_num(r["score"]["skml"]), fmt_num(r["score"]["reference"]),
               fmt_ms(t["fit_s"]["skml"]), fmt_ms(t["fit_s"]["reference"]),
               fmt_timing_ratio(t, "fit"),
               fmt_timing_ratio(t, "predict"), fmt_agreement(r["agreement"]),
               "yes" if meets_goal(r) else "NO"]
        if both:
            row.append(fmt_timing_ratio(r["timings"].get("all", {}), "fit"))
        rows.append(row)
    return header, rows


def format_table(results):
    """Aligned plain-text table: text left-aligned, figures right-aligned."""
    header, rows = table_rows(results)
    full = [row for row in rows if len(row) == len(header)]
    widths = [max(len(str(x)) for x in col) for col in zip(header, *full)]
    widths[0] = max(len(row[0]) for row in [header, *rows])
    left = {0, 1, 8, 9}

    def line(row):
        if len(row) != len(header):  # error row: the message spans the rest
            return f"{row[0]:<{widths[0]}}  {row[1]}"
        return "  ".join(
            f"{cell:<{w}}" if i in left else f"{cell:>{w}}"
            for i, (cell, w) in enumerate(zip(row, widths))
        ).rstrip()

    out = [line(header), "  ".join("-" * w for w in widths)]
    out += [line(row) for row in rows]
    return "\n".join(out)


# --- files --------------------------------------------------------------------

def _clean(obj):
    """JSON-safe copy: NaN and inf become null, tuples become lists."""
    if isinstance(obj, float):
        return obj if math.isfinite(obj) else None
    if isinstance(obj, dict):
        return {str(k): _clean(v) for k, v in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [_clean(v) for v in obj]
    if hasattr(obj, "item"):  # numpy scalar
        return _clean(obj.item())
    if obj is None or isinstance(obj, (str, int, bool)):
        return obj
    return repr(obj)  # a parameter object (e.g. a connectivity callable)


def write_json(path, meta, results):
    path.write_text(json.dumps(_clean({"meta": meta, "results": results}), indent=1))


def _md_table(header, rows):
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(lines)


def _detail_rows(results):
    header = ["case", "n x d", "score", "skml", "ref", "fit ms skml", "fit ms ref",
              "fit ratio", "pred ms skml", "pred ms ref", "pred ratio", "agreement",
              "fit MiB skml", "fit MiB ref", "repeats"]
    both = any(len(r.get("timings", {})) == 2 for r in results)
    if both:
        header += ["fit ratio all-thr", "pred ratio all-thr"]
    rows = []
    for r in results:
        if r["status"] != "ok":
            continue
        t, mem = primary(r), r["memory_mb"]
        mib = [f"{mem[s]:.3g}" if mem.get(s) is not None else "-" for s in SIDES]
        row = [f"`{r['case']}`", f"{r['n_train']} x {r['n_features']}", r["score_name"],
               fmt_num(r["score"]["skml"]), fmt_num(r["score"]["reference"]),
               fmt_ms(t["fit_s"]["skml"]), fmt_ms(t["fit_s"]["reference"]),
               fmt_timing_ratio(t, "fit"), fmt_ms(t["predict_s"]["skml"]),
               fmt_ms(t["predict_s"]["reference"]), fmt_timing_ratio(t, "predict"),
               fmt_agreement(r["agreement"]), *mib, str(t["repeats"])]
        if both:
            a = r["timings"].get("all", {})
            row += [fmt_timing_ratio(a, "fit"), fmt_timing_ratio(a, "predict")]
        rows.append(row)
    return header, rows


def score_gaps(results):
    """Cases whose skml score is worse than the reference's by > SCORE_TOLERANCE."""
    from benchmarks.scores import get_score

    gaps = []
    for r in results:
        if r["status"] != "ok" or r["score"]["reference"] is None:
            continue
        s, ref = r["score"]["skml"], r["score"]["reference"]
        worse = ref - s if get_score(r["score_name"]).greater_is_better else s - ref
        if worse > SCORE_TOLERANCE:
            gaps.append((r, worse))
    return gaps


def _goals_section(ok, errors):
    lines = ["## Goals", ""]
    if not ok:
        return lines + ["No case ran successfully.", ""]
    met = [r for r in ok if meets_goal(r)]
    missed = [r for r in ok if not meets_goal(r)]
    mode = "1 BLAS thread" if ok[0]["primary_threads"] == "1" else "all threads"
    verdict = "**MET**" if not missed and not errors else "**NOT MET**"
    lines.append(f"- Fit time skml/reference <= {GOAL_RATIO} ({mode}): {verdict}: "
                 f"{len(met)} of {len(ok)} cases that ran meet it"
                 + (f"; {len(errors)} case(s) errored and count as not met"
                    if errors else "") + ".")
    for r in missed:
        lines.append(f"  - missed: `{r['case']}` fit ratio "
                     f"{fmt_ratio(primary(r)['fit_ratio'])}")
    pred_missed = [r for r in ok if primary(r)["predict_ratio"] > GOAL_RATIO]
    lines.append(f"- Predict/transform time skml/reference <= {GOAL_RATIO}: "
                 f"{len(ok) - len(pred_missed)} of {len(ok)} cases.")
    for r in pred_missed:
        lines.append(f"  - missed: `{r['case']}` predict ratio "
                     f"{fmt_ratio(primary(r)['predict_ratio'])}")
    gaps = score_gaps(ok)
    lines.append(f"- Score no worse than the reference's by more than "
                 f"{SCORE_TOLERANCE}: {len(ok) - len(gaps)} of {len(ok)} cases.")
    for r, worse in gaps:
        lines.append(f"  - worse: `{r['case']}` by {worse:.4f} ({r['score_name']})")
    return lines + [""]


def _scaling_section(results, png):
    scaled = [r for r in results if r.get("scaling")]
    if not scaled:
        return []
    lines = ["## Scaling (fit time vs n, 1 BLAS thread)", "",
             "Slope of log(fit time) against log(n): 1 is linear in n.", ""]
    header = ["case", "slope skml", "slope ref"]
    ns = scaled[0]["scaling"]["n"]
    header += [f"n={n}" for n in ns]
    rows = []
    for r in scaled:
        sc = r["scaling"]
        cells = [f"{fmt_ms(a)} / {fmt_ms(b)}" for a, b in
                 zip(sc["fit_s"]["skml"], sc["fit_s"]["reference"])]
        rows.append([f"`{r['case']}`", *(fmt_ratio(sc["slope"][s]) for s in SIDES),
                     *cells])
    lines += [_md_table(header, rows), "",
              "Cells: fit ms skml / reference; `-` = skipped (predicted too slow) or "
              "failed.", ""]
    for r in scaled:
        sc = r["scaling"]
        for side, n in sc["skipped"].items():
            lines.append(f"- `{r['case']}`: {side} stopped before n={n}.")
        for e in sc["errors"]:
            lines.append(f"- `{r['case']}`: {e['side']} failed at n={e['n']}: "
                         f"{e['error']}")
    return lines + (["", f"![scaling]({png})", ""] if png else [""])


def write_report(path, meta, results, plots):
    """Markdown report: run facts, goals, errors, the table, the plots."""
    ok = [r for r in results if r["status"] == "ok"]
    errors = [r for r in results if r["status"] != "ok"]
    v = meta["versions"]
    lines = [
        f"# skml benchmark: {meta['profile']} profile", "",
        f"- date: {meta['date']}, {meta['duration_s']:.0f} s, "
        f"selection: `{meta['selection']}`",
        f"- machine: {meta['processor']}, {meta['cpu_count']} CPUs "
        f"({meta['cpus_usable']} usable), {meta['platform']}, Python {meta['python']}",
        "- versions: " + ", ".join(f"{k} {v[k]}" for k in v)
        + f"; git {meta['git_commit']}",
        "- BLAS/OpenMP: " + ", ".join(
            f"{p['internal_api']} {p['version']} ({p['num_threads']} threads)"
            for p in meta["threadpools"]),
        f"- threads measured: {meta['threads']} (`1` = BLAS pinned to one thread with "
        "threadpoolctl, the main figures; `all` = unpinned)",
    ]
    load = [meta.get(k) for k in ("load_before", "load_average")]
    if any(x is not None and x > meta["cpus_usable"] for x in load):
        lines.append(
            f"- **busy machine**: load average {load[0]:.1f} before and {load[1]:.1f} "
            f"after the run on {meta['cpus_usable']} CPUs; other processes took time "
            "slices (~10 ms each), so ratios of millisecond cases are noisy. Rerun on "
            "a quiet machine, or with `--stat min`.")
    lines += ["", *_goals_section(ok, errors)]
    if errors:
        lines += ["## Errors", ""]
        lines += [f"- `{r['case']}` ({r['error_side']}): {r['error']}" for r in errors]
        lines.append("")
    header, rows = _detail_rows(results)
    lines += ["## Results", "", _md_table(header, rows), "",
              f"Times are the {meta['stat']} over the repeats, after one untimed "
              "warm-up per side. "
              "Ratios are skml / reference; a ratio marked `*` is noisy: one side's "
              f"repeats spread more than {NOISE_SPREAD:.0%} of their median "
              "((max - min) / median), so read it as a rough figure. "
              "Agreement compares the two sides' test "
              "outputs (see `benchmarks/README.md`).", ""]
    # The family summary and the scores first; one fit-time chart per family
    # after them (make_plots names those "fit time ratio: <family>").
    detail = {n: png for n, png in plots.items() if n.startswith("fit time ratio: ")}
    lines += [f"![{name}]({png})" for name, png in plots.items()
              if name != "scaling" and name not in detail]
    lines.append("")
    if detail:
        lines += ["## Fit-time ratio by family", ""]
        lines += [f"![{name}]({png})" for name, png in detail.items()]
        lines.append("")
    text = "\n".join(lines + _scaling_section(results, plots.get("scaling")))
    warned = [r for r in ok if any(r.get("warnings", {}).values())]
    if warned:
        text += "\n## Warnings during the warm-up\n\n"
        for r in warned:
            for side, texts in r["warnings"].items():
                for t in texts:
                    text += f"- `{r['case']}` {side}: {t}\n"
    path.write_text(text)
