"""TreeSHAP (ShapleyExplainer(algorithm="tree")): efficiency, and agreement
with the exact Shapley values of the same game (notes A §12.4)."""

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import HistGradientBoostingRegressor as SkHistBoosting

from skml.ensemble import (
    GradientBoostingClassifier,
    GradientBoostingRegressor,
    RandomForestClassifier,
    RandomForestRegressor,
)
from skml.inspection import ShapleyExplainer, shapley_values
from skml.linear_model import LinearRegression
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor


def _child(tree, nd, x):
    """The child of ``nd`` row ``x`` goes to, from the tree's own arrays."""
    f = tree.feature[nd]
    off = tree.category_offset[nd]
    v = x[f]
    if off >= 0:
        k = tree.n_category_slots[f]
        slot = k if np.isnan(v) else (k + 1 if v < 0 or v >= k else int(v))
        return tree.category_children[off + slot]
    if v <= tree.threshold[nd] or (np.isnan(v) and tree.missing_go_to_left[nd]):
        return tree.children_left[nd]
    return tree.children_right[nd]


def _cover_value(tree, x, S, nd=0):
    """The path-dependent game: absent features integrated out by cover."""
    if tree.children_left[nd] < 0:
        return tree.value[nd, 0, :]
    if S[tree.feature[nd]]:
        return _cover_value(tree, x, S, _child(tree, nd, x))
    w = tree.weighted_n_node_samples
    return sum(w[c] / w[nd] * _cover_value(tree, x, S, c) for c in tree.children(nd))


def _trees(model):
    """(tree, output column, scale) of each tree, and the model's constant."""
    if hasattr(model, "tree_"):
        return [(model.tree_, 0, 1.0)], 0.0
    if isinstance(model, (RandomForestClassifier, RandomForestRegressor)):
        T = len(model.estimators_)
        return [(e.tree_, 0, 1.0 / T) for e in model.estimators_], 0.0
    K = model.estimators_.shape[1]
    return ([(e.tree_, t % K, model.learning_rate)
             for t, e in enumerate(model.estimators_.ravel())], model.init_)


def _reference_path_dependent(model, X):
    """Exact Shapley values of the cover game, coalition by coalition."""
    trees, offset = _trees(model)
    X = model._validate_X_predict(X)
    k = max(c + t.value.shape[2] for t, c, _ in trees)
    d = X.shape[1]

    def v(x, S):
        out = np.zeros(k) + offset
        for tree, c, s in trees:
            val = _cover_value(tree, x, S)
            out[c:c + len(val)] += s * val
        return out

    return np.stack([shapley_values(lambda S, x=x: v(x, S), d) for x in X])


def _model(kind, seed, nan, d=4, depth=3):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(120, d)).round(1)  # ties: several rows per threshold
    if nan:
        X[rng.random(X.shape) < 0.15] = np.nan
    y_reg = np.nan_to_num(X[:, 0]) * 2 + np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=120)
    y_clf = (y_reg > np.median(y_reg)).astype(int) + (y_reg > 3)
    w = rng.integers(1, 4, size=120).astype(float)  # covers are weighted counts
    common = dict(max_depth=depth, random_state=seed)
    if kind == "tree_reg":
        model = DecisionTreeRegressor(**common).fit(X, y_reg, sample_weight=w)
    elif kind == "tree_clf":
        model = DecisionTreeClassifier(**common).fit(X, y_clf, sample_weight=w)
    elif kind == "forest_reg":
        model = RandomForestRegressor(n_estimators=3, **common).fit(X, y_reg)
    elif kind == "forest_clf":
        model = RandomForestClassifier(n_estimators=3, **common).fit(X, y_clf)
    elif kind == "gb_reg":
        model = GradientBoostingRegressor(n_estimators=4, subsample=0.8,
                                          **common).fit(X, y_reg)
    else:  # three classes: one raw column per class
        model = GradientBoostingClassifier(n_estimators=3, **common).fit(X, y_clf)
    return model, X


def _method(model):
    if isinstance(model, GradientBoostingClassifier):
        return "decision_function"
    return "predict_proba" if hasattr(model, "predict_proba") else "predict"


def _output(model, X):
    return getattr(model, _method(model))(X)


def _reference_interventional(f, X, B):
    """Exact Shapley values of ``v(S) = mean_b f(x_S, b_rest)`` (all 2^d
    coalitions; the model called on every hybrid row, NaN included)."""
    d = X.shape[1]

    def v(x, masks):
        Z = np.where(masks[:, None, :], x, B[None])
        return f(Z.reshape(-1, d)).reshape(len(masks), len(B), -1).mean(axis=1)

    return np.stack([shapley_values(lambda M, x=x: v(x, M), d, vectorized=True)
                     for x in X])


KINDS = ["tree_reg", "tree_clf", "forest_reg", "forest_clf", "gb_reg", "gb_clf"]


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 10_000), nan=st.booleans(),
       depth=st.integers(1, 5))
def test_path_dependent_equals_the_exact_cover_game(kind, seed, nan, depth):
    model, X = _model(kind, seed, nan, depth=depth)
    ex = ShapleyExplainer(model, algorithm="tree").explain(X[:4])
    assert ShapleyExplainer(model).feature_perturbation_ == "tree_path_dependent"
    ref = _reference_path_dependent(model, X[:4])
    values = ex.values if ex.values.ndim == 3 else ex.values[:, :, None]
    np.testing.assert_allclose(values, ref, rtol=0, atol=1e-10)
    # efficiency against the model's own output
    total = ex.values.sum(1) + ex.base_values
    np.testing.assert_allclose(total, _output(model, X[:4]), rtol=0, atol=1e-10)


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(kind=st.sampled_from(KINDS), seed=st.integers(0, 10_000), nan=st.booleans(),
       depth=st.integers(1, 5))
def test_interventional_equals_the_exact_algorithm(kind, seed, nan, depth):
    model, X = _model(kind, seed, nan, depth=depth)
    background = X[-7:]
    tree = ShapleyExplainer(model, background)
    assert tree.algorithm_ == "tree" and tree.feature_perturbation_ == "interventional"
    ex = tree.explain(X[:5])

    ref = _reference_interventional(lambda Z: _output(model, Z), X[:5], background)
    if not nan:  # the explainer's exact algorithm (it refuses NaN) agrees too
        exact = ShapleyExplainer(model, background, algorithm="exact",
                                 response_method=_method(model)).explain(X[:5])
        np.testing.assert_allclose(exact.values, ex.values, rtol=0, atol=1e-10)
    values = ex.values if ex.values.ndim == 3 else ex.values[:, :, None]
    np.testing.assert_allclose(values, ref, rtol=0, atol=1e-10)
    total = ex.values.sum(1) + ex.base_values
    np.testing.assert_allclose(total, _output(model, X[:5]), rtol=0, atol=1e-10)


def test_categorical_multiway_nodes():
    rng = np.random.default_rng(0)
    X = np.column_stack([rng.integers(0, 5, 300), rng.normal(size=300),
                         rng.integers(0, 3, 300)]).astype(float)
    X[rng.random(300) < 0.1, 0] = np.nan
    y = np.array([3.0, -1.0, 0.5, 2.0, -2.0])[np.nan_to_num(X[:, 0], nan=1).astype(int)]
    y = y + X[:, 1] + X[:, 2] + 0.1 * rng.normal(size=300)
    model = DecisionTreeRegressor(max_depth=4, categorical_features=[0, 2],
                                  random_state=0).fit(X, y)
    assert model.tree_.has_categorical_nodes
    rows = np.vstack([X[:4], [[7.0, 0.3, 1.0]]])  # 7: a code unseen at fit
    ex = ShapleyExplainer(model, algorithm="tree").explain(rows)
    np.testing.assert_allclose(ex.values, _reference_path_dependent(model, rows)[:, :, 0],
                               atol=1e-10)
    np.testing.assert_allclose(ex.values.sum(1) + ex.base_values, model.predict(rows),
                               atol=1e-10)
    inter = ShapleyExplainer(model, X[-6:], algorithm="tree").explain(rows)
    exact = _reference_interventional(model.predict, rows, X[-6:])[:, :, 0]
    np.testing.assert_allclose(inter.values, exact, atol=1e-10)


@pytest.mark.parametrize("model", [
    RandomForestClassifier(n_estimators=20, random_state=0),
    RandomForestRegressor(n_estimators=20, random_state=0),
    GradientBoostingClassifier(n_estimators=30, max_depth=4, random_state=0),
    GradientBoostingRegressor(n_estimators=30, max_depth=4, random_state=0),
])
def test_efficiency_on_deep_ensembles(model):
    if hasattr(model, "predict_proba"):
        X, y = make_classification(400, 10, n_informative=5, random_state=0)
    else:
        X, y = make_regression(400, 10, noise=5.0, random_state=0)
    model.fit(X, y)
    out = _output(model, X[:30])
    for background in (None, X[100:130]):
        ex = ShapleyExplainer(model, background, algorithm="tree").explain(X[:30])
        scale = max(1.0, np.abs(out).max())
        np.testing.assert_allclose(ex.values.sum(1) + ex.base_values, out, rtol=0,
                                   atol=1e-10 * scale)
        assert ex.values.shape[:2] == (30, 10)


def test_outputs_shapes_and_base_values():
    X, y = make_classification(200, 5, n_informative=3, n_classes=3, random_state=0)
    rf = RandomForestClassifier(n_estimators=5, max_depth=3, random_state=0).fit(X, y)
    ex = ShapleyExplainer(rf).explain(X[:3])
    assert ex.values.shape == (3, 5, 3) and ex.output_names == ["0", "1", "2"]
    # probabilities: the base values of the classes sum to one, the values to zero
    np.testing.assert_allclose(ex.base_values.sum(1), 1.0, atol=1e-12)
    np.testing.assert_allclose(ex.values.sum(2), 0.0, atol=1e-12)
    Xb, yb = make_classification(200, 5, random_state=0)
    gb = GradientBoostingClassifier(n_estimators=5, random_state=0).fit(Xb, yb)
    ex = ShapleyExplainer(gb).explain(Xb[:3])  # binary: one raw score
    assert ex.values.shape == (3, 5) and ex.base_values.shape == (3,)
    # a depth-0 boosting adds nothing to init_: the base value is init_
    gb0 = GradientBoostingRegressor(n_estimators=3, learning_rate=0.0).fit(Xb, yb)
    ex = ShapleyExplainer(gb0).explain(Xb[:2])
    np.testing.assert_allclose(ex.values, 0.0, atol=1e-15)
    np.testing.assert_allclose(ex.base_values, gb0.init_[0])


def test_choice_of_algorithm_and_game():
    X, y = make_regression(100, 4, random_state=0)
    rf = RandomForestRegressor(n_estimators=3, max_depth=3, random_state=0).fit(X, y)
    assert ShapleyExplainer(rf).algorithm_ == "tree"
    assert ShapleyExplainer(rf, X[:5]).feature_perturbation_ == "interventional"
    pd = ShapleyExplainer(rf, X[:5], algorithm="tree",
                          feature_perturbation="tree_path_dependent")
    assert pd.feature_perturbation_ == "tree_path_dependent"
    np.testing.assert_allclose(pd.explain(X[:3]).values,
                               ShapleyExplainer(rf).explain(X[:3]).values)
    # "auto" with a background and the path-dependent game asked: not tree
    assert ShapleyExplainer(rf, X[:5], feature_perturbation="tree_path_dependent"
                            ).algorithm_ == "exact"
    Xc, yc = make_classification(100, 4, n_informative=2, random_state=0)
    gb = GradientBoostingClassifier(n_estimators=3, random_state=0).fit(Xc, yc)
    # probabilities of boosting: shap's rescaled interventional values (with a
    # background); without one "auto" has no tree game for them
    assert ShapleyExplainer(gb, Xc[:5], response_method="predict_proba"
                            ).algorithm_ == "tree"
    assert ShapleyExplainer(gb, Xc[:5]).algorithm_ == "tree"
    with pytest.raises(ValueError, match="needs a background"):
        ShapleyExplainer(gb, response_method="predict_proba")


def test_bad_input():
    X, y = make_regression(60, 4, random_state=0)
    rf = RandomForestRegressor(n_estimators=2, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="needs a background"):
        ShapleyExplainer(rf, feature_perturbation="interventional")
    with pytest.raises(ValueError, match="feature_perturbation must be"):
        ShapleyExplainer(rf, feature_perturbation="independent")
    with pytest.raises(Exception, match="not fitted"):
        ShapleyExplainer(RandomForestRegressor(), algorithm="tree")
    with pytest.raises(ValueError, match="algorithm='tree' explains"):
        ShapleyExplainer(SkHistBoosting(max_iter=2).fit(X, y), X[:5], algorithm="tree")
    with pytest.raises(ValueError, match="algorithm='tree' explains"):
        ShapleyExplainer(LinearRegression().fit(X, y), algorithm="tree")
    Xc, yc = make_classification(60, 4, random_state=0)
    gb = GradientBoostingClassifier(n_estimators=2, random_state=0).fit(Xc, yc)
    with pytest.raises(ValueError, match="interventional"):
        ShapleyExplainer(gb, algorithm="tree", response_method="predict_proba")
    with pytest.raises(ValueError, match="X has 3 features"):
        ShapleyExplainer(rf).explain(X[:2, :3])
    with pytest.raises(ValueError, match="background has 3 features"):
        ShapleyExplainer(rf, X[:5, :3])


def test_boosting_with_an_estimator_init_is_refused():
    # Since gradient boosting takes an estimator as init (issue 21), its
    # start is per sample, not a constant: the trees' SHAP values alone would
    # not add up to the model's output.
    X, y = make_regression(80, 4, random_state=0)
    gb = GradientBoostingRegressor(n_estimators=3, init=LinearRegression()).fit(X, y)
    with pytest.raises(ValueError, match="constant init"):
        ShapleyExplainer(gb, algorithm="tree")
    assert ShapleyExplainer(gb, X[:5]).algorithm_ == "exact"
