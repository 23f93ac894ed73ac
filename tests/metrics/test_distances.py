"""The vector distances of skml.metrics.pairwise.pairwise_distances (issue 21).

Parity with scipy.spatial.distance.cdist (and scikit-learn's nan_euclidean)
on the bundled wine data, and the metric axioms as hypothesis properties:
symmetry and d(x, x) = 0 where they hold, the triangle inequality for the
true metrics.
"""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays
from numpy.testing import assert_allclose
from scipy.spatial.distance import cdist
from sklearn.metrics.pairwise import nan_euclidean_distances

from skml.metrics.pairwise import BOOLEAN_METRICS, pairwise_distances
from tests import _data

# metric -> its arguments, given the number of features (a fixed seed).
def _args(metric, d):
    rng = np.random.RandomState(1)
    if metric == "seuclidean":
        return {"V": rng.rand(d) + 0.1}
    if metric == "mahalanobis":
        A = rng.rand(d, d)
        return {"VI": A + A.T + 3 * np.eye(d)}
    if metric == "minkowski":
        return {"p": 3}
    if metric == "wminkowski":
        return {"p": 1.5, "w": rng.rand(d)}
    return {}


REAL = ["euclidean", "sqeuclidean", "cityblock", "chebyshev", "minkowski", "wminkowski",
        "seuclidean", "mahalanobis", "cosine", "correlation", "canberra", "braycurtis",
        "hamming"]
BOOLEAN = ["jaccard", "dice", "rogerstanimoto", "russellrao", "sokalsneath", "yule"]


def _wine():
    X, _ = _data.load("wine")
    return X[:60], X[60:100]


@pytest.mark.parametrize("metric", REAL)
def test_parity_with_scipy_on_wine(metric):
    X, Y = _wine()
    kw = _args(metric, X.shape[1])
    name = "minkowski" if metric == "wminkowski" else metric
    assert_allclose(pairwise_distances(X, Y, name, **kw), cdist(X, Y, name, **kw),
                    rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("metric", BOOLEAN)
def test_boolean_parity_with_scipy(metric):
    X, Y = _wine()
    # booleans: above the feature's median; non-zero reals read as true
    med = np.median(X, axis=0)
    Xb, Yb = X > med, Y > med
    expected = cdist(Xb, Yb, metric)
    assert_allclose(pairwise_distances(Xb, Yb, metric), expected, rtol=1e-12)
    assert_allclose(pairwise_distances(Xb * X, Yb * Y, metric), expected, rtol=1e-12)


def test_nan_euclidean_parity():
    X, Y = _wine()
    X = X / X.std(axis=0)
    X[::7, 3] = np.nan
    X[::5, 0] = np.nan
    assert_allclose(pairwise_distances(X, Y[:, :], "nan_euclidean"),
                    nan_euclidean_distances(X, Y), rtol=1e-10)


def test_callable_and_threads():
    X, Y = _wine()
    D = pairwise_distances(X, Y, lambda a, b, s=1.0: s * np.abs(a - b).max(), s=2.0)
    assert_allclose(D, 2.0 * cdist(X, Y, "chebyshev"))
    assert_allclose(pairwise_distances(X, Y, "braycurtis", n_jobs=2),
                    cdist(X, Y, "braycurtis"), rtol=1e-12)


def test_errors():
    X, Y = _wine()
    # (as scikit-learn: estimated from X only for X against itself)
    with pytest.raises(ValueError, match="'V' parameter is required"):
        pairwise_distances(X, Y, "seuclidean")
    with pytest.raises(ValueError, match="one variance per feature"):
        pairwise_distances(X, Y, "seuclidean", V=np.ones(3))
    with pytest.raises(ValueError, match="'VI' parameter is required"):
        pairwise_distances(X, Y, "mahalanobis")
    with pytest.raises(ValueError, match="VI must have shape"):
        pairwise_distances(X, Y, "mahalanobis", VI=np.eye(3))
    with pytest.raises(TypeError, match="takes no argument"):
        pairwise_distances(X, Y, "braycurtis", V=1)
    with pytest.raises(ValueError, match="metric must be"):
        pairwise_distances(X, Y, "no_such_metric")


# --- the axioms, on small random data ------------------------------------------

def _points(n, d, boolean):
    if boolean:
        return arrays(np.float64, (n, d), elements=st.sampled_from([0.0, 1.0]))
    return arrays(np.float64, (n, d),
                  elements=st.floats(-5, 5, allow_nan=False, width=32))


ALL = REAL + BOOLEAN + ["haversine"]
# russellrao: d(x, x) = (n - |x|) / n; cosine, correlation: a zero (a
# constant) row has no direction, at distance 1 from every row, itself too.
# dice, braycurtis, sqeuclidean, correlation, cosine, yule break the
# triangle inequality.
NOT_ZERO_ON_SELF = {"russellrao", "cosine", "correlation"}
TRUE_METRICS = {"euclidean", "cityblock", "chebyshev", "minkowski", "wminkowski",
                "seuclidean", "mahalanobis", "canberra", "hamming", "haversine",
                "jaccard", "rogerstanimoto", "sokalsneath", "russellrao"}


@pytest.mark.parametrize("metric", ALL)
@settings(max_examples=40, deadline=None)
@given(data=st.data())
def test_metric_axioms(metric, data):
    d = 2 if metric == "haversine" else data.draw(st.integers(1, 6))
    X = data.draw(_points(3, d, metric in BOOLEAN_METRICS))
    if metric == "haversine":
        X = np.clip(X, -1.5, 1.5)
    name = "minkowski" if metric == "wminkowski" else metric
    kw = _args(metric, d)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        D = pairwise_distances(X, metric=name, **kw)
    scale = 1.0 + np.abs(D).max()
    assert np.all(D >= -1e-12 * scale)
    assert_allclose(D, D.T, rtol=1e-9, atol=1e-9 * scale)
    if metric not in NOT_ZERO_ON_SELF:
        assert_allclose(np.diag(D), 0.0, atol=1e-6 * scale)
    elif metric != "russellrao":
        centred = X - X.mean(axis=1, keepdims=True) if metric == "correlation" else X
        has_direction = np.abs(centred).max(axis=1) > 1e-6
        assert_allclose(np.diag(D)[has_direction], 0.0, atol=1e-6)
    if metric in TRUE_METRICS:
        for i in range(3):
            for j in range(3):
                for k in range(3):
                    assert D[i, k] <= D[i, j] + D[j, k] + 1e-9 * scale
