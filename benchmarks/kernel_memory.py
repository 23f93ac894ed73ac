"""Memory, time and accuracy of KernelKMeans and SpectralClustering at large n.

Run ``python -m benchmarks.kernel_memory [--sizes 60000,100000] [--out PATH]``.
Every fit runs in a fresh subprocess (BLAS, OpenMP and numba pinned to one
thread) so that its peak resident memory (``ru_maxrss``) is its own. A fit
is preceded, in that subprocess, by a tiny warm-up fit (numba compiles on the
first call) and by the data, so three figures describe it:

- ``peak RSS``: the process's high-water mark (imports, data, fit);
- ``fit RSS``: that mark minus the resident size just before the fit, the
  memory the fit itself added (BLAS and numba buffers included);
- ``traced``: the peak of ``tracemalloc`` during the fit (numpy's buffers).

Two parts:

1. **Accuracy at 10k** (``--accuracy-n``), where the exact methods still
   fit in memory: adjusted Rand index of each large-n method (row blocks,
   Nyström with 100 to 1000 landmarks, over three seeds) against the exact
   method's partition from the same seed, and against the true labels.
2. **Scaling to 60k and 100k**: the exact method's refusal (with the time
   it takes to refuse), the row-block method and the Nyström default, with
   time and memory.

Datasets (``_data``): ``blobs`` is 8 overlapping Gaussian blobs in 20-d
(cluster_std 6, standardised; ``k = 8``); ``circles`` is two concentric
circles (factor 0.3, noise 0.05) padded with 18 noise features of standard
deviation 0.05 (``k = 2``; kernel methods separate them, k-means cannot).
The report goes to ``benchmarks/results/kernel_memory.md``.
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
GAMMA = {"blobs": 0.025, "circles": 10.0}  # blobs: 1 / median squared distance
N_CLUSTERS = {"blobs": 8, "circles": 2}
_ENV_THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMBA_NUM_THREADS")


def _data(name, n, seed=0):
    import numpy as np
    from sklearn.datasets import make_blobs, make_circles
    from sklearn.preprocessing import StandardScaler

    if name == "blobs":
        X, y = make_blobs(n, n_features=20, centers=8, cluster_std=6.0,
                          random_state=seed)
        return StandardScaler().fit_transform(X), y
    X, y = make_circles(n, factor=0.3, noise=0.05, random_state=seed)
    noise = np.random.RandomState(seed).normal(scale=0.05, size=(n, 18))
    return np.hstack([X, noise]), y


def _estimator(config):
    from skml.cluster import KernelKMeans, SpectralClustering

    params = dict(config["params"])
    k = N_CLUSTERS[config["data"]]
    gamma = GAMMA[config["data"]]
    if config["estimator"] == "KernelKMeans":
        return KernelKMeans(k, gamma=gamma, **params)
    return SpectralClustering(k, gamma=gamma, **params)


def _rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def child(config):
    """Run one fit; print a JSON line with its labels, time and memory."""
    import resource
    import tracemalloc
    import warnings

    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        X_small, _ = _data(config["data"], 200)
        _estimator(config).fit(X_small)  # warm-up: numba compiles
        X, y = _data(config["data"], config["n"])
        model = _estimator(config)
        rss_before = _rss_bytes()
        tracemalloc.start()
        start = time.perf_counter()
        error = None
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                model.fit(X)
            except (ValueError, MemoryError) as exc:
                error = f"{type(exc).__name__}: {exc}"
        seconds = time.perf_counter() - start
        _, traced = tracemalloc.get_traced_memory()
        tracemalloc.stop()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024
    out = {"seconds": seconds, "peak_rss": peak, "fit_rss": peak - rss_before,
           "traced": traced, "error": error,
           "labels": None if error else model.labels_.tolist(),
           "truth": y.tolist()}
    print(json.dumps(out))


def run_child(config, timeout=None):
    env = dict(os.environ)
    env.update({name: "1" for name in _ENV_THREADS})
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.kernel_memory", "--child",
         json.dumps(config)],
        capture_output=True, text=True, env=env, timeout=timeout,
        cwd=Path(__file__).resolve().parent.parent,
    )
    if proc.returncode != 0:
        return {"error": f"exit {proc.returncode}: {proc.stderr.strip()[-400:]}",
                "seconds": float("nan"), "peak_rss": float("nan"),
                "fit_rss": float("nan"), "traced": float("nan"), "labels": None}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _mib(n_bytes):
    return f"{n_bytes / 2**20:,.0f}"


def _label(params):
    if not params.get("approximation") and "block_size" not in params:
        return "exact (whole matrix)"
    if params.get("approximation") == "nystroem":
        return f"nystroem m={params.get('n_landmarks', 500)}"
    return f"exact, blocks ({params['block_size']})"


def accuracy_part(n, seeds, log):
    from sklearn.metrics import adjusted_rand_score

    rows = []
    variants = {
        "KernelKMeans": [{"block_size": 1024}] + [
            {"approximation": "nystroem", "n_landmarks": m}
            for m in (100, 200, 500, 1000)],
        "SpectralClustering": [
            {"approximation": "nystroem", "n_landmarks": m}
            for m in (100, 200, 500, 1000)],
    }
    for data in ("blobs", "circles"):
        for estimator, others in variants.items():
            for seed in seeds:
                base = {"estimator": estimator, "data": data, "n": n,
                        "params": {"random_state": seed}}
                exact = run_child(base)
                log(f"{estimator} {data} n={n} seed={seed} exact: "
                    f"{exact['seconds']:.1f} s, fit RSS {_mib(exact['fit_rss'])} MiB")
                truth = exact["truth"]
                rows.append((data, estimator, "exact (whole matrix)", seed, 1.0,
                             adjusted_rand_score(truth, exact["labels"]), exact))
                for params in others:
                    res = run_child({**base, "params": {**base["params"], **params}})
                    vs_exact = adjusted_rand_score(exact["labels"], res["labels"])
                    vs_truth = adjusted_rand_score(truth, res["labels"])
                    rows.append((data, estimator, _label(params), seed, vs_exact,
                                 vs_truth, res))
                    log(f"  {_label(params)}: ARI vs exact {vs_exact:.4f}, "
                        f"{res['seconds']:.1f} s, fit RSS {_mib(res['fit_rss'])} MiB")
    return rows


def scaling_part(sizes, block_seed, log, block_sizes):
    rows = []
    for n in sizes:
        for estimator in ("KernelKMeans", "SpectralClustering"):
            variants = [{}, {"approximation": "nystroem"}]
            if estimator == "KernelKMeans" and n in block_sizes:
                # One run (n_init=1): each run makes at least one full pass
                # over the recomputed kernel.
                variants.insert(1, {"block_size": "auto", "n_init": 1})
            for params in variants:
                config = {"estimator": estimator, "data": "blobs", "n": n,
                          "params": {"random_state": block_seed, **params}}
                res = run_child(config)
                from sklearn.metrics import adjusted_rand_score

                ari = (adjusted_rand_score(res["truth"], res["labels"])
                       if res["labels"] is not None else float("nan"))
                rows.append((n, estimator, params, ari, res))
                log(f"{estimator} n={n} {params}: {res['seconds']:.1f} s, "
                    f"peak RSS {_mib(res['peak_rss'])} MiB, "
                    f"error={res['error'] and res['error'][:60]}")
    return rows


def _params_text(params):
    if not params:
        return "exact (default)"
    text = ", ".join(f"{k}={v!r}" for k, v in params.items())
    if params.get("approximation") == "nystroem" and "n_landmarks" not in params:
        text += " (m=500)"
    return text


def write_report(path, acc_rows, scale_rows, acc_n, machine):
    import numpy as np

    lines = [
        "# Kernel k-means and spectral clustering beyond the n x n matrix",
        "",
        "`python -m benchmarks.kernel_memory` (issue 23 item 5). Each fit ran in a fresh",
        "subprocess with BLAS, OpenMP and numba pinned to one thread, after a warm-up fit;",
        "*fit RSS* is the peak resident memory minus the resident memory just before the",
        "fit (what the fit added, BLAS and numba included), *traced* the tracemalloc peak",
        "(numpy's buffers), *peak RSS* the process's high-water mark (imports and data",
        "included). Times are wall-clock on a shared, loaded 2-core machine (other jobs",
        "ran at the same time): read them as orders of magnitude.",
        "",
        f"Machine: {machine}.",
        "",
        f"## Accuracy at {acc_n:,} samples, where the exact methods fit",
        "",
        "ARI against the exact method's partition from the same `random_state`, and",
        "against the true labels; min / mean over the seeds. `blobs`: 8 overlapping",
        "Gaussian blobs in 20-d (gamma 0.025, k = 8); `circles`: two concentric circles",
        "padded to 20-d with noise (gamma 10, k = 2).",
        "",
        "| data | estimator | method | ARI vs exact (min / mean) | ARI vs truth (mean) "
        "| fit s (mean) | fit RSS MiB (max) | traced MiB (max) |",
        "|---|---|---|---|---|---|---|---|",
    ]
    groups = {}
    for data, estimator, method, _seed, vs_exact, vs_truth, res in acc_rows:
        groups.setdefault((data, estimator, method), []).append((vs_exact, vs_truth, res))
    for (data, estimator, method), items in groups.items():
        ve = np.array([i[0] for i in items])
        vt = np.array([i[1] for i in items])
        sec = np.mean([i[2]["seconds"] for i in items])
        rss = max(i[2]["fit_rss"] for i in items)
        traced = max(i[2]["traced"] for i in items)
        lines.append(
            f"| {data} | {estimator} | {method} | {ve.min():.4f} / {ve.mean():.4f} | "
            f"{vt.mean():.4f} | {sec:.1f} | {_mib(rss)} | {_mib(traced)} |")
    lines += [
        "",
        "## Time and memory at large n (`blobs`, 20 features)",
        "",
        "The exact whole-matrix methods are refused before allocation when the matrix",
        "does not fit (the message is quoted below the table); `block_size='auto'`",
        "recomputes the kernel in ~128 MiB row blocks (one run, `n_init=1`: every run",
        "makes at least one full pass over the kernel); Nyström uses the default 500",
        "landmarks and the default `n_init`.",
        "",
        "| n | estimator | parameters | result | ARI vs truth | fit s | peak RSS MiB "
        "| fit RSS MiB | traced MiB |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    messages = {}
    for n, estimator, params, ari, res in scale_rows:
        if res["error"]:
            result = "refused" if res["error"].startswith("ValueError") else "error"
            messages.setdefault(estimator, res["error"])
        else:
            result = "fitted"
        ari_text = "-" if np.isnan(ari) else f"{ari:.4f}"
        lines.append(
            f"| {n:,} | {estimator} | {_params_text(params)} | {result} | {ari_text} | "
            f"{res['seconds']:.2f} | {_mib(res['peak_rss'])} | {_mib(res['fit_rss'])} | "
            f"{_mib(res['traced'])} |")
    if messages:
        lines += ["", "Messages of the refusals:", ""]
        for estimator, message in messages.items():
            lines += [f"- {estimator}: `{message}`"]
    lines.append("")
    path.write_text("\n".join(lines))


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--child", help=argparse.SUPPRESS)
    parser.add_argument("--accuracy-n", type=int, default=10_000)
    parser.add_argument("--seeds", default="0,1,2")
    parser.add_argument("--sizes", default="60000,100000")
    parser.add_argument("--block-sizes", default="60000,100000",
                        help="sizes at which the row-block method also runs")
    parser.add_argument("--skip-accuracy", action="store_true")
    parser.add_argument("--out", type=Path, default=RESULTS / "kernel_memory.md")
    args = parser.parse_args(argv)
    if args.child:
        child(json.loads(args.child))
        return

    def log(text):
        print(text, flush=True)

    seeds = [int(s) for s in args.seeds.split(",") if s]
    sizes = [int(s) for s in args.sizes.split(",") if s]
    block_sizes = {int(s) for s in args.block_sizes.split(",") if s}
    acc_rows = [] if args.skip_accuracy else accuracy_part(args.accuracy_n, seeds, log)
    scale_rows = scaling_part(sizes, 0, log, block_sizes)
    write_report(args.out, acc_rows, scale_rows, args.accuracy_n, _machine())
    log(f"wrote {args.out}")


def _machine():
    import numpy as np

    from skml.cluster._kernel_memory import available_memory

    try:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                                capture_output=True, text=True,
                                cwd=Path(__file__).resolve().parent).stdout.strip()
    except OSError:
        commit = "?"
    avail = available_memory()
    return (f"{os.cpu_count()} CPUs, {platform.machine()}, Python "
            f"{platform.python_version()}, numpy {np.__version__}, memory available "
            f"at start {avail / 2**30:.1f} GiB, skml commit {commit}")


if __name__ == "__main__":
    main()
