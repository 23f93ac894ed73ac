"""KMeans on float32 data against scikit-learn (issue 12), same process, alternating.

Run ``python -m benchmarks.kmeans_float32 [--reps 7] [--out PATH]``.

The issue's case: 100k x 20 (``make_classification`` as the benchmark
datasets, all 100k rows), ``k = 10``, 25 iterations (``max_iter=25``,
``tol=0``, so both sides run exactly 25 assignment steps and the final
relabelling), the same given initial centres (``benchmarks.cases.cluster.
fixed_centres``), ``n_init=1``; ``algorithm`` "lloyd" and "elkan" on both
sides, float32 (and float64 for reference), plus a ``max_iter=1`` lloyd
float32 row: the fixed cost of a fit (validation, copy, centring, inertia)
next to two passes, and the default fit of each (``KMeans(n_clusters=10,
random_state=0)``: k-means++ seeding, ``tol=1e-4``; skml's default
algorithm "hamerly" against scikit-learn's "lloyd"). Each thread setting runs in a
fresh subprocess with ``OMP_NUM_THREADS``, ``OPENBLAS_NUM_THREADS`` and
``NUMBA_NUM_THREADS`` set and threadpoolctl limits on both libraries:

- 1 thread: CPU time (``time.process_time``), robust to the load of a
  shared machine;
- 2 threads: wall time (``time.perf_counter``).

After one warm-up fit each (numba compiles on the first call), skml and
scikit-learn fits alternate ``--reps`` times; the table gives the best of
each and their ratio, the two inertias and their relative difference, and
the fraction of equal labels. Output: a table on the terminal and
``benchmarks/results/kmeans_float32.md``, where only the part between the
two ``TABLE_MARKERS`` is rewritten: the notes around it (the analysis of
each round) are kept.
"""

import argparse
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

RESULTS = Path(__file__).resolve().parent / "results"
# (algorithm, dtype, iterations); the 1-iteration row shows the fixed cost of
# a fit (validation, copy, centring, init, inertia) next to two passes;
# "default" is each library's default fit (iterations until it converges).
CONFIGS = [("lloyd", "float32", 25), ("elkan", "float32", 25), ("lloyd", "float64", 25),
           ("elkan", "float64", 25), ("lloyd", "float32", 1),
           ("default", "float32", None), ("default", "float64", None)]
# The generated table sits between these lines of the results file; the rest
# of the file (hand-written notes) is left as it is.
TABLE_MARKERS = ("<!-- table: written by benchmarks/kmeans_float32.py -->",
                 "<!-- end of table -->")
N_SAMPLES, N_FEATURES, N_CLUSTERS, N_ITER = 100_000, 20, 10, 25


def _data(dtype):
    import numpy as np
    from sklearn.datasets import make_classification

    from benchmarks.cases.cluster import fixed_centres

    X, _ = make_classification(
        n_samples=N_SAMPLES, n_features=N_FEATURES, n_informative=N_FEATURES // 2,
        n_redundant=N_FEATURES // 4, flip_y=0.05, class_sep=1.0, random_state=0,
    )
    init = np.asarray(fixed_centres(N_CLUSTERS, f"x_{N_FEATURES}"))
    return X.astype(dtype), init.astype(dtype)


def child(threads, reps):
    """Time every configuration; print one JSON line per row."""
    import numpy as np
    from sklearn.cluster import KMeans as Reference
    from threadpoolctl import threadpool_limits

    from skml.cluster import KMeans

    clock = time.process_time if threads == 1 else time.perf_counter
    for algorithm, dtype, n_iter in CONFIGS:
        X, init = _data(dtype)
        if algorithm == "default":
            params = dict(n_clusters=N_CLUSTERS, random_state=0)
        else:
            params = dict(n_clusters=N_CLUSTERS, init=init, n_init=1, max_iter=n_iter,
                          tol=0.0, algorithm=algorithm)

        def fit(cls):
            est = cls(**params)
            start = clock()
            est.fit(X)
            return clock() - start, est

        with threadpool_limits(threads):
            fit(KMeans), fit(Reference)  # warm-up (numba compiles)
            ours, ref = [], []
            for _ in range(reps):
                t, est = fit(KMeans)
                ours.append(t)
                t, ref_est = fit(Reference)
                ref.append(t)
        print(json.dumps({
            "threads": threads, "algorithm": algorithm, "dtype": dtype,
            "iterations": n_iter,
            "skml": min(ours), "sklearn": min(ref),
            "ratio": min(ours) / min(ref),
            "inertia_skml": float(est.inertia_),
            "inertia_sklearn": float(ref_est.inertia_),
            "same_labels": float(np.mean(est.labels_ == ref_est.labels_)),
            "n_iter": [int(est.n_iter_), int(ref_est.n_iter_)],
            "centres_dtype": str(est.cluster_centers_.dtype),
        }), flush=True)


def run(threads, reps):
    env = dict(os.environ)
    for name in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                 "NUMBA_NUM_THREADS"):
        env[name] = str(threads)
    out = subprocess.run(
        [sys.executable, "-m", "benchmarks.kmeans_float32", "--child", str(threads),
         "--reps", str(reps)],
        env=env, capture_output=True, text=True, check=True,
        cwd=Path(__file__).resolve().parent.parent,
    )
    return [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]


def report(rows, reps, load_start=None):
    """The generated part of the results file (between ``TABLE_MARKERS``)."""
    load = f"{os.getloadavg()[0]:.0f} at the end of the run"
    if load_start is not None:
        load = f"{load_start:.0f} at the start and {load}"
    lines = [
        f"{N_SAMPLES // 1000}k x {N_FEATURES}, k = {N_CLUSTERS}, {N_ITER} iterations "
        "(`max_iter=25, tol=0`; the 1-iteration row: `max_iter=1`, the fixed cost "
        "of a fit plus two passes), the same given initial centres, `n_init=1`; "
        "the default rows: `KMeans(n_clusters=10, random_state=0)` on each side "
        "(k-means++, `tol=1e-4`; skml 'hamerly', scikit-learn 'lloyd'), "
        "`n_iter` skml/scikit-learn in the last column; "
        f"skml and scikit-learn alternating in one process, best of {reps} after a "
        "warm-up. 1 thread: CPU seconds (`process_time`); 2 threads: wall seconds. "
        "Threads pinned through the environment and threadpoolctl (both sides). "
        f"Machine: {platform.machine()}, {os.cpu_count()} CPUs, shared (1-minute "
        f"load {load}), so the ratios of "
        "one run are the figure to read, not the absolute times. With 2 threads "
        "scikit-learn's OpenMP loop suffers most from the other load.",
        "",
        "| threads | algorithm | dtype | iterations | skml s | sklearn s | ratio | "
        "inertia skml | inertia sklearn | rel. diff | same labels | centres | n_iter |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        rel = abs(r["inertia_skml"] - r["inertia_sklearn"]) / r["inertia_sklearn"]
        lines.append(
            f"| {r['threads']} | {r['algorithm']} | {r['dtype']} | "
            f"{r['iterations'] or 'default'} | {r['skml']:.4f} | "
            f"{r['sklearn']:.4f} | {r['ratio']:.2f} | {r['inertia_skml']:.7g} | "
            f"{r['inertia_sklearn']:.7g} | {rel:.1e} | {r['same_labels']:.4f} | "
            f"{r['centres_dtype']} | {r['n_iter'][0]}/{r['n_iter'][1]} |"
        )
    return "\n".join(lines) + "\n"


def write_results(path, table):
    """Put ``table`` between the markers of ``path``, keeping everything else.

    A file without the markers (or no file) gets a title and the table, with
    the old text, if any, kept below it.
    """
    start, end = TABLE_MARKERS
    block = f"{start}\n{table}{end}\n"
    path = Path(path)
    old = path.read_text() if path.exists() else ""
    if start in old and end in old:
        head, rest = old.split(start, 1)
        tail = rest.split(end, 1)[1].lstrip("\n")
        text = head + block + ("\n" + tail if tail else "")
    else:
        title = "# KMeans float32 against scikit-learn (issue 12)\n\n"
        kept = old[len(title):] if old.startswith(title) else old
        text = title + block + ("\n" + kept if kept else "")
    path.write_text(text)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=7)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--out", default=str(RESULTS / "kmeans_float32.md"))
    parser.add_argument("--child", type=int, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child is not None:
        child(args.child, args.reps)
        return
    load_start = os.getloadavg()[0]
    rows = []
    for threads in (int(t) for t in args.threads.split(",")):
        rows.extend(run(threads, args.reps))
    text = report(rows, args.reps, load_start)
    print(text)
    write_results(args.out, text)


if __name__ == "__main__":
    main()
