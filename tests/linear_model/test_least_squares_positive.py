"""LinearRegression(positive=True): non-negative least squares (issue 21)."""

import numpy as np
import pytest
import scipy.sparse as sp
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import linear_model as sk
from sklearn.datasets import load_diabetes

from skml.linear_model import LinearRegression, Ridge

X, y = load_diabetes(return_X_y=True)
WEIGHTS = np.random.default_rng(0).uniform(0.1, 2.0, len(y))


@pytest.mark.parametrize("fit_intercept", [True, False])
@pytest.mark.parametrize("sample_weight", [None, WEIGHTS])
@pytest.mark.parametrize("multi", [False, True])
def test_positive_matches_scikit_learn(fit_intercept, sample_weight, multi):
    target = np.column_stack([y, 300 - y]) if multi else y
    ours = LinearRegression(positive=True, fit_intercept=fit_intercept, n_jobs=2)
    theirs = sk.LinearRegression(positive=True, fit_intercept=fit_intercept)
    ours.fit(X, target, sample_weight=sample_weight)
    theirs.fit(X, target, sample_weight=sample_weight)
    scale = np.abs(theirs.coef_).max()
    np.testing.assert_allclose(ours.coef_, theirs.coef_, atol=1e-9 * scale)
    np.testing.assert_allclose(ours.intercept_, theirs.intercept_, atol=1e-9 * scale)
    assert ours.solver_ == "nnls"
    assert ours.coef_.shape == theirs.coef_.shape


def test_positive_refuses_sparse_input_as_scikit_learn():
    """fit refuses sparse X with positive (TypeError, scikit-learn's words);
    predict still takes it, and Ridge(alpha=0, positive=True) fits it."""
    msg = "Sparse data was passed for X, but dense data is required"
    S = sp.csr_matrix(X)
    with pytest.raises(TypeError, match=msg):
        LinearRegression(positive=True).fit(S, y)
    with pytest.raises(TypeError, match=msg):
        sk.LinearRegression(positive=True).fit(S, y)
    assert not LinearRegression(positive=True).__sklearn_tags__().input_tags.sparse
    assert LinearRegression().__sklearn_tags__().input_tags.sparse
    dense = LinearRegression(positive=True).fit(X, y, sample_weight=WEIGHTS)
    np.testing.assert_allclose(dense.predict(S), dense.predict(X), rtol=1e-12)
    ridge = Ridge(alpha=0.0, positive=True, tol=1e-10).fit(S, y, sample_weight=WEIGHTS)
    np.testing.assert_allclose(ridge.coef_, dense.coef_,
                               atol=1e-4 * np.abs(dense.coef_).max())


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), n=st.integers(5, 40), p=st.integers(1, 8))
def test_positive_solution_satisfies_the_kkt_conditions(seed, n, p):
    """For min ||Xw - y||² s.t. w >= 0: w >= 0, g = Xᵀ(Xw - y) >= 0, w·g = 0."""
    rng = np.random.default_rng(seed)
    Xr = rng.normal(size=(n, p))
    yr = rng.normal(size=n)
    reg = LinearRegression(positive=True, fit_intercept=False).fit(Xr, yr)
    w = reg.coef_
    g = Xr.T @ (Xr @ w - yr)
    tol = 1e-8 * (1 + np.abs(Xr).max() ** 2 * (np.abs(w).sum() + np.abs(yr).max()))
    assert np.all(w >= 0)
    assert np.all(g >= -tol)
    assert np.all(np.abs(w * g) <= tol * (1 + np.abs(w)))


def test_without_positive_is_unchanged_and_can_be_negative():
    reg = LinearRegression().fit(X, y)
    assert reg.solver_ in ("normal", "lstsq")
    assert np.any(reg.coef_ < 0)
    assert np.all(LinearRegression(positive=True).fit(X, y).coef_ >= 0)
