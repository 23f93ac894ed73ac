"""Shapley values: the notes' properties (A §12.4) and the model explainer."""

import itertools
from math import factorial

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import RandomForestRegressor as SkForest

from skml.inspection import ShapleyExplainer, shapley_values
from skml.linear_model import LinearRegression, LogisticRegression
from skml.neural_network import MLPRegressor


def _brute_force(v, n):
    """The notes' formula, summed coalition by coalition."""
    phi = np.zeros(n)
    for i in range(n):
        others = [j for j in range(n) if j != i]
        for size in range(n):
            for S in itertools.combinations(others, size):
                w = factorial(size) * factorial(n - size - 1) / factorial(n)
                with_i = np.zeros(n, bool)
                with_i[list(S) + [i]] = True
                without = with_i.copy()
                without[i] = False
                phi[i] += w * (v(with_i) - v(without))
    return phi


def _random_game(n, seed):
    table = np.random.default_rng(seed).normal(size=1 << n)
    return lambda s: table[int(np.dot(s, 1 << np.arange(n)))]


def test_glove_game():
    glove = lambda s: float(s[0] and (s[1] or s[2]))  # noqa: E731
    np.testing.assert_allclose(shapley_values(glove, 3), [2 / 3, 1 / 6, 1 / 6],
                               atol=1e-15)


@pytest.mark.parametrize("n", [1, 2, 5, 7])
def test_matches_the_formula_and_is_efficient(n):
    v = _random_game(n, n)
    phi = shapley_values(v, n)
    np.testing.assert_allclose(phi, _brute_force(v, n), atol=1e-12)
    full, empty = np.ones(n, bool), np.zeros(n, bool)
    assert abs(phi.sum() - (v(full) - v(empty))) < 1e-12


def test_symmetry_and_null_player():
    # players 1 and 2 interchangeable; player 3 never changes a value
    def v(s):
        return (s[0] + s[1] + s[2]) ** 2 + 3.0 * s[0] * (s[1] + s[2]) - s[4]
    phi = shapley_values(v, 5)
    assert abs(phi[1] - phi[2]) < 1e-12
    assert abs(phi[3]) < 1e-12
    assert abs(phi[4] + 1.0) < 1e-12


def test_linearity_and_additive_game():
    f, g = _random_game(6, 0), _random_game(6, 1)
    both = shapley_values(lambda s: 2.0 * f(s) - g(s), 6)
    np.testing.assert_allclose(both, 2.0 * shapley_values(f, 6) - shapley_values(g, 6),
                               atol=1e-12)
    a = np.array([0.5, -1.0, 2.0, 0.0])
    np.testing.assert_allclose(shapley_values(lambda s: a @ s, 4), a, atol=1e-14)


def test_vectorized_and_vector_values():
    a = np.arange(8.0).reshape(4, 2)
    phi = shapley_values(lambda M: M @ a, 4, vectorized=True)
    np.testing.assert_allclose(phi, a, atol=1e-14)


def test_bad_input():
    with pytest.raises(ValueError, match="limit of 20"):
        shapley_values(lambda s: 0.0, 21)
    with pytest.raises(ValueError, match="positive integer"):
        shapley_values(lambda s: 0.0, 0)
    with pytest.raises(TypeError, match="callable"):
        shapley_values(3, 2)


# --------------------------------------------------------------------------
# The explainer
# --------------------------------------------------------------------------


def _regression(d=6, n=80, seed=0):
    X, y = make_regression(n_samples=n, n_features=d, noise=0.5, random_state=seed)
    return X, y / y.std()


def _exact_by_enumeration(f, x, B):
    d = len(x)
    def v(s):
        return f(np.where(s, x, B)).mean(axis=0)
    return _brute_force(v, d)


def test_linear_closed_form_matches_exact_enumeration():
    X, y = _regression()
    reg = LinearRegression().fit(X, y)
    B = X[:15]
    lin = ShapleyExplainer(reg, B, algorithm="linear").explain(X[20:25])
    assert lin.values.shape == (5, 6)
    np.testing.assert_allclose(lin.values, reg.coef_ * (X[20:25] - B.mean(0)), atol=1e-12)
    ex = ShapleyExplainer(reg, B, algorithm="exact").explain(X[20:25])
    np.testing.assert_allclose(ex.values, lin.values, atol=1e-10)
    np.testing.assert_allclose(lin.base_values, reg.predict(B).mean())
    assert ShapleyExplainer(reg, B).algorithm_ == "linear"


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_exact_matches_brute_force_on_a_nonlinear_model():
    X, y = _regression(d=5)
    y = y + X[:, 0] * X[:, 1]
    mlp = MLPRegressor(hidden_layer_sizes=(8,), activation="tanh", solver="lbfgs",
                       max_iter=500, random_state=0).fit(X, y)
    B = X[:7]
    ex = ShapleyExplainer(mlp, B, algorithm="exact").explain(X[30:33])
    for r in range(3):
        np.testing.assert_allclose(ex.values[r], _exact_by_enumeration(
            mlp.predict, X[30 + r], B), atol=1e-10)
    np.testing.assert_allclose(ex.values.sum(1) + ex.base_values, mlp.predict(X[30:33]),
                               atol=1e-10)


def test_multi_output_layout_and_efficiency():
    X, y = make_classification(n_samples=120, n_features=5, n_informative=3,
                               n_redundant=0, n_classes=3, random_state=0)
    clf = LogisticRegression().fit(X, y)
    for algorithm in ("exact", "permutation", "kernel"):
        ex = ShapleyExplainer(clf, X[:10], algorithm=algorithm, n_samples=40,
                              random_state=0).explain(X[50:54])
        assert ex.values.shape == (4, 5, 3)
        assert ex.base_values.shape == (4, 3)
        np.testing.assert_allclose(ex.values.sum(1) + ex.base_values,
                                   clf.predict_proba(X[50:54]), atol=1e-10)
        np.testing.assert_allclose(ex.values.sum(2), 0.0, atol=1e-10)
    assert ex.output_names == ["0", "1", "2"]


def test_kernel_with_full_enumeration_is_exact():
    X, y = _regression(d=7)
    forest = SkForest(n_estimators=5, max_depth=4, random_state=0).fit(X, y)
    B = X[:10]
    exact = ShapleyExplainer(forest, B, algorithm="exact").explain(X[40:44])
    kernel = ShapleyExplainer(forest, B, algorithm="kernel", n_samples=126).explain(X[40:44])
    np.testing.assert_allclose(kernel.values, exact.values, atol=1e-10)


def test_kernel_is_exact_for_additive_models_with_few_samples():
    X, y = _regression(d=12)
    reg = LinearRegression().fit(X, y)
    B = X[:10]
    kernel = ShapleyExplainer(reg.predict, B, algorithm="kernel", n_samples=60,
                              random_state=0).explain(X[40:43])
    np.testing.assert_allclose(kernel.values, reg.coef_ * (X[40:43] - B.mean(0)),
                               atol=1e-10)


def test_permutation_is_exact_for_pairwise_interactions_with_one_pair():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(30, 6))
    f = lambda Z: Z[:, 0] * Z[:, 1] - 2 * Z[:, 2] * Z[:, 5] + Z[:, 3] ** 2  # noqa: E731
    B = X[:8]
    exact = ShapleyExplainer(f, B, algorithm="exact").explain(X[10:13])
    perm = ShapleyExplainer(f, B, algorithm="permutation", n_samples=10,
                            random_state=0).explain(X[10:13])
    np.testing.assert_allclose(perm.values, exact.values, atol=1e-10)


def test_sampled_errors_shrink_and_match_standard_errors():
    rng = np.random.default_rng(1)
    X = rng.normal(size=(40, 8))
    f = lambda Z: np.tanh(Z[:, 0] * Z[:, 1] * Z[:, 2]) + np.sin(Z[:, 3] * Z[:, 4] * Z[:, 7])  # noqa: E731
    B = X[:10]
    exact = ShapleyExplainer(f, B, algorithm="exact").explain(X[20:30]).values
    for algorithm in ("permutation", "kernel"):
        errs = []
        for budget in (60, 2000):
            ex = ShapleyExplainer(f, B, algorithm=algorithm, n_samples=budget,
                                  random_state=0).explain(X[20:30])
            errs.append(np.sqrt(np.mean((ex.values - exact) ** 2)))
            np.testing.assert_allclose(ex.values.sum(1) + ex.base_values, f(X[20:30]),
                                       atol=1e-10)
        assert errs[1] < 0.5 * errs[0]
    # The permutations are shared by the rows, so each seed gives one draw
    # per feature; over 10 seeds the errors are of the size of the reported
    # standard errors (|z| < 3 for about 99% of normal draws).
    z = []
    for seed in range(10):
        ex = ShapleyExplainer(f, B, algorithm="permutation", n_samples=600,
                              random_state=seed).explain(X[20:21])
        active = [0, 1, 2, 3, 4, 7]
        z.extend(np.abs(ex.values - exact[:1])[0, active] / ex.standard_errors[0, active])
        assert np.all(np.abs(ex.values[0, [5, 6]]) < 1e-12)  # null players
    assert np.mean(np.array(z) < 3.0) >= 0.9


def test_seeded_determinism():
    X, y = _regression(d=14)
    reg = MLPRegressor(hidden_layer_sizes=(4,), solver="lbfgs", max_iter=50,
                       random_state=0).fit(X, y)
    a = ShapleyExplainer(reg, X[:5], algorithm="kernel", n_samples=100, random_state=3)
    b = ShapleyExplainer(reg, X[:5], algorithm="kernel", n_samples=100, random_state=3)
    np.testing.assert_array_equal(a.explain(X[9:11]).values, b.explain(X[9:11]).values)
    assert ShapleyExplainer(reg, X[:5]).algorithm_ == "kernel"
    assert ShapleyExplainer(reg, X[:5, :5] @ np.ones((5, 14)) / 5).algorithm_ == "kernel"


def test_explainer_bad_input():
    X, y = _regression()
    reg = LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match="background has 5 features"):
        ShapleyExplainer(reg, X[:10, :5])
    with pytest.raises(ValueError, match="X has 4 features"):
        ShapleyExplainer(reg, X[:10]).explain(X[:2, :4])
    with pytest.raises(Exception, match="not fitted"):
        ShapleyExplainer(LinearRegression(), X[:10])
    with pytest.raises(ValueError, match="algorithm must be"):
        ShapleyExplainer(reg, X[:10], algorithm="trees")
    with pytest.raises(ValueError, match="algorithm='tree' explains"):
        ShapleyExplainer(reg, X[:10], algorithm="tree")
    with pytest.raises(ValueError, match="needs a background"):
        ShapleyExplainer(reg)
    with pytest.raises(ValueError, match="predict_proba"):
        ShapleyExplainer(reg, X[:10], response_method="predict_proba")
    with pytest.raises(ValueError, match="linear model"):
        ShapleyExplainer(lambda Z: Z.sum(1), X[:10], algorithm="linear")
    with pytest.raises(ValueError, match="limit of 20"):
        ShapleyExplainer(lambda Z: Z.sum(1), np.zeros((2, 21)), algorithm="exact")
    with pytest.raises(TypeError, match="model must be"):
        ShapleyExplainer(3, X[:10])


def test_kernel_with_a_budget_too_small_to_span_is_finite_and_efficient():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(20, 25))
    f = lambda Z: np.tanh(Z[:, :5].sum(1)) * Z[:, 6]  # noqa: E731
    ex = ShapleyExplainer(f, X[:5], algorithm="kernel", n_samples=6,
                          random_state=0).explain(X[10:12])
    assert np.all(np.isfinite(ex.values))
    np.testing.assert_allclose(ex.values.sum(1) + ex.base_values, f(X[10:12]), atol=1e-10)


def test_explanation_rows_and_transform():
    X, y = _regression()
    reg = LinearRegression().fit(X, y)
    explainer = ShapleyExplainer(reg, X[:10], feature_names=[f"f{j}" for j in range(6)])
    ex = explainer.explain(X[:5])
    part = ex[1:3]
    np.testing.assert_array_equal(part.values, ex.values[1:3])
    np.testing.assert_array_equal(part.base_values, ex.base_values[1:3])
    assert len(part) == 2 and part.feature_names[0] == "f0"
    assert len(ex[4]) == 1
    np.testing.assert_array_equal(explainer.transform(X[:5]), ex.values)
    with pytest.raises(ValueError, match="feature_names has 2 names"):
        ShapleyExplainer(reg, X[:10], feature_names=["a", "b"])
