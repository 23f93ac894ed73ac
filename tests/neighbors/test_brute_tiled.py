"""The tiled brute force of the non-Euclidean vector metrics (issue 21).

``metric_knn`` measures query rows against transposed tiles of training
rows (``metric_block`` fills the radius queries' blocks by the same tiles);
their distances must be those of ``pairwise_distances`` bit for bit, and
the neighbours the (distance, index) order of the full matrix.
"""

import numpy as np
import pytest

from skml.metrics.pairwise import pairwise_distances
from skml.neighbors import NearestNeighbors

CASES = [
    ("braycurtis", {}),
    ("canberra", {}),
    ("manhattan", {}),
    ("chebyshev", {}),
    ("minkowski", {"p": 3}),
    ("minkowski", {"p": 1.5, "metric_params": {"w": np.linspace(0.2, 1.0, 5)}}),
    ("minkowski", {"p": 2, "metric_params": {"w": np.linspace(0.2, 1.0, 5)}}),
    ("seuclidean", {"metric_params": {"V": np.linspace(0.5, 2.0, 5)}}),
    ("mahalanobis", {"metric_params": {"VI": np.eye(5) + 0.3}}),
    ("hamming", {}),
    ("sqeuclidean", {}),
    ("nan_euclidean", {}),
]


def _reference(D, k):
    order = np.array([np.lexsort((np.arange(D.shape[1]), row))[:k] for row in D])
    return np.take_along_axis(D, order, axis=1), order


@pytest.mark.parametrize("metric, kw", CASES)
@pytest.mark.parametrize("n_jobs", [1, 2])
def test_tiled_knn_equals_full_matrix(metric, kw, n_jobs):
    rng = np.random.RandomState(0)
    # More training rows than one tile (256), rounded values for ties, a
    # duplicate row, zero rows (0 / 0 of canberra and braycurtis) and signs.
    X = np.round(rng.randn(600, 5), 1)
    X[7] = X[3]
    X[11] = 0.0
    Q = np.round(rng.randn(40, 5), 1)
    Q[0] = X[3]
    Q[1] = 0.0
    if metric == "nan_euclidean":  # (a NaN in a tenth of the entries)
        X[rng.rand(*X.shape) < 0.1] = np.nan
        Q[rng.rand(*Q.shape) < 0.1] = np.nan
    nn = NearestNeighbors(n_neighbors=7, algorithm="brute", metric=metric,
                          n_jobs=n_jobs, **kw).fit(X)
    args = dict(kw.get("metric_params", {}))
    if metric == "minkowski":
        args["p"] = kw["p"]
    for q in (Q, None):
        dist, ind = nn.kneighbors(q)
        D = pairwise_distances(X if q is None else q, X, metric=metric, **args)
        if q is None:
            np.fill_diagonal(D, np.inf)
        ref_d, ref_i = _reference(D, 7)
        np.testing.assert_array_equal(ind, ref_i)
        np.testing.assert_array_equal(dist, ref_d)


@pytest.mark.parametrize("metric, kw", CASES)
def test_tiled_radius_equals_full_matrix(metric, kw):
    rng = np.random.RandomState(2)
    X = np.round(rng.randn(500, 5), 1)
    Q = np.round(rng.randn(30, 5), 1)
    if metric == "nan_euclidean":
        X[rng.rand(*X.shape) < 0.1] = np.nan
    nn = NearestNeighbors(algorithm="brute", metric=metric, **kw).fit(X)
    args = dict(kw.get("metric_params", {}))
    if metric == "minkowski":
        args["p"] = kw["p"]
    D = pairwise_distances(Q, X, metric=metric, **args)
    radius = np.nanmedian(D)
    dist, ind = nn.radius_neighbors(Q, radius=radius, sort_results=True)
    for row in range(Q.shape[0]):
        keep = np.flatnonzero(D[row] <= radius)
        order = np.lexsort((keep, D[row, keep]))
        np.testing.assert_array_equal(ind[row], keep[order])
        np.testing.assert_array_equal(dist[row], D[row, keep[order]])


def test_tiled_knn_float32_matches_float64():
    rng = np.random.RandomState(1)
    X = rng.rand(300, 4).astype(np.float32)
    Q = rng.rand(9, 4).astype(np.float32)
    for metric in ("braycurtis", "canberra"):
        d32, i32 = NearestNeighbors(n_neighbors=4, algorithm="brute",
                                    metric=metric).fit(X).kneighbors(Q)
        d64, i64 = NearestNeighbors(n_neighbors=4, algorithm="brute", metric=metric).fit(
            X.astype(np.float64)).kneighbors(Q.astype(np.float64))
        np.testing.assert_array_equal(i32, i64)
        np.testing.assert_array_equal(d32, d64)
