"""SVC(probability=True): deprecated as in scikit-learn 1.9, libsvm's method (issue 21)."""

import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import svm as sk
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import StandardScaler

from skml.svm import SVC
from skml.svm._platt import couple_pairwise, fit_sigmoid


def _data(load):
    X, y = load(return_X_y=True)
    return StandardScaler().fit_transform(X), y


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", FutureWarning)
        return est.fit(X, y)


@pytest.mark.parametrize("value", [True, False])
def test_setting_probability_warns_as_scikit_learn(value):
    X, y = _data(load_iris)
    with pytest.warns(FutureWarning, match="CalibratedClassifierCV"):
        SVC(probability=value).fit(X, y)


def test_default_has_no_predict_proba_and_no_warning():
    X, y = _data(load_iris)
    with warnings.catch_warnings():
        warnings.simplefilter("error", FutureWarning)
        clf = SVC().fit(X, y)
    assert not hasattr(clf, "predict_proba")
    assert not hasattr(_fit(SVC(probability=False), X, y), "predict_proba")
    assert clf.probA_.shape == (0,)


@pytest.mark.parametrize("load", [load_breast_cancer, load_iris, load_wine])
@pytest.mark.parametrize("kernel", ["rbf", "linear"])
def test_probabilities_close_to_scikit_learn(load, kernel):
    """Same method; only the random folds differ (measured: mean |dp| <= 0.008)."""
    X, y = _data(load)
    ours = _fit(SVC(kernel=kernel, probability=True, random_state=0), X, y)
    theirs = _fit(sk.SVC(kernel=kernel, probability=True, random_state=0), X, y)
    p, q = ours.predict_proba(X), theirs.predict_proba(X)
    assert p.shape == q.shape
    assert np.abs(p - q).mean() < 0.03
    assert np.mean(p.argmax(axis=1) == q.argmax(axis=1)) > 0.95
    assert ours.probA_.shape == theirs.probA_.shape
    np.testing.assert_allclose(ours.probA_, theirs.probA_, rtol=0.25)


def test_probabilities_are_distributions_and_log_matches():
    X, y = _data(load_wine)
    for multi_class in ("ovo", "ovr"):
        clf = _fit(SVC(probability=True, multi_class=multi_class, random_state=0), X, y)
        p = clf.predict_proba(X)
        assert np.all((p >= 0) & (p <= 1))
        np.testing.assert_allclose(p.sum(axis=1), 1.0)
        np.testing.assert_allclose(np.exp(clf.predict_log_proba(X)), p)
        assert np.mean(clf.classes_[p.argmax(axis=1)] == clf.predict(X)) > 0.95


def test_precomputed_kernel_gives_the_same_probabilities():
    X, y = _data(load_iris)
    gamma = 0.3
    K = rbf_kernel(X, X, gamma=gamma)
    a = _fit(SVC(kernel="rbf", gamma=gamma, probability=True, random_state=1), X, y)
    b = _fit(SVC(kernel="precomputed", probability=True, random_state=1), K, y)
    # SMO stops at tol=1e-3 on either path: equal up to ~2e-4 (measured)
    np.testing.assert_allclose(a.predict_proba(X), b.predict_proba(K), atol=2e-3)


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), k=st.integers(2, 6), n=st.integers(1, 5))
def test_coupling_recovers_consistent_pairwise_probabilities(seed, k, n):
    """If r_ij = p_i / (p_i + p_j) for one p, Wu-Lin-Weng's method 2 returns p."""
    rng = np.random.default_rng(seed)
    p = rng.dirichlet(np.ones(k), size=n) + 1e-3
    p /= p.sum(axis=1, keepdims=True)
    r = p[:, :, None] / (p[:, :, None] + p[:, None, :])
    np.testing.assert_allclose(couple_pairwise(r), p, atol=1e-9)


def test_platt_sigmoid_recovers_its_parameters():
    rng = np.random.default_rng(0)
    f = rng.normal(size=20000) * 2
    A, B = -1.5, 0.3
    labels = rng.random(f.size) < 1.0 / (1.0 + np.exp(A * f + B))
    A_hat, B_hat = fit_sigmoid(f, labels)
    assert abs(A_hat - A) < 0.1 and abs(B_hat - B) < 0.1
