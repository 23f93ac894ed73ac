"""SpectralClustering: notes A §7.4, parity with scikit-learn, RatioCut relaxation."""

import tracemalloc
import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import cluster as sk
from sklearn.datasets import make_circles, make_moons
from sklearn.manifold import spectral_embedding
from sklearn.metrics import adjusted_rand_score
from sklearn.metrics.pairwise import euclidean_distances
from sklearn.utils.estimator_checks import parametrize_with_checks
from threadpoolctl import threadpool_limits

from skml.cluster import KMeans, SpectralClustering, _kernel_memory, graph_laplacian
from skml.cluster._graph import _laplacian
from skml.cluster._spectral import _cluster_qr, _discretize, _nystroem_laplacian
from tests import _data
from tests._parity import parity_test

LAPLACIANS = ["rw", "sym", "unnormalized"]
SOLVERS = ["dense", "arpack", "lobpcg"]


@pytest.fixture(autouse=True)
def _one_blas_thread():
    with threadpool_limits(1):
        yield


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
@pytest.mark.parametrize("name", ["iris", "wine"])
@pytest.mark.parametrize(
    "params", [{"gamma": 0.1}, {"gamma": 1.0}, {"affinity": "nearest_neighbors"}]
)
def test_parity_labels(name, params):
    # The default (laplacian="rw") computes what scikit-learn computes, and
    # draws the same random numbers: the same labels from the same seed.
    X, y = _data.load(name, scale=True)
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
    X, _ = _data.load("wine", scale=True)
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
    X, _ = _data.load("iris", scale=True)
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
    X, _ = _data.load("iris", scale=True)
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
    X, _ = _data.load("wine", scale=True)  # no duplicate rows, no distance ties
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
    X, _ = _data.load("iris", scale=True)
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
    X, _ = _data.load("iris", scale=True)
    sc = SpectralClustering(3, n_components=5, random_state=0)
    labels = sc.fit_predict(X)
    assert_array_equal(labels, sc.labels_)
    assert sc.embedding_.shape == (150, 5)
    assert np.all(np.diff(sc.eigenvalues_) >= -1e-12)


def test_errors():
    X, _ = _data.load("iris", scale=True)
    with pytest.raises(ValueError, match="negative"):
        SpectralClustering(3, affinity="linear").fit(X)
    with pytest.raises(ValueError, match="square"):
        SpectralClustering(3, affinity="precomputed").fit(X)
    with pytest.raises(ValueError, match="n_clusters"):
        SpectralClustering(8).fit(X[:5])
    with pytest.raises(ValueError, match="laplacian"):
        SpectralClustering(2, laplacian="normalized").fit(X)
    with pytest.raises(ValueError, match="n_components"):
        SpectralClustering(2, n_components=200).fit(X[:20])


# --- Label assignment: discretize (Yu & Shi), cluster_qr (Damle et al.) ---


@pytest.mark.parametrize("assign_labels", ["discretize", "cluster_qr"])
@pytest.mark.parametrize("laplacian", LAPLACIANS)
@pytest.mark.parametrize("sparse_input", [False, True])
def test_other_assignments_recover_blocks(assign_labels, laplacian, sparse_input):
    W, labels = _block_graph([15, 25, 20, 30], seed=3)
    # weak links between the blocks: one connected graph
    W = W + 0.01 * (W == 0)
    np.fill_diagonal(W, 0.0)
    X = sp.csr_matrix(W) if sparse_input else W
    sc = SpectralClustering(4, affinity="precomputed", laplacian=laplacian,
                            assign_labels=assign_labels, random_state=0).fit(X)
    assert adjusted_rand_score(labels, sc.labels_) == 1.0
    assert sc.labels_.dtype == np.int32


@pytest.mark.parametrize("assign_labels", ["discretize", "cluster_qr"])
def test_other_assignments_on_circles_and_iris(assign_labels):
    X, y = make_circles(300, factor=0.4, noise=0.05, random_state=0)
    sc = SpectralClustering(2, gamma=20.0, assign_labels=assign_labels,
                            random_state=0).fit(X)
    assert adjusted_rand_score(y, sc.labels_) == 1.0
    for name, gamma in [("iris", 0.5), ("wine", 0.1)]:
        X, y = _data.load(name, scale=True)
        ours = SpectralClustering(3, gamma=gamma, assign_labels=assign_labels,
                                  random_state=0).fit(X)
        ref = sk.SpectralClustering(3, gamma=gamma, assign_labels=assign_labels,
                                    random_state=0).fit(X)
        # Written from the papers, not scikit-learn's code (its cluster_qr
        # pivots on the rescaled embedding, ours on the orthonormal
        # eigenvectors): the same quality within a margin (measured: ARI to
        # the classes equal for discretize, 0.02-0.05 higher for cluster_qr).
        assert adjusted_rand_score(y, ours.labels_) > adjusted_rand_score(
            y, ref.labels_) - 0.05
        if name == "wine":
            assert adjusted_rand_score(ours.labels_, ref.labels_) > 0.9


def test_discretize_recovers_noisy_indicators():
    # Yu & Shi's setting: a rotated, noisy partition matrix is discretised
    # back to its partition.
    rng = np.random.RandomState(0)
    for k in range(2, 8):
        y = rng.randint(0, k, 300)
        Z = np.eye(k)[y] + 0.1 * rng.standard_normal((300, k))
        Q, _ = np.linalg.qr(rng.standard_normal((k, k)))
        labels = _discretize(Z @ Q, np.random.RandomState(1))
        assert adjusted_rand_score(y, labels) > 0.95


def test_cluster_qr_is_permutation_invariant_and_picks_k_clusters():
    rng = np.random.RandomState(0)
    V, _ = np.linalg.qr(rng.standard_normal((100, 5)))
    perm = rng.permutation(100)
    labels = _cluster_qr(V)
    assert_array_equal(labels[perm], _cluster_qr(V[perm]))
    assert_array_equal(np.unique(labels), np.arange(5))
    # invariant to a rotation of the basis (the same subspace)
    Q, _ = np.linalg.qr(rng.standard_normal((5, 5)))
    assert adjusted_rand_score(labels, _cluster_qr(V @ Q)) == 1.0


def test_other_assignments_need_one_vector_per_cluster():
    X, _ = _data.load("iris", scale=True)
    with pytest.raises(ValueError, match="n_components=2 must be >= n_clusters=3"):
        SpectralClustering(3, n_components=2, assign_labels="cluster_qr").fit(X)
    sc = SpectralClustering(3, n_components=5, assign_labels="discretize",
                            random_state=0).fit(X)
    assert len(np.unique(sc.labels_)) == 3


@pytest.mark.parametrize("assign_labels", ["kmeans", "discretize", "cluster_qr"])
def test_verbose_names_the_assignment(assign_labels, capsys):
    X, _ = _data.load("iris", scale=True)
    SpectralClustering(3, assign_labels=assign_labels, verbose=1,
                       random_state=0).fit(X)
    assert f"Computing label assignment using {assign_labels}" in capsys.readouterr().out


# --- Graph input: directed graphs, sparse kNN distance graphs, components ---


def test_directed_graph_is_symmetrised_with_a_warning():
    # a kNN connectivity is directed; (A + A^T) / 2 as scikit-learn
    X, _ = _data.load("wine", scale=True)
    from sklearn.neighbors import kneighbors_graph
    A = kneighbors_graph(X, 5, mode="connectivity")
    with pytest.warns(UserWarning, match="not symmetric"):
        a = SpectralClustering(3, affinity="precomputed", random_state=0).fit(A)
    b = SpectralClustering(3, affinity="precomputed", random_state=0).fit(
        0.5 * (A + A.T))
    assert_allclose(a.affinity_matrix_.toarray(), b.affinity_matrix_.toarray())
    assert_array_equal(a.labels_, b.labels_)
    with pytest.warns(UserWarning, match="not symmetric"):
        c = SpectralClustering(3, affinity="precomputed", random_state=0).fit(
            A.toarray())
    assert_array_equal(c.labels_, b.labels_)


def test_sparse_precomputed_nearest_neighbors_reads_stored_entries_only():
    from sklearn.neighbors import NearestNeighbors as SkNN
    X, _ = _data.load("wine", scale=True)  # no distance ties
    D = euclidean_distances(X)
    dense = SpectralClustering(3, affinity="precomputed_nearest_neighbors",
                               n_neighbors=6, random_state=0).fit(D)
    for extra in (0, 7):
        G = SkNN(n_neighbors=6 + extra).fit(X).kneighbors_graph(X, mode="distance")
        sparse = SpectralClustering(3, affinity="precomputed_nearest_neighbors",
                                    n_neighbors=6, random_state=0).fit(G)
        assert_allclose(sparse.affinity_matrix_.toarray(),
                        dense.affinity_matrix_.toarray())
        assert_array_equal(sparse.labels_, dense.labels_)
    # a missing entry is no edge: read as distance 0 it would be the
    # nearest of all
    G = SkNN(n_neighbors=6).fit(X).kneighbors_graph(X, mode="distance")
    A = SpectralClustering(3, affinity="precomputed_nearest_neighbors",
                           n_neighbors=6, random_state=0).fit(G).affinity_matrix_
    stored = G.copy()
    stored.data[:] = 1.0  # the pattern, explicit zeros (self) included
    rows, cols = A.nonzero()
    assert np.all(np.asarray((stored + stored.T)[rows, cols]).ravel() > 0)
    with pytest.raises(ValueError):
        SpectralClustering(3, affinity="precomputed_nearest_neighbors",
                           n_neighbors=8).fit(G)


def test_disconnected_graph_warns():
    W, _ = _block_graph([10, 12])
    with pytest.warns(UserWarning, match="not fully connected"):
        SpectralClustering(2, affinity="precomputed", random_state=0).fit(W)
    W = W + 0.01
    np.fill_diagonal(W, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SpectralClustering(2, affinity="precomputed", random_state=0).fit(W)


# --- Memory: the size check and the Nyström graph (issue 23 item 5) ---------


def test_too_large_affinity_matrix_is_refused_before_allocation(monkeypatch):
    # 2000 x 2000 float64 is 30.5 MiB, twice (W and its Laplacian), against
    # 1 MiB "available": a clear error before anything n x n exists.
    monkeypatch.setattr(_kernel_memory, "available_memory", lambda: 2**20)
    X, _ = _data.blobs(2000, 1)
    tracemalloc.start()
    try:
        with pytest.raises(ValueError) as info:
            SpectralClustering(6, gamma=0.05).fit(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    message = str(info.value)
    for part in ("2000 x 2000 affinity matrix (2 such matrices at its peak)",
                 "61.0 MiB as float64", "at most about 228 samples fit",
                 "approximation='nystroem'", "affinity='nearest_neighbors'"):
        assert part in message
    assert peak < 2000 * 2000 * 8 / 10
    # A callable affinity's symmetry check holds a third matrix; an explicit
    # dense eigensolver a fourth.
    with pytest.raises(ValueError, match=r"\(3 such"):
        SpectralClustering(2, affinity=lambda a, b: 1.0).fit(X)
    with pytest.raises(ValueError, match=r"\(3 such"):
        SpectralClustering(2, eigen_solver="dense").fit(X)
    with pytest.raises(ValueError, match=r"affinity matrix:"):
        SpectralClustering(2, affinity="precomputed").fit(np.eye(2000))
    # The options named in the message work under the same limit.
    SpectralClustering(6, gamma=0.05, approximation="nystroem").fit(X)
    SpectralClustering(6, affinity="nearest_neighbors").fit(X)


def test_terabyte_affinity_matrix_is_refused():
    # 400k samples: numpy used to be asked for a 1.16 TiB matrix.
    if _kernel_memory.available_memory() is None:
        pytest.skip("available memory unknown on this platform")
    X = np.linspace(0.0, 1.0, 400_000)[:, np.newaxis]
    with pytest.raises(ValueError, match="400000 x 400000 .*nystroem"):
        SpectralClustering(2).fit(X)


@pytest.mark.parametrize("kind", ["unnormalized", "sym"])
def test_nystroem_laplacian_operator_is_the_laplacian_of_phi_phi_t(kind):
    rng = np.random.RandomState(0)
    Phi = np.abs(rng.standard_normal((40, 6)))
    Phi[7] = 1e-16  # degree ~0: isolated, as a zero-degree node
    L, d, isolated = _nystroem_laplacian(Phi.copy(), kind)
    assert_array_equal(np.flatnonzero(isolated), [7])
    Phi[7] = 0.0
    dense, degrees = _laplacian(Phi @ Phi.T, kind)
    assert_allclose(L.matmat(np.eye(40)), dense, atol=1e-12)
    assert_allclose(L.matvec(np.arange(40.0)), dense @ np.arange(40.0), atol=1e-10)
    assert_allclose(d, degrees, rtol=1e-12)


@pytest.mark.parametrize("laplacian", LAPLACIANS)
@pytest.mark.parametrize("solver", SOLVERS)
def test_nystroem_with_every_sample_as_landmark_is_exact(laplacian, solver):
    # m = n and a positive definite kernel: Φ Φ^T = W, the same graph.
    X, _ = _data.load("iris", scale=True)
    exact = SpectralClustering(3, gamma=0.5, laplacian=laplacian,
                               eigen_solver=solver, random_state=0).fit(X)
    approx = SpectralClustering(3, gamma=0.5, laplacian=laplacian,
                                eigen_solver=solver, random_state=0,
                                approximation="nystroem", n_landmarks=150).fit(X)
    assert not hasattr(approx, "affinity_matrix_")
    assert_array_equal(approx.landmark_indices_, np.arange(150))
    atol = 1e-5 if solver == "lobpcg" else 1e-8
    assert_allclose(approx.eigenvalues_, exact.eigenvalues_, atol=atol)
    assert_allclose(np.abs(approx.embedding_), np.abs(exact.embedding_),
                    atol=10 * atol)
    assert adjusted_rand_score(approx.labels_, exact.labels_) >= (
        0.95 if solver == "lobpcg" else 1.0)


@pytest.mark.parametrize("laplacian", ["rw", "sym"])
def test_nystroem_agrees_with_exact_on_blobs(laplacian):
    # Measured: ARI 1.0 against the exact partition for seeds 0-2 with the
    # default 500 landmarks (2000 x 10, six overlapping blobs).
    X, _ = _data.blobs(2000, 1)
    exact = SpectralClustering(6, gamma=0.05, laplacian=laplacian,
                               random_state=0).fit(X)
    for seed in range(3):
        approx = SpectralClustering(6, gamma=0.05, laplacian=laplacian,
                                    random_state=seed,
                                    approximation="nystroem").fit(X)
        assert approx.landmark_indices_.shape == (500,)
        assert adjusted_rand_score(exact.labels_, approx.labels_) >= 0.95


def test_nystroem_separates_circles_and_stays_small_in_memory():
    X, y = make_circles(4000, factor=0.4, noise=0.05, random_state=0)
    sc = SpectralClustering(2, gamma=20.0, approximation="nystroem",
                            n_landmarks=100, random_state=0)
    tracemalloc.start()
    try:
        sc.fit(X)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert adjusted_rand_score(y, sc.labels_) == 1.0
    assert peak < 4000 * 4000 * 8 / 8  # the affinity matrix would be 122 MiB
    # A refit without Nyström forgets the landmarks.
    sc.set_params(approximation="exact").fit(X[:200])
    assert not hasattr(sc, "landmark_indices_")
    assert sc.affinity_matrix_.shape == (200, 200)


def test_nystroem_with_an_isolated_sample():
    # A sample far from all others has an rbf degree ~0: it is isolated (its
    # own component, eigenvalue 0), as in the exact graph.
    X, _ = _data.load("iris", scale=True)
    X = np.vstack([X, [[1e3, 0, 0, 0]]])
    exact = SpectralClustering(4, gamma=0.5, random_state=0).fit(X)
    approx = SpectralClustering(4, gamma=0.5, random_state=0,
                                approximation="nystroem", n_landmarks=60).fit(X)
    assert np.sum(approx.labels_ == approx.labels_[-1]) == 1
    assert np.sum(exact.labels_ == exact.labels_[-1]) == 1
    assert_allclose(approx.eigenvalues_[:2], 0.0, atol=1e-9)


def test_nystroem_errors():
    X, _ = _data.load("iris", scale=True)
    with pytest.raises(ValueError, match="kernel affinity"):
        SpectralClustering(3, affinity="nearest_neighbors",
                           approximation="nystroem").fit(X)
    with pytest.raises(ValueError, match="negative"):
        SpectralClustering(3, affinity="linear", approximation="nystroem").fit(X)
    with pytest.raises(ValueError, match="n_landmarks=2 should be >= n_components=3"):
        SpectralClustering(3, approximation="nystroem", n_landmarks=2).fit(X)
    with pytest.raises(ValueError, match="approximation"):
        SpectralClustering(3, approximation="landmarks").fit(X)
    with pytest.raises(ValueError, match="n_landmarks"):
        SpectralClustering(3, n_landmarks=0).fit(X)


@parametrize_with_checks([
    SpectralClustering(2, n_init=2, approximation="nystroem", n_landmarks=10),
    SpectralClustering(2, n_init=2, approximation="nystroem", n_landmarks=12,
                       laplacian="unnormalized", eigen_solver="arpack"),
])
def test_common_checks_of_nystroem(estimator, check):
    check(estimator)


@pytest.mark.parametrize("options", [{}, {"approximation": "nystroem", "n_landmarks": 20}])
def test_an_overflowed_affinity_is_named_as_such(options):
    # Issue 23: at X * 1e300 the rbf affinity (gamma=1) is NaN, and the user,
    # whose X has none, was told "Input affinity contains NaN".
    X, _ = make_moons(60, noise=0.05, random_state=0)
    sc = SpectralClustering(2, n_init=2, random_state=0, **options)
    with pytest.raises(ValueError, match=r"not finite.*overflowed.*Rescale X"):
        sc.fit(X * 1e300)
    # At 1e-300 every weight is 1: a complete graph, clustered as scikit-learn does.
    assert sc.fit(X * 1e-300).labels_.shape == (60,)


def test_an_affinity_of_isolated_nodes_is_refused():
    # All weights between distinct samples exactly 0 (exp(-gamma d²) below
    # the smallest float): the graph has no edges.
    X, _ = make_moons(30, noise=0.05, random_state=0)
    with pytest.raises(ValueError, match=r"gamma=1e\+06.*is 0 for every pair"):
        SpectralClustering(2, gamma=1e6, random_state=0).fit(X * 100)
