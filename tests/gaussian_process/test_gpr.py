import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn.gaussian_process import GaussianProcessRegressor as SkGP
from sklearn.gaussian_process import kernels as skk

from skml.gaussian_process import GaussianProcessRegressor
from skml.gaussian_process import kernels as k
from tests._data import load
from tests._parity import parity_test


def _kernels(d):
    return [
        k.RBF(0.7),
        k.RBF(np.linspace(0.5, 2.0, d)),
        k.Matern(0.8, nu=0.5),
        k.Matern(np.linspace(0.5, 2.0, d), nu=1.5),
        k.Matern(1.3, nu=2.5),
        k.Matern(1.3, nu=np.inf),
        k.ConstantKernel(2.0) * k.RBF(1.5) + k.WhiteKernel(0.1),
        2.0 * k.Matern(np.ones(d), nu=2.5) + k.WhiteKernel(0.3),
    ]


@pytest.mark.parametrize("index", range(8))
def test_kernel_gradient_matches_finite_differences(index):
    rng = np.random.default_rng(0)
    X = rng.normal(size=(7, 3))
    kernel = _kernels(3)[index]
    K, grad = kernel(X, eval_gradient=True)
    assert grad.shape == (7, 7, kernel.n_dims)
    step = 1e-6
    for j in range(kernel.n_dims):
        up, down = kernel.theta.copy(), kernel.theta.copy()
        up[j] += step
        down[j] -= step
        numeric = (kernel.clone_with_theta(up)(X) - kernel.clone_with_theta(down)(X)) / (
            2 * step)
        np.testing.assert_allclose(grad[:, :, j], numeric, atol=1e-6)
    np.testing.assert_allclose(kernel.diag(X), np.diag(K))


def _sklearn_twin(index, d):
    return [
        skk.RBF(0.7),
        skk.RBF(np.linspace(0.5, 2.0, d)),
        skk.Matern(0.8, nu=0.5),
        skk.Matern(np.linspace(0.5, 2.0, d), nu=1.5),
        skk.Matern(1.3, nu=2.5),
        skk.Matern(1.3, nu=np.inf),
        skk.ConstantKernel(2.0) * skk.RBF(1.5) + skk.WhiteKernel(0.1),
        2.0 * skk.Matern(np.ones(d), nu=2.5) + skk.WhiteKernel(0.3),
    ][index]


@pytest.mark.parametrize("index", range(8))
def test_kernels_equal_scikit_learns(index):
    rng = np.random.default_rng(1)
    X, Y = rng.normal(size=(6, 3)), rng.normal(size=(4, 3))
    ours, theirs = _kernels(3)[index], _sklearn_twin(index, 3)
    np.testing.assert_allclose(ours.theta, theirs.theta)
    np.testing.assert_allclose(ours.bounds, theirs.bounds)
    np.testing.assert_allclose(ours(X, Y), theirs(X, Y), rtol=1e-10, atol=1e-14)
    K1, G1 = ours(X, eval_gradient=True)
    K2, G2 = theirs(X, eval_gradient=True)
    np.testing.assert_allclose(K1, K2, rtol=1e-10, atol=1e-14)
    np.testing.assert_allclose(G1, G2, rtol=1e-8, atol=1e-12)


@parity_test(GaussianProcessRegressor)
@pytest.mark.parametrize("nu", [0.5, 2.5])
def test_parity_with_scikit_learn_on_diabetes(nu):
    X, y = load("diabetes")
    X, y = X[:150] * 10, y[:150]
    ours = GaussianProcessRegressor(
        k.ConstantKernel() * k.Matern(1.0, nu=nu) + k.WhiteKernel(), normalize_y=True,
        random_state=0).fit(X, y)
    theirs = SkGP(skk.ConstantKernel() * skk.Matern(1.0, nu=nu) + skk.WhiteKernel(),
                  normalize_y=True, random_state=0).fit(X, y)
    # The same objective: equal likelihood and gradient at scikit-learn's optimum.
    lml_ours, grad_ours = ours.log_marginal_likelihood(theirs.kernel_.theta, True)
    lml_theirs, grad_theirs = theirs.log_marginal_likelihood(theirs.kernel_.theta, True)
    assert lml_ours == pytest.approx(lml_theirs, rel=1e-10)
    np.testing.assert_allclose(grad_ours, grad_theirs, rtol=1e-7, atol=1e-8)
    # Our optimum is at least as good (both L-BFGS-B from the same start).
    assert ours.log_marginal_likelihood_value_ >= theirs.log_marginal_likelihood_value_ - 1e-6
    # Conditioned on the same hyper-parameters, the same posterior.
    fixed = GaussianProcessRegressor(ours.kernel_.clone_with_theta(theirs.kernel_.theta),
                                     normalize_y=True, optimizer=None).fit(X, y)
    m1, s1 = fixed.predict(X[:40] + 0.1, return_std=True)
    m2, s2 = theirs.predict(X[:40] + 0.1, return_std=True)
    np.testing.assert_allclose(m1, m2, rtol=1e-7, atol=1e-6 * np.std(y))
    np.testing.assert_allclose(s1, s2, rtol=1e-6, atol=1e-6 * np.std(y))


def test_noise_free_posterior_interpolates():
    X = np.linspace(0, 4, 12)[:, None]
    y = np.sin(2 * X).ravel()
    gp = GaussianProcessRegressor(k.RBF(0.5, "fixed")).fit(X, y)
    mean, std = gp.predict(X, return_std=True)
    np.testing.assert_allclose(mean, y, atol=1e-5)
    assert np.all(std < 1e-3)
    # Far from the data, the prior: mean 0, std 1.
    far_mean, far_std = gp.predict([[50.0]], return_std=True)
    assert abs(far_mean[0]) < 1e-8 and far_std[0] == pytest.approx(1.0)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 10_000), st.integers(2, 12))
def test_posterior_covariance_is_symmetric_psd_and_matches_std(seed, n):
    rng = np.random.default_rng(seed)
    X, y = rng.normal(size=(n, 2)), rng.normal(size=n)
    gp = GaussianProcessRegressor(k.RBF(1.0) + k.WhiteKernel(0.1), optimizer=None).fit(X, y)
    Xq = rng.normal(size=(5, 2))
    _, cov = gp.predict(Xq, return_cov=True)
    _, std = gp.predict(Xq, return_std=True)
    np.testing.assert_allclose(cov, cov.T, atol=1e-12)
    assert np.linalg.eigvalsh(cov).min() > -1e-9
    np.testing.assert_allclose(np.sqrt(np.maximum(np.diag(cov), 0)), std, atol=1e-7)


def test_multi_output_equals_one_fit_per_target():
    X, y = load("diabetes")
    X, Y = X[:80] * 10, np.column_stack([y[:80], -2 * y[:80] + 3])
    kernel = k.RBF(3.0, "fixed") + k.WhiteKernel(0.5, "fixed")
    both = GaussianProcessRegressor(kernel, normalize_y=True).fit(X, Y)
    mean, std = both.predict(X[:10], return_std=True)
    assert mean.shape == std.shape == (10, 2)
    for t in range(2):
        one = GaussianProcessRegressor(kernel, normalize_y=True).fit(X, Y[:, t])
        m, s = one.predict(X[:10], return_std=True)
        np.testing.assert_allclose(mean[:, t], m, rtol=1e-9, atol=1e-9)
        np.testing.assert_allclose(std[:, t], s, rtol=1e-9, atol=1e-9)
    assert both.sample_y(X[:5], 3).shape == (5, 2, 3)


def test_sample_y_mean_approaches_the_posterior_mean():
    X = np.linspace(0, 3, 8)[:, None]
    gp = GaussianProcessRegressor(k.RBF(1.0) + k.WhiteKernel(0.05), optimizer=None).fit(
        X, np.cos(X).ravel())
    draws = gp.sample_y(X + 0.2, n_samples=4000, random_state=0)
    mean, std = gp.predict(X + 0.2, return_std=True)
    # Standard error of a 4000-draw mean is std/63; allow 5 of them.
    assert np.all(np.abs(draws.mean(axis=1) - mean) < 5 * std / np.sqrt(4000) + 1e-9)


def test_restarts_never_do_worse_than_one_start():
    X, y = load("diabetes")
    X, y = X[:100] * 10, y[:100]
    kernel = k.ConstantKernel() * k.RBF(np.ones(X.shape[1])) + k.WhiteKernel()
    one = GaussianProcessRegressor(kernel, normalize_y=True).fit(X, y)
    more = GaussianProcessRegressor(kernel, normalize_y=True, n_restarts_optimizer=2,
                                    random_state=0).fit(X, y)
    assert more.log_marginal_likelihood_value_ >= one.log_marginal_likelihood_value_ - 1e-9


def test_clear_errors():
    X, y = np.arange(10.0)[:, None], np.arange(10.0)
    with pytest.raises(ValueError, match="nu must be one of"):
        GaussianProcessRegressor(k.Matern(nu=1.0)).fit(X, y)
    with pytest.raises(ValueError, match="alpha must be a scalar or have one entry"):
        GaussianProcessRegressor(alpha=np.ones(3)).fit(X, y)
    with pytest.raises(ValueError, match="length_scale_bounds"):
        GaussianProcessRegressor(k.RBF(1.0, (0.0, 1.0))).fit(X, y)
    gp = GaussianProcessRegressor().fit(X, y)
    with pytest.raises(ValueError, match="At most one"):
        gp.predict(X, return_std=True, return_cov=True)
    # Duplicated rows without noise: the kernel matrix is singular.
    with pytest.raises(ValueError, match="not positive definite"):
        GaussianProcessRegressor(k.RBF(1.0, "fixed"), alpha=0.0).fit(
            np.zeros((4, 1)), np.arange(4.0))


def test_extreme_magnitudes_give_the_right_answer_or_a_clear_error():
    X, y = load("diabetes")
    X, y = X[:60] * 10, y[:60]
    kernel = k.ConstantKernel(1.0, "fixed") * k.RBF(3.0, "fixed") + k.WhiteKernel(1e-3, "fixed")
    clean = GaussianProcessRegressor(kernel, normalize_y=True).fit(X, y).predict(X[:20])
    # A large offset: stationary kernels see differences only (was: not PD).
    shifted = GaussianProcessRegressor(kernel, normalize_y=True).fit(X + 1e8, y)
    np.testing.assert_allclose(shifted.predict(X[:20] + 1e8), clean,
                               rtol=1e-3, atol=1e-3 * np.std(y))
    # Huge: the kernel between distinct rows is exactly 0 (was: NaN).
    huge = GaussianProcessRegressor(k.RBF(1.0, "fixed")).fit(X * 1e300, y)
    np.testing.assert_allclose(huge.predict(X * 1e300), y, rtol=1e-8)
    # Tiny: no length scale resolves the rows: a clear error.
    with pytest.raises(ValueError, match="Standardise X"):
        GaussianProcessRegressor().fit(X * 1e-300, y)
