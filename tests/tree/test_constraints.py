"""The Poisson criterion, monotonicity constraints and check_input of the trees
(issue 21: every parameter scikit-learn 1.9's trees accept)."""

import warnings

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import tree as sktree

from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor


def _poisson_data(n=300, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.rand(n, 4)
    y = rng.poisson(np.exp(2 * X[:, 0] - X[:, 1])).astype(float)
    return X, y


def _half_poisson_deviance(y, w=None):
    w = np.ones_like(y) if w is None else w
    mu = np.average(y, weights=w)
    pos = y > 0
    return np.sum(w[pos] * y[pos] * np.log(y[pos] / mu)) / w.sum()


# -- Poisson -------------------------------------------------------------------


def test_poisson_node_impurity_is_the_half_deviance_and_values_the_means():
    X, y = _poisson_data()
    w = np.random.RandomState(1).randint(1, 4, size=y.shape[0]).astype(float)
    reg = DecisionTreeRegressor(criterion="poisson", max_depth=3, random_state=0)
    reg.fit(X, y, sample_weight=w)
    t = reg.tree_
    path = reg.decision_path(X).toarray().astype(bool)
    for node in range(t.node_count):
        rows = path[:, node]
        assert t.value[node, 0, 0] == pytest.approx(np.average(y[rows], weights=w[rows]))
        assert t.impurity[node] == pytest.approx(_half_poisson_deviance(y[rows], w[rows]),
                                                 abs=1e-12)


def test_poisson_never_leaves_a_child_of_zero_mean():
    # Half the targets are 0 and perfectly separable by feature 0: squared
    # error splits them off, the Poisson deviance may not (infinite).
    rng = np.random.RandomState(0)
    X = rng.rand(200, 2)
    y = np.where(X[:, 0] < 0.5, 0.0, rng.poisson(3.0, 200) + 1.0)
    sq = DecisionTreeRegressor(random_state=0).fit(X, y)
    assert np.any(sq.tree_.value[:, 0, 0] == 0.0)
    for splitter in ("best", "random"):
        reg = DecisionTreeRegressor(criterion="poisson", splitter=splitter,
                                    random_state=0).fit(X, y)
        assert reg.tree_.node_count > 1
        assert np.all(reg.tree_.value[:, 0, 0] > 0.0)


def test_poisson_same_tree_as_scikit_learn():
    X, y = _poisson_data(400, seed=3)
    ours = DecisionTreeRegressor(criterion="poisson", max_depth=5, random_state=0).fit(X, y)
    ref = sktree.DecisionTreeRegressor(criterion="poisson", max_depth=5,
                                       random_state=0).fit(X, y)
    assert ours.tree_.node_count == ref.tree_.node_count
    np.testing.assert_allclose(ours.tree_.impurity, ref.tree_.impurity, rtol=1e-9)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-12)


def test_poisson_sparse_and_categorical_input():
    X, y = _poisson_data()
    dense = DecisionTreeRegressor(criterion="poisson", max_depth=4, random_state=0).fit(X, y)
    Xs = X.copy()
    Xs[Xs < 0.3] = 0.0
    a = DecisionTreeRegressor(criterion="poisson", max_depth=4, random_state=0).fit(Xs, y)
    b = DecisionTreeRegressor(criterion="poisson", max_depth=4,
                              random_state=0).fit(sp.csc_matrix(Xs), y)
    np.testing.assert_array_equal(a.predict(Xs), b.predict(sp.csr_matrix(Xs)))
    Xc = X.copy()
    Xc[:, 0] = np.floor(4 * X[:, 0])
    cat = DecisionTreeRegressor(criterion="poisson", max_depth=3, categorical_features=[0],
                                random_state=0).fit(Xc, y)
    assert cat.tree_.has_categorical_nodes
    assert np.all(cat.tree_.value[:, 0, 0] > 0.0)
    assert dense.score(X, y) > 0.3


@pytest.mark.parametrize("y, match", [
    ([-1.0, 1.0, 3.0], "Some value"),
    ([0.0, 0.0, 0.0], "Sum of y is not positive"),
])
def test_poisson_bad_targets(y, match):
    with pytest.raises(ValueError, match=match):
        DecisionTreeRegressor(criterion="poisson").fit(np.zeros((3, 2)), y)


def test_friedman_mse_is_squared_error_with_a_future_warning():
    with pytest.warns(FutureWarning, match="friedman_mse"):
        reg = DecisionTreeRegressor(criterion="friedman_mse")
    assert reg.criterion == "squared_error"
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        DecisionTreeRegressor(criterion="squared_error")


# -- monotonicity constraints -----------------------------------------------------


def _is_monotone(est, X, feature, sign, proba):
    grid = np.linspace(X[:, feature].min() - 0.1, X[:, feature].max() + 0.1, 40)
    preds = []
    for v in grid:
        Z = X.copy()
        Z[:, feature] = v
        preds.append(est.predict_proba(Z)[:, 1] if proba else est.predict(Z))
    steps = np.diff(np.array(preds), axis=0) * sign
    return bool(np.all(steps >= -1e-12))


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1),
       criterion=st.sampled_from(["squared_error", "absolute_error", "poisson"]),
       splitter=st.sampled_from(["best", "random"]),
       best_first=st.booleans(), missing=st.booleans())
def test_regression_predictions_monotone_along_constrained_features(
        seed, criterion, splitter, best_first, missing):
    rng = np.random.RandomState(seed)
    X = rng.rand(150, 3)
    y = np.abs(np.sin(6 * X[:, 0]) + X[:, 1] + 0.3 * rng.randn(150))
    if missing:
        X[rng.rand(*X.shape) < 0.1] = np.nan
    reg = DecisionTreeRegressor(criterion=criterion, splitter=splitter,
                                max_leaf_nodes=40 if best_first else None,
                                monotonic_cst=[1, -1, 0], random_state=seed).fit(X, y)
    Xt = rng.rand(30, 3)
    assert _is_monotone(reg, Xt, 0, 1, proba=False)
    assert _is_monotone(reg, Xt, 1, -1, proba=False)


@settings(max_examples=15, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), criterion=st.sampled_from(["gini", "entropy"]),
       best_first=st.booleans(), sparse=st.booleans())
def test_binary_classification_monotone_in_the_positive_class(seed, criterion, best_first,
                                                             sparse):
    rng = np.random.RandomState(seed)
    X = rng.rand(200, 3)
    y = (np.sin(6 * X[:, 0]) - X[:, 1] + 0.5 * rng.randn(200) > 0).astype(int)
    clf = DecisionTreeClassifier(criterion=criterion, monotonic_cst=[1, -1, 0],
                                 max_leaf_nodes=30 if best_first else None,
                                 random_state=seed)
    clf.fit(sp.csc_matrix(X) if sparse else X, y)
    Xt = rng.rand(30, 3)
    assert _is_monotone(clf, Xt, 0, 1, proba=True)
    assert _is_monotone(clf, Xt, 1, -1, proba=True)
    np.testing.assert_allclose(clf.predict_proba(Xt).sum(axis=1), 1.0)


def test_constrained_children_bounded_by_the_parent_middle_value():
    rng = np.random.RandomState(0)
    X = rng.rand(300, 1)
    y = rng.rand(300)
    reg = DecisionTreeRegressor(monotonic_cst=[1], random_state=0).fit(X, y)
    t = reg.tree_
    # Every leaf left of a threshold predicts at most every leaf right of it.
    for node in np.flatnonzero(t.children_left >= 0):
        left = reg.apply(X[X[:, 0] <= t.threshold[node]])
        right = reg.apply(X[X[:, 0] > t.threshold[node]])
        assert t.value[left, 0, 0].max() <= t.value[right, 0, 0].min() + 1e-12


def test_monotonic_parity_with_scikit_learn():
    rng = np.random.RandomState(0)
    X = rng.rand(300, 3)
    y = X[:, 0] - 2 * X[:, 1] + np.sin(8 * X[:, 2]) + 0.3 * rng.randn(300)
    kw = dict(monotonic_cst=[1, -1, 0], max_depth=6, random_state=0)
    ours = DecisionTreeRegressor(**kw).fit(X, y)
    ref = sktree.DecisionTreeRegressor(**kw).fit(X, y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-10, atol=1e-12)
    yc = (y > np.median(y)).astype(int)
    ours = DecisionTreeClassifier(**kw).fit(X, yc)
    ref = sktree.DecisionTreeClassifier(**kw).fit(X, yc)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-12)


def test_unconstrained_features_leave_the_tree_unchanged():
    X, y = _poisson_data()
    a = DecisionTreeRegressor(random_state=0).fit(X, y)
    b = DecisionTreeRegressor(monotonic_cst=[0, 0, 0, 0], random_state=0).fit(X, y)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(a.tree_.value, b.tree_.value)


@pytest.mark.parametrize("cst, match", [
    ([1, 0], "monotonic_cst has shape 2 but the input data X has 3 features"),
    ([1, 0, 2], "must be None or an array-like of -1, 0 or 1"),
    ([0.5, 0, 0], "must be None or an array-like of -1, 0 or 1"),
])
def test_bad_monotonic_cst(cst, match):
    X = np.random.RandomState(0).rand(20, 3)
    with pytest.raises(ValueError, match=match):
        DecisionTreeRegressor(monotonic_cst=cst).fit(X, X[:, 0])


def test_monotonic_cst_refuses_multiclass_and_categorical_features():
    X = np.random.RandomState(0).rand(30, 2)
    with pytest.raises(ValueError, match="multiclass"):
        DecisionTreeClassifier(monotonic_cst=[1, 0]).fit(X, np.arange(30) % 3)
    Xc = X.copy()
    Xc[:, 0] = np.arange(30) % 4
    with pytest.raises(ValueError, match="categorical feature"):
        DecisionTreeRegressor(monotonic_cst=[1, 0], categorical_features=[0]).fit(Xc, X[:, 1])


# -- check_input -------------------------------------------------------------------


@pytest.mark.parametrize("Est", [DecisionTreeClassifier, DecisionTreeRegressor])
def test_check_input_false_grows_the_same_tree(Est):
    rng = np.random.RandomState(0)
    X = rng.rand(80, 3)
    y = (X[:, 0] > 0.5).astype(int)
    a = Est(random_state=0).fit(X, y)
    b = Est(random_state=0).fit(X, y, check_input=False)
    np.testing.assert_array_equal(a.tree_.threshold, b.tree_.threshold)
    np.testing.assert_array_equal(a.predict(X), b.predict(X, check_input=False))
    np.testing.assert_array_equal(a.apply(X), b.apply(X, check_input=False))
    assert (a.decision_path(X) != b.decision_path(X, check_input=False)).nnz == 0
    with pytest.raises(ValueError, match="features"):
        b.predict(X[:, :2], check_input=False)
