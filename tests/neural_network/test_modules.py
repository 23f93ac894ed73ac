"""The network core's layers and container: gradients, layout, statistics."""

import numpy as np
import pytest
from numpy.testing import assert_allclose, assert_array_equal

from skml.neural_network._activations import ACTIVATIONS
from skml.neural_network._modules import (
    Activation,
    BatchNorm,
    Dense,
    Dropout,
    LayerNorm,
    Sequential,
)
from skml.optim import SGD, check_gradient

LAYERS = {
    "dense": lambda: Dense(3),
    **{f"activation-{a}": (lambda a=a: Activation(a)) for a in ACTIVATIONS},
    "dropout": lambda: Dropout(0.4),
    "batch_norm": lambda: BatchNorm(),
    "layer_norm": lambda: LayerNorm(),
}


def _probe(layer, training, sample_weight=None, n=6, d=4, seed=0):
    """J = sum(R * layer(X)) with its analytic gradients in theta and in X."""
    rng = np.random.RandomState(seed)
    net = Sequential([layer], (d,), rng=rng)
    net.theta[:] = rng.normal(scale=0.8, size=net.theta.size)
    X = rng.normal(size=(n, d))
    R = rng.normal(size=(n, *net.out_shape))

    def forward(theta, X):
        net.theta[:] = theta
        # A fresh Generator with the same seed: dropout draws the same mask.
        Y = net.forward(X, training, sample_weight=sample_weight,
                        rng=np.random.default_rng(1), update_state=False)
        return float(np.sum(R * Y))

    def grads(theta, X):
        forward(theta, X)
        dX = net.backward(R.copy(), input_grad=True)
        return net.grad.copy(), dX.copy()

    return net, X, forward, grads


@pytest.mark.parametrize("training", [True, False])
@pytest.mark.parametrize("name", list(LAYERS))
def test_every_layer_gradient_matches_finite_differences(name, training):
    net, X, forward, grads = _probe(LAYERS[name](), training)
    theta = net.theta.copy()
    assert check_gradient(lambda x: forward(theta, x), lambda x: grads(theta, x)[1],
                          X) < 1e-7
    if theta.size:
        error = check_gradient(lambda t: forward(t, X), lambda t: grads(t, X)[0],
                               theta)
        assert error < 1e-7


def test_weighted_batch_norm_gradient():
    sw = np.random.RandomState(5).uniform(0.5, 2.0, 6)
    net, X, forward, grads = _probe(BatchNorm(), True, sample_weight=sw)
    theta = net.theta.copy()
    assert check_gradient(lambda x: forward(theta, x),
                          lambda x: grads(theta, x)[1], X) < 1e-7
    assert check_gradient(lambda t: forward(t, X), lambda t: grads(t, X)[0],
                          theta) < 1e-7


def test_flat_layout_weights_first_and_one_step_updates_all():
    layers = [Dense(5), BatchNorm(), Activation("tanh"), Dense(2), LayerNorm()]
    net = Sequential(layers, (3,), rng=np.random.RandomState(0))
    assert net.n_decayed == 3 * 5 + 5 * 2
    assert np.shares_memory(net.params[0]["W"], net.theta[:15])
    assert np.shares_memory(net.params[3]["W"], net.theta[15:25])
    assert net.theta.size == 25 + 5 + 2 * 5 + 2 + 2 * 2
    assert net.state.size == 2 * 5
    assert_array_equal(net.params[1]["gamma"], 1.0)
    assert_array_equal(net.caches[1]["state"]["var"], 1.0)
    X = np.random.RandomState(1).normal(size=(8, 3))
    net.forward(X, training=True)
    net.backward(np.random.RandomState(2).normal(size=(8, 2)))
    before = [p.copy() for params in net.params for p in params.values()]
    SGD(0.1).step(net.theta, net.grad)
    after = [p for params in net.params for p in params.values()]
    assert all(not np.array_equal(a, b) for a, b in zip(before, after))


def test_input_gradient_is_skipped_for_the_first_layer_unless_asked():
    net = Sequential([Dense(4), Activation("relu"), Dense(1)], (3,),
                     rng=np.random.RandomState(0))
    X = np.random.RandomState(1).normal(size=(5, 3))
    net.forward(X, training=True)
    assert net.backward(np.ones((5, 1))) is None
    net.forward(X, training=True)
    grad = net.grad.copy()
    dX = net.backward(np.ones((5, 1)), input_grad=True)
    assert dX.shape == X.shape
    assert_array_equal(net.grad, grad)


def test_dense_initialisation_draws_scikit_learns_order():
    net = Sequential([Dense(4, init_bound=0.3), Dense(2)], (3,),
                     rng=np.random.RandomState(7))
    rng = np.random.RandomState(7)
    W1, b1 = rng.uniform(-0.3, 0.3, (3, 4)), rng.uniform(-0.3, 0.3, 4)
    bound = np.sqrt(6 / 6)
    W2, b2 = rng.uniform(-bound, bound, (4, 2)), rng.uniform(-bound, bound, 2)
    for got, want in zip(
        [net.params[0]["W"], net.params[0]["b"], net.params[1]["W"],
         net.params[1]["b"]], [W1, b1, W2, b2],
    ):
        assert_array_equal(got, want)


def test_inverted_dropout_keeps_the_expected_activation():
    X = np.abs(np.random.RandomState(2).normal(size=(500, 400)))
    net = Sequential([Dropout(0.4)], (400,))
    Y = net.forward(X, training=True, rng=np.random.default_rng(0))
    kept = Y != 0
    assert abs(kept.mean() - 0.6) < 0.01
    assert_allclose(Y[kept], X[kept] / 0.6)
    diff = Y - X  # E[x m / q] = x, within 5 standard errors
    assert abs(diff.mean()) < 5 * diff.std() / np.sqrt(diff.size)
    assert_array_equal(net.forward(X), X)  # off outside training


def test_batch_norm_statistics_and_running_average():
    rng = np.random.RandomState(0)
    net = Sequential([BatchNorm(momentum=0.1)], (3,))
    net.theta[:] = rng.normal(size=net.theta.size)
    gamma, beta = net.params[0]["gamma"], net.params[0]["beta"]
    Z = rng.normal(loc=2.0, size=(64, 3))
    Y = net.forward(Z, training=True)
    assert_allclose(Y.mean(0), beta, atol=1e-12)
    assert_allclose(Y.std(0), np.abs(gamma) * Z.std(0) / np.sqrt(Z.var(0) + 1e-5))
    state = net.caches[0]["state"]
    # PyTorch: running = 0.9 running + 0.1 batch, with the unbiased variance.
    assert_allclose(state["mean"], 0.1 * Z.mean(0))
    assert_allclose(state["var"], 0.9 + 0.1 * Z.var(0, ddof=1))
    net.forward(Z, training=True, update_state=1.0)
    assert_allclose(state["var"], Z.var(0, ddof=1))
    one = net.forward(Z[:1])  # running statistics: a single row works
    assert_allclose(one, gamma * (Z[:1] - state["mean"]) / np.sqrt(state["var"] + 1e-5)
                    + beta)


def test_weighted_batch_norm_equals_repeated_rows():
    rng = np.random.RandomState(0)
    Z, w = rng.normal(size=(10, 3)), rng.randint(1, 4, 10)
    a, b = Sequential([BatchNorm()], (3,)), Sequential([BatchNorm()], (3,))
    ya = a.forward(Z, training=True, sample_weight=w.astype(float))
    yb = b.forward(Z.repeat(w, axis=0), training=True)
    assert_allclose(ya, yb[np.cumsum(w) - 1])
    assert_allclose(a.state, b.state)


def test_layer_norm_normalises_each_row():
    X = np.random.RandomState(0).normal(loc=3.0, scale=2.0, size=(5, 6))
    Y = Sequential([LayerNorm(eps=0.0)], (6,)).forward(X)
    assert_allclose(Y.mean(1), 0.0, atol=1e-12)
    assert_allclose(Y.std(1), 1.0)


def test_float32_network_keeps_its_dtype():
    net = Sequential([Dense(4), Activation("tanh"), Dense(2)], (3,), np.float32,
                     rng=np.random.RandomState(0))
    Y = net.forward(np.ones((2, 3)))  # float64 input is cast
    assert Y.dtype == net.theta.dtype == np.float32
    assert net.backward(np.ones((2, 2), np.float32), True).dtype == np.float32
