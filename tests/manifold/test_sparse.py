"""Sparse (CSR/CSC) input of TSNE: points or a precomputed neighbour graph (issue 20).

t-SNE's descent amplifies last-bit differences, so equality "to rounding" is
checked on the affinities P and, where the computation is bitwise the same
(the neighbour search of method="fft" with a random start), on the embedding.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from skml.manifold import TSNE
from skml.manifold._affinities import dense_conditional, sparse_joint
from skml.manifold._t_sne import initial_embedding
from skml.neighbors import NearestNeighbors
from tests._sparse_hypothesis import make_sparse_pair, sparse_pairs


@settings(max_examples=20)
@given(pair=sparse_pairs(min_rows=12, dtypes=(np.float64,)),
       metric=st.sampled_from(["euclidean", "manhattan"]))
def test_affinities_sparse_match_dense(pair, metric):
    X, S = pair
    # Duplicate points tie at distance 0, where the perplexity bisection
    # turns last-bit differences of the distances into different P.
    assume(np.unique(X, axis=0).shape[0] == X.shape[0])
    S = S.tocsr()
    perplexity = 3.0
    P1 = dense_conditional(X, perplexity, metric)
    P2 = dense_conditional(S, perplexity, metric)
    np.testing.assert_allclose(P2, P1, atol=1e-9)
    # The joint P keeps each point's k = 3 * perplexity + 1 nearest
    # neighbours: with a tie at the k-th distance the set itself is ambiguous
    # (dense and sparse searches rank by differently rounded products), so
    # those draws say nothing about sparse = dense.
    k = min(X.shape[0] - 1, int(3.0 * perplexity + 1))
    ord_ = 1 if metric == "manhattan" else 2
    D = np.linalg.norm(X[:, None, :] - X[None, :, :], ord=ord_, axis=-1)
    np.fill_diagonal(D, np.inf)
    D.sort(axis=1)
    if k < X.shape[0] - 1:
        assume(np.all(D[:, k] - D[:, k - 1] > 1e-9 * (1.0 + D[:, k])))
    J1 = sparse_joint(X, perplexity, metric)
    J2 = sparse_joint(S, perplexity, metric)
    np.testing.assert_allclose(J2.toarray(), J1.toarray(), atol=1e-9)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_tsne_fft_sparse_equals_dense(fmt):
    X, S = make_sparse_pair(0, 60, 15, 0.4, fmt, np.float64, min_row_nnz=1)
    kw = dict(perplexity=5, method="fft", init="random", random_state=0, max_iter=300)
    a = TSNE(**kw).fit_transform(X)
    b = TSNE(**kw).fit_transform(S)
    np.testing.assert_allclose(b, a, atol=1e-8)


def test_tsne_sparse_pca_init():
    # ARPACK on the implicitly centred sparse X starts where the dense
    # randomized PCA starts (up to the solvers' rounding and the signs)
    X, S = make_sparse_pair(1, 50, 12, 0.5, "csr", np.float64, min_row_nnz=1)
    ev = np.linalg.eigvalsh(np.cov(X.T))[::-1]
    assert ev[1] - ev[2] > 1e-2 * ev[0]  # the 2-d subspace is well defined
    Y1 = initial_embedding("pca", X, 2, np.random.RandomState(0))
    Y2 = initial_embedding("pca", S, 2, np.random.RandomState(0))
    np.testing.assert_allclose(np.abs(Y2), np.abs(Y1), atol=1e-9)


@pytest.mark.parametrize("method", ["exact", "fft"])
def test_tsne_sparse_fits(method):
    _, S = make_sparse_pair(1, 50, 12, 0.5, "csc", np.float32, min_row_nnz=1)
    est = TSNE(perplexity=5, method=method, random_state=0, max_iter=300).fit(S)
    assert est.embedding_.shape == (50, 2)
    assert np.isfinite(est.kl_divergence_)


def test_tsne_sparse_precomputed_graph():
    X, _ = make_sparse_pair(2, 50, 10, 0.6, "csr", np.float64, min_row_nnz=1)
    nn = NearestNeighbors(n_neighbors=49).fit(X)
    G = nn.kneighbors_graph(mode="distance")
    D = G.toarray()  # every pair stored: the graph is the full matrix
    kw = dict(perplexity=5, method="fft", init="random", random_state=0,
              metric="precomputed", max_iter=300)
    np.testing.assert_allclose(TSNE(**kw).fit_transform(G),
                               TSNE(**kw).fit_transform(D), atol=1e-8)
    # a sparser graph works as long as every row stores 3 * perplexity + 1
    G16 = nn.kneighbors_graph(n_neighbors=16, mode="distance")
    assert TSNE(**kw).fit_transform(G16).shape == (50, 2)
    with pytest.raises(ValueError, match="17 neighbors per samples are required, but some samples have only 6"):
        TSNE(**kw).fit(nn.kneighbors_graph(n_neighbors=5, mode="distance"))
    with pytest.raises(TypeError, match='method="exact" does not accept sparse'):
        TSNE(**{**kw, "method": "exact"}).fit(G)
