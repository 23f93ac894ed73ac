"""Every metric of scikit-learn's brute force and ball tree, in the neighbour estimators.

Parity of kneighbors (distances and indices) with scikit-learn on the
bundled wine data, brute force against the ball tree, callables, the
boolean metrics' conversion warning, nan_euclidean, and the choice of
``algorithm="auto"`` (issue 21).
"""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
import sklearn.neighbors as skn
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import cdist
from sklearn.exceptions import DataConversionWarning

from skml.metrics.pairwise import pairwise_distances

from skml.neighbors import KNeighborsClassifier, KNeighborsRegressor, NearestNeighbors
from tests import _data


def _wine():
    X, y = _data.load("wine", scale=True)
    return X[:120], X[120:], y[:120]


def _params(metric, d):
    rng = np.random.RandomState(1)
    return {"seuclidean": {"V": rng.rand(d) + 0.1},
            "mahalanobis": {"VI": (lambda A: A @ A.T + np.eye(d))(rng.rand(d, d))},
            "wminkowski": {"p": 3, "w": rng.rand(d)}}.get(metric, {})


BRUTE = ["braycurtis", "canberra", "correlation", "hamming", "seuclidean",
         "mahalanobis", "wminkowski", "sqeuclidean", "chebyshev", "cityblock"]
BALL = ["braycurtis", "canberra", "hamming", "seuclidean", "mahalanobis", "wminkowski"]
BOOLEAN = ["jaccard", "dice", "rogerstanimoto", "russellrao", "sokalsneath", "yule"]


def _assert_same_neighbours(ours, ref, Q, d1, i1, d2):
    """Same distances; our indices are at those distances (ties in any order)."""
    assert_allclose(d1, d2, rtol=1e-9, atol=1e-12)
    full_d, full_i = ref.kneighbors(Q, n_neighbors=ref.n_samples_fit_)
    for row in range(len(Q)):
        lookup = dict(zip(full_i[row], full_d[row]))
        assert_allclose([lookup[j] for j in i1[row]], d1[row], rtol=1e-9, atol=1e-12)
    # ties apart, the same order (equal distances are ordered by index here)
    assert np.all(np.diff(d1, axis=1) >= 0)


def _fit_pair(metric, algorithm, X, **kw):
    name = "minkowski" if metric == "wminkowski" else metric
    params = dict(_params(metric, X.shape[1]))
    p = params.pop("p", 2)
    args = dict(n_neighbors=6, algorithm=algorithm, metric=name, p=p,
                metric_params=params or None, **kw)
    return NearestNeighbors(**args).fit(X), skn.NearestNeighbors(**args).fit(X)


@pytest.mark.parametrize("metric", BRUTE)
def test_brute_kneighbors_parity_with_sklearn(metric):
    X, Q, _ = _wine()
    ours, ref = _fit_pair(metric, "brute", X)
    d1, i1 = ours.kneighbors(Q)
    d2, _ = ref.kneighbors(Q)
    _assert_same_neighbours(ours, ref, Q, d1, i1, d2)


@pytest.mark.parametrize("metric", BALL)
def test_ball_tree_matches_brute_and_sklearn(metric):
    X, Q, _ = _wine()
    ours, ref = _fit_pair(metric, "ball_tree", X, leaf_size=5)
    brute, _ = _fit_pair(metric, "brute", X)
    d1, i1 = ours.kneighbors(Q)
    d2, _ = ref.kneighbors(Q)
    d3, i3 = brute.kneighbors(Q)
    _assert_same_neighbours(ours, ref, Q, d1, i1, d2)
    assert_allclose(d1, d3, rtol=1e-9, atol=1e-12)
    assert_array_equal(i1, i3)
    # radius queries agree with brute force as well
    r = np.median(d3[:, -1])
    for a, b in zip(ours.radius_neighbors(Q, r, sort_results=True)[1],
                    brute.radius_neighbors(Q, r, sort_results=True)[1]):
        assert_array_equal(a, b)


@pytest.mark.parametrize("metric", BOOLEAN)
def test_boolean_metrics(metric):
    X, Q, _ = _wine()
    Xb, Qb = X > 0, Q > 0  # above the feature's mean
    ours, ref = _fit_pair(metric, "brute", Xb)
    d1, i1 = ours.kneighbors(Qb)
    d2, _ = ref.kneighbors(Qb)
    # (ties are many on 13 booleans)
    _assert_same_neighbours(ours, ref, Qb, d1, i1, d2)
    # Other data is read as booleans (non-zero is true), with scikit-learn's
    # warning for the brute force.
    with pytest.warns(DataConversionWarning, match="converted to boolean"):
        d3, i3 = ours.kneighbors(Qb * 2.0)
    assert_allclose(d3, d1)
    if metric != "yule":  # (scikit-learn's ball tree has no yule)
        tree = NearestNeighbors(n_neighbors=6, algorithm="ball_tree", metric=metric,
                                leaf_size=4).fit(Xb)
        with warnings.catch_warnings():
            warnings.simplefilter("error", DataConversionWarning)
            d4, i4 = tree.kneighbors(Qb)
        assert_allclose(d4, d1, rtol=1e-12)
        assert_array_equal(i4, i1)


def test_callable_metric_dense_and_sparse():
    X, Q, _ = _wine()

    def l1(a, b, scale=1.0):
        return scale * np.abs(a - b).sum()

    ours = NearestNeighbors(n_neighbors=4, metric=l1, metric_params={"scale": 2.0}).fit(X)
    ref = NearestNeighbors(n_neighbors=4, metric="manhattan").fit(X)
    d1, i1 = ours.kneighbors(Q)
    d2, i2 = ref.kneighbors(Q)
    assert_allclose(d1, 2.0 * d2)
    assert_array_equal(i1, i2)
    assert ours.effective_metric_ is l1

    def sparse_dot(a, b):  # rows of a sparse matrix arrive as 1-row matrices
        assert sp.issparse(a) and sp.issparse(b)
        return -a.dot(b.T).toarray().item()

    S = sp.csr_matrix((X > 1.0).astype(float))
    nn = NearestNeighbors(n_neighbors=3, metric=sparse_dot).fit(S)
    expected = np.argsort(-(S @ S[:5].T).toarray().T, axis=1, kind="stable")[:, :3]
    assert_array_equal(nn.kneighbors(S[:5], return_distance=False), expected)
    with pytest.raises(ValueError, match="callable"):
        NearestNeighbors(algorithm="kd_tree", metric=l1).fit(X)
    with pytest.raises(ValueError, match="func"):
        NearestNeighbors(metric="pyfunc").fit(X)


def test_indefinite_mahalanobis_as_sklearn_brute():
    # scipy's and scikit-learn's brute force take any VI: where the
    # quadratic form is negative the distance is NaN (ranked after the rest).
    rng = np.random.RandomState(0)
    X, Q = rng.rand(40, 6), rng.rand(4, 6)
    A = rng.rand(6, 6)
    VI = A + A.T - 0.5 * np.eye(6)
    assert np.linalg.eigvalsh(VI).min() < 0
    D = pairwise_distances(Q, X, "mahalanobis", VI=VI)
    ref = cdist(Q, X, "mahalanobis", VI=VI)
    assert_array_equal(np.isnan(D), np.isnan(ref))
    assert_allclose(D[~np.isnan(D)], ref[~np.isnan(ref)], rtol=1e-9)
    d, i = NearestNeighbors(n_neighbors=3, algorithm="brute", metric="mahalanobis",
                            metric_params={"VI": VI}).fit(X).kneighbors(Q)
    finite = np.where(np.isnan(ref), np.inf, ref)
    assert_allclose(d, np.sort(finite, axis=1)[:, :3], rtol=1e-9)
    with pytest.raises(ValueError, match="positive definite"):
        NearestNeighbors(algorithm="ball_tree", metric="mahalanobis",
                         metric_params={"VI": VI}).fit(X)


def test_nan_euclidean_in_every_estimator():
    X = np.array([[0, 1], [1, np.nan], [2, 3], [3, 5]], dtype=float)
    y = np.array([0, 0, 1, 1])
    ref = skn.NearestNeighbors(n_neighbors=2, metric="nan_euclidean").fit(X)
    nn = NearestNeighbors(n_neighbors=2, metric="nan_euclidean").fit(X)
    d1, i1 = nn.kneighbors(X)
    d2, i2 = ref.kneighbors(X)
    assert_allclose(d1, d2)
    assert_array_equal(i1, i2)
    for est in (KNeighborsClassifier(2, metric="nan_euclidean"),
                KNeighborsRegressor(2, metric="nan_euclidean")):
        assert not np.isnan(est.fit(X, y).predict(X)).any()
    with pytest.raises(ValueError, match="NaN"):
        NearestNeighbors(metric="euclidean").fit(X)


@pytest.mark.parametrize("metric, params, expected", [
    ("euclidean", None, "kd_tree"),
    ("seuclidean", {"V": [2.0] * 5}, "ball_tree"),
    ("jaccard", None, "ball_tree"),
    ("correlation", None, "brute"),
    ("yule", None, "brute"),
])
def test_auto_algorithm_as_sklearn(metric, params, expected):
    X = np.random.RandomState(0).randn(10, 5)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DataConversionWarning)
        ours = NearestNeighbors(n_neighbors=4, metric=metric, metric_params=params).fit(X)
        ref = skn.NearestNeighbors(n_neighbors=4, metric=metric,
                                   metric_params=params).fit(X)
    assert ours._fit_method == ref._fit_method == expected


def test_metric_argument_errors():
    X, _, _ = _wine()
    with pytest.raises(TypeError, match="takes no argument"):
        NearestNeighbors(metric="braycurtis", metric_params={"V": 1}).fit(X)
    with pytest.raises(ValueError, match="needs VI"):
        NearestNeighbors(metric="mahalanobis").fit(X)
    with pytest.raises(ValueError, match="one variance per feature"):
        NearestNeighbors(metric="seuclidean", metric_params={"V": [1.0]}).fit(X)
    with pytest.raises(ValueError, match="does not support metric='correlation'"):
        NearestNeighbors(algorithm="ball_tree", metric="correlation").fit(X)
    with pytest.raises(ValueError, match="kd_tree"):
        NearestNeighbors(algorithm="kd_tree", metric="canberra").fit(X)
    with pytest.raises(ValueError, match="sparse"):
        NearestNeighbors(metric="canberra").fit(sp.csr_matrix(X))


def test_training_points_query_drops_self_or_the_first():
    # X=None: the k + 1 nearest of each training point, less the point
    # itself when among them, else less the first (scikit-learn's rule):
    # three copies of one point, k=1.
    nn = NearestNeighbors(n_neighbors=1, algorithm="brute").fit(np.ones((3, 1)))
    dist, ind = nn.kneighbors()
    assert_array_equal(ind, [[1], [0], [1]])
    assert_allclose(dist, 0.0)
    ref = skn.NearestNeighbors(n_neighbors=1, algorithm="brute").fit(np.ones((3, 1)))
    assert_array_equal(ind, ref.kneighbors()[1])
    # Without duplicates, the same as excluding each point from its own list.
    X, _, _ = _wine()
    for algorithm in ("brute", "kd_tree", "ball_tree"):
        nn = NearestNeighbors(n_neighbors=4, algorithm=algorithm).fit(X)
        d1, i1 = nn.kneighbors()
        d2, i2 = nn.kneighbors(X, n_neighbors=5)
        assert_array_equal(i1, i2[:, 1:])
        assert_allclose(d1, d2[:, 1:])


def test_sparse_precomputed_graph_needs_k_plus_one_entries_for_none():
    dist = sp.csr_matrix(np.array([[0.0, 2.0, 0.0], [2.0, 0.0, 3.0], [0.0, 3.0, 0.0]]))
    nn = NearestNeighbors(n_neighbors=1, metric="precomputed").fit(dist)
    with pytest.raises(ValueError, match="2 neighbors per samples are required, but "
                                         "some samples have only 1"):
        nn.kneighbors(None, n_neighbors=1)
