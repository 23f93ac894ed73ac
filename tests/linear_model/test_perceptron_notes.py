"""The perceptron's notes variants: one-vs-one voting (B §3.2) and the stopping rules of B §3.1."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning
from sklearn.linear_model import Perceptron as SKPerceptron
from sklearn.multiclass import OneVsOneClassifier

from skml.linear_model import Perceptron

XOR_X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 1.0], [1.0, 1.0]])
XOR_Y = np.array([-1, 1, 1, -1])


def _separable_three_classes(seed=0):
    rng = np.random.RandomState(seed)
    centres = np.array([[0.0, 6.0], [6.0, 0.0], [-6.0, -6.0]])
    X = np.vstack([c + rng.randn(20, 2) for c in centres])
    return X, np.repeat([0, 1, 2], 20)


def test_ovo_trains_one_perceptron_per_pair_and_separates():
    # Catalogue B §3.2: OvO trains c(c-1)/2 models; on a linearly separable
    # 3-class set it reaches 100% training accuracy.
    X, y = _separable_three_classes()
    clf = Perceptron(multi_class="ovo", tol=None, max_iter=100).fit(X, y)
    assert clf.coef_.shape == (3, 2) and clf.intercept_.shape == (3,)
    assert clf.converged_
    assert clf.score(X, y) == 1.0


def test_ovo_predicts_by_pairwise_wins():
    # argmax_k sum_{l != k} 1[<x, w_kl> > 0] (the notes' vote), wherever the
    # vote has a single winner.
    X, y = load_iris(return_X_y=True)
    clf = Perceptron(multi_class="ovo", tol=None, max_iter=30, shuffle=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        clf.fit(X, y)
    scores = X @ clf.coef_.T + clf.intercept_
    wins = np.zeros((len(y), 3))
    for k, (a, b) in enumerate([(0, 1), (0, 2), (1, 2)]):
        wins[:, a] += scores[:, k] > 0
        wins[:, b] += scores[:, k] <= 0
    unique = (wins == wins.max(axis=1, keepdims=True)).sum(axis=1) == 1
    assert unique.sum() > 100
    np.testing.assert_array_equal(clf.predict(X)[unique], wins.argmax(axis=1)[unique])


def test_ovo_matches_one_vs_one_of_scikit_learn():
    X, y = load_iris(return_X_y=True)
    kw = {"tol": None, "max_iter": 20, "shuffle": False}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        ours = Perceptron(multi_class="ovo", **kw).fit(X, y)
        ref = OneVsOneClassifier(SKPerceptron(**kw)).fit(X, y)
    # the pair (a, b) problem is the same up to the sign of the labels, and
    # the perceptron's updates are odd in y: the weights agree up to sign
    for k, est in enumerate(ref.estimators_):
        np.testing.assert_allclose(np.abs(ours.coef_[k]), np.abs(est.coef_[0]))
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))


def test_stop_at_a_mistake_free_epoch():
    # Notes D1 §2.3: stop at the first epoch without mistakes; nothing after
    # it would change w, so the model is the one of a full run.
    X, y = _separable_three_classes(1)
    y = (y == 0).astype(int)
    full = Perceptron(tol=None, max_iter=200, shuffle=False).fit(X, y)
    early = Perceptron(tol="no_mistakes", max_iter=200, shuffle=False).fit(X, y)
    assert early.converged_ and early.n_iter_ < full.n_iter_
    np.testing.assert_array_equal(early.coef_, full.coef_)
    np.testing.assert_array_equal(early.n_updates_, full.n_updates_)
    assert early.score(X, y) == 1.0


def test_no_mistake_rule_never_fires_on_xor():
    with pytest.warns(ConvergenceWarning):
        clf = Perceptron(tol="no_mistakes", max_iter=25).fit(XOR_X, XOR_Y)
    assert clf.n_iter_ == 25 and not clf.converged_


def test_max_time_stops_the_fit():
    X, y = load_iris(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match="max_time"):
        clf = Perceptron(tol=None, max_time=0.05, max_iter=10**8).fit(X, y)
    assert 1 <= clf.n_iter_ < 10**8


def test_epoch_stops_refuse_early_stopping():
    with pytest.raises(ValueError, match="early_stopping"):
        Perceptron(tol="no_mistakes", early_stopping=True).fit(XOR_X, XOR_Y)
    with pytest.raises(ValueError, match="max_time"):
        Perceptron(max_time=-1.0).fit(XOR_X, XOR_Y)


def test_ovo_partial_fit_continues_every_pair():
    X, y = _separable_three_classes(2)
    clf = Perceptron(multi_class="ovo", shuffle=False)
    for _ in range(20):
        clf.partial_fit(X, y, classes=[0, 1, 2])
    assert clf.coef_.shape == (3, 2)
    assert clf.score(X, y) == 1.0
