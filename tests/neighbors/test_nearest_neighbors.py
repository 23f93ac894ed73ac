"""NearestNeighbors: brute force and KD-tree equal scikit-learn (notes A §5.1-5.3)."""

import joblib
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import neighbors as sk
from sklearn.datasets import load_wine
from sklearn.preprocessing import StandardScaler

from skml.neighbors import NearestNeighbors
from skml.metrics.pairwise import euclidean_distances
from skml.utils import _parallel
from tests._parity import parity_test

# (metric, p) pairs; cosine and p < 1 are brute force only.
METRICS = [("minkowski", 2), ("minkowski", 1), ("minkowski", 3), ("minkowski", np.inf),
           ("euclidean", 2), ("manhattan", 2), ("chebyshev", 2)]
BRUTE_ONLY = [("cosine", 2), ("minkowski", 0.5)]
CASES = ([(m, p, "brute") for m, p in METRICS + BRUTE_ONLY]
         + [(m, p, "kd_tree") for m, p in METRICS])


def _data(seed=0, n=300, q=40, d=4):
    rng = np.random.RandomState(seed)
    return rng.normal(size=(n, d)), rng.normal(size=(q, d))


def _pair(metric, p, algorithm, **kw):
    ours = NearestNeighbors(algorithm=algorithm, metric=metric, p=p, **kw)
    ref = sk.NearestNeighbors(algorithm="brute", metric=metric, p=p, **kw)
    return ours, ref


@pytest.mark.filterwarnings("ignore:Mind that for 0 < p < 1")
@pytest.mark.parametrize("metric,p,algorithm", CASES)
@pytest.mark.parametrize("query_is_train", [False, True])
def test_kneighbors_equal_scikit_learn(metric, p, algorithm, query_is_train):
    X, Q = _data()
    Q = None if query_is_train else Q
    ours, ref = _pair(metric, p, algorithm, n_neighbors=6)
    ours.fit(X)
    ref.fit(X)
    d1, i1 = ours.kneighbors(Q)
    d2, i2 = ref.kneighbors(Q)
    assert_allclose(d1, d2, rtol=1e-10, atol=1e-10)
    assert_array_equal(i1, i2)
    for mode in ("connectivity", "distance"):
        g1, g2 = ours.kneighbors_graph(Q, mode=mode), ref.kneighbors_graph(Q, mode=mode)
        assert g1.format == "csr" and g1.shape == g2.shape
        assert_allclose(g1.toarray(), g2.toarray(), rtol=1e-10, atol=1e-10)
    assert ours.effective_metric_ == ref.effective_metric_
    assert ours.n_samples_fit_ == ref.n_samples_fit_


@pytest.mark.filterwarnings("ignore:Mind that for 0 < p < 1")
@pytest.mark.parametrize("metric,p,algorithm", CASES)
def test_radius_neighbors_equal_scikit_learn(metric, p, algorithm):
    X, Q = _data(1)
    radius = 0.5 if metric == "cosine" else 1.2
    ours, ref = _pair(metric, p, algorithm, radius=radius)
    ours.fit(X)
    ref.fit(X)
    for q in (Q, None):
        d1, i1 = ours.radius_neighbors(q, sort_results=True)
        d2, i2 = ref.radius_neighbors(q, sort_results=True)
        assert len(i1) == len(i2)
        for a, b, da, db in zip(i1, i2, d1, d2):
            assert_array_equal(a, b)
            assert_allclose(da, db, rtol=1e-10, atol=1e-10)
        g1 = ours.radius_neighbors_graph(q, mode="distance")
        g2 = ref.radius_neighbors_graph(q, mode="distance")
        assert_allclose(g1.toarray(), g2.toarray(), rtol=1e-10, atol=1e-10)
        connectivity = ours.radius_neighbors_graph(q)
        assert (connectivity != ref.radius_neighbors_graph(q)).nnz == 0


@parity_test(NearestNeighbors)
@pytest.mark.parametrize("algorithm", ["brute", "kd_tree", "auto"])
def test_parity_wine(algorithm):
    X, _ = load_wine(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    ours = NearestNeighbors(n_neighbors=5, algorithm=algorithm).fit(X[:150])
    ref = sk.NearestNeighbors(n_neighbors=5).fit(X[:150])
    d1, i1 = ours.kneighbors(X[150:])
    d2, i2 = ref.kneighbors(X[150:])
    assert_allclose(d1, d2, rtol=1e-10)
    assert_array_equal(i1, i2)


def test_query_is_train_excludes_self():
    X, _ = _data(2, n=50)
    for algorithm in ("brute", "kd_tree"):
        nn = NearestNeighbors(n_neighbors=49, algorithm=algorithm).fit(X)
        ind = nn.kneighbors(return_distance=False)
        assert not np.any(ind == np.arange(50)[:, None])
        _, radius_ind = nn.radius_neighbors(radius=100.0)
        assert all(i not in row for i, row in enumerate(radius_ind))
        with pytest.raises(ValueError, match="n_neighbors <= n_samples_fit"):
            nn.kneighbors(n_neighbors=50)


def test_blocks_and_threads_give_the_same_answer(monkeypatch):
    X, Q = _data(3, n=500, q=300)
    expected = {}
    for algorithm in ("brute", "kd_tree"):
        nn = NearestNeighbors(n_neighbors=4, algorithm=algorithm, radius=1.0).fit(X)
        expected[algorithm] = (nn.kneighbors(None), nn.radius_neighbors_graph(Q))
    # Blocks of 2 query rows, and two threads.
    monkeypatch.setattr(_parallel, "WORKING_MEMORY", 8 * 500 * 2)
    for algorithm in ("brute", "kd_tree"):
        nn = NearestNeighbors(n_neighbors=4, algorithm=algorithm, n_jobs=2).fit(X)
        (d, i), g = nn.kneighbors(None), nn.radius_neighbors_graph(Q)
        (d0, i0), g0 = expected[algorithm]
        assert_allclose(d, d0, rtol=1e-12)
        assert_array_equal(i, i0)
        assert (g != g0).nnz == 0


@pytest.mark.parametrize("algorithm", ["brute", "kd_tree"])
def test_process_backend_gives_the_same_answer(algorithm):
    # The threads write into shared arrays: a process backend activated by the
    # user must not take them to other processes (garbage indices, issue 19).
    X, Q = _data(4, n=200, q=30)
    params = {"n_neighbors": 3, "algorithm": algorithm, "radius": 1.0}
    one = NearestNeighbors(n_jobs=1, **params).fit(X)
    expected = one.kneighbors(Q), one.kneighbors(None), one.radius_neighbors_graph(Q)
    with joblib.parallel_backend("loky"):
        two = NearestNeighbors(n_jobs=2, **params).fit(X)
        got = two.kneighbors(Q), two.kneighbors(None), two.radius_neighbors_graph(Q)
    for (d, i), (d0, i0) in zip(got[:2], expected[:2]):
        assert_array_equal(i, i0)
        assert_allclose(d, d0, rtol=1e-12)
    assert (got[2] != expected[2]).nnz == 0


def test_brute_force_distances_are_exact():
    # Issue 19: the expansion ||x||² − 2x·y + ||y||² only ranks; the kept
    # neighbours are measured by differences, as the KD-tree measures them:
    # duplicates at exactly 0, and both engines give the same distances.
    rng = np.random.RandomState(5)
    X = rng.normal(size=(200, 4)) + 1000.0
    X[100:110] = X[:10]  # exact duplicates
    brute = NearestNeighbors(n_neighbors=4, algorithm="brute", radius=0.0).fit(X)
    tree = NearestNeighbors(n_neighbors=4, algorithm="kd_tree", radius=0.0).fit(X)
    for query in (X, None):
        (d_b, i_b), (d_t, i_t) = brute.kneighbors(query), tree.kneighbors(query)
        assert_array_equal(i_b, i_t)
        assert_array_equal(d_b, d_t)
    assert_array_equal(brute.kneighbors(X)[0][:, 0], 0.0)
    assert_array_equal(brute.kneighbors(None)[0][:10, 0], 0.0)
    # radius=0 finds each point and its duplicate, with both engines.
    g_b = brute.radius_neighbors_graph(X, mode="distance")
    g_t = tree.radius_neighbors_graph(X, mode="distance")
    assert_array_equal(np.diff(g_b.indptr), [2] * 10 + [1] * 90 + [2] * 10 + [1] * 90)
    assert (g_b != g_t).nnz == 0
    assert g_b.count_nonzero() == 0  # all distances exactly 0


@pytest.mark.parametrize("n_jobs", [1, 2])
def test_brute_force_tiles_match_tree_and_scikit_learn(monkeypatch, n_jobs):
    # Issue 12: the Euclidean brute force folds tiles of products into the
    # heaps; tiles smaller than the data (and not dividing it) must give the
    # same neighbours as one pass: the tree's, with exact distances (a
    # duplicate at 0, ties by index) and scikit-learn's.
    from skml.neighbors import _base
    monkeypatch.setattr(_base, "_TILE_ROWS", 7)
    monkeypatch.setattr(_base, "_TILE_COLS", 50)
    rng = np.random.RandomState(11)
    X = rng.normal(size=(230, 6))
    X[200:215] = X[:15]  # exact duplicates, across tiles
    Q = np.vstack([rng.normal(size=(40, 6)), X[:5]])
    brute = NearestNeighbors(n_neighbors=6, algorithm="brute", n_jobs=n_jobs).fit(X)
    tree = NearestNeighbors(n_neighbors=6, algorithm="kd_tree").fit(X)
    ref = sk.NearestNeighbors(n_neighbors=6, algorithm="brute").fit(X)
    for query in (Q, None):
        (d_b, i_b), (d_t, i_t) = brute.kneighbors(query), tree.kneighbors(query)
        assert_array_equal(i_b, i_t)
        assert_array_equal(d_b, d_t)
        # scikit-learn orders tied duplicates its own way, and leaves them
        # at ~1e-8 (its expansion's rounding): same distances to that.
        assert_allclose(d_b, ref.kneighbors(query)[0], rtol=1e-12, atol=1e-7)
    d_q, i_q = brute.kneighbors(Q)
    assert_array_equal(d_q[40:, :2], 0.0)  # each point and its duplicate
    assert_array_equal(i_q[40:, :2], np.c_[np.arange(5), 200 + np.arange(5)])
    d_n, i_n = brute.kneighbors(None)
    assert_array_equal(d_n[:15, 0], 0.0)  # the duplicate, not the point itself
    assert_array_equal(i_n[:15, 0], 200 + np.arange(15))
    assert not np.any(i_n == np.arange(230)[:, None])


def test_minkowski_p_below_one_warns_as_scikit_learn():
    X, _ = _data(6, n=30)
    with pytest.warns(UserWarning, match="Mind that for 0 < p < 1"):
        NearestNeighbors(n_neighbors=2, p=0.5).fit(X)
    with pytest.raises(ValueError, match="does not support"):
        NearestNeighbors(n_neighbors=2, p=0.5, algorithm="kd_tree").fit(X)


def test_precomputed_equals_euclidean():
    X, Q = _data(4)
    euclid = NearestNeighbors(n_neighbors=3, radius=1.5).fit(X)
    pre = NearestNeighbors(n_neighbors=3, radius=1.5, metric="precomputed")
    pre.fit(euclidean_distances(X))
    for q, q_pre in ((Q, euclidean_distances(Q, X)), (None, None)):
        d1, i1 = euclid.kneighbors(q)
        d2, i2 = pre.kneighbors(q_pre)
        assert_allclose(d1, d2, atol=1e-12)
        assert_array_equal(i1, i2)
        g1, g2 = euclid.radius_neighbors_graph(q), pre.radius_neighbors_graph(q_pre)
        assert (g1 != g2).nnz == 0
    with pytest.raises(ValueError, match="Negative values"):
        pre.kneighbors(-euclidean_distances(Q, X))
    with pytest.raises(ValueError, match="square"):
        NearestNeighbors(metric="precomputed").fit(np.ones((3, 4)))


def test_auto_choice_of_engine():
    rng = np.random.RandomState(0)
    low = NearestNeighbors().fit(rng.normal(size=(100, 15)))
    high = NearestNeighbors().fit(rng.normal(size=(100, 16)))
    cosine = NearestNeighbors(metric="cosine").fit(rng.normal(size=(100, 3)))
    big_k = NearestNeighbors(n_neighbors=50).fit(rng.normal(size=(100, 3)))
    assert low._fit_method == "kd_tree"
    assert [m._fit_method for m in (high, cosine, big_k)] == ["brute"] * 3


grid_points = st.integers(2, 40).flatmap(
    lambda n: arrays(np.float64, (n, 3), elements=st.integers(-2, 2).map(float))
)


@given(X=grid_points, p=st.sampled_from([1, 2, np.inf]), k=st.integers(1, 5),
       leaf_size=st.integers(1, 5))
def test_kd_tree_equals_brute(X, p, k, leaf_size):
    # Integer coordinates: exact distances in both engines and many ties,
    # which both break by training index.
    k = min(k, len(X) - 1)
    brute = NearestNeighbors(n_neighbors=k, algorithm="brute", p=p, radius=1.5).fit(X)
    tree = NearestNeighbors(n_neighbors=k, algorithm="kd_tree", p=p, radius=1.5,
                            leaf_size=leaf_size).fit(X)
    for q in (None, X[:3] + 0.5):
        d1, i1 = brute.kneighbors(q)
        d2, i2 = tree.kneighbors(q)
        assert_allclose(d1, d2, atol=1e-12)
        assert_array_equal(i1, i2)
        d1, i1 = brute.radius_neighbors(q, sort_results=True)
        d2, i2 = tree.radius_neighbors(q, sort_results=True)
        for a, b in zip(i1, i2):
            assert_array_equal(a, b)


def test_errors():
    X, _ = _data()
    with pytest.raises(ValueError, match="kd_tree"):
        NearestNeighbors(algorithm="kd_tree", metric="cosine").fit(X)
    with pytest.raises(ValueError, match="metric"):
        NearestNeighbors(metric="no_such_metric").fit(X)
    with pytest.raises(ValueError, match="n_neighbors"):
        NearestNeighbors(n_neighbors=0).fit(X)
    nn = NearestNeighbors().fit(X)
    with pytest.raises(ValueError, match="n_neighbors <= n_samples_fit"):
        nn.kneighbors(X, n_neighbors=301)
    with pytest.raises(TypeError, match="n_neighbors"):
        nn.kneighbors(X, n_neighbors=2.0)
    with pytest.raises(ValueError, match="mode"):
        nn.kneighbors_graph(X, mode="weights")
    with pytest.raises(ValueError, match="radius"):
        nn.radius_neighbors(X, radius=-1.0)
    with pytest.raises(ValueError, match="features"):
        nn.kneighbors(X[:, :2])
    with pytest.raises(ValueError, match="NaN"):
        nn.kneighbors(np.full((1, 4), np.nan))


@pytest.mark.parametrize("factor", [1e300, 1e-300])
@pytest.mark.parametrize("algorithm, metric, p", [
    ("brute", "euclidean", 2), ("kd_tree", "euclidean", 2), ("brute", "manhattan", 2),
    ("kd_tree", "chebyshev", 2), ("brute", "minkowski", 3), ("brute", "cosine", 2),
])
def test_extreme_magnitude_gives_the_clean_neighbours(factor, algorithm, metric, p):
    # Issue 23: squared distances overflowed at X * 1e300 (inf distances)
    # and underflowed at X * 1e-300 (ties: neighbours at random). The index
    # holds X / 2^e: same neighbours, distances times the factor.
    X = load_wine().data[:80]
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    params = dict(n_neighbors=4, algorithm=algorithm, metric=metric, p=p)
    ref = NearestNeighbors(**params).fit(X)
    nn = NearestNeighbors(**params).fit(X * factor)
    unit = 1.0 if metric == "cosine" else factor
    for query in (None, X[:10]):
        d_ref, i_ref = ref.kneighbors(query)
        d, i = nn.kneighbors(None if query is None else query * factor)
        assert_array_equal(i, i_ref)
        assert_allclose(d / unit, d_ref, rtol=1e-10, atol=1e-14)
    radius = float(np.median(d_ref[:, -1]))
    d_ref, i_ref = ref.radius_neighbors(X[:10], radius, sort_results=True)
    d, i = nn.radius_neighbors(X[:10] * factor, radius * unit, sort_results=True)
    for row in range(10):
        assert_array_equal(i[row], i_ref[row])
        assert_allclose(d[row] / unit, d_ref[row], rtol=1e-10, atol=1e-14)
