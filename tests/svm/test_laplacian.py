"""The notes' Laplace kernel ``exp(-gamma ||x - z||_2)`` as ``kernel="laplacian"``
in SVC, SVR and HardMarginSVC (notes B §5.8, D1 Ch. 7; issue 18)."""

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose
from sklearn import svm as sk
from sklearn.datasets import load_breast_cancer, load_diabetes
from sklearn.preprocessing import StandardScaler

from skml.metrics.pairwise import is_valid_kernel, laplacian_kernel
from skml.svm import SVC, SVR, HardMarginSVC


def _cancer(n=150):
    X, y = load_breast_cancer(return_X_y=True)
    return StandardScaler().fit_transform(X[:n]), y[:n]


@pytest.mark.parametrize("gamma", [0.05, 0.3])
def test_svc_laplacian_is_svc_on_the_l2_laplace_gram_matrix(gamma):
    # Parity with scikit-learn's SVC on the precomputed Gram matrix of the
    # notes' kernel (scikit-learn has no L2 Laplace kernel of its own).
    X, y = _cancer()
    ours = SVC(kernel="laplacian", gamma=gamma).fit(X, y)
    K = laplacian_kernel(X, X, gamma=gamma, norm="l2")
    ref = sk.SVC(kernel="precomputed").fit(K, y)
    assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-3, atol=1e-4)
    assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-3, atol=1e-4)
    np.testing.assert_array_equal(ours.support_, ref.support_)
    X_test = X[:20] + 0.1
    K_test = laplacian_kernel(X_test, X, gamma=gamma, norm="l2")
    assert_allclose(ours.decision_function(X_test), ref.decision_function(K_test),
                    rtol=1e-3, atol=1e-4)


def test_laplacian_gamma_scale_is_one_over_sqrt_d_var():
    X, y = _cancer()
    X = 3.0 * X + 100.0  # shift-free kernel: the model of X, gamma in X's units
    model = SVC(kernel="laplacian").fit(X, y)
    gamma = 1.0 / np.sqrt(X.shape[1] * X.var())
    assert model._gamma == pytest.approx(gamma, rel=1e-12)
    ref = SVC(kernel="laplacian", gamma=gamma).fit(X, y)
    assert_allclose(model.decision_function(X), ref.decision_function(X), rtol=1e-10)
    auto = SVC(kernel="laplacian", gamma="auto").fit(X, y)
    assert auto._gamma == pytest.approx(1.0 / X.shape[1])


def test_laplacian_is_not_sklearns_l1_kernel():
    # The name means the notes' L2 form: an L1 Gram matrix gives another model.
    X, y = _cancer(80)
    ours = SVC(kernel="laplacian", gamma=0.1).fit(X, y)
    K1 = laplacian_kernel(X, X, gamma=0.1, norm="l1")
    l1 = sk.SVC(kernel="precomputed").fit(K1, y)
    assert not np.allclose(ours.decision_function(X), l1.decision_function(K1),
                           rtol=1e-2, atol=1e-2)


def test_svr_laplacian_matches_sklearn_on_the_gram_matrix():
    X, y = load_diabetes(return_X_y=True)
    X, y = StandardScaler().fit_transform(X[:120]), y[:120]
    ours = SVR(kernel="laplacian", gamma=0.2, C=100.0, epsilon=5.0).fit(X, y)
    K = laplacian_kernel(X, X, gamma=0.2, norm="l2")
    ref = sk.SVR(kernel="precomputed", C=100.0, epsilon=5.0).fit(K, y)
    assert_allclose(ours.predict(X), ref.predict(K), rtol=1e-3, atol=1e-2)


def test_svc_laplacian_sparse_equals_dense():
    X, y = _cancer(100)
    X[np.abs(X) < 0.5] = 0.0
    dense = SVC(kernel="laplacian", gamma=0.2).fit(X, y)
    sparse = SVC(kernel="laplacian", gamma=0.2).fit(sp.csr_matrix(X), y)
    assert_allclose(sparse.dual_coef_.toarray(), dense.dual_coef_, rtol=1e-6, atol=1e-8)
    assert_allclose(sparse.decision_function(sp.csr_matrix(X[:10])),
                    dense.decision_function(X[:10]), rtol=1e-6, atol=1e-8)


def test_hard_margin_svc_laplacian_separates_the_training_set():
    # The L2 Laplace kernel is strictly positive definite (the Gram matrix of
    # distinct points is invertible), so any labelling of distinct points is
    # separable with margin: the hard-margin SVM classifies all of them.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(40, 3))
    y = rng.integers(0, 2, size=40)
    assert is_valid_kernel("laplacian", X, gamma=1.0, norm="l2")
    model = HardMarginSVC(kernel="laplacian", gamma=1.0).fit(X, y)
    np.testing.assert_array_equal(model.predict(X), y)
