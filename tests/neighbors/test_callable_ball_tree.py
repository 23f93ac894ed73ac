"""The ball tree of a Python callable metric (issue 21), as scikit-learn's.

The search calls the callable (one call per node bound and per point
scanned); its neighbours are those of the brute force exactly (same tie
rule), and its distances those of scikit-learn's ball tree.
"""

import numpy as np
import pytest
import sklearn.neighbors as skn
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.datasets import load_iris, load_wine

from skml.neighbors import BallTree, KNeighborsClassifier, NearestNeighbors


def l1(a, b):
    return np.abs(a - b).sum()


def scaled_l2(a, b, scale=1.0):
    return scale * np.sqrt(((a - b) ** 2).sum())


def _wine():
    X, _ = load_wine(return_X_y=True)
    return X[::2], X[1::2]


@pytest.mark.parametrize("metric, params", [(l1, None), (scaled_l2, {"scale": 2.0})])
def test_callable_ball_tree_equals_brute_and_sklearn(metric, params):
    X, Q = _wine()
    tree = NearestNeighbors(n_neighbors=5, algorithm="ball_tree", metric=metric,
                            metric_params=params, leaf_size=4).fit(X)
    brute = NearestNeighbors(n_neighbors=5, algorithm="brute", metric=metric,
                             metric_params=params).fit(X)
    ref = skn.NearestNeighbors(n_neighbors=5, algorithm="ball_tree", metric=metric,
                               metric_params=params, leaf_size=4).fit(X)
    assert tree._fit_method == "ball_tree"
    for q in (Q, None):
        d1, i1 = tree.kneighbors(q)
        d2, i2 = brute.kneighbors(q)
        assert_array_equal(i1, i2)
        assert_array_equal(d1, d2)
        assert_allclose(d1, ref.kneighbors(q)[0], rtol=1e-12)
    radius = np.median(d1[:, -1])
    for q in (Q, None):
        ours = tree.radius_neighbors(q, radius=radius, sort_results=True)
        theirs = ref.radius_neighbors(q, radius=radius, sort_results=True)
        for row in range(len(ours[0])):
            assert_allclose(ours[0][row], theirs[0][row], rtol=1e-12)
            assert_array_equal(np.sort(ours[1][row]), np.sort(theirs[1][row]))


def test_callable_auto_is_ball_tree_as_sklearn():
    X, _ = _wine()  # 13 features <= 15
    ours = NearestNeighbors(n_neighbors=3, metric=l1).fit(X)
    ref = skn.NearestNeighbors(n_neighbors=3, metric=l1).fit(X)
    assert ours._fit_method == ref._fit_method == "ball_tree"


def test_callable_classifier_parity_on_iris():
    X, y = load_iris(return_X_y=True)
    kw = dict(n_neighbors=5, algorithm="ball_tree", metric=l1, weights="distance")
    ours = KNeighborsClassifier(**kw).fit(X[::2], y[::2])
    ref = skn.KNeighborsClassifier(**kw).fit(X[::2], y[::2])
    assert ours.score(X[1::2], y[1::2]) == ref.score(X[1::2], y[1::2])


def test_ball_tree_object_with_callable():
    X, Q = _wine()
    ours = BallTree(X, leaf_size=3, metric=scaled_l2, scale=0.5)
    ref = skn.BallTree(X, leaf_size=3, metric=scaled_l2, scale=0.5)
    assert_allclose(ours.query(Q, k=4)[0], ref.query(Q, k=4)[0], rtol=1e-12)
    r = [0.0, 10.0, 40.0, 1e9]
    assert_array_equal(ours.two_point_correlation(Q, r),
                       ref.two_point_correlation(Q, r))
    counts = ours.query_radius(Q, 30.0, count_only=True)
    assert_array_equal(counts, ref.query_radius(Q, 30.0, count_only=True))
    with pytest.raises(ValueError, match="callable"):
        ours.kernel_density(Q, 1.0)


def test_callable_tree_calls_fewer_than_brute():
    # The pruning works: far fewer calls than the brute force's n_q * n.
    rng = np.random.RandomState(0)
    X, Q = rng.rand(500, 2), rng.rand(20, 2)
    calls = [0]

    def counted(a, b):
        calls[0] += 1
        return np.sqrt(((a - b) ** 2).sum())

    nn = NearestNeighbors(n_neighbors=3, algorithm="ball_tree", metric=counted,
                          leaf_size=10).fit(X)
    calls[0] = 0
    nn.kneighbors(Q)
    assert calls[0] < 0.5 * Q.shape[0] * X.shape[0]
