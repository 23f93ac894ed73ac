"""LinearRegression: parity with scikit-learn, the notes' properties, bad input."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from scipy.optimize import check_grad
from sklearn import linear_model as sk
from sklearn.datasets import load_diabetes
from sklearn.exceptions import ConvergenceWarning

from skml.linear_model import LinearRegression
from skml.linear_model._least_squares import least_squares_loss_grad
from tests._parity import parity_test

DIRECT_SOLVERS = ["auto", "normal", "lstsq"]


def _data(seed, n=40, p=3, n_targets=None):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, p)) + rng.normal(size=p)
    shape = (n,) if n_targets is None else (n, n_targets)
    y = rng.normal(size=shape) + 2.0
    return X, y


@parity_test(LinearRegression)
@pytest.mark.parametrize("solver", DIRECT_SOLVERS)
@pytest.mark.parametrize("weighted", [False, True])
def test_parity_diabetes(solver, weighted):
    X, y = load_diabetes(return_X_y=True)
    sw = np.random.RandomState(0).uniform(0.1, 3.0, size=len(y)) if weighted else None
    ours = LinearRegression(solver=solver).fit(X, y, sample_weight=sw)
    ref = sk.LinearRegression().fit(X, y, sample_weight=sw)
    # Same minimiser, different factorisations: agree to rtol=1e-6, atol=1e-6.
    assert_allclose(ours.coef_, ref.coef_, rtol=1e-6, atol=1e-6)
    assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-6, atol=1e-6)
    assert ours.score(X, y) == pytest.approx(ref.score(X, y), rel=1e-10)


@pytest.mark.parametrize("solver", DIRECT_SOLVERS)
@given(seed=st.integers(0, 2**16), weighted=st.booleans())
def test_residuals_orthogonal_to_columns(solver, seed, weighted):
    X, y = _data(seed)
    sw = np.random.RandomState(seed).uniform(0, 2, size=len(y)) if weighted else None
    reg = LinearRegression(solver=solver).fit(X, y, sample_weight=sw)
    r = y - reg.predict(X)
    s = np.ones_like(y) if sw is None else sw
    # Normal equations of the padded problem: [X, 1]ᵀ S r = 0.
    scale = np.abs(X).T @ (s * np.abs(y))
    assert np.all(np.abs(X.T @ (s * r)) <= 1e-10 * scale)
    assert abs(s @ r) <= 1e-10 * (s @ np.abs(y))


@pytest.mark.parametrize("solver", DIRECT_SOLVERS)
@pytest.mark.parametrize("eps", [0.1, 1e-3])
def test_ill_conditioning_worked_example(solver, eps):
    # Notes D1 §3.2: X = [[0], [eps]], y = [1, -1] gives w = -2/eps, b = 1.
    reg = LinearRegression(solver=solver).fit([[0.0], [eps]], [1.0, -1.0])
    assert_allclose(reg.coef_, [-2.0 / eps], rtol=1e-10)
    assert_allclose(reg.intercept_, 1.0, rtol=1e-10)


def test_rank_deficient_normal_warns_and_returns_min_norm():
    X, y = _data(1)
    X = np.column_stack([X, X[:, 0]])  # a duplicated column: XᵀX is singular
    with pytest.warns(UserWarning, match="ill-conditioned.*Ridge"):
        normal = LinearRegression(solver="normal").fit(X, y)
    lstsq = LinearRegression(solver="lstsq").fit(X, y)
    assert normal.solver_ == "lstsq" and normal.rank_ == 3
    assert_allclose(normal.coef_, lstsq.coef_, rtol=1e-10)
    # Minimum norm splits the weight evenly between the two copies.
    assert normal.coef_[0] == pytest.approx(normal.coef_[3], rel=1e-8)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auto = LinearRegression().fit(X, y)  # "auto" falls back silently
    assert auto.solver_ == "lstsq"
    assert_allclose(auto.coef_, lstsq.coef_, rtol=1e-10)


def test_auto_uses_normal_equations_when_safe_and_lstsq_when_wide():
    X, y = _data(2)
    reg = LinearRegression().fit(X, y)
    assert reg.solver_ == "normal" and reg.rank_ is None and reg.n_iter_ == 1
    X_wide, y_wide = _data(3, n=5, p=8)
    wide = LinearRegression().fit(X_wide, y_wide)
    assert wide.solver_ == "lstsq" and wide.rank_ == 4 and wide.singular_.shape == (5,)
    assert_allclose(wide.predict(X_wide), y_wide, atol=1e-10)  # interpolates


def test_gd_converges_to_normal_solution():
    X, y = _data(4, n=200, p=5)
    normal = LinearRegression(solver="normal").fit(X, y)
    gd = LinearRegression(solver="gd", tol=1e-14, max_iter=5000).fit(X, y)
    assert gd.solver_ == "gd"
    assert len(gd.loss_curve_) == gd.n_iter_ + 1
    assert_allclose(gd.coef_, normal.coef_, rtol=1e-6)
    assert_allclose(gd.intercept_, normal.intercept_, rtol=1e-6)


def _lipschitz(X, sw=None):
    s = np.ones(len(X)) if sw is None else sw
    Xc = X - np.average(X, axis=0, weights=s)
    return np.linalg.eigvalsh(Xc.T @ (s[:, None] * Xc)).max() / s.sum()


@given(
    seed=st.integers(0, 2**16),
    factor=st.floats(0.05, 1.0),
    n_targets=st.sampled_from([None, 2]),
)
def test_gd_loss_monotone_for_small_steps(seed, factor, n_targets):
    # D3: for a small enough step J decreases at every iteration; α ≤ 1/L.
    X, y = _data(seed, n_targets=n_targets)
    X[:, 0] *= 5.0  # uneven scales, so 1/L matters
    lr = factor / _lipschitz(X)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg = LinearRegression(solver="gd", learning_rate=lr, max_iter=50).fit(X, y)
    J = np.asarray(reg.loss_curve_)
    assert np.all(np.diff(J) <= 1e-12 * J[0])


def test_gd_diverges_for_large_steps():
    X, y = _data(5)
    lr = 2.5 / _lipschitz(X)  # above 2/L
    with pytest.warns(ConvergenceWarning):
        reg = LinearRegression(solver="gd", learning_rate=lr, max_iter=30).fit(X, y)
    assert reg.loss_curve_[-1] > reg.loss_curve_[0]
    with pytest.raises(ValueError, match="diverged.*learning_rate"):
        LinearRegression(solver="gd", learning_rate=lr, max_iter=5000).fit(X, y)


def test_gd_gradient_matches_finite_differences():
    X, Y = _data(6, n_targets=2)
    alpha = np.array([0.0, 0.7])
    shape = (X.shape[1], 2)

    def f(w):
        return least_squares_loss_grad(w.reshape(shape), X, Y, alpha, 40.0)[0]

    def g(w):
        return least_squares_loss_grad(w.reshape(shape), X, Y, alpha, 40.0)[1].ravel()

    w0 = np.random.RandomState(0).normal(size=shape).ravel()
    assert check_grad(f, g, w0) < 1e-5 * np.linalg.norm(g(w0))


def test_gd_stops_on_loss_change_with_warning_otherwise():
    X, y = _data(7, n=100)
    reg = LinearRegression(solver="gd", tol=1e-3).fit(X, y)
    J = reg.loss_curve_
    assert abs(J[-2] - J[-1]) <= 1e-3 < abs(J[-3] - J[-2])
    with pytest.warns(ConvergenceWarning, match="max_iter=2"):
        LinearRegression(solver="gd", max_iter=2, tol=0.0).fit(X, y)


@pytest.mark.parametrize("solver", DIRECT_SOLVERS + ["gd"])
@given(seed=st.integers(0, 2**16))
def test_integer_weights_equal_repeated_rows(solver, seed):
    X, y = _data(seed, n=12)
    sw = np.random.RandomState(seed).randint(0, 4, size=len(y))
    sw[0] = 1
    kw = {"tol": 1e-14, "max_iter": 20000} if solver == "gd" else {}
    weighted = LinearRegression(solver=solver, **kw).fit(X, y, sample_weight=sw)
    repeated = LinearRegression(solver=solver, **kw).fit(
        np.repeat(X, sw, axis=0), np.repeat(y, sw)
    )
    # GD: the ΔJ stop may fall one step apart; coefficients then differ ~1e-7.
    rtol, atol = (1e-5, 1e-6) if solver == "gd" else (1e-8, 1e-10)
    assert_allclose(weighted.coef_, repeated.coef_, rtol=rtol, atol=atol)
    assert_allclose(weighted.intercept_, repeated.intercept_, rtol=rtol, atol=atol)


@pytest.mark.parametrize("solver", DIRECT_SOLVERS + ["gd"])
def test_multi_output_equals_separate_fits(solver):
    X, Y = _data(8, n_targets=3)
    kw = {"tol": 1e-14, "max_iter": 5000} if solver == "gd" else {}
    # GD stops on the summed loss, so targets stop at slightly other points.
    atol = 1e-6 if solver == "gd" else 1e-12
    reg = LinearRegression(solver=solver, **kw).fit(X, Y)
    assert reg.coef_.shape == (3, 3) and reg.intercept_.shape == (3,)
    for k in range(3):
        single = LinearRegression(solver=solver, **kw).fit(X, Y[:, k])
        assert_allclose(reg.coef_[k], single.coef_, rtol=1e-6, atol=atol)
        assert_allclose(reg.intercept_[k], single.intercept_, rtol=1e-6, atol=atol)
    one_column = LinearRegression(solver=solver, **kw).fit(X, Y[:, :1])
    assert one_column.coef_.shape == (1, 3) and one_column.intercept_.shape == (1,)


@pytest.mark.parametrize("solver", DIRECT_SOLVERS)
def test_no_intercept(solver):
    X, y = _data(9)
    reg = LinearRegression(solver=solver, fit_intercept=False).fit(X, y)
    assert reg.intercept_ == 0.0
    assert_allclose(reg.coef_, np.linalg.lstsq(X, y, rcond=None)[0], rtol=1e-10)


def test_copy_X_false_may_centre_in_place_and_gives_same_fit():
    X, y = _data(10)
    X_keep = X.copy()
    ref = LinearRegression().fit(X, y)
    assert_allclose(X, X_keep)
    reg = LinearRegression(copy_X=False).fit(X, y)
    assert_allclose(reg.coef_, ref.coef_)
    assert_allclose(reg.intercept_, ref.intercept_)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"solver": "qr"}, "'solver' parameter"),
        ({"learning_rate": 0.0}, "'learning_rate' parameter"),
        ({"max_iter": 0}, "'max_iter' parameter"),
        ({"tol": -1.0}, "'tol' parameter"),
    ],
)
def test_bad_params(params, match):
    X, y = _data(11)
    with pytest.raises(ValueError, match=match):
        LinearRegression(**params).fit(X, y)


def test_bad_sample_weight():
    X, y = _data(12)
    with pytest.raises(ValueError, match="zero"):
        LinearRegression().fit(X, y, sample_weight=np.zeros(len(y)))
    with pytest.raises(ValueError, match="Negative"):
        LinearRegression().fit(X, y, sample_weight=-np.ones(len(y)))
    with pytest.raises(ValueError, match="entries"):
        LinearRegression().fit(X, y, sample_weight=np.ones(3))
