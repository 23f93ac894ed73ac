"""skml.model_selection against scikit-learn, optuna and scikit-optimize (issue 15).

Run ``python -m benchmarks.search_peers [--quick] [--seeds N] [--out PATH]`` in
the peers environment (``python3 dev.py peers search_peers``). optuna and
scikit-optimize are imported lazily; a missing peer gives "peer not
installed" rows. BLAS threads are pinned to one and every search runs with
``n_jobs=1``, so wall times compare the searches' own work. The machine may
be loaded: a ratio of times is only ever taken between runs of the same
invocation, made one after the other.

Sections:

1. Real tasks (anchors-next §1.2): skml's ``MLPClassifier((32,), max_iter=60)``
   on digits and ``GradientBoostingClassifier(n_estimators=64)`` on
   breast_cancer are the searched models *for every search*, over the same
   space (MLP: ``alpha``, ``learning_rate_init`` log-uniform; boosting:
   ``learning_rate`` log-uniform, ``max_depth`` in 1..5); 75/25 split,
   3-fold CV, the held-out accuracy of the refitted best model. Searches:
   skml ``SuccessiveHalvingSearchCV`` (16 and 64 candidates, factor 2,
   resource = epochs / trees), ``HyperbandSearchCV`` (eta 3),
   ``BayesSearchCV``; scikit-learn's ``HalvingRandomSearchCV`` with its
   defaults (``resource="n_samples"``) and with the same resource and
   schedule as ours (refits from scratch), ``RandomizedSearchCV`` and optuna's
   TPE at the budget of our 16-candidate search (``ceil(total / R)`` fully
   trained candidates). "Fits" counts ``fit`` calls on CV splits;
   "resource" the epochs/trees trained per split. Candidates per second of
   CPU time (one thread does all the work) give the ">= 3x
   RandomizedSearchCV" ratio; wall times are reported beside them. One
   held-out split of 143 or 450 rows cannot separate the searches, so the
   section is repeated over ``--repeats`` seeds (each its own stratified
   split and candidate draws) and reported as mean ± std, with the paired
   difference of our halving's held-out score to the best peer's.
2. Regret on Branin (2-d) and Hartmann-6 over 50 evaluations, median over
   seeds: BayesSearchCV's optimiser (the loop of ``BayesSearchCV`` without
   cross-validation, its defaults: 10 random points, EI, 2000 candidates)
   against random search, optuna TPE and skopt's ``gp_minimize``; optimiser
   overhead = CPU time of the process (one BLAS thread) minus the
   function's, so a loaded machine does not inflate it.
3. The halving schedules (no fitting): resource per candidate per round.

The report goes to ``benchmarks/results/search_peers.md``, the plots beside
it (``search_peers_tasks.png``, ``search_peers_regret.png``,
``search_peers_schedule.png``).
"""

import argparse
import gc
import math
import os
import platform
import sys
import time
import warnings
from pathlib import Path

for _v in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_v, "1")

import numpy as np  # noqa: E402

RESULTS = Path(__file__).resolve().parent / "results"
NOT_INSTALLED = "peer not installed"
MLP_EPOCHS, GB_TREES, CV = 60, 64, 3


def _peer(name):
    try:
        return __import__(name)
    except Exception:  # noqa: BLE001 - any import failure means "not there"
        return None


def _version(mod):
    return getattr(mod, "__version__", "?") if mod is not None else NOT_INSTALLED


# --- section 1: real tasks -------------------------------------------------------
def _task(name, split_seed=0):
    from scipy.stats import loguniform
    from sklearn.datasets import load_breast_cancer, load_digits
    from sklearn.model_selection import train_test_split

    if name == "mlp_digits":
        from skml.neural_network import MLPClassifier

        X, y = load_digits(return_X_y=True)
        X = X / 16.0
        make = lambda: MLPClassifier((32,), max_iter=MLP_EPOCHS, random_state=0)  # noqa: E731
        space = {"alpha": loguniform(1e-5, 1e-1), "learning_rate_init": loguniform(1e-4, 1e-1)}
        bounds = {"alpha": (1e-5, 1e-1, "log"), "learning_rate_init": (1e-4, 1e-1, "log")}
        resource, R = "max_iter", MLP_EPOCHS
    else:
        from skml.ensemble import GradientBoostingClassifier

        X, y = load_breast_cancer(return_X_y=True)
        make = lambda: GradientBoostingClassifier(  # noqa: E731
            n_estimators=GB_TREES, random_state=0)
        space = {"learning_rate": loguniform(1e-2, 1.0), "max_depth": [1, 2, 3, 4, 5]}
        bounds = {"learning_rate": (1e-2, 1.0, "log"), "max_depth": (1, 5, "int")}
        resource, R = "n_estimators", GB_TREES
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25,
                                              random_state=split_seed, stratify=y)
    return dict(X_tr=X_tr, X_te=X_te, y_tr=y_tr, y_te=y_te, make=make, space=space,
                bounds=bounds, resource=resource, R=R)


def _row(method, search, t, task, n_fits, resource_units, n_cands, note=""):
    """``t`` is (wall time, CPU time of the process): one thread does the work
    (BLAS pinned, ``n_jobs=1``), so the CPU time is the search's cost whatever
    the machine's load; the wall time is what a user waits."""
    best = search.best_estimator_
    return dict(method=method, time=t[0], cpu=t[1], fits=n_fits, resource=resource_units,
                candidates=n_cands, cv=float(search.best_score_),
                test=float(best.score(task["X_te"], task["y_te"])), note=note)


def _fits_of(search):
    return len(search.cv_results_["params"]) * CV


def run_task(name, seed, quick, lines=None):
    """Every search of section 1 on one task; ``seed`` draws the 75/25 split and
    seeds every search (its candidates, folds' shuffles where any)."""
    from sklearn.experimental import enable_halving_search_cv  # noqa: F401
    from sklearn.model_selection import HalvingRandomSearchCV, RandomizedSearchCV

    from skml.model_selection import (
        BayesSearchCV,
        HyperbandSearchCV,
        Integer,
        Real,
        SuccessiveHalvingSearchCV,
        halving_schedule,
    )

    task = _task(name, seed)
    X, y, R, res, make = task["X_tr"], task["y_tr"], task["R"], task["resource"], task["make"]
    n_small = 16
    n_large = 32 if quick else 64
    total16 = halving_schedule(n_small, 2, max_resource=R)[2]
    n_equal = math.ceil(total16 / R)  # fully trained candidates at the same budget
    rows = []

    # Freeze what the imports left alive (~10^5 objects: a full collection
    # of them costs ~0.2 s, as much as a whole search) and collect before each
    # timed search, so no search pays for the others' garbage (as
    # benchmarks/runner.py does).
    gc.collect()
    gc.freeze()

    def timed(fn):
        gc.collect()
        t0, c0 = time.perf_counter(), time.process_time()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            out = fn()
        return out, (time.perf_counter() - t0, time.process_time() - c0)

    # Warm-up: numba loads (or compiles) the model's kernels on the first fit
    # of a process; no search below pays for it.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        warm = make().set_params(**{res: 2})
        warm.fit(X, y).predict(X)
        warm.set_params(warm_start=True, **{res: 3}).fit(X, y)

    # The 16-candidate schedule's first round (R/16 units) as the least first
    # round of the large one: a round of 1 epoch or 1 tree ranks the
    # candidates by their first step (chosen before any run, not tuned).
    r_min = halving_schedule(n_small, 2, max_resource=R)[1][0]
    for n, min_res in ((n_small, 1), (n_large, 1), (n_large, r_min)):
        s, t = timed(lambda n=n, m=min_res: SuccessiveHalvingSearchCV(
            make(), task["space"], n_candidates=n, resource=res, cv=CV, min_resource=m,
            random_state=seed).fit(X, y))
        label = f"{n} cand." + (f", min_resource={min_res}" if min_res > 1 else "")
        rows.append(_row(f"skml SuccessiveHalving ({label})", s, t, task, _fits_of(s),
                         s.resource_spent_, n,
                         f"rounds at {s.n_resources_} with {s.n_candidates_}; "
                         f"last round at {s.n_resources_[-1]}"))
    s, t = timed(lambda: HyperbandSearchCV(make(), task["space"], max_resource=R, eta=3,
                                           resource=res, cv=CV, random_state=seed).fit(X, y))
    rows.append(_row("skml Hyperband (eta 3)", s, t, task, _fits_of(s), s.resource_spent_,
                     sum(b[0][0] for b in s.brackets_),
                     f"{len(s.brackets_)} brackets, last rounds at {R}"))
    dims = {k: (Integer(lo, hi) if kind == "int" else Real(lo, hi, "log-uniform"))
            for k, (lo, hi, kind) in task["bounds"].items()}
    s, t = timed(lambda: BayesSearchCV(make(), dims, n_iter=n_equal + 2 if quick else 12,
                                       n_initial_points=4, cv=CV,
                                       random_state=seed).fit(X, y))
    n_b = len(s.cv_results_["params"])
    rows.append(_row("skml BayesSearchCV", s, t, task, _fits_of(s), n_b * R, n_b))
    s, t = timed(lambda: HalvingRandomSearchCV(make(), task["space"], cv=CV,
                                               random_state=seed).fit(X, y))
    rows.append(_row("sklearn HalvingRandomSearchCV (defaults)", s, t, task, _fits_of(s),
                     None, int(s.n_candidates_[0]),
                     f"rows per round {list(map(int, s.n_resources_))} of the "
                     f"{len(X)} passed (before the CV split)"))
    n_rounds = math.ceil(math.log2(n_small))
    s, t = timed(lambda: HalvingRandomSearchCV(
        make(), task["space"], n_candidates=n_small, factor=2, resource=res,
        max_resources=R, min_resources=max(1, R // 2 ** (n_rounds - 1)), cv=CV,
        random_state=seed).fit(X, y))
    spent = int(np.sum(np.asarray(s.n_candidates_) * np.asarray(s.n_resources_)))
    rows.append(_row(f"sklearn HalvingRandomSearchCV (resource={res!r})", s, t, task,
                     _fits_of(s), spent, n_small,
                     f"{res} per round {list(map(int, s.n_resources_))} (refits)"))
    s, t = timed(lambda: RandomizedSearchCV(make(), task["space"], n_iter=n_equal, cv=CV,
                                            random_state=seed).fit(X, y))
    rows.append(_row("sklearn RandomizedSearchCV", s, t, task, _fits_of(s), n_equal * R,
                     n_equal))
    rows.append(_optuna_task(task, n_equal, seed))
    if lines is not None:
        _task_table(lines, name, rows, n_equal, total16, R, res)
    return rows, (n_equal, total16, R, res)


class _OptunaResult:
    def __init__(self, best_score, best_estimator):
        self.best_score_, self.best_estimator_ = best_score, best_estimator


def _optuna_task(task, n_trials, seed):
    optuna = _peer("optuna")
    if optuna is None:
        return dict(method="optuna TPE", note=NOT_INSTALLED)
    from sklearn.base import clone
    from sklearn.model_selection import StratifiedKFold, cross_val_score

    optuna.logging.set_verbosity(optuna.logging.WARNING)
    X, y = task["X_tr"], task["y_tr"]
    cv = StratifiedKFold(CV)

    def params_of(trial):
        out = {}
        for k, (lo, hi, kind) in task["bounds"].items():
            out[k] = (trial.suggest_int(k, lo, hi) if kind == "int"
                      else trial.suggest_float(k, lo, hi, log=True))
        return out

    def objective(trial):
        est = clone(task["make"]()).set_params(**params_of(trial))
        return cross_val_score(est, X, y, cv=cv).mean()

    gc.collect()
    t0, c0 = time.perf_counter(), time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        study = optuna.create_study(direction="maximize",
                                    sampler=optuna.samplers.TPESampler(seed=seed))
        study.optimize(objective, n_trials=n_trials)
        best = clone(task["make"]()).set_params(**study.best_params).fit(X, y)
    t = (time.perf_counter() - t0, time.process_time() - c0)
    return _row("optuna TPE", _OptunaResult(study.best_value, best), t, task,
                n_trials * CV, n_trials * task["R"], n_trials)


def _task_table(lines, name, rows, n_equal, total16, R, res):
    label = {"mlp_digits": f"MLP (32,) on digits, {R} epochs",
             "gb_breast_cancer": f"GradientBoosting ({R} trees) on breast_cancer"}[name]
    lines += [f"### {label}", "",
              f"Budget of the 16-candidate halving: {total16} {res} units per split "
              f"= {total16 / R:.2f} full trainings, so RandomizedSearchCV and optuna "
              f"get {n_equal} fully trained candidates.", "",
              "| search | candidates | CV fits | resource per split | wall time | CPU time | "
              "cand./s (CPU) | best CV | held-out | note |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        if "time" not in r:
            lines.append(f"| {r['method']} | | | | | | | | | {r['note']} |")
            continue
        spent = "" if r["resource"] is None else str(r["resource"])
        lines.append(f"| {r['method']} | {r['candidates']} | {r['fits']} | {spent} | "
                     f"{r['time']:.2f} s | {r['cpu']:.2f} s | {_rate(r):.2f} | "
                     f"{r['cv']:.4f} | {r['test']:.4f} | {r['note']} |")
    lines.append("")


def _goal_lines(lines, name, rows):
    by = {r["method"]: r for r in rows if "time" in r}
    sh16 = next(r for m, r in by.items() if m.startswith("skml SuccessiveHalving (16"))
    rnd = by["sklearn RandomizedSearchCV"]
    hmax = next(r for m, r in by.items() if "resource=" in m and m.startswith("sklearn"))
    peers = [r for m, r in by.items() if not m.startswith("skml")]
    best_peer = max(peers, key=lambda r: r["test"])
    ours = "; ".join(
        f"{m[len('skml SuccessiveHalving ('):-1]}: held-out {r['test']:.4f}, cand./s "
        f"{_rate(r) / _rate(rnd):.2f}x RandomizedSearchCV's"
        for m, r in by.items() if m.startswith("skml SuccessiveHalving"))
    lines += [f"- **{name}**: {ours}; best peer {best_peer['test']:.4f} "
              f"({best_peer['method']}); CPU time vs HalvingRandomSearchCV on the same "
              f"resource and candidates {sh16['cpu'] / hmax['cpu']:.2f}x; last round at "
              f"the full resource ({sh16['note'].split('; ')[-1]})."]


def _ms(values, fmt):
    values = np.asarray(values, dtype=float)
    return f"{format(values.mean(), fmt)} ± {format(values.std(ddof=1) if len(values) > 1 else 0.0, fmt)}"


def _by_method(per_seed):
    """``{method: [row of seed 0, row of seed 1, ...]}``, in the rows' order."""
    out = {}
    for rows in per_seed:
        for r in rows:
            out.setdefault(r["method"], []).append(r)
    return out


def _rate(r, key="cpu"):
    return r["candidates"] / r[key]


def repeat_table(lines, name, per_seed, seeds):
    """Mean ± std over the seeds (split and candidate draws) of every search."""
    label = {"mlp_digits": f"MLP (32,) on digits, {MLP_EPOCHS} epochs",
             "gb_breast_cancer": f"GradientBoosting ({GB_TREES} trees) on breast_cancer"}
    by = _by_method(per_seed)
    rnd = by["sklearn RandomizedSearchCV"]
    lines += [f"### {label[name]}: {len(per_seed)} repeats (seeds {seeds})", "",
              "Each repeat draws its own stratified 75/25 split and seeds every search "
              "with the same seed; mean ± standard deviation over the repeats. "
              "\"cand./s vs random\" is the ratio of candidates per second to "
              "RandomizedSearchCV's in the same repeat, of CPU time (the work; one "
              "thread) and of wall time (what the loaded machine made of it).", "",
              "| search | candidates | wall time | CPU time | cand./s vs random (CPU) | "
              "(wall) | best CV | held-out |", "|---|---|---|---|---|---|---|---|"]
    for method, rs in by.items():
        if any("time" not in r for r in rs):
            lines.append(f"| {method} | | | | | | | {rs[0].get('note', '')} |")
            continue
        ratio = [_rate(r) / _rate(q) for r, q in zip(rs, rnd)]
        wall = [_rate(r, "time") / _rate(q, "time") for r, q in zip(rs, rnd)]
        cands = np.mean([r["candidates"] for r in rs])
        lines.append(f"| {method} | {cands:g} | {_ms([r['time'] for r in rs], '.2f')} s | "
                     f"{_ms([r['cpu'] for r in rs], '.2f')} s | {_ms(ratio, '.2f')}x | "
                     f"{_ms(wall, '.2f')}x | {_ms([r['cv'] for r in rs], '.4f')} | "
                     f"{_ms([r['test'] for r in rs], '.4f')} |")
    lines.append("")


def repeat_goal_lines(lines, name, per_seed):
    """The goals over the repeats: mean held-out against the best peer's mean,
    with the paired difference (same split and seed) and its standard error."""
    by = {m: rs for m, rs in _by_method(per_seed).items()
          if all("time" in r for r in rs)}
    rnd = by["sklearn RandomizedSearchCV"]
    peers = {m: rs for m, rs in by.items() if not m.startswith("skml")}
    best_m = max(peers, key=lambda m: np.mean([r["test"] for r in peers[m]]))
    best = peers[best_m]
    parts = []
    for m, rs in by.items():
        if not m.startswith("skml SuccessiveHalving"):
            continue
        diff = np.array([r["test"] - q["test"] for r, q in zip(rs, best)])
        se = diff.std(ddof=1) / np.sqrt(len(diff)) if len(diff) > 1 else 0.0
        ratio = [_rate(r) / _rate(q) for r, q in zip(rs, rnd)]
        parts.append(f"{m[len('skml SuccessiveHalving '):]}: held-out "
                     f"{_ms([r['test'] for r in rs], '.4f')}, paired difference to the "
                     f"best peer {diff.mean():+.4f} (s.e. {se:.4f}); cand./s vs "
                     f"RandomizedSearchCV {_ms(ratio, '.2f')}x (CPU)")
    lines.append(f"- **{name}** (best peer by mean held-out: {best_m}, "
                 f"{_ms([r['test'] for r in best], '.4f')}): " + "; ".join(parts) + ".")


def _repeat_rows(name, seed, quick, cache):
    """One repeat's rows, from ``cache`` (a directory of JSON files) when there."""
    import json

    path = None
    if cache is not None:
        path = Path(cache) / f"{name}_{seed}{'_quick' if quick else ''}.json"
        if path.exists():
            saved = json.loads(path.read_text())
            return saved["rows"], tuple(saved["info"])
    rows, info = run_task(name, seed, quick)
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"rows": rows, "info": list(info)}))
    return rows, info


def plot_tasks(all_rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(2, 2, figsize=(11, 8))
    for row_axes, (name, rows) in zip(axes, all_rows.items()):
        for ax, key, xlabel in ((row_axes[0], "fits", "model fits (CV splits)"),
                                (row_axes[1], "time", "wall time (s)")):
            for i, r in enumerate(r for r in rows if "time" in r):
                ax.scatter(r[key], r["test"], marker="os^vD<>P*"[i % 9], s=60,
                           label=r["method"])
            ax.set_xscale("log")
            ax.set_xlabel(xlabel)
            ax.set_ylabel("held-out accuracy of the best")
            ax.set_title(name)
    handles, labels = axes[0][0].get_legend_handles_labels()
    fig.legend(handles, labels, loc="lower center", ncol=3, fontsize=8)
    fig.tight_layout(rect=(0, 0.1, 1, 1))
    fig.savefig(path, dpi=90)
    plt.close(fig)


# --- section 2: regret on test functions -----------------------------------------
def branin(x):
    x1, x2 = x
    b, c = 5.1 / (4 * np.pi**2), 5 / np.pi
    return ((x2 - b * x1**2 + c * x1 - 6) ** 2
            + 10 * (1 - 1 / (8 * np.pi)) * np.cos(x1) + 10)


_H_A = np.array([[10, 3, 17, 3.5, 1.7, 8], [0.05, 10, 17, 0.1, 8, 14],
                 [3, 3.5, 1.7, 10, 17, 8], [17, 8, 0.05, 10, 0.1, 14]])
_H_P = 1e-4 * np.array([[1312, 1696, 5569, 124, 8283, 5886],
                        [2329, 4135, 8307, 3736, 1004, 9991],
                        [2348, 1451, 3522, 2883, 3047, 6650],
                        [4047, 8828, 8732, 5743, 1091, 381]])
_H_ALPHA = np.array([1.0, 1.2, 3.0, 3.2])


def hartmann6(x):
    x = np.asarray(x, dtype=float)
    return float(-_H_ALPHA @ np.exp(-np.sum(_H_A * (x - _H_P) ** 2, axis=1)))


FUNCTIONS = {
    "Branin": (branin, [(-5.0, 10.0), (0.0, 15.0)], 0.397887357729739),
    "Hartmann-6": (hartmann6, [(0.0, 1.0)] * 6, -3.32236801141551),
}


def _skml_bo(f, bounds, n_calls, seed):
    from sklearn.utils import check_random_state

    from skml.model_selection import BayesSearchCV, Real
    from skml.model_selection._space import Space

    names = [f"x{i}" for i in range(len(bounds))]
    spaces = {n: Real(lo, hi) for n, (lo, hi) in zip(names, bounds)}
    values, f_time = [], [0.0]

    def evaluate(candidates):
        for params in candidates:
            t0 = time.process_time()
            values.append(f([params[n] for n in names]))
            f_time[0] += time.process_time() - t0
        return -np.asarray(values)

    search = BayesSearchCV(None, spaces, n_iter=n_calls, random_state=seed)
    t0 = time.process_time()
    search._optimise(Space(spaces), evaluate, check_random_state(seed))
    return np.asarray(values), time.process_time() - t0 - f_time[0]


def _random(f, bounds, n_calls, seed):
    rng = np.random.default_rng(seed)
    lo, hi = np.array(bounds).T
    t0 = time.process_time()
    X = lo + (hi - lo) * rng.random((n_calls, len(bounds)))
    vals = np.array([f(x) for x in X])
    return vals, 0.0 * (time.process_time() - t0)


def _optuna_fn(f, bounds, n_calls, seed):
    optuna = _peer("optuna")
    if optuna is None:
        return None
    optuna.logging.set_verbosity(optuna.logging.WARNING)
    values, f_time = [], [0.0]

    def objective(trial):
        x = [trial.suggest_float(f"x{i}", lo, hi) for i, (lo, hi) in enumerate(bounds)]
        t0 = time.process_time()
        v = f(x)
        f_time[0] += time.process_time() - t0
        values.append(v)
        return v

    t0 = time.process_time()
    study = optuna.create_study(sampler=optuna.samplers.TPESampler(seed=seed))
    study.optimize(objective, n_trials=n_calls)
    return np.asarray(values), time.process_time() - t0 - f_time[0]


def _skopt_fn(f, bounds, n_calls, seed):
    skopt = _peer("skopt")
    if skopt is None:
        return None
    values, f_time = [], [0.0]

    def objective(x):
        t0 = time.process_time()
        v = float(f(x))
        f_time[0] += time.process_time() - t0
        values.append(v)
        return v

    t0 = time.process_time()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        skopt.gp_minimize(objective, bounds, n_calls=n_calls, random_state=seed)
    return np.asarray(values), time.process_time() - t0 - f_time[0]


OPTIMISERS = {
    "skml BayesSearchCV (GP-EI)": _skml_bo,
    "random search": _random,
    "optuna TPE": _optuna_fn,
    "skopt gp_minimize (gp_hedge)": _skopt_fn,
}


NOT_RUN = "not run (--cached-only and no cached runs)"


def _runs(fname, oname, n_calls, seeds, cache, cached_only=False):
    """Regret curves and overheads of one optimiser, from ``cache`` when there."""
    import json

    f, bounds, f_opt = FUNCTIONS[fname]
    path = None
    if cache is not None:
        tag = "_".join(oname.split()[:2])
        path = Path(cache) / f"{fname}_{tag}_{n_calls}_{seeds}.json"
        if path.exists():
            saved = json.loads(path.read_text())
            return [np.asarray(r) for r in saved["regrets"]], saved["overheads"]
    if cached_only:
        return None, None
    regrets, overheads = [], []
    for seed in range(seeds):
        out = OPTIMISERS[oname](f, bounds, n_calls, seed)
        if out is None:
            break
        vals, overhead = out
        regrets.append(np.minimum.accumulate(vals) - f_opt)
        overheads.append(overhead)
    if path is not None and regrets:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(json.dumps({"regrets": [r.tolist() for r in regrets],
                                    "overheads": overheads}))
    return regrets, overheads


def run_regret(lines, n_calls, seeds, functions=None, cache=None, cached_only=False):
    curves, table = {}, []
    for fname in functions or FUNCTIONS:
        for oname in OPTIMISERS:
            regrets, overheads = _runs(fname, oname, n_calls, seeds, cache, cached_only)
            if regrets is None:
                table.append((fname, oname, NOT_RUN, None, None, None))
                continue
            if not regrets:
                table.append((fname, oname, None, None, None, None))
                continue
            regrets = np.array(regrets)
            curves[(fname, oname)] = np.median(regrets, axis=0)
            table.append((fname, oname, float(np.median(regrets[:, -1])),
                          float(np.quantile(regrets[:, -1], 0.25)),
                          float(np.quantile(regrets[:, -1], 0.75)),
                          float(np.median(overheads))))
            print(f"  {fname} {oname}: regret {table[-1][2]:.3g}, overhead "
                  f"{table[-1][5]:.2f} s", flush=True)
    lines += [f"Median (quartiles) over {seeds} seeds of the simple regret "
              f"(best value found minus the optimum) after {n_calls} evaluations; "
              "optimiser overhead per run (median; CPU time of the process minus "
              "the function's, so the machine's load does not inflate it).", "",
              "| function | optimiser | median regret | quartiles | overhead per run |",
              "|---|---|---|---|---|"]
    for fname, oname, med, q1, q3, over in table:
        if med is None or isinstance(med, str):
            lines.append(f"| {fname} | {oname} | {med or NOT_INSTALLED} | | |")
        else:
            lines.append(f"| {fname} | {oname} | {med:.3g} | {q1:.3g} - {q3:.3g} | "
                         f"{over:.2f} s |")
    lines.append("")
    return curves, table


def plot_regret(curves, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(FUNCTIONS), figsize=(11, 4))
    for ax, fname in zip(axes, FUNCTIONS):  # a function not run leaves its axes empty
        for (fn, oname), curve in curves.items():
            if fn == fname:
                ax.plot(np.arange(1, len(curve) + 1), np.maximum(curve, 1e-8), label=oname)
        ax.set_yscale("log")
        ax.set_xlabel("evaluations")
        ax.set_ylabel("median simple regret")
        ax.set_title(fname)
        ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


# --- section 3: schedules --------------------------------------------------------
def schedule_lines(lines):
    from skml.model_selection import halving_schedule, hyperband_brackets

    sizes, resources, total = halving_schedule(16, 2, max_resource=MLP_EPOCHS)
    lines += ["`halving_schedule(16, factor=2, max_resource=60)` (continued training): "
              f"candidates {sizes}, cumulative epochs {resources}, {total} epochs per split "
              "in all.", "",
              "`hyperband_brackets(60, eta=3)`: " + "; ".join(
                  f"{s} at {r}" for s, r in hyperband_brackets(MLP_EPOCHS, 3)), ""]


def plot_schedule(path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from skml.model_selection import halving_schedule, hyperband_brackets

    fig, axes = plt.subplots(1, 2, figsize=(11, 4))
    sizes, resources, _ = halving_schedule(16, 2, max_resource=MLP_EPOCHS)
    ax = axes[0]
    prev = 0
    for r, (n, stop) in enumerate(zip(sizes, resources)):
        ax.bar(np.arange(n), stop - prev, bottom=prev, width=0.8,
               label=f"round {r}: {n} cand. +{stop - prev} to {stop}")
        prev = stop
    # scikit-learn's HalvingRandomSearchCV (factor 2, same ends) refits each
    # round from scratch at 7, 14, 28, 56 epochs: what each candidate costs.
    sk_sizes, sk_res = [16, 8, 4, 2], [7, 14, 28, 56]
    cost = [sum(r for n, r in zip(sk_sizes, sk_res) if i < n) for i in range(16)]
    ax.step(np.arange(17) - 0.5, [cost[0], *cost], "k--", where="pre",
            label="HalvingRandomSearchCV: epochs trained (refits)")
    ax.set_xlabel("candidate (sorted by the round it reached)")
    ax.set_ylabel("epochs trained (cumulative)")
    ax.set_title("SuccessiveHalvingSearchCV(16 candidates, factor 2, 60 epochs)")
    ax.legend(fontsize=8)
    ax = axes[1]
    for b, (sizes, resources) in enumerate(hyperband_brackets(81, 3)):
        ax.plot(range(len(sizes)), resources, "o-", label=f"bracket {b}: {sizes} candidates")
    ax.set_yscale("log")
    ax.set_xlabel("round")
    ax.set_ylabel("resource per candidate")
    ax.set_title("Hyperband brackets, max_resource=81, eta=3")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=90)
    plt.close(fig)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--seeds", type=int, default=None)
    parser.add_argument("--repeats", type=int, default=None,
                        help="section 1: repeats over seeds 0..N-1 (split and candidate "
                             "draws); default 5, 3 with --quick")
    parser.add_argument("--tasks", default="mlp_digits,gb_breast_cancer",
                        help="section 1: comma-separated subset of the tasks")
    parser.add_argument("--repeats-cache", default=None,
                        help="directory keeping section 1's repeats (JSON, one per task "
                             "and seed), reused when there")
    parser.add_argument("--sections", default="1,2,3")
    parser.add_argument("--out", default=str(RESULTS / "search_peers.md"))
    parser.add_argument("--functions", default=None,
                        help="comma-separated subset of Branin,Hartmann-6 (section 2)")
    parser.add_argument("--regret-cache", default=None,
                        help="directory keeping section 2's runs (JSON), reused when there; "
                             "lets the functions run in separate processes")
    parser.add_argument("--cached-only", action="store_true",
                        help="section 2 from --regret-cache only; runs not there are "
                             "reported as not run")
    args = parser.parse_args(argv)
    sections = {int(s) for s in args.sections.split(",")}
    seeds = args.seeds or (3 if args.quick else 7)
    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    stem = out.with_suffix("")
    import sklearn

    import skml

    t_start = time.perf_counter()
    lines = ["# skml.model_selection against scikit-learn, optuna and scikit-optimize", "",
             f"python {platform.python_version()}, numpy {np.__version__}, "
             f"scikit-learn {sklearn.__version__}, skml {skml.__version__}, optuna "
             f"{_version(_peer('optuna'))}, scikit-optimize {_version(_peer('skopt'))}; "
             f"{platform.machine()}, BLAS threads 1, n_jobs=1. Times are wall and CPU times "
             "on a shared machine; every ratio compares runs of this one invocation, made "
             "one after the other.", ""]
    if 1 in sections:
        lines += ["## 1. Real tasks: best held-out score against fits and wall time", ""]
        repeats = args.repeats or (3 if args.quick else 5)
        all_rows, all_repeats, infos = {}, {}, {}
        for name in args.tasks.split(","):
            per_seed = []
            for seed in range(repeats):
                print(f"section 1: {name} seed {seed}", flush=True)
                rows, info = _repeat_rows(name, seed, args.quick, args.repeats_cache)
                per_seed.append(rows)
            all_repeats[name] = per_seed
            all_rows[name], infos[name] = per_seed[0], info
            repeat_table(lines, name, per_seed, f"0-{repeats - 1}")
        lines += [f"Issue 15's goals over the {repeats} repeats:", ""]
        for name, per_seed in all_repeats.items():
            repeat_goal_lines(lines, name, per_seed)
        lines += ["", "The single run of seed 0 (the split and draws of the earlier "
                  "reports):", ""]
        for name, rows in all_rows.items():
            _task_table(lines, name, rows, *infos[name])
        lines += ["Issue 15's goals on the run of seed 0:", ""]
        for name, rows in all_rows.items():
            _goal_lines(lines, name, rows)
        lines.append("")
        plot_tasks(all_rows, f"{stem}_tasks.png")
        lines += [f"![tasks]({Path(f'{stem}_tasks.png').name})", ""]
    if 2 in sections:
        print("section 2: regret", flush=True)
        lines += ["## 2. Regret on Branin and Hartmann-6", ""]
        curves, _ = run_regret(lines, 50, seeds, args.functions and args.functions.split(","),
                               args.regret_cache, args.cached_only)
        plot_regret(curves, f"{stem}_regret.png")
        lines += [f"![regret]({Path(f'{stem}_regret.png').name})", ""]
    if 3 in sections:
        lines += ["## 3. Schedules", ""]
        schedule_lines(lines)
        plot_schedule(f"{stem}_schedule.png")
        lines += [f"![schedule]({Path(f'{stem}_schedule.png').name})", ""]
    lines += [f"Total run time {time.perf_counter() - t_start:.0f} s.", ""]
    out.write_text("\n".join(lines))
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
