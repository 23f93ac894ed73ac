"""KMeans(metric=...): k-medians and spherical k-means (notes B §10.1, §10.3; issue 18)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.spatial.distance import cdist
from sklearn import cluster as sk
from sklearn.datasets import load_iris

from skml.cluster import KMeans


def _objective(X, centers, labels, metric, sample_weight=None):
    D = cdist(X, centers, {"manhattan": "cityblock", "cosine": "cosine"}[metric])
    w = np.ones(len(X)) if sample_weight is None else sample_weight
    return float(D[np.arange(len(X)), labels] @ w)


@pytest.mark.filterwarnings("ignore:Number of distinct clusters")
@settings(max_examples=40, deadline=None)
@given(
    seed=st.integers(0, 10_000),
    n=st.integers(8, 40),
    d=st.integers(1, 5),
    k=st.integers(1, 4),
    metric=st.sampled_from(["manhattan", "cosine"]),
    init=st.sampled_from(["k-means++", "random"]),
    weighted=st.booleans(),
)
def test_objective_never_increases(seed, n, d, k, metric, init, weighted):
    # Notes B §10.3: both steps minimise the same objective, here Σ w D.
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((n, d)) * rng.uniform(0.1, 10)
    X[rng.rand(n) < 0.2] = X[0]  # duplicates and ties
    sw = rng.uniform(0.1, 3.0, n) if weighted else None
    km = KMeans(k, metric=metric, init=init, n_init=1, random_state=seed, tol=0,
                max_iter=50).fit(X, sample_weight=sw)
    history = km.inertia_history_
    slack = 1e-9 * (1.0 + abs(history[0]))
    assert np.all(np.diff(history) <= slack)
    assert km.inertia_ <= history[-1] + slack
    # inertia_ is the objective of the returned labels and centres.
    assert_allclose(km.inertia_, _objective(X, km.cluster_centers_, km.labels_,
                                            metric, sw), rtol=1e-9, atol=1e-9)
    # Each label is a nearest centre under the metric.
    D = km.transform(X)
    assert_allclose(D[np.arange(n), km.labels_], D.min(axis=1), atol=1e-12)


def test_manhattan_is_k_medians():
    X = load_iris().data
    km = KMeans(1, metric="manhattan", init=X[:1].copy()).fit(X)
    assert_array_equal(km.cluster_centers_[0], _lower_median(X))
    assert km.n_iter_ <= 2
    km3 = KMeans(3, metric="manhattan", random_state=0).fit(X)
    for j in range(3):
        members = X[km3.labels_ == j]
        assert_array_equal(km3.cluster_centers_[j], _lower_median(members))
    assert_allclose(km3.transform(X), cdist(X, km3.cluster_centers_, "cityblock"))
    assert_allclose(-km3.score(X), km3.inertia_)
    assert_array_equal(km3.predict(X), km3.labels_)


def _lower_median(A):
    s = np.sort(A, axis=0)
    return s[(len(A) - 1) // 2]


def test_manhattan_integer_weights_act_as_copies():
    rng = np.random.RandomState(0)
    X = rng.standard_normal((30, 3))
    w = rng.randint(1, 4, 30)
    init = X[:3].copy()
    weighted = KMeans(3, metric="manhattan", init=init).fit(X, sample_weight=w)
    copies = KMeans(3, metric="manhattan", init=init).fit(np.repeat(X, w, axis=0))
    assert_array_equal(weighted.cluster_centers_, copies.cluster_centers_)
    assert_allclose(weighted.inertia_, copies.inertia_)


def test_cosine_is_spherical_kmeans():
    rng = np.random.RandomState(0)
    X = load_iris().data
    km = KMeans(3, metric="cosine", random_state=0).fit(X)
    assert_allclose(np.linalg.norm(km.cluster_centers_, axis=1), 1.0)
    assert_allclose(km.transform(X), cdist(X, km.cluster_centers_, "cosine"),
                    atol=1e-12)
    # The metric ignores the norm of each sample: rescaled rows, same fit.
    scaled = X * rng.uniform(0.01, 100.0, (len(X), 1))
    again = KMeans(3, metric="cosine", random_state=0).fit(scaled)
    assert_array_equal(again.labels_, km.labels_)
    assert_allclose(again.cluster_centers_, km.cluster_centers_, atol=1e-12)


def test_default_metric_is_unchanged_and_matches_sklearn():
    X = load_iris().data
    init = X[[0, 60, 120]].copy()
    default = KMeans(3, init=init).fit(X)
    explicit = KMeans(3, init=init, metric="euclidean").fit(X)
    ref = sk.KMeans(3, init=init, n_init=1).fit(X)
    assert_array_equal(default.labels_, explicit.labels_)
    assert_array_equal(default.cluster_centers_, explicit.cluster_centers_)
    assert default.inertia_ == explicit.inertia_
    assert_array_equal(default.labels_, ref.labels_)
    assert_allclose(default.inertia_, ref.inertia_, rtol=1e-12)


def test_metric_errors():
    X = load_iris().data
    with pytest.raises(ValueError, match="metric"):
        KMeans(3, metric="minkowski").fit(X)
    with pytest.raises(ValueError, match="dense"):
        KMeans(3, metric="manhattan").fit(sp.csr_matrix(X))
    km = KMeans(3, metric="cosine", random_state=0).fit(X)
    with pytest.raises(ValueError, match="dense"):
        km.predict(sp.csr_matrix(X))


def test_metric_keeps_x_and_dtype():
    X = load_iris().data.astype(np.float32)
    X0 = X.copy()
    km = KMeans(3, metric="manhattan", copy_x=False, random_state=0).fit(X)
    assert_array_equal(X, X0)
    assert km.cluster_centers_.dtype == np.float32
