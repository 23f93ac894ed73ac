"""TreeSHAP over scikit-learn's fitted trees, boosting's probabilities, threads
(ShapleyExplainer(algorithm="tree"); notes A §12.4)."""

import numpy as np
import pytest
from sklearn import ensemble as sk_ensemble
from sklearn import tree as sk_tree
from sklearn.datasets import load_breast_cancer, make_classification, make_regression
from sklearn.linear_model import LinearRegression as SkLinearRegression

from skml.ensemble import GradientBoostingClassifier, RandomForestRegressor
from skml.inspection import ShapleyExplainer, shapley_values


def _sk_tree_parts(model):
    """(tree_, scale, column, classifier) of each tree of a scikit-learn model."""
    clf = hasattr(model, "classes_")
    if hasattr(model, "tree_"):
        return [(model.tree_, 1.0, 0, clf)]
    if hasattr(model, "learning_rate"):
        K = model.estimators_.shape[1]
        return [(e.tree_, model.learning_rate, t % K, False)
                for t, e in enumerate(model.estimators_.ravel())]
    T = len(model.estimators_)
    return [(e.tree_, 1.0 / T, 0, clf) for e in model.estimators_]


def _leaf_value(tree, nd, clf):
    v = tree.value[nd, 0, :]
    return v / v.sum() if clf else v


def _cover_value(tree, x, S, clf, nd=0):
    """The path-dependent game on scikit-learn's arrays (x already float32)."""
    if tree.children_left[nd] < 0:
        return _leaf_value(tree, nd, clf)
    f = tree.feature[nd]
    if S[f]:
        v = x[f]
        left = v <= tree.threshold[nd] or (np.isnan(v) and tree.missing_go_to_left[nd])
        return _cover_value(tree, x, S,
                            clf, tree.children_left[nd] if left else tree.children_right[nd])
    w = tree.weighted_n_node_samples
    return sum(w[c] / w[nd] * _cover_value(tree, x, S, clf, c)
               for c in (tree.children_left[nd], tree.children_right[nd]))


def _reference_path_dependent(model, X, k):
    parts = _sk_tree_parts(model)
    X = X.astype(np.float32).astype(np.float64)  # as scikit-learn's trees compare

    def v(x, S):
        out = np.zeros(k)
        for tree, s, c, clf in parts:
            val = _cover_value(tree, x, S, clf)
            out[c:c + len(val)] += s * val
        return out

    return np.stack([shapley_values(lambda S, x=x: v(x, S), X.shape[1]) for x in X])


def _reference_interventional(f, X, B):
    d = X.shape[1]

    def v(x, masks):
        Z = np.where(masks[:, None, :], x, B[None])
        return f(Z.reshape(-1, d)).reshape(len(masks), len(B), -1).mean(axis=1)

    return np.stack([shapley_values(lambda M, x=x: v(x, M), d, vectorized=True)
                     for x in X])


def _output(model, X):
    if hasattr(model, "learning_rate") and hasattr(model, "classes_"):
        return model.decision_function(X)
    return model.predict_proba(X) if hasattr(model, "predict_proba") else model.predict(X)


SK_MODELS = {
    "DecisionTreeClassifier": lambda: sk_tree.DecisionTreeClassifier(max_depth=4,
                                                                      random_state=0),
    "DecisionTreeRegressor": lambda: sk_tree.DecisionTreeRegressor(max_depth=4,
                                                                   random_state=0),
    "ExtraTreeRegressor": lambda: sk_tree.ExtraTreeRegressor(max_depth=4, random_state=0),
    "RandomForestClassifier": lambda: sk_ensemble.RandomForestClassifier(
        n_estimators=4, max_depth=4, random_state=0),
    "RandomForestRegressor": lambda: sk_ensemble.RandomForestRegressor(
        n_estimators=4, max_depth=4, random_state=0),
    "ExtraTreesClassifier": lambda: sk_ensemble.ExtraTreesClassifier(
        n_estimators=4, max_depth=4, random_state=0),
    "ExtraTreesRegressor": lambda: sk_ensemble.ExtraTreesRegressor(
        n_estimators=4, max_depth=4, random_state=0),
    "GradientBoostingClassifier": lambda: sk_ensemble.GradientBoostingClassifier(
        n_estimators=5, max_depth=3, random_state=0),
    "GradientBoostingRegressor": lambda: sk_ensemble.GradientBoostingRegressor(
        n_estimators=5, max_depth=3, subsample=0.8, random_state=0),
}


def _fit(name, seed=0, n_classes=3, nan=False):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(150, 5)).round(2)
    if nan:
        X[rng.random(X.shape) < 0.1] = np.nan
    y = np.nan_to_num(X[:, 0]) * 2 + np.nan_to_num(X[:, 1]) ** 2 + rng.normal(size=150)
    model = SK_MODELS[name]()
    if "Classifier" in name:
        y = np.digitize(y, np.quantile(y, np.linspace(0, 1, n_classes + 1)[1:-1]))
    w = rng.integers(1, 4, size=150).astype(float)  # covers are weighted counts
    return model.fit(X, y, sample_weight=w), X


@pytest.mark.parametrize("name", list(SK_MODELS))
@pytest.mark.parametrize("n_classes", [2, 3])
def test_sklearn_models_equal_the_exact_games(name, n_classes):
    if "Classifier" not in name and n_classes == 3:
        pytest.skip("a regressor has no classes")
    nan = name.startswith(("DecisionTree", "RandomForest"))  # models that take NaN
    model, X = _fit(name, n_classes=n_classes, nan=nan)
    rows = X[:4]
    out = _output(model, rows)
    out = out if out.ndim == 2 else out[:, None]
    pd = ShapleyExplainer(model, algorithm="tree")
    assert pd.feature_perturbation_ == "tree_path_dependent"
    ex = pd.explain(rows)
    values = ex.values if ex.values.ndim == 3 else ex.values[:, :, None]
    np.testing.assert_allclose(values, _reference_path_dependent(model, rows, out.shape[1]),
                               rtol=0, atol=1e-10)
    total = values.sum(1) + ex.base_values.reshape(len(rows), -1)
    np.testing.assert_allclose(total, out, rtol=0, atol=1e-10)

    B = X[-6:]
    inter = ShapleyExplainer(model, B, algorithm="tree").explain(rows)
    assert ShapleyExplainer(model, B).algorithm_ == "tree"
    ref = _reference_interventional(
        lambda Z: _output(model, Z).reshape(len(Z), -1), rows, B)
    values = inter.values if inter.values.ndim == 3 else inter.values[:, :, None]
    np.testing.assert_allclose(values, ref, rtol=0, atol=1e-10)


def test_sklearn_rows_rounded_to_float32_as_its_trees():
    # threshold 0.5 between the training values 0 and 1; 0.5 + 1e-10 rounds
    # to 0.5 in float32, so scikit-learn sends it left
    X = np.array([[0.0], [1.0]])
    model = sk_tree.DecisionTreeRegressor().fit(X, [0.0, 1.0])
    row = np.array([[0.5 + 1e-10]])
    assert model.predict(row)[0] == 0.0
    for background in (None, X):
        ex = ShapleyExplainer(model, background, algorithm="tree").explain(row)
        np.testing.assert_allclose(ex.values.sum(1) + ex.base_values, model.predict(row),
                                   atol=1e-12)


def test_sklearn_bad_input():
    X, y = make_regression(80, 4, n_targets=2, random_state=0)
    # a multi-output regressor is explained (one block per output), a
    # multi-output classifier (predict_proba a list) is not
    multi_reg = sk_ensemble.RandomForestRegressor(n_estimators=2, random_state=0).fit(X, y)
    assert ShapleyExplainer(multi_reg, algorithm="tree").explain(X[:2]).values.shape == (
        2, 4, 2)
    multi = sk_ensemble.RandomForestClassifier(n_estimators=2, random_state=0).fit(
        X, (y > 0).astype(int))
    with pytest.raises(ValueError, match="single-output"):
        ShapleyExplainer(multi, algorithm="tree")
    gb = sk_ensemble.GradientBoostingRegressor(n_estimators=2, init=SkLinearRegression())
    gb.fit(X, y[:, 0])
    with pytest.raises(ValueError, match="constant init"):
        ShapleyExplainer(gb, algorithm="tree")
    # "auto" falls back to a model-agnostic algorithm
    assert ShapleyExplainer(gb, X[:5]).algorithm_ == "exact"
    with pytest.raises(Exception, match="not fitted"):
        ShapleyExplainer(sk_ensemble.RandomForestRegressor(), algorithm="tree")


def _rescaled_reference(explainer_of, model, rows, B, proba, raw):
    """shap's per-reference rescaling, from single-background explanations."""
    total = 0.0
    for b in B:
        phi = explainer_of(b[None]).explain(rows).values
        phi = phi if phi.ndim == 3 else phi[:, :, None]
        fx, fb = raw(rows), raw(b[None])
        px, pb = proba(rows), proba(b[None])
        gap = fx - fb
        ratio = np.where(gap != 0, (px - pb) / np.where(gap != 0, gap, 1.0), 1.0)
        total = total + phi * ratio[:, None, :]
    return total / len(B)


@pytest.mark.parametrize("library", ["skml", "sklearn"])
def test_boosting_probabilities_rescaled_per_background_row(library):
    X, y = make_classification(200, 5, n_informative=3, random_state=0)
    cls = GradientBoostingClassifier if library == "skml" else \
        sk_ensemble.GradientBoostingClassifier
    model = cls(n_estimators=10, max_depth=3, random_state=0).fit(X, y)
    rows, B = X[:5], X[-4:]
    ex = ShapleyExplainer(model, B, algorithm="tree", response_method="predict_proba")
    assert ex.algorithm_ == "tree"
    out = ex.explain(rows)
    assert out.values.shape == (5, 5, 2)
    proba = model.predict_proba(rows)
    np.testing.assert_allclose(out.values.sum(1) + out.base_values, proba, atol=1e-12)
    np.testing.assert_allclose(out.base_values[0], model.predict_proba(B).mean(0),
                               atol=1e-12)
    raw = (lambda Z: model.decision_function(Z).reshape(len(Z), -1))
    ref = _rescaled_reference(
        lambda b: ShapleyExplainer(model, b, algorithm="tree"), model, rows, B,
        lambda Z: model.predict_proba(Z)[:, 1:], raw)[:, :, 0]
    np.testing.assert_allclose(out.values[:, :, 1], ref, atol=1e-12)
    np.testing.assert_allclose(out.values[:, :, 0], -ref, atol=1e-12)
    # not the probability game's Shapley values (the exact algorithm's)
    exact = ShapleyExplainer(model, B, algorithm="exact",
                             response_method="predict_proba").explain(rows)
    assert np.abs(exact.values - out.values).max() > 1e-6
    # the path-dependent game has no probability output
    with pytest.raises(ValueError, match="interventional"):
        ShapleyExplainer(model, algorithm="tree", response_method="predict_proba")
    # multiclass: a softmax output is no rescaling of its raw score's values
    X3, y3 = make_classification(200, 5, n_informative=3, n_classes=3, random_state=0)
    model3 = cls(n_estimators=3, random_state=0).fit(X3, y3)
    with pytest.raises(ValueError, match="binary gradient boosting"):
        ShapleyExplainer(model3, X3[:4], algorithm="tree", response_method="predict_proba")
    assert ShapleyExplainer(model3, X3[:4], response_method="predict_proba"
                            ).algorithm_ == "exact"


def test_threads_give_the_same_values():
    X, y = make_regression(300, 6, random_state=0)
    rf = RandomForestRegressor(n_estimators=5, max_depth=5, random_state=0).fit(X, y)
    for background in (None, X[:20]):
        one = ShapleyExplainer(rf, background, algorithm="tree", n_jobs=1).explain(X[:50])
        two = ShapleyExplainer(rf, background, algorithm="tree", n_jobs=2).explain(X[:50])
        np.testing.assert_array_equal(one.values, two.values)


# -- parity with shap (run where shap is installed: the peers environment) --


def _breast_cancer():
    X, y = load_breast_cancer(return_X_y=True)
    return X, y


@pytest.mark.parametrize("name", ["RandomForestClassifier", "ExtraTreesRegressor",
                                  "GradientBoostingClassifier",
                                  "GradientBoostingRegressor"])
def test_parity_with_shap_on_sklearn_models(name):
    shap = pytest.importorskip("shap")
    X, y = _breast_cancer()
    model = {
        "RandomForestClassifier": sk_ensemble.RandomForestClassifier(n_estimators=10,
                                                                     random_state=0),
        "ExtraTreesRegressor": sk_ensemble.ExtraTreesRegressor(n_estimators=10,
                                                               max_depth=8,
                                                               random_state=0),
        "GradientBoostingClassifier": sk_ensemble.GradientBoostingClassifier(
            n_estimators=10, random_state=0),
        "GradientBoostingRegressor": sk_ensemble.GradientBoostingRegressor(
            n_estimators=10, random_state=0),
    }[name].fit(X, y)
    rows, B = X[:40], X[100:150]
    for fp, background, rtol in (("tree_path_dependent", None, 1e-10),
                                 ("interventional", B, 1e-6)):
        ours = ShapleyExplainer(model, background, algorithm="tree").explain(rows).values
        theirs = np.asarray(shap.TreeExplainer(model, data=background,
                                               feature_perturbation=fp)
                            .shap_values(rows, check_additivity=False))
        theirs = theirs.reshape(ours.shape)
        # shap's interventional walk accumulates in float32: ~1e-8 relative
        assert np.abs(ours - theirs).max() <= rtol * np.abs(theirs).max()
    if name == "GradientBoostingClassifier":
        ours = ShapleyExplainer(model, B, algorithm="tree",
                                response_method="predict_proba").explain(rows).values
        theirs = shap.TreeExplainer(model, data=B, feature_perturbation="interventional",
                                    model_output="probability").shap_values(rows)
        assert np.abs(ours[:, :, 1] - theirs).max() <= 1e-6 * np.abs(theirs).max()
