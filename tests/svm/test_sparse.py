"""Sparse (CSR/CSC) input of the kernel SVMs SVC and SVR (issue 20)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import svm as sk_svm
from sklearn.datasets import load_iris

from skml.svm import SVC, SVR
from tests._sparse_hypothesis import make_sparse_pair, sparse_pairs

KERNELS = ["linear", "rbf", "poly", "sigmoid"]


def _assert_same_model(dense, sparse):
    # Issue 21: a sparse fit is the dense fit, to the last bit of the dual.
    # Both solve in the same coordinates (ordinary data are not centred,
    # rbf is scaled by a power of two) with kernel values summed in the
    # same order, so SMO takes the same steps: exact equality, at the
    # default tol, where any rounding difference used to flip a tie.
    assert sp.issparse(sparse.support_vectors_) and sp.issparse(sparse.dual_coef_)
    np.testing.assert_array_equal(sparse.support_, dense.support_)
    np.testing.assert_array_equal(sparse.dual_coef_.toarray(), dense.dual_coef_)
    np.testing.assert_array_equal(sparse.intercept_, dense.intercept_)
    np.testing.assert_array_equal(sparse.support_vectors_.toarray(),
                                  dense.support_vectors_)


@settings(max_examples=25, deadline=None)
@given(pair=sparse_pairs(min_rows=10, dtypes=(np.float64,)),
       kernel=st.sampled_from(KERNELS), n_classes=st.integers(2, 3),
       gamma=st.sampled_from([0.5, "scale", "auto"]))
def test_svc_sparse_matches_dense(pair, kernel, n_classes, gamma):
    X, S = pair
    y = np.arange(X.shape[0]) % n_classes
    kw = dict(kernel=kernel, gamma=gamma, coef0=0.5, degree=2)
    dense = SVC(**kw).fit(X, y)
    sparse = SVC(**kw).fit(S, y)
    _assert_same_model(dense, sparse)
    d1, d2 = dense.decision_function(X), sparse.decision_function(S)
    np.testing.assert_allclose(d2, d1, rtol=1e-9, atol=1e-12)
    # a sparse model answers dense queries; a dense model refuses sparse
    # ones, as scikit-learn's
    np.testing.assert_allclose(sparse.decision_function(X), d2, atol=1e-10)
    with pytest.raises(ValueError, match="cannot use sparse input in 'SVC'"):
        dense.decision_function(S)


@settings(max_examples=20, deadline=None)
@given(pair=sparse_pairs(min_rows=8, dtypes=(np.float64,)),
       kernel=st.sampled_from(KERNELS))
def test_svr_sparse_matches_dense(pair, kernel):
    X, S = pair
    y = np.sin(np.arange(X.shape[0]))
    kw = dict(kernel=kernel, gamma=0.5, coef0=0.5, degree=2, epsilon=0.05)
    dense = SVR(**kw).fit(X, y)
    sparse = SVR(**kw).fit(S, y)
    _assert_same_model(dense, sparse)
    p1, p2 = dense.predict(X), sparse.predict(S)
    np.testing.assert_allclose(p2, p1, rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_sparse_fit_is_the_dense_fit_on_iris(kernel):
    # Regression (issue 21): the dense path centred the linear kernel's data
    # and scaled rbf's by max|x - mean|, the sparse path neither, and BLAS
    # summed the dense kernel rows in another order; on iris the two fits
    # then broke SMO's ties differently and stopped at different points
    # within tol (dual coefficients apart in the 3rd digit).
    X, y = load_iris(return_X_y=True)
    perm = np.random.RandomState(0).permutation(len(y))
    X, y = X[perm], y[perm]
    for container in (sp.csr_matrix, sp.lil_matrix):
        dense = SVC(kernel=kernel, gamma=1.0).fit(X, y)
        sparse = SVC(kernel=kernel, gamma=1.0).fit(container(X), y)
        _assert_same_model(dense, sparse)


@pytest.mark.parametrize("kernel", KERNELS)
@pytest.mark.parametrize("fmt", ["csr", "csc"])
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_sparse_matches_scikit_learn(kernel, fmt, dtype):
    # Neither centres sparse data: the same dual, the same solution.
    X, S = make_sparse_pair(1, 90, 25, 0.3, fmt, dtype)
    y = np.random.default_rng(2).integers(0, 3, size=90)
    ours = SVC(kernel=kernel).fit(S, y)
    ref = sk_svm.SVC(kernel=kernel).fit(S, y)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    # both store dual_coef_ as a sparse matrix after a sparse fit
    np.testing.assert_allclose(ours.dual_coef_.toarray(), ref.dual_coef_.toarray(),
                               atol=1e-8)
    np.testing.assert_allclose(ours.decision_function(S), ref.decision_function(S),
                               atol=1e-8)
    yr = np.cos(np.arange(90.0))
    ours_r = SVR(kernel=kernel).fit(S, yr)
    ref_r = sk_svm.SVR(kernel=kernel).fit(S, yr)
    np.testing.assert_allclose(ours_r.predict(S), ref_r.predict(S), atol=1e-8)
    assert sp.issparse(ours_r.support_vectors_)


def test_sparse_precomputed_refused():
    K = sp.csr_matrix(np.eye(4))
    for est in (SVC(kernel="precomputed"), SVR(kernel="precomputed")):
        with pytest.raises(TypeError, match="Sparse precomputed kernels"):
            est.fit(K, [0, 1, 0, 1])
    dense = SVC(kernel="precomputed").fit(np.eye(4), [0, 1, 0, 1])
    with pytest.raises(TypeError, match="Sparse precomputed kernels"):
        dense.predict(K)


def test_sparse_gamma_scale_as_scikit_learn():
    _, S = make_sparse_pair(4, 50, 12, 0.4, "csr", np.float64)
    y = np.arange(50) % 2
    for kernel in ("rbf", "poly"):
        ours = SVC(kernel=kernel).fit(S, y)
        ref = sk_svm.SVC(kernel=kernel).fit(S, y)
        np.testing.assert_allclose(ours._gamma, ref._gamma, rtol=1e-12)


def test_sparse_callable_kernel():
    X, S = make_sparse_pair(5, 40, 6, 0.5, "csr", np.float64)
    y = np.arange(40) % 2

    def kernel(A, B):
        return A @ B.T  # sparse in, sparse out

    a = SVC(kernel=kernel, tol=1e-10).fit(S, y)
    b = SVC(kernel="linear", tol=1e-10).fit(X, y)
    np.testing.assert_allclose(a.decision_function(S), b.decision_function(X),
                               atol=1e-6)


@pytest.mark.parametrize("Estimator", [SVC, SVR])
@pytest.mark.parametrize("kernel", ["linear", "rbf"])
def test_sparse_fit_stores_sparse_coefficients_as_scikit_learn(Estimator, kernel):
    # scikit-learn's sparse fit keeps support_vectors_, dual_coef_ and the
    # linear kernel's coef_ as CSR matrices (its svm/tests/test_sparse.py
    # asserts it); a dense fit keeps arrays. Values as scikit-learn's.
    X, S = make_sparse_pair(3, 60, 12, 0.3, "csr", np.float64)
    y = np.arange(60) % 2 if Estimator is SVC else np.sin(np.arange(60.0))
    dense = Estimator(kernel=kernel).fit(X, y)
    sparse = Estimator(kernel=kernel).fit(S, y)
    reference = getattr(sk_svm, Estimator.__name__)(kernel=kernel).fit(S, y)
    names = ["support_vectors_", "dual_coef_"] + (["coef_"] if kernel == "linear" else [])
    for name in names:
        assert sp.issparse(getattr(sparse, name)), name
        assert sp.issparse(getattr(reference, name)), name
        assert not sp.issparse(getattr(dense, name)), name
        np.testing.assert_allclose(getattr(sparse, name).toarray(),
                                   getattr(reference, name).toarray(), atol=1e-6)
    np.testing.assert_array_equal(sparse.support_, reference.support_)


def test_sparse_fit_without_support_vectors_has_empty_sparse_coefficients():
    # scikit-learn's test_sparse_fit_support_vectors_empty (its #14893)
    S = sp.csr_matrix([[0, 1, 0, 0], [0, 0, 0, 1], [0, 0, 1, 0], [0, 0, 0, 1]])
    model = SVR(kernel="linear").fit(S, np.array([0.04, 0.04, 0.10, 0.16]))
    assert not model.support_vectors_.data.size
    assert not model.dual_coef_.data.size
