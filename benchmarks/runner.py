"""Runs one case: warm-up, alternating timed repeats, scores, agreement, memory.

Both sides run in this process on the same arrays. Each side is fitted and
applied once untimed first (numba compiles on the first call, and caches warm
up), then the timed repeats alternate which side goes first, so drift of a
shared machine hits both. Figures are medians over the repeats (minima with
``--stat min``).
"""

import gc
import re
import statistics
import traceback
import tracemalloc
import warnings
from dataclasses import dataclass
from time import perf_counter

import numpy as np
from threadpoolctl import threadpool_limits

from benchmarks.datasets import SCALING_SIZES, load
from benchmarks.scores import agreement, get_score

SIDES = ("skml", "reference")


@dataclass(frozen=True)
class Profile:
    """How hard a profile measures.

    ``repeats`` is the target number of timed repeats; fewer are run when one
    repeat (fit + predict of both sides) would push a case past ``case_budget_s``
    (at least one always runs), and up to ten times more while all repeats
    together stay under ``tiny_s``: extra samples of a millisecond case cost
    nothing and steady its median.
    """

    name: str
    repeats: int
    case_budget_s: float
    memory_max_fit_s: float  # skip the tracemalloc pass for slower fits
    threads: str  # default of --threads: "1", "all" or "both"
    scaling: bool = False
    scaling_max_fit_s: float = 60.0  # stop a scaling series before a fit this slow
    stat: str = "median"  # of the repeats: "median", or "min" on a busy machine
    tiny_s: float = 2.0


PROFILES = {
    "quick": Profile("quick", repeats=3, case_budget_s=15.0, memory_max_fit_s=2.0,
                     threads="1"),
    "full": Profile("full", repeats=5, case_budget_s=60.0, memory_max_fit_s=10.0,
                    threads="both", scaling=True),
}
STATS = {"median": statistics.median, "min": min}


class SideError(Exception):
    """An exception raised by one side (import, construction, fit or predict)."""

    def __init__(self, side, exc):
        super().__init__(f"{type(exc).__name__}: {exc}")
        self.side = side
        self.original = exc


def settle():
    """Collect garbage, then freeze the survivors out of the collector's sight.

    A full collection over the ~10^5 objects scikit-learn and matplotlib keep
    alive costs ~0.2 s; frozen, the collection before each timed fit only walks
    what the case itself created, so it is cheap and the same for both sides.
    """
    gc.collect()
    gc.freeze()


def _one_run(side, factory, data, method):
    """Fit on the training split, apply ``method`` to the test split; time both."""
    X, X_test, y, _ = data
    try:
        est = factory()
        gc.collect()
        t0 = perf_counter()
        est.fit(X, y)
        t1 = perf_counter()
        out = getattr(est, method)(X_test)
        t2 = perf_counter()
    except Exception as exc:
        raise SideError(side, exc) from exc
    return t1 - t0, t2 - t1, est, out


def warm_up(sides, data, method):
    """One untimed run per side; returns {side: unique warning texts}."""
    seen = {}
    for side, factory in sides:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            _one_run(side, factory, data, method)
        texts = [f"{w.category.__name__}: {str(w.message)[:160]}" for w in caught]
        seen[side] = sorted(set(texts))
    return seen


def time_sides(sides, data, method, repeats, budget_s, stat="median", tiny_s=2.0):
    """Alternating timed repeats; returns (figures per side, last outputs, repeats).

    Figures are ``stat`` ("median" or "min") over the repeats.
    """
    samples = {side: {"fit": [], "predict": []} for side, _ in sides}
    last = {}
    start = perf_counter()
    done = 0
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # already recorded during the warm-up
        while True:
            for side, factory in sides if done % 2 == 0 else sides[::-1]:
                fit_s, predict_s, est, out = _one_run(side, factory, data, method)
                samples[side]["fit"].append(fit_s)
                samples[side]["predict"].append(predict_s)
                last[side] = (est, out)
            done += 1
            elapsed = perf_counter() - start
            next_end = elapsed * (done + 1) / done
            if done >= 10 * repeats:
                break
            if done >= repeats and next_end > min(budget_s, tiny_s):
                break
            if next_end > budget_s:
                break
    figures = {
        side: {
            "fit_s": STATS[stat](s["fit"]),
            "predict_s": STATS[stat](s["predict"]),
            "fit_samples": s["fit"],
            "predict_samples": s["predict"],
        }
        for side, s in samples.items()
    }
    return figures, last, done


def _ratio(a, b):
    return a / b if b > 0 else float("nan")


def _timing_block(figures, repeats):
    fit = {side: figures[side]["fit_s"] for side in SIDES}
    predict = {side: figures[side]["predict_s"] for side in SIDES}
    return {
        "repeats": repeats,
        "fit_s": fit,
        "predict_s": predict,
        "fit_ratio": _ratio(fit["skml"], fit["reference"]),
        "predict_ratio": _ratio(predict["skml"], predict["reference"]),
        "samples": {side: {"fit": figures[side]["fit_samples"],
                           "predict": figures[side]["predict_samples"]}
                    for side in SIDES},
    }


def peak_fit_mb(side, factory, data):
    """Peak Python-tracked memory (MiB) of one fit, numpy buffers included.

    tracemalloc sees numpy's allocations but not memory allocated inside numba
    kernels or by BLAS itself, so skml figures can read low when a kernel
    allocates its own work arrays.
    """
    X, _, y, _ = data
    try:
        est = factory()
        gc.collect()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tracemalloc.start()
            try:
                est.fit(X, y)
                _, peak = tracemalloc.get_traced_memory()
            finally:
                tracemalloc.stop()
    except Exception as exc:
        raise SideError(side, exc) from exc
    return peak / 2**20


def _error(result, side, exc):
    original = getattr(exc, "original", exc)
    result.update(
        status="error",
        error_side=side,
        error=f"{type(original).__name__}: {original}",
        traceback="".join(traceback.format_exception(original)),
    )
    return result


def case_info(case):
    return {
        "case": case.name, "estimator": case.estimator, "family": case.family,
        "dataset": case.dataset, "label": case.label, "score_name": case.score,
        "skml": case.skml, "reference": case.reference, "params": case.params,
        "reference_params": case.reference_params, "status": "ok",
    }


def run_case(case, profile, threads=None):
    """Measure one case; never raises: failures come back as an error row."""
    threads = threads or profile.threads
    result = case_info(case)
    try:
        score = get_score(case.score)
        data = load(case.dataset)
    except Exception as exc:
        return _error(result, "setup", exc)
    X, X_test, y, y_test = data
    result.update(n_train=X.shape[0], n_test=X_test.shape[0], n_features=X.shape[1])
    sides = [("skml", case.make_skml), ("reference", case.make_reference)]
    try:
        with threadpool_limits(limits=1):
            result["warnings"] = warm_up(sides, data, score.method)
        settle()  # after the warm-up's imports and compilation
        timings, outputs = {}, None
        for mode in ("1", "all"):
            if threads not in (mode, "both"):
                continue
            with threadpool_limits(limits=1 if mode == "1" else None):
                figures, last, done = time_sides(
                    sides, data, score.method, profile.repeats, profile.case_budget_s,
                    profile.stat, profile.tiny_s,
                )
            timings[mode] = _timing_block(figures, done)
            outputs = outputs or last
        result["timings"] = timings
        result["primary_threads"] = "1" if "1" in timings else "all"
        result.update(_scores(score, outputs, y_test))
        primary = timings[result["primary_threads"]]
        memory = {}
        with threadpool_limits(limits=1):
            for side, factory in sides:
                cheap = primary["fit_s"][side] <= profile.memory_max_fit_s
                memory[side] = peak_fit_mb(side, factory, data) if cheap else None
        result["memory_mb"] = memory
    except SideError as exc:
        return _error(result, exc.side, exc)
    except Exception as exc:
        return _error(result, "runner", exc)
    return result


def _scores(score, outputs, y_test):
    (est_s, out_s), (est_r, out_r) = outputs["skml"], outputs["reference"]
    agree = agreement(score.agreement, out_s, out_r, y_test)
    if score.func is None:  # the score is the difference between the sides
        values = {"skml": agree, "reference": None}
    else:
        values = {}
        for side, est, out in (("skml", est_s, out_s), ("reference", est_r, out_r)):
            try:
                values[side] = float(score.func(y_test, out, est))
            except Exception as exc:
                raise SideError(side, exc) from exc
    return {"score": values, "agreement": {"kind": score.agreement, "value": agree}}


# --- scaling (full profile) ---------------------------------------------------

def scaling_series(dataset):
    """Dataset names of the scaling series a 20k synthetic dataset belongs to."""
    match = re.fullmatch(r"(clf|reg)_20k_20", dataset)
    if not match:
        return []
    sizes = sorted(set(SCALING_SIZES) | {20_000})
    return [f"{match[1]}_{n // 1000}k_20" for n in sizes]


def loglog_slope(n, t):
    """Least-squares slope of log t against log n (None with < 2 points)."""
    pairs = [(a, b) for a, b in zip(n, t) if b is not None and b > 0]
    if len(pairs) < 2:
        return None
    x, y = np.log([p[0] for p in pairs]), np.log([p[1] for p in pairs])
    return float(np.polyfit(x, y, 1)[0])


def _predicted_fit_s(sizes, times, n):
    """Fit time at ``n`` extrapolated from the last two measured points.

    The exponent is the log-log slope of those points, at least 1: a kernel
    SVM's quadratic growth must not be extrapolated linearly (SVR at 75k
    samples took minutes after 7 s at 22.5k).
    """
    points = [(m, t) for m, t in zip(sizes, times) if t is not None]
    (n1, t1) = points[-1]
    exponent = 1.0
    if len(points) >= 2:
        (n0, t0) = points[-2]
        exponent = max(1.0, np.log(t1 / t0) / np.log(n1 / n0))
    return t1 * (n / n1) ** exponent


def run_scaling(case, profile, log=None):
    """Fit time of both sides along the case's scaling series (1 BLAS thread).

    A side drops out of the series when its next fit is predicted (from the
    slope of its last two points, and at least linear growth in n) to exceed
    ``profile.scaling_max_fit_s``; later points of that side are None.
    """
    score = get_score(case.score)
    factories = {"skml": case.make_skml, "reference": case.make_reference}
    series = {"n": [], "fit_s": {s: [] for s in SIDES}, "errors": [], "skipped": {}}
    last = {}  # side -> (n, fit_s) of the last point
    for name in scaling_series(case.dataset):
        data = load(name)
        n = data[0].shape[0]
        active = []
        for side in SIDES:
            failed = any(e["side"] == side for e in series["errors"])
            if failed or side in series["skipped"]:
                continue
            if side in last:
                if _predicted_fit_s(series["n"], series["fit_s"][side], n) > (
                    profile.scaling_max_fit_s
                ):
                    series["skipped"][side] = n
                    continue
            active.append((side, factories[side]))
        series["n"].append(n)
        figures = {}
        if active:
            try:
                with threadpool_limits(limits=1):
                    if name != case.dataset:  # first call at a new shape: untimed
                        warm_up(active, data, score.method)
                    figures, _, _ = time_sides(
                        active, data, score.method, min(profile.repeats, 3),
                        profile.case_budget_s, profile.stat, profile.tiny_s,
                    )
            except SideError as exc:
                series["errors"].append({"side": exc.side, "n": n, "error": str(exc)})
        for side in SIDES:
            t = figures.get(side, {}).get("fit_s")
            series["fit_s"][side].append(t)
            if t is not None:
                last[side] = (n, t)
        if log:
            shown = ", ".join(f"{side} {f['fit_s'] * 1e3:.3g} ms"
                              for side, f in figures.items())
            log(f"      scaling n={n}: {shown or 'skipped'}")
    series["slope"] = {s: loglog_slope(series["n"], series["fit_s"][s]) for s in SIDES}
    return series
