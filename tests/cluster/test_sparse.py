"""Sparse (CSR/CSC) input of KMeans, kmeans_plusplus, spectral and kernel k-means (issue 20)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import cluster as sk_cluster

from skml.cluster import KMeans, kmeans_plusplus
from tests._sparse_hypothesis import make_sparse_pair, sparse_pairs


def _rtol(dtype):
    return 1e-4 if dtype == np.float32 else 1e-9


@settings(max_examples=25)
@given(pair=sparse_pairs(min_rows=8), n_clusters=st.integers(1, 4),
       algorithm=st.sampled_from(["lloyd", "hamerly"]),
       weighted=st.booleans())
def test_kmeans_sparse_matches_dense(pair, n_clusters, algorithm, weighted):
    X, S = pair
    rng = np.random.default_rng(X.shape[0])
    sw = rng.uniform(0.5, 2.0, size=X.shape[0]) if weighted else None
    init = X[rng.choice(X.shape[0], n_clusters, replace=False)].astype(np.float64)
    kw = dict(n_clusters=n_clusters, init=init, algorithm=algorithm, tol=0)
    dense = KMeans(**kw).fit(X, sample_weight=sw)
    sparse = KMeans(**kw).fit(S, sample_weight=sw)
    scale = max(1.0, float(np.sum(X.astype(np.float64) ** 2)))
    atol = _rtol(X.dtype) * scale
    # The labels may differ only where a sample is (to rounding) equidistant
    # from two centres: then the objective is the same either way.
    assert abs(sparse.inertia_ - dense.inertia_) <= atol
    if np.array_equal(sparse.labels_, dense.labels_):
        np.testing.assert_allclose(sparse.cluster_centers_, dense.cluster_centers_,
                                   rtol=_rtol(X.dtype), atol=_rtol(X.dtype))
    assert sparse.cluster_centers_.dtype == X.dtype
    # predict / transform / score on sparse queries of the same model
    np.testing.assert_array_equal(dense.predict(S)[_clear_rows(dense, X)],
                                  dense.predict(X)[_clear_rows(dense, X)])
    np.testing.assert_allclose(dense.transform(S), dense.transform(X),
                               rtol=_rtol(X.dtype), atol=np.sqrt(atol))
    assert abs(dense.score(S) - dense.score(X)) <= atol


def _clear_rows(model, X):
    """Rows whose nearest centre wins by more than rounding."""
    D = model.transform(X.astype(np.float64))
    D.sort(axis=1)
    if D.shape[1] == 1:
        return np.ones(D.shape[0], dtype=bool)
    return D[:, 1] - D[:, 0] > 1e-6 * (1 + D[:, 1])


@settings(max_examples=15)
@given(pair=sparse_pairs(min_rows=8), seed=st.integers(0, 1000))
def test_kmeans_plusplus_sparse_matches_dense(pair, seed):
    X, S = pair
    c1, i1 = kmeans_plusplus(X, 3, random_state=seed)
    c2, i2 = kmeans_plusplus(S, 3, random_state=seed)
    assert not sp.issparse(c2)
    # the same draws on the same potentials: same seeds up to rounding ties
    if np.array_equal(i1, i2):
        np.testing.assert_array_equal(c1, c2)


def test_kmeans_sparse_matches_scikit_learn():
    X, S = make_sparse_pair(3, 200, 50, 0.1, "csr", np.float64)
    init = X[:6].copy()
    ours = KMeans(6, init=init, n_init=1).fit(S)
    ref = sk_cluster.KMeans(6, init=init, n_init=1).fit(S)
    np.testing.assert_array_equal(ours.labels_, ref.labels_)
    np.testing.assert_allclose(ours.cluster_centers_, ref.cluster_centers_, atol=1e-12)
    np.testing.assert_allclose(ours.inertia_, ref.inertia_, rtol=1e-10)
    assert ours.n_iter_ == ref.n_iter_


def test_kmeans_sparse_empty_cluster_relocation():
    # three points, three clusters seeded on two of them: one cluster is
    # empty after the first assignment and takes the farthest sample
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 5.0], [0.0, 5.1]])
    init = np.array([[0.0, 0.0], [0.0, 0.0], [0.0, 5.0]])
    d = KMeans(3, init=init, n_init=1).fit(X)
    s = KMeans(3, init=init, n_init=1).fit(sp.csr_matrix(X))
    np.testing.assert_array_equal(s.labels_, d.labels_)
    np.testing.assert_allclose(s.cluster_centers_, d.cluster_centers_)


def test_kmeans_sparse_copy_x_false_restores_data():
    _, S = make_sparse_pair(5, 40, 8, 0.4, "csr", np.float64, explicit_zeros=False)
    S2 = S * 1e300
    before = S2.copy()
    KMeans(2, random_state=0, copy_x=False).fit(S2)
    np.testing.assert_array_equal(S2.toarray(), before.toarray())


@pytest.mark.parametrize("fmt", ["csr", "csc"])
def test_kmeans_sparse_keeps_memory_sparse(fmt):
    # a matrix whose dense form would need 8 GB: the fit must not densify it
    d = 1_000_000
    S = _huge_sparse(fmt)
    km = KMeans(3, random_state=0, n_init=1, max_iter=5).fit(S)
    assert km.cluster_centers_.shape == (3, d)
    assert km.predict(S[:10]).shape == (10,)


def _huge_sparse(fmt, n=1000, d=1_000_000, nnz=5000):
    """n x d with nnz entries, built from its coordinates (sp.random would
    draw them from all n * d positions, an 8 GB permutation)."""
    rng = np.random.default_rng(0)
    rows = rng.integers(0, n, nnz)
    cols = rng.integers(0, d, nnz)
    S = sp.coo_matrix((rng.normal(size=nnz), (rows, cols)), shape=(n, d))
    return S.tocsr() if fmt == "csr" else S.tocsc()


def _shuffled_rows(S, seed=0):
    """S with each row's entries stored in a random order (unsorted indices,
    as a sparse product leaves them), same matrix."""
    S = S.tocsr(copy=True)
    rng = np.random.default_rng(seed)
    for i in range(S.shape[0]):
        a, b = S.indptr[i], S.indptr[i + 1]
        order = a + rng.permutation(b - a)
        S.indices[a:b], S.data[a:b] = S.indices[order], S.data[order]
    S.has_sorted_indices = False
    return S


def test_kmeans_sparse_unsorted_indices_fit_in_place_and_duplicates_are_summed():
    # Unsorted indices change nothing: no copy of X (issue 20: the copy was
    # 1.28x scikit-learn's fit memory on hashed text). Duplicate entries are
    # summed first (a copy), or a row's squared norm would be wrong.
    _, S = make_sparse_pair(60, 40, 8, 0.4, "csr", np.float64, explicit_zeros=False)
    U = _shuffled_rows(S)
    assert not U.has_canonical_format
    ref = KMeans(3, random_state=0, n_init=1).fit(S)
    km = KMeans(3, random_state=0, n_init=1).fit(U)
    np.testing.assert_array_equal(km.labels_, ref.labels_)
    np.testing.assert_allclose(km.cluster_centers_, ref.cluster_centers_, rtol=1e-12)
    U_before = U.copy()
    KMeans(3, random_state=0, n_init=1, copy_x=False).fit(U)
    np.testing.assert_array_equal(U.indices, U_before.indices)  # untouched
    # the same matrix with a second stored entry at each row's first column,
    # of minus half its value: D sums to `half`
    indptr, indices, data = [0], [], []
    for i in range(U.shape[0]):
        a, b = U.indptr[i], U.indptr[i + 1]
        extra = ([U.indices[a]], [-U.data[a] / 2]) if b > a else ([], [])
        indices += list(U.indices[a:b]) + extra[0]
        data += list(U.data[a:b]) + extra[1]
        indptr.append(len(indices))
    D = sp.csr_matrix((np.array(data), np.array(indices, dtype=np.int32),
                       np.array(indptr, dtype=np.int32)), shape=U.shape)
    first = U.indptr[:-1][np.diff(U.indptr) > 0]
    dup = KMeans(3, random_state=0, n_init=1).fit(D)
    half = U.copy()
    half.data[first] /= 2  # what D sums to
    ref_half = KMeans(3, random_state=0, n_init=1).fit(half)
    np.testing.assert_array_equal(dup.labels_, ref_half.labels_)
    np.testing.assert_allclose(dup.cluster_centers_, ref_half.cluster_centers_,
                               rtol=1e-12)
    # (the objective squares stored values: unsummed duplicates would change it)
    np.testing.assert_allclose(dup.inertia_, ref_half.inertia_, rtol=1e-12)
