"""Fit time and memory on a sparse text-like task, skml against scikit-learn.

Run ``python -m benchmarks.sparse_text [--rows 50000] [--features 100000]
[--density 0.001] [--out PATH]`` (issue 20). The data imitate hashed text
features: each row is a document of ~``density * features`` distinct tokens
(Poisson lengths), token ids drawn from a Zipf law and hashed (a fixed random
permutation) into ``features`` columns, values the token counts. The
classifiers of the naive Bayes family see the counts; the linear models the
L2-normalised rows (tf, as after ``Normalizer``). Labels: the sign of a
random linear score of the counts (plus noise); 20% of the rows are
held out for the accuracy column.

Every fit runs in a fresh subprocess (BLAS, OpenMP and numba pinned to one
thread) after a small warm-up fit (numba compiles on the first call; its
disk cache makes that quick after the first run), so its figures are its own:

- ``fit CPU s``: processor time of one fit (``time.process_time``; one
  thread, so it is the fit's own work even on a loaded machine, where wall
  time also counts the waits for a core); the time ratio uses it;
- ``wall s``: wall time of the same fit (``time.perf_counter``);
- ``fit RSS``: resident memory the fit added, the process's peak during the
  fit (``VmHWM`` after resetting it through ``/proc/self/clear_refs``) minus
  the resident size just before it (after ``malloc_trim``, so that freed
  pages are not silently reused): numpy, numba and Cython buffers alike;
- ``traced``: the peak of ``tracemalloc`` during a second fit (numpy's
  buffers only: numba's and Cython's own allocations are not traced).

The goal of issue 20 is ``ratio <= 1.0`` on time and ``fit RSS``.

Rows are listed in ``CASES``: (name, skml factory, scikit-learn factory,
input kind). The linear and naive Bayes rows are filled in; the kNN and
random forest rows belong to the helpers of those families — add them to
``CASES`` below (``"knn"`` and ``"forest"`` sections), nothing else changes.
The report goes to ``benchmarks/results/sparse_text.md``.
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
_ENV_THREADS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMBA_NUM_THREADS")


def _linear_cases():
    return [
        ("LogisticRegression",
         "from skml.linear_model import LogisticRegression as E; est = E()",
         "from sklearn.linear_model import LogisticRegression as E; est = E()",
         "tf"),
        ("LinearSVC",
         "from skml.svm import LinearSVC as E; est = E(random_state=0)",
         "from sklearn.svm import LinearSVC as E; est = E(random_state=0)",
         "tf"),
        ("SGDClassifier",
         "from skml.linear_model import SGDClassifier as E; est = E(random_state=0)",
         "from sklearn.linear_model import SGDClassifier as E; est = E(random_state=0)",
         "tf"),
        ("SGDClassifier(elasticnet)",
         "from skml.linear_model import SGDClassifier as E\n"
         "est = E(penalty='elasticnet', random_state=0)",
         "from sklearn.linear_model import SGDClassifier as E\n"
         "est = E(penalty='elasticnet', random_state=0)",
         "tf"),
        ("Ridge",
         "from skml.linear_model import Ridge as E; est = E()",
         "from sklearn.linear_model import Ridge as E; est = E()",
         "tf-regression"),
    ]


def _naive_bayes_cases():
    return [
        ("BernoulliNB",
         "from skml.naive_bayes import BernoulliNB as E; est = E()",
         "from sklearn.naive_bayes import BernoulliNB as E; est = E()",
         "counts"),
        ("MultinomialNB",
         None,  # not in skml: the row says so
         "from sklearn.naive_bayes import MultinomialNB as E; est = E()",
         "counts"),
    ]


# The rows of the report. kNN and random forest rows are added by the
# helpers of those families: append (name, skml code, sklearn code, kind)
# tuples to the matching list; "code" assigns the unfitted estimator to est.
CASES = {
    "linear": _linear_cases(),
    "naive_bayes": _naive_bayes_cases(),
    "knn": [
        # kNN's fit only stores X: the timed "fit" adds a prediction of the
        # first 2000 training rows (brute force on CSR, both libraries).
        ("KNeighborsClassifier+predict2000",
         "from skml.neighbors import KNeighborsClassifier as E\n"
         "class Q(E):\n"
         "    def fit(self, X, y):\n"
         "        super().fit(X, y); self.query_ = self.predict(X[:2000]); return self\n"
         "est = Q()",
         "from sklearn.neighbors import KNeighborsClassifier as E\n"
         "class Q(E):\n"
         "    def fit(self, X, y):\n"
         "        super().fit(X, y); self.query_ = self.predict(X[:2000]); return self\n"
         "est = Q()",
         "tf"),
        ("KMeans",
         "from skml.cluster import KMeans as E; est = E(8, n_init=1, random_state=0)",
         "from sklearn.cluster import KMeans as E; est = E(8, n_init=1, random_state=0)",
         "tf"),
    ],
    "forest": [
        # Trees search CSC columns (zeros as one block) in both libraries.
        ("DecisionTreeClassifier(max_depth=20)",
         "from skml.tree import DecisionTreeClassifier as E\n"
         "est = E(max_depth=20, random_state=0)",
         "from sklearn.tree import DecisionTreeClassifier as E\n"
         "est = E(max_depth=20, random_state=0)",
         "tf"),
        ("RandomForestClassifier(20 trees)",
         "from skml.ensemble import RandomForestClassifier as E\n"
         "est = E(n_estimators=20, n_jobs=1, random_state=0)",
         "from sklearn.ensemble import RandomForestClassifier as E\n"
         "est = E(n_estimators=20, n_jobs=1, random_state=0)",
         "tf"),
    ],
}


def make_data(n_rows, n_features, density, seed=0):
    """Hashed-text-like counts (CSR), a binary label and a real target."""
    import numpy as np
    import scipy.sparse as sp

    rng = np.random.RandomState(seed)
    lengths = rng.poisson(density * n_features, size=n_rows).clip(1)
    tokens = rng.zipf(1.2, size=int(lengths.sum())) - 1
    perm = rng.permutation(n_features)
    cols = perm[tokens % n_features]
    rows = np.repeat(np.arange(n_rows), lengths)
    X = sp.csr_matrix((np.ones(len(cols)), (rows, cols)), shape=(n_rows, n_features))
    X.sum_duplicates()
    w = rng.normal(size=n_features)  # every token carries some signal
    score = X @ w
    score = score / (score.std() or 1.0) + 0.3 * rng.normal(size=n_rows)
    y = (score > np.median(score)).astype(np.int64)
    return X, y, score


def _inputs(kind, X, y, score):
    import numpy as np
    import scipy.sparse as sp

    if kind == "counts":
        return X, y
    norms = np.sqrt(np.asarray(X.multiply(X).sum(axis=1)).ravel())
    Xn = sp.diags(1.0 / np.where(norms > 0, norms, 1.0)) @ X
    Xn = Xn.tocsr()
    return (Xn, score) if kind == "tf-regression" else (Xn, y)


def _rss():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def _trim():
    """Give freed heap pages back to the OS (glibc), so that the memory a
    fit allocates shows as growth of the resident size, not as reuse."""
    import ctypes

    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _reset_peak():
    try:
        with open("/proc/self/clear_refs", "w") as f:
            f.write("5")
        return True
    except OSError:
        return False


def _peak():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError("no VmHWM")


def child(config):
    """One fit of one library's estimator; prints a JSON line."""
    import gc
    import tracemalloc
    import warnings

    import numpy as np
    from threadpoolctl import threadpool_limits

    warnings.simplefilter("ignore")
    X, y, score = make_data(config["rows"], config["features"], config["density"])
    Xin, target = _inputs(config["kind"], X, y, score)
    n_train = int(0.8 * Xin.shape[0])
    X_tr, X_te = Xin[:n_train], Xin[n_train:]
    t_tr, t_te = target[:n_train], target[n_train:]
    scope = {}
    with threadpool_limits(1):
        exec(config["code"], scope)
        warm = scope["est"]
        warm.fit(X_tr[:200], t_tr[:200])  # numba compilation / imports
        del X, y, score, Xin, warm
        gc.collect()
        exec(config["code"], scope)
        est = scope["est"]
        _trim()
        ok = _reset_peak()
        before = _rss()
        t0 = time.perf_counter()
        c0 = time.process_time()
        est.fit(X_tr, t_tr)
        fit_cpu = time.process_time() - c0
        fit_s = time.perf_counter() - t0
        fit_rss = _peak() - before if ok else float("nan")
        quality = float(est.score(X_te, t_te))
        exec(config["code"], scope)
        est2 = scope["est"]
        gc.collect()
        tracemalloc.start()
        est2.fit(X_tr, t_tr)
        traced = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
    print(json.dumps({"fit_s": fit_s, "fit_cpu": fit_cpu, "fit_rss": fit_rss, "traced": traced,
                      "quality": quality, "nnz": int(X_tr.nnz),
                      "data_bytes": int(X_tr.data.nbytes + X_tr.indices.nbytes
                                        + X_tr.indptr.nbytes)}))


def run_child(config, timeout):
    env = dict(os.environ)
    for name in _ENV_THREADS:
        env[name] = "1"
    proc = subprocess.run(
        [sys.executable, "-m", "benchmarks.sparse_text", "--child", json.dumps(config)],
        capture_output=True, text=True, timeout=timeout, env=env,
        cwd=Path(__file__).resolve().parent.parent,
    )
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1][:200]}
    return json.loads(proc.stdout.strip().splitlines()[-1])


def _mib(n):
    return f"{n / 2**20:.1f}"


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=50_000)
    parser.add_argument("--features", type=int, default=100_000)
    parser.add_argument("--density", type=float, default=0.001)
    parser.add_argument("--only", default=None, help="comma-separated row names")
    parser.add_argument("--timeout", type=float, default=1800)
    parser.add_argument("--out", default=str(RESULTS / "sparse_text.md"))
    parser.add_argument("--child", default=None, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.child:
        child(json.loads(args.child))
        return
    only = None if args.only is None else set(args.only.split(","))
    base = {"rows": args.rows, "features": args.features, "density": args.density}
    lines = []
    for family, cases in CASES.items():
        for name, skml_code, sk_code, kind in cases:
            if only is not None and name not in only:
                continue
            res = {}
            for lib, code in (("skml", skml_code), ("sklearn", sk_code)):
                if code is None:
                    res[lib] = {"error": f"not in {lib}"}
                    continue
                res[lib] = run_child({**base, "code": code, "kind": kind}, args.timeout)
                print(name, lib, res[lib], flush=True)
            lines.append((family, name, kind, res))
    _write(args, lines)


def _write(args, lines):
    import numpy as np
    import scipy
    import sklearn

    out = Path(args.out)
    out.parent.mkdir(parents=True, exist_ok=True)
    rows = [
        "# Sparse text-like task: skml against scikit-learn (issue 20)",
        "",
        f"Data: {args.rows} x {args.features} CSR, density {args.density} "
        "(hashed Zipf tokens, counts; the linear models see L2-normalised rows), "
        "80% train / 20% test. One fit per library in a fresh process, one thread, "
        "after a warm-up fit. `fit CPU s`: processor seconds of the fit (the time "
        "ratio's basis: robust to the machine's load); `wall s`: its wall time. "
        "`fit RSS`: resident memory the fit added (peak minus "
        "the size before); `traced`: tracemalloc peak (numpy buffers only); "
        "quality: test accuracy (R² for Ridge). Ratios are skml / scikit-learn; "
        "the goal is <= 1.0 on time and fit RSS.",
        "",
        f"Generated {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} on "
        f"{platform.machine()} ({os.cpu_count()} cores, shared and loaded), "
        f"load average {os.getloadavg()[0]:.1f} at the end, "
        f"Python {platform.python_version()}, numpy {np.__version__}, scipy "
        f"{scipy.__version__}, scikit-learn {sklearn.__version__}.",
        "",
        "| family | estimator | input | skml fit CPU s | sklearn fit CPU s "
        "| time ratio | skml fit RSS MiB | sklearn fit RSS MiB | RSS ratio "
        "| skml traced MiB | sklearn traced MiB | skml quality | sklearn quality "
        "| skml wall s | sklearn wall s |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    data_mib = None
    for family, name, kind, res in lines:
        a, b = res["skml"], res["sklearn"]
        if "data_bytes" in b or "data_bytes" in a:
            data_mib = _mib((a if "data_bytes" in a else b)["data_bytes"])
        if "error" in a or "error" in b:
            msg = a.get("error") or b.get("error")
            rows.append(f"| {family} | {name} | {kind} | {msg} |||||||||||")
            continue
        rows.append(
            f"| {family} | {name} | {kind} | {a['fit_cpu']:.2f} | {b['fit_cpu']:.2f} | "
            f"{a['fit_cpu'] / b['fit_cpu']:.2f} | {_mib(a['fit_rss'])} | "
            f"{_mib(b['fit_rss'])} | "
            f"{a['fit_rss'] / max(b['fit_rss'], 1):.2f} | {_mib(a['traced'])} | "
            f"{_mib(b['traced'])} | {a['quality']:.4f} | {b['quality']:.4f} | "
            f"{a['fit_s']:.2f} | {b['fit_s']:.2f} |"
        )
    for family in ("knn", "forest"):
        if not CASES[family]:
            rows.append(f"| {family} | (rows to be added by that family's helper) "
                        "| | | | | | | | | | | | | |")
    if data_mib is not None:
        rows += ["", f"The training matrix itself (CSR arrays) takes {data_mib} MiB."]
    out.write_text("\n".join(rows) + "\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
