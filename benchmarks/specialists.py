"""skml against the specialist libraries (issue 12's "against the specialists").

Run ``python -m benchmarks.specialists [--only gb,tsne,ann,lmnn,kkm] [--quick]``
with the peers environment (``python3 dev.py peers specialists``); the peers
are bench extras, never runtime dependencies, imported lazily: a missing one
gets a "peer not installed" row. Everything runs on one thread (BLAS, OpenMP,
numba and each peer's own thread setting), every contender on the same data
in the same process; times are ``time.process_time`` (CPU seconds of this
process, so a loaded machine inflates them less than wall time), the best of
the alternating repeats stated per section. Five sections:

- **gb**: gradient boosting against HistGradientBoosting, LightGBM and
  XGBoost (hist), equal trees; the setup and the timing loop are those of
  :mod:`benchmarks.gb_peers` (called, not copied).
- **tsne**: t-SNE against openTSNE (FFT) and scikit-learn (Barnes-Hut) on
  the 20k x 50 Gaussian-mixture set ``mixture_27k_50``; each library's own
  final KL beside a KL computed here for every embedding with one common P
  (``_common_p``) and the trustworthiness (5 neighbours, ``_trustworthiness``).
- **ann**: approximate 10 nearest neighbours on 100k points in 32-d (the
  flat Gaussian mixture of ``benchmarks.datasets``): skml's
  :class:`~skml.neighbors.LSHNearestNeighbors` settings against hnswlib
  (HNSW), faiss ``IndexIVFFlat`` (k-means trained on all the points, no
  subsampling), annoy and pynndescent; recall@10 against exact neighbours,
  query time and build time, and a recall/time plot.
- **lmnn**: :class:`~skml.metric_learning.LargeMarginNearestNeighbor`
  against metric-learn's LMNN (its removed scikit-learn keyword
  ``force_all_finite`` mapped to ``ensure_all_finite``, ``_patch_metric_learn``),
  3-NN held-out accuracy in each learnt space.
- **kkm**: :class:`~skml.cluster.KernelKMeans` against tslearn's
  ``KernelKMeans`` (rbf kernel, same gamma, one initialisation each, 50
  iterations at most), adjusted Rand index against the true blobs.

Section **scaling** (not in the default list; ``--only scaling``): fit time
against n at three sizes for gradient boosting and t-SNE, one thread, and
the log-log slope of each contender.

``--threads 1,all`` (or ``all``) adds (or runs only) the all-threads form
of **gb** and **tsne** (sections ``gb_all``, ``tsne_all``): every contender
with all the CPUs, timed by the wall clock (CPU seconds would add the
threads up; they are kept beside), in a child process started without the
one-thread pinning, since numba fixes its thread count at import.

The report goes to ``benchmarks/results/specialists.md`` (raw figures in
``specialists.json``, the ANN plot in ``specialists_ann.png``).
"""

import argparse
import json
import os
import platform
import subprocess
import time
from pathlib import Path

from benchmarks._load import load_sentence

_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS",
                "NUMBA_NUM_THREADS")
# The all-threads sections run in a child process started with this variable
# (numba fixes its thread count when it is first imported, so one process
# cannot hold both settings); every other run pins everything to one thread.
_ALL_THREADS = os.environ.get("SKML_SPECIALISTS_THREADS") == "all"
_ORIG_ENV = {_var: os.environ.get(_var) for _var in _THREAD_VARS}
if not _ALL_THREADS:
    for _var in _THREAD_VARS:
        os.environ[_var] = "1"

RESULTS = Path(__file__).resolve().parent / "results"
K = 10  # neighbours of the ANN section
# t-SNE rows: the first TSNE_N training points of mixture_27k_50 (20k in
# all). 10k by default to keep the whole run within about 15 minutes on a
# loaded 2-core machine (scikit-learn's Barnes-Hut fit alone takes minutes
# at 20k); ``--tsne-n 20000`` for the full set.
TSNE_N = 10_000
TSNE_LIBS = None  # contenders to run (names' first word, lower case); None: all
SCALING = ("gb", "tsne")  # the families of the scaling section (--scaling)


def _cpu(func):
    """(process seconds, result) of one call."""
    t0 = time.process_time()
    out = func()
    return time.process_time() - t0, out


def _both(func):
    """(wall seconds, process CPU seconds, result) of one call."""
    w0, c0 = time.perf_counter(), time.process_time()
    out = func()
    return time.perf_counter() - w0, time.process_time() - c0, out


def _best_wall(funcs, reps):
    """As :func:`_best` with both clocks: ``{name: (best wall s, CPU s of that
    call)}`` and the last result of each. For the all-threads sections, where
    CPU seconds add the threads up."""
    times = {name: [] for name in funcs}
    outs = {}
    for _ in range(reps):
        for name, func in funcs.items():
            wall, cpu, outs[name] = _both(func)
            times[name].append((wall, cpu))
    return {name: min(ts) for name, ts in times.items()}, outs


def _restore_env():
    """Undo the one-thread pinning of a module imported here (``gb_peers``
    pins at import) in the all-threads child."""
    for var, value in _ORIG_ENV.items():
        if value is None:
            os.environ.pop(var, None)
        else:
            os.environ[var] = value


def _in_child(name, quick):
    """Run section ``name`` in a child process with the threads unpinned and
    return its figures (see ``_ALL_THREADS``)."""
    import subprocess
    import sys
    import tempfile

    env = dict(os.environ, SKML_SPECIALISTS_THREADS="all")
    for var, value in _ORIG_ENV.items():
        if value is None:
            env.pop(var, None)
        else:
            env[var] = value
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp) / "section.json"
        cmd = [sys.executable, "-m", "benchmarks.specialists", "--only", name,
               "--json", str(out), "--no-report", "--tsne-n", str(TSNE_N)]
        if quick:
            cmd.append("--quick")
        if TSNE_LIBS is not None:
            cmd += ["--tsne-libs", ",".join(TSNE_LIBS)]
        subprocess.run(cmd, env=env, check=True,
                       cwd=Path(__file__).resolve().parent.parent)
        return json.loads(out.read_text())["results"][name]


def _best(funcs, reps):
    """Alternate the callables ``reps`` times (an int, or a count per name);
    best time and last result each."""
    if isinstance(reps, int):
        reps = dict.fromkeys(funcs, reps)
    times = {name: [] for name in funcs}
    outs = {}
    for r in range(max(reps.values())):
        for name, func in funcs.items():
            if r >= reps[name]:
                continue
            t, outs[name] = _cpu(func)
            times[name].append(t)
    return {name: min(ts) for name, ts in times.items()}, outs


# --- gradient boosting ----------------------------------------------------------

def section_gb(quick):
    from benchmarks import gb_peers

    rows = []
    plan = ([((5000,), 2, ("classification",))] if quick else
            [((20000,), 5, ("classification", "regression")),
             ((200000,), 3, ("classification", "regression")),
             ((1000000,), 1, ("classification",))])
    for sizes, reps, kinds in plan:
        for kind, n, name, t, score, _ in gb_peers.run(list(sizes), reps, kinds):
            rows.append({"kind": kind, "n": n, "library": name, "fit_s": t,
                         "score": score, "reps": reps})
    return {"rows": rows, "params": {
        "rounds": gb_peers.ROUNDS, "depth": gb_peers.DEPTH, "bins": gb_peers.BINS,
        "lr": gb_peers.LR, "min_leaf": gb_peers.MIN_LEAF}}


def _gb_threads(est, n_threads):
    """A gb_peers contender set to ``n_threads`` (LightGBM ``num_threads``,
    XGBoost's and skml's ``n_jobs``; HistGradientBoosting follows the OpenMP
    limit)."""
    params = est.get_params()
    if "num_threads" in params:
        est.set_params(num_threads=n_threads)
    elif "n_jobs" in params and type(est).__module__.startswith(("xgboost", "skml")):
        est.set_params(n_jobs=n_threads)
    return est


def section_gb_all(quick):
    """The gb section with every contender on all the CPUs; wall clock."""
    if not _ALL_THREADS:
        return _in_child("gb_all", quick)
    from threadpoolctl import threadpool_limits

    from benchmarks import gb_peers

    _restore_env()
    n_threads = os.cpu_count()
    rows = []
    plan = ([((5000,), 2, ("classification",))] if quick else
            [((20000,), 5, ("classification", "regression")),
             ((200000,), 3, ("classification", "regression")),
             ((1000000,), 1, ("classification",))])
    with threadpool_limits(n_threads):
        for sizes, reps, kinds in plan:
            for kind in kinds:
                for n in sizes:
                    X, X_test, y, y_test = gb_peers._data(kind, n)
                    makers = gb_peers._contenders(kind)
                    live = {k: f for k, f in makers.items() if f is not None}
                    for f in live.values():  # warm-up: numba compiles on the first call
                        _gb_threads(f(), n_threads).fit(X[:500], y[:500])
                    ests = {}

                    def fit(name, make):
                        ests[name] = _gb_threads(make(), n_threads).fit(X, y)

                    best, _ = _best_wall({k: (lambda k=k, f=f: fit(k, f))
                                          for k, f in live.items()}, reps)
                    for name in makers:
                        if name not in live:
                            rows.append({"kind": kind, "n": n, "library": name,
                                         "fit_s": None, "score": None, "reps": reps})
                            continue
                        score = ests[name].score(X_test, y_test)
                        rows.append({"kind": kind, "n": n, "library": name,
                                     "fit_s": best[name][0], "cpu_s": best[name][1],
                                     "score": score, "reps": reps})
                        print("gb all threads", kind, n, name,
                              f"{best[name][0]:.3f}s wall", f"{score:.4f}", flush=True)
    return {"rows": rows, "threads": n_threads, "params": {
        "rounds": gb_peers.ROUNDS, "depth": gb_peers.DEPTH, "bins": gb_peers.BINS,
        "lr": gb_peers.LR, "min_leaf": gb_peers.MIN_LEAF}}


# --- t-SNE ------------------------------------------------------------------------

def _common_p(X, perplexity=30.0):
    """Symmetric joint P of t-SNE from the exact 3*perplexity nearest
    neighbours (binary search of each row's precision to the perplexity),
    as a scipy CSR matrix summing to 1: one P for scoring every embedding."""
    import numpy as np
    from scipy import sparse
    from sklearn.neighbors import NearestNeighbors

    n = X.shape[0]
    k = min(n - 1, int(3 * perplexity + 1))
    dist, ind = NearestNeighbors(n_neighbors=k).fit(X).kneighbors()
    d2 = dist**2
    d2 -= d2[:, :1]  # numerically safer; does not change the row's softmax
    lo = np.zeros(n)
    hi = np.full(n, np.inf)
    beta = np.ones(n)
    target = np.log(perplexity)
    for _ in range(100):
        w = np.exp(-d2 * beta[:, None])
        s = w.sum(1)
        p = w / s[:, None]
        entropy = np.log(s) + beta * (d2 * p).sum(1)
        high = entropy > target  # too flat: raise the precision
        lo[high] = beta[high]
        hi[~high] = beta[~high]
        beta = np.where(np.isinf(hi), beta * 2, (lo + hi) / 2)
    P = sparse.csr_matrix((p.ravel(), ind.ravel(), np.arange(0, n * k + 1, k)),
                          shape=(n, n))
    P = P + P.T
    return P / P.sum()


def _kl(P, Y, block=500):
    """KL(P || Q) of embedding Y, Q the Student-t joint over all pairs."""
    import numpy as np

    Y = np.asarray(Y, dtype=np.float64)
    n = Y.shape[0]
    sq = (Y**2).sum(1)
    Z = 0.0
    for s in range(0, n, block):
        d2 = np.maximum(sq[s:s + block, None] + sq[None] - 2 * Y[s:s + block] @ Y.T, 0)
        Z += (1.0 / (1.0 + d2)).sum() - min(block, n - s)  # drop i == j
    P = P.tocoo()
    d2 = ((Y[P.row] - Y[P.col])**2).sum(1)
    q = 1.0 / (1.0 + d2) / Z
    return float((P.data * np.log(P.data / q)).sum())


def _trustworthiness(X, Y, k=5, m=2000, seed=0):
    """Trustworthiness (Venna and Kaski; scikit-learn's formula) with the
    ranks taken among all n points, averaged over m seeded rows: an unbiased
    estimate of the full-set figure without an n x n matrix."""
    import numpy as np
    from sklearn.neighbors import NearestNeighbors

    n = X.shape[0]
    rows = np.random.RandomState(seed).choice(n, min(m, n), replace=False)
    emb_nn = NearestNeighbors(n_neighbors=k).fit(Y).kneighbors(
        Y[rows], n_neighbors=k + 1, return_distance=False)
    total = 0.0
    sqX = (X**2).sum(1)
    for s in range(0, rows.size, 500):
        r = rows[s:s + 500]
        d = sqX[r, None] + sqX[None] - 2 * X[r] @ X.T
        d[np.arange(r.size), r] = -np.inf  # the point itself: rank 0
        for a, i in enumerate(r):
            nb = [j for j in emb_nn[s + a] if j != i][:k]
            ranks = (d[a][None, :] < d[a, nb][:, None]).sum(1)  # 1-based among others
            total += np.maximum(ranks - k, 0).sum()
    total *= n / rows.size
    return float(1 - 2.0 / (n * k * (2 * n - 3 * k - 1)) * total)


def section_tsne_all(quick):
    """The t-SNE section with every contender on all the CPUs (``n_jobs=-1``);
    wall clock, one fit each (as the one-thread section: on a loaded machine
    a multi-threaded fit can take many times its one-thread time)."""
    if not _ALL_THREADS:
        return _in_child("tsne_all", quick)
    from threadpoolctl import threadpool_limits

    with threadpool_limits(os.cpu_count()):
        return section_tsne(quick, n_jobs=-1, reps=1)


def section_tsne(quick, n_jobs=1, reps=1):
    import numpy as np

    from benchmarks.datasets import _mixture, load
    from skml.manifold import TSNE

    if quick:
        X = _mixture(2667, 50, n_clusters=20)[0]
    else:
        X = load("mixture_27k_50")[0][:TSNE_N]
    n_iter = 1000
    contenders = {
        "skml": lambda: TSNE(perplexity=30.0, max_iter=n_iter, init="pca",
                             random_state=0, n_jobs=n_jobs),
    }
    try:
        import openTSNE

        contenders["openTSNE (FFT)"] = lambda: openTSNE.TSNE(
            perplexity=30.0, n_iter=n_iter - 250, early_exaggeration_iter=250,
            negative_gradient_method="fft", initialization="pca", n_jobs=n_jobs,
            random_state=0)
    except ImportError:
        contenders["openTSNE (FFT)"] = None
    from sklearn.manifold import TSNE as SkTSNE

    contenders["scikit-learn (Barnes-Hut)"] = lambda: SkTSNE(
        perplexity=30.0, max_iter=n_iter, init="pca", random_state=0, n_jobs=n_jobs)
    # warm-up on a small set: numba compiles on the first call
    small = X[:600]
    TSNE(max_iter=250, random_state=0, n_jobs=n_jobs).fit(small)
    P = _common_p(X)
    rows = []
    live = {}
    for name, make in contenders.items():
        if TSNE_LIBS is not None and name.split()[0].lower() not in TSNE_LIBS:
            continue
        if make is None:
            rows.append({"library": name, "fit_s": None})
            continue
        live[name] = make
    if n_jobs == 1:  # one fit each, CPU seconds (the section's first form)
        timed = {}
        for name, make in live.items():
            est = make()
            t, out = _cpu(lambda: est.fit(X))
            timed[name] = ((t, None), (est, out))
    else:  # all threads: wall clock, the contenders alternate ``reps`` times
        ests = {}

        def fit(name, make):
            est = make()
            ests[name] = (est, est.fit(X))

        best, _ = _best_wall({k: (lambda k=k, f=f: fit(k, f)) for k, f in live.items()},
                             reps)
        timed = {name: ((best[name][0], best[name][1]), ests[name]) for name in live}
    for name, ((t, cpu), (est, out)) in timed.items():
        if name.startswith("openTSNE"):
            Y, own_kl = np.asarray(out), float(out.kl_divergence)
        else:
            Y, own_kl = est.embedding_, float(est.kl_divergence_)
        rows.append({"library": name, "fit_s": t, "own_kl": own_kl,
                     "kl": _kl(P, Y), "trust": _trustworthiness(X, Y)})
        if cpu is not None:
            rows[-1]["cpu_s"] = cpu
        print("tsne", name, f"{t:.1f}s", rows[-1], flush=True)
    # the table's order: skml first, then the peers, as the contenders
    order = list(contenders)
    rows.sort(key=lambda r: order.index(r["library"]))
    out = {"rows": rows, "n": X.shape[0], "d": X.shape[1], "n_iter": n_iter}
    if n_jobs != 1:
        out["threads"] = os.cpu_count()
        out["reps"] = reps
    return out


# --- approximate neighbours --------------------------------------------------------

LSH_SETTINGS = [  # (n_tables, n_hashes, bucket_width, multi_probe)
    (8, 8, 8.0, 0), (12, 8, 10.0, 0), (16, 8, 10.0, 0), (20, 8, 12.0, 0),
    (8, 10, 10.0, 8), (12, 10, 10.0, 16), (16, 10, 10.0, 16),
]


def _recall(exact, approx):
    import numpy as np

    approx = np.asarray(approx)[:, :K]
    return float(np.mean((exact[:, :, None] == approx[:, None, :]).any(axis=2)))


def _ann_skml(X, Xq, exact, reps):
    from skml.neighbors import LSHNearestNeighbors

    out = []
    for L, k, w, T in LSH_SETTINGS:
        est = LSHNearestNeighbors(n_neighbors=K, n_tables=L, n_hashes=k,
                                  bucket_width=w, multi_probe=T, random_state=0,
                                  n_jobs=1)
        build, _ = _cpu(lambda: est.fit(X))
        q, ind = _best({"q": lambda: est.kneighbors(Xq, return_distance=False)}, reps)
        out.append(("skml LSH", f"L={L} k={k} w={w:g} T={T}", build, q["q"],
                    _recall(exact, ind["q"])))
    return out


def _ann_hnswlib(X, Xq, exact, reps):
    import hnswlib

    index = hnswlib.Index(space="l2", dim=X.shape[1])
    index.set_num_threads(1)

    def build():
        index.init_index(max_elements=X.shape[0], ef_construction=100, M=16,
                         random_seed=0)
        index.add_items(X, num_threads=1)

    b, _ = _cpu(build)
    out = []
    for ef in (10, 20, 40, 80, 160):
        index.set_ef(ef)
        q, ind = _best({"q": lambda: index.knn_query(Xq, k=K, num_threads=1)[0]}, reps)
        out.append(("hnswlib", f"M=16 efC=100 ef={ef}", b, q["q"], _recall(exact, ind["q"])))
    return out


def _ann_faiss(X, Xq, exact, reps):
    import faiss
    import numpy as np

    faiss.omp_set_num_threads(1)
    X32, Xq32 = np.ascontiguousarray(X, np.float32), np.ascontiguousarray(Xq, np.float32)
    nlist = 1024
    quantizer = faiss.IndexFlatL2(X.shape[1])
    index = faiss.IndexIVFFlat(quantizer, X.shape[1], nlist)
    index.cp.max_points_per_centroid = X.shape[0]  # train on every point
    index.cp.seed = 0

    def build():
        index.train(X32)
        index.add(X32)

    b, _ = _cpu(build)
    out = []
    for nprobe in (1, 2, 4, 8, 16, 32):
        index.nprobe = nprobe
        q, ind = _best({"q": lambda: index.search(Xq32, K)[1]}, reps)
        out.append(("faiss IVF", f"nlist={nlist} nprobe={nprobe}", b, q["q"],
                    _recall(exact, ind["q"])))
    return out


def _ann_annoy(X, Xq, exact, reps):
    import numpy as np
    from annoy import AnnoyIndex

    out = []
    for n_trees in (10, 50):
        index = AnnoyIndex(X.shape[1], "euclidean")
        index.set_seed(0)

        def build():
            for i, x in enumerate(X):
                index.add_item(i, x)
            index.build(n_trees, n_jobs=1)

        b, _ = _cpu(build)
        rows = [x.tolist() for x in Xq]
        for mult in (1, 4, 16):
            sk = n_trees * K * mult
            q, ind = _best({"q": lambda: np.array(
                [index.get_nns_by_vector(x, K, search_k=sk) for x in rows])}, reps)
            out.append(("annoy", f"trees={n_trees} search_k={sk}", b, q["q"],
                        _recall(exact, ind["q"])))
    return out


def _ann_pynndescent(X, Xq, exact, reps):
    from pynndescent import NNDescent

    # warm-up: numba compiles the graph construction and search first
    NNDescent(X[:2000], n_neighbors=15, random_state=0, n_jobs=1).query(Xq[:10], k=K)

    # the graph is built in the constructor; prepare() builds the search
    # graph and compiles this index's search function (numba, per index)
    graph, index = _cpu(lambda: NNDescent(X, n_neighbors=30, random_state=0, n_jobs=1))
    prep, _ = _cpu(index.prepare)
    b = graph + prep
    out = []
    for eps in (0.0, 0.1, 0.2, 0.3):
        q, ind = _best({"q": lambda: index.query(Xq, k=K, epsilon=eps)[0]}, reps)
        out.append(("pynndescent", f"n_neighbors=30 eps={eps} (build: graph"
                    f" {graph:.1f} s + prepare {prep:.1f} s)", b, q["q"],
                    _recall(exact, ind["q"])))
    return out


def section_ann(quick):
    import numpy as np
    from threadpoolctl import threadpool_limits

    from benchmarks.datasets import _mixture

    n = 20_000 if quick else 100_000
    X, Xt = _mixture(n * 4 // 3 + 1, 32)[:2]
    X = X[:n]
    Xq = Xt[:500 if quick else 2000]
    reps = 2 if quick else 3
    rows = []
    with threadpool_limits(limits=1):
        sq = (X**2).sum(1)
        exact = np.empty((Xq.shape[0], K), dtype=np.intp)
        for s in range(0, Xq.shape[0], 200):
            d = sq[None] - 2 * Xq[s:s + 200] @ X.T
            part = np.argpartition(d, K, axis=1)[:, :K]
            order = np.argsort(np.take_along_axis(d, part, 1), axis=1)
            exact[s:s + 200] = np.take_along_axis(part, order, 1)
        # build time of the index: for pynndescent and skml LSH after a
        # warm-up (numba compilation excluded)
        from skml.neighbors import LSHNearestNeighbors

        LSHNearestNeighbors(n_neighbors=K, random_state=0).fit(X[:500]).kneighbors(Xq[:5])
        for name, func in (("skml LSH", _ann_skml), ("hnswlib", _ann_hnswlib),
                           ("faiss IVF", _ann_faiss), ("annoy", _ann_annoy),
                           ("pynndescent", _ann_pynndescent)):
            try:
                got = func(X, Xq, exact, reps)
            except ImportError:
                rows.append({"library": name, "setting": None})
                print("ann", name, "not installed", flush=True)
                continue
            for lib, setting, build, query, rec in got:
                rows.append({"library": lib, "setting": setting, "build_s": build,
                             "query_s": query, "recall": rec})
                print("ann", lib, setting, f"build {build:.2f}s query {query:.3f}s "
                      f"recall {rec:.3f}", flush=True)
    return {"rows": rows, "n": n, "d": X.shape[1], "n_queries": Xq.shape[0],
            "reps": reps}


# --- LMNN -----------------------------------------------------------------------------

def _patch_metric_learn():
    """metric-learn 0.7.0 passes ``force_all_finite``, which scikit-learn 1.8
    removed (now ``ensure_all_finite``): wrap its validation helpers."""
    import metric_learn._util as util

    def renamed(func):
        def wrapper(*args, **kwargs):
            if "force_all_finite" in kwargs:
                kwargs["ensure_all_finite"] = kwargs.pop("force_all_finite")
            return func(*args, **kwargs)
        return wrapper

    if not getattr(util, "_skml_patched", False):
        util.check_array = renamed(util.check_array)
        util.check_X_y = renamed(util.check_X_y)
        util._skml_patched = True


def section_lmnn(quick):
    from sklearn.neighbors import KNeighborsClassifier

    from benchmarks.datasets import load
    from skml.metric_learning import LargeMarginNearestNeighbor

    try:
        import metric_learn

        _patch_metric_learn()
    except ImportError:
        metric_learn = None
    rows = []
    for dataset in (("wine",) if quick else ("wine", "digits")):
        X, Xt, y, yt = load(dataset)
        makers = {"skml": lambda: LargeMarginNearestNeighbor(n_neighbors=3,
                                                             random_state=0)}
        if metric_learn is not None:
            makers["metric-learn"] = lambda: metric_learn.LMNN(n_neighbors=3,
                                                               random_state=0)
        LargeMarginNearestNeighbor(n_neighbors=3, random_state=0).fit(X[:60], y[:60])
        # metric-learn's digits fit takes about a minute: one fit there
        reps = {"skml": 3, "metric-learn": 3 if dataset == "wine" else 1}
        ests = {name: make() for name, make in makers.items()}
        best, _ = _best({name: (lambda e=e: e.fit(X, y)) for name, e in ests.items()},
                        reps)
        for name in ("skml", "metric-learn"):
            if name not in ests:
                rows.append({"dataset": dataset, "library": name, "fit_s": None})
                continue
            e = ests[name]
            acc = KNeighborsClassifier(3).fit(e.transform(X), y).score(e.transform(Xt), yt)
            rows.append({"dataset": dataset, "n": X.shape[0], "d": X.shape[1],
                         "library": name, "fit_s": best[name], "accuracy": acc,
                         "reps": reps[name]})
            print("lmnn", dataset, name, f"{best[name]:.2f}s acc {acc:.4f}", flush=True)
    return {"rows": rows}


# --- kernel k-means ---------------------------------------------------------------

def section_kkm(quick):
    from sklearn.metrics import adjusted_rand_score

    from benchmarks.kernel_memory import GAMMA, N_CLUSTERS, _data
    from skml.cluster import KernelKMeans

    try:
        from tslearn.clustering import KernelKMeans as TsKernelKMeans
    except ImportError:
        TsKernelKMeans = None
    rows = []
    for n in ((1000,) if quick else (2000, 5000)):
        X, y = _data("blobs", n)
        k, gamma = N_CLUSTERS["blobs"], GAMMA["blobs"]
        makers = {"skml": lambda: KernelKMeans(k, kernel="rbf", gamma=gamma, n_init=1,
                                               max_iter=50, random_state=0)}
        if TsKernelKMeans is not None:
            makers["tslearn"] = lambda: TsKernelKMeans(
                k, kernel="rbf", kernel_params={"gamma": gamma}, n_init=1, max_iter=50,
                random_state=0, n_jobs=1)
        makers["skml"]().fit(X[:200])
        reps = 3
        ests = {name: make() for name, make in makers.items()}
        best, _ = _best({name: (lambda e=e: e.fit(X)) for name, e in ests.items()}, reps)
        for name in ("skml", "tslearn"):
            if name not in ests:
                rows.append({"n": n, "library": name, "fit_s": None})
                continue
            ari = adjusted_rand_score(y, ests[name].labels_)
            rows.append({"n": n, "library": name, "fit_s": best[name], "ari": ari,
                         "n_iter": int(getattr(ests[name], "n_iter_", -1)),
                         "reps": reps})
            print("kkm", n, name, f"{best[name]:.2f}s ARI {ari:.4f}", flush=True)
    return {"rows": rows, "k": N_CLUSTERS["blobs"], "gamma": GAMMA["blobs"]}


# --- scaling -----------------------------------------------------------------------

def section_scaling(quick):
    """Fit time against n at three sizes per family, one thread, CPU seconds,
    and the log-log slope of each contender: gradient boosting (gb_peers'
    classification setup) and t-SNE (the mixture data, 1000 iterations)."""
    import numpy as np

    from benchmarks import gb_peers
    from benchmarks.datasets import _mixture
    from benchmarks.runner import loglog_slope as _slope
    from skml.manifold import TSNE

    out = {"families": []}
    # gradient boosting: the contenders alternate at each size, best of reps
    sizes, reps = ((5000, 10000, 20000), 2) if quick else ((20000, 100000, 500000), 2)
    if "gb" not in SCALING:
        sizes = ()
    times = {}
    for n in sizes:
        X, _, y, _ = gb_peers._data("classification", n)
        live = {k: f for k, f in gb_peers._contenders("classification").items()
                if f is not None}
        for f in live.values():  # warm-up: numba compiles on the first call
            f().fit(X[:500], y[:500])
        best, _ = _best({k: (lambda f=f: f().fit(X, y)) for k, f in live.items()}, reps)
        for k, t in best.items():
            times.setdefault(k, []).append(t)
        print("scaling gb", n, {k: round(t, 3) for k, t in best.items()}, flush=True)
    if times:
        out["families"].append({
            "family": "gradient boosting (classification, 20 features, 100 rounds)",
            "sizes": list(sizes), "reps": reps,
            "rows": [{"library": k, "fit_s": ts, "slope": _slope(sizes, ts)}
                     for k, ts in times.items()]})
    if "tsne" not in SCALING:
        return out
    # t-SNE: one fit each per size (the section's own setting)
    sizes = (500, 1000, 2000) if quick else (2500, 5000, 10000)
    Xall = _mixture(int(sizes[-1] * 4 / 3) + 1, 50, n_clusters=20)[0]
    contenders = {"skml": lambda: TSNE(perplexity=30.0, max_iter=1000, init="pca",
                                       random_state=0, n_jobs=1)}
    try:
        import openTSNE

        contenders["openTSNE (FFT)"] = lambda: openTSNE.TSNE(
            perplexity=30.0, n_iter=750, early_exaggeration_iter=250,
            negative_gradient_method="fft", initialization="pca", n_jobs=1,
            random_state=0)
    except ImportError:
        pass
    from sklearn.manifold import TSNE as SkTSNE

    contenders["scikit-learn (Barnes-Hut)"] = lambda: SkTSNE(
        perplexity=30.0, max_iter=1000, init="pca", random_state=0, n_jobs=1)
    if TSNE_LIBS is not None:
        contenders = {k: f for k, f in contenders.items()
                      if k == "skml" or k.split()[0].lower() in TSNE_LIBS}
    TSNE(max_iter=250, random_state=0, n_jobs=1).fit(Xall[:600])  # warm-up
    times = {}
    for n in sizes:
        X = np.ascontiguousarray(Xall[:n])
        best, _ = _best({k: (lambda f=f: f().fit(X)) for k, f in contenders.items()}, 1)
        for k, t in best.items():
            times.setdefault(k, []).append(t)
        print("scaling tsne", n, {k: round(t, 2) for k, t in best.items()}, flush=True)
    out["families"].append({
        "family": "t-SNE (mixture, 50 features, 1000 iterations)",
        "sizes": list(sizes), "reps": 1,
        "rows": [{"library": k, "fit_s": ts, "slope": _slope(sizes, ts)}
                 for k, ts in times.items()]})
    return out


SECTIONS = {"gb": section_gb, "tsne": section_tsne, "ann": section_ann,
            "lmnn": section_lmnn, "kkm": section_kkm, "scaling": section_scaling,
            "gb_all": section_gb_all, "tsne_all": section_tsne_all}
# the sections that have an all-threads form (``--threads all``)
ALL_THREADS_FORM = {"gb": "gb_all", "tsne": "tsne_all"}


# --- report ------------------------------------------------------------------------------

def _commit():
    """The checkout's short commit hash, or '?' outside a git checkout."""
    try:
        out = subprocess.run(["git", "rev-parse", "--short", "HEAD"],
                             cwd=Path(__file__).resolve().parent, capture_output=True,
                             text=True, timeout=10)
    except (OSError, subprocess.SubprocessError):
        return "?"
    return out.stdout.strip() or "?"


def _r(a, b):
    return "-" if a is None or b is None or b == 0 else f"{a / b:.2f}"


def _s(t):
    return "-" if t is None else f"{t:.3f}" if t < 10 else f"{t:.1f}"


def _k(n):
    """A row count as the tables name it: 20k, or 2667 below a thousand-multiple."""
    return f"{n // 1000}k" if n % 1000 == 0 else str(n)


def _ann_best(rows, library, target):
    """The fastest setting of a library reaching ``target`` recall, else its
    best recall."""
    live = [r for r in rows if r["library"] == library and r.get("setting")]
    if not live:
        return None
    ok = [r for r in live if r["recall"] >= target]
    if ok:
        return min(ok, key=lambda r: r["query_s"])
    return max(live, key=lambda r: r["recall"])


ANN_TARGET = 0.9


def summary_rows(res):
    """(task, peer, skml s, peer s, skml score, peer score, score name)."""
    out = []
    for key in ("gb", "gb_all"):
        if key not in res:
            continue
        rows = res[key]["rows"]
        threads = (f", all {res[key]['threads']} threads (wall s)" if key == "gb_all"
                   else "")
        for r in rows:
            if r["library"] == "skml":
                continue
            me = next(x for x in rows if x["library"] == "skml" and x["kind"] == r["kind"]
                      and x["n"] == r["n"])
            task = f"gradient boosting, {r['kind']}, {_k(r['n'])} x 20{threads}"
            score = "accuracy" if r["kind"] == "classification" else "R^2"
            out.append((task, r["library"], me["fit_s"], r["fit_s"], me["score"],
                        r["score"], score))
    for key in ("tsne", "tsne_all"):
        if key not in res:
            continue
        t = res[key]
        rows = t["rows"]
        threads = (f", all {t['threads']} threads (wall s)" if key == "tsne_all" else "")
        me = next((r for r in rows if r["library"] == "skml"), None)
        if me is None:
            continue
        for r in rows:
            if r is me:
                continue
            out.append((f"t-SNE {_k(t['n'])} x {t['d']}, {t['n_iter']} iterations{threads}",
                        r["library"], me["fit_s"], r["fit_s"],
                        f"KL {me['kl']:.3f}, T {me['trust']:.4f}",
                        None if r["fit_s"] is None else
                        f"KL {r['kl']:.3f}, T {r['trust']:.4f}", "KL (common P), trust."))
    if "ann" in res:
        a = res["ann"]
        me = _ann_best(a["rows"], "skml LSH", ANN_TARGET)
        for lib in ("hnswlib", "faiss IVF", "annoy", "pynndescent"):
            p = _ann_best(a["rows"], lib, ANN_TARGET)
            task = (f"10-NN queries, {a['n'] // 1000}k x {a['d']}, {a['n_queries']} "
                    f"queries: fastest setting with recall@10 >= {ANN_TARGET}")
            if p is None:
                out.append((task, lib, me["query_s"], None, me["recall"], None, "recall"))
                continue
            label = f"{lib} ({p['setting']})"
            if p["recall"] < ANN_TARGET:
                label += f"; no setting reached {ANN_TARGET}: its best recall"
            out.append((task, label, me["query_s"], p["query_s"],
                        me["recall"], p["recall"], "recall@10"))
            out.append((f"index build, {a['n'] // 1000}k x {a['d']} (settings above)",
                        lib, me["build_s"], p["build_s"], None, None, ""))
    if "lmnn" in res:
        rows = res["lmnn"]["rows"]
        for r in rows:
            if r["library"] == "skml":
                continue
            me = next(x for x in rows if x["library"] == "skml"
                      and x["dataset"] == r["dataset"])
            out.append((f"LMNN, {r['dataset']} ({me['n']} x {me['d']}), 3 target neighbours",
                        r["library"], me["fit_s"], r["fit_s"], me["accuracy"],
                        r.get("accuracy"), "3-NN accuracy"))
    if "kkm" in res:
        rows = res["kkm"]["rows"]
        for r in rows:
            if r["library"] == "skml":
                continue
            me = next(x for x in rows if x["library"] == "skml" and x["n"] == r["n"])
            out.append((f"kernel k-means rbf, blobs {r['n']} x 20, k = {res['kkm']['k']}",
                        r["library"], me["fit_s"], r["fit_s"], me["ari"], r.get("ari"),
                        "ARI vs truth"))
    return out


def _fmt_score(v):
    if v is None:
        return "-"
    return f"{v:.4f}" if isinstance(v, float) else str(v)


def _ann_totals(res, lib):
    """(skml, peer) build + query seconds of the summary's settings, and the
    number of queries from which the peer's faster queries repay its build."""
    a = res["ann"]
    me = _ann_best(a["rows"], "skml LSH", ANN_TARGET)
    p = _ann_best(a["rows"], lib, ANN_TARGET)
    if me is None or p is None:
        return None
    per_me = me["query_s"] / a["n_queries"]
    per_p = p["query_s"] / a["n_queries"]
    even = ((p["build_s"] - me["build_s"]) / (per_me - per_p)
            if per_me > per_p and p["build_s"] > me["build_s"] else None)
    return me["build_s"] + me["query_s"], p["build_s"] + p["query_s"], even


ANN_BEHIND = (
    "skml's index is the notes' LSH (A §5: L tables of k p-stable hashes, here with"
    " multi-probe): a query computes the distance to every point of its probed buckets"
    " (the union over the tables and probes), where a graph index (hnswlib,"
    " pynndescent) follows edges from a few entry points towards the query and an"
    " inverted file (faiss IVF) scans only the lists whose centres are nearest. The"
    " gap is the algorithm's: closing it takes a graph or inverted-file index, which"
    " the notes do not cover (`ALGORITHMS.md` lists these libraries as the"
    " specialists to measure against, not as algorithms to build). skml's build is"
    " the fastest, so for a batch of queries it is ahead on build plus queries until"
    " the peer's faster queries repay its longer build:")

# Reasons measured by hand for the other rows: keyed by (summary task, peer),
# written when the row was last measured above 1.0x.
BEHIND_NOTES = {}


def behind_lines(res):
    """The "Rows above 1.0x" section: each such summary row and its reason
    (issue 12 asks for one under every row the goal misses)."""
    out, ann = [], []
    for task, peer, a, b, _, _, _ in summary_rows(res):
        if a is None or b is None or b == 0 or a / b <= 1.0:
            continue
        lib = peer.split(" (")[0]
        if task.startswith("10-NN queries"):
            ann.append((lib, a / b))
            continue
        why = BEHIND_NOTES.get((task, lib), "no reason recorded yet.")
        out.append(f"- **{task}, against {lib}: {a / b:.2f}x.** {why}")
    if ann:
        n_q = res["ann"]["n_queries"]
        text = (f"- **{n_q} 10-NN queries at recall@10 >= {ANN_TARGET}: "
                + ", ".join(f"{lib} {r:.2f}x" for lib, r in ann) + ".** " + ANN_BEHIND)
        for lib, _ in ann:
            mine, theirs, even = _ann_totals(res, lib)
            text += (f" {lib}: build plus {n_q} queries {_s(theirs)} s against skml's"
                     f" {_s(mine)} s"
                     + (f", the two break even at about {even:,.0f} queries;" if even else ";"))
        out.append(text.rstrip(";") + ".")
    if not out:
        return []
    return ["", "## Rows above 1.0x: why, and what it would take", ""] + out


def sections_sentence(res):
    """When each section was measured, at which commit and load."""
    parts = []
    for name, sec in res.items():
        if not isinstance(sec, dict) or "section_s" not in sec:
            continue
        when = sec.get("utc")
        text = f"`{name}`"
        text += (f" on {when} UTC at {sec.get('commit', '?')}" if when
                 else " (date not recorded: before 2026-11-27)")
        if sec.get("load") is not None:
            text += f", load average {sec['load']:.1f} at its end"
        parts.append(text + f", {sec['section_s'] / 60:.1f} min")
    return ("Sections: " + "; ".join(parts) + ".") if parts else ""


def write(res, path, elapsed, ann_png="specialists_ann.png"):
    multi = [k for k in ALL_THREADS_FORM.values() if k in res]
    lines = [
        "# skml against the specialists (one thread"
        + (", and all threads where stated)" if multi else ")"),
        "",
        f"Generated by `python -m benchmarks.specialists` on "
        f"{platform.node() or 'this host'} ({platform.processor() or platform.machine()},"
        f" {os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f} at the end),"
        f" {elapsed / 60:.1f} min of wall time in all{res.get('note', '')}. Every"
        " contender on one thread, same data, same"
        " process; times are process (CPU) seconds. Ratio = skml time / peer time:"
        " below 1.0 skml is faster.",
        "",
    ]
    if sections_sentence(res):
        lines += [sections_sentence(res), ""]
    if multi:
        lines += [
            "All-threads rows (`--threads 1,all`; sections "
            + ", ".join(f"`{k}`" for k in multi) + "): every contender with all the"
            " CPUs (skml t-SNE, openTSNE and scikit-learn `n_jobs=-1`, LightGBM"
            " `num_threads`, XGBoost's and skml's gradient boosting `n_jobs`,"
            " OpenMP and BLAS unpinned), in"
            " a child process started with the threads unpinned, the contenders"
            " alternating; times are wall-clock seconds there (CPU seconds add the"
            " threads up; they are listed beside). "
            + load_sentence([res[k]["load"] for k in multi if "load" in res[k]],
                            "Load averages at the end of those sections; the"
                            " contenders alternate")
            + " On a loaded machine a multi-threaded contender waits for every thread"
            " of a parallel region to be scheduled, so there the all-threads figures"
            " say more about the load than about an idle machine.",
            "",
        ]
    lines += [
        "## Summary",
        "",
        "| task | peer | skml s | peer s | skml / peer | skml score | peer score | score |",
        "|---|---|---|---|---|---|---|---|",
    ]
    # a row may say why it has no figures ("missing"); else the peer is absent
    missing = {r["library"]: r["missing"] for sec in res.values() if isinstance(sec, dict)
               for r in sec.get("rows", []) if r.get("missing")}
    for task, peer, a, b, sa, sb, score in summary_rows(res):
        if b is None and score != "":
            why = missing.get(peer, "peer not installed")
            lines.append(f"| {task} | {peer} | {_s(a)} | {why} | - |"
                         f" {_fmt_score(sa)} | - | {score} |")
            continue
        lines.append(f"| {task} | {peer} | {_s(a)} | {_s(b)} | {_r(a, b)} |"
                     f" {_fmt_score(sa)} | {_fmt_score(sb)} | {score} |")
    lines += behind_lines(res)
    if "gb" in res:
        p = res["gb"]["params"]
        lines += [
            "", "## Gradient boosting", "",
            f"`benchmarks.gb_peers`' setup: {p['rounds']} rounds, depth {p['depth']},"
            f" learning rate {p['lr']}, {p['bins']} value bins (+1 for missing),"
            f" >= {p['min_leaf']} rows per leaf (XGBoost: none); `make_classification` /"
            " `make_regression`, 20 features, 5000 held-out rows. Best of the stated"
            " number of alternating fits (fewer at the larger sizes, to keep the run"
            " short).", "",
            "| task | n_train | library | fit s | score | skml / library | repeats |",
            "|---|---|---|---|---|---|---|",
        ]
        rows = res["gb"]["rows"]
        for r in rows:
            me = next(x for x in rows if x["library"] == "skml" and x["kind"] == r["kind"]
                      and x["n"] == r["n"])
            if r["fit_s"] is None:
                lines.append(f"| {r['kind']} | {r['n']} | {r['library']} |"
                             " peer not installed | - | - | - |")
                continue
            ratio = "-" if r["library"] == "skml" else _r(me["fit_s"], r["fit_s"])
            lines.append(f"| {r['kind']} | {r['n']} | {r['library']} | {_s(r['fit_s'])} |"
                         f" {r['score']:.4f} | {ratio} | {r['reps']} |")
    if "tsne" in res:
        t = res["tsne"]
        lines += [
            "", "## t-SNE", "",
            f"The first {t['n']} points of the `mixture_27k_50` training split"
            f" ({t['n']} x {t['d']}, 20 flat clusters; `--tsne-n` sets the size),"
            f" perplexity 30, {t['n_iter']} iterations (250 exaggerated), PCA"
            " initialisation, seed 0, one fit each (the scikit-learn fit takes"
            " minutes). skml: its default (FFT interpolation); openTSNE:"
            " `negative_gradient_method=\"fft\"`; scikit-learn: Barnes-Hut. \"own KL\""
            " is each library's own final figure (computed its own way); \"KL, common"
            " P\" is KL(P || Q) of every embedding against one P (exact 90 nearest"
            " neighbours, perplexity 30) and the exact Q over all pairs;"
            " trustworthiness: 5 neighbours, ranks among all points, averaged over"
            " 2000 seeded points.", "",
            "| library | fit s | skml / library | own KL | KL, common P |"
            " trustworthiness |",
            "|---|---|---|---|---|---|",
        ]
        me = t["rows"][0]
        for r in t["rows"]:
            if r["fit_s"] is None:
                why = r.get("missing", "peer not installed")
                lines.append(f"| {r['library']} | {why} | - | - | - | - |")
                continue
            ratio = "-" if r is me else _r(me["fit_s"], r["fit_s"])
            lines.append(f"| {r['library']} | {_s(r['fit_s'])} | {ratio} |"
                         f" {r['own_kl']:.3f} | {r['kl']:.3f} | {r['trust']:.4f} |")
    if "gb_all" in res:
        g = res["gb_all"]
        lines += [
            "", f"## Gradient boosting, all {g['threads']} threads", "",
            "The gradient-boosting setup above, every contender with all the CPUs"
            " (skml's has no thread setting: one thread); best wall time of the"
            " stated number of alternating fits, and the CPU seconds of that fit.", "",
            "| task | n_train | library | wall s | CPU s | score | skml / library |"
            " repeats |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in g["rows"]:
            me = next(x for x in g["rows"] if x["library"] == "skml"
                      and x["kind"] == r["kind"] and x["n"] == r["n"])
            if r["fit_s"] is None:
                lines.append(f"| {r['kind']} | {r['n']} | {r['library']} |"
                             " peer not installed | - | - | - | - |")
                continue
            ratio = "-" if r["library"] == "skml" else _r(me["fit_s"], r["fit_s"])
            lines.append(f"| {r['kind']} | {r['n']} | {r['library']} | {_s(r['fit_s'])} |"
                         f" {_s(r['cpu_s'])} | {r['score']:.4f} | {ratio} | {r['reps']} |")
    if "tsne_all" in res:
        t = res["tsne_all"]
        lines += [
            "", f"## t-SNE, all {t['threads']} threads", "",
            f"The t-SNE setup above ({t['n']} x {t['d']}) with `n_jobs=-1` everywhere;"
            + (" one fit each" if t["reps"] == 1 else
               f" best wall time of {t['reps']} alternating fits")
            + ": its wall time, and its CPU seconds.", "",
            "| library | wall s | CPU s | skml / library | own KL | KL, common P |"
            " trustworthiness |",
            "|---|---|---|---|---|---|---|",
        ]
        me = next((r for r in t["rows"] if r["library"] == "skml"), None)
        for r in t["rows"]:
            if r["fit_s"] is None:
                why = r.get("missing", "peer not installed")
                lines.append(f"| {r['library']} | {why} | - | - | - | - | - |")
                continue
            ratio = "-" if r is me or me is None else _r(me["fit_s"], r["fit_s"])
            lines.append(f"| {r['library']} | {_s(r['fit_s'])} | {_s(r['cpu_s'])} |"
                         f" {ratio} | {r['own_kl']:.3f} | {r['kl']:.3f} |"
                         f" {r['trust']:.4f} |")
    if "scaling" in res:
        lines += [
            "", "## Scaling", "",
            "Fit time against the number of training rows at three sizes, one thread,"
            " CPU seconds (the contenders alternate at each size; best of the stated"
            " repeats), and the slope of log(time) against log(n) by least squares:"
            " 1.0 is linear. Same settings as the sections above. At small sizes (the"
            " quick profile) the fixed costs (per round, per iteration) dominate and"
            " the slopes come out below their large-n values.", "",
            "| family | library | sizes | fit s | slope |",
            "|---|---|---|---|---|",
        ]
        for fam in res["scaling"]["families"]:
            for r in fam["rows"]:
                lines.append(
                    f"| {fam['family']} (best of {fam['reps']}) | {r['library']} |"
                    f" {', '.join(_k(n) for n in fam['sizes'])} |"
                    f" {', '.join(_s(t) for t in r['fit_s'])} | {r['slope']:.2f} |")
    if "ann" in res:
        a = res["ann"]
        lines += [
            "", "## Approximate nearest neighbours", "",
            f"{a['n']} training points in {a['d']}-d (flat Gaussian mixture of"
            f" `benchmarks.datasets`, 200 clusters), {a['n_queries']} held-out queries,"
            f" {K} neighbours; recall@10 against exact brute force. Build: one"
            " timed build per index (after a small warm-up build for the numba"
            " libraries, so compilation is excluded). Query: all queries in one"
            f" batch (annoy: one Python call per query), best of {a['reps']}."
            " hnswlib M=16, ef_construction=100; faiss `IndexIVFFlat`, 1024 lists,"
            " k-means trained on every point (`max_points_per_centroid` = n);"
            " pynndescent n_neighbors=30.", "",
            f"![recall against query time]({ann_png})", "",
            "| library | setting | build s | query s | recall@10 |",
            "|---|---|---|---|---|",
        ]
        for r in a["rows"]:
            if r.get("setting") is None:
                lines.append(f"| {r['library']} | peer not installed | - | - | - |")
                continue
            lines.append(f"| {r['library']} | {r['setting']} | {_s(r['build_s'])} |"
                         f" {_s(r['query_s'])} | {r['recall']:.3f} |")
    if "lmnn" in res:
        lines += [
            "", "## LMNN", "",
            "`benchmarks.datasets` splits (standardised), 3 target neighbours, each"
            " library's defaults otherwise (metric-learn: `learn_rate=1e-7`,"
            " `max_iter=1000`; skml: L-BFGS, 50 iterations); the score is a 3-NN"
            " classifier's held-out accuracy in the learnt space. metric-learn 0.7.0"
            " runs with its `force_all_finite` keyword mapped to `ensure_all_finite`"
            " (removed from scikit-learn).", "",
            "| dataset | library | fit s | skml / library | 3-NN accuracy | repeats |",
            "|---|---|---|---|---|---|",
        ]
        rows = res["lmnn"]["rows"]
        for r in rows:
            if r["fit_s"] is None:
                lines.append(f"| {r['dataset']} | {r['library']} | peer not installed |"
                             " - | - | - |")
                continue
            me = next(x for x in rows if x["library"] == "skml"
                      and x["dataset"] == r["dataset"])
            ratio = "-" if r is me else _r(me["fit_s"], r["fit_s"])
            lines.append(f"| {r['dataset']} | {r['library']} | {_s(r['fit_s'])} | {ratio} |"
                         f" {r['accuracy']:.4f} | {r['reps']} |")
    if "kkm" in res:
        kk = res["kkm"]
        lines += [
            "", "## Kernel k-means", "",
            f"8 overlapping Gaussian blobs in 20-d (`benchmarks.kernel_memory`'s"
            f" \"blobs\", standardised), rbf kernel with gamma {kk['gamma']}, k ="
            f" {kk['k']}, one initialisation each (skml: kernel k-means++; tslearn:"
            " random labels), at most 50 iterations, seed 0. The fit includes the"
            " n x n kernel matrix on both sides. tslearn runs on the points as"
            " time series of length 20 (its rbf kernel flattens them back, the same"
            " kernel).", "",
            "| n | library | fit s | skml / library | ARI vs truth | iterations |",
            "|---|---|---|---|---|---|",
        ]
        rows = kk["rows"]
        for r in rows:
            if r["fit_s"] is None:
                lines.append(f"| {r['n']} | {r['library']} | peer not installed | - | - |"
                             " - |")
                continue
            me = next(x for x in rows if x["library"] == "skml" and x["n"] == r["n"])
            ratio = "-" if r is me else _r(me["fit_s"], r["fit_s"])
            lines.append(f"| {r['n']} | {r['library']} | {_s(r['fit_s'])} | {ratio} |"
                         f" {r['ari']:.4f} | {r['n_iter']} |")
    path.write_text("\n".join(lines) + "\n")


def plot_ann(ann, path):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, (ax, bx) = plt.subplots(1, 2, figsize=(11, 4.5))
    markers = {"skml LSH": "o", "hnswlib": "s", "faiss IVF": "^", "annoy": "D",
               "pynndescent": "v"}
    for lib, marker in markers.items():
        sel = [r for r in ann["rows"] if r["library"] == lib and r.get("setting")]
        if not sel:
            continue
        sel.sort(key=lambda r: r["recall"])
        ax.plot([r["recall"] for r in sel], [r["query_s"] for r in sel], marker=marker,
                label=lib)
        bx.scatter([r["recall"] for r in sel], [r["build_s"] for r in sel],
                   marker=marker, label=lib)
    for a in (ax, bx):
        a.axvline(ANN_TARGET, color="grey", lw=0.8)
        a.set_yscale("log")
        a.set_xlabel("recall@10")
        a.legend(fontsize=8)
    ax.set_ylabel(f"query time, {ann['n_queries']} queries (CPU s)")
    bx.set_ylabel("index build time (CPU s)")
    ax.set_title(f"{ann['n'] // 1000}k x {ann['d']}: query time")
    bx.set_title("build time")
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def main(argv=None):
    global TSNE_N, TSNE_LIBS, SCALING
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", default="gb,tsne,ann,lmnn,kkm",
                        help="comma-separated sections: gb,tsne,ann,lmnn,kkm,scaling (and"
                             " the all-threads forms gb_all, tsne_all; see --threads)")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, a smoke test (writes specialists-quick.*)")
    parser.add_argument("--tsne-n", type=int, default=TSNE_N,
                        help="t-SNE training points (at most 20000)")
    parser.add_argument("--tsne-libs", default=None,
                        help="comma-separated t-SNE contenders to run (skml, opentsne,"
                             " scikit-learn; default all)")
    parser.add_argument("--json", type=Path, default=None,
                        help="where the raw figures go (default: results/<stem>.json);"
                             " with --merge, more JSON files to fold in")
    parser.add_argument("--merge", type=Path, nargs="*", default=[],
                        help="sections saved by other runs (their JSON files) to add")
    parser.add_argument("--from-json", action="store_true",
                        help="re-render the report from the saved JSON, running nothing")
    parser.add_argument("--threads", default="1",
                        help="'1' (default), 'all' or '1,all': one-thread rows, and/or"
                             " the all-threads form of the sections that have one ("
                             + ", ".join(ALL_THREADS_FORM) + "), run in a child"
                             " process with the threads unpinned")
    parser.add_argument("--no-report", action="store_true",
                        help="write the JSON only (the all-threads child)")
    parser.add_argument("--scaling", default="gb,tsne",
                        help="families of the scaling section: gb, tsne or both")
    args = parser.parse_args(argv)
    SCALING = tuple(args.scaling.split(","))
    threads = args.threads.split(",")
    if not set(threads) <= {"1", "all"}:
        parser.error(f"--threads takes 1, all or 1,all; got {args.threads!r}")
    names = []
    for name in args.only.split(","):
        if name not in SECTIONS:
            parser.error(f"unknown section {name!r}; known: {', '.join(SECTIONS)}")
        if "1" in threads or name not in ALL_THREADS_FORM:
            names.append(name)
        if "all" in threads and name in ALL_THREADS_FORM:
            names.append(ALL_THREADS_FORM[name])
    TSNE_N = args.tsne_n
    TSNE_LIBS = args.tsne_libs.lower().split(",") if args.tsne_libs else None
    stem = "specialists-quick" if args.quick else "specialists"
    json_path = args.json or RESULTS / f"{stem}.json"
    if args.from_json:
        res = json.loads(json_path.read_text())["results"]
        for other in args.merge:
            more = json.loads(other.read_text())["results"]
            if "scaling" in more and "scaling" in res:  # families measured apart
                names = {f["family"] for f in more["scaling"]["families"]}
                more["scaling"]["families"] = [
                    f for f in res["scaling"]["families"] if f["family"] not in names
                ] + more["scaling"]["families"]
            res.update(more)
        json_path.write_text(json.dumps({"results": res}, indent=1))
    else:
        # a run of some sections keeps the others' saved figures
        res = json.loads(json_path.read_text())["results"] if json_path.exists() else {}
        for name in names:
            start = time.perf_counter()
            res[name] = SECTIONS[name](args.quick)
            res[name]["section_s"] = time.perf_counter() - start
            res[name]["load"] = os.getloadavg()[0]
            res[name]["utc"] = time.strftime("%Y-%m-%d %H:%M", time.gmtime())
            res[name]["commit"] = _commit()
            json_path.write_text(json.dumps({"results": res}, indent=1))
    if args.no_report:
        return
    elapsed = sum(r.get("section_s", 0.0) for r in res.values() if isinstance(r, dict))
    write(res, RESULTS / f"{stem}.md", elapsed, f"{stem}_ann.png")
    if "ann" in res:
        plot_ann(res["ann"], RESULTS / f"{stem}_ann.png")
    print(f"report: {RESULTS / (stem + '.md')}")


if __name__ == "__main__":
    main()
