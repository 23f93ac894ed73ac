"""Update formulas of notes B §6.1-6.10, against hand computations and references."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from hypothesis.extra.numpy import arrays

from skml.optim import (
    SGD,
    AdaBelief,
    AdaDelta,
    AdaGrad,
    Adam,
    Momentum,
    Nesterov,
    RMSProp,
    StepDecay,
)

# Zero or of moderate size: squares of subnormal gradients underflow, which is
# numerics, not the update rule.
moderate = st.one_of(st.just(0.0), st.floats(1e-3, 10.0), st.floats(-10.0, -1e-3))
gradient_vectors = arrays(np.float64, 4, elements=moderate)


def _run(opt, grads, theta0):
    """Iterates of ``opt`` fed a fixed gradient sequence (independent of theta)."""
    theta = np.array(theta0, dtype=float)
    out = []
    for g in grads:
        opt.step([theta], [np.asarray(g, dtype=float)])
        out.append(theta.copy())
    return np.array(out)


def _random_grads(n_steps=20, size=5, seed=0):
    return np.random.default_rng(seed).standard_normal((n_steps, size))


# --- Plain references, written straight from the formulas (no in-place tricks). ---


def _reference_adam(grads, theta, lr, b1, b2, eps, bias_correction, eps_inside, belief):
    m = v = 0.0
    out = []
    for t, g in enumerate(grads, start=1):
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * ((g - m) ** 2 if belief else g**2)
        m_hat, v_hat = (m / (1 - b1**t), v / (1 - b2**t)) if bias_correction else (m, v)
        denom = np.sqrt(v_hat + eps) if eps_inside else np.sqrt(v_hat) + eps
        theta = theta - lr * m_hat / denom
        out.append(theta)
    return np.array(out)


def _reference_adadelta(grads, theta, lr, rho, eps):
    Eg = Ed = 0.0
    out = []
    for g in grads:
        Eg = rho * Eg + (1 - rho) * g**2
        d = np.sqrt(Ed + eps) / np.sqrt(Eg + eps) * g
        Ed = rho * Ed + (1 - rho) * d**2
        theta = theta - lr * d
        out.append(theta)
    return np.array(out)


def _reference_rmsprop(grads, theta, lr, rho, eps):
    u = 0.0
    out = []
    for g in grads:
        u = rho * u + (1 - rho) * g**2
        theta = theta - lr * g / (np.sqrt(u) + eps)
        out.append(theta)
    return np.array(out)


# --- §6.1-6.2 gradient descent ---------------------------------------------------


def test_sgd_step_and_schedule():
    lr = StepDecay(0.5, milestones=(0,))
    iterates = _run(SGD(lr), [[2.0], [2.0], [2.0]], [1.0])
    np.testing.assert_allclose(iterates.ravel(), [0.0, -0.1, -0.2])


def test_gd_convergence_theorems_on_a_quadratic():
    """Notes B §6.1: O(1/k) bound and descent lemma at t = 1/L; divergence past 2/L."""
    rng = np.random.default_rng(3)
    Q, _ = np.linalg.qr(rng.standard_normal((4, 4)))
    A = Q @ np.diag([0.5, 1.0, 4.0, 10.0]) @ Q.T
    b = rng.standard_normal(4)
    x_star = np.linalg.solve(A, b)

    def f(x):
        return 0.5 * x @ A @ x - b @ x

    L, m = 10.0, 0.5
    x0 = np.zeros(4)
    x, opt = x0.copy(), SGD(1 / L)
    for k in range(1, 101):
        g = A @ x - b
        f_before = f(x)
        opt.step([x], [g])
        assert f(x) <= f_before - (1 / L) / 2 * (g @ g) + 1e-12  # descent lemma
        assert f(x) - f(x_star) <= (x0 - x_star) @ (x0 - x_star) * L / (2 * k) + 1e-12

    # strongly convex: at t = 2/(m+L) the error contracts by (kappa-1)/(kappa+1)
    kappa = L / m
    x, opt = x0.copy(), SGD(2 / (m + L))
    for _ in range(30):
        err = np.linalg.norm(x - x_star)
        opt.step([x], [A @ x - b])
        assert np.linalg.norm(x - x_star) <= (kappa - 1) / (kappa + 1) * err + 1e-12

    x, opt = x0.copy(), SGD(2.1 / L)
    for _ in range(200):
        opt.step([x], [A @ x - b])
    assert np.linalg.norm(x - x_star) > 1e3


# --- §6.7-6.8 momentum -------------------------------------------------------------


@given(st.floats(1e-4, 1.0), st.lists(gradient_vectors, min_size=1, max_size=8))
def test_momentum_with_zero_momentum_is_gradient_descent(lr, grads):
    theta0 = np.linspace(-1, 1, 4)
    np.testing.assert_array_equal(
        _run(Momentum(lr, momentum=0.0), grads, theta0), _run(SGD(lr), grads, theta0)
    )


def test_momentum_matches_the_torch_buffer_form():
    """torch.optim.SGD(momentum): buf = rho buf + g; theta -= lr buf (buf = v / lr)."""
    grads, lr, rho = _random_grads(), 0.05, 0.8
    theta, buf, expected = np.ones(5), np.zeros(5), []
    for g in grads:
        buf = rho * buf + g
        theta = theta - lr * buf
        expected.append(theta)
    np.testing.assert_allclose(_run(Momentum(lr, rho), grads, np.ones(5)), expected)


def test_nesterov_tracks_the_lookahead_point_of_the_sutskever_form():
    """Reference: v = rho v + lr grad(theta - rho v); theta -= v.

    The optimiser stores the look-ahead point phi = theta - rho v.
    """
    A = np.diag([1.0, 20.0])
    b = np.array([1.0, -1.0])
    lr, rho = 0.04, 0.9

    theta, v = np.array([3.0, 2.0]), np.zeros(2)
    phi, opt = theta.copy(), Nesterov(lr, rho)
    for _ in range(60):
        v = rho * v + lr * (A @ (theta - rho * v) - b)
        theta = theta - v
        opt.step([phi], [A @ phi - b])  # gradient at the optimiser's own iterate
        np.testing.assert_allclose(phi, theta - rho * v, rtol=1e-12, atol=1e-12)


def test_nesterov_is_not_slower_than_heavy_ball_here():
    A, b = np.diag([1.0, 50.0]), np.array([1.0, 1.0])
    x_star = np.linalg.solve(A, b)
    errors = {}
    for cls in (Momentum, Nesterov):
        x, opt = np.zeros(2), cls(1 / 50, momentum=0.9)
        for _ in range(150):
            opt.step([x], [A @ x - b])
        errors[cls] = np.linalg.norm(x - x_star)
    assert errors[Nesterov] <= errors[Momentum]


def test_momentum_and_nesterov_match_sklearn_mlp_optimizer():
    stochastic = pytest.importorskip("sklearn.neural_network._stochastic_optimizers")
    grads = _random_grads()
    for cls, nesterov in [(Momentum, False), (Nesterov, True)]:
        theta = np.ones(5)
        ref = stochastic.SGDOptimizer(
            [theta], learning_rate_init=0.05, momentum=0.8, nesterov=nesterov
        )
        expected = []
        for g in grads:
            ref.update_params([theta], [g])
            expected.append(theta.copy())
        got = _run(cls(0.05, momentum=0.8), grads, np.ones(5))
        np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-14)


# --- §6.4 AdaGrad ------------------------------------------------------------------


@given(st.floats(1e-3, 1.0), st.floats(-5, 5).filter(lambda x: abs(x) > 1e-3))
def test_adagrad_first_step_has_length_alpha(lr, x0):
    x = np.array([x0])
    AdaGrad(lr, eps=0.0).step([x], [2.0 * x])  # f = x^2
    assert abs(x[0] - x0) == pytest.approx(lr, rel=1e-12)


def test_adagrad_matches_the_notes_two_forms_and_shrinks_its_steps():
    """alpha^t / sigma^t with alpha^t = alpha/sqrt(t+1), sigma^t = RMS of past g."""
    grads, lr = _random_grads(), 0.3
    theta, history, expected = np.ones(5), [], []
    for t, g in enumerate(grads):
        history.append(g)
        alpha_t = lr / np.sqrt(t + 1)
        sigma_t = np.sqrt(np.mean(np.square(history), axis=0))
        theta = theta - alpha_t / sigma_t * g
        expected.append(theta)
    got = _run(AdaGrad(lr, eps=0.0), grads, np.ones(5))
    np.testing.assert_allclose(got, expected, rtol=1e-12, atol=1e-12)

    opt, x = AdaGrad(lr, eps=0.0), np.ones(5)
    effective = []
    for g in grads:
        opt.step([x], [g])
        effective.append(lr / np.sqrt(opt.state[0][0]))
    assert np.all(np.diff(effective, axis=0) <= 0)


# --- §6.5 RMSProp / §6.6 AdaDelta --------------------------------------------------


@given(st.floats(1e-3, 1.0), st.floats(0.0, 0.99), gradient_vectors)
def test_rmsprop_first_step_is_alpha_over_sqrt_one_minus_rho(lr, rho, g):
    x = np.zeros(4)
    RMSProp(lr, rho=rho, eps=0.0).step([x], [g])
    expected = np.where(g != 0, -np.sign(g) * lr / np.sqrt(1 - rho), 0.0)
    np.testing.assert_allclose(x, expected, rtol=1e-12)


@pytest.mark.parametrize("eps", [0.0, 1e-8, 0.1])
def test_rmsprop_matches_reference(eps):
    grads = _random_grads()
    np.testing.assert_allclose(
        _run(RMSProp(0.01, rho=0.7, eps=eps), grads, np.ones(5)),
        _reference_rmsprop(grads, np.ones(5), 0.01, 0.7, eps),
        rtol=1e-12,
    )


@pytest.mark.parametrize("lr, rho, eps", [(1.0, 0.95, 1e-6), (0.5, 0.0, 1e-2)])
def test_adadelta_matches_zeiler_reference(lr, rho, eps):
    grads = _random_grads()
    np.testing.assert_allclose(
        _run(AdaDelta(lr, rho=rho, eps=eps), grads, np.ones(5)),
        _reference_adadelta(grads, np.ones(5), lr, rho, eps),
        rtol=1e-12,
    )


# --- §6.9 Adam / §6.10 AdaBelief ---------------------------------------------------


@pytest.mark.parametrize("cls, belief", [(Adam, False), (AdaBelief, True)])
@pytest.mark.parametrize("bias_correction", [True, False])
@pytest.mark.parametrize("eps_inside", [True, False])
@pytest.mark.parametrize("eps", [0.0, 1e-8, 0.5])
def test_adam_family_matches_reference(cls, belief, bias_correction, eps_inside, eps):
    grads = _random_grads()
    opt = cls(0.01, beta1=0.8, beta2=0.99, eps=eps, bias_correction=bias_correction,
              eps_inside_sqrt=eps_inside)
    np.testing.assert_allclose(
        _run(opt, grads, np.ones(5)),
        _reference_adam(grads, np.ones(5), 0.01, 0.8, 0.99, eps, bias_correction,
                        eps_inside, belief),
        rtol=1e-12,
    )


@given(st.floats(1e-4, 1.0), gradient_vectors.filter(lambda g: np.all(g != 0)))
def test_adam_first_step_with_and_without_bias_correction(lr, g):
    x = np.zeros(4)
    Adam(lr).step([x], [g])
    np.testing.assert_allclose(x, -lr * np.sign(g), rtol=1e-5)  # eps=1e-8 against |g|

    expected = lr * (1 - 0.9) / np.sqrt(1 - 0.999)  # ~3.16 alpha
    x = np.zeros(4)
    Adam(lr, eps=0.0, bias_correction=False, eps_inside_sqrt=True).step([x], [g])
    np.testing.assert_allclose(x, -expected * np.sign(g), rtol=1e-12)
    x = np.zeros(4)  # the notes' literal step, eps = 1e-8 inside the root
    Adam(lr, bias_correction=False, eps_inside_sqrt=True).step([x], [g])
    literal = -lr * 0.1 * g / np.sqrt(0.001 * g**2 + 1e-8)
    np.testing.assert_allclose(x, literal, rtol=1e-12)


def test_adam_matches_sklearn_mlp_optimizer_without_eps():
    """sklearn folds the bias correction into the rate; identical once eps = 0."""
    stochastic = pytest.importorskip("sklearn.neural_network._stochastic_optimizers")
    grads, theta = _random_grads(), np.ones(5)
    ref = stochastic.AdamOptimizer([theta], learning_rate_init=0.01, epsilon=0.0)
    expected = []
    for g in grads:
        ref.update_params([theta], [g])
        expected.append(theta.copy())
    np.testing.assert_allclose(_run(Adam(0.01, eps=0.0), grads, np.ones(5)), expected,
                               rtol=1e-12)


@pytest.mark.parametrize("cls", [AdaGrad, RMSProp, Adam, AdaBelief])
@given(c=st.floats(1e-3, 1e3), grads=st.lists(gradient_vectors, min_size=1, max_size=6))
def test_adaptive_steps_ignore_the_gradient_scale(cls, c, grads):
    """With eps = 0, scaling every gradient by c > 0 leaves the iterates unchanged."""
    theta0 = np.linspace(-1, 1, 4)
    np.testing.assert_allclose(
        _run(cls(0.1, eps=0.0), [c * g for g in grads], theta0),
        _run(cls(0.1, eps=0.0), grads, theta0),
        rtol=1e-9, atol=1e-12,
    )


def test_adabelief_takes_growing_steps_when_gradients_agree():
    """Belief property: constant g makes (g - m)^2 vanish, so steps grow past alpha."""
    opt, x, lr = AdaBelief(0.01), np.zeros(1), 0.01
    steps = []
    for _ in range(30):
        before = x[0]
        opt.step([x], [np.ones(1)])
        steps.append(before - x[0])
    assert steps[0] == pytest.approx(lr / 0.9, rel=1e-6)  # eps=1e-8 vs sqrt(s)=0.09
    assert np.all(np.diff(steps) > 0) and steps[-1] > 2 * lr

    adam_x, adam = np.zeros(1), Adam(lr)
    for _ in range(30):
        adam.step([adam_x], [np.ones(1)])
    assert adam_x[0] == pytest.approx(-30 * lr, rel=1e-6)  # Adam: alpha per step
