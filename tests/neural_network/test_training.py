"""The network core's objective and training loop."""

import warnings

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning

from skml.neural_network._activations import ACTIVATIONS
from skml.neural_network._losses import OUTPUTS, squared_loss
from skml.neural_network._modules import (
    Activation,
    BatchNorm,
    Dense,
    LayerNorm,
    Sequential,
)
from skml.neural_network._training import (
    check_finite_parameters,
    loss_gradient,
    train,
    train_lbfgs,
)
from skml.optim import SGD, PlateauStopper, check_gradient


def _mlp(units, activation, norm=None, rng=None, dtype=np.float64):
    layers = []
    for i, width in enumerate(units[1:]):
        layers.append(Dense(width))
        if i < len(units) - 2:
            layers += {"batch": [BatchNorm()], "layer": [LayerNorm()]}.get(norm, [])
            layers.append(Activation(activation))
    return Sequential(layers, (units[0],), dtype, rng=rng)


def _targets(kind, n, rng):
    if kind == "softmax":
        return np.eye(3)[rng.randint(0, 3, n)]
    if kind == "logistic":
        return rng.randint(0, 2, (n, 1)).astype(float)
    if kind == "exp":
        return rng.poisson(2.0, size=(n, 2)).astype(float)
    return rng.normal(size=(n, 2))


@pytest.mark.parametrize("norm", [None, "batch", "layer"])
@pytest.mark.parametrize("kind", list(OUTPUTS))
@pytest.mark.parametrize("activation", ACTIVATIONS)
def test_network_objective_matches_finite_differences(activation, kind, norm):
    rng = np.random.RandomState(0)
    X, Y = rng.normal(size=(7, 4)), _targets(kind, 7, rng)
    sw = rng.uniform(0.5, 2.0, 7)
    net = _mlp([4, 5, 3, Y.shape[1]], activation, norm)
    net.theta[:] = rng.normal(scale=0.7, size=net.theta.size)
    loss = OUTPUTS[kind][0]

    def objective(theta):
        net.theta[:] = theta
        return loss_gradient(net, X, Y, loss, sw, alpha=0.3, update_state=False)

    def gradient(theta):
        objective(theta)
        return net.grad.copy()

    assert check_gradient(objective, gradient, net.theta.copy()) < 1e-6


def test_backprop_of_the_notes_computational_graph():
    # f = (x + y) z at (-2, 5, -4) (notes B §16 item 5) as a network: the
    # hidden unit q = x + y + c (identity, c = 0), the output f = q z.
    net = _mlp([2, 1, 1], "identity")
    net.params[0]["W"][:] = [[1.0], [1.0]]
    net.params[2]["W"][:] = [[-4.0]]
    X = np.array([[-2.0, 5.0]])
    f = net.forward(X)[0, 0]
    assert f == -12.0
    # Target f - 1, so dJ/df = 1 and the gradients are those of f itself.
    loss_gradient(net, X, np.array([[f - 1.0]]), squared_loss)
    assert net.grads[2]["W"][0, 0] == 3.0  # df/dz = q
    assert net.grads[0]["b"][0] == -4.0  # df/dq = df/dx = df/dy = z
    assert_array_equal(net.grads[0]["W"].ravel(), [8.0, -20.0])  # x, y times df/dq
    net.forward(X)
    dX = net.backward(np.ones((1, 1)), input_grad=True)
    assert_array_equal(dX, [[-4.0, -4.0]])


def test_identical_hidden_units_stay_identical():
    # Notes B §6.13: a symmetric start (every hidden unit the same) is never
    # broken by gradient steps, which is why the initialisation is random.
    rng = np.random.RandomState(0)
    X, Y = rng.normal(size=(30, 3)), np.eye(2)[rng.randint(0, 2, 30)]
    net = _mlp([3, 4, 2], "tanh")
    W1, W2 = net.params[0]["W"], net.params[2]["W"]
    W1[:] = rng.normal(size=(3, 1))
    W2[:] = rng.normal(size=(1, 2))
    loss = OUTPUTS["softmax"][0]
    train(net, X, Y, loss, SGD(0.5), epochs=20, batch_size=30, shuffle=False,
          warn=False)
    assert_allclose(W1, W1[:, :1].repeat(4, axis=1))
    assert np.ptp(W1[0]) == 0.0 and np.ptp(W2[:, 0]) == 0.0


def _regression(n=40, seed=0):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, 3))
    return X, (X @ [1.0, -2.0, 0.5])[:, None] + 0.1 * rng.normal(size=(n, 1))


def test_full_batch_loop_is_gradient_descent():
    X, Y = _regression()
    net = _mlp([3, 4, 1], "tanh", rng=np.random.RandomState(0))
    ref = _mlp([3, 4, 1], "tanh", rng=np.random.RandomState(0))
    log = train(net, X, Y, squared_loss, SGD(0.1), epochs=5, batch_size=40,
                alpha=0.01, shuffle=False, warn=False)
    for epoch in range(5):
        value = loss_gradient(ref, X, Y, squared_loss, alpha=0.01)
        assert log.losses[epoch] == pytest.approx(value, rel=1e-12)
        ref.theta -= 0.1 * ref.grad
    assert_allclose(net.theta, ref.theta, rtol=1e-12)
    assert log.n_epochs == 5 and log.n_samples == 200


def test_shuffled_batches_follow_the_rng():
    X, Y = _regression()
    thetas = []
    for seed in (0, 0, 1):
        net = _mlp([3, 4, 1], "relu", rng=np.random.RandomState(0))
        train(net, X, Y, squared_loss, SGD(0.05), epochs=3, batch_size=7,
              rng=np.random.RandomState(seed), warn=False)
        thetas.append(net.theta)
    assert_array_equal(thetas[0], thetas[1])
    assert not np.allclose(thetas[0], thetas[2])


def test_stopper_ends_training_and_convergence_warning_otherwise():
    X, Y = _regression()
    net = _mlp([3, 4, 1], "relu", rng=np.random.RandomState(0))
    stopper = PlateauStopper(2, tol=1e3)  # no epoch improves by 1000
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConvergenceWarning)
        log = train(net, X, Y, squared_loss, SGD(0.01), epochs=50, batch_size=10,
                    rng=np.random.RandomState(0), stopper=stopper)
    assert log.stopped and log.n_epochs == 3
    with pytest.warns(ConvergenceWarning, match=r"maximum iterations \(4\)"):
        train(net, X, Y, squared_loss, SGD(0.01), epochs=4, batch_size=10,
              rng=np.random.RandomState(0), stopper=PlateauStopper(10))


def test_divergence_is_reported_once_and_parameters_refused():
    X, Y = _regression()
    net = _mlp([3, 4, 1], "identity", rng=np.random.RandomState(0))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # overflow in numpy
        with warnings.catch_warnings(record=True) as seen:
            warnings.simplefilter("always", UserWarning)
            log = train(net, 1e150 * X, Y, squared_loss, SGD(1.0), epochs=10,
                        batch_size=40, shuffle=False)
    assert log.diverged and log.n_epochs < 10
    assert not any(issubclass(w.category, ConvergenceWarning) for w in seen)
    with pytest.raises(ValueError, match="non-finite"):
        check_finite_parameters(net)


def test_score_keeps_the_best_parameters():
    X, Y = _regression()
    net = _mlp([3, 4, 1], "tanh", rng=np.random.RandomState(0))
    scores = iter([0.1, 0.5, 0.4, 0.3, 0.2])
    snapshots = []

    def score():
        snapshots.append(net.theta.copy())
        return next(scores)

    log = train(net, X, Y, squared_loss, SGD(0.05), epochs=5, batch_size=8,
                rng=np.random.RandomState(0), score=score,
                stopper=PlateauStopper(3, tol=0.0, mode="max"))
    assert log.stopped and log.scores == [0.1, 0.5, 0.4, 0.3, 0.2]
    assert_array_equal(net.theta, snapshots[1])
    with pytest.raises(ValueError, match="mode"):
        train(net, X, Y, squared_loss, SGD(0.05), epochs=1, batch_size=8,
              shuffle=False, score=score, stopper=PlateauStopper())


def test_hooks_rewrite_batches_and_gradients():
    X, Y = _regression()
    net = _mlp([3, 4, 1], "tanh", rng=np.random.RandomState(0))
    start = net.theta.copy()
    sizes = []

    def batch_hook(Xb, Yb, swb):
        sizes.append(len(Xb))
        return np.vstack([Xb, Xb]), np.vstack([Yb, Yb]), swb  # two views

    def grad_hook(net):
        net.grad[net.n_decayed:] = 0.0  # freeze the intercepts

    train(net, X, Y, squared_loss, SGD(0.05), epochs=2, batch_size=16,
          shuffle=False, batch_hook=batch_hook, grad_hook=grad_hook, warn=False)
    assert sizes == [16, 16, 8] * 2
    assert_array_equal(net.theta[net.n_decayed:], start[net.n_decayed:])
    assert not np.array_equal(net.theta[:net.n_decayed], start[:net.n_decayed])


def test_batch_larger_than_the_data_is_clipped_with_a_warning():
    X, Y = _regression(n=10)
    net = _mlp([3, 2, 1], "relu", rng=np.random.RandomState(0))
    with pytest.warns(UserWarning, match="batch_size=50"):
        log = train(net, X, Y, squared_loss, SGD(0.01), epochs=1, batch_size=50,
                    shuffle=False, warn=False)
    assert log.n_samples == 10


@pytest.mark.filterwarnings("ignore::sklearn.exceptions.ConvergenceWarning")
def test_lbfgs_uses_the_same_objective_and_sets_running_statistics():
    X, Y = _regression()
    net = _mlp([3, 5, 1], "tanh", norm="batch", rng=np.random.RandomState(0))
    before = loss_gradient(net, X, Y, squared_loss, alpha=0.1, update_state=False)
    log, result = train_lbfgs(net, X, Y, squared_loss, alpha=0.1, max_iter=200)
    after = loss_gradient(net, X, Y, squared_loss, alpha=0.1, update_state=False)
    assert after == pytest.approx(result.fun) and after < 0.1 * before
    assert log.losses[-1] == pytest.approx(result.fun)
    Z = X @ net.params[0]["W"] + net.params[0]["b"]
    assert_allclose(net.caches[1]["state"]["var"], Z.var(0, ddof=1))
