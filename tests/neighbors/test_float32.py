"""float32 input: kept as float32 (as scikit-learn 1.9), distances in float64.

Issue 12/21: the fit data used to be upcast to a float64 copy; scikit-learn
keeps ``_fit_X`` in the input's dtype and returns float64 distances. The k
returned distances are measured again exactly, so an exact duplicate of a
training point is at distance 0 (not ~1e-4, the rounding of a float32
``||x||² - 2 x.y + ||y||²``).
"""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import cdist
from sklearn import neighbors as sk
from sklearn.datasets import load_digits

from skml.neighbors import KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors

ALGORITHMS = ["brute", "kd_tree", "ball_tree"]


@pytest.fixture(scope="module")
def digits32():
    X, y = load_digits(return_X_y=True)
    # Offset and scale so that squared norms are large next to the gaps.
    return (X * 37.1 + 1000.0).astype(np.float32), y


@pytest.mark.parametrize("algorithm", ALGORITHMS)
@pytest.mark.parametrize("metric", ["euclidean", "manhattan", "chebyshev"])
def test_float32_kept_and_distances_exact(digits32, algorithm, metric):
    X, _ = digits32
    nn = NearestNeighbors(n_neighbors=4, algorithm=algorithm, metric=metric).fit(X)
    assert nn._fit_X.dtype == np.float32  # as scikit-learn's _fit_X
    ref = sk.NearestNeighbors(n_neighbors=4, algorithm=algorithm, metric=metric).fit(X)
    assert ref._fit_X.dtype == np.float32
    dist, ind = nn.kneighbors(X[:200])
    assert dist.dtype == ref.kneighbors(X[:200])[0].dtype == np.float64
    # Exact duplicates (each query is a training point) at distance 0.
    assert_array_equal(dist[:, 0], 0.0)
    # The distances are those of the float32 values, computed in float64.
    D = cdist(X[:200].astype(np.float64), X.astype(np.float64),
              {"manhattan": "cityblock"}.get(metric, metric))
    assert_allclose(dist, np.take_along_axis(D, ind, axis=1), rtol=1e-12)
    assert_allclose(dist, np.sort(D, axis=1)[:, :4], rtol=1e-12)


def test_float32_equals_float64_on_the_same_values(digits32):
    X, y = digits32
    X64 = X.astype(np.float64)
    for algorithm in ALGORITHMS:
        for est in [KNeighborsClassifier(algorithm=algorithm, weights="distance"),
                    KNeighborsRegressor(algorithm=algorithm)]:
            a = est.fit(X, y)
            pred32 = a.predict(X[::7] + 0.5)
            pred64 = est.fit(X64, y).predict(X64[::7] + 0.5)
            assert_allclose(pred32, pred64)
        nn = NearestNeighbors(radius=400.0, algorithm=algorithm).fit(X)
        d32, ind32 = nn.radius_neighbors(X[:30], sort_results=True)
        nn64 = NearestNeighbors(radius=400.0, algorithm=algorithm).fit(X64)
        d64, ind64 = nn64.radius_neighbors(X64[:30], sort_results=True)
        for a, b, da, db in zip(ind32, ind64, d32, d64):
            assert_array_equal(a, b)
            assert_allclose(da, db, rtol=1e-12)
            assert da.dtype == np.float64


def test_float64_duplicate_at_distance_zero():
    # Issue 12 (brute force): a duplicate of a training point far from the
    # origin came out at ~1e-8 from the dot-product expansion; the k kept
    # are measured again (already the case; kept as a guard).
    rng = np.random.RandomState(0)
    X = rng.normal(size=(500, 30)) * 1e3 + 1e4
    dist, ind = NearestNeighbors(n_neighbors=2, algorithm="brute").fit(X).kneighbors(
        X[:100])
    assert_array_equal(dist[:, 0], 0.0)
    assert_array_equal(ind[:, 0], np.arange(100))


def test_sparse_and_precomputed_float32_become_float64():
    import scipy.sparse as sp

    X = sp.random(50, 8, density=0.3, format="csr", random_state=0, dtype=np.float32)
    nn = NearestNeighbors(n_neighbors=3).fit(X)
    assert nn._fit_X.dtype == np.float64
    D = cdist(X.toarray(), X.toarray()).astype(np.float32)
    nn = NearestNeighbors(n_neighbors=3, metric="precomputed").fit(D)
    assert nn.kneighbors(D)[0].dtype == np.float64
