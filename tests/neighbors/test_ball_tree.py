"""BallTree: equal to scikit-learn's BallTree and to brute force (notes A §5.2)."""

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import cdist
from sklearn import neighbors as sk
from sklearn.datasets import load_digits, load_wine

from skml.neighbors import BallTree, KNeighborsClassifier, KNeighborsRegressor
from skml.neighbors import NearestNeighbors
from tests._parity import parity_test

P_VALUES = [1, 2, np.inf, 3]


def _haversine(A, B):
    dlat = A[:, None, 0] - B[None, :, 0]
    dlon = A[:, None, 1] - B[None, :, 1]
    s = np.sin(dlat / 2) ** 2 + np.cos(A[:, None, 0]) * np.cos(B[None, :, 0]) * np.sin(
        dlon / 2) ** 2
    return 2 * np.arcsin(np.sqrt(s))


def _sorted_by_distance_then_index(D):
    order = np.array([np.lexsort((np.arange(D.shape[1]), row)) for row in D])
    return np.take_along_axis(D, order, axis=1), order


def _check_against_brute(tree, X, Q, D, k):
    """Same distances as D and the (distance, index)-first k indices."""
    dist, ind = tree.query(Q, k=k)
    ref_d, ref_i = _sorted_by_distance_then_index(D)
    assert_allclose(dist, ref_d[:, :k], rtol=1e-10, atol=1e-12)
    # The k-th distance may be tied with points beyond k: the tie rule picks
    # the smaller indices, as the brute-force order does.
    assert_array_equal(ind, ref_i[:, :k])


@pytest.mark.parametrize("p", P_VALUES)
@pytest.mark.parametrize("leaf_size", [1, 5, 40])
def test_query_equals_scikit_learn_on_wine(p, leaf_size):
    X, _ = load_wine(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    rng = np.random.RandomState(0)
    Q = X[rng.choice(len(X), 40)] + 0.1 * rng.normal(size=(40, X.shape[1]))
    ours = BallTree(X, leaf_size=leaf_size, p=p)
    ref = sk.BallTree(X, leaf_size=leaf_size, metric="minkowski", p=p)
    d1, i1 = ours.query(Q, k=7)
    d2, i2 = ref.query(Q, k=7)
    assert_allclose(d1, d2, rtol=1e-10, atol=1e-12)
    # Wine's rounded measurements tie under Chebyshev; scikit-learn orders
    # ties its own way, ours by index, as the brute force below.
    D = cdist(Q, X, "minkowski", p=p) if np.isfinite(p) else cdist(Q, X, "chebyshev")
    _check_against_brute(ours, X, Q, D, 7)
    if np.isfinite(p):
        assert_array_equal(i1, i2)


def test_digits_equals_scikit_learn_and_brute_force():
    # Integer pixels: many tied distances; scikit-learn orders ties its own
    # way, so indices are compared with the brute force's (distance, index).
    X, _ = load_digits(return_X_y=True)
    tree, ref = BallTree(X[:1500], leaf_size=20), sk.BallTree(X[:1500], leaf_size=20)
    Q = X[1500:1600]
    d1, _ = tree.query(Q, k=5)
    d2, _ = ref.query(Q, k=5)
    assert_allclose(d1, d2, rtol=1e-12)
    _check_against_brute(tree, X[:1500], Q, cdist(Q, X[:1500]), 5)


@pytest.mark.parametrize("metric, kwargs", [
    ("canberra", {}),
    ("hamming", {}),
    ("chebyshev", {}),
    ("seuclidean", {"V": np.arange(1.0, 14.0)}),
    ("mahalanobis", {"VI": np.eye(13) + 0.3}),
    ("minkowski", {"p": 3, "w": np.linspace(0.5, 2.0, 13)}),
])
def test_other_metrics_equal_scipy_and_scikit_learn(metric, kwargs):
    X, _ = load_wine(return_X_y=True)
    X = np.round((X - X.mean(0)) / X.std(0), 1)  # ties for hamming
    Q = X[:30] + 0.05
    tree = BallTree(X[30:], leaf_size=6, metric=metric, **kwargs)
    scipy_kwargs = dict(kwargs)
    scipy_name = metric
    if metric == "minkowski":
        scipy_kwargs["w"] = kwargs["w"]
    _check_against_brute(tree, X[30:], Q, cdist(Q, X[30:], scipy_name, **scipy_kwargs), 4)
    d_ref, _ = sk.BallTree(X[30:], leaf_size=6, metric=metric, **kwargs).query(Q, k=4)
    assert_allclose(tree.query(Q, k=4)[0], d_ref, rtol=1e-10, atol=1e-12)


def test_haversine_equals_scikit_learn():
    rng = np.random.RandomState(0)
    X = np.c_[rng.uniform(-1.5, 1.5, 500), rng.uniform(-np.pi, np.pi, 500)]
    Q = np.c_[rng.uniform(-1.5, 1.5, 30), rng.uniform(-np.pi, np.pi, 30)]
    tree = BallTree(X, leaf_size=10, metric="haversine")
    _check_against_brute(tree, X, Q, _haversine(Q, X), 6)
    d2, i2 = sk.BallTree(X, leaf_size=10, metric="haversine").query(Q, k=6)
    d1, i1 = tree.query(Q, k=6)
    assert_allclose(d1, d2, rtol=1e-10)
    assert_array_equal(i1, i2)
    ind, dist = tree.query_radius(Q, 0.3, return_distance=True, sort_results=True)
    ref_i, ref_d = sk.BallTree(X, metric="haversine").query_radius(
        Q, 0.3, return_distance=True, sort_results=True)
    for a, b, da, db in zip(ind, ref_i, dist, ref_d):
        assert_array_equal(a, b)
        assert_allclose(da, db, rtol=1e-10)


@pytest.mark.parametrize("p", P_VALUES)
def test_query_radius_equals_scikit_learn(p):
    X, _ = load_wine(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    Q = X[::7] + 0.05
    ours, ref = BallTree(X, leaf_size=8, p=p), sk.BallTree(X, leaf_size=8, p=p)
    r = np.linspace(1.0, 4.0, len(Q))
    i1, d1 = ours.query_radius(Q, r, return_distance=True, sort_results=True)
    i2, d2 = ref.query_radius(Q, r, return_distance=True, sort_results=True)
    for a, b, da, db in zip(i1, i2, d1, d2):
        assert_allclose(da, db, rtol=1e-10, atol=1e-12)
        assert sorted(a) == sorted(b)
    assert_array_equal(ours.query_radius(Q, 2.5, count_only=True),
                       ref.query_radius(Q, 2.5, count_only=True))


grid_points = st.integers(1, 40).flatmap(
    lambda n: arrays(np.float64, (n, 2), elements=st.integers(-3, 3).map(float))
)


@given(X=grid_points, p=st.sampled_from(P_VALUES), leaf_size=st.integers(1, 6),
       k=st.integers(1, 6), r=st.floats(0.0, 4.0))
def test_tree_equals_brute_force_with_ties(X, p, leaf_size, k, r):
    # Integer grid: many exact ties, which both sides break by index; the
    # radius query is inclusive, also at exact ties.
    k = min(k, len(X))
    Q = np.array([[0.0, 0.0], [0.5, -1.0], [3.0, 3.0]])
    tree = BallTree(X, leaf_size=leaf_size, p=p)
    D = cdist(Q, X, "minkowski", p=p) if np.isfinite(p) else cdist(Q, X, "chebyshev")
    _check_against_brute(tree, X, Q, D, k)
    r = float(np.round(r))  # grid distances such as 1, 2, 3 are hit exactly
    for row, ind in enumerate(tree.query_radius(Q, r)):
        assert sorted(ind) == list(np.flatnonzero(D[row] <= r))


def test_duplicates_ordered_by_index_and_pickle():
    X = np.zeros((10, 3))
    dist, ind = BallTree(X, leaf_size=2).query([[0.0, 0.0, 0.0]], k=4)
    assert_array_equal(ind, [[0, 1, 2, 3]])
    assert_array_equal(dist, np.zeros((1, 4)))
    rng = np.random.RandomState(0)
    X, Q = rng.normal(size=(200, 3)), rng.normal(size=(10, 3))
    tree = BallTree(X, leaf_size=4, metric="mahalanobis", VI=np.diag([1.0, 2, 3]))
    clone = pickle.loads(pickle.dumps(tree))
    for a, b in zip(tree.query(Q, k=4), clone.query(Q, k=4)):
        assert_array_equal(a, b)
    assert_array_equal(clone.kernel_density(Q, 0.5), tree.kernel_density(Q, 0.5))


def test_node_data_describes_balls():
    rng = np.random.RandomState(1)
    X = rng.normal(size=(300, 4))
    tree = BallTree(X, leaf_size=10)
    nd = tree.node_data
    centres = tree.node_bounds[0]
    for node in range(tree.n_nodes):
        pts = X[tree.idx_array[nd["idx_start"][node]:nd["idx_end"][node]]]
        assert np.linalg.norm(pts - centres[node], axis=1).max() <= (
            nd["radius"][node] * (1 + 1e-12))
    assert nd["is_leaf"].sum() == (tree.n_nodes + 1) // 2


def test_errors():
    X = np.random.RandomState(0).normal(size=(10, 2))
    tree = BallTree(X)
    with pytest.raises(ValueError, match="k must be less than or equal"):
        tree.query(X, k=11)
    with pytest.raises(ValueError, match="dimension"):
        tree.query(np.ones((2, 3)))
    with pytest.raises(ValueError, match="metric"):
        BallTree(X, metric="cosine")
    with pytest.raises(ValueError, match="p must be"):
        BallTree(X, p=0.5)
    with pytest.raises(ValueError, match="leaf_size"):
        BallTree(X, leaf_size=0)
    with pytest.raises(ValueError, match="haversine"):
        BallTree(np.ones((4, 3)), metric="haversine")
    with pytest.raises(ValueError, match="seuclidean"):
        BallTree(X, metric="seuclidean")
    with pytest.raises(ValueError, match="positive definite"):
        BallTree(X, metric="mahalanobis", VI=-np.eye(2))
    with pytest.raises(TypeError, match="takes no argument"):
        BallTree(X, metric="euclidean", V=np.ones(2))
    with pytest.raises(ValueError, match="NaN|infinity"):
        BallTree(np.array([[np.nan, 1.0]]))


@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_extreme_magnitude_gives_the_clean_neighbours(factor):
    rng = np.random.RandomState(0)
    X, Q = rng.normal(size=(200, 3)), rng.normal(size=(20, 3))
    ref = BallTree(X, leaf_size=8, p=3)
    tree = BallTree(X * factor, leaf_size=8, p=3)
    d_ref, i_ref = ref.query(Q, k=5)
    d, i = tree.query(Q * factor, k=5)
    assert_array_equal(i, i_ref)
    assert_allclose(d / factor, d_ref, rtol=1e-10)


@parity_test(NearestNeighbors, KNeighborsClassifier, KNeighborsRegressor)
@pytest.mark.parametrize("p", [1, 2, np.inf])
def test_estimators_ball_tree_equal_brute_and_scikit_learn(p):
    X, y = load_wine(return_X_y=True)
    X = (X - X.mean(0)) / X.std(0)
    ball = NearestNeighbors(n_neighbors=6, algorithm="ball_tree", p=p).fit(X)
    brute = NearestNeighbors(n_neighbors=6, algorithm="brute", p=p).fit(X)
    assert ball._fit_method == "ball_tree"
    d1, i1 = ball.kneighbors()
    d2, i2 = brute.kneighbors()
    assert_allclose(d1, d2, rtol=1e-10, atol=1e-12)
    assert_array_equal(i1, i2)
    ref = sk.NearestNeighbors(n_neighbors=6, algorithm="ball_tree", p=p).fit(X)
    assert_allclose(d1, ref.kneighbors()[0], rtol=1e-10, atol=1e-12)
    g1 = ball.radius_neighbors_graph(X[:20], radius=2.0, mode="distance")
    g2 = ref.radius_neighbors_graph(X[:20], radius=2.0, mode="distance")
    assert_allclose(g1.toarray(), g2.toarray(), rtol=1e-10)
    for est, ref_est in [(KNeighborsClassifier, sk.KNeighborsClassifier),
                         (KNeighborsRegressor, sk.KNeighborsRegressor)]:
        ours = est(algorithm="ball_tree", p=p, weights="distance").fit(X, y)
        theirs = ref_est(algorithm="ball_tree", p=p, weights="distance").fit(X, y)
        assert_allclose(ours.predict(X[::3] + 0.1), theirs.predict(X[::3] + 0.1))


def test_estimator_ball_tree_rejects_what_scikit_learn_rejects():
    X = np.random.RandomState(0).normal(size=(20, 3))
    with pytest.raises(ValueError, match="ball_tree"):
        NearestNeighbors(algorithm="ball_tree", metric="cosine").fit(X)
    # "auto" follows scikit-learn: the KD-tree for every metric it supports.
    assert NearestNeighbors().fit(X)._fit_method == "kd_tree"
    assert NearestNeighbors(metric="cosine").fit(X)._fit_method == "brute"
