"""ProxylessNASClassifier: the mixed operation, the gate and architecture gradients."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.datasets import load_digits, make_circles
from sklearn.model_selection import train_test_split
from sklearn.neural_network import MLPClassifier as SkMLPClassifier

from skml.neural_network import MLPClassifier, ProxylessNASClassifier
from skml.neural_network._modules import Activation, Dense, Sequential
from skml.neural_network._nas import _softmax, architecture_gradient
from skml.neural_network._nas_modules import MixedBlock
from skml.optim import check_gradient

from .._parity import parity_test


def _block_net(active, d=3, seed=0):
    chains = [[Dense(4), Activation("tanh"), Dense(d)],
              [Dense(2), Activation("relu"), Dense(d)],
              []]
    block = MixedBlock(chains)
    block.active = active
    net = Sequential([block], (d,), rng=np.random.RandomState(seed))
    return net, block


@pytest.mark.parametrize("active", [0, 1, 2])
def test_mixed_block_gradients_match_finite_differences(active):
    net, _ = _block_net(active)
    X = np.random.RandomState(1).normal(size=(5, 3))
    target = np.random.RandomState(2).normal(size=(5, 3))

    def f_theta(theta):
        net.theta[:] = theta
        return 0.5 * float(np.sum((net.forward(X, True) - target) ** 2))

    def g_theta(theta):
        net.theta[:] = theta
        net.backward(net.forward(X, True) - target)
        return net.grad.copy()

    def f_x(x):
        return 0.5 * float(np.sum((net.forward(x.reshape(X.shape), True) - target) ** 2))

    def g_x(x):
        out = net.forward(x.reshape(X.shape), True)
        return net.backward(out - target, input_grad=True).ravel().copy()

    theta = net.theta.copy()
    assert check_gradient(f_theta, g_theta, theta) < 1e-6
    net.theta[:] = theta
    assert check_gradient(f_x, g_x, X.ravel()) < 1e-6


def test_zero_operation_and_zero_weights_are_the_identity():
    net, _ = _block_net(2)
    X = np.random.RandomState(3).normal(size=(4, 3))
    np.testing.assert_array_equal(net.forward(X), X)
    net, _ = _block_net(0)
    net.theta[:] = 0.0
    np.testing.assert_array_equal(net.forward(X), X)


@pytest.mark.parametrize("active", [0, 1, 2])
def test_gate_gradients_are_derivatives_of_the_relaxed_mixture(active):
    """dL/dg_j at the one-hot gates equals the derivative of the loss of
    Y = X + sum_j g_j o_j(X) along g_j, for every path, active or not."""
    net, block = _block_net(active)
    X = np.random.RandomState(4).normal(size=(6, 3))
    target = np.random.RandomState(5).normal(size=(6, 3))
    block.save_output_grad = True
    net.backward(net.forward(X, True) - target)
    gates = block.gate_gradients(net.params[0], net.caches[0])
    outputs = []
    for j in range(3):
        block.active = j
        outputs.append(net.forward(X, True) - X)

    def loss(g):
        Y = X + sum(gj * o for gj, o in zip(g, outputs))
        return 0.5 * float(np.sum((Y - target) ** 2))

    one_hot = np.eye(3)[active]
    assert check_gradient(loss, lambda g: gates, one_hot) < 1e-6


@settings(max_examples=50, deadline=None)
@given(
    logits=st.lists(st.floats(-3, 3), min_size=2, max_size=6),
    seed=st.integers(0, 2**31 - 1),
)
def test_architecture_gradient_is_exact_for_a_loss_linear_in_the_gates(logits,
                                                                        seed):
    """The notes' estimator (with dp_j/dalpha_i): for L(g) = sum_j c_j g_j it
    equals the gradient of the expected loss sum_j p_j(alpha) c_j."""
    alpha = np.array(logits)
    c = np.random.RandomState(seed).normal(size=alpha.size)
    expected_loss = lambda a: float(_softmax(a) @ c)  # noqa: E731
    estimate = architecture_gradient(c, _softmax(alpha))
    assert check_gradient(expected_loss, lambda a: estimate, alpha) < 1e-6
    # the probabilities' gradient always sums to zero
    assert abs(estimate.sum()) < 1e-12


def test_search_prefers_the_nonlinear_operation_on_circles():
    """A nonlinear path separates the circles; the linear stream alone (the
    zero operation) or an identity-activation path cannot."""
    X, y = make_circles(600, noise=0.05, factor=0.4, random_state=0)
    nas = ProxylessNASClassifier(
        n_blocks=1, block_width=8, widths=(16,), activations=("relu", "identity"),
        search_epochs=40, warmup_epochs=5, arch_learning_rate=0.05,
        learning_rate_init=0.01, max_iter=100, batch_size=50, random_state=0,
    ).fit(X, y)
    probs = nas.architecture_probabilities_[0]
    relu = nas.candidates_.index({"width": 16, "activation": "relu"})
    assert nas.best_architecture_ == [{"width": 16, "activation": "relu"}]
    assert probs[relu] > 0.5
    assert nas.score(X, y) > 0.95


@parity_test(ProxylessNASClassifier)
def test_found_network_matches_a_scikit_learn_mlp_on_digits():
    """The searched network reaches a dense network's held-out accuracy
    (scikit-learn's MLP of the same width as the stream, same epochs)."""
    X, y = load_digits(return_X_y=True)
    X = X / 16.0
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, random_state=0, stratify=y)
    nas = ProxylessNASClassifier(n_blocks=2, block_width=32, widths=(16, 32),
                                 search_epochs=15, max_iter=60,
                                 learning_rate_init=3e-3, random_state=0)
    nas.fit(X_tr, y_tr)
    ref = SkMLPClassifier((32,), max_iter=60, learning_rate_init=3e-3,
                          random_state=0).fit(X_tr, y_tr)
    assert nas.score(X_te, y_te) >= ref.score(X_te, y_te) - 0.03
    assert len(nas.best_architecture_) == 2
    assert nas.coefs_[0].shape == (64, 32)


def test_a_given_architecture_skips_the_search():
    X, y = load_digits(return_X_y=True)
    X = X[:300] / 16.0
    y = y[:300]
    arch = [{"width": 16, "activation": "tanh"}, {"op": "zero"}]
    nas = ProxylessNASClassifier(n_blocks=2, block_width=16, widths=(16,),
                                 architecture=arch, max_iter=20,
                                 random_state=0).fit(X, y)
    assert nas.best_architecture_ == arch
    assert not hasattr(nas, "search_loss_curve_")
    # stem, one block (two dense layers), output
    assert [W.shape for W in nas.coefs_] == [(64, 16), (16, 16), (16, 16), (16, 10)]
    by_index = ProxylessNASClassifier(
        n_blocks=2, block_width=16, widths=(16,),
        architecture=[nas.candidates_.index(a) for a in arch], max_iter=20,
        random_state=0).fit(X, y)
    np.testing.assert_array_equal(by_index.predict_proba(X), nas.predict_proba(X))
    # partial_fit continues a given architecture
    stream = ProxylessNASClassifier(n_blocks=2, block_width=16, widths=(16,),
                                    architecture=arch, random_state=0)
    stream.partial_fit(X, y, classes=np.arange(10)).partial_fit(X, y)
    assert stream.n_iter_ == 2


def test_same_seed_same_search():
    X, y = make_circles(200, noise=0.05, factor=0.4, random_state=1)
    params = dict(n_blocks=1, block_width=8, widths=(8,), search_epochs=5,
                  max_iter=10, random_state=3)
    a = ProxylessNASClassifier(**params).fit(X, y)
    b = ProxylessNASClassifier(**params).fit(X, y)
    np.testing.assert_array_equal(a.architecture_logits_, b.architecture_logits_)
    np.testing.assert_array_equal(a.predict_proba(X), b.predict_proba(X))


@pytest.mark.parametrize(
    "params, match",
    [
        (dict(widths=(0, 8)), "widths"),
        (dict(activations=("relu", "swish")), "activations"),
        (dict(architecture=[0]), "one per block"),
        (dict(architecture=[0, 99]), "index"),
        (dict(architecture=[0, {"width": 3, "activation": "relu"}]), "not a candidate"),
        (dict(search_epochs=0), "search_epochs"),
    ],
)
def test_bad_parameters_are_refused_clearly(params, match):
    X = np.random.RandomState(0).normal(size=(20, 3))
    y = np.arange(20) % 2
    with pytest.raises(ValueError, match=match):
        ProxylessNASClassifier(max_iter=2, **params).fit(X, y)


def test_partial_fit_needs_an_architecture():
    X = np.random.RandomState(0).normal(size=(20, 3))
    y = np.arange(20) % 2
    assert not hasattr(ProxylessNASClassifier(), "partial_fit")
    assert not hasattr(ProxylessNASClassifier(architecture=[0, 0], solver="lbfgs"),
                       "partial_fit")
    assert hasattr(ProxylessNASClassifier(architecture=[0, 0]), "partial_fit")
    fitted = ProxylessNASClassifier(n_blocks=1, widths=(4,), search_epochs=2,
                                    max_iter=2).fit(X, y)
    assert not hasattr(fitted, "partial_fit")  # warm_start and fit continue it


def test_mlp_is_untouched_by_the_block_layer():
    # MixedBlock lives in its own module; the MLP's network has none.
    clf = MLPClassifier((4,), max_iter=5, random_state=0).fit(
        np.random.RandomState(0).normal(size=(20, 3)), np.arange(20) % 2)
    assert not any(isinstance(layer, MixedBlock)
                   for layer in clf._network(np.float64).layers)
