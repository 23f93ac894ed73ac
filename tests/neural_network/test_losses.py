"""The network core's losses: values against closed forms, gradients, stability."""

import numpy as np
import pytest
from numpy.testing import assert_allclose
from scipy.special import expit, softmax
from sklearn.metrics import log_loss, mean_poisson_deviance

from skml.neural_network._losses import (
    OUTPUTS,
    logistic_loss,
    poisson_loss,
    softmax_cross_entropy,
    squared_loss,
)
from skml.optim import check_gradient


def _case(name, n=7, k=3, seed=0):
    rng = np.random.RandomState(seed)
    Z = rng.normal(size=(n, k))
    if name == "softmax":
        Y = np.eye(k)[rng.randint(0, k, n)]
    elif name == "logistic":
        Y = rng.randint(0, 2, (n, k)).astype(float)
    elif name == "exp":
        Y = rng.poisson(2.0, (n, k)).astype(float)
    else:
        Y = rng.normal(size=(n, k))
    return Z, Y, rng.uniform(0.5, 2.0, n)


@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("name", list(OUTPUTS))
def test_loss_gradient_matches_finite_differences(name, weighted):
    loss = OUTPUTS[name][0]
    Z, Y, sw = _case(name)
    sw = sw if weighted else None
    error = check_gradient(lambda z: loss(z, Y, sw)[0], lambda z: loss(z, Y, sw)[1], Z)
    assert error < 1e-8


@pytest.mark.parametrize("name", list(OUTPUTS))
def test_gradient_is_the_canonical_residual(name):
    loss, link = OUTPUTS[name]
    Z, Y, sw = _case(name)
    _, D = loss(Z, Y, sw)
    assert_allclose(D, sw[:, None] * (link(Z) - Y) / sw.sum())


def test_values_against_closed_forms():
    Z, Y, sw = _case("softmax")
    assert softmax_cross_entropy(Z, Y, sw)[0] == pytest.approx(
        log_loss(Y.argmax(1), softmax(Z, axis=1), sample_weight=sw, labels=[0, 1, 2])
    )
    Z, Y, sw = _case("logistic", k=1)
    assert logistic_loss(Z, Y, sw)[0] == pytest.approx(
        log_loss(Y[:, 0], expit(Z[:, 0]), sample_weight=sw)
    )
    Z, Y, sw = _case("identity")
    assert squared_loss(Z, Y, sw)[0] == pytest.approx(
        np.average(0.5 * ((Z - Y) ** 2).sum(1), weights=sw)
    )
    # Poisson: e^z - y z is half the deviance minus a term free of z.
    Z, Y, _ = _case("exp", k=1)
    const = np.where(Y > 0, Y * np.log(np.where(Y > 0, Y, 1.0)) - Y, 0.0).mean()
    assert 2 * (poisson_loss(Z, Y)[0] + const) == pytest.approx(
        mean_poisson_deviance(Y[:, 0], np.exp(Z[:, 0]))
    )


def test_saturated_logits_stay_finite():
    Z = np.array([[800.0, -800.0, 0.0], [-800.0, 800.0, 0.0]])
    Y = np.eye(3)[[1, 1]]
    value, D = softmax_cross_entropy(Z, Y)
    assert value == pytest.approx(800.0)  # log p of a hopeless row is -1600 / 2
    assert np.all(np.isfinite(D))
    value, D = logistic_loss(Z[:, :1], np.array([[0.0], [1.0]]))
    assert value == pytest.approx(800.0) and np.all(np.isfinite(D))


def test_label_smoothing_is_the_mixed_target():
    Z, Y, sw = _case("softmax")
    smooth = softmax_cross_entropy(Z, Y, sw, label_smoothing=0.3)
    mixed = softmax_cross_entropy(Z, 0.7 * Y + 0.1, sw)
    assert smooth[0] == pytest.approx(mixed[0])
    assert_allclose(smooth[1], mixed[1])


def test_zero_weights_equal_removal():
    for name, (loss, _) in OUTPUTS.items():
        Z, Y, sw = _case(name)
        sw[:3] = 0.0
        full = loss(Z, Y, sw)
        kept = loss(Z[3:], Y[3:], sw[3:])
        assert full[0] == pytest.approx(kept[0])
        assert_allclose(full[1][3:], kept[1])
        assert np.all(full[1][:3] == 0)
