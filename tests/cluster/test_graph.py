"""graph_laplacian: the identities of notes A §7.3 (Cut, RatioCut, L = D - W)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from scipy.sparse.csgraph import connected_components
from scipy.sparse.csgraph import laplacian as scipy_laplacian

from skml.cluster import graph_laplacian


def _random_graph(seed, n, density):
    """Symmetric non-negative weights with a random sparsity pattern."""
    rng = np.random.RandomState(seed)
    W = rng.uniform(0.1, 2.0, size=(n, n)) * (rng.uniform(size=(n, n)) < density)
    W = np.triu(W, 1)
    return W + W.T


def _ratio_cut(W, labels):
    """S0's RatioCut = Σ_i W(C_i, C̄_i) / |C_i| (no factor 1/2)."""
    total = 0.0
    for c in np.unique(labels):
        inside = labels == c
        total += W[np.ix_(inside, ~inside)].sum() / inside.sum()
    return total


def _cut(W, labels):
    return sum(W[np.ix_(labels == c, labels != c)].sum() for c in np.unique(labels))


graphs = st.builds(
    _random_graph,
    st.integers(0, 10_000),
    st.integers(2, 25),
    st.floats(0.0, 0.6),
)


@given(W=graphs, kind=st.sampled_from(["unnormalized", "sym", "rw"]))
def test_psd_and_zero_eigenvalues_count_components(W, kind):
    # notes A §7.3: L is PSD and the multiplicity of eigenvalue 0 is the
    # number of connected components (an isolated node is one).
    L = graph_laplacian(W, kind=kind)
    if kind == "rw":  # not symmetric; it has the eigenvalues of L_sym
        eig = np.sort(np.linalg.eigvals(L).real)
    else:
        assert_allclose(L, L.T, atol=1e-12)
        eig = np.linalg.eigvalsh(L)
    scale = max(1.0, np.abs(eig).max())
    assert eig.min() >= -1e-9 * scale
    n_components = connected_components(sp.csr_matrix(W), directed=False)[0]
    assert int(np.sum(eig < 1e-8 * scale)) == n_components


@given(W=graphs, f_seed=st.integers(0, 1000))
def test_quadratic_form(W, f_seed):
    # f^T L f = 1/2 Σ w_ij (f_i - f_j)^2, and L 1 = 0.
    f = np.random.RandomState(f_seed).standard_normal(W.shape[0])
    L = graph_laplacian(W)
    assert_allclose(f @ L @ f, 0.5 * np.sum(W * (f[:, None] - f[None, :]) ** 2),
                    rtol=1e-10, atol=1e-10)
    assert_allclose(L @ np.ones(W.shape[0]), 0.0, atol=1e-10)


@given(W=graphs, k=st.integers(1, 4), seed=st.integers(0, 1000))
def test_trace_identity_is_ratio_cut(W, k, seed):
    # The notes' lemma: H_ij = 1[i ∈ C_j] / sqrt(|C_j|) has H^T H = I and
    # tr(H^T L H) = RatioCut with S0's definition (catalogue A §0 item 7).
    n = W.shape[0]
    k = min(k, n)
    rng = np.random.RandomState(seed)
    labels = np.concatenate([np.arange(k), rng.randint(k, size=n - k)])
    H = np.zeros((n, k))
    for j in range(k):
        H[labels == j, j] = 1.0 / np.sqrt(np.sum(labels == j))
    assert_allclose(H.T @ H, np.eye(k), atol=1e-12)
    L = graph_laplacian(W)
    assert_allclose(np.trace(H.T @ L @ H), _ratio_cut(W, labels), rtol=1e-10,
                    atol=1e-10)


def test_two_cluster_vector_and_s2_factor():
    # S2's v^A: v^T L v = |V| (cut/|A| + cut/|Ā|) = |V| · RatioCut(S0); S2's
    # own RatioCut has a factor 1/2, so its identity is off by 2.
    W = _random_graph(3, 12, 0.5)
    labels = (np.arange(12) < 5).astype(int)
    A, n = labels == 1, 12
    v = np.where(A, np.sqrt((n - A.sum()) / A.sum()), -np.sqrt(A.sum() / (n - A.sum())))
    assert_allclose(v.sum(), 0.0, atol=1e-12)
    assert_allclose(v @ v, n)
    L = graph_laplacian(W)
    cut = W[np.ix_(A, ~A)].sum()
    assert_allclose(v @ L @ v, n * (cut / A.sum() + cut / (n - A.sum())))
    assert_allclose(v @ L @ v, n * _ratio_cut(W, labels))
    assert_allclose(_cut(W, labels), 2 * cut)


@given(W=graphs)
def test_normalised_relations(W):
    L, d = graph_laplacian(W, return_diag=True)
    assert_allclose(d, W.sum(axis=1))
    L_sym = graph_laplacian(W, kind="sym")
    L_rw = graph_laplacian(W, kind="rw")
    keep = d > 0
    s = np.where(keep, 1 / np.sqrt(np.where(keep, d, 1)), 0)
    # L_sym = D^-1/2 L D^-1/2, L_rw = D^-1 L = D^-1/2 L_sym D^1/2.
    assert_allclose(L_sym, s[:, None] * L * s[None, :], atol=1e-12)
    assert_allclose(L_rw, np.where(keep, 1 / np.where(keep, d, 1), 0)[:, None] * L,
                    atol=1e-12)
    r = np.sqrt(d)
    assert_allclose(L_rw[np.ix_(keep, keep)],
                    (s[:, None] * L_sym * r[None, :])[np.ix_(keep, keep)], atol=1e-10)
    # L_sym D^{1/2} 1 = 0 and L_rw 1 = 0.
    assert_allclose(L_sym @ r, 0.0, atol=1e-10)
    assert_allclose(L_rw @ np.ones(len(d)), 0.0, atol=1e-10)


@pytest.mark.parametrize("kind", ["unnormalized", "sym", "rw"])
def test_sparse_matches_dense_and_scipy(kind):
    W = _random_graph(0, 30, 0.3)
    W[np.arange(30), np.arange(30)] = 5.0  # self-loops are ignored
    L = graph_laplacian(W, kind=kind)
    Ls = graph_laplacian(sp.csr_matrix(W), kind=kind)
    assert sp.issparse(Ls)
    assert_allclose(Ls.toarray(), L, atol=1e-12)
    if kind != "rw":
        W0 = W.copy()
        np.fill_diagonal(W0, 0)
        if kind == "sym" and np.any(W0.sum(1) == 0):
            pytest.skip("isolated node")
        ref = scipy_laplacian(W0, normed=kind == "sym")
        assert_allclose(L, ref, atol=1e-12)


def test_errors():
    with pytest.raises(ValueError, match="square"):
        graph_laplacian(np.ones((2, 3)))
    with pytest.raises(ValueError, match="symmetric"):
        graph_laplacian(np.array([[0, 1.0], [2.0, 0]]))
    with pytest.raises(ValueError, match="symmetric"):
        graph_laplacian(sp.csr_matrix(np.array([[0, 1.0], [0, 0]])))
    with pytest.raises(ValueError, match="negative"):
        graph_laplacian(np.array([[0, -1.0], [-1.0, 0]]))
    with pytest.raises(ValueError, match="NaN|infinity"):
        graph_laplacian(np.array([[0, np.nan], [np.nan, 0]]))
    with pytest.raises(ValueError, match="kind"):
        graph_laplacian(np.eye(2), kind="normalized")
    with pytest.raises(TypeError, match="return_diag"):
        graph_laplacian(np.eye(2), return_diag="yes")
    with pytest.raises(ValueError):
        graph_laplacian(np.ones((2, 2, 2)))
