"""skml's histogram gradient boosting against HistGradientBoosting, LightGBM, XGBoost.

Run ``python -m benchmarks.gb_peers [--sizes 20000,200000] [--reps 3]`` (the
peers are bench extras: run it with the peers environment, ``.venv-peers``).
Equal trees on every side: 100 rounds of depth-3 trees (at most 8 leaves),
learning rate 0.1, 255 value bins plus one for missing values, at least 20
training rows per leaf (HistGradientBoosting's default; skml
``min_samples_leaf=20``, LightGBM ``min_child_samples=20``; XGBoost has no
row-count limit, its ``min_child_weight`` bounds the hessian), no early
stopping, one thread (BLAS, OpenMP, numba and the peers' own ``n_jobs`` /
``num_threads``). Data: ``make_classification`` / ``make_regression`` with
20 features (10 informative), 5000 held-out rows for the score (accuracy,
R^2). Timing: the contenders alternate in one process, each fit timed by
``time.process_time``; the table shows the best of ``--reps`` and skml's
time over each peer's. A peer that is not installed gets a "peer not
installed" row. The report goes to ``benchmarks/results/gb_peers.md``.

``--threads 1,2`` times instead every contender at each of those thread
counts (skml's ``n_jobs``, the peers' ``num_threads`` / ``n_jobs``, the
OpenMP limit for HistGradientBoosting), all alternating in one run, by wall
clock (best of ``--reps``), with each library's speedup over its own one-
thread fit and skml's time over each peer's at equal threads; the report
goes to ``benchmarks/results/gb_threads.md``. On a loaded machine the
multi-thread figures are unreliable (a descheduled thread stalls every
parallel region): read the speedups of the same run side by side.
"""

import argparse
import os
import platform
import time
from pathlib import Path

for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
             "NUMBA_NUM_THREADS"):
    os.environ[_var] = "1"

RESULTS = Path(__file__).resolve().parent / "results"
ROUNDS, DEPTH, LEAVES, LR, BINS, MIN_LEAF = 100, 3, 8, 0.1, 255, 20


def _contenders(kind):
    """name -> factory, or name -> None when the peer is not installed."""
    from sklearn import ensemble

    from skml.ensemble import GradientBoostingClassifier, GradientBoostingRegressor

    clf = kind == "classification"
    out = {
        "skml": lambda: (GradientBoostingClassifier if clf else GradientBoostingRegressor)(
            n_estimators=ROUNDS, max_depth=DEPTH, learning_rate=LR, max_bins=BINS + 1,
            min_samples_leaf=MIN_LEAF, random_state=0),
        "HistGradientBoosting": lambda: getattr(
            ensemble,
            "HistGradientBoostingClassifier" if clf else "HistGradientBoostingRegressor",
        )(max_iter=ROUNDS, max_depth=DEPTH, learning_rate=LR, max_bins=BINS,
          min_samples_leaf=MIN_LEAF, early_stopping=False, random_state=0),
    }
    try:
        import lightgbm
        out["LightGBM"] = lambda: (lightgbm.LGBMClassifier if clf else
                                   lightgbm.LGBMRegressor)(
            n_estimators=ROUNDS, max_depth=DEPTH, num_leaves=LEAVES, learning_rate=LR,
            max_bin=BINS, min_child_samples=MIN_LEAF, num_threads=1, verbose=-1)
    except ImportError:
        out["LightGBM"] = None
    try:
        import xgboost
        out["XGBoost"] = lambda: (xgboost.XGBClassifier if clf else
                                  xgboost.XGBRegressor)(
            n_estimators=ROUNDS, max_depth=DEPTH, learning_rate=LR, max_bin=BINS + 1,
            tree_method="hist", n_jobs=1)
    except ImportError:
        out["XGBoost"] = None
    return out


def _data(kind, n):
    from sklearn.datasets import make_classification, make_regression

    if kind == "classification":
        X, y = make_classification(n_samples=n + 5000, n_features=20, n_informative=10,
                                   random_state=0)
    else:
        X, y = make_regression(n_samples=n + 5000, n_features=20, n_informative=10,
                               noise=10.0, random_state=0)
    return X[:n], X[n:], y[:n], y[n:]


def run(sizes, reps, kinds=("classification", "regression")):
    """Time and score every contender; returns rows ``(kind, n, library,
    best fit s, held-out score, skml s / library s)``, ``None`` figures for a
    peer that is not installed (``benchmarks.specialists`` calls this too)."""
    rows = []
    for kind in kinds:
        for n in sizes:
            X, X_test, y, y_test = _data(kind, n)
            makers = _contenders(kind)
            live = {k: f for k, f in makers.items() if f is not None}
            for f in live.values():  # warm-up: numba compiles on the first call
                f().fit(X[:500], y[:500])
            times = {k: [] for k in live}
            scores = {}
            for _ in range(reps):
                for name, make in live.items():
                    est = make()
                    t0 = time.process_time()
                    est.fit(X, y)
                    times[name].append(time.process_time() - t0)
                    scores[name] = est.score(X_test, y_test)
            best = {k: min(v) for k, v in times.items()}
            for name in makers:
                if name not in live:
                    rows.append((kind, n, name, None, None, None))
                    continue
                ratio = None if name == "skml" else best["skml"] / best[name]
                rows.append((kind, n, name, best[name], scores[name], ratio))
                print(kind, n, name, f"{best[name]:.3f}s", f"{scores[name]:.4f}",
                      "" if ratio is None else f"skml/peer {ratio:.2f}", flush=True)
    return rows


def _set_threads(est, n_threads):
    """A contender set to ``n_threads`` (LightGBM ``num_threads``, XGBoost's
    and skml's ``n_jobs``; HistGradientBoosting follows the OpenMP limit)."""
    params = est.get_params()
    if "num_threads" in params:
        est.set_params(num_threads=n_threads)
    elif "n_jobs" in params and type(est).__module__.startswith(("xgboost", "skml")):
        est.set_params(n_jobs=n_threads)
    return est


def run_threads(sizes, reps, threads, kinds=("classification",)):
    """Wall-clock fits of every contender at every thread count of
    ``threads``, alternating; returns rows ``(kind, n, library, threads,
    best wall s, held-out score)``."""
    from threadpoolctl import threadpool_limits

    rows = []
    for kind in kinds:
        for n in sizes:
            X, X_test, y, y_test = _data(kind, n)
            live = {k: f for k, f in _contenders(kind).items() if f is not None}
            runs = [(name, t) for t in threads for name in live]
            for name, t in runs:  # warm-up: numba compiles on the first call
                with threadpool_limits(t, user_api="openmp"):
                    _set_threads(live[name](), t).fit(X[:500], y[:500])
            times = {r: [] for r in runs}
            scores = {}
            for _ in range(reps):
                for name, t in runs:
                    est = _set_threads(live[name](), t)
                    with threadpool_limits(t, user_api="openmp"):
                        t0 = time.perf_counter()
                        est.fit(X, y)
                        times[name, t].append(time.perf_counter() - t0)
                    scores[name, t] = est.score(X_test, y_test)
            for name, t in runs:
                best = min(times[name, t])
                rows.append((kind, n, name, t, best, scores[name, t]))
                print(kind, n, name, f"{t} threads", f"{best:.3f}s wall",
                      f"{scores[name, t]:.4f}", flush=True)
    return rows


def write_threads(rows, reps, path):
    best = {(kind, n, name, t): (wall, score) for kind, n, name, t, wall, score in rows}
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    lines = [
        "# Gradient boosting on several threads",
        "",
        f"Generated by `python -m benchmarks.gb_peers --threads ...` on"
        f" {platform.node() or 'this host'} ({os.cpu_count()} CPUs, load {load:.1f} at the"
        f" end); equal trees as in gb_peers.md; best of {reps} alternating fits, wall"
        " clock. speedup: the library's one-thread time over this one;"
        " skml / library: at equal threads.",
        "",
        "| task | n_train | library | threads | fit s | score | speedup | skml / library |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for kind, n, name, t, wall, score in rows:
        one = best.get((kind, n, name, 1))
        speedup = "-" if one is None else f"{one[0] / wall:.2f}"
        sk = best.get((kind, n, "skml", t))
        ratio = "-" if name == "skml" or sk is None else f"{sk[0] / wall:.2f}"
        lines.append(f"| {kind} | {n} | {name} | {t} | {wall:.3f} | {score:.4f} |"
                     f" {speedup} | {ratio} |")
    path.write_text("\n".join(lines) + "\n")


def write(rows, reps, path):
    lines = [
        "# Gradient boosting against the specialists (one thread)",
        "",
        f"Generated by `python -m benchmarks.gb_peers` on {platform.node() or 'this host'}"
        f" ({platform.processor() or platform.machine()}); equal trees: {ROUNDS} rounds,"
        f" depth {DEPTH} (<= {LEAVES} leaves), learning rate {LR}, {BINS} value bins,"
        f" >= {MIN_LEAF} rows per leaf (XGBoost: none); best of {reps} alternating fits,"
        " process time. Score: held-out accuracy (classification) or R^2.",
        "",
        "| task | n_train | library | fit s | score | skml / library |",
        "|---|---|---|---|---|---|",
    ]
    for kind, n, name, t, score, ratio in rows:
        if t is None:
            lines.append(f"| {kind} | {n} | {name} | peer not installed | - | - |")
            continue
        r = "-" if ratio is None else f"{ratio:.2f}"
        lines.append(f"| {kind} | {n} | {name} | {t:.3f} | {score:.4f} | {r} |")
    path.write_text("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="20000,200000")
    parser.add_argument("--reps", type=int, default=3)
    parser.add_argument("--out", default=None)
    parser.add_argument("--threads", default=None,
                        help="thread counts, e.g. 1,2 (wall clock; see the docstring)")
    parser.add_argument("--kinds", default="classification,regression")
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    kinds = tuple(args.kinds.split(","))
    if args.threads is None:
        write(run(sizes, args.reps, kinds), args.reps,
              Path(args.out or RESULTS / "gb_peers.md"))
        return
    threads = [int(t) for t in args.threads.split(",")]
    # Unpin before numba and the peers are imported (they read it once).
    os.environ["OMP_NUM_THREADS"] = os.environ["NUMBA_NUM_THREADS"] = str(max(threads))
    write_threads(run_threads(sizes, args.reps, threads, kinds), args.reps,
                  Path(args.out or RESULTS / "gb_threads.md"))


if __name__ == "__main__":
    main()
