"""Recall@10 against query time: skml's LSH index versus exact brute force.

Run ``python -m benchmarks.lsh_recall [--out PATH] [--n-queries N]``. On the
``mixture_67k_32`` dataset (50k training points in 32 dimensions, a mixture
of 200 flat Gaussian clusters; see ``benchmarks/datasets.py``) it times
scikit-learn's ``NearestNeighbors(algorithm="brute")`` and a sweep of
:class:`skml.neighbors.LSHNearestNeighbors` settings (and pynndescent's
graph search with ``--pynndescent``, if installed; it is not a dependency), with BLAS
pinned to one thread, medians of ``--repeats`` runs after a warm-up. It
prints a table and writes the plot (``benchmarks/results/lsh_recall.png``
by default).
"""

import argparse
import statistics
from pathlib import Path
from time import perf_counter

import numpy as np
from sklearn.neighbors import NearestNeighbors
from threadpoolctl import threadpool_limits

from benchmarks.datasets import load
from skml.neighbors import LSHNearestNeighbors

K = 10
# (n_tables, n_hashes, bucket_width, multi_probe): the bucket width is about
# four times the typical 10th-neighbour distance (3.2 here), where one hash
# collides with probability ~0.8 (notes A §5.6).
SETTINGS = [
    (4, 8, 10.0, 0), (8, 8, 10.0, 0), (12, 8, 12.0, 0), (16, 8, 12.0, 0),
    (20, 8, 12.0, 0), (4, 10, 10.0, 8), (8, 10, 10.0, 8), (8, 10, 10.0, 16),
    (12, 10, 10.0, 16),
]


def _timed(func, repeats):
    func()  # warm-up: numba compiles, caches fill
    times, out = [], None
    for _ in range(repeats):
        start = perf_counter()
        out = func()
        times.append(perf_counter() - start)
    return statistics.median(times), out


def _recall(exact, approx):
    return float(np.mean((exact[:, :, None] == approx[:, None, :]).any(axis=2)))


def run(n_queries=5000, repeats=3, settings=SETTINGS, pynndescent=False):
    X, Xq, _, _ = load("mixture_67k_32")
    Xq = Xq[:n_queries]
    rows = []
    with threadpool_limits(limits=1):
        brute = NearestNeighbors(n_neighbors=K, algorithm="brute").fit(X)
        t_brute, exact = _timed(lambda: brute.kneighbors(Xq, return_distance=False),
                                repeats)
        rows.append(("sklearn brute", 1.0, t_brute, X.shape[0], 0.0))
        for L, k, w, T in settings:
            lsh = LSHNearestNeighbors(n_neighbors=K, n_tables=L, n_hashes=k,
                                      bucket_width=w, multi_probe=T, random_state=0)
            start = perf_counter()
            lsh.fit(X)
            fit_s = perf_counter() - start
            t, ind = _timed(lambda: lsh.kneighbors(Xq, return_distance=False), repeats)
            cand = float(lsh.candidate_counts(Xq[:1000]).mean())
            rows.append((f"LSH L={L} k={k} w={w:g} T={T}", _recall(exact, ind), t, cand,
                         fit_s))
        if pynndescent:
            from pynndescent import NNDescent

            start = perf_counter()
            index = NNDescent(X, n_neighbors=30, random_state=0)
            index.prepare()
            fit_s = perf_counter() - start
            for eps in (0.0, 0.1, 0.2):
                t, (ind, _) = _timed(lambda: index.query(Xq, k=K, epsilon=eps), repeats)
                rows.append((f"pynndescent eps={eps}", _recall(exact, ind), t, np.nan,
                             fit_s))
    return rows, Xq.shape[0], X.shape


def plot(rows, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    brute_t = rows[0][2]
    ax.axhline(brute_t, color="k", ls="--", label="sklearn brute force (recall 1)")
    for marker, prefix, label in (("o", "LSH", "skml LSHNearestNeighbors"),
                                  ("s", "pynndescent", "pynndescent")):
        sel = [r for r in rows if r[0].startswith(prefix)]
        if sel:
            ax.scatter([r[1] for r in sel], [r[2] for r in sel], marker=marker,
                       label=label)
            for r in sel:
                ax.annotate(r[0].split(" ", 1)[1], (r[1], r[2]), fontsize=6,
                            xytext=(3, 3), textcoords="offset points")
    ax.axvline(0.9, color="grey", lw=0.8)
    ax.set_xlabel("recall@10 against exact neighbours")
    ax.set_ylabel("query time (s, 1 thread)")
    ax.set_yscale("log")
    ax.set_title("50k x 32 Gaussian-mixture data")
    ax.legend(fontsize=8)
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path,
                        default=Path(__file__).parent / "results" / "lsh_recall.png")
    parser.add_argument("--n-queries", type=int, default=5000)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--pynndescent", action="store_true",
                        help="also time pynndescent (if installed; its first "
                             "build compiles for minutes)")
    args = parser.parse_args(argv)
    rows, n_q, shape = run(args.n_queries, args.repeats, pynndescent=args.pynndescent)
    print(f"{shape[0]} x {shape[1]} training points, {n_q} queries, k={K}, 1 thread")
    print(f"{'method':34s} {'recall@10':>9s} {'query s':>8s} {'vs brute':>8s} "
          f"{'cand/query':>10s} {'fit s':>6s}")
    for name, rec, t, cand, fit_s in rows:
        print(f"{name:34s} {rec:9.3f} {t:8.3f} {t / rows[0][2]:8.2f} {cand:10.0f} "
              f"{fit_s:6.2f}")
    plot(rows, args.out)
    print(f"plot: {args.out}")


if __name__ == "__main__":
    main()
