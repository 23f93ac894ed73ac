"""MLP input gradients through the network core, against finite differences."""

import numpy as np
import pytest
from numpy.testing import assert_allclose

from skml.neural_network import MLPClassifier, MLPRegressor

pytestmark = pytest.mark.filterwarnings(
    "ignore::sklearn.exceptions.ConvergenceWarning"
)


def _numeric(f, X, h=1e-6):
    """Central differences of the per-row outputs ``f(X)`` (n,) in each feature."""
    G = np.empty_like(X)
    for j in range(X.shape[1]):
        step = np.zeros_like(X)
        step[:, j] = h
        G[:, j] = (f(X + step) - f(X - step)) / (2 * h)
    return G


def _data(n_classes, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(60, 4))
    y = (X[:, 0] + X[:, 1] ** 2 > 1).astype(int) + (X[:, 2] > 0.5) * (n_classes > 2)
    return X, y


def _outputs(clf, X, y, output):
    rows = np.arange(len(X))
    col = np.searchsorted(clf.classes_, y)
    P = clf.predict_proba(X)
    if output == "proba":
        return P[rows, col]
    if output == "loss":
        return -np.log(P[rows, col])
    # decision: log-odds of the class for two classes, the logit for more
    if len(clf.classes_) == 2:
        logit = np.log(P[:, 1]) - np.log(P[:, 0])
        return np.where(col == 1, logit, -logit)
    return clf._network(np.float64).forward(X)[rows, col]  # the raw logits


@pytest.mark.parametrize("batch_norm", [False, True])
@pytest.mark.parametrize("output", ["loss", "proba", "decision"])
@pytest.mark.parametrize("n_classes", [2, 3])
def test_classifier_input_gradient_matches_finite_differences(n_classes, output,
                                                             batch_norm):
    X, y = _data(n_classes)
    clf = MLPClassifier((6, 5), activation="tanh", batch_norm=batch_norm,
                        max_iter=30, learning_rate_init=0.05, random_state=0).fit(X, y)
    G = clf.input_gradient(X, y, output=output)
    assert G.shape == X.shape
    numeric = _numeric(lambda Z: _outputs(clf, Z, y, output), X)
    assert_allclose(G, numeric, rtol=1e-5, atol=1e-8)
    assert np.abs(G).max() > 1e-3  # not trivially zero


def test_one_label_for_all_rows_and_the_loss_is_minus_log_proba():
    X, y = _data(3)
    clf = MLPClassifier((6,), max_iter=30, random_state=0).fit(X, y)
    g_loss = clf.input_gradient(X, 2, output="loss")
    g_proba = clf.input_gradient(X, np.full(len(X), 2), output="proba")
    p = clf.predict_proba(X)[:, 2]
    assert_allclose(g_loss, -g_proba / p[:, None], rtol=1e-8)


@pytest.mark.parametrize("loss", ["squared_error", "poisson"])
def test_regressor_input_gradient_matches_finite_differences(loss):
    rng = np.random.RandomState(0)
    X = rng.normal(size=(40, 3))
    Y = np.c_[np.exp(0.3 * X[:, 0]), np.abs(X[:, 1])]
    reg = MLPRegressor(loss=loss, hidden_layer_sizes=(8,), activation="tanh",
                       max_iter=30, learning_rate_init=0.01, random_state=0).fit(X, Y)
    G = reg.input_gradient(X)
    assert G.shape == (40, 2, 3)
    for j in range(2):
        assert_allclose(G[:, j], _numeric(lambda Z: reg.predict(Z)[:, j], X),
                        rtol=1e-5, atol=1e-8)

    def per_row(Z):
        P = reg.predict(Z)
        if loss == "squared_error":
            return 0.5 * ((P - Y) ** 2).sum(1)
        return (P - Y * np.log(P)).sum(1)

    assert_allclose(reg.input_gradient(X, Y, output="loss"), _numeric(per_row, X),
                    rtol=1e-5, atol=1e-8)
    single = MLPRegressor(hidden_layer_sizes=(4,), max_iter=5, random_state=0)
    assert single.fit(X, Y[:, 0]).input_gradient(X).shape == (40, 3)


def test_input_gradient_does_not_disturb_the_fitted_network():
    X, y = _data(2)
    clf = MLPClassifier((6,), batch_norm=True, max_iter=10, random_state=0).fit(X, y)
    before = clf.predict_proba(X)
    running = clf.running_mean_[0].copy()
    clf.input_gradient(X, y)
    assert_allclose(clf.predict_proba(X), before)
    assert_allclose(clf.running_mean_[0], running)


def test_one_class_has_a_zero_gradient():
    X, _ = _data(2)
    clf = MLPClassifier((4,), max_iter=5, random_state=0).fit(X, np.zeros(60))
    assert not clf.input_gradient(X, 0.0, output="proba").any()


def test_bad_input_gradient_arguments():
    X, y = _data(2)
    clf = MLPClassifier((4,), max_iter=5, random_state=0).fit(X, y)
    with pytest.raises(ValueError, match="output"):
        clf.input_gradient(X, y, output="logit")
    with pytest.raises(ValueError, match="not in classes_"):
        clf.input_gradient(X, y + 5)
    with pytest.raises(ValueError, match="one per row"):
        clf.input_gradient(X, y[:3])
    reg = MLPRegressor(hidden_layer_sizes=(4,), max_iter=5, random_state=0)
    reg.fit(X, y.astype(float))
    with pytest.raises(ValueError, match="needs the targets"):
        reg.input_gradient(X, output="loss")
    with pytest.raises(ValueError, match="outputs"):
        reg.input_gradient(X, np.c_[y, y], output="loss")
    with pytest.raises(ValueError, match="4 features"):
        reg.input_gradient(X[:, :3])
