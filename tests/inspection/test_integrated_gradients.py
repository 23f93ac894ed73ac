"""Integrated gradients: the notes' properties (A §12.3)."""

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.ensemble import GradientBoostingRegressor as SkBoosting

from skml.inspection import IntegratedGradients
from skml.inspection._integrated_gradients import path_nodes
from skml.linear_model import LinearRegression, LogisticRegression
from skml.neural_network import MLPClassifier, MLPRegressor
from skml.svm import SVR

METHODS = ["riemann_midpoint", "riemann_left", "riemann_right", "trapezoid",
           "gausslegendre"]


def _regression(d=4):
    X, y = make_regression(n_samples=60, n_features=d, noise=0.5, random_state=0)
    return X, y / y.std()


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("n_steps", [2, 7])
def test_exact_for_linear_models(method, n_steps):
    X, y = _regression()
    reg = LinearRegression().fit(X, y)
    base = X[:3].mean(0)
    ex = IntegratedGradients(reg, baseline=base, n_steps=n_steps, method=method).explain(X[5:9])
    np.testing.assert_allclose(ex.values, reg.coef_ * (X[5:9] - base), atol=1e-12)
    np.testing.assert_allclose(ex.convergence_delta, 0.0, atol=1e-12)


def test_quadratic_model_exact_with_midpoint_not_with_left_sums():
    X, y = _regression()
    # a degree-2 polynomial kernel: F is a quadratic polynomial of x
    svr = SVR(kernel="poly", degree=2, coef0=1.0, C=10.0).fit(X, y)
    for method in ("riemann_midpoint", "trapezoid", "gausslegendre"):
        ex = IntegratedGradients(svr, n_steps=3, method=method).explain(X[:6])
        np.testing.assert_allclose(ex.convergence_delta, 0.0, atol=1e-10)
    left = IntegratedGradients(svr, n_steps=3, method="riemann_left").explain(X[:6])
    assert np.max(np.abs(left.convergence_delta)) > 1e-3
    # the midpoint values equal a fine quadrature's (exact integrand average)
    fine = IntegratedGradients(svr, n_steps=40, method="gausslegendre").explain(X[:6])
    mid = IntegratedGradients(svr, n_steps=1, method="riemann_midpoint").explain(X[:6])
    np.testing.assert_allclose(mid.values, fine.values, atol=1e-10)


def test_completeness_on_a_tanh_network():
    X, y = make_classification(n_samples=150, n_features=5, n_informative=4,
                               n_redundant=0, n_classes=3, random_state=0)
    # alpha=1 keeps the network smooth (a sharp one needs more steps)
    mlp = MLPClassifier(hidden_layer_sizes=(10,), activation="tanh", solver="lbfgs",
                        alpha=1.0, max_iter=300, random_state=0).fit(X, y)
    ex = IntegratedGradients(mlp, baseline=X.mean(0), n_steps=50).explain(X[:20])
    assert ex.values.shape == (20, 5)
    assert np.max(np.abs(ex.convergence_delta)) < 1e-6
    target = ex.extra["target"]
    np.testing.assert_array_equal(target, np.argmax(mlp.predict_proba(X[:20]), 1))
    # an explicit target
    ex2 = IntegratedGradients(mlp, n_steps=50).explain(X[:4], target=2)
    p = mlp.predict_proba(X[:4])[:, 2] - mlp.predict_proba(np.zeros((4, 5)))[:, 2]
    np.testing.assert_allclose(ex2.values.sum(1), p, atol=1e-6)
    # midpoint: error O(1/n^2)
    d10 = IntegratedGradients(mlp, n_steps=10, method="riemann_midpoint").explain(X[:20])
    d40 = IntegratedGradients(mlp, n_steps=40, method="riemann_midpoint").explain(X[:20])
    assert np.max(np.abs(d40.convergence_delta)) < np.max(np.abs(d10.convergence_delta)) / 8


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_unchanged_features_get_zero_and_symmetric_features_equal():
    rng = np.random.default_rng(0)
    X = rng.normal(size=(200, 3))
    y = np.tanh(X[:, 0] + X[:, 1]) + 0.3 * X[:, 2]
    mlp = MLPRegressor(hidden_layer_sizes=(6,), activation="tanh", solver="lbfgs",
                       max_iter=200, random_state=0).fit(np.c_[X[:, :2], X[:, :2].sum(1)], y)
    x = np.array([[0.5, -0.2, 0.3]])
    base = np.array([0.0, -0.2, 0.0])  # feature 1 unchanged
    ex = IntegratedGradients(mlp, baseline=base).explain(x)
    assert ex.values[0, 1] == 0.0
    # a model symmetric in two features, equal values for both: equal attributions
    lr = LogisticRegression().fit(X, (X[:, 0] + X[:, 1] > 0).astype(int))
    lr.coef_[0, 1] = lr.coef_[0, 0]
    ex = IntegratedGradients(lr).explain([[0.7, 0.7, -1.0]], target=1)
    assert abs(ex.values[0, 0] - ex.values[0, 1]) < 1e-12


def test_models_without_analytic_gradients_use_finite_differences():
    X, y = _regression()
    # piecewise constant: the gradients are zero almost everywhere, so the
    # completeness gap is the whole change F(x) - F(x') (documented behaviour)
    gb = SkBoosting(n_estimators=5, random_state=0).fit(X, y)
    ex = IntegratedGradients(gb, n_steps=4).explain(X[:3])
    assert ex.values.shape == (3, 4)


def test_quadrature_weights_integrate_polynomials():
    for method, degree in [("riemann_midpoint", 1), ("trapezoid", 1),
                           ("gausslegendre", 9)]:
        a, w = path_nodes(5, method)
        for p in range(degree + 1):
            assert abs(w @ a**p - 1.0 / (p + 1)) < 1e-14


def test_bad_input():
    X, y = _regression()
    reg = LinearRegression().fit(X, y)
    with pytest.raises(ValueError, match="method must be"):
        IntegratedGradients(reg, method="simpson")
    with pytest.raises(ValueError, match="n_steps"):
        IntegratedGradients(reg, n_steps=0)
    with pytest.raises(ValueError, match="baseline must have shape"):
        IntegratedGradients(reg, baseline=np.zeros(3)).explain(X[:2])
    with pytest.raises(ValueError, match="X has 3 features"):
        IntegratedGradients(reg).explain(X[:2, :3])
    with pytest.raises(Exception, match="not fitted"):
        IntegratedGradients(LinearRegression()).explain(X[:2])
    clf = LogisticRegression().fit(X, y > 0)
    with pytest.raises(ValueError, match="target"):
        IntegratedGradients(clf).explain(X[:2], target=7)
