"""ProxylessNAS against a grid search over the same architectures, equal compute.

Run ``python -m benchmarks.nas [--out PATH] [--seeds N]``. On digits (75% to
search and train, 25% held out), the search space is two residual blocks,
each one of seven operations (widths 32/64/128 x ReLU/tanh, or skip), so 49
architectures. Three ways to pick one, BLAS on one thread:

- **ProxylessNAS**: :class:`skml.neural_network.ProxylessNASClassifier`
  searches, then trains the found network (``max_iter`` epochs);
- **grid at equal time**: architectures in random order, each trained
  ``max_iter`` epochs on 80% of the training part and scored on the other
  20%, until ProxylessNAS's wall time is spent; the best is retrained on the
  whole training part;
- **full grid**: all 49 the same way (its time as a multiple of the search's).

Each row reports held-out accuracy and wall time; medians over seeds. Writes
``benchmarks/results/nas.md``.
"""

import argparse
import statistics
import warnings
from pathlib import Path
from time import perf_counter

import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split
from threadpoolctl import threadpool_limits

from skml.neural_network import ProxylessNASClassifier

PARAMS = dict(n_blocks=2, block_width=64, widths=(32, 64, 128),
              activations=("relu", "tanh"), search_epochs=20, warmup_epochs=5,
              max_iter=60, learning_rate_init=3e-3)


def _fit_fixed(arch, X, y, seed):
    return ProxylessNASClassifier(**PARAMS, architecture=arch,
                                  random_state=seed).fit(X, y)


def _grid(candidates, X, y, X_test, y_test, seed, budget):
    """Random-order grid until ``budget`` seconds (None: all); best refit."""
    rng = np.random.RandomState(seed)
    archs = [[a, b] for a in range(len(candidates)) for b in range(len(candidates))]
    order = rng.permutation(len(archs))
    X_tr, X_val, y_tr, y_val = train_test_split(X, y, test_size=0.2,
                                                random_state=seed, stratify=y)
    start = perf_counter()
    best, best_score, n_tried = None, -np.inf, 0
    for i in order:
        if budget is not None and perf_counter() - start > budget and n_tried:
            break
        score = _fit_fixed(archs[i], X_tr, y_tr, seed).score(X_val, y_val)
        n_tried += 1
        if score > best_score:
            best, best_score = archs[i], score
    final = _fit_fixed(best, X, y, seed)
    return final.score(X_test, y_test), perf_counter() - start, n_tried, best


def run(seeds):
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    rows = {"nas": [], "equal": [], "full": []}
    for seed in range(seeds):
        X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=seed,
                                                  stratify=y)
        start = perf_counter()
        nas = ProxylessNASClassifier(**PARAMS, random_state=seed).fit(X_tr, y_tr)
        t_nas = perf_counter() - start
        found = [nas.candidates_.index(a) for a in nas.best_architecture_]
        rows["nas"].append((nas.score(X_te, y_te), t_nas, 1, found))
        rows["equal"].append(_grid(nas.candidates_, X_tr, y_tr, X_te, y_te, seed,
                                   budget=t_nas))
        rows["full"].append(_grid(nas.candidates_, X_tr, y_tr, X_te, y_te, seed,
                                  budget=None))
        print(seed, {k: v[-1][:3] for k, v in rows.items()}, flush=True)
    return nas.candidates_, rows


def _table(candidates, rows):
    t_nas = statistics.median(r[1] for r in rows["nas"])
    names = {"nas": "ProxylessNAS (search + train)",
             "equal": "grid, random order, ProxylessNAS's time",
             "full": "grid, all 49 architectures"}
    lines = ["| method | held-out accuracy (median) | min-max | wall time (s) | "
             "time / ProxylessNAS | architectures trained |",
             "|---|---|---|---|---|---|"]
    for key, name in names.items():
        acc = [r[0] for r in rows[key]]
        t = statistics.median(r[1] for r in rows[key])
        n = statistics.median(r[2] for r in rows[key])
        lines.append(f"| {name} | {statistics.median(acc):.4f} | "
                     f"{min(acc):.4f}-{max(acc):.4f} | {t:.1f} | {t / t_nas:.2f}x | "
                     f"{n:g} |")
    found = [" + ".join(_describe(candidates[i]) for i in r[3]) for r in rows["nas"]]
    full = [" + ".join(_describe(candidates[i]) for i in r[3]) for r in rows["full"]]
    lines += ["", "Architectures found per seed (ProxylessNAS / full grid's best):", ""]
    lines += [f"- seed {s}: {a} / {b}" for s, (a, b) in enumerate(zip(found, full))]
    return "\n".join(lines)


def _describe(c):
    return "skip" if c.get("op") == "zero" else f"{c['width']} {c['activation']}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).parent / "results" / "nas.md"))
    parser.add_argument("--seeds", type=int, default=3)
    args = parser.parse_args(argv)
    warnings.simplefilter("ignore", ConvergenceWarning)
    with threadpool_limits(1):
        candidates, rows = run(args.seeds)
    text = ("# ProxylessNAS against a grid search over the same space\n\n"
            + __doc__.split("\n\n", 1)[1].split("Writes")[0].strip() + "\n\n"
            + _table(candidates, rows) + "\n")
    Path(args.out).write_text(text)
    print(text)


if __name__ == "__main__":
    main()
