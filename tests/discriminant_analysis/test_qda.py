"""QuadraticDiscriminantAnalysis: parity with scikit-learn, notes B §4.1."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose
from sklearn import discriminant_analysis as sk
from sklearn.datasets import load_breast_cancer, load_iris, load_wine

from skml.discriminant_analysis import LinearDiscriminantAnalysis as LDA
from skml.discriminant_analysis import QuadraticDiscriminantAnalysis as QDA
from skml.naive_bayes import GaussianNB
from tests._parity import parity_test


def _gaussians(seed, n=60, p=3, k=3, shared=False):
    rng = np.random.RandomState(seed)
    y = np.arange(n) % k
    A = [rng.normal(size=(p, p)) + 2 * np.eye(p) for _ in range(k)]
    if shared:
        A = [A[0]] * k
    X = np.vstack([rng.normal(size=(1, p)) @ A[c].T for c in y]) + 1.5 * y[:, None]
    return X, y


@parity_test(QDA)
@pytest.mark.parametrize(
    "load, reg_param",
    [(load_iris, 0.0), (load_iris, 0.3), (load_wine, 0.0), (load_wine, 0.1),
     (load_breast_cancer, 0.1)],
)
def test_parity(load, reg_param):
    X, y = load(return_X_y=True)
    kw = {"reg_param": reg_param, "store_covariance": True}
    ours = QDA(**kw).fit(X, y)
    ref = sk.QuadraticDiscriminantAnalysis(**kw).fit(X, y)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    assert_allclose(ours.means_, ref.means_, rtol=1e-10)
    assert_allclose(ours.priors_, ref.priors_, rtol=1e-12)
    for k in range(len(ours.classes_)):
        assert_allclose(ours.scalings_[k], ref.scalings_[k], rtol=1e-8, atol=1e-12)
        assert_allclose(ours.covariance_[k], ref.covariance_[k], rtol=1e-8, atol=1e-10)


@parity_test(QDA)
def test_parity_priors_binary_decision_function():
    X, y = load_breast_cancer(return_X_y=True)
    kw = {"priors": [0.3, 0.7], "reg_param": 0.05}
    ours = QDA(**kw).fit(X, y)
    ref = sk.QuadraticDiscriminantAnalysis(**kw).fit(X, y)
    assert_allclose(ours.decision_function(X), ref.decision_function(X), rtol=1e-7)
    assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)


def test_mle_means_and_covariances():
    # Notes B §4.1: μ_k = class mean, Σ_k = (1/N_k) Σ (x − μ_k)(x − μ_k)ᵀ.
    X, y = _gaussians(0)
    clf = QDA(store_covariance=True).fit(X, y)
    for k in range(3):
        assert_allclose(clf.means_[k], X[y == k].mean(axis=0), rtol=1e-12)
        assert_allclose(clf.covariance_[k], np.cov(X[y == k].T, ddof=0), rtol=1e-10)


def test_scores_are_the_gaussian_log_joint():
    X, y = _gaussians(1)
    clf = QDA(store_covariance=True).fit(X, y)
    joint = []
    for k in range(3):
        S, d = clf.covariance_[k], X - clf.means_[k]
        joint.append(np.log(clf.priors_[k]) - 0.5 * np.linalg.slogdet(2 * np.pi * S)[1]
                     - 0.5 * np.sum(d * np.linalg.solve(S, d.T).T, axis=1))
    joint = np.column_stack(joint)
    post = np.exp(joint - joint.max(axis=1, keepdims=True))
    post /= post.sum(axis=1, keepdims=True)
    assert_allclose(clf.predict_proba(X), post, rtol=1e-9, atol=1e-12)


def test_binary_z_is_the_log_posterior_ratio():
    X, y = _gaussians(2, k=2)
    clf = QDA().fit(X, y)
    logp = clf.predict_log_proba(X)
    z = clf.decision_function(X)
    assert_allclose(z, logp[:, 1] - logp[:, 0], rtol=1e-9, atol=1e-9)


def test_reg_param_shrinks_towards_identity():
    X, y = _gaussians(3)
    r = 0.4
    full = QDA(store_covariance=True).fit(X, y)
    reg = QDA(reg_param=r, store_covariance=True).fit(X, y)
    for k in range(3):
        expected = (1 - r) * full.covariance_[k] + r * np.eye(3)
        assert_allclose(reg.covariance_[k], expected, rtol=1e-10, atol=1e-12)


def test_equal_covariances_give_lda_posteriors():
    # With one covariance in the data generating process, the per-class
    # estimates converge to it and QDA's posteriors approach LDA's (n large);
    # with different covariances they do not (the contrast keeps the test honest).
    def mean_gap(shared):
        X, y = _gaussians(4, n=6000, shared=shared)
        X_test, _ = _gaussians(5, n=300, shared=shared)
        p_qda = QDA().fit(X, y).predict_proba(X_test)
        p_lda = LDA().fit(X, y).predict_proba(X_test)
        return np.mean(np.abs(p_qda - p_lda))

    assert mean_gap(shared=True) < 0.02
    assert mean_gap(shared=False) > 0.1


def test_diagonal_covariances_give_naive_bayes_posteriors():
    # Notes B §4.3: with independent features the full model and naive Bayes
    # agree for large n; a correlation in one class separates them.
    def mean_gap(correlated):
        rng = np.random.RandomState(6)
        y = np.arange(6000) % 2
        scale = np.where(y[:, None] == 0, [1, 2, 0.5], [2, 1, 1])
        X = rng.normal(size=(6000, 3)) * scale
        if correlated:
            X[:, 1] += 1.5 * X[:, 0] * (y == 0)
        X += y[:, None]
        X_test = rng.normal(size=(300, 3)) * 1.5 + 0.5
        p_qda = QDA().fit(X, y).predict_proba(X_test)
        return np.mean(np.abs(p_qda - GaussianNB().fit(X, y).predict_proba(X_test)))

    assert mean_gap(correlated=False) < 0.01
    assert mean_gap(correlated=True) > 0.03


@given(seed=st.integers(0, 2**16), reg_param=st.floats(0, 1))
def test_probabilities_sum_to_one(seed, reg_param):
    X, y = _gaussians(seed % 100)
    P = QDA(reg_param=reg_param).fit(X, y).predict_proba(X)
    assert np.all((P >= 0) & (P <= 1))
    assert_allclose(P.sum(axis=1), 1.0, rtol=1e-12)


def test_string_labels():
    X, y = _gaussians(7)
    labels = np.array(["a", "b", "c"])[y]
    clf = QDA().fit(X, labels)
    numeric = QDA().fit(X, y)
    np.testing.assert_array_equal(clf.predict(X), clf.classes_[numeric.predict(X)])


def test_errors():
    X, y = _gaussians(8)
    with pytest.raises(ValueError, match="class"):
        QDA().fit(X, np.zeros(len(y)))
    y1 = y.copy()
    y1[0] = 7
    with pytest.raises(ValueError, match="only 1 sample in class 7"):
        QDA().fit(X, y1)
    X_collinear = np.column_stack([X, X[:, 0]])
    with pytest.raises(np.linalg.LinAlgError, match="reg_param"):
        QDA().fit(X_collinear, y)
    QDA(reg_param=0.01).fit(X_collinear, y)


def test_huge_values_give_the_clean_model():
    # Issue 23: the class variances of X * 1e300 overflowed and every
    # posterior was NaN. The fit works in units of a power of two near
    # max |X|; the shared factor of the determinants cancels.
    X, y = load_iris(return_X_y=True)
    clean = QDA().fit(X, y)
    scaled = QDA().fit(X * 1e300, y)
    np.testing.assert_array_equal(scaled.predict(X * 1e300), clean.predict(X))
    assert_allclose(scaled.predict_proba(X * 1e300), clean.predict_proba(X),
                    rtol=1e-6, atol=1e-12)
    # reg_param is an absolute variance, negligible beside 1e600: finite
    # posteriors of the (then nearly unregularised) model.
    reg = QDA(reg_param=0.2).fit(X * 1e300, y)
    assert np.all(np.isfinite(reg.predict_proba(X * 1e300)))
    assert reg.score(X * 1e300, y) >= 0.95


def test_tiny_values_refused_naming_the_scale():
    # tol is an absolute variance (as scikit-learn's): at X * 1e-300 every
    # eigenvalue is below it; the error says so and what to do.
    X, y = load_iris(return_X_y=True)
    with pytest.raises(ValueError, match="not full rank.*rescale X"):
        QDA().fit(X * 1e-300, y)


def test_svd_class_with_too_few_samples_is_named_as_such():
    # "svd" regularises only the axes of the thin SVD (at most N_k of them):
    # a class with fewer samples than features stays singular whatever
    # reg_param (as scikit-learn's), and the error says why; "eigen" with
    # shrinkage fits it.
    rng = np.random.RandomState(0)
    X = rng.normal(size=(9, 4))
    y = np.array([1, 1, 1, 1, 1, 1, 2, 2, 2])
    for reg_param in (0.0, 0.3):
        with pytest.raises(np.linalg.LinAlgError,
                           match="not full rank. When using `solver='svd'`"):
            QDA(reg_param=reg_param).fit(X, y)
    QDA(solver="eigen", shrinkage=0.3).fit(X, y)
