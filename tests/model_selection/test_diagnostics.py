"""The notes' model diagnostics: bias-variance decomposition, learning curves,
the bias/variance diagnosis (notes B §2.5, §11.3-11.4)."""

import numpy as np
import pytest
from sklearn.datasets import load_diabetes, load_iris
from sklearn.model_selection import KFold
from sklearn.model_selection import learning_curve as sk_learning_curve
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import PolynomialFeatures

from skml.linear_model import LinearRegression, Ridge
from skml.model_selection import (
    bias_variance_decomposition,
    diagnose_bias_variance,
    learning_curve,
)
from skml.tree import DecisionTreeClassifier, DecisionTreeRegressor

from .._parity import parity_test


def _quadratic(n, seed, noise=0.1):
    rng = np.random.RandomState(seed)
    X = rng.uniform(-1, 1, (n, 1))
    return X, X[:, 0] ** 2 + noise * rng.normal(size=n)


def _poly(degree, alpha=1e-8):
    return make_pipeline(PolynomialFeatures(degree), Ridge(alpha=alpha))


def test_decomposition_identity_is_exact_and_noise_is_reported():
    X, y = _quadratic(80, 0)
    X_test, y_test = _quadratic(50, 1)
    r = bias_variance_decomposition(_poly(3), X, y, X_test, y_test,
                                    true_fn=lambda Z: Z[:, 0] ** 2, n_rounds=40,
                                    random_state=0)
    assert r["expected_loss"] == pytest.approx(r["bias"] + r["variance"], rel=1e-12)
    assert r["noise"] == pytest.approx(np.mean((y_test - X_test[:, 0] ** 2) ** 2))
    assert r["predictions"].shape == (40, 50)


class _Constant:
    """f = c, D4's example: no variance whatever the training set."""

    def __init__(self, c=0.5):
        self.c = c

    def get_params(self, deep=True):
        return {"c": self.c}

    def set_params(self, **params):
        self.c = params.get("c", self.c)
        return self

    def fit(self, X, y):
        return self

    def predict(self, X):
        return np.full(len(X), self.c)


def test_constant_model_has_no_variance():
    X, y = _quadratic(40, 2)
    r = bias_variance_decomposition(_Constant(), X, y, X, y, n_rounds=10,
                                    random_state=0)
    assert r["variance"] == 0.0
    assert r["bias"] == pytest.approx(np.mean((y - 0.5) ** 2))


def test_capacity_trades_bias_for_variance():
    """Polynomial degree 1, 2, 8 on 200 noisy points of a quadratic (notes B
    §2.5): the line's bias² is far above the others'; degree 8 has the
    largest variance. (Bootstrap rounds reuse one training set, so the
    overfitted degree's bias² also holds that set's noise: bias² is not
    monotone in the degree here, as it would be over fresh training sets.)"""
    X, y = _quadratic(200, 3, noise=0.3)
    X_test = np.linspace(-0.8, 0.8, 40)[:, None]
    m = lambda Z: Z[:, 0] ** 2  # noqa: E731
    runs = [bias_variance_decomposition(_poly(d, alpha=1e-6), X, y, X_test,
                                        true_fn=m, n_rounds=100, random_state=0)
            for d in (1, 2, 8)]
    bias = [r["bias"] for r in runs]
    var = [r["variance"] for r in runs]
    # measured over seeds 0-2: bias 0.053 / 0.0015 / 0.006, var 0.0015 /
    # 0.0013 / 0.0038
    assert bias[0] > 5 * bias[1] and bias[0] > 5 * bias[2]
    assert var[2] > 1.5 * var[1] and var[2] > 1.5 * var[0]


def test_zero_one_decomposition_and_same_seed_same_answer():
    X, y = load_iris(return_X_y=True)
    a = bias_variance_decomposition(DecisionTreeClassifier(random_state=0), X, y,
                                    X[::3], y[::3], loss="0-1", n_rounds=20,
                                    random_state=1)
    b = bias_variance_decomposition(DecisionTreeClassifier(random_state=0), X, y,
                                    X[::3], y[::3], loss="0-1", n_rounds=20,
                                    random_state=1, n_jobs=2)
    assert a["expected_loss"] == b["expected_loss"] and a["variance"] == b["variance"]
    assert 0 <= a["bias"] <= a["expected_loss"] + a["variance"]


@parity_test("learning_curve")
@pytest.mark.parametrize("sizes", [(0.1, 0.5, 1.0), np.array([20, 60, 120])])
def test_learning_curve_equals_scikit_learn(sizes):
    X, y = load_diabetes(return_X_y=True)
    cv = KFold(4, shuffle=True, random_state=0)
    ours = learning_curve(DecisionTreeRegressor(max_depth=3, random_state=0), X, y,
                          train_sizes=sizes, cv=cv)
    ref = sk_learning_curve(DecisionTreeRegressor(max_depth=3, random_state=0), X, y,
                            train_sizes=sizes, cv=cv)
    for a, b in zip(ours, ref):
        np.testing.assert_allclose(a, b, rtol=1e-12)


def test_learning_curves_of_the_notes():
    """A line on linear data: curves meet; degree 15 on few points: a gap that
    shrinks as the data grow (notes B §11.3)."""
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, (300, 1))
    y = 2 * X[:, 0] + 0.1 * rng.normal(size=300)
    sizes, train, val = learning_curve(LinearRegression(), X, y,
                                       train_sizes=[20, 100, 240], cv=5)
    assert np.all(np.diff(sizes) > 0)
    assert abs(train.mean(1)[-1] - val.mean(1)[-1]) < 0.02
    _, train, val = learning_curve(_poly(15), X, y, train_sizes=[20, 240], cv=5)
    gap = train.mean(1) - val.mean(1)
    assert gap[0] > 0.1 and gap[1] < 0.05


def test_diagnosis_table_of_the_notes():
    """Quadratic data: a line is high-bias, degree 15 on 25 points is
    high-variance, degree 2 is neither (catalogue B §11.4)."""
    X, y = _quadratic(200, 4, noise=0.05)
    line = diagnose_bias_variance(LinearRegression(), X, y)
    assert line["high_bias"] and not line["high_variance"] and line["advice"]
    few_X, few_y = _quadratic(25, 5, noise=0.3)
    wiggly = diagnose_bias_variance(_poly(15), few_X, few_y)
    assert wiggly["high_variance"]
    good = diagnose_bias_variance(_poly(2), X, y)
    assert not good["high_bias"] and not good["high_variance"]
    assert good["advice"] == []


@pytest.mark.parametrize("call, match", [
    (lambda X, y: bias_variance_decomposition(LinearRegression(), X, y, X), "y_test"),
    (lambda X, y: bias_variance_decomposition(LinearRegression(), X, y, X, y,
                                              loss="hinge"), "loss"),
    (lambda X, y: bias_variance_decomposition(LinearRegression(), X, y, X, y,
                                              n_rounds=0), "n_rounds"),
    (lambda X, y: learning_curve(LinearRegression(), X, y, train_sizes=[0.0, 1.0]),
     "train_sizes"),
    (lambda X, y: diagnose_bias_variance(LinearRegression(), X, y, err_tol=-1),
     "err_tol"),
])
def test_bad_input_is_refused_clearly(call, match):
    X, y = _quadratic(30, 0)
    with pytest.raises(ValueError, match=match):
        call(X, y)
