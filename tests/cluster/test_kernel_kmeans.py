"""KernelKMeans: notes B §10.4, k-means in feature space through the kernel trick."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_array_equal
from sklearn import cluster as sk
from sklearn.datasets import load_iris, load_wine, make_circles
from sklearn.metrics import adjusted_rand_score
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from skml.cluster import KernelKMeans, KMeans
from skml.metrics.pairwise import rbf_kernel
from tests._parity import parity_test


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield


def _means(X, labels, k):
    return np.array([X[labels == j].mean(axis=0) for j in range(k)])


@parity_test(KernelKMeans)
@pytest.mark.parametrize("load", [load_iris, load_wine])
@pytest.mark.parametrize("k", [3, 5])
def test_parity_linear_kernel_is_kmeans(load, k):
    # With the linear kernel, φ(x) = x: the same Lloyd iterations as
    # scikit-learn's KMeans from the same initial centres.
    X = StandardScaler().fit_transform(load().data)
    init = X[: 3 * k : 3].copy()
    ours = KernelKMeans(k, kernel="linear", init=init, tol=0).fit(X)
    ref = sk.KMeans(k, init=init, n_init=1, tol=0).fit(X)
    assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)
    assert ours.n_iter_ == ref.n_iter_
    assert_array_equal(ours.predict(X[::3] + 0.1), ref.predict(X[::3] + 0.1))


@parity_test(KernelKMeans)
def test_parity_from_initial_labels():
    # Initial labels = KMeans started from those labels' means.
    X = StandardScaler().fit_transform(load_iris().data)
    labels0 = np.random.RandomState(0).randint(3, size=len(X))
    ours = KernelKMeans(3, kernel="linear", init=labels0, tol=0).fit(X)
    ref = sk.KMeans(3, init=_means(X, labels0, 3), n_init=1, tol=0).fit(X)
    skml_km = KMeans(3, init=_means(X, labels0, 3), n_init=1, tol=0).fit(X)
    assert_array_equal(ours.labels_, ref.labels_)
    assert_array_equal(ours.labels_, skml_km.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)


def test_kmeanspp_seeding_matches_kmeans():
    # Greedy k-means++ with ||φ(x)-φ(z)||² draws the same numbers as KMeans's.
    X = StandardScaler().fit_transform(load_wine().data)
    for seed in range(3):
        ours = KernelKMeans(4, kernel="linear", random_state=seed, tol=0).fit(X)
        ref = KMeans(4, random_state=seed, tol=0).fit(X)
        assert adjusted_rand_score(ours.labels_, ref.labels_) == 1.0
        assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)


def test_explicit_feature_map_quadratic_kernel():
    # (x·z)² = <φ(x), φ(z)>, φ(x) = (x1², x2², √2 x1 x2) (notes B §10.4 test).
    rng = np.random.RandomState(0)
    X = rng.standard_normal((80, 2))
    phi = np.column_stack([X[:, 0] ** 2, X[:, 1] ** 2, np.sqrt(2) * X[:, 0] * X[:, 1]])
    labels0 = rng.randint(3, size=80)
    ours = KernelKMeans(3, kernel="poly", degree=2, gamma=1.0, coef0=0.0,
                        init=labels0, tol=0).fit(X)
    ref = KMeans(3, init=_means(phi, labels0, 3), n_init=1, tol=0).fit(phi)
    assert_array_equal(ours.labels_, ref.labels_)
    assert ours.inertia_ == pytest.approx(ref.inertia_, rel=1e-9)
    # inertia_ is the feature-space within-cluster sum of squares
    centres = _means(phi, ours.labels_, 3)
    assert ours.inertia_ == pytest.approx(
        np.sum((phi - centres[ours.labels_]) ** 2), rel=1e-9)


@settings(max_examples=20)
@given(seed=st.integers(0, 10_000), kernel=st.sampled_from(["rbf", "poly", "linear"]),
       k=st.integers(2, 6))
def test_objective_non_increasing(seed, kernel, k):
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((60, 3))
    km = KernelKMeans(k, kernel=kernel, gamma=0.5, init="random", tol=0,
                      random_state=seed).fit(X)
    h = km.inertia_history_
    assert np.all(np.diff(h) <= 1e-9 * max(1.0, abs(h[0])))
    assert km.inertia_ <= h[-1] + 1e-9 * max(1.0, abs(h[0]))
    assert len(np.unique(km.labels_)) == k  # empty clusters relocated


def test_separates_circles_where_kmeans_fails():
    X, y = make_circles(300, factor=0.3, noise=0.05, random_state=0)
    km = KernelKMeans(2, gamma=5.0, n_init=5, random_state=0).fit(X)
    assert adjusted_rand_score(y, km.labels_) == 1.0
    assert adjusted_rand_score(y, KMeans(2, random_state=0).fit(X).labels_) < 0.1
    X_new, y_new = make_circles(100, factor=0.3, noise=0.05, random_state=1)
    assert adjusted_rand_score(y_new, km.predict(X_new)) == 1.0


def test_predict_is_the_kernel_trick_distance():
    X = StandardScaler().fit_transform(load_iris().data)
    km = KernelKMeans(3, gamma=0.3, random_state=0).fit(X)
    assert_array_equal(km.predict(X), km.labels_)
    X_new = np.random.RandomState(1).standard_normal((20, 4))
    # ||φ(x) − μ_j||² from the notes' formula, cluster by cluster.
    dist = np.empty((20, 3))
    for j in range(3):
        members = X[km.labels_ == j]
        dist[:, j] = (1.0 - 2 * rbf_kernel(X_new, members, gamma=0.3).mean(axis=1)
                      + rbf_kernel(members, gamma=0.3).mean())
    assert_array_equal(km.predict(X_new), np.argmin(dist, axis=1))


def test_precomputed_and_sparse_match():
    X = StandardScaler().fit_transform(load_iris().data)
    K = rbf_kernel(X, gamma=0.3)
    a = KernelKMeans(3, gamma=0.3, random_state=0).fit(X)
    b = KernelKMeans(3, kernel="precomputed", random_state=0).fit(K)
    c = KernelKMeans(3, gamma=0.3, random_state=0).fit(sp.csr_matrix(X))
    assert_array_equal(a.labels_, b.labels_)
    assert_array_equal(a.labels_, c.labels_)
    X_new = X[::4] + 0.05
    assert_array_equal(a.predict(X_new),
                       b.predict(rbf_kernel(X_new, X, gamma=0.3)))
    callable_km = KernelKMeans(
        3, kernel=lambda x, z, gamma: np.exp(-gamma * np.sum((x - z) ** 2)),
        kernel_params={"gamma": 0.3}, random_state=0).fit(X[::3])
    named = KernelKMeans(3, gamma=0.3, random_state=0).fit(X[::3])
    assert_array_equal(callable_km.labels_, named.labels_)


def test_integer_weights_equal_repeats_from_same_init():
    X = StandardScaler().fit_transform(load_wine().data)
    rng = np.random.RandomState(0)
    w = rng.randint(0, 4, size=len(X))
    w[:3] = 1
    labels0 = rng.randint(3, size=len(X))
    weighted = KernelKMeans(3, gamma=0.05, init=labels0, tol=0).fit(X, sample_weight=w)
    repeated = KernelKMeans(3, gamma=0.05, init=np.repeat(labels0, w),
                            tol=0).fit(np.repeat(X, w, axis=0))
    assert_array_equal(np.repeat(weighted.labels_, w), repeated.labels_)
    assert weighted.inertia_ == pytest.approx(repeated.inertia_, rel=1e-9)


def test_empty_initial_cluster_is_relocated():
    X = StandardScaler().fit_transform(load_iris().data)
    labels0 = np.zeros(len(X), dtype=int)  # clusters 1 and 2 start empty
    labels0[0] = 1
    km = KernelKMeans(3, gamma=0.3, init=labels0).fit(X)
    assert len(np.unique(km.labels_)) == 3


def test_n_init_keeps_best_and_explicit_init_warns():
    X = StandardScaler().fit_transform(load_wine().data)
    # The first of the n_init runs draws what the single run draws.
    kw = {"init": "random", "random_state": 0, "gamma": 0.05}
    single = KernelKMeans(4, n_init=1, **kw).fit(X)
    best = KernelKMeans(4, n_init=5, **kw).fit(X)
    assert best.inertia_ <= single.inertia_ + 1e-9
    with pytest.warns(RuntimeWarning, match="only one init"):
        KernelKMeans(3, init=np.zeros(len(X), dtype=int), n_init=3).fit(X)


def test_errors():
    X = StandardScaler().fit_transform(load_iris().data)
    with pytest.raises(ValueError, match="shape"):
        KernelKMeans(3, init=np.zeros(10, dtype=int)).fit(X)
    with pytest.raises(ValueError, match="integers"):
        KernelKMeans(3, init=np.full(len(X), 3)).fit(X)
    with pytest.raises(ValueError, match="initial centers"):
        KernelKMeans(3, init=np.zeros((2, 4))).fit(X)
    with pytest.raises(ValueError, match="precomputed"):
        KernelKMeans(3, kernel="precomputed", init=np.zeros((3, 150))).fit(
            rbf_kernel(X))
    with pytest.raises(ValueError, match="square"):
        KernelKMeans(3, kernel="precomputed").fit(X)
    with pytest.raises(ValueError, match="n_clusters"):
        KernelKMeans(8).fit(X[:5])
    with pytest.raises(ValueError, match="weight"):
        KernelKMeans(3).fit(X, sample_weight=np.zeros(len(X)))
    with pytest.raises(ValueError, match="non-zero"):
        w = np.zeros(len(X))
        w[:2] = 1
        KernelKMeans(3).fit(X, sample_weight=w)
    with pytest.raises(ValueError, match="kernel"):
        KernelKMeans(3, kernel="cosine").fit(X)
