"""The notes' activations and initialisation (B §7.2, §6.13): ELU, PReLU, N(0, 0.01^2)."""

import warnings

import numpy as np
import pytest
from sklearn.datasets import load_iris
from sklearn.exceptions import ConvergenceWarning

from skml.neural_network import MLPClassifier, MLPRegressor
from skml.neural_network._activations import activate, multiply_derivative
from skml.neural_network._modules import Activation, Dense, Sequential
from skml.neural_network._prelu import NormalDense, PReLU
from skml.optim import check_gradient


def test_elu_values_and_continuity():
    # D1 §9.3 read as catalogue B §7.2: z for z > 0, e^z - 1 otherwise.
    z = np.array([-30.0, -1.0, -1e-12, 0.0, 1e-12, 0.5, 700.0])
    a = activate("elu", z.copy())
    np.testing.assert_allclose(a, np.where(z > 0, z, np.expm1(z)), rtol=1e-15)
    # continuous at 0 from both sides, derivative 1 there
    assert abs(activate("elu", np.array([-1e-9]))[0]) < 2e-9
    np.testing.assert_allclose(activate("elu", np.array([-1.0]))[0], np.exp(-1) - 1)


def test_elu_derivative_matches_finite_differences():
    z = np.linspace(-3, 3, 13) + 0.05  # away from the kink at 0
    h = 1e-6
    fd = (activate("elu", z + h, out=np.empty_like(z))
          - activate("elu", z - h, out=np.empty_like(z))) / (2 * h)
    d = multiply_derivative("elu", activate("elu", z.copy()), np.ones_like(z))
    np.testing.assert_allclose(d, fd, rtol=1e-6, atol=1e-8)


def _errors(layers, seed=0):
    rng = np.random.default_rng(seed)
    net = Sequential(layers, (4,), rng=np.random.RandomState(seed))
    X = rng.normal(size=(5, 4))
    R = rng.normal(size=(5, *net.out_shape))

    def f(theta):
        net.theta[:] = theta
        return float(np.sum(net.forward(X, training=True) * R))

    def g(theta):
        net.theta[:] = theta
        net.forward(X, training=True)
        net.backward(R.copy())
        return net.grad.copy()

    return check_gradient(f, g, net.theta.copy())


@pytest.mark.parametrize("layers", [
    [Dense(3), Activation("elu"), Dense(2)],
    [Dense(3), PReLU(0.1), Dense(2)],
    [Dense(3), PReLU(-0.3), Dense(2)],
])
def test_backprop_gradients(layers):
    assert _errors(layers) < 1e-6


def test_prelu_learns_its_slope_and_matches_leaky_relu_at_start():
    X, y = load_iris(return_X_y=True)
    kw = {"hidden_layer_sizes": (8,), "solver": "sgd", "learning_rate_init": 0.05,
          "random_state": 0, "max_iter": 30}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        prelu = MLPClassifier(activation="prelu", **kw).fit(X, y)
        first = MLPClassifier(activation="prelu", **{**kw, "max_iter": 1}).fit(X, y)
        leaky = MLPClassifier(activation="leaky_relu", **{**kw, "max_iter": 1}).fit(X, y)
    assert len(prelu.prelu_slopes_) == 1 and prelu.prelu_slopes_[0].shape == (8,)
    # the slopes move away from their start, the notes' leaky slope 0.1
    assert np.max(np.abs(prelu.prelu_slopes_[0] - 0.1)) > 1e-4
    assert prelu.score(X, y) > 0.9
    # with a = 0.1 the first epoch's forward pass is leaky ReLU's: after one
    # epoch the two nets differ only through the slopes' own updates
    np.testing.assert_allclose(first.coefs_[0], leaky.coefs_[0], atol=0.05)


def test_normal_initialisation_is_n_0_001():
    # Notes B §6.13: weights N(0, 0.01^2); intercepts 0.
    net = Sequential([NormalDense(400)], (300,), rng=np.random.RandomState(0))
    reg = MLPRegressor(hidden_layer_sizes=(400,), init="normal", max_iter=1, random_state=0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg.partial_fit(np.zeros((2, 300)), np.zeros(2))
    W = net.theta[: 300 * 400]
    assert abs(W.mean()) < 1e-4 and abs(W.std() - 0.01) < 2e-4
    assert reg.coefs_[0].shape == (300, 400)


def test_normal_init_breaks_symmetry_and_fits_small_data():
    # B §6.13: random (not zero) initial weights let the units differ; the
    # network overfits 10 random points.
    rng = np.random.RandomState(0)
    X, y = rng.randn(10, 3), rng.randn(10)
    reg = MLPRegressor(hidden_layer_sizes=(30,), init="normal", solver="lbfgs", max_iter=2000,
                       tol=1e-12, random_state=0).fit(X, y)
    assert np.linalg.matrix_rank(reg.coefs_[0]) == 3
    assert reg.score(X, y) > 0.99


@pytest.mark.parametrize("activation", ["elu", "prelu"])
def test_new_activations_fit(activation):
    X, y = load_iris(return_X_y=True)
    clf = MLPClassifier((10,), activation=activation, solver="lbfgs", max_iter=300,
                        random_state=0).fit(X, y)
    assert clf.score(X, y) > 0.95
