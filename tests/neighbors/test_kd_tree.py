"""KDTree: equal to scikit-learn's KDTree and to brute force (notes A §5.2)."""

import pickle

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import neighbors as sk
from sklearn.datasets import load_digits, load_iris

from skml.neighbors import KDTree

P_VALUES = [1, 2, np.inf, 3]


def _brute(X, Q, p):
    """Exact (distance, index)-sorted neighbours by numpy."""
    diff = np.abs(Q[:, None, :] - X[None, :, :])
    if np.isinf(p):
        D = diff.max(axis=2)
    else:
        D = (diff**p).sum(axis=2) ** (1.0 / p)
    order = np.array([np.lexsort((np.arange(len(X)), row)) for row in D])
    return np.take_along_axis(D, order, axis=1), order


@pytest.mark.parametrize("p", P_VALUES)
@pytest.mark.parametrize("leaf_size", [1, 5, 40])
def test_query_equals_scikit_learn_on_random_data(p, leaf_size):
    rng = np.random.RandomState(0)
    X, Q = rng.normal(size=(400, 3)), rng.normal(size=(60, 3))
    ours = KDTree(X, leaf_size=leaf_size, p=p)
    ref = sk.KDTree(X, leaf_size=leaf_size, metric="minkowski", p=p)
    d1, i1 = ours.query(Q, k=7)
    d2, i2 = ref.query(Q, k=7)
    assert_allclose(d1, d2, rtol=1e-10, atol=1e-12)
    assert_array_equal(i1, i2)
    assert_array_equal(ours.query(Q, k=3, return_distance=False),
                       ref.query(Q, k=3, return_distance=False))


@pytest.mark.parametrize("p", P_VALUES)
def test_query_radius_equals_scikit_learn(p):
    X, _ = load_iris(return_X_y=True)
    rng = np.random.RandomState(1)
    Q = X[rng.choice(len(X), 20)] + 0.05 * rng.normal(size=(20, 4))
    ours, ref = KDTree(X, leaf_size=8, p=p), sk.KDTree(X, leaf_size=8, p=p)
    r = np.linspace(0.1, 1.0, len(Q))
    i1, d1 = ours.query_radius(Q, r, return_distance=True, sort_results=True)
    i2, d2 = ref.query_radius(Q, r, return_distance=True, sort_results=True)
    for a, b, da, db in zip(i1, i2, d1, d2):
        assert_allclose(da, db, rtol=1e-10, atol=1e-12)
        # Ties (iris has duplicates) may be ordered differently: compare sets.
        assert sorted(a) == sorted(b)
    assert_array_equal(ours.query_radius(Q, 0.5, count_only=True),
                       ref.query_radius(Q, 0.5, count_only=True))
    unsorted = ours.query_radius(Q, 0.5)
    for a, b in zip(unsorted, ref.query_radius(Q, 0.5)):
        assert sorted(a) == sorted(b)


def test_digits_high_dimension_equals_scikit_learn():
    X, _ = load_digits(return_X_y=True)
    X = X + np.random.RandomState(0).uniform(0, 1e-3, size=X.shape)  # no ties
    ours, ref = KDTree(X[:1500]), sk.KDTree(X[:1500])
    d1, i1 = ours.query(X[1500:1600], k=5)
    d2, i2 = ref.query(X[1500:1600], k=5)
    assert_allclose(d1, d2, rtol=1e-10)
    assert_array_equal(i1, i2)


grid_points = st.integers(1, 40).flatmap(
    lambda n: arrays(np.float64, (n, 2), elements=st.integers(-3, 3).map(float))
)


@given(X=grid_points, p=st.sampled_from(P_VALUES), leaf_size=st.integers(1, 6),
       k=st.integers(1, 6))
def test_tree_equals_brute_force_with_ties(X, p, leaf_size, k):
    # Integer grid: many exact ties, which both sides break by index.
    k = min(k, len(X))
    Q = np.array([[0.0, 0.0], [0.5, -1.0], [3.0, 3.0]])
    dist, ind = KDTree(X, leaf_size=leaf_size, p=p).query(Q, k=k)
    ref_d, ref_i = _brute(X, Q, p)
    assert_allclose(dist, ref_d[:, :k], rtol=1e-12, atol=1e-12)
    assert_array_equal(ind, ref_i[:, :k])


def test_duplicates_ordered_by_index():
    X = np.zeros((10, 3))
    dist, ind = KDTree(X, leaf_size=2).query([[0.0, 0.0, 0.0]], k=4)
    assert_array_equal(ind, [[0, 1, 2, 3]])
    assert_array_equal(dist, np.zeros((1, 4)))


def test_metric_aliases_and_chebyshev():
    rng = np.random.RandomState(3)
    X, Q = rng.uniform(size=(100, 4)), rng.uniform(size=(5, 4))
    for metric, p in [("manhattan", 1), ("euclidean", 2), ("chebyshev", np.inf)]:
        d1, i1 = KDTree(X, metric=metric).query(Q, k=3)
        d2, i2 = KDTree(X, p=p).query(Q, k=3)
        assert_array_equal(i1, i2)
        assert_allclose(d1, d2)


def test_pickle_round_trip():
    rng = np.random.RandomState(0)
    X, Q = rng.normal(size=(200, 3)), rng.normal(size=(10, 3))
    tree = KDTree(X, leaf_size=4, p=1)
    clone = pickle.loads(pickle.dumps(tree))
    for a, b in zip(tree.query(Q, k=4), clone.query(Q, k=4)):
        assert_array_equal(a, b)


def test_single_point_and_options_ignored():
    tree = KDTree([[1.0, 2.0]])
    dist, ind = tree.query([[1.0, 3.0]], k=1, dualtree=True, breadth_first=True)
    assert_array_equal(ind, [[0]])
    assert_allclose(dist, [[1.0]])


def test_errors():
    X = np.random.RandomState(0).normal(size=(10, 2))
    tree = KDTree(X)
    with pytest.raises(ValueError, match="k must be less than or equal"):
        tree.query(X, k=11)
    with pytest.raises(ValueError, match="dimension"):
        tree.query(np.ones((2, 3)))
    with pytest.raises(ValueError, match="sort_results"):
        tree.query_radius(X, 1.0, sort_results=True)
    with pytest.raises(ValueError, match="count_only"):
        tree.query_radius(X, 1.0, count_only=True, return_distance=True)
    with pytest.raises(ValueError, match="r must be"):
        tree.query_radius(X, np.ones(3))
    with pytest.raises(ValueError, match="metric"):
        KDTree(X, metric="cosine")
    with pytest.raises(ValueError, match="p must be"):
        KDTree(X, p=0.5)
    with pytest.raises(ValueError, match="leaf_size"):
        KDTree(X, leaf_size=0)
    with pytest.raises(ValueError, match="NaN|infinity"):
        KDTree(np.array([[np.nan, 1.0]]))


@pytest.mark.parametrize("factor", [1e300, 1e-300])
@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "chebyshev", "minkowski"])
def test_extreme_magnitude_gives_the_clean_neighbours(factor, metric):
    # Issue 23: reduced distances (|d|^p) overflowed at X * 1e300 (inf) and
    # underflowed at X * 1e-300 (ties). The tree indexes X / 2^e.
    rng = np.random.RandomState(0)
    X, Q = rng.normal(size=(200, 3)), rng.normal(size=(20, 3))
    p = 3 if metric == "minkowski" else 2
    ref = KDTree(X, leaf_size=8, metric=metric, p=p)
    tree = KDTree(X * factor, leaf_size=8, metric=metric, p=p)
    d_ref, i_ref = ref.query(Q, k=5)
    d, i = tree.query(Q * factor, k=5)
    assert_array_equal(i, i_ref)
    assert_allclose(d / factor, d_ref, rtol=1e-10)
    assert_allclose(tree.node_bounds / factor, ref.node_bounds, rtol=1e-12)
    r = float(np.median(d_ref[:, -1]))
    i_ref, d_ref = ref.query_radius(Q, r, return_distance=True, sort_results=True)
    i, d = tree.query_radius(Q * factor, r * factor, return_distance=True,
                             sort_results=True)
    for row in range(len(Q)):
        assert_array_equal(i[row], i_ref[row])
        assert_allclose(d[row] / factor, d_ref[row], rtol=1e-10)
