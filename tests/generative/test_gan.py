"""GAN: the notes' analysis of the game (B §7.7) and the estimator around it."""

import numpy as np
import pytest
from scipy.optimize import check_grad
from scipy.stats import norm
from sklearn.datasets import make_moons

from skml.generative import GAN, gan_value_at_optimum, optimal_discriminator
from skml.generative._gan import _generator_step_gradient, _mlp
from tests._parity import parity_test

LOG4 = np.log(4.0)


def _energy(A, B):
    from scipy.spatial.distance import cdist

    return 2 * cdist(A, B).mean() - cdist(A, A).mean() - cdist(B, B).mean()


def _kl(p, q, dx):
    keep = p > 0
    return float(np.sum(p[keep] * np.log(p[keep] / q[keep])) * dx)


# ------------------------------------------------------------- the analysis


def test_optimal_discriminator_on_known_densities():
    x = np.linspace(-4, 4, 81)
    p_data, p_g = norm.pdf(x, 1.0, 1.0), norm.pdf(x, -1.0, 1.0)
    D = optimal_discriminator(p_data, p_g)
    # Two unit Gaussians at +-1: D* = 1 / (1 + e^{-2x}), the logistic of 2x.
    np.testing.assert_allclose(D, 1.0 / (1.0 + np.exp(-2.0 * x)), rtol=1e-12)
    np.testing.assert_allclose(optimal_discriminator(p_data, p_data), 0.5)
    # Outside p_g's support D* = 1, outside p_data's 0; nowhere: 1/2.
    assert optimal_discriminator([0.2, 0.0, 0.0], [0.0, 0.3, 0.0]).tolist() == [
        1.0, 0.0, 0.5]


def test_value_at_the_optimum_is_minus_log_4_when_the_generator_is_exact():
    # The notes' worked number: -log 4 = -1.386294.
    p = np.array([0.1, 0.2, 0.3, 0.4])
    assert gan_value_at_optimum(p, p) == pytest.approx(-1.386294, abs=1e-6)
    x, dx = np.linspace(-25, 25, 5001, retstep=True)
    f = norm.pdf(x, 0.5, 2.0)
    assert gan_value_at_optimum(f, f, dx=dx) == pytest.approx(-LOG4, abs=1e-9)


def test_value_at_the_optimum_is_minus_log_4_plus_twice_the_jsd():
    x, dx = np.linspace(-12, 12, 24001, retstep=True)
    p_data, p_g = norm.pdf(x, 0.0, 1.0), norm.pdf(x, 1.5, 0.7)
    mix = 0.5 * (p_data + p_g)
    jsd = 0.5 * _kl(p_data, mix, dx) + 0.5 * _kl(p_g, mix, dx)
    value = gan_value_at_optimum(p_data, p_g, dx=dx)
    assert value == pytest.approx(-LOG4 + 2.0 * jsd, abs=1e-10)
    assert value > -LOG4 + 0.1  # different densities: above the optimum
    # The same through V(G, D) written with D = D* (the definition of V).
    # (1 - D* written as p_g / (p_data + p_g): 1 - D* itself rounds to 0 in
    # the left tail.)
    D = optimal_discriminator(p_data, p_g)
    direct = np.sum(p_data * np.log(D) + p_g * np.log(p_g / (p_data + p_g))) * dx
    assert value == pytest.approx(direct, abs=1e-10)


def test_value_on_probability_vectors_and_disjoint_supports():
    from scipy.spatial.distance import jensenshannon

    rng = np.random.RandomState(0)
    p, q = rng.dirichlet(np.ones(6)), rng.dirichlet(np.ones(6))
    jsd = jensenshannon(p, q) ** 2  # scipy returns the square root (natural log)
    assert gan_value_at_optimum(p, q) == pytest.approx(-LOG4 + 2 * jsd, abs=1e-12)
    # Disjoint supports: JSD = log 2 and V = 0, the game's maximum.
    value = gan_value_at_optimum([0.5, 0.5, 0, 0], [0, 0, 0.5, 0.5])
    assert value == pytest.approx(0.0)


def test_the_optimal_discriminator_maximises_the_value():
    rng = np.random.RandomState(1)
    p, q = rng.dirichlet(np.ones(5)), rng.dirichlet(np.ones(5))
    best = gan_value_at_optimum(p, q)
    for _ in range(20):
        D = np.clip(optimal_discriminator(p, q) + 0.1 * rng.randn(5), 1e-6, 1 - 1e-6)
        assert np.sum(p * np.log(D) + q * np.log1p(-D)) < best


@pytest.mark.parametrize("args, match", [
    (([0.5, 0.5], [1.0]), "same shape"),
    (([0.5, -0.5], [0.5, 0.5]), "non-negative"),
    (([0.5, np.nan], [0.5, 0.5]), "NaN"),
    (([], []), "empty"),
])
def test_bad_densities_are_refused(args, match):
    for func in (optimal_discriminator, gan_value_at_optimum):
        with pytest.raises(ValueError, match=match):
            func(*args)


def test_value_needs_probabilities_or_cell_volumes():
    with pytest.raises(ValueError, match="sums to"):
        gan_value_at_optimum([0.5, 0.6], [0.5, 0.5])
    with pytest.raises(ValueError, match="dx"):
        gan_value_at_optimum([0.5, 0.5], [0.5, 0.5], dx=0.0)


# ----------------------------------------------------- the generator's step


@pytest.mark.parametrize("minimax", [False, True])
@pytest.mark.parametrize("alpha", [0.0, 0.3])
def test_generator_gradient_through_the_discriminator(minimax, alpha):
    rng = np.random.RandomState(0)
    G = _mlp([5, 4], 2, "tanh", 3, rng)
    D = _mlp([6], 1, "tanh", 2, rng)
    Z = rng.randn(7, 3)

    def value(theta):
        G.theta[:] = theta
        return _generator_step_gradient(G, D, Z, minimax, alpha)

    def grad(theta):
        value(theta)
        return G.grad.copy()

    theta0 = G.theta.copy()
    err = check_grad(value, grad, theta0, epsilon=1e-6)
    assert err < 1e-6 * max(1.0, np.linalg.norm(grad(theta0)))


def test_minimax_gradient_vanishes_when_the_discriminator_rejects_the_samples():
    # The notes' reason for the non-saturating loss: while D(G(z)) is near 0,
    # d log(1 - D) is tiny and d(-log D) is not.
    rng = np.random.RandomState(0)
    G = _mlp([4], 2, "tanh", 2, rng)
    D = _mlp([], 1, "tanh", 2, rng)
    D.params[-1]["b"][:] = -12.0  # D(x) ~ 6e-6 everywhere
    Z = rng.randn(20, 2)
    _generator_step_gradient(G, D, Z, minimax=True)
    saturated = np.linalg.norm(G.grad)
    _generator_step_gradient(G, D, Z, minimax=False)
    assert saturated < 1e-4 * np.linalg.norm(G.grad)


# ------------------------------------------------------------ the estimator


@pytest.fixture(scope="module")
def gaussian_fit():
    rng = np.random.RandomState(0)
    A = np.array([[1.0, 0.0], [0.6, 0.5]])
    X = rng.randn(600, 2) @ A + np.array([3.0, -2.0])
    gan = GAN(max_iter=60, random_state=0).fit(X)
    return X, gan


def test_gaussian_data_moments_are_matched(gaussian_fit):
    X, gan = gaussian_fit
    S = gan.sample(4000)
    # Measured: means within 0.06, covariance entries within 0.13 (of a
    # variance 1.0).
    np.testing.assert_allclose(S.mean(axis=0), X.mean(axis=0), atol=0.15)
    np.testing.assert_allclose(np.cov(S.T), np.cov(X.T), atol=0.3)


def test_value_curve_approaches_minus_log_4(gaussian_fit):
    _, gan = gaussian_fit
    assert gan.n_iter_ == 60
    assert len(gan.value_curve_) == len(gan.discriminator_loss_curve_) == 60
    assert len(gan.generator_loss_curve_) == 60
    np.testing.assert_allclose(gan.value_curve_,
                               -2 * np.array(gan.discriminator_loss_curve_))
    # Late epochs: D can hardly tell the samples from the data (measured -1.387).
    assert abs(np.mean(gan.value_curve_[-10:]) + LOG4) < 0.1
    # The discriminator's logit is near 0 on the data (log p_data / p_g ~ 0).
    assert abs(np.median(gan.score_samples(gaussian_fit[0]))) < 0.5


def test_sample_is_reproducible_and_in_data_units(gaussian_fit):
    X, gan = gaussian_fit
    np.testing.assert_array_equal(gan.sample(9), gan.sample(9))
    again = GAN(max_iter=60, random_state=0).fit(X)
    np.testing.assert_array_equal(again.sample(9), gan.sample(9))


def test_change_of_units_is_equivariant():
    X, _ = make_moons(200, noise=0.05, random_state=0)
    params = dict(max_iter=5, random_state=0)
    a = GAN(**params).fit(X).sample(50)
    units, offset = np.array([1e-3, 1e4]), np.array([5.0, -2e6])
    b = GAN(**params).fit(X * units + offset).sample(50)
    np.testing.assert_allclose((b - offset) / units, a, rtol=1e-7, atol=1e-7)


@parity_test(GAN)
def test_parity_samples_closer_to_held_out_data_than_a_single_gaussian():
    # No scikit-learn counterpart: the references are scikit-learn's density
    # model with one component (a single Gaussian fit) and with ten.
    from sklearn.mixture import GaussianMixture

    X, _ = make_moons(500, noise=0.05, random_state=0)
    X_test, _ = make_moons(500, noise=0.05, random_state=1)
    gan = GAN(max_iter=100, random_state=0).fit(X)
    ours = _energy(gan.sample(500), X_test)
    gaussian = _energy(GaussianMixture(1, random_state=0).fit(X).sample(500)[0], X_test)
    mixture = _energy(GaussianMixture(10, random_state=0).fit(X).sample(500)[0], X_test)
    # Measured 0.0075 against 0.0216 (one Gaussian) and 0.0016 (10
    # components); seeds 1 and 2 gave 0.0055 and 0.0079.
    assert ours < 0.6 * gaussian
    assert ours < 10 * mixture


@pytest.mark.parametrize("params, match", [
    ({"generator_loss": "wasserstein"}, "generator_loss"),
    ({"discriminator_steps": 0}, "discriminator_steps"),
    ({"latent_dim": 0}, "latent_dim"),
    ({"beta_1": 1.0}, "beta_1"),
    ({"generator_layer_sizes": (0,)}, "generator_layer_sizes"),
    ({"discriminator_layer_sizes": (2.5,)}, "discriminator_layer_sizes"),
])
def test_bad_parameters_are_refused(params, match):
    with pytest.raises(ValueError, match=match):
        GAN(max_iter=1, **params).fit(np.random.RandomState(0).randn(20, 2))


def test_bad_inputs_are_refused():
    X = np.random.RandomState(0).randn(30, 2)
    gan = GAN(max_iter=1, random_state=0).fit(X)
    for bad in (0, -1, 2.5, True):
        with pytest.raises(ValueError, match="n_samples"):
            gan.sample(bad)
    with pytest.raises(ValueError, match="features"):
        gan.score_samples(np.c_[X, X])


def test_options_train(gaussian_fit):
    X = gaussian_fit[0][:200]
    for params in ({"generator_loss": "minimax"}, {"discriminator_steps": 3},
                   {"latent_dim": 5, "alpha": 1e-3, "activation": "tanh"}):
        gan = GAN(max_iter=3, random_state=0, **params).fit(X)
        assert gan.sample(5).shape == (5, 2) and np.all(np.isfinite(gan.sample(5)))
    assert gan.latent_dim_ == 5 and gan.generator_.in_shape == (5,)


def test_discriminator_steps_per_generator_step():
    # 200 rows in batches of 50: 4 discriminator steps per epoch; with k = 8 the
    # generator moves only every second epoch (NaN loss in the others).
    X = np.random.RandomState(0).randn(200, 2)
    gan = GAN(max_iter=4, batch_size=50, discriminator_steps=8, random_state=0).fit(X)
    curve = gan.generator_loss_curve_
    assert np.isnan(curve[0]) and np.isnan(curve[2])
    assert np.isfinite(curve[1]) and np.isfinite(curve[3])


def test_verbose_prints_both_losses(capsys):
    X = np.random.RandomState(0).randn(30, 2)
    GAN(max_iter=2, random_state=0, verbose=True).fit(X)
    out = capsys.readouterr().out
    assert out.count("discriminator loss") == 2 and "generator loss" in out


def test_a_constant_feature_is_returned_and_changes_nothing_else():
    X, _ = make_moons(200, noise=0.05, random_state=0)
    params = dict(max_iter=5, random_state=0)
    a = GAN(**params).fit(X).sample(30)
    b = GAN(**params).fit(np.c_[X, np.full(200, 7.0)]).sample(30)
    np.testing.assert_allclose(b[:, :2], a, rtol=1e-12)
    assert np.all(b[:, 2] == 7.0)
    point = GAN(**params).fit(np.ones((5, 3)))
    assert np.all(point.sample(4) == 1.0) and point.generator_ is None
    assert np.all(point.score_samples(np.zeros((2, 3))) == 0.0)
