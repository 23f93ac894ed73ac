"""Multi-output targets of the trees and forests (issue 20): y of shape
(n_samples, k), split by the mean over the outputs of the per-output impurity."""

import pickle
import warnings

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import ensemble as sk_ensemble
from sklearn import tree as sk_tree
from sklearn.datasets import load_iris, load_linnerud
from sklearn.exceptions import DataConversionWarning

from skml.ensemble import RandomForestClassifier, RandomForestRegressor
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor
from skml.tree._tree import grow_tree


def _same_structure(a, b):
    np.testing.assert_array_equal(a.children_left, b.children_left)
    np.testing.assert_array_equal(a.feature, b.feature)
    np.testing.assert_array_equal(a.threshold, b.threshold)
    np.testing.assert_array_equal(a.missing_go_to_left, b.missing_go_to_left)
    np.testing.assert_array_equal(a.weighted_n_node_samples, b.weighted_n_node_samples)


# Integer targets and weights keep every sum exact, and the multi-output search
# computes each output's proxy with the single-output formula (absolute error and
# Poisson: in its order of operations): one output gives the single-output proxies
# bit for bit, two identical outputs exactly twice them, so the same split wins
# everywhere, ties included, and the trees (node values and mean impurities too)
# are equal. 80 examples: 40 each before the classification/squared-error and the
# absolute-error/Poisson halves of this test were one.
@settings(max_examples=80, deadline=None)
@given(n=st.integers(4, 40), n_features=st.integers(1, 4), k=st.integers(1, 2),
       criterion=st.sampled_from(
           ["gini", "entropy", "squared_error", "absolute_error", "poisson"]),
       splitter=st.sampled_from(["best", "random"]),
       max_features=st.integers(1, 4), max_depth=st.sampled_from([None, 1, 3]),
       missing=st.booleans(), weighted=st.booleans(), seed=st.integers(0, 2**16))
def test_k_identical_outputs_grow_the_single_output_tree(n, n_features, k, criterion,
                                                         splitter, max_features, max_depth,
                                                         missing, weighted, seed):
    rng = np.random.default_rng(seed)
    X = rng.integers(0, 5, size=(n, n_features)).astype(float)
    if missing:
        X[rng.random(X.shape) < 0.2] = np.nan
    w = rng.integers(1, 4, size=n).astype(float) if weighted else np.ones(n)
    classify = criterion in ("gini", "entropy")
    if classify:
        y = rng.integers(0, 3, size=n)
    elif criterion == "poisson":
        y = rng.integers(0, 4, size=n).astype(float)
        y[0] = max(y[0], 1.0)
    else:
        y = rng.integers(-5, 6, size=n).astype(float)
    kwargs = dict(criterion=criterion, n_classes=3 if classify else 0, splitter=splitter,
                  max_features=min(max_features, n_features), max_depth=max_depth, seed=seed)
    single = grow_tree(X, y, w, **kwargs)
    multi = grow_tree(X, np.repeat(y[:, None], k, axis=1), w, **kwargs)
    _same_structure(single, multi)
    np.testing.assert_array_equal(multi.impurity, single.impurity)
    assert multi.value.shape == (single.node_count, k, single.value.shape[2])
    for o in range(k):
        np.testing.assert_array_equal(multi.value[:, o, :], single.value[:, 0, :])


@pytest.mark.parametrize("k", [3, 5])
def test_k_copies_predict_as_single_output(k):
    X, y = load_iris(return_X_y=True)
    yr = X[:, 0] * 2.0 - X[:, 3]
    reg = DecisionTreeRegressor(max_depth=4, random_state=0)
    single = reg.fit(X, yr).predict(X)
    multi = reg.fit(X, np.tile(yr[:, None], k)).predict(X)
    assert multi.shape == (150, k)
    np.testing.assert_allclose(multi, np.tile(single[:, None], k), rtol=1e-12)
    clf = DecisionTreeClassifier(max_depth=3, random_state=0)
    single = clf.fit(X, y).predict(X)
    multi = clf.fit(X, np.tile(y[:, None], k)).predict(X)
    np.testing.assert_array_equal(multi, np.tile(single[:, None], k))


def test_independent_columns():
    # Each output depends on its own feature only: the tree must learn both.
    rng = np.random.default_rng(0)
    X = rng.random((400, 3))
    Y = np.c_[(X[:, 0] > 0.5).astype(int), (X[:, 1] > 0.3).astype(int) + (X[:, 1] > 0.7)]
    clf = DecisionTreeClassifier(max_depth=4, random_state=0).fit(X, Y)
    assert clf.n_outputs_ == 2
    assert clf.n_classes_ == [2, 3]
    assert [c.tolist() for c in clf.classes_] == [[0, 1], [0, 1, 2]]
    np.testing.assert_array_equal(clf.predict(X), Y)
    proba = clf.predict_proba(X)
    assert [p.shape for p in proba] == [(400, 2), (400, 3)]
    assert clf.tree_.value.shape == (clf.tree_.node_count, 2, 3)
    np.testing.assert_array_equal(clf.tree_.n_classes, [2, 3])
    # The third feature carries nothing.
    assert clf.feature_importances_.shape == (3,)
    assert clf.feature_importances_[2] == 0.0
    Yr = np.c_[np.where(X[:, 0] > 0.5, 1.0, -1.0), np.where(X[:, 1] > 0.3, 2.0, 0.0)]
    reg = DecisionTreeRegressor(max_depth=2, random_state=0).fit(X, Yr)
    np.testing.assert_array_equal(reg.predict(X), Yr)
    assert reg.get_n_leaves() == 4


@pytest.mark.parametrize("criterion", ["gini", "entropy", "log_loss"])
@pytest.mark.parametrize("splitter", ["best"])
def test_classifier_parity_with_scikit_learn(criterion, splitter):
    X, y = load_iris(return_X_y=True)
    Y = np.c_[y, (X[:, 0] > 5.8).astype(int), (X[:, 2] > 4.0).astype(int) * 3]
    kw = dict(criterion=criterion, splitter=splitter, max_depth=4, random_state=0)
    ours = DecisionTreeClassifier(**kw).fit(X, Y)
    ref = sk_tree.DecisionTreeClassifier(**kw).fit(X, Y)
    # Same tree (the features in the same random order need not be: compare
    # what the trees compute). Measured difference 0; 1e-12 leaves room for
    # round-off.
    assert ours.tree_.node_count == ref.tree_.node_count
    np.testing.assert_allclose(ours.tree_.impurity, ref.tree_.impurity, atol=1e-12)
    np.testing.assert_allclose(ours.tree_.value, ref.tree_.value, atol=1e-12)
    np.testing.assert_array_equal(ours.predict(X), ref.predict(X))
    for p, q in zip(ours.predict_proba(X), ref.predict_proba(X)):
        np.testing.assert_allclose(p, q, atol=1e-12)
    assert ours.n_classes_ == list(ref.n_classes_)


def test_regressor_parity_with_scikit_learn_on_linnerud():
    X, Y = load_linnerud(return_X_y=True)
    for kw in (dict(), dict(max_depth=3), dict(min_samples_leaf=3)):
        ours = DecisionTreeRegressor(random_state=0, **kw).fit(X, Y)
        ref = sk_tree.DecisionTreeRegressor(random_state=0, **kw).fit(X, Y)
        assert ours.tree_.node_count == ref.tree_.node_count
        # Measured difference 0 (same splits, same means); 1e-9 relative for
        # round-off. Equally good splits may be taken on another feature or
        # with the children in the other order (the feature orders differ),
        # so the node impurities are compared as sets.
        np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-9)
        np.testing.assert_allclose(np.sort(ours.tree_.impurity),
                                   np.sort(ref.tree_.impurity), rtol=1e-9, atol=1e-12)


def test_forest_parity_with_scikit_learn_on_linnerud():
    # Bootstraps differ (each library draws its own), so compare the fit:
    # the training R^2 of 100 trees, measured 0.90 (skml) and 0.91
    # (scikit-learn); 0.05 apart at most.
    X, Y = load_linnerud(return_X_y=True)
    ours = RandomForestRegressor(n_estimators=100, random_state=0).fit(X, Y)
    ref = sk_ensemble.RandomForestRegressor(n_estimators=100, random_state=0).fit(X, Y)
    assert ours.predict(X).shape == (20, 3)
    assert abs(ours.score(X, Y) - ref.score(X, Y)) < 0.05
    # Without bootstrap and with every feature, each tree is the full tree.
    full = RandomForestRegressor(n_estimators=3, bootstrap=False, random_state=0).fit(X, Y)
    np.testing.assert_allclose(full.predict(X),
                               DecisionTreeRegressor(random_state=0).fit(X, Y).predict(X),
                               rtol=1e-12)


def test_forest_classifier_multioutput():
    X = np.array([[-2, -1], [-1, -1], [-1, -2], [1, 1], [1, 2], [2, 1], [-2, 1],
                  [-1, 1], [-1, 2], [2, -1], [1, -1], [1, -2]], dtype=float)
    Y = np.array([["red", "blue"]] * 3 + [["green", "green"]] * 3
                 + [["red", "purple"]] * 3 + [["green", "yellow"]] * 3)
    clf = RandomForestClassifier(n_estimators=10, bootstrap=False, random_state=0).fit(X, Y)
    np.testing.assert_array_equal(clf.predict(X), Y)
    proba = clf.predict_proba(X)
    assert [p.shape for p in proba] == [(12, 2), (12, 4)]
    log_proba = clf.predict_log_proba(X)
    np.testing.assert_allclose(np.exp(log_proba[1]), proba[1])
    assert clf.n_outputs_ == 2 and clf.n_classes_ == [2, 4]
    for cw in ("balanced", "balanced_subsample",
               [{"green": 1.0, "red": 2.0}, {"blue": 1.0, "green": 1.0, "purple": 3.0,
                                             "yellow": 1.0}]):
        RandomForestClassifier(n_estimators=5, class_weight=cw, random_state=0).fit(X, Y)
    with pytest.raises(ValueError, match="number of elements in class_weight"):
        RandomForestClassifier(n_estimators=2, class_weight={"red": 2.0}).fit(X, Y)


def test_forest_oob_multioutput():
    rng = np.random.default_rng(0)
    X = rng.random((200, 4))
    Y = np.c_[X[:, 0] + 0.1 * rng.random(200), X[:, 1] * 2.0]
    reg = RandomForestRegressor(n_estimators=40, oob_score=True, random_state=0).fit(X, Y)
    assert reg.oob_prediction_.shape == (200, 2)
    assert reg.oob_score_ > 0.8
    Yc = (Y > np.median(Y, axis=0)).astype(int)
    clf = RandomForestClassifier(n_estimators=40, oob_score=True, random_state=0).fit(X, Yc)
    assert clf.oob_decision_function_.shape == (200, 2, 2)
    assert clf.oob_score_ > 0.7
    Y3 = rng.integers(0, 3, size=(200, 2))
    with pytest.raises(ValueError, match="cannot be used to compute OOB"):
        RandomForestClassifier(n_estimators=5, oob_score=True).fit(X, Y3)


def test_column_vector_y():
    X, y = load_iris(return_X_y=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DataConversionWarning)
        tree = DecisionTreeClassifier(random_state=0).fit(X, y[:, None])
        reg = DecisionTreeRegressor(random_state=0).fit(X, X[:, :1])
    assert tree.n_outputs_ == 1 and tree.predict(X).shape == (150,)
    assert reg.n_outputs_ == 1 and reg.predict(X).shape == (150,)
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        forest = RandomForestRegressor(n_estimators=2).fit(X, X[:, :1])
    # A single-output criterion converts it with the warning.
    with pytest.warns(DataConversionWarning, match="column-vector y"):
        DecisionTreeClassifier(criterion="gain_ratio").fit(X, y[:, None])
    assert forest.n_outputs_ == 1 and forest.predict(X).shape == (150,)


def test_multioutput_refusals():
    X, y = load_iris(return_X_y=True)
    Y = np.c_[y, y]
    with pytest.raises(ValueError, match="single output"):
        DecisionTreeClassifier(criterion="gain_ratio").fit(X, Y)
    with pytest.raises(ValueError, match="single output"):
        DecisionTreeClassifier(categorical_features=[0]).fit(X, Y)
    with pytest.raises(ValueError, match="single-output"):
        DecisionTreeClassifier().fit(X, Y).prune_on_validation(X, Y)


def test_sparse_y_refused():
    import scipy.sparse as sp

    X, y = load_iris(return_X_y=True)
    Y = sp.csr_matrix(np.c_[y, y])
    with pytest.raises(TypeError, match="Sparse data was passed for y"):
        DecisionTreeClassifier().fit(X, Y)
    with pytest.raises(ValueError, match="sparse multilabel-indicator"):
        RandomForestClassifier(n_estimators=2).fit(X, Y)


def test_sparse_and_missing_multioutput():
    import scipy.sparse as sp

    rng = np.random.default_rng(1)
    X = rng.random((120, 5)) * (rng.random((120, 5)) < 0.4)
    Y = np.c_[X[:, 0] * 3.0, X[:, 1] - X[:, 2]]
    dense = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, Y)
    sparse = DecisionTreeRegressor(max_depth=4, random_state=0).fit(sp.csr_matrix(X), Y)
    np.testing.assert_allclose(sparse.predict(sp.csr_matrix(X)), dense.predict(X),
                               rtol=1e-12)
    Xm = X.copy()
    Xm[rng.random(X.shape) < 0.1] = np.nan
    ours = DecisionTreeRegressor(max_depth=4, random_state=0).fit(Xm, Y)
    ref = sk_tree.DecisionTreeRegressor(max_depth=4, random_state=0).fit(Xm, Y)
    # Missing values routed as scikit-learn's (same training fit; measured
    # equal, 1e-9 relative for round-off).
    np.testing.assert_allclose(ours.predict(Xm), ref.predict(Xm), rtol=1e-9)


@pytest.mark.parametrize("Est", [DecisionTreeClassifier, DecisionTreeRegressor,
                                 RandomForestClassifier, RandomForestRegressor])
def test_pickle_multioutput(Est):
    X, y = load_iris(return_X_y=True)
    Y = np.c_[y, (X[:, 0] > 5.8).astype(int)]
    params = {"random_state": 0}
    if "Forest" in Est.__name__:
        params["n_estimators"] = 5
    est = Est(**params).fit(X, Y)
    again = pickle.loads(pickle.dumps(est))
    np.testing.assert_array_equal(again.predict(X), est.predict(X))
    assert again.n_outputs_ == 2
    if hasattr(est, "predict_proba"):
        for p, q in zip(again.predict_proba(X), est.predict_proba(X)):
            np.testing.assert_array_equal(p, q)
