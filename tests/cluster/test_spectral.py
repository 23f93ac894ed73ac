"""SpectralClustering: notes A §7.4, parity with scikit-learn, RatioCut relaxation."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import cluster as sk
from sklearn.datasets import load_iris, load_wine, make_circles, make_moons
from sklearn.manifold import spectral_embedding
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

from skml.cluster import KMeans, SpectralClustering, graph_laplacian
from tests._parity import parity_test

LAPLACIANS = ["rw", "sym", "unnormalized"]
SOLVERS = ["dense", "arpack", "lobpcg"]


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield


def _scaled(load):
    X, y = load(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _block_graph(sizes, seed=0):
    """Block-diagonal weights: one connected component per block."""
    rng = np.random.RandomState(seed)
    n = sum(sizes)
    W = np.zeros((n, n))
    start = 0
    for size in sizes:
        block = rng.uniform(0.5, 1.5, size=(size, size))
        W[start:start + size, start:start + size] = block + block.T
        start += size
    np.fill_diagonal(W, 0.0)
    labels = np.repeat(np.arange(len(sizes)), sizes)
    perm = rng.permutation(n)
    return W[np.ix_(perm, perm)], labels[perm]


@parity_test(SpectralClustering)
@pytest.mark.parametrize("load", [load_iris, load_wine])
@pytest.mark.parametrize(
    "params", [{"gamma": 0.1}, {"gamma": 1.0}, {"affinity": "nearest_neighbors"}]
)
def test_parity_labels(load, params):
    # The default (laplacian="rw") computes what scikit-learn computes, and
    # draws the same random numbers: the same labels from the same seed.
    X, y = _scaled(load)
    ours = SpectralClustering(3, random_state=0, **params).fit(X)
    ref = sk.SpectralClustering(3, random_state=0, **params).fit(X)
    assert adjusted_rand_score(ours.labels_, ref.labels_) == pytest.approx(1.0)
    assert adjusted_rand_score(y, ours.labels_) == pytest.approx(
        adjusted_rand_score(y, ref.labels_)
    )
    assert adjusted_rand_score(y, ours.labels_) > 0.4
    A = ours.affinity_matrix_
    B = ref.affinity_matrix_
    if not sp.issparse(A):  # kNN graphs may break iris's distance ties apart
        assert_allclose(A, B, atol=1e-12)


@parity_test(SpectralClustering)
@pytest.mark.parametrize("solver", SOLVERS)
def test_parity_embedding(solver):
    # embedding_ = D^{-1/2} (eigenvectors of L_sym) = scikit-learn's
    # spectral_embedding(norm_laplacian=True, drop_first=False), up to sign.
    X, _ = _scaled(load_wine)
    ours = SpectralClustering(3, gamma=0.1, eigen_solver=solver, random_state=0).fit(X)
    ref = spectral_embedding(ours.affinity_matrix_, n_components=3, drop_first=False,
                             random_state=0)
    atol = 1e-5 if solver == "lobpcg" else 1e-8  # lobpcg's default tolerance
    assert_allclose(np.abs(ours.embedding_), np.abs(ref), atol=atol)


@pytest.mark.parametrize("laplacian", LAPLACIANS)
@pytest.mark.parametrize("affinity", ["precomputed", "sparse"])
def test_block_diagonal_graph_is_recovered(laplacian, affinity):
    # notes A §7.4, the ideal case: k components, k zero eigenvalues whose
    # eigenvectors are (scaled) component indicators: k-means recovers them.
    W, labels = _block_graph([15, 25, 20])
    X = sp.csr_matrix(W) if affinity == "sparse" else W
    sc = SpectralClustering(3, affinity="precomputed", laplacian=laplacian,
                            eigen_solver="dense", random_state=0).fit(X)
    assert adjusted_rand_score(labels, sc.labels_) == 1.0
    assert_allclose(sc.eigenvalues_, 0.0, atol=1e-10)


@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("laplacian", LAPLACIANS)
def test_disconnected_graph_repeated_zero_eigenvalue(solver, laplacian):
    # Five components, six clusters: eigenvalue 0 five times. Lanczos alone
    # can miss a copy of a repeated eigenvalue; the known null space
    # (component indicators) is deflated first.
    W, labels = _block_graph([40, 50, 60, 45, 55], seed=1)
    sc = SpectralClustering(6, affinity="precomputed", laplacian=laplacian,
                            eigen_solver=solver, random_state=0).fit(sp.csr_matrix(W))
    assert_allclose(sc.eigenvalues_[:5], 0.0, atol=1e-9)
    assert sc.eigenvalues_[5] > 1e-6
    # one component is split in two, the other four are clusters of their own
    pure = [len(np.unique(sc.labels_[labels == c])) == 1 for c in range(5)]
    assert sum(pure) == 4
    assert len(np.unique(sc.labels_)) == 6


@pytest.mark.parametrize("laplacian", LAPLACIANS)
def test_eigen_solvers_agree(laplacian):
    X, _ = _scaled(load_iris)
    fits = [
        SpectralClustering(3, gamma=0.5, laplacian=laplacian, eigen_solver=s,
                           random_state=0).fit(X)
        for s in SOLVERS
    ]
    for solver, sc in zip(SOLVERS[1:], fits[1:]):
        assert_allclose(sc.eigenvalues_, fits[0].eigenvalues_, rtol=1e-6, atol=1e-9)
        # start vector drawn whatever the solver: the same k-means seeds
        # (lobpcg's default tolerance leaves ~1e-6 in the vectors, enough
        # to move a boundary sample)
        limit = 1.0 if solver == "arpack" else 0.95
        assert adjusted_rand_score(sc.labels_, fits[0].labels_) >= limit


@pytest.mark.parametrize("laplacian", LAPLACIANS)
def test_embedding_normalisation(laplacian):
    X, _ = _scaled(load_iris)
    sc = SpectralClustering(3, gamma=0.5, laplacian=laplacian, random_state=0).fit(X)
    U = sc.embedding_
    _, d = graph_laplacian(sc.affinity_matrix_, return_diag=True)
    if laplacian == "unnormalized":
        assert_allclose(U.T @ U, np.eye(3), atol=1e-10)  # orthonormal (notes)
        L = graph_laplacian(sc.affinity_matrix_)
        assert_allclose(L @ U, U * sc.eigenvalues_, atol=1e-8)
    elif laplacian == "rw":
        assert_allclose(U.T @ (d[:, None] * U), np.eye(3), atol=1e-10)
        L_rw = graph_laplacian(sc.affinity_matrix_, kind="rw")
        assert_allclose(L_rw @ U, U * sc.eigenvalues_, atol=1e-8)
    else:
        assert_allclose(np.linalg.norm(U, axis=1), 1.0)


@settings(max_examples=25)
@given(seed=st.integers(0, 10_000), k=st.integers(2, 4))
def test_ratio_cut_relaxation_lower_bound(seed, k):
    # tr(H^T L H) = RatioCut for the notes' H, and H^T H = I; the minimum of
    # tr(U^T L U) over orthonormal U is the sum of the k smallest eigenvalues,
    # so it lower-bounds the RatioCut of the clustering found.
    rng = np.random.RandomState(seed)
    X = rng.standard_normal((30, 2))
    sc = SpectralClustering(k, gamma=1.0, laplacian="unnormalized",
                            random_state=0).fit(X)
    W = sc.affinity_matrix_.copy()
    np.fill_diagonal(W, 0.0)
    labels = sc.labels_
    ratio_cut = sum(
        W[np.ix_(labels == c, labels != c)].sum() / np.sum(labels == c)
        for c in np.unique(labels)
    )
    assert sc.eigenvalues_.sum() <= ratio_cut + 1e-9
    assert sc.eigenvalues_[0] == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("laplacian", LAPLACIANS)
def test_separates_moons_and_circles_where_kmeans_fails(laplacian):
    for make in (make_moons, make_circles):
        kw = {"factor": 0.4} if make is make_circles else {}
        X, y = make(300, noise=0.05, random_state=0, **kw)
        sc = SpectralClustering(2, affinity="nearest_neighbors", laplacian=laplacian,
                                random_state=0).fit(X)
        assert adjusted_rand_score(y, sc.labels_) == 1.0
        assert adjusted_rand_score(y, KMeans(2, random_state=0).fit(X).labels_) < 0.6
    X, y = make_circles(300, factor=0.4, noise=0.05, random_state=0)
    sc = SpectralClustering(2, gamma=20.0, laplacian=laplacian, random_state=0).fit(X)
    assert adjusted_rand_score(y, sc.labels_) == 1.0


def test_precomputed_nearest_neighbors_matches_features():
    X, _ = _scaled(load_wine)  # no duplicate rows, no distance ties
    a = SpectralClustering(3, affinity="nearest_neighbors", random_state=0).fit(X)
    D = euclidean_distances(X)
    b = SpectralClustering(3, affinity="precomputed_nearest_neighbors",
                           random_state=0).fit(D)
    assert_allclose(a.affinity_matrix_.toarray(), b.affinity_matrix_.toarray())
    assert_array_equal(a.labels_, b.labels_)
    ref = sk.SpectralClustering(3, affinity="precomputed_nearest_neighbors",
                                random_state=0).fit(D)
    assert_allclose(b.affinity_matrix_.toarray(), ref.affinity_matrix_.toarray())
    assert adjusted_rand_score(b.labels_, ref.labels_) == pytest.approx(1.0)


def test_sparse_features_and_callable_affinity():
    X, _ = _scaled(load_iris)
    dense = SpectralClustering(3, random_state=0).fit(X)
    sparse = SpectralClustering(3, random_state=0).fit(sp.csr_matrix(X))
    assert_array_equal(dense.labels_, sparse.labels_)
    knn = SpectralClustering(3, affinity="nearest_neighbors",
                             random_state=0).fit(sp.csr_matrix(X))
    assert knn.labels_.shape == (150,)
    X_small = X[::5]
    call = SpectralClustering(
        3, affinity=lambda a, b, gamma: np.exp(-gamma * np.sum((a - b) ** 2)),
        kernel_params={"gamma": 1.0}, random_state=0).fit(X_small)
    named = SpectralClustering(3, gamma=1.0, random_state=0).fit(X_small)
    assert_allclose(call.affinity_matrix_, named.affinity_matrix_, atol=1e-12)
    assert_array_equal(call.labels_, named.labels_)


def test_fit_predict_and_n_components():
    X, _ = _scaled(load_iris)
    sc = SpectralClustering(3, n_components=5, random_state=0)
    labels = sc.fit_predict(X)
    assert_array_equal(labels, sc.labels_)
    assert sc.embedding_.shape == (150, 5)
    assert np.all(np.diff(sc.eigenvalues_) >= -1e-12)


def test_errors():
    X, _ = _scaled(load_iris)
    with pytest.raises(ValueError, match="negative"):
        SpectralClustering(3, affinity="linear").fit(X)
    with pytest.raises(ValueError, match="square"):
        SpectralClustering(3, affinity="precomputed").fit(X)
    with pytest.raises(ValueError, match="symmetric"):
        SpectralClustering(2, affinity="precomputed").fit(np.triu(np.ones((5, 5))))
    with pytest.raises(ValueError, match="n_clusters"):
        SpectralClustering(8).fit(X[:5])
    with pytest.raises(TypeError, match="dense distance"):
        SpectralClustering(2, affinity="precomputed_nearest_neighbors").fit(
            sp.csr_matrix(euclidean_distances(X[:10])))
    with pytest.raises(ValueError, match="laplacian"):
        SpectralClustering(2, laplacian="normalized").fit(X)
    with pytest.raises(ValueError, match="n_components"):
        SpectralClustering(2, n_components=200).fit(X[:20])
