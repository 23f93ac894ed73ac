"""Multi-class SVMs of notes B §5.11: one-vs-rest SVC and the joint Crammer-Singer QP."""

import numpy as np
import pytest
import scipy.sparse as sp
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.multiclass import OneVsRestClassifier
from sklearn.preprocessing import StandardScaler
from sklearn.svm import SVC as SKSVC
from sklearn.svm import LinearSVC as SKLinearSVC

from skml.svm import SVC, LinearSVC


def _scaled(load):
    X, y = load(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@pytest.mark.parametrize("params", [
    {"kernel": "rbf"}, {"kernel": "linear", "C": 0.5}, {"kernel": "poly", "degree": 2},
])
def test_ovr_svc_matches_one_vs_rest_of_scikit_learn(params):
    X, y = _scaled(load_wine)
    ours = SVC(multi_class="ovr", tol=1e-6, **params).fit(X, y)
    ref = OneVsRestClassifier(SKSVC(tol=1e-6, **params)).fit(X, y)
    np.testing.assert_allclose(ours.decision_function(X), ref.decision_function(X),
                               atol=1e-4)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert ours.dual_coef_.shape == (3, len(ours.support_))
    assert ours.intercept_.shape == (3,)


def test_ovr_predicts_the_largest_output_and_each_row_is_k_against_rest():
    # Notes B §5.11: K classifiers h_k, predict the one with the largest output.
    X, y = _scaled(load_iris)
    clf = SVC(multi_class="ovr", tol=1e-8).fit(X, y)
    scores = clf.decision_function(X)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[scores.argmax(axis=1)])
    for k in range(3):
        alone = SVC(tol=1e-8).fit(X, y == k)
        np.testing.assert_allclose(scores[:, k], alone.decision_function(X), atol=1e-6)


def test_ovr_with_two_classes_is_the_binary_svm():
    X, y = _scaled(load_breast_cancer)
    a = SVC(multi_class="ovr").fit(X, y)
    b = SVC().fit(X, y)
    np.testing.assert_allclose(a.decision_function(X), b.decision_function(X))


def test_ovr_linear_coef_is_one_row_per_class():
    X, y = _scaled(load_iris)
    clf = SVC(kernel="linear", multi_class="ovr").fit(X, y)
    np.testing.assert_allclose(X @ clf.coef_.T + clf.intercept_,
                               clf.decision_function(X), atol=1e-10)


@pytest.mark.parametrize("load", [load_iris, load_wine, load_breast_cancer])
@pytest.mark.parametrize("params", [
    {}, {"C": 0.1, "intercept_scaling": 2.0}, {"fit_intercept": False},
    {"class_weight": "balanced"},
])
def test_crammer_singer_parity_with_scikit_learn(load, params):
    X, y = _scaled(load)
    kw = {"multi_class": "crammer_singer", "tol": 1e-8, "max_iter": 100_000,
          "random_state": 0, **params}
    ours = LinearSVC(**kw).fit(X, y)
    ref = SKLinearSVC(**kw).fit(X, y)
    assert ours.coef_.shape == ref.coef_.shape
    np.testing.assert_allclose(ours.coef_, ref.coef_, atol=1e-6)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-6)


def test_crammer_singer_dual_and_sparse():
    X, y = _scaled(load_wine)
    clf = LinearSVC(multi_class="crammer_singer", tol=1e-8, max_iter=10_000).fit(X, y)
    alpha = clf.dual_coef_.T
    # the dual's constraints: each block sums to 0, alpha_im <= 0 off the
    # true class, alpha_{i y_i} <= C; and w_m = sum_i alpha_im x_i
    np.testing.assert_allclose(alpha.sum(axis=1), 0.0, atol=1e-12)
    off = np.ones_like(alpha, dtype=bool)
    off[np.arange(len(y)), y] = False
    assert np.all(alpha[off] <= 1e-15) and np.all(alpha[~off] <= 1.0 + 1e-12)
    np.testing.assert_allclose(alpha.T @ X, clf.coef_, atol=1e-12)
    sparse = LinearSVC(multi_class="crammer_singer", tol=1e-8,
                       max_iter=10_000).fit(sp.csr_matrix(X), y)
    np.testing.assert_allclose(sparse.coef_, clf.coef_, rtol=1e-6, atol=1e-8)


def test_crammer_singer_sample_weight_zero_is_removal():
    X, y = _scaled(load_iris)
    w = np.ones(len(y))
    w[::5] = 0
    a = LinearSVC(multi_class="crammer_singer", tol=1e-9, max_iter=10_000).fit(
        X, y, sample_weight=w)
    b = LinearSVC(multi_class="crammer_singer", tol=1e-9, max_iter=10_000).fit(
        X[w > 0], y[w > 0])
    np.testing.assert_allclose(a.coef_, b.coef_, atol=1e-7)
