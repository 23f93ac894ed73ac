"""SVR: parity with scikit-learn (libsvm) and the tube properties of notes B §5.12."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from sklearn import svm as sk
from sklearn.datasets import load_diabetes
from sklearn.preprocessing import StandardScaler

from skml.metrics.pairwise import rbf_kernel
from skml.svm import SVR
from tests._parity import parity_test


@pytest.fixture(scope="module")
def diabetes():
    X, y = load_diabetes(return_X_y=True)
    return StandardScaler().fit_transform(X), y


@parity_test(SVR)
@pytest.mark.parametrize(
    "params",
    [
        {"kernel": "rbf", "C": 100.0, "epsilon": 5.0},
        {"kernel": "rbf"},
        {"kernel": "linear", "C": 10.0},
        {"kernel": "poly", "degree": 2, "coef0": 1.0, "C": 10.0},
        {"kernel": "sigmoid", "gamma": 0.01, "coef0": -1.0, "C": 100.0},
    ],
    ids=lambda p: "-".join(f"{k}={v}" for k, v in p.items()),
)
def test_parity_diabetes(diabetes, params):
    X, y = diabetes
    ours = SVR(**params).fit(X, y)
    ref = sk.SVR(**params).fit(X, y)
    p_ours, p_ref = ours.predict(X), ref.predict(X)
    np.testing.assert_allclose(p_ours, p_ref, rtol=0, atol=1e-2 * np.abs(p_ref).max())
    assert abs(ours.n_support_[0] - ref.n_support_[0]) <= 0.02 * ref.n_support_[0]
    np.testing.assert_array_equal(ours.support_, ref.support_)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-3)
    if params["kernel"] == "linear":
        np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=1e-3, atol=1e-3)


def test_prediction_is_the_kernel_expansion(diabetes):
    X, y = diabetes
    reg = SVR(C=50.0, gamma=0.1).fit(X, y)
    K = rbf_kernel(X, reg.support_vectors_, gamma=0.1)
    by_hand = K @ reg.dual_coef_[0] + reg.intercept_[0]
    np.testing.assert_allclose(reg.predict(X), by_hand)


@given(seed=st.integers(0, 10_000), epsilon=st.sampled_from([0.05, 0.2, 0.5]))
def test_tube_and_dual_constraints(seed, epsilon):
    rng = np.random.default_rng(seed)
    X = rng.uniform(-2, 2, size=(50, 1))
    y = np.sin(X[:, 0]) + 0.2 * rng.normal(size=50)
    C, tol = 5.0, 1e-5
    reg = SVR(C=C, epsilon=epsilon, gamma=1.0, tol=tol).fit(X, y)
    beta = np.zeros(len(y))
    beta[reg.support_] = reg.dual_coef_[0]  # a_i - a*_i
    # |a - a*| <= C and sum (a - a*) = 0
    assert np.all(np.abs(beta) <= C + 1e-12)
    assert abs(beta.sum()) < 1e-8
    r = y - reg.predict(X)
    # strictly inside the tube: no support vector; outside: at the bound C
    assert np.all(beta[np.abs(r) < epsilon - 2 * tol] == 0)
    outside = np.abs(r) > epsilon + 2 * tol
    np.testing.assert_allclose(np.abs(beta[outside]), C)
    # the sign of the coefficient follows the side of the tube
    assert np.all(np.sign(beta[outside]) == np.sign(r[outside]))


def test_wide_tube_gives_a_constant_without_support_vectors():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 2))
    y = rng.uniform(0, 1, size=30)
    eps = (y.max() - y.min()) / 2 + 1e-3
    reg = SVR(epsilon=eps).fit(X, y)
    assert reg.n_support_[0] == 0
    pred = reg.predict(X)
    np.testing.assert_allclose(pred, pred[0])
    assert np.all(np.abs(y - pred) <= eps + 1e-9)


def test_sample_weight_scales_C(diabetes):
    X, y = diabetes
    X, y = X[:150], y[:150]
    w2 = np.full(len(y), 2.0)
    np.testing.assert_allclose(
        SVR(C=5.0, tol=1e-8).fit(X, y, sample_weight=w2).predict(X),
        SVR(C=10.0, tol=1e-8).fit(X, y).predict(X), atol=1e-8,
    )
    w0 = np.ones(len(y))
    w0[:15] = 0
    reg = SVR(C=10.0, gamma=0.1).fit(X, y, sample_weight=w0)
    np.testing.assert_allclose(
        reg.predict(X), SVR(C=10.0, gamma=0.1).fit(X[15:], y[15:]).predict(X), atol=1e-8
    )
    assert reg.support_.min() >= 15


def test_precomputed_matches_named(diabetes):
    X, y = diabetes
    named = SVR(C=10.0, gamma=0.1).fit(X, y)
    pre = SVR(kernel="precomputed", C=10.0).fit(rbf_kernel(X, gamma=0.1), y)
    np.testing.assert_allclose(pre.predict(rbf_kernel(X[:20], X, gamma=0.1)),
                               named.predict(X[:20]), atol=1e-6)


def test_coef_only_for_linear(diabetes):
    X, y = diabetes
    with pytest.raises(AttributeError, match="linear kernel"):
        SVR().fit(X, y).coef_
    assert isinstance(SVR().fit(X, y).n_iter_, int)


@pytest.mark.parametrize(
    "X, y, params, match",
    [
        ([[0.0, np.nan], [1.0, 1.0]], [0.0, 1.0], {}, "NaN"),
        ([[0.0], [1.0]], [0.0, np.inf], {}, "infinity"),
        ([[0.0], [1.0], [2.0]], [0.0, 1.0], {}, "inconsistent"),
        ([[0.0], [1.0]], [0.0, 1.0], {"epsilon": -0.1}, "'epsilon' parameter"),
        ([[0.0], [1.0]], [0.0, 1.0], {"degree": 1.5}, "'degree' parameter"),
        ([[0.0], [1.0]], ["a", "b"], {}, "could not convert|numeric"),
    ],
)
def test_bad_input(X, y, params, match):
    with pytest.raises(ValueError, match=match):
        SVR(**params).fit(X, y)


@pytest.mark.parametrize("factor, offset", [(1e300, 0.0), (1e-300, 0.0), (1.0, 1e8)])
def test_rbf_model_does_not_depend_on_units_or_offset(factor, offset):
    # Issue 23: at X * 1e300 predictions were constant (R² ~ 0), at X + 1e8
    # R² was -6.5: the kernel is now evaluated on (X - mean) / unit.
    from sklearn.datasets import load_iris

    data = load_iris().data
    X, y = data[:, :3], data[:, 3]
    clean = SVR(tol=1e-8).fit(X, y)  # tight: see the SVC test
    moved = SVR(tol=1e-8).fit(X * factor + offset, y)
    np.testing.assert_allclose(moved.predict(X * factor + offset), clean.predict(X),
                               rtol=1e-5, atol=1e-7)
