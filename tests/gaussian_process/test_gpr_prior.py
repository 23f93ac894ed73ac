"""GaussianProcessRegressor before fit: the prior, with n_targets outputs (issue 21)."""

import numpy as np
import pytest
from sklearn.gaussian_process import GaussianProcessRegressor as SkGPR
from sklearn.gaussian_process import kernels as skk

from skml.gaussian_process import GaussianProcessRegressor
from skml.gaussian_process.kernels import RBF, ConstantKernel

X = np.random.default_rng(0).uniform(-2, 2, size=(7, 2))


@pytest.mark.parametrize("n_targets", [None, 1, 3])
@pytest.mark.parametrize("what", [{}, {"return_std": True}, {"return_cov": True}])
def test_prior_prediction_matches_scikit_learn(n_targets, what):
    ours = GaussianProcessRegressor(n_targets=n_targets).predict(X, **what)
    theirs = SkGPR(n_targets=n_targets).predict(X, **what)
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    for a, b in zip(ours, theirs):
        assert a.shape == b.shape
        np.testing.assert_allclose(a, b, atol=1e-12)


def test_prior_uses_the_given_kernel():
    kernel = ConstantKernel(2.0) * RBF(0.5)
    _, cov = GaussianProcessRegressor(kernel).predict(X, return_cov=True)
    _, ref = SkGPR(skk.ConstantKernel(2.0) * skk.RBF(0.5)).predict(X, return_cov=True)
    np.testing.assert_allclose(cov, ref, rtol=1e-12)


def test_prior_samples_have_the_prior_covariance():
    draws = GaussianProcessRegressor(n_targets=2).sample_y(X[:3], n_samples=20000,
                                                            random_state=0)
    assert draws.shape == (3, 2, 20000)
    k = GaussianProcessRegressor().predict(X[:3], return_cov=True)[1]
    np.testing.assert_allclose(np.cov(draws[:, 0, :]), k, atol=0.05)


def test_fit_checks_n_targets():
    y = np.sin(X[:, 0])
    with pytest.raises(ValueError, match="n_targets=2"):
        GaussianProcessRegressor(n_targets=2).fit(X, y)
    GaussianProcessRegressor(n_targets=2).fit(X, np.column_stack([y, -y]))
