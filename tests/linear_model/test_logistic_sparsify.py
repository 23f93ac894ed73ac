"""sparsify() / densify() on the linear classifiers and SGDRegressor (issue 24).

The methods come from ``SparseCoefMixin`` (skml/linear_model/_base.py);
LinearClassifierMixin includes it, SGDRegressor lists it.
"""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_diabetes
from sklearn.exceptions import NotFittedError

from skml.linear_model import (
    LogisticRegression,
    Perceptron,
    SGDClassifier,
    SGDRegressor,
)
from skml.svm import LinearSVC
from tests._data import load

CLASSIFIERS = [
    LogisticRegression(l1_ratio=1.0, solver="saga", C=0.05, max_iter=300,
                       random_state=0),
    SGDClassifier(random_state=0, penalty="l1", alpha=0.01),
    Perceptron(random_state=0),
    LinearSVC(),
]


def _iris(binary):
    X, y = load("iris", scale=True)
    if binary:
        X, y = X[y < 2], y[y < 2]
    return X, y


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
@pytest.mark.parametrize("binary", [True, False])
@pytest.mark.parametrize("estimator", CLASSIFIERS, ids=lambda e: type(e).__name__)
def test_sparsify_keeps_the_scores_and_densify_restores(estimator, binary):
    X, y = _iris(binary)
    est = estimator.fit(X, y)
    dense_coef = est.coef_.copy()
    scores, labels = est.decision_function(X), est.predict(X)
    assert est.sparsify() is est
    assert sp.issparse(est.coef_) and est.coef_.shape == dense_coef.shape
    np.testing.assert_array_equal(est.coef_.toarray(), dense_coef)
    np.testing.assert_allclose(est.decision_function(X), scores, rtol=1e-12,
                               atol=1e-12)
    np.testing.assert_allclose(est.decision_function(sp.csr_matrix(X)), scores,
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_array_equal(est.predict(X), labels)
    if hasattr(est, "predict_proba"):
        np.testing.assert_allclose(est.predict_proba(X).sum(axis=1), 1.0)
    assert est.densify() is est
    assert isinstance(est.coef_, np.ndarray)
    np.testing.assert_array_equal(est.coef_, dense_coef)


def test_l1_logistic_coef_is_stored_sparse():
    X, y = _iris(False)
    clf = LogisticRegression(l1_ratio=1.0, solver="saga", C=0.05, max_iter=1000,
                             random_state=0).fit(X, y)
    n_zero = np.sum(clf.coef_ == 0)
    assert n_zero > 0
    assert clf.sparsify().coef_.nnz == clf.coef_.shape[0] * clf.coef_.shape[1] - n_zero


def test_sparsified_logistic_warm_start():
    X, y = _iris(False)
    clf = LogisticRegression(warm_start=True, max_iter=500).fit(X, y)
    expected = clf.coef_.copy()
    clf.sparsify().fit(X, y)
    assert isinstance(clf.coef_, np.ndarray)
    np.testing.assert_allclose(clf.coef_, expected, atol=1e-4)


def test_sgd_regressor_sparsify_keeps_1d_coef():
    X, y = load_diabetes(return_X_y=True)
    reg = SGDRegressor(random_state=0, penalty="l1", alpha=0.5).fit(X, y)
    coef, pred = reg.coef_.copy(), reg.predict(X)
    reg.sparsify()
    assert sp.issparse(reg.coef_)
    np.testing.assert_allclose(reg.predict(X), pred, rtol=1e-12)
    assert reg.predict(X).shape == pred.shape
    reg.densify()
    assert reg.coef_.shape == coef.shape
    np.testing.assert_array_equal(reg.coef_, coef)


def test_sparsify_needs_a_fitted_estimator():
    with pytest.raises(NotFittedError):
        LogisticRegression().sparsify()
