"""TreeSHAP of multi-output regression trees and forests, and of the extra
trees: one SHAP column block per output (shap's TreeExplainer layout,
values of shape (n_samples, n_features, n_outputs)), each output additive
and equal to the exact Shapley values of its own game."""

import numpy as np
import pytest
from sklearn import ensemble as sken
from sklearn import tree as sktree
from sklearn.datasets import make_classification, make_regression

from skml.ensemble import (
    ExtraTreesClassifier,
    ExtraTreesRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from skml.inspection import ShapleyExplainer, shapley_values
from skml.tree import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)
from tests.inspection.test_tree_shap import _child, _reference_interventional


def _cover_value(tree, x, S, nd=0):
    """The path-dependent game of every output (absent features integrated
    out by the training cover)."""
    if tree.children_left[nd] < 0:
        return tree.value[nd].reshape(-1)
    if S[tree.feature[nd]]:
        return _cover_value(tree, x, S, _child(tree, nd, x))
    w = tree.weighted_n_node_samples
    return sum(w[c] / w[nd] * _cover_value(tree, x, S, c) for c in tree.children(nd))


def _reference_path_dependent(model, X):
    trees = [model.tree_] if hasattr(model, "tree_") else [e.tree_ for e in
                                                            model.estimators_]

    def v(x, S):
        return np.mean([_cover_value(t, x, S) for t in trees], axis=0)

    return np.stack([shapley_values(lambda S, x=x: v(x, S), X.shape[1]) for x in X])


def _multioutput_data(seed, n_outputs=3):
    X, Y = make_regression(150, 4, n_targets=n_outputs, noise=3.0, random_state=seed)
    X = X.round(1)
    Y[:, 1] = Y[:, 1] ** 2 / 100.0  # outputs on different scales and shapes
    return X, Y


MODELS = [
    lambda s: DecisionTreeRegressor(max_depth=4, random_state=s),
    lambda s: RandomForestRegressor(n_estimators=4, max_depth=3, random_state=s),
    lambda s: ExtraTreesRegressor(n_estimators=4, max_depth=4, random_state=s),
    lambda s: ExtraTreeRegressor(max_depth=5, random_state=s),
]


@pytest.mark.parametrize("seed", [0, 1])
@pytest.mark.parametrize("make", MODELS)
def test_one_block_per_output_exact_and_additive(make, seed):
    X, Y = _multioutput_data(seed)
    model = make(seed).fit(X, Y)
    rows = X[:5]
    pred = model.predict(rows)
    # path dependent (no background)
    ex = ShapleyExplainer(model, algorithm="tree").explain(rows)
    assert ex.values.shape == (5, 4, 3) and ex.base_values.shape == (5, 3)
    np.testing.assert_allclose(ex.values, _reference_path_dependent(model, rows),
                               rtol=0, atol=1e-9 * np.abs(Y).max())
    np.testing.assert_allclose(ex.values.sum(1) + ex.base_values, pred, rtol=0,
                               atol=1e-9 * np.abs(Y).max())
    # interventional, against the exact values of the same game
    background = X[-6:]
    inter = ShapleyExplainer(model, background, algorithm="tree").explain(rows)
    ref = _reference_interventional(model.predict, rows, background)
    np.testing.assert_allclose(inter.values, ref, rtol=0, atol=1e-9 * np.abs(Y).max())
    np.testing.assert_allclose(inter.values.sum(1) + inter.base_values, pred, rtol=0,
                               atol=1e-9 * np.abs(Y).max())


def test_each_block_is_the_single_output_explanation():
    # A multi-output tree explained output by output: the block of output o is
    # the TreeSHAP of the same tree whose leaves hold output o's values only.
    X, Y = _multioutput_data(3)
    model = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, Y)
    values = ShapleyExplainer(model, algorithm="tree").explain(X[:6]).values
    for o in range(Y.shape[1]):
        single = DecisionTreeRegressor(max_depth=4, random_state=0).fit(X, Y)
        single.tree_.value = np.ascontiguousarray(model.tree_.value[:, o:o + 1, :])
        single.n_outputs_ = 1
        single.tree_.n_outputs = 1
        got = ShapleyExplainer(single, algorithm="tree").explain(X[:6]).values
        np.testing.assert_allclose(values[:, :, o], got, rtol=0, atol=1e-9)


def test_sklearn_multioutput_regressors():
    X, Y = _multioutput_data(4, n_outputs=2)
    for model in (sktree.DecisionTreeRegressor(max_depth=4, random_state=0),
                  sken.ExtraTreesRegressor(n_estimators=5, max_depth=4, random_state=0)):
        model.fit(X, Y)
        ex = ShapleyExplainer(model, algorithm="tree").explain(X[:4])
        assert ex.values.shape == (4, 4, 2)
        np.testing.assert_allclose(ex.values.sum(1) + ex.base_values, model.predict(X[:4]),
                                   rtol=1e-6, atol=1e-6 * np.abs(Y).max())


@pytest.mark.parametrize("model", [
    ExtraTreesClassifier(n_estimators=10, random_state=0),
    ExtraTreesRegressor(n_estimators=10, random_state=0),
    ExtraTreeClassifier(random_state=0),
    ExtraTreesClassifier(n_estimators=10, bootstrap=True, max_depth=6, random_state=0),
])
def test_extra_trees_are_explained_by_treeshap(model):
    if hasattr(model, "predict_proba"):
        X, y = make_classification(300, 6, n_informative=4, n_classes=3, random_state=0)
        method = model.fit(X, y).predict_proba
    else:
        X, y = make_regression(300, 6, noise=5.0, random_state=0)
        method = model.fit(X, y).predict
    out = method(X[:20])
    for background in (None, X[100:120]):
        explainer = ShapleyExplainer(model, background)
        assert explainer.algorithm_ == "tree"
        ex = explainer.explain(X[:20])
        np.testing.assert_allclose(ex.values.sum(1) + ex.base_values, out, rtol=0,
                                   atol=1e-10 * max(1.0, np.abs(out).max()))


def test_multioutput_classifiers_are_refused_by_the_tree_algorithm():
    X, y = make_classification(100, 4, random_state=0)
    Y = np.column_stack([y, X[:, 0] > 0]).astype(int)
    for model in (DecisionTreeClassifier(max_depth=3, random_state=0),
                  RandomForestClassifier(n_estimators=3, random_state=0),
                  ExtraTreesClassifier(n_estimators=3, random_state=0)):
        model.fit(X, Y)
        with pytest.raises(ValueError, match="single-output classifiers"):
            ShapleyExplainer(model, algorithm="tree")
