"""The notes' sublinear schedules with a free c, and gradient noise (notes B §6.2-6.3)."""

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skml.optim import SGD, Adam, GradientNoise, InverseScaling, InverseTimeDecay


def test_inverse_time_decay_values_at_the_notes_forms():
    lin = InverseTimeDecay(2.0, c=0.25)
    root = InverseTimeDecay(2.0, c=0.25, power=0.5)
    for t in (0, 1, 4, 12, 100):
        assert lin(t) == pytest.approx(2.0 / (1 + 0.25 * t), rel=1e-15)
        assert root(t) == pytest.approx(2.0 / math.sqrt(1 + 0.25 * t), rel=1e-15)
    assert lin(4) == 1.0 and root(12) == 1.0  # halved at t = 1/c and 3/c


@given(eta0=st.floats(1e-6, 1e3), c=st.floats(0, 10), power=st.floats(0, 3),
       t=st.integers(0, 10**6))
def test_inverse_time_decay_is_non_increasing(eta0, c, power, t):
    schedule = InverseTimeDecay(eta0, c=c, power=power)
    assert schedule(t + 1) <= schedule(t) <= eta0


def test_c_one_is_inverse_scaling():
    for p in (0.5, 1.0, 2.0):
        a, b = InverseTimeDecay(0.3, c=1.0, power=p), InverseScaling(0.3, power_t=p)
        assert all(a(t) == pytest.approx(b(t), rel=1e-15) for t in range(50))


@pytest.mark.parametrize("kwargs, match", [
    (dict(eta0=0.0), "eta0"), (dict(eta0=1.0, c=-1.0), "c"),
    (dict(eta0=1.0, power=-0.5), "power"), (dict(eta0=1.0, c=np.inf), "c"),
])
def test_inverse_time_decay_refuses_bad_values(kwargs, match):
    with pytest.raises(ValueError, match=match):
        InverseTimeDecay(**kwargs)


def test_zero_noise_is_the_wrapped_optimiser():
    rng = np.random.RandomState(0)
    grads = [rng.normal(size=5) for _ in range(10)]
    a, b = np.ones(5), np.ones(5)
    plain, noisy = Adam(learning_rate=0.1), GradientNoise(Adam(learning_rate=0.1), eta=0.0)
    for g in grads:
        plain.step(a, g)
        noisy.step(b, g)
    np.testing.assert_array_equal(a, b)
    assert noisy.t == 10


def test_noise_has_the_annealed_variance():
    """SGD with rate 1 from zero on zero gradients: theta moves by minus the
    noise, so each step's moves have variance eta / (1 + t) ** gamma."""
    n = 20000
    opt = GradientNoise(SGD(learning_rate=1.0), eta=0.5, gamma=0.55, random_state=0)
    theta = np.zeros(n)
    previous = theta.copy()
    for t in range(5):
        opt.step(theta, np.zeros(n))
        moves = theta - previous
        previous = theta.copy()
        expected = 0.5 / (1 + t) ** 0.55
        # the sample variance of 20000 normals is within 4% of the truth
        # with probability > 0.999
        assert np.var(moves) == pytest.approx(expected, rel=0.04)
        assert abs(np.mean(moves)) < 4 * math.sqrt(expected / n)


def test_noise_leaves_a_saddle_point_that_gradient_descent_cannot():
    """f(x, y) = x^2 - y^2 has zero gradient at the origin: gradient descent
    stays there forever; with gradient noise it escapes along y."""

    def grad(p):
        return np.array([2 * p[0], -2 * p[1]])

    plain, noisy = np.zeros(2), np.zeros(2)
    gd = SGD(learning_rate=0.05)
    gn = GradientNoise(SGD(learning_rate=0.05), eta=0.01, random_state=0)
    for _ in range(200):
        gd.step(plain, grad(plain))
        gn.step(noisy, grad(noisy))
    assert np.all(plain == 0.0)
    assert abs(noisy[1]) > 1.0 and abs(noisy[0]) < 0.1


def test_same_seed_same_noise_and_reset():
    def run(opt):
        theta = np.zeros(3)
        for _ in range(5):
            opt.step(theta, np.ones(3))
        return theta

    opt = GradientNoise(SGD(learning_rate=0.1), eta=1.0, random_state=3)
    first = run(opt)
    np.testing.assert_array_equal(first, run(GradientNoise(SGD(learning_rate=0.1),
                                                           eta=1.0, random_state=3)))
    np.testing.assert_array_equal(first, run(opt.reset()))


def test_gradient_noise_refuses_bad_arguments():
    with pytest.raises(ValueError, match="optimizer"):
        GradientNoise("adam")
    with pytest.raises(ValueError, match="eta"):
        GradientNoise(SGD(learning_rate=0.1), eta=-1.0)
    with pytest.raises(ValueError, match="gamma"):
        GradientNoise(SGD(learning_rate=0.1), gamma=np.nan)
