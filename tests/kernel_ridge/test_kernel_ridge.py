"""KernelRidge and KernelLogisticRegression: the representer form of notes B §5.10."""

import numpy as np
import pytest
from sklearn.datasets import load_breast_cancer, load_diabetes, load_iris
from sklearn.kernel_ridge import KernelRidge as SKKernelRidge
from sklearn.linear_model import LogisticRegression as SKLogisticRegression
from sklearn.linear_model import Ridge as SKRidge
from sklearn.metrics.pairwise import rbf_kernel
from sklearn.preprocessing import StandardScaler

from skml.kernel_ridge import KernelLogisticRegression, KernelRidge

from .._parity import parity_test


@pytest.fixture(scope="module")
def diabetes():
    return load_diabetes(return_X_y=True)


@pytest.mark.parametrize("params", [
    {},
    {"kernel": "rbf", "gamma": 0.5, "alpha": 0.1},
    {"kernel": "poly", "degree": 2, "coef0": 1.0, "alpha": 0.01},
    {"kernel": "laplacian", "gamma": 0.3},
    {"kernel": "sigmoid", "gamma": 0.01, "coef0": 0.5},
])
@parity_test(KernelRidge)
def test_parity_with_scikit_learn(diabetes, params):
    X, y = diabetes
    sw = np.random.RandomState(0).uniform(0.1, 2.0, len(y))
    ours = KernelRidge(**params).fit(X, y, sample_weight=sw)
    ref = SKKernelRidge(**params).fit(X, y, sample_weight=sw)
    np.testing.assert_allclose(ours.dual_coef_, ref.dual_coef_, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(ours.predict(X[:50]), ref.predict(X[:50]),
                               rtol=1e-9, atol=1e-9)


def test_parity_alpha_per_target_and_precomputed(diabetes):
    X, y = diabetes
    Y = np.column_stack([y, np.sqrt(y)])
    ours = KernelRidge(alpha=[0.1, 1.0], kernel="rbf", gamma=1.0).fit(X, Y)
    ref = SKKernelRidge(alpha=[0.1, 1.0], kernel="rbf", gamma=1.0).fit(X, Y)
    np.testing.assert_allclose(ours.predict(X), ref.predict(X), rtol=1e-9)
    K = rbf_kernel(X, gamma=1.0)
    pre = KernelRidge(alpha=0.1, kernel="precomputed").fit(K, y)
    np.testing.assert_allclose(pre.predict(K[:10]), ours.predict(X[:10])[:, 0],
                               rtol=1e-9)


def test_linear_kernel_is_ridge_in_the_primal(diabetes):
    # Notes B §5.10: with a linear kernel, w = X'a is ridge regression.
    X, y = diabetes
    ours = KernelRidge(alpha=0.3).fit(X, y)
    ridge = SKRidge(alpha=0.3, fit_intercept=False).fit(X, y)
    np.testing.assert_allclose(ours.dual_coef_ @ X, ridge.coef_, rtol=1e-8)


def test_callable_kernel_takes_kernel_params():
    rng = np.random.RandomState(0)
    X, y = rng.randn(30, 3), rng.randn(30)

    def k(a, b, scale):
        return scale * float(a @ b)

    ours = KernelRidge(kernel=k, kernel_params={"scale": 2.0}).fit(X, y)
    lin = KernelRidge(alpha=0.5).fit(X, y)  # 2 <x,z> with alpha 1 = <x,z> with 0.5
    np.testing.assert_allclose(ours.predict(X), lin.predict(X), rtol=1e-8)


def test_kernel_params_reach_a_named_kernel(diabetes):
    # scikit-learn passes kernel_params to callables only; skml to both.
    X, y = diabetes
    via_params = KernelRidge(kernel="rbf", kernel_params={"gamma": 2.0}).fit(X, y)
    direct = KernelRidge(kernel="rbf", gamma=2.0).fit(X, y)
    np.testing.assert_allclose(via_params.predict(X), direct.predict(X))


@pytest.mark.parametrize("alpha", [-1.0, [1.0, -2.0], [1.0, 2.0, 3.0]])
def test_bad_alpha_is_refused(diabetes, alpha):
    X, y = diabetes
    with pytest.raises(ValueError, match="alpha"):
        KernelRidge(alpha=alpha).fit(X, np.column_stack([y, y]))


@parity_test(KernelLogisticRegression)
def test_kernel_logistic_linear_kernel_is_logistic_regression():
    # Notes B §5.10: with a linear kernel the representer form is linear LR.
    X, y = load_breast_cancer(return_X_y=True)
    X = StandardScaler().fit_transform(X)[::2]
    y = y[::2]
    ours = KernelLogisticRegression(C=0.5, kernel="linear").fit(X, y)
    ref = SKLogisticRegression(C=0.5, tol=1e-10, max_iter=10_000).fit(X, y)
    np.testing.assert_allclose(ours.dual_coef_ @ X, ref.coef_, atol=1e-5)
    np.testing.assert_allclose(ours.intercept_, ref.intercept_, atol=1e-5)
    np.testing.assert_allclose(ours.predict_proba(X), ref.predict_proba(X), atol=1e-6)


def test_kernel_logistic_fits_xor_and_linear_cannot():
    X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
    y = np.array([-1, -1, 1, 1])
    rbf = KernelLogisticRegression(C=100.0, kernel="rbf", gamma=2.0).fit(X, y)
    assert rbf.score(X, y) == 1.0
    lin = KernelLogisticRegression(C=100.0, kernel="linear").fit(X, y)
    assert lin.score(X, y) < 1.0


def test_kernel_logistic_multiclass_is_one_vs_rest():
    X, y = load_iris(return_X_y=True)
    clf = KernelLogisticRegression(kernel="rbf", gamma=0.5).fit(X, y)
    assert clf.dual_coef_.shape == (3, len(y))
    proba = clf.predict_proba(X)
    np.testing.assert_allclose(proba.sum(axis=1), 1.0)
    # each row is the binary problem "class k against the rest"
    for k in range(3):
        alone = KernelLogisticRegression(kernel="rbf", gamma=0.5).fit(X, y == k)
        np.testing.assert_allclose(clf.decision_function(X)[:, k],
                                   alone.decision_function(X), atol=1e-6)
    assert clf.score(X, y) > 0.95


def test_kernel_logistic_gradient_is_zero_at_the_solution():
    X, y = load_iris(return_X_y=True)
    y = (y == 1)
    sw = np.random.RandomState(1).uniform(0.5, 2.0, len(y))
    clf = KernelLogisticRegression(C=3.0, kernel="rbf", gamma=0.7).fit(X, y, sw)
    K = rbf_kernel(X, gamma=0.7)
    a, b = clf.dual_coef_[0], clf.intercept_[0]
    p = 1.0 / (1.0 + np.exp(-(K @ a + b)))
    r = 3.0 * sw * (p - y)
    np.testing.assert_allclose(K @ (r + a), 0.0, atol=1e-6)
    assert abs(r.sum()) < 1e-6


@pytest.mark.parametrize("Est", [KernelRidge, KernelLogisticRegression])
def test_gamma_scale_makes_the_model_scale_free(Est):
    X, y = load_iris(return_X_y=True)
    y = y == 1 if Est is KernelLogisticRegression else X[:, 0] * 1.0
    X = X[:, 1:]
    base = Est(kernel="rbf", gamma="scale").fit(X, y)
    for c in (1e-300, 1e300):
        scaled = Est(kernel="rbf", gamma="scale").fit(X * c, y)
        np.testing.assert_allclose(scaled.predict(X[:20] * c), base.predict(X[:20]),
                                   rtol=1e-7, atol=1e-9)
