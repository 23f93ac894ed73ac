"""Sparse (CSR/CSC) input of PCA: implicit centring, never densified (issue 20)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import decomposition as sk_decomposition

from skml.decomposition import PCA
from tests._sparse_hypothesis import make_sparse_pair, sparse_pairs


def _tol(dtype):
    return 2e-3 if dtype == np.float32 else 1e-7


@settings(max_examples=25)
@given(pair=sparse_pairs(min_rows=8, min_cols=3),
       solver=st.sampled_from(["arpack", "covariance_eigh", "auto"]),
       k=st.integers(1, 2))
def test_pca_sparse_matches_dense(pair, solver, k):
    X, S = pair
    dense = PCA(k, svd_solver="full").fit(X.astype(np.float64))
    sparse = PCA(k, svd_solver=solver, random_state=0).fit(S)
    ev = dense.explained_variance_
    scale = max(1.0, float(np.max(np.abs(X), initial=0.0))) ** 2
    tol = _tol(X.dtype)
    np.testing.assert_allclose(sparse.explained_variance_, ev, atol=tol * scale,
                               rtol=tol)
    np.testing.assert_allclose(sparse.mean_, dense.mean_, atol=tol * np.sqrt(scale))
    # Components are defined only for separated eigenvalues (to rounding).
    full = PCA(svd_solver="full").fit(X.astype(np.float64)).explained_variance_
    gaps = np.abs(np.diff(full))[:k] if len(full) > k else np.full(k, np.inf)
    lower = np.r_[np.inf, gaps][:k]
    separated = np.minimum(gaps, lower) > 1e-3 * scale
    for i in np.flatnonzero(separated & (ev > 1e-3 * scale)):
        np.testing.assert_allclose(np.abs(sparse.components_[i] @ dense.components_[i]),
                                   1.0, atol=50 * tol)
    assert sparse.transform(S).shape == (X.shape[0], k)


@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("solver", ["arpack", "covariance_eigh"])
def test_pca_sparse_matches_scikit_learn(fmt, solver):
    _, S = make_sparse_pair(0, 120, 40, 0.2, fmt, np.float64)
    ours = PCA(6, svd_solver=solver, random_state=0).fit(S)
    ref = sk_decomposition.PCA(6, svd_solver=solver, random_state=0).fit(S)
    np.testing.assert_allclose(ours.explained_variance_, ref.explained_variance_,
                               rtol=1e-10)
    np.testing.assert_allclose(ours.explained_variance_ratio_,
                               ref.explained_variance_ratio_, rtol=1e-10)
    np.testing.assert_allclose(ours.noise_variance_, ref.noise_variance_, rtol=1e-10)
    np.testing.assert_allclose(np.abs(ours.transform(S)), np.abs(ref.transform(S)),
                               atol=1e-10)


def test_pca_sparse_refusals():
    _, S = make_sparse_pair(0, 30, 8, 0.4, "csr", np.float64)
    for solver in ("full", "randomized", "power"):
        with pytest.raises(TypeError, match="only support sparse inputs"):
            PCA(2, svd_solver=solver).fit(S)
        assert not PCA(svd_solver=solver).__sklearn_tags__().input_tags.sparse
    with pytest.raises(ValueError, match="strictly less"):
        PCA(8, svd_solver="arpack").fit(S)
    assert PCA(svd_solver="arpack").fit(S).n_components_ == 7  # min(n, d) - 1


def test_pca_sparse_never_densifies():
    # dense, this matrix would take 8 GB
    S = _huge_sparse("csr")
    pca = PCA(2, random_state=0).fit(S)
    assert pca._fit_svd_solver == "arpack"
    assert pca.transform(S[:5]).shape == (5, 2)


def _huge_sparse(fmt, n=1000, d=1_000_000, nnz=5000):
    """n x d with nnz entries, built from its coordinates (sp.random would
    draw them from all n * d positions, an 8 GB permutation)."""
    rng = np.random.default_rng(0)
    rows = rng.integers(0, n, nnz)
    cols = rng.integers(0, d, nnz)
    S = sp.coo_matrix((rng.normal(size=nnz), (rows, cols)), shape=(n, d))
    return S.tocsr() if fmt == "csr" else S.tocsc()
