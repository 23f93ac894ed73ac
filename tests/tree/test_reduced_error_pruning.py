"""prune_on_validation: reduced-error pruning on a validation set (notes B §8.9 B)."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification

from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor
from tests.tree.test_tree import STOCK_X, STOCK_Y


def _noisy(seed, n=300, regression=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 4))
    signal = X[:, 0] + 0.5 * X[:, 1]
    if regression:
        return X, signal + rng.normal(scale=1.0, size=n)
    return X, np.where(rng.random(n) < 0.25, rng.integers(0, 2, n), signal > 0)


def _errors(est, X, y):
    pred = est.predict(X)
    if isinstance(est, DecisionTreeClassifier):
        return np.sum(pred != y)
    if est.criterion == "absolute_error":
        return np.sum(np.abs(pred - y))
    return np.sum((pred - y) ** 2)


@settings(max_examples=15)
@given(seed=st.integers(0, 10_000),
       kind=st.sampled_from(["gini", "entropy", "squared_error", "absolute_error"]))
def test_validation_error_never_increases(seed, kind):
    regression = kind in ("squared_error", "absolute_error")
    X, y = _noisy(seed, n=160, regression=regression)
    Est = DecisionTreeRegressor if regression else DecisionTreeClassifier
    est = Est(criterion=kind, random_state=seed).fit(X[:100], y[:100])
    before = _errors(est, X[100:], y[100:])
    n_leaves = est.get_n_leaves()
    assert est.prune_on_validation(X[100:], y[100:]) is est
    after = _errors(est, X[100:], y[100:])
    assert after <= before + 1e-9 * max(before, 1.0)
    assert est.get_n_leaves() <= n_leaves


def test_surviving_branches_beat_their_node_as_a_leaf():
    # What "bottom-up, prune when validation error does not increase" leaves:
    # every remaining internal node's branch errs strictly less on the
    # validation set than the node alone would.
    X, y = _noisy(3)
    clf = DecisionTreeClassifier(random_state=0).fit(X[:200], y[:200])
    clf.prune_on_validation(X[200:], y[200:])
    t = clf.tree_
    path = clf.decision_path(X[200:]).toarray().astype(bool)
    majority = np.argmax(t.value[:, 0, :], axis=1)
    leaves = clf.apply(X[200:])
    branch_err = clf.classes_[majority[leaves]] != y[200:]
    internal = np.flatnonzero(t.children_left != -1)
    assert internal.size > 0
    for nd in internal:
        reach = path[:, nd]
        as_leaf = np.sum(clf.classes_[majority[nd]] != y[200:][reach])
        assert branch_err[reach].sum() < as_leaf


@pytest.mark.parametrize("Est", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_training_set_leaves_a_full_tree_unchanged(Est):
    # No training error to remove, and every internal node is impure, so
    # collapsing any of them would add error on distinct training rows.
    X, y = _noisy(1, regression=Est is DecisionTreeRegressor)
    est = Est(random_state=0).fit(X, y)
    ref = Est(random_state=0).fit(X, y)
    est.prune_on_validation(X, y)
    assert est.tree_.node_count == ref.tree_.node_count
    np.testing.assert_array_equal(est.tree_.feature, ref.tree_.feature)
    np.testing.assert_array_equal(est.predict(X), ref.predict(X))


def test_noisy_data_gives_a_smaller_tree_that_generalises_better():
    X, y = make_classification(900, 10, flip_y=0.25, random_state=0)
    clf = DecisionTreeClassifier(random_state=0).fit(X[:400], y[:400])
    full_leaves, full_test = clf.get_n_leaves(), clf.score(X[700:], y[700:])
    clf.prune_on_validation(X[400:700], y[400:700])
    assert clf.get_n_leaves() < full_leaves / 2
    assert clf.score(X[700:], y[700:]) > full_test
    # Node ids are compacted: a valid tree of node_count nodes, depth updated.
    t = clf.tree_
    kids = np.r_[t.children_left, t.children_right]
    assert np.array_equal(np.sort(kids[kids >= 0]), np.arange(1, t.node_count))
    assert clf.get_depth() == clf.decision_path(X).sum(axis=1).max() - 1


def test_categorical_tree_and_unseen_labels():
    clf = DecisionTreeClassifier(categorical_features=[0, 1, 2], random_state=0)
    clf.fit(STOCK_X, STOCK_Y)
    # Validation says "Trading volume" does not help inside "Past trend = 1".
    X_val = np.array([[1, 0, 0], [1, 0, 1], [0, 1, 1]], dtype=float)
    clf.prune_on_validation(X_val, ["Up", "Up", "Down"])
    assert clf.get_n_leaves() == 2 and clf.tree_.node_count == 3
    assert list(clf.predict(X_val)) == ["Up", "Up", "Down"]
    # A label the tree never saw is always an error: no split helps with it.
    clf2 = DecisionTreeClassifier(random_state=0).fit(STOCK_X, STOCK_Y)
    clf2.prune_on_validation(STOCK_X, np.array(["Flat"] * 10))
    assert clf2.get_n_leaves() == 1
    with pytest.raises(ValueError, match="y_val"):
        clf2.prune_on_validation(STOCK_X, STOCK_Y[:3])
