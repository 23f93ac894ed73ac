"""Perceptron: parity with scikit-learn and the properties of notes B §3.1-3.2."""

import warnings

import numpy as np
import pytest
from hypothesis import assume, given
from hypothesis import strategies as st
from sklearn import linear_model as sk
from sklearn.datasets import load_breast_cancer
from sklearn.exceptions import ConvergenceWarning
from sklearn.preprocessing import StandardScaler

from skml.linear_model import Perceptron
from tests import _data
from tests._parity import parity_test


@parity_test(Perceptron)
@pytest.mark.parametrize("name", ["breast_cancer", "iris"])
@pytest.mark.parametrize("max_iter", [1, 7])
def test_parity_same_order_same_weights(name, max_iter):
    # shuffle=False visits the samples in the same order as scikit-learn, so
    # the mistake-driven updates, and hence the weights, must coincide.
    X, y = _data.load(name, scale=True)
    params = dict(shuffle=False, tol=None, max_iter=max_iter)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = Perceptron(**params).fit(X, y)
    ref = sk.Perceptron(**params).fit(X, y)
    np.testing.assert_allclose(ours.coef_, ref.coef_, rtol=0, atol=1e-10)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, rtol=0, atol=1e-10)
    assert ours.n_iter_ == ref.n_iter_
    assert ours.t_ == ref.t_
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


@parity_test(Perceptron)
def test_parity_accuracy_with_shuffling():
    # Shuffled runs use another generator: compare the mean test accuracy.
    X, y = load_breast_cancer(return_X_y=True)
    X_train, X_test = X[::2], X[1::2]
    scaler = StandardScaler().fit(X_train)
    X_train, X_test = scaler.transform(X_train), scaler.transform(X_test)
    y_train, y_test = y[::2], y[1::2]
    ours = [Perceptron(random_state=s).fit(X_train, y_train).score(X_test, y_test)
            for s in range(10)]
    ref = [sk.Perceptron(random_state=s).fit(X_train, y_train).score(X_test, y_test)
           for s in range(10)]
    assert abs(np.mean(ours) - np.mean(ref)) <= 0.02


@st.composite
def separable_data(draw):
    """Points labelled by a planted unit ``w*`` in padded space, margin >= gamma."""
    n_features = draw(st.integers(1, 4))
    n_samples = draw(st.integers(2, 30))
    seed = draw(st.integers(0, 2**31 - 1))
    gamma = draw(st.floats(0.05, 0.5))
    rng = np.random.RandomState(seed)
    w_star = rng.randn(n_features + 1)
    w_star /= np.linalg.norm(w_star)
    X = rng.uniform(-2, 2, size=(n_samples, n_features))
    scores = np.c_[X, np.ones(n_samples)] @ w_star
    keep = np.abs(scores) >= gamma
    X, scores = X[keep], scores[keep]
    y = (scores > 0).astype(int)
    assume(len(np.unique(y)) == 2)
    return X, y, w_star


@given(data=separable_data(), shuffle=st.booleans())
def test_mistake_bound(data, shuffle):
    # Block-Novikoff (notes B §3.1) in the padded form: x_pad = (x, 1) and a
    # unit w*_pad; the intercept update b += y is the padded coordinate's.
    X, y, w_star = data
    X_pad = np.c_[X, np.ones(len(X))]
    R = np.linalg.norm(X_pad, axis=1).max()
    gamma = np.abs(X_pad @ w_star).min()
    bound = (R / gamma) ** 2
    clf = Perceptron(tol=None, max_iter=int(bound) + 2, shuffle=shuffle, random_state=0)
    clf.fit(X, y)
    assert clf.n_updates_.shape == (1,)
    assert clf.n_updates_[0] <= bound
    assert clf.converged_
    assert clf.score(X, y) == 1.0


@given(
    x=st.lists(st.floats(-3, 3), min_size=1, max_size=5),
    seed=st.integers(0, 2**31 - 1),
    label=st.sampled_from([-1, 1]),
)
def test_one_update_raises_margin_by_norm_squared_plus_one(x, seed, label):
    # From any state that misclassifies (x, y): w += y x, b += y, so
    # y (<x, w> + b) grows by exactly ||x||^2 + 1 (eta0 = 1).
    x = np.asarray(x)
    rng = np.random.RandomState(seed)
    w0, b0 = rng.randn(x.size), rng.randn()
    score0 = x @ w0 + b0
    assume(label * score0 <= 0)
    # A second sample of the other class makes the problem binary; it is put
    # far along w1 = w0 + y x, on its own side, so that it is not a mistake.
    w1, b1 = w0 + label * x, b0 + label
    assume(w1 @ w1 > 1e-6)
    x2 = -label * (abs(b1) + 1.0) / (w1 @ w1) * w1
    X = np.vstack([x, x2])
    y = np.array([label, -label])
    clf = Perceptron(tol=None, max_iter=1, shuffle=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y, coef_init=w0, intercept_init=[b0])
    assert clf.n_updates_[0] == 1
    score1 = x @ clf.coef_[0] + clf.intercept_[0]
    gain = label * (score1 - score0)
    np.testing.assert_allclose(gain, x @ x + 1.0, rtol=1e-12, atol=1e-12)


def test_first_update_from_zero():
    X = np.array([[2.0, -1.0], [0.5, 3.0]])
    y = np.array([1, 0])
    clf = Perceptron(shuffle=False, tol=None, max_iter=1)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    # Sample 0 (+1): score 0 is a mistake -> w = x0, b = 1. Sample 1 (-1):
    # score 2*0.5 - 3 + 1 = -1 < 0, correct, no update.
    np.testing.assert_array_equal(clf.coef_, [[2.0, -1.0]])
    np.testing.assert_array_equal(clf.intercept_, [1.0])
    assert clf.n_updates_[0] == 1


def test_xor_never_converges_and_warns():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([0, 1, 1, 0])
    clf = Perceptron(tol=None, max_iter=50, shuffle=False)
    with pytest.warns(ConvergenceWarning, match="converged_=False"):
        clf.fit(X, y)
    assert not clf.converged_
    assert clf.n_iter_ == 50
    # Cycling: at least one mistake in every epoch.
    assert clf.n_updates_[0] >= 50
    assert clf.score(X, y) < 1.0


def test_separable_run_with_tol_none_does_not_warn():
    X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
    y = np.array([0, 1, 1, 1])  # OR is separable
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        clf = Perceptron(tol=None, max_iter=50).fit(X, y)
    assert clf.converged_


def test_warns_like_sklearn_when_tol_is_set():
    X, y = _data.load("breast_cancer", scale=True)
    with pytest.warns(ConvergenceWarning):
        Perceptron(max_iter=2).fit(X, y)


@given(eta0=st.floats(0.01, 100.0), seed=st.integers(0, 1000))
def test_solution_scales_with_eta0(eta0, seed):
    # With w0 = 0 and no penalty every update is eta0 times the eta0=1 one.
    rng = np.random.RandomState(seed)
    X = rng.randn(30, 3)
    y = (X[:, 0] + 0.3 * rng.randn(30) > 0).astype(int)
    assume(len(np.unique(y)) == 2)
    params = dict(tol=None, max_iter=5, random_state=seed)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ref = Perceptron(eta0=1.0, **params).fit(X, y)
        scaled = Perceptron(eta0=eta0, **params).fit(X, y)
    np.testing.assert_allclose(scaled.coef_, eta0 * ref.coef_, rtol=1e-9, atol=1e-9)
    np.testing.assert_array_equal(scaled.n_updates_, ref.n_updates_)


def test_one_vs_rest_trains_one_perceptron_per_class():
    X, y = _data.load("iris", scale=True)
    params = dict(tol=None, max_iter=10, shuffle=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        multi = Perceptron(**params).fit(X, y)
        assert multi.coef_.shape == (3, 4)
        assert multi.n_updates_.shape == (3,)
        for k in range(3):
            binary = Perceptron(**params).fit(X, (y == k).astype(int))
            np.testing.assert_array_equal(multi.coef_[k], binary.coef_[0])
            assert multi.n_updates_[k] == binary.n_updates_[0]
    scores = multi.decision_function(X)
    np.testing.assert_array_equal(multi.predict(X), np.argmax(scores, axis=1))


def test_separable_multiclass_reaches_full_training_accuracy():
    rng = np.random.RandomState(0)
    centres = np.array([[0.0, 6.0], [6.0, -6.0], [-6.0, -6.0]])
    X = np.vstack([c + rng.randn(20, 2) for c in centres])
    y = np.repeat(["a", "b", "c"], 20)
    clf = Perceptron(tol=None, max_iter=200).fit(X, y)
    assert clf.converged_
    assert clf.score(X, y) == 1.0


def test_partial_fit_counts_updates_over_calls():
    X, y = _data.load("breast_cancer", scale=True)
    clf = Perceptron(shuffle=False)
    clf.partial_fit(X[:200], y[:200], classes=[0, 1])
    first = clf.n_updates_.copy()
    clf.partial_fit(X[200:], y[200:])
    assert clf.n_updates_[0] >= first[0]
    with pytest.raises(ValueError, match="classes"):
        Perceptron().partial_fit(X, y)


def test_n_jobs_gives_the_same_model():
    X, y = _data.load("iris", scale=True)
    one = Perceptron(n_jobs=1, random_state=3).fit(X, y)
    two = Perceptron(n_jobs=2, random_state=3).fit(X, y)
    np.testing.assert_array_equal(one.coef_, two.coef_)


@pytest.mark.parametrize("factor", [1e300, 1e-300])
def test_extreme_magnitude_is_refused_clearly(factor):
    # Issue 23: at X * 1e300 the weights (~eta x) made the scores overflow
    # (non-finite decision_function); at X * 1e-300 the intercept's steps
    # (eta, unscaled) dwarf the weights'. Refused with what to do.
    X, y = _data.load("iris")
    with pytest.raises(ValueError, match="magnitude .* StandardScaler"):
        Perceptron(max_iter=5).fit(X * factor, y)
