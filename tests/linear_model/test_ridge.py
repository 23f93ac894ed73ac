"""Ridge: parity with scikit-learn, the notes' identities, monotonicity, bad input."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy import sparse
from sklearn import linear_model as sk
from sklearn.datasets import load_diabetes
from sklearn.exceptions import ConvergenceWarning

from skml.linear_model import LinearRegression, Ridge
from tests._parity import parity_test

SOLVERS = ["auto", "cholesky", "svd"]


def _data(seed, n=30, p=4, n_targets=None):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 3, size=p) + rng.normal(size=p)
    shape = (n,) if n_targets is None else (n, n_targets)
    y = X @ rng.normal(size=(p,) + shape[1:]) + rng.normal(size=shape) + 1.0
    return X, y


@parity_test(Ridge)
@pytest.mark.parametrize("solver", SOLVERS)
@pytest.mark.parametrize("alpha", [0.01, 1.0, 10.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_parity_diabetes(solver, alpha, weighted):
    X, y = load_diabetes(return_X_y=True)
    sw = np.random.RandomState(0).uniform(0.1, 3.0, size=len(y)) if weighted else None
    ours = Ridge(alpha=alpha, solver=solver).fit(X, y, sample_weight=sw)
    ref = sk.Ridge(alpha=alpha, solver="svd").fit(X, y, sample_weight=sw)
    # Same closed form: agree to rtol=1e-6, atol=1e-6.
    assert_allclose(ours.coef_, ref.coef_, rtol=1e-6, atol=1e-6)
    assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-6, atol=1e-6)


@parity_test(Ridge)
def test_parity_diabetes_alpha_per_target():
    X, y = load_diabetes(return_X_y=True)
    Y = np.column_stack([y, np.log(y), -2.0 * y])
    alpha = np.array([0.1, 1.0, 5.0])
    ours = Ridge(alpha=alpha).fit(X, Y)
    ref = sk.Ridge(alpha=alpha).fit(X, Y)
    assert ours.coef_.shape == (3, X.shape[1])
    assert_allclose(ours.coef_, ref.coef_, rtol=1e-6, atol=1e-6)
    assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("solver", SOLVERS)
@given(seed=st.integers(0, 2**16), log_alpha=st.floats(-3, 3))
def test_equals_least_squares_on_augmented_data(solver, seed, log_alpha):
    # D1 §3.2: ridge = least squares on [X; √α I], [y; 0] (bias not padded
    # here, so use centred data and no intercept).
    alpha = 10.0**log_alpha
    X, y = _data(seed)
    Xc, yc = X - X.mean(axis=0), y - y.mean()
    p = X.shape[1]
    X_aug = np.vstack([Xc, np.sqrt(alpha) * np.eye(p)])
    y_aug = np.concatenate([yc, np.zeros(p)])
    w_aug = np.linalg.lstsq(X_aug, y_aug, rcond=None)[0]
    reg = Ridge(alpha=alpha, solver=solver).fit(X, y)
    assert_allclose(reg.coef_, w_aug, rtol=1e-8, atol=1e-10)
    assert_allclose(reg.intercept_, y.mean() - X.mean(axis=0) @ w_aug, rtol=1e-8)


def test_d1_padded_variant_mapping():
    # D1: (1/n)‖X_pad w − y‖² + λ‖w‖² (bias penalised) has the closed form
    # (X_padᵀX_pad + nλI)⁻¹X_padᵀy: Ridge(alpha=nλ, fit_intercept=False).
    X, y = _data(1)
    n, lam = len(y), 0.3
    X_pad = np.column_stack([X, np.ones(n)])
    w = np.linalg.solve(X_pad.T @ X_pad + n * lam * np.eye(X_pad.shape[1]), X_pad.T @ y)
    reg = Ridge(alpha=n * lam, fit_intercept=False).fit(X_pad, y)
    assert_allclose(reg.coef_, w, rtol=1e-10)
    assert reg.intercept_ == 0.0


@pytest.mark.parametrize("shape", [(30, 4), (6, 15)])
@pytest.mark.parametrize("weighted", [False, True])
def test_primal_dual_and_svd_agree(shape, weighted):
    X, y = _data(2, *shape)
    sw = np.random.RandomState(2).uniform(0, 2, size=len(y)) if weighted else None
    chol = Ridge(alpha=0.5, solver="cholesky").fit(X, y, sample_weight=sw)
    svd = Ridge(alpha=0.5, solver="svd").fit(X, y, sample_weight=sw)
    assert chol.solver_ == "cholesky" and svd.solver_ == "svd"
    assert_allclose(chol.coef_, svd.coef_, rtol=1e-9, atol=1e-12)
    assert_allclose(chol.intercept_, svd.intercept_, rtol=1e-9)


@given(seed=st.integers(0, 2**16), n=st.sampled_from([8, 30]))
def test_norm_shrinks_and_training_error_grows_with_alpha(seed, n):
    # D1: ‖w(λ)‖ is non-increasing in λ; D4: training error non-decreasing.
    X, y = _data(seed, n=n, p=12)
    alphas = np.logspace(-4, 6, 21)
    norms, errors = [], []
    for alpha in alphas:
        reg = Ridge(alpha=alpha).fit(X, y)
        norms.append(np.linalg.norm(reg.coef_))
        errors.append(np.mean((y - reg.predict(X)) ** 2))
    norms, errors = np.array(norms), np.array(errors)
    assert np.all(np.diff(norms) <= 1e-10 * norms[0])
    assert np.all(np.diff(errors) >= -1e-10 * errors[-1])
    assert norms[-1] < 1e-2 * norms[0]  # w → 0 as λ → ∞


@given(seed=st.integers(0, 2**16), log_alpha=st.floats(-2, 2))
def test_gd_fixed_point_is_closed_form(seed, log_alpha):
    X, Y = _data(seed, n_targets=2)
    alpha = 10.0 ** np.array([log_alpha, log_alpha + 1])
    closed = Ridge(alpha=alpha).fit(X, Y)
    gd = Ridge(alpha=alpha, solver="gd", tol=1e-16, max_iter=20000).fit(X, Y)
    # One descent for both targets: one step count, reported per target.
    assert gd.solver_ == "gd" and gd.n_iter_.shape == (2,)
    assert gd.n_iter_[0] == gd.n_iter_[1] and len(gd.loss_curve_) == gd.n_iter_[0] + 1
    assert np.all(np.diff(gd.loss_curve_) <= 1e-12 * gd.loss_curve_[0])
    # A loss-change stop leaves coefficient errors of order sqrt(ΔJ): 1e-6.
    assert_allclose(gd.coef_, closed.coef_, rtol=1e-6, atol=1e-6)


def test_gd_warns_when_not_converged():
    X, y = _data(3)
    with pytest.warns(ConvergenceWarning):
        Ridge(solver="gd", max_iter=2, tol=0.0).fit(X, y)


def test_alpha_zero_is_least_squares_and_rank_deficiency_falls_back_to_svd():
    X, y = _data(4)
    assert_allclose(
        Ridge(alpha=0.0).fit(X, y).coef_, LinearRegression().fit(X, y).coef_, rtol=1e-9
    )
    X_dup = np.column_stack([X, X[:, :1]])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        reg = Ridge(alpha=0.0).fit(X_dup, y)
    assert reg.solver_ == "svd"
    assert_allclose(reg.coef_, LinearRegression().fit(X_dup, y).coef_, rtol=1e-8)


@pytest.mark.parametrize("solver", SOLVERS + ["gd"])
@given(seed=st.integers(0, 2**16))
def test_integer_weights_equal_repeated_rows(solver, seed):
    X, y = _data(seed, n=10)
    sw = np.random.RandomState(seed).randint(0, 4, size=len(y))
    sw[0] = 1
    kw = {"tol": 1e-16, "max_iter": 20000} if solver == "gd" else {}
    weighted = Ridge(solver=solver, **kw).fit(X, y, sample_weight=sw)
    repeated = Ridge(solver=solver, **kw).fit(np.repeat(X, sw, 0), np.repeat(y, sw))
    # GD: the ΔJ stop may fall one step apart; coefficients then differ ~1e-7.
    rtol, atol = (1e-6, 1e-6) if solver == "gd" else (1e-9, 1e-10)
    assert_allclose(weighted.coef_, repeated.coef_, rtol=rtol, atol=atol)
    assert_allclose(weighted.intercept_, repeated.intercept_, rtol=rtol, atol=atol)


@pytest.mark.parametrize("solver", SOLVERS)
def test_alpha_per_target_equals_separate_fits(solver):
    X, Y = _data(5, n_targets=3)
    alpha = [0.1, 1.0, 100.0]
    reg = Ridge(alpha=alpha, solver=solver).fit(X, Y)
    assert reg.coef_.shape == (3, 4) and reg.intercept_.shape == (3,)
    for k in range(3):
        single = Ridge(alpha=alpha[k], solver=solver).fit(X, Y[:, k])
        assert_allclose(reg.coef_[k], single.coef_, rtol=1e-10)
        assert_allclose(reg.intercept_[k], single.intercept_, rtol=1e-10)


def test_no_intercept():
    X, y = _data(6)
    reg = Ridge(alpha=2.0, fit_intercept=False).fit(X, y)
    w = np.linalg.solve(X.T @ X + 2.0 * np.eye(4), X.T @ y)
    assert_allclose(reg.coef_, w, rtol=1e-10)
    assert reg.intercept_ == 0.0


@pytest.mark.parametrize(
    "alpha, match",
    [
        (-1.0, "'alpha' parameter"),
        ([1.0, -1.0], "non-negative"),
        ([1.0, np.nan], "finite"),
        ([1.0, 2.0, 3.0], "one penalty per target.*do not correspond: 3 != 2"),
        ("big", "'alpha' parameter"),
    ],
)
def test_bad_alpha(alpha, match):
    X, Y = _data(7, n_targets=2)
    with pytest.raises(ValueError, match=match):
        Ridge(alpha=alpha).fit(X, Y)


def test_bad_sample_weight_and_solver():
    X, y = _data(8)
    with pytest.raises(ValueError, match="zero"):
        Ridge().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="'solver' parameter"):
        Ridge(solver="newton").fit(X, y)


@pytest.mark.parametrize("solver", ["auto", "svd", "gd"])
def test_extreme_magnitude_solves_the_same_problem(solver):
    # Issue 23: at X * 1e300, XᵀX overflowed and Ridge answered R² 0 with
    # finite coef_. In exact arithmetic the problem is least squares (alpha
    # is negligible next to ‖x‖² ~ 1e600), so coef_ * 1e300 is the OLS fit.
    X, y = load_diabetes(return_X_y=True)
    ols = LinearRegression().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg = Ridge(alpha=1.0, solver=solver, max_iter=5000).fit(X * 1e300, y)
    if solver == "gd":  # ill-conditioned least squares: slow, but on its way
        assert reg.score(X * 1e300, y) > ols.score(X, y) - 0.02
    else:
        assert_allclose(reg.predict(X * 1e300), ols.predict(X), rtol=1e-8)
        assert_allclose(reg.coef_ * 1e300, ols.coef_, rtol=1e-7)
    # At X * 1e-300 the penalty dominates: the mean, as before.
    tiny = Ridge(alpha=1.0, solver=solver).fit(X * 1e-300, y)
    assert_allclose(tiny.predict(X * 1e-300), np.full(len(y), y.mean()), rtol=1e-12)


@pytest.mark.parametrize("sparse_input", [False, True])
def test_n_iter_is_none_for_closed_form_solvers_as_scikit_learn(sparse_input):
    X, y = load_diabetes(return_X_y=True)
    X = sparse.csr_matrix(X) if sparse_input else X
    # On sparse X with an intercept only "auto" reaches cholesky.
    for solver in ("auto",) if sparse_input else ("cholesky", "svd"):
        assert Ridge(solver=solver).fit(X, y).n_iter_ is None
    lsqr = Ridge(solver="lsqr", tol=1e-12, max_iter=3).fit(X, y)
    np.testing.assert_array_equal(lsqr.n_iter_, np.array([3], dtype=np.int32))
