"""skml.inspection.input_gradient: analytic gradients against finite differences."""

import copy
import warnings

import numpy as np
import pytest
from sklearn.datasets import make_classification, make_regression
from sklearn.exceptions import ConvergenceWarning, NotFittedError
from sklearn.linear_model import LogisticRegression as SkLogisticRegression
from sklearn.tree import DecisionTreeClassifier as SkTree

from skml.discriminant_analysis import (
    LinearDiscriminantAnalysis,
    QuadraticDiscriminantAnalysis,
)
from skml.inspection import input_gradient
from skml.inspection._input_gradient import _finite_difference_gradient
from skml.linear_model import (
    Lasso,
    LinearRegression,
    LogisticRegression,
    Perceptron,
    Ridge,
    SGDClassifier,
    SGDRegressor,
)
from skml.naive_bayes import GaussianNB
from skml.neural_network import MLPClassifier, MLPRegressor
from skml.svm import SVC, SVR, HardMarginSVC, LinearSVC


def _clf_data(n_classes):
    X, y = make_classification(n_samples=90, n_features=4, n_informative=3,
                               n_redundant=0, n_classes=n_classes,
                               n_clusters_per_class=1, random_state=n_classes)
    return X, np.array(["a", "b", "c"])[y]


def _reg_data(n_targets=1):
    X, y = make_regression(n_samples=60, n_features=4, n_targets=n_targets,
                           noise=1.0, random_state=0)
    return X, y / np.std(y)


CLASSIFIERS = [
    LogisticRegression(C=0.5),
    LinearDiscriminantAnalysis(),
    QuadraticDiscriminantAnalysis(reg_param=0.1),
    GaussianNB(),
    SGDClassifier(loss="hinge", random_state=0, max_iter=50),
    SGDClassifier(loss="log_loss", random_state=0, max_iter=50),
    SGDClassifier(loss="modified_huber", random_state=0, max_iter=50),
    SGDClassifier(loss="squared_hinge", random_state=0, max_iter=50),
    SGDClassifier(loss="perceptron", random_state=0, max_iter=50),
    SGDClassifier(loss="huber", random_state=0, max_iter=50),
    SGDClassifier(loss="squared_error", random_state=0, max_iter=50),
    Perceptron(random_state=0),
    LinearSVC(loss="hinge", max_iter=2000),
    LinearSVC(loss="squared_hinge"),
    SVC(kernel="rbf", C=3.0),
    SVC(kernel="poly", degree=3, coef0=1.0),
    SVC(kernel="sigmoid", gamma=0.05, coef0=0.1),
    SVC(kernel="linear"),
    SVC(kernel="rbf", decision_function_shape="ovo"),
    MLPClassifier(hidden_layer_sizes=(6,), activation="tanh", solver="lbfgs",
                  max_iter=200, random_state=0),
]

REGRESSORS = [
    LinearRegression(),
    Ridge(alpha=1.0),
    Lasso(alpha=0.01),
    SGDRegressor(loss="squared_error", random_state=0),
    SGDRegressor(loss="huber", epsilon=0.5, random_state=0),
    SGDRegressor(loss="epsilon_insensitive", epsilon=0.2, random_state=0),
    SGDRegressor(loss="squared_epsilon_insensitive", epsilon=0.2, random_state=0),
    SVR(kernel="rbf"),
    SVR(kernel="poly", degree=2, coef0=1.0),
    SVR(kernel="sigmoid", gamma=0.05),
    SVR(kernel="linear"),
    MLPRegressor(hidden_layer_sizes=(5,), activation="tanh", solver="lbfgs",
                 max_iter=200, random_state=0),
]


def _fit(est, X, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        return est.fit(X, y)


def _margin_loss(loss, m):
    if loss == "hinge":
        return np.maximum(0.0, 1.0 - m)
    if loss == "perceptron":
        return np.maximum(0.0, -m)
    if loss == "squared_hinge":
        return np.maximum(0.0, 1.0 - m) ** 2
    if loss == "log_loss":
        return np.logaddexp(0.0, -m)
    assert loss == "modified_huber"
    return np.where(m >= -1.0, np.maximum(0.0, 1.0 - m) ** 2, -4.0 * m)


def _residual_loss(loss, r, eps):
    if loss == "squared_error":
        return 0.5 * r * r
    if loss == "huber":
        return np.where(np.abs(r) <= eps, 0.5 * r * r, eps * np.abs(r) - 0.5 * eps**2)
    if loss == "epsilon_insensitive":
        return np.maximum(0.0, np.abs(r) - eps)
    assert loss == "squared_epsilon_insensitive"
    return np.maximum(0.0, np.abs(r) - eps) ** 2


def _loss_values(est, Z, y):
    """Each row's training loss, written out independently of the module."""
    n = Z.shape[0]
    if isinstance(est, SVR):
        return np.maximum(0.0, np.abs(est.predict(Z) - y) - est.epsilon)
    if isinstance(est, (SVC, HardMarginSVC)):
        if len(est.classes_) == 2:
            t = np.where(est.classes_[1] == y, 1.0, -1.0)
            return np.maximum(0.0, 1.0 - t * est.decision_function(Z))
        ovo = copy.deepcopy(est).set_params(decision_function_shape="ovo")
        D = ovo.decision_function(Z)
        total, p = np.zeros(n), 0
        K = len(est.classes_)
        for a in range(K):
            for b in range(a + 1, K):
                t = np.where(y == est.classes_[a], 1.0,
                             np.where(y == est.classes_[b], -1.0, 0.0))
                total += np.where(t != 0, np.maximum(0.0, 1.0 - t * D[:, p]), 0.0)
                p += 1
        return total
    if isinstance(est, (SGDClassifier, Perceptron, LinearSVC)):
        loss = "perceptron" if isinstance(est, Perceptron) else est.loss
        D = est.decision_function(Z).reshape(n, -1)
        if D.shape[1] == 1:
            T = np.where(est.classes_[1] == y, 1.0, -1.0)[:, None]
        else:
            T = np.where(est.classes_[None, :] == y[:, None], 1.0, -1.0)
        if loss in ("squared_error", "huber"):
            return _residual_loss(loss, D - T, est.epsilon).sum(axis=1)
        return _margin_loss(loss, T * D).sum(axis=1)
    if hasattr(est, "classes_"):
        P = est.predict_proba(Z)
        return -np.log(P[np.arange(n), np.searchsorted(est.classes_, y)])
    R = est.predict(Z).reshape(n, -1) - y.reshape(n, -1)
    if isinstance(est, SGDRegressor):
        return _residual_loss(est.loss, R, est.epsilon).sum(axis=1)
    return 0.5 * np.sum(R * R, axis=1)


def _loss_fd(est, X, y, h=1e-6):
    G = np.empty(X.shape)
    for j in range(X.shape[1]):
        E = np.zeros(X.shape)
        E[:, j] = h
        G[:, j] = (_loss_values(est, X + E, y) - _loss_values(est, X - E, y)) / (2 * h)
    return G


def _check_against_fd(est, X, output, y=None):
    analytic = input_gradient(est, X, output=output, y=y)
    if output == "loss":
        fd = _loss_fd(est, X, y)
    else:
        fd = _finite_difference_gradient(est, X, output, None)
        if output != "proba" and fd.ndim == 3 and fd.shape[2] == 1:
            fd = fd[:, :, 0]
    assert analytic.shape == fd.shape
    scale = max(1.0, np.abs(fd).max())
    np.testing.assert_allclose(analytic, fd, rtol=1e-5, atol=1e-6 * scale)
    return analytic


@pytest.mark.parametrize("n_classes", [2, 3])
@pytest.mark.parametrize("est", CLASSIFIERS, ids=lambda e: repr(e)[:60])
def test_classifier_gradients_match_finite_differences(est, n_classes):
    X, y = _clf_data(n_classes)
    est = _fit(est, X, y)
    Xt = X[:12] + 0.01
    outputs = ["loss"]
    if hasattr(est, "predict_proba"):
        outputs.append("proba")
    if hasattr(est, "decision_function"):
        outputs.append("decision")
    for output in outputs:
        g = _check_against_fd(est, Xt, output, y=y[:12])
        if output == "proba":
            assert g.shape == (12, 4, n_classes)
            # probabilities sum to one: their gradients sum to zero
            np.testing.assert_allclose(g.sum(axis=2), 0.0, atol=1e-12)
        elif output == "loss":
            assert g.shape == (12, 4)


@pytest.mark.parametrize("est", REGRESSORS, ids=lambda e: repr(e)[:60])
def test_regressor_gradients_match_finite_differences(est):
    X, y = _reg_data()
    est = _fit(est, X, y)
    Xt = X[:12] + 0.01
    g = _check_against_fd(est, Xt, "decision")
    assert g.shape == (12, 4)
    _check_against_fd(est, Xt, "loss", y=y[:12] + 0.3)


@pytest.mark.parametrize("est", [LinearRegression(), Ridge(), MLPRegressor(
    hidden_layer_sizes=(5,), activation="tanh", solver="lbfgs", max_iter=100,
    random_state=0)], ids=lambda e: type(e).__name__)
def test_multi_output_regressors(est):
    X, Y = _reg_data(n_targets=3)
    est = _fit(est, X, Y)
    g = _check_against_fd(est, X[:5], "decision")
    assert g.shape == (5, 4, 3)
    _check_against_fd(est, X[:5], "loss", y=Y[:5])


def test_mlp_classifier_decision_is_the_logits():
    X, y = _clf_data(3)
    mlp = _fit(MLPClassifier(hidden_layer_sizes=(6,), activation="tanh",
                             solver="lbfgs", max_iter=100, random_state=0), X, y)
    g = input_gradient(mlp, X[:4], output="decision")
    assert g.shape == (4, 4, 3)
    # softmax of the logits: dP_k = P_k (dz_k - sum_j P_j dz_j)
    P = mlp.predict_proba(X[:4])
    expected = P[:, None, :] * (g - np.einsum("ndk,nk->nd", g, P)[:, :, None])
    np.testing.assert_allclose(input_gradient(mlp, X[:4], "proba"), expected,
                               atol=1e-10)


def test_hard_margin_svc():
    X, y = _clf_data(2)
    X = X + 3.0 * np.where(y == "a", 1.0, -1.0)[:, None]  # separable
    est = HardMarginSVC(kernel="rbf", gamma=0.1).fit(X, y)
    _check_against_fd(est, X[:8] * 0.5, "decision")
    _check_against_fd(est, X[:8] * 0.5, "loss", y=y[:8])


def test_linear_model_closed_form():
    X, y = _clf_data(3)
    lr = LogisticRegression().fit(X, y)
    P = lr.predict_proba(X)
    W = lr.coef_
    idx = np.searchsorted(lr.classes_, y)
    expected = (P - np.eye(3)[idx]) @ W  # (P - Y) W
    np.testing.assert_allclose(input_gradient(lr, X, "loss", y=y), expected, atol=1e-12)
    np.testing.assert_allclose(input_gradient(lr, X, "decision"),
                               np.broadcast_to(W.T, (90, 4, 3)))


def test_finite_differences_for_a_scikit_learn_model():
    X, y = _clf_data(2)
    sk = SkLogisticRegression().fit(X, y)
    g = input_gradient(sk, X[:5], "proba")
    p = sk.predict_proba(X[:5])[:, 1]
    expected = (p * (1 - p))[:, None] * sk.coef_[0]
    np.testing.assert_allclose(g[:, :, 1], expected, rtol=1e-6, atol=1e-9)
    np.testing.assert_allclose(g[:, :, 0], -expected, rtol=1e-6, atol=1e-9)
    gd = input_gradient(sk, X[:5], "decision")
    np.testing.assert_allclose(gd, np.broadcast_to(sk.coef_[0], (5, 4)), rtol=1e-6)
    gl = input_gradient(sk, X[:5], "loss", y=y[:5])
    t = (y[:5] == sk.classes_[1]).astype(float)
    np.testing.assert_allclose(gl, (p - t)[:, None] * sk.coef_[0], rtol=1e-5, atol=1e-9)
    # a tree is piecewise constant: zero gradient away from its thresholds
    tree = SkTree(max_depth=3, random_state=0).fit(X, y)
    assert input_gradient(tree, X[:5], "proba").shape == (5, 4, 2)


def test_errors():
    X, y = _clf_data(2)
    with pytest.raises(NotFittedError):
        input_gradient(LogisticRegression(), X)
    lr = LogisticRegression().fit(X, y)
    with pytest.raises(ValueError, match="features"):
        input_gradient(lr, X[:, :3])
    with pytest.raises(ValueError, match="output must be"):
        input_gradient(lr, X, output="margin")
    with pytest.raises(ValueError, match="needs the labels"):
        input_gradient(lr, X, output="loss")
    with pytest.raises(ValueError, match="not in classes_"):
        input_gradient(lr, X[:2], output="loss", y=["a", "zzz"])
    with pytest.raises(ValueError, match="one label or"):
        input_gradient(lr, X[:3], output="loss", y=y[:2])
    svc = SVC().fit(X, y)
    with pytest.raises(ValueError, match="predict_proba"):
        input_gradient(svc, X, output="proba")
    reg = LinearRegression().fit(*_reg_data())
    with pytest.raises(ValueError, match="predict_proba"):
        input_gradient(reg, X)
    nb = GaussianNB().fit(X, y)
    with pytest.raises(ValueError, match="decision_function"):
        input_gradient(nb, X, output="decision")
    with pytest.raises(TypeError, match="fitted estimator"):
        input_gradient(np.mean, X)


def test_single_label_broadcasts():
    X, y = _clf_data(2)
    lr = LogisticRegression().fit(X, y)
    np.testing.assert_array_equal(
        input_gradient(lr, X[:4], "loss", y="b"),
        input_gradient(lr, X[:4], "loss", y=np.array(["b"] * 4)))
