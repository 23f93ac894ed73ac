"""KMeans: parity with scikit-learn given the same init, notes A §7.2 and B §10.3."""

import warnings

import numpy as np
import scipy.sparse as sp
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import cluster as sk
from sklearn.datasets import load_digits, load_iris, load_wine, make_circles
from sklearn.exceptions import ConvergenceWarning
from sklearn.metrics import adjusted_rand_score
from threadpoolctl import threadpool_limits

from skml.cluster import KMeans, kmeans_plusplus
from skml.cluster import _kmeans
from tests._parity import parity_test


@pytest.fixture(autouse=True)
def _one_blas_thread():
    # Small problems: on a busy machine BLAS/OpenMP threads only contend.
    with threadpool_limits(1):
        yield


def _blobs(seed, n=60, d=2, k=3):
    rng = np.random.RandomState(seed)
    centres = rng.normal(scale=4.0, size=(k, d))
    return centres[np.arange(n) % k] + rng.normal(size=(n, d))


def _assert_same(ours, ref):
    assert_array_equal(ours.labels_, ref.labels_)
    assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-10, atol=1e-10)
    assert_allclose(ours.inertia_, ref.inertia_, rtol=1e-10)
    assert ours.n_iter_ == ref.n_iter_


@parity_test(KMeans)
@pytest.mark.parametrize("load", [load_iris, load_wine, load_digits])
@pytest.mark.parametrize("k", [3, 8])
def test_parity_given_init(load, k):
    X = load().data
    init = X[: 3 * k : 3].copy()
    kw = {"n_clusters": k, "init": init, "n_init": 1}
    ours, ref = KMeans(**kw).fit(X), sk.KMeans(**kw).fit(X)
    _assert_same(ours, ref)
    assert_array_equal(ours.predict(X[::7]), ref.predict(X[::7]))
    assert_allclose(ours.transform(X[:20]), ref.transform(X[:20]), rtol=1e-8)
    assert_allclose(ours.score(X), ref.score(X), rtol=1e-10)


@parity_test(KMeans)
def test_parity_sample_weight_and_float32():
    X = load_wine().data
    w = np.random.RandomState(0).uniform(0.1, 3.0, size=len(X))
    kw = {"n_clusters": 4, "init": X[:4].copy(), "n_init": 1}
    ours = KMeans(**kw).fit(X, sample_weight=w)
    ref = sk.KMeans(**kw).fit(X, sample_weight=w)
    _assert_same(ours, ref)
    X32 = load_iris().data.astype(np.float32)
    kw = {"n_clusters": 3, "init": X32[:3].copy(), "n_init": 1}
    ours, ref = KMeans(**kw).fit(X32), sk.KMeans(**kw).fit(X32)
    assert ours.cluster_centers_.dtype == np.float32
    assert_array_equal(ours.labels_, ref.labels_)
    assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-5)


@parity_test(KMeans)
@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_parity_seeding_same_random_state(init):
    # Greedy k-means++ and random seeding draw the same random numbers as
    # scikit-learn's, so the same seed gives the same clustering here.
    X = load_iris().data
    ours = KMeans(3, init=init, random_state=0).fit(X)
    ref = sk.KMeans(3, init=init, random_state=0).fit(X)
    assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0
    assert_allclose(ours.inertia_, ref.inertia_, rtol=1e-10)


@parity_test(KMeans)
def test_parity_empty_cluster_relocation():
    # A centre far from every sample gets no member in the first assignment
    # and is moved to the sample farthest from its centre, as scikit-learn.
    X = load_iris().data
    init = np.vstack([X[:2], np.full((1, 4), 100.0)])
    ours = KMeans(3, init=init, n_init=1).fit(X)
    ref = sk.KMeans(3, init=init, n_init=1).fit(X)
    _assert_same(ours, ref)
    assert len(np.unique(ours.labels_)) == 3


@parity_test(KMeans)
@pytest.mark.parametrize("algorithm", ["lloyd", "elkan", "hamerly"])
def test_parity_more_clusters_than_distinct_samples(algorithm):
    # Issue 19: 5 centres on 4 distinct samples. No sample can be relocated
    # (all sit on their centres), so the empty cluster joins the heaviest one
    # and the run stops after one iteration, as scikit-learn's; it used to
    # move samples between clusters for all max_iter iterations.
    X = np.array([[0, 0], [1, 1], [1, 1], [1, 0], [0, 1]], dtype=float)
    msg = r"Number of distinct clusters \(4\) found smaller than n_clusters \(5\)"
    with pytest.warns(ConvergenceWarning, match=msg):
        ours = KMeans(n_clusters=5, init=X, algorithm=algorithm).fit(X)
    with pytest.warns(ConvergenceWarning, match=msg):
        ref = sk.KMeans(n_clusters=5, init=X, n_init=1).fit(X)
    assert ours.n_iter_ == 1
    _assert_same(ours, ref)


@parity_test(KMeans)
@pytest.mark.parametrize("algorithm", ["lloyd", "elkan", "hamerly"])
def test_parity_relocated_sample_of_zero_weight(algorithm):
    # The farthest sample has weight 0: the relocated cluster stays empty and
    # is placed on the heaviest cluster's centre (not at the origin).
    rng = np.random.RandomState(0)
    X = rng.normal(size=(30, 2))
    X[0] = [8.0, 8.0]
    w = np.ones(30)
    w[0] = 0.0
    init = np.array([[0.0, 0.0], [1.0, 1.0], [50.0, 50.0]])
    with pytest.warns(ConvergenceWarning, match="distinct clusters"):
        ours = KMeans(3, init=init, algorithm=algorithm).fit(X, sample_weight=w)
    with pytest.warns(ConvergenceWarning, match="distinct clusters"):
        ref = sk.KMeans(3, init=init, n_init=1).fit(X, sample_weight=w)
    _assert_same(ours, ref)


@given(seed=st.integers(0, 2**16), k=st.integers(1, 6))
def test_objective_never_increases(seed, k):
    X = _blobs(seed, n=50, d=3)
    km = KMeans(k, init="random", n_init=1, random_state=seed, tol=0.0).fit(X)
    h = km.inertia_history_
    assert len(h) == km.n_iter_
    scale = 1e-10 * h[0]
    assert np.all(np.diff(h) <= scale)
    assert km.inertia_ <= h[-1] + scale


@given(seed=st.integers(0, 2**16), k=st.integers(1, 8), weighted=st.booleans())
def test_hamerly_bounds_give_lloyds_iterations(seed, k, weighted):
    # The bounds only skip work: every iteration's labels are the full scan's.
    rng = np.random.RandomState(seed)
    X = _blobs(seed, n=120, d=4, k=4)
    sw = rng.uniform(0.1, 3.0, X.shape[0]) if weighted else None
    kw = dict(n_clusters=k, init="random", n_init=2, random_state=seed, tol=0.0)
    lloyd = KMeans(algorithm="lloyd", **kw).fit(X, sample_weight=sw)
    hamerly = KMeans(algorithm="hamerly", **kw).fit(X, sample_weight=sw)
    _assert_same(hamerly, lloyd)
    assert_allclose(hamerly.inertia_history_, lloyd.inertia_history_, rtol=1e-9)


@parity_test(KMeans)
@pytest.mark.parametrize("load", [load_iris, load_wine, load_digits])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_parity_elkan_given_init(load, dtype):
    # Issue 21: algorithm="elkan" as scikit-learn's, from the same centres.
    X = load().data.astype(dtype)
    init = X[:24:3].copy()
    kw = {"n_clusters": 8, "init": init, "n_init": 1, "algorithm": "elkan"}
    ours, ref = KMeans(**kw).fit(X), sk.KMeans(**kw).fit(X)
    assert_array_equal(ours.labels_, ref.labels_)
    assert ours.n_iter_ == ref.n_iter_
    assert ours.cluster_centers_.dtype == dtype
    rtol = 1e-10 if dtype == np.float64 else 1e-5
    assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=rtol,
                    atol=rtol * np.abs(X).max())
    assert_allclose(ours.inertia_, ref.inertia_, rtol=rtol)
    assert_array_equal(ours.predict(X[::7]), ref.predict(X[::7]))


@given(seed=st.integers(0, 2**16), k=st.integers(1, 8), weighted=st.booleans(),
       n=st.integers(8, 80), d=st.integers(1, 5))
def test_elkan_bounds_give_lloyds_iterations(seed, k, weighted, n, d):
    # Elkan's k lower bounds and the centre-centre distances only skip work:
    # every iteration's labels are the full scan's.
    rng = np.random.RandomState(seed)
    X = _blobs(seed, n=max(n, k), d=d, k=3)
    sw = rng.uniform(0.1, 3.0, X.shape[0]) if weighted else None
    kw = dict(n_clusters=k, init="random", n_init=2, random_state=seed, tol=0.0)
    lloyd = KMeans(algorithm="lloyd", **kw).fit(X, sample_weight=sw)
    elkan = KMeans(algorithm="elkan", **kw).fit(X, sample_weight=sw)
    _assert_same(elkan, lloyd)
    # Elkan's objective comes from the cluster sums: rounding about eps times
    # the total sum of squares (k = n leaves 0 against ~1e-16).
    total = ((X - X.mean(axis=0)) ** 2).sum() * (1.0 if sw is None else sw.max())
    assert_allclose(elkan.inertia_history_, lloyd.inertia_history_, rtol=1e-9,
                    atol=1e-12 * total)


def test_elkan_ties_go_to_the_lowest_centre():
    # Two identical centres: every distance ties, and the lower index wins
    # as in the full scan (the higher one is emptied and relocated).
    X = _blobs(0, n=40, d=2, k=2)
    init = np.vstack([X[:1], X[:1], X[1:2]])
    kw = dict(n_clusters=3, init=init, n_init=1, max_iter=3)
    _assert_same(KMeans(algorithm="elkan", **kw).fit(X),
                 KMeans(algorithm="lloyd", **kw).fit(X))


def test_elkan_kernel_skips_and_tightens():
    # Sample 0 is proven by upper < half_gap: no distance, bounds moved by
    # the drifts. Sample 1's bounds fail: its upper bound is tightened to
    # the exact distance and it moves to the nearer centre 1.
    X = np.array([[0.0, 0.0], [6.0, 0.0]])
    centers = np.array([[0.0, 0.0], [10.0, 0.0]])
    half_cc = np.array([[0.0, 5.0], [5.0, 0.0]])
    half_gap = np.array([5.0, 5.0])
    drift = np.array([0.5, 0.25])
    labels = np.array([0, 0], dtype=np.int32)
    upper = np.array([1.0, 5.0])
    lower = np.array([[0.0, 9.0], [5.0, 4.5]])
    sums, weights = np.zeros((2, 2)), np.zeros(2)
    _kmeans.elkan_block(X, np.ones(2), centers, half_cc, half_gap, drift, labels,
                        upper, lower, sums, weights)
    assert_array_equal(labels, [0, 1])
    assert_allclose(upper, [1.5, 4.0])
    assert_allclose(lower, [[0.0, 8.75], [6.0, 4.0]])
    assert_allclose(sums, [X[0], X[1]])


def test_elkan_matches_lloyd_in_threads_and_float32(monkeypatch):
    X = load_digits().data
    init = X[:10].copy()
    lloyd = KMeans(10, init=init, n_init=1, algorithm="lloyd").fit(X)
    monkeypatch.setattr(_kmeans, "numba_threads", lambda work, n_rows: 3)
    elkan = KMeans(10, init=init, n_init=1, algorithm="elkan").fit(X)
    _assert_same(elkan, lloyd)
    X32 = X.astype(np.float32)
    lloyd32 = KMeans(10, init=X32[:10].copy(), n_init=1, algorithm="lloyd").fit(X32)
    elkan32 = KMeans(10, init=X32[:10].copy(), n_init=1, algorithm="elkan").fit(X32)
    assert_array_equal(elkan32.labels_, lloyd32.labels_)
    assert elkan32.cluster_centers_.dtype == np.float32
    assert_array_equal(elkan32.predict(X32), elkan32.labels_)


@pytest.mark.parametrize("m", [1, 127, 128, 300])
@pytest.mark.parametrize("d", [5, 40])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_tiled_lloyd_kernel_matches_the_formula(m, d, dtype):
    # Issue 12: the GEMM-style kernel (tiles of 128 or 256 samples, products
    # in the dtype of X; per-pair dots beyond 32 features) against the
    # nearest centre and the sums computed directly, incl. a partial tile.
    rng = np.random.RandomState(m)
    X = rng.normal(size=(m, d)).astype(dtype)
    sw = rng.uniform(0.5, 2.0, m).astype(dtype)
    rtol = 1e-10 if dtype == np.float64 else 1e-4
    centers = rng.normal(size=(7, d)).astype(dtype)
    centers_sq = np.einsum("ij,ij->i", centers, centers)
    labels = np.full(m, -1, dtype=np.int32)
    sums, weights = np.zeros((7, d), dtype=dtype), np.zeros(7, dtype=dtype)
    objective, n_changed = _kmeans.lloyd_block(X, sw, centers, centers_sq, labels,
                                               sums, weights, True, False)
    assert n_changed == m  # from no labels (-1)
    d2 = ((X[:, None, :].astype(float) - centers[None].astype(float)) ** 2).sum(axis=2)
    assert_array_equal(labels, d2.argmin(axis=1))
    # The relabelling pass with exact=True: inertia_ summed in the same pass,
    # bit for bit as the separate inertia pass; nothing changed.
    labels_before = labels.copy()
    no_sums, no_weights = np.zeros((7, d), dtype=dtype), np.zeros(7, dtype=dtype)
    exact, n_changed = _kmeans.lloyd_block(X, sw, centers, centers_sq, labels,
                                           no_sums, no_weights, False, True)
    assert n_changed == 0
    assert_array_equal(labels, labels_before)
    assert not no_sums.any() and not no_weights.any()
    assert exact == _kmeans.inertia_block(X, sw, centers, labels)
    assert_allclose(exact, (sw * d2.min(axis=1)).sum(), rtol=rtol)
    labels[: m // 2] = (labels[: m // 2] + 1) % 7
    assert _kmeans.lloyd_block(X, sw, centers, centers_sq, labels, no_sums,
                               no_weights, False, False)[1] == m // 2
    # The kernel leaves out Σ w ||x||² (the caller adds it once per fit).
    x_sq = (sw * (X.astype(float) ** 2).sum(axis=1)).sum()
    assert_allclose(objective + x_sq, (sw * d2.min(axis=1)).sum(), rtol=rtol)
    for j in range(7):
        assert_allclose(sums[j], (sw[labels == j, None] * X[labels == j]).sum(axis=0),
                        rtol=rtol, atol=rtol)
        assert_allclose(weights[j], sw[labels == j].sum(), rtol=rtol)


def test_tiled_lloyd_kernel_ties_go_to_the_lowest_centre():
    X = np.array([[1.0, 0.0], [0.0, 0.0]], dtype=np.float32)
    centers = np.array([[0.0, 0.0], [2.0, 0.0], [0.0, 0.0]], dtype=np.float32)
    labels = np.empty(2, dtype=np.int32)
    _kmeans.lloyd_block(X, np.ones(2, np.float32), centers,
                              np.einsum("ij,ij->i", centers, centers), labels,
                              np.zeros((3, 2), np.float32), np.zeros(3, np.float32),
                              False, False)
    assert_array_equal(labels, [0, 0])


@given(seed=st.integers(0, 2**16), k=st.integers(1, 8), d=st.integers(1, 40))
def test_float32_hamerly_ranks_as_the_tiled_lloyd_kernel(seed, k, d):
    # Issue 12: float32 "lloyd" runs the tiled kernel; Hamerly's rescans
    # rank with the same float32 products in the same order, so the two
    # algorithms give the same labels bit for bit, also at near-ties.
    X = _blobs(seed, n=150, d=d, k=3).astype(np.float32)
    kw = dict(n_clusters=k, init="random", n_init=1, random_state=seed, tol=0.0,
              max_iter=20)
    lloyd = KMeans(algorithm="lloyd", **kw).fit(X)
    hamerly = KMeans(algorithm="hamerly", **kw).fit(X)
    assert_array_equal(hamerly.labels_, lloyd.labels_)
    assert_array_equal(hamerly.cluster_centers_, lloyd.cluster_centers_)
    assert hamerly.n_iter_ == lloyd.n_iter_



def _near_tie_data(rng, base, n, dtype):
    """Samples around ``base`` and on the bisectors of pairs of its rows."""
    k, d = base.shape
    X = base[rng.randint(k, size=n)] + rng.normal(scale=0.7, size=(n, d))
    if k > 1:
        # Equidistant from centres a and b (up to the rounding of the dtype):
        # their midpoint plus a step orthogonal to a - b.
        a, b = rng.randint(k, size=n // 2), rng.randint(k, size=n // 2)
        b = np.where(a == b, (b + 1) % k, b)
        u = base[a] - base[b]
        v = rng.normal(size=(n // 2, d))
        along = (v * u).sum(axis=1) / np.maximum((u * u).sum(axis=1), 1e-300)
        v -= u * along[:, None]
        X[: n // 2] = 0.5 * (base[a] + base[b]) + v
    return np.ascontiguousarray(X, dtype=dtype)


@given(seed=st.integers(0, 2**16), k=st.integers(1, 8),
       d=st.one_of(st.integers(1, 40), st.integers(60, 140)),
       dtype=st.sampled_from([np.float32, np.float64]), weighted=st.booleans())
def test_hamerly_labels_equal_lloyds_after_every_iteration(seed, k, d, dtype, weighted):
    # Issue 12: Hamerly's bounds, drifts and half gaps in the dtype of X,
    # rounded the safe way. From the same centres, each pass gives the labels
    # and sums of lloyd's full scan bit for bit, also for samples at a
    # near-tie (on the bisector of two centres) and for centres that move by
    # a few ulps (bounds barely loosened, tests at their margin); the bounds
    # hold against the exact (float64) distances after every pass.
    rng = np.random.RandomState(seed)
    base = rng.normal(scale=3.0, size=(k, d))
    X = _near_tie_data(rng, base, 300, dtype)
    sw = (rng.uniform(0.1, 3.0, 300) if weighted else np.ones(300)).astype(dtype)
    ham = _kmeans._Lloyd(X, sw, None, 1, bounds="hamerly")
    ref = _kmeans._Lloyd(X, sw, None, 1)
    labels_h = np.full(300, -1, dtype=np.int32)
    labels_l = labels_h.copy()
    X64 = X.astype(np.float64)
    centers = base.astype(dtype)
    for it in range(10):
        _, sums_h, w_h, changed_h = ham.assign(centers, labels_h, update=True)
        _, sums_l, w_l, changed_l = ref.assign(centers, labels_l, update=True)
        assert_array_equal(labels_h, labels_l)
        assert_array_equal(sums_h, sums_l)
        assert_array_equal(w_h, w_l)
        assert changed_h == changed_l
        dist = np.sqrt(((X64[:, None, :] - centers.astype(np.float64)[None]) ** 2)
                       .sum(axis=2))
        own = dist[np.arange(300), labels_h]
        dist[np.arange(300), labels_h] = np.inf
        slack = 1e-12 if dtype == np.float32 else 1e-9  # the reference's rounding
        assert np.all(ham.upper >= own * (1 - slack))
        assert np.all(ham.lower <= dist.min(axis=1) * (1 + slack) + 1e-300)
        # Next centres: a few ulps to a whole step away (Hamerly's bounds
        # hold for any sequence of centres, not only the means).
        scale = [0.0, 1e-7, 1e-6, 1e-3, 0.3][rng.randint(5)]
        moved = centers + scale * rng.normal(size=centers.shape) * np.abs(centers)
        centers = np.ascontiguousarray(moved, dtype=dtype)

@parity_test(KMeans)
@pytest.mark.parametrize("load", [load_wine, load_digits])
def test_parity_float32_given_init(load):
    # Issue 12: float32 data stay float32 (products in float32, as
    # scikit-learn's sgemm blocks) and give scikit-learn's clustering.
    X = load().data.astype(np.float32)
    kw = {"n_clusters": 6, "init": X[:18:3].copy(), "n_init": 1, "algorithm": "lloyd"}
    ours, ref = KMeans(**kw).fit(X), sk.KMeans(**kw).fit(X)
    assert ours.cluster_centers_.dtype == np.float32
    assert_array_equal(ours.labels_, ref.labels_)
    assert ours.n_iter_ == ref.n_iter_
    assert_allclose(ours.cluster_centers_, ref.cluster_centers_, rtol=1e-5,
                    atol=1e-5 * np.abs(X).max())
    assert_allclose(ours.inertia_, ref.inertia_, rtol=1e-5)


def test_hamerly_skips_samples_whose_bounds_prove_the_label():
    # Issue 26: the upper bound was written but never read, so every sample's
    # distance to its centre was recomputed. A sample proven by its bounds is
    # now not touched: its upper bound only grows by the drift of its centre.
    X = np.array([[0.0, 0.0], [0.1, 0.0], [10.0, 0.0], [10.2, 0.0]])
    centers = np.array([[0.0, 0.0], [10.0, 0.0]])
    centers_sq = np.einsum("ij,ij->i", centers, centers)
    half_gap = np.array([5.0, 5.0])
    drift = np.array([0.5, 0.25])
    labels = np.array([0, 0, 1, 1], dtype=np.int32)
    # Valid but loose upper bounds (the true distances are 0, 0.1, 0, 0.2),
    # and lower bounds (true: 10, 9.9, 10, 10.2) except sample 3, whose upper
    # bound exceeds max(lower, half_gap) until it is tightened.
    upper = np.array([1.0, 2.0, 3.0, 6.0])
    lower = np.array([9.0, 9.0, 9.0, 5.5])
    sums, weights = np.zeros((2, 2)), np.zeros(2)
    eps = np.finfo(np.float64).eps
    safety = np.array([1 + 2 * eps, 1 - 2 * eps, 1 + 8 * eps, 1e-12])
    _kmeans.hamerly_block(X, np.ones(4), centers, centers_sq, half_gap, drift,
                          labels, upper, lower, sums, weights, safety)
    assert_array_equal(labels, [0, 0, 1, 1])
    assert_allclose(upper, [1.5, 2.5, 3.25, 0.2])  # 3 tightened to its distance
    assert_allclose(sums, [X[:2].sum(axis=0), X[2:].sum(axis=0)])
    assert_allclose(weights, [2.0, 2.0])


def test_hamerly_matches_lloyd_on_digits_in_threads(monkeypatch):
    X = load_digits().data
    init = X[:10].copy()
    lloyd = KMeans(10, init=init, n_init=1, algorithm="lloyd").fit(X)
    monkeypatch.setattr(_kmeans, "numba_threads", lambda work, n_rows: 3)
    hamerly = KMeans(10, init=init, n_init=1, algorithm="hamerly").fit(X)
    _assert_same(hamerly, lloyd)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("max_iter", [1, 2, 4])
def test_hamerly_relabels_through_bounds_after_max_iter(dtype, max_iter):
    # Issue 12: the relabelling after the last update (max_iter reached, no
    # strict convergence) runs through the bounds too; labels, centres and
    # inertia stay Lloyd's, in the input's dtype, and scikit-learn's labels.
    X = load_digits().data.astype(dtype)
    init = X[:10].copy()
    kw = dict(n_clusters=10, init=init, n_init=1, max_iter=max_iter, tol=0.0)
    lloyd = KMeans(algorithm="lloyd", **kw).fit(X)
    hamerly = KMeans(algorithm="hamerly", **kw).fit(X)
    assert hamerly.n_iter_ == max_iter
    _assert_same(hamerly, lloyd)
    assert hamerly.cluster_centers_.dtype == dtype
    assert_array_equal(hamerly.labels_, hamerly.predict(X))
    ref = sk.KMeans(**kw).fit(X)
    assert_array_equal(hamerly.labels_, ref.labels_)


def test_objective_never_increases_across_max_iter():
    # The same through max_iter: stop after t Lloyd iterations, from one init.
    X = load_digits().data[:400]
    init = X[:10].copy()
    inertias = [
        KMeans(10, init=init, n_init=1, max_iter=t, tol=0.0).fit(X).inertia_
        for t in range(1, 12)
    ]
    assert np.all(np.diff(inertias) <= 1e-9 * inertias[0])
    assert inertias[-1] < inertias[0]


@given(seed=st.integers(0, 2**16))
def test_sample_weight_equals_repeated_points(seed):
    rng = np.random.RandomState(seed)
    X = _blobs(seed, n=30)
    w = rng.randint(1, 4, size=len(X))
    init = X[:3].copy()
    weighted = KMeans(3, init=init, n_init=1).fit(X, sample_weight=w)
    repeated = KMeans(3, init=init, n_init=1).fit(np.repeat(X, w, axis=0))
    assert_allclose(
        weighted.cluster_centers_, repeated.cluster_centers_, rtol=1e-10, atol=1e-10
    )
    assert_allclose(weighted.inertia_, repeated.inertia_, rtol=1e-10)
    assert_array_equal(np.repeat(weighted.labels_, w), repeated.labels_)


def test_converged_state_is_fixed_point():
    # Notes B §10.3: each centre is the mean of its members, and
    # re-assigning changes nothing.
    X = load_wine().data
    km = KMeans(4, random_state=0, tol=0.0).fit(X)
    assert_array_equal(km.predict(X), km.labels_)
    for j in range(4):
        members = X[km.labels_ == j]
        assert_allclose(km.cluster_centers_[j], members.mean(axis=0), rtol=1e-10)
    assert_allclose(-km.score(X), km.inertia_, rtol=1e-10)
    d2 = km.transform(X) ** 2
    assert_allclose(d2.min(axis=1).sum(), km.inertia_, rtol=1e-8)


def test_extreme_k():
    X = _blobs(0, n=12)
    km = KMeans(1, n_init=1, random_state=0).fit(X)
    assert_allclose(km.cluster_centers_[0], X.mean(axis=0))
    km = KMeans(len(X), n_init=1, random_state=0).fit(X)
    assert_allclose(km.inertia_, 0.0, atol=1e-12)


def test_concentric_circles_are_a_documented_failure():
    # Notes A §7.2: Lloyd cannot separate non-convex clusters.
    X, y = make_circles(200, factor=0.3, noise=0.02, random_state=0)
    labels = KMeans(2, random_state=0).fit_predict(X)
    assert adjusted_rand_score(y, labels) < 0.1


def test_n_init_keeps_best_run():
    X = load_digits().data[:500]
    rng = np.random.RandomState(0)
    inits = [X[rng.choice(len(X), 10, replace=False)] for _ in range(4)]
    runs = [KMeans(10, init=c.copy(), n_init=1).fit(X).inertia_ for c in inits]
    calls = iter(inits)

    def next_init(X_centred, k, random_state):
        # The callable gets centred data: centre the seeds the same way.
        return next(calls) - X.mean(axis=0)

    best = KMeans(10, init=next_init, n_init=4).fit(X)
    assert_allclose(best.inertia_, min(runs), rtol=1e-10)


def test_threads_give_the_same_labels(monkeypatch):
    X = load_digits().data
    init = X[:10].copy()
    one = KMeans(10, init=init, n_init=1).fit(X)
    monkeypatch.setattr(_kmeans, "numba_threads", lambda work, n_rows: 3)
    three = KMeans(10, init=init, n_init=1).fit(X)
    assert_array_equal(one.labels_, three.labels_)
    assert_allclose(
        one.cluster_centers_, three.cluster_centers_, rtol=1e-12, atol=1e-12
    )
    assert_array_equal(three.predict(X), one.labels_)


def test_kmeans_plusplus_seeds_are_samples():
    X = load_iris().data
    centers, idx = kmeans_plusplus(X, 5, random_state=0)
    assert_allclose(centers, X[idx])
    assert len(set(idx)) == 5


def test_callable_init_and_copy_x():
    X = load_iris().data
    X0 = X.copy()

    def first_rows(X, k, random_state):
        return X[:k]

    a = KMeans(3, init=first_rows, n_init=1, copy_x=False).fit(X)
    assert_allclose(X, X0, rtol=1e-12)
    b = KMeans(3, init=X[:3].copy(), n_init=1).fit(X)
    assert_array_equal(a.labels_, b.labels_)


def test_duplicate_points_warn():
    X = np.array([[0.0, 0.0]] * 5 + [[1.0, 1.0]] * 5)
    with pytest.warns(ConvergenceWarning, match="distinct clusters"):
        KMeans(3, n_init=1, random_state=0).fit(X)


@pytest.mark.parametrize(
    "params, X, match",
    [
        ({"n_clusters": 5}, np.ones((3, 2)), "n_samples=3 should be >= n_clusters=5"),
        ({"n_clusters": 2, "init": np.zeros((3, 2))}, np.eye(4)[:, :2],
         r"initial centers \(3, 2\) does not match the number of clusters 2"),
        ({"n_clusters": 2, "init": np.zeros((2, 3))}, np.eye(4)[:, :2],
         r"initial centers \(2, 3\) does not match the number of features of the data 2"),
        ({"init": "kmeans"}, np.eye(10), "init"),
        ({"n_init": 0}, np.eye(10), "n_init"),
        ({"algorithm": "full"}, np.eye(10), "algorithm"),
    ],
)
def test_bad_parameters(params, X, match):
    with pytest.raises(ValueError, match=match):
        KMeans(**params).fit(X)


def test_bad_input():
    with pytest.raises(ValueError, match="NaN"):
        KMeans(2).fit([[0.0, np.nan], [1.0, 1.0], [2.0, 2.0]])
    with pytest.raises(ValueError, match="zero"):
        KMeans(2).fit(np.eye(3), sample_weight=np.zeros(3))
    with pytest.raises(ValueError, match="sample_weight"):
        KMeans(2).fit(np.eye(3), sample_weight=np.ones(2))


@pytest.mark.parametrize("factor", [1e300, 1e-300])
@pytest.mark.parametrize("init", ["k-means++", "random"])
def test_extreme_magnitude_gives_the_clean_clustering(factor, init):
    # Issue 23: at X * 1e300 squared distances overflowed (NaN transform),
    # at X * 1e-300 they underflowed to 0 (labels at random). The clustering
    # is scale-invariant: it runs on X / 2^e, and maps back.
    X = load_iris().data
    params = dict(n_clusters=3, init=init, n_init=2, random_state=0)
    ref = KMeans(**params).fit(X)
    km = KMeans(**params).fit(X * factor)
    assert_array_equal(km.labels_, ref.labels_)
    assert km.n_iter_ == ref.n_iter_
    assert_allclose(km.cluster_centers_ / factor, ref.cluster_centers_, rtol=1e-12)
    assert_array_equal(km.predict(X * factor), ref.predict(X))
    assert_allclose(km.transform(X * factor) / factor, ref.transform(X), rtol=1e-10)
    if factor < 1:  # 1e-600 underflows; at 1e300 the objective is inf (1e600)
        assert km.inertia_ == 0.0
    else:
        assert np.isinf(km.inertia_)


@pytest.mark.parametrize("factor", [1e25, 1e-25])
def test_extreme_float32_magnitude_gives_the_clean_clustering(factor):
    # float32 squares overflow from |x| ~ 1e19 (labels at 1e25 were 41%
    # right, transform inf): the float32 fit rescales from 2^40 already.
    X = load_iris().data.astype(np.float32)
    ref = KMeans(n_clusters=3, n_init=2, random_state=0).fit(X)
    km = KMeans(n_clusters=3, n_init=2, random_state=0).fit(X * np.float32(factor))
    assert km.cluster_centers_.dtype == np.float32
    assert_array_equal(km.labels_, ref.labels_)
    assert_allclose(km.transform(X * np.float32(factor)) / factor, ref.transform(X),
                    rtol=1e-5, atol=1e-5)


def test_sparse_lloyd_kernel_with_transposed_centres():
    # Issue 20: the CSR pass reads the centres transposed (d, k); labels,
    # weighted sums, weights and objective are those of the formula.
    import scipy.sparse as sp

    rng = np.random.RandomState(0)
    S = sp.random(300, 2000, density=0.01, format="csr", random_state=1)
    S.sum_duplicates()
    X = S.toarray()
    centers = rng.normal(size=(5, 2000)) * 0.1
    sw = rng.uniform(0.5, 2.0, 300)
    csq = np.einsum("ij,ij->i", centers, centers)
    labels = np.full(300, -1, dtype=np.int32)
    sums, weights = np.zeros((5, 2000)), np.zeros(5)
    obj, n_changed = _kmeans.lloyd_block_sparse(
        S.data, S.indices, S.indptr, 0, 300, sw, np.ascontiguousarray(centers.T),
        csq, labels, sums, weights, True)
    d2 = ((X[:, None, :] - centers[None]) ** 2).sum(axis=2)
    assert_array_equal(labels, d2.argmin(axis=1))
    ref_sums = np.zeros_like(sums)
    np.add.at(ref_sums, labels, sw[:, None] * X)
    assert_allclose(sums, ref_sums, rtol=1e-12, atol=1e-15)
    assert_allclose(weights, np.bincount(labels, weights=sw, minlength=5))
    assert_allclose(obj, (sw * d2.min(axis=1)).sum(), rtol=1e-10)
    assert n_changed == 300  # from no labels (-1)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_centring_kernels(dtype):
    # The numba centring of fit (issue 12): the means as X.mean(axis=0) sums
    # them (float64 rows in order), the centred copy or the in-place shift,
    # and the statistics of the same pass against numpy.
    rng = np.random.RandomState(0)
    X = (rng.standard_normal((1000, 7)) * 3 + 5).astype(dtype)
    w = rng.uniform(0.5, 2.0, 1000).astype(dtype)
    mean = _kmeans.column_means(X)
    assert mean.dtype == dtype
    if dtype == np.float64:
        assert_array_equal(mean, X.mean(axis=0))  # same sums in the same order
    else:
        assert_array_equal(mean, X.astype(np.float64).mean(axis=0).astype(dtype))
    out = np.empty_like(X)
    stats = _kmeans.center_into(X, out, mean, w)
    assert_array_equal(out, X - mean)
    Y = X.copy()
    assert_array_equal(np.array(_kmeans.center_in_place(Y, mean, w)[:2]),
                       np.array(stats[:2]))
    assert_array_equal(Y, out)
    max_abs, w_sq_norm, col_sum, col_sq = stats
    C = out.astype(np.float64)
    assert max_abs == np.abs(C).max()
    assert_allclose(w_sq_norm, _kmeans.weighted_sq_norm(out, w), rtol=1e-12)
    assert_allclose(w_sq_norm, ((C**2).sum(axis=1) * w).sum(), rtol=1e-12)
    assert_allclose(col_sum, C.sum(axis=0), rtol=1e-9, atol=1e-9)
    assert_allclose(col_sq / 1000 - (col_sum / 1000) ** 2, X.astype(float).var(axis=0),
                    rtol=1e-5 if dtype == np.float32 else 1e-12)
    X[3, 2] = np.nan
    assert not np.isfinite(_kmeans.column_means(X)[2])



def _sparse_with_duplicates():
    # CSR with duplicate entries (not canonical): fit sums them.
    rng = np.random.RandomState(0)
    rows = rng.randint(0, 60, 400)
    cols = rng.randint(0, 30, 400)
    S = sp.csr_matrix((rng.uniform(0.5, 2.0, 400), cols, np.searchsorted(
        np.sort(rows), np.arange(61))), shape=(60, 30))
    assert not S.has_canonical_format
    return S


@pytest.mark.parametrize("kind", ["dense64", "dense32", "fortran", "list", "csr",
                                  "csr_duplicates", "csr_huge", "csc", "dense_huge"])
def test_copy_x_leaves_the_input_as_it_was(kind):
    # fit no longer copies X up front (issues 12 and 20): the dense copy is
    # the centring pass's output and CSR data are copied only where fit
    # writes (duplicates summed, rescaling of extreme data). The caller's
    # X must stay bit for bit as it was, and the fit equal a fit on a copy.
    rng = np.random.RandomState(1)
    dense = _blobs(0, n=60, d=30, k=3)
    X = {
        "dense64": dense, "dense32": dense.astype(np.float32),
        "fortran": np.asfortranarray(dense), "list": dense.tolist(),
        "csr": sp.random(60, 30, density=0.2, format="csr", random_state=rng),
        "csr_duplicates": _sparse_with_duplicates(),
        "csr_huge": sp.random(60, 30, density=0.2, format="csr",
                              random_state=rng) * 1e300,
        "csc": sp.random(60, 30, density=0.2, format="csc", random_state=rng),
        "dense_huge": dense * 1e300,
    }[kind]
    if sp.issparse(X):
        before = [X.data.copy(), X.indices.copy(), X.indptr.copy()]
    else:
        before = [np.array(X)]
    params = dict(n_clusters=3, init="random", n_init=2, random_state=0)
    km = KMeans(**params).fit(X)
    after = ([X.data, X.indices, X.indptr] if sp.issparse(X) else [np.array(X)])
    for a, b in zip(after, before):
        assert_array_equal(a, b)
    ref = KMeans(**params).fit(X.copy() if sp.issparse(X) else np.array(X))
    assert_array_equal(km.labels_, ref.labels_)
    assert_array_equal(km.cluster_centers_, ref.cluster_centers_)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("bad, match", [(np.nan, "NaN"), (np.inf, "infinity"),
                                        (-np.inf, "infinity")])
def test_non_finite_input_is_refused_before_any_write(dtype, bad, match):
    # Dense X is checked through its column means (issue 12): the same
    # error as the validation's, raised before X is centred (copy_x=False).
    X = _blobs(0, n=30).astype(dtype)
    X[7, 1] = bad
    X0 = X.copy()
    with pytest.raises(ValueError, match=match):
        KMeans(3, copy_x=False, n_init=1).fit(X)
    assert_array_equal(X, X0)


def test_sparse_fit_does_not_copy_the_data():
    # Issue 20: fit copied a canonical CSR matrix up front (copy_x=True),
    # although it never writes to it: 1.28x scikit-learn's peak memory on
    # the sparse text benchmark. Now the peak of a fit stays well below the
    # size of the CSR arrays (one copy would be 100% of them).
    import tracemalloc

    S = sp.random(20_000, 1000, density=0.05, format="csr", random_state=0)
    S.sum_duplicates()
    size = S.data.nbytes + S.indices.nbytes
    km = KMeans(3, n_init=1, max_iter=3, random_state=0)
    km.fit(S[:200])  # compilation, imports
    tracemalloc.start()
    try:
        km.fit(S)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 0.5 * size, (peak, size)


@pytest.mark.parametrize("kw", [{"algorithm": "lloyd"}, {"algorithm": "elkan"},
                                {"metric": "manhattan"}])
def test_verbose_reports_each_initialization(kw, capsys):
    # scikit-learn's verbose output: one line per initialisation, then the
    # iterations
    X = np.random.RandomState(0).normal(size=(200, 3))
    KMeans(3, n_init=2, init="random", random_state=0, verbose=1, **kw).fit(X)
    out = capsys.readouterr().out
    assert out.count("Initialization complete") == 2
    assert out.index("Initialization complete") < out.index("Iteration 0")


def test_elkan_with_one_cluster_warns_and_runs_lloyd():
    X = np.random.RandomState(0).normal(size=(50, 3))
    with pytest.warns(RuntimeWarning, match="algorithm='elkan' doesn't make sense "
                                            "for a single cluster"):
        km = KMeans(1, algorithm="elkan", n_init=1, random_state=0).fit(X)
    assert_allclose(km.cluster_centers_[0], X.mean(axis=0))
    assert_allclose(km.inertia_, ((X - X.mean(axis=0)) ** 2).sum())
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)  # the default: silent
        KMeans(1, n_init=1, random_state=0).fit(X)


@pytest.mark.parametrize("algorithm", ["lloyd", "elkan", "hamerly"])
@pytest.mark.parametrize("d", [3, 20, 40])
def test_float32_inertia_against_a_float64_reference(algorithm, d):
    # Issue 12: float32 data get float32 distances, summed per tile in
    # float64 (the last relabelling pass of lloyd, inertia_block for the
    # bounded variants, predict/score); inertia_ and score stay those of the
    # returned labels and centres, to float32 rounding, also away from 0.
    rng = np.random.RandomState(d)
    X = (_blobs(d, n=3000, d=d, k=5) + 50.0).astype(np.float32)
    sw = rng.uniform(0.5, 2.0, len(X)).astype(np.float32)
    km = KMeans(5, n_init=1, random_state=0, algorithm=algorithm).fit(
        X, sample_weight=sw)
    diff = X.astype(np.float64) - km.cluster_centers_.astype(np.float64)[km.labels_]
    reference = float((sw.astype(np.float64) * (diff**2).sum(axis=1)).sum())
    assert_allclose(km.inertia_, reference, rtol=1e-5)
    assert_allclose(-km.score(X, sample_weight=sw), reference, rtol=1e-5)
    # float64 data: the same sums to float64 rounding.
    X64 = X.astype(np.float64)
    km64 = KMeans(5, n_init=1, random_state=0, algorithm=algorithm).fit(
        X64, sample_weight=sw)
    diff = X64 - km64.cluster_centers_[km64.labels_]
    assert_allclose(km64.inertia_, (sw * (diff**2).sum(axis=1)).sum(), rtol=1e-12)


@pytest.mark.parametrize("d", [1, 2, 3, 4, 8])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lloyd_kernel_sums_for_few_features(d, dtype):
    # The sums read each row 8 wide (the padding from the next rows): with
    # d < 4 that spans more than the next row, so the last rows of the block
    # are read d wide (the sums must not need data past the block's end).
    rng = np.random.RandomState(d)
    X = rng.normal(size=(300, d)).astype(dtype)
    sw = rng.uniform(0.5, 2.0, 300).astype(dtype)
    centers = rng.normal(size=(3, d)).astype(dtype)
    labels = np.full(300, -1, dtype=np.int32)
    sums, weights = np.zeros((3, d), dtype=dtype), np.zeros(3, dtype=dtype)
    _kmeans.lloyd_block(X, sw, centers, np.einsum("ij,ij->i", centers, centers),
                        labels, sums, weights, True, False)
    for j in range(3):
        members = labels == j
        expected = np.zeros(d, dtype=dtype)
        for x, w in zip(X[members], sw[members]):  # in sample order, as the kernel
            expected += w * x
        assert_array_equal(sums[j], expected)
