"""Lasso: parity with scikit-learn, KKT conditions, alpha_max, warm start, bad input."""

import warnings

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st
from numpy.testing import assert_allclose, assert_array_equal
from sklearn import linear_model as sk
from sklearn.datasets import load_diabetes
from sklearn.exceptions import ConvergenceWarning

from skml.linear_model import Lasso
from tests._parity import parity_test

TIGHT = {"tol": 1e-12, "max_iter": 100_000}


def _data(seed, n=30, p=6, n_targets=None):
    rng = np.random.RandomState(seed)
    X = rng.normal(size=(n, p)) * rng.uniform(0.5, 2, size=p) + rng.normal(size=p)
    w = rng.normal(size=(p,) if n_targets is None else (p, n_targets))
    w[: p // 2] = 0.0
    y = X @ w + 0.5 * rng.normal(size=w.shape[1:] and (n, n_targets) or (n,)) + 3.0
    return X, y


def _alpha_max(X, y, sw=None):
    s = np.ones(len(y)) if sw is None else sw
    Xc = X - np.average(X, axis=0, weights=s)
    yc = y - np.average(y, weights=s)
    return np.max(np.abs(Xc.T @ (s * yc))) / s.sum()


def _check_kkt(X, y, reg, sw=None, atol=1e-6):
    # Subgradient optimality of (1/2Σs)Σ s r² + α‖w‖₁ at the fitted w:
    # g = X_cᵀ S r / Σs equals α sign(w_j) where w_j ≠ 0, |g_j| ≤ α elsewhere.
    s = np.ones(len(y)) if sw is None else sw
    r = y - reg.predict(X)
    assert abs(s @ r) <= 1e-8 * (s @ np.abs(y))  # optimal intercept
    g = (X - np.average(X, axis=0, weights=s)).T @ (s * r) / s.sum()
    alpha, w = reg.alpha, reg.coef_
    active = w != 0
    assert_allclose(g[active], alpha * np.sign(w[active]), atol=atol)
    if reg.positive:
        assert np.all(w >= 0) and np.all(g[~active] <= alpha + atol)
    else:
        assert np.all(np.abs(g[~active]) <= alpha + atol)


@parity_test(Lasso)
@pytest.mark.parametrize("alpha", [0.01, 0.1, 0.5, 1.0])
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("precompute", [False, True])
def test_parity_diabetes(alpha, weighted, precompute):
    X, y = load_diabetes(return_X_y=True)
    sw = np.random.RandomState(0).uniform(0.1, 3.0, size=len(y)) if weighted else None
    ours = Lasso(alpha=alpha, precompute=precompute).fit(X, y, sample_weight=sw)
    ref = sk.Lasso(alpha=alpha).fit(X, y, sample_weight=sw)
    # Same algorithm and stopping rule: identical sparsity, coef to 1e-3 relative.
    assert_array_equal(ours.coef_ == 0, ref.coef_ == 0)
    assert_allclose(ours.coef_, ref.coef_, rtol=1e-3)
    assert_allclose(ours.intercept_, ref.intercept_, rtol=1e-3)


@given(
    seed=st.integers(0, 2**16),
    frac=st.floats(0.01, 0.99),
    weighted=st.booleans(),
    positive=st.booleans(),
    precompute=st.booleans(),
)
def test_kkt_conditions_hold(seed, frac, weighted, positive, precompute):
    X, y = _data(seed)
    sw = np.random.RandomState(seed).uniform(0, 2, size=len(y)) if weighted else None
    alpha = frac * _alpha_max(X, y, sw)
    reg = Lasso(alpha=alpha, positive=positive, precompute=precompute, **TIGHT)
    reg.fit(X, y, sample_weight=sw)
    _check_kkt(X, y, reg, sw, atol=1e-5 * alpha)


@given(seed=st.integers(0, 2**16), weighted=st.booleans())
def test_zero_solution_above_alpha_max(seed, weighted):
    X, y = _data(seed)
    sw = np.random.RandomState(seed).uniform(0, 2, size=len(y)) if weighted else None
    alpha_max = _alpha_max(X, y, sw)
    reg = Lasso(alpha=alpha_max * (1 + 1e-9)).fit(X, y, sample_weight=sw)
    assert np.all(reg.coef_ == 0) and reg.n_iter_ == 0
    s = np.ones(len(y)) if sw is None else sw
    assert reg.intercept_ == pytest.approx(np.average(y, weights=s))
    below = Lasso(alpha=alpha_max * 0.99, **TIGHT).fit(X, y, sample_weight=sw)
    assert np.count_nonzero(below.coef_) >= 1


@given(seed=st.integers(0, 2**16))
def test_orthogonal_design_is_soft_thresholding_and_sparsity_grows(seed):
    # With X_cᵀX_c = n I the Lasso solution is S(X_cᵀy/n, α) per coordinate,
    # so the number of non-zeros is non-increasing in α.
    rng = np.random.RandomState(seed)
    n, p = 40, 8
    Z = rng.normal(size=(n, p))
    Q, _ = np.linalg.qr(Z - Z.mean(axis=0))
    X = np.sqrt(n) * Q
    y = X @ rng.normal(size=p) + rng.normal(size=n)
    z = X.T @ (y - y.mean()) / n
    nnz = []
    for alpha in np.linspace(0.0, 1.1, 12) * np.abs(z).max():
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)  # alpha = 0
            reg = Lasso(alpha=alpha, **TIGHT).fit(X, y)
        expected = np.sign(z) * np.maximum(np.abs(z) - alpha, 0.0)
        assert_allclose(reg.coef_, expected, atol=1e-9)
        nnz.append(np.count_nonzero(reg.coef_))
    assert np.all(np.diff(nnz) <= 0) and nnz[0] == p and nnz[-1] == 0


def test_warm_start_gives_the_same_solution():
    X, y = _data(1, n=60, p=10)
    cold = Lasso(alpha=0.05, **TIGHT).fit(X, y)
    warm = Lasso(alpha=0.5, warm_start=True, **TIGHT).fit(X, y)
    warm.set_params(alpha=0.05).fit(X, y)
    assert_allclose(warm.coef_, cold.coef_, rtol=1e-8, atol=1e-10)
    assert warm.n_iter_ <= cold.n_iter_
    warm.fit(X, y)  # already optimal: the first gap check stops it
    assert warm.n_iter_ == 0
    assert_allclose(warm.coef_, cold.coef_, rtol=1e-8, atol=1e-10)


@pytest.mark.parametrize("precompute", [False, True])
def test_random_selection_reaches_the_cyclic_solution(precompute):
    X, y = _data(2, n=60, p=10)
    cyclic = Lasso(alpha=0.05, precompute=precompute, **TIGHT).fit(X, y)
    params = dict(alpha=0.05, selection="random", precompute=precompute, **TIGHT)
    rand = [Lasso(random_state=s, **params).fit(X, y) for s in (0, 0, 1)]
    assert_array_equal(rand[0].coef_, rand[1].coef_)  # reproducible
    for reg in rand:
        assert_allclose(reg.coef_, cyclic.coef_, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("precompute", [False, True])
def test_multi_output_equals_separate_fits(precompute):
    X, Y = _data(3, n_targets=3)
    reg = Lasso(alpha=0.1, precompute=precompute).fit(X, Y)
    assert reg.coef_.shape == (3, 6) and reg.intercept_.shape == (3,)
    assert reg.dual_gap_.shape == (3,) and len(reg.n_iter_) == 3
    for k in range(3):
        single = Lasso(alpha=0.1, precompute=precompute).fit(X, Y[:, k])
        # Gram columns come from one GEMM instead of a GEMV: last-bit changes.
        assert_allclose(reg.coef_[k], single.coef_, rtol=1e-12, atol=1e-15)
        assert reg.intercept_[k] == pytest.approx(single.intercept_)


@given(seed=st.integers(0, 2**16))
def test_integer_weights_equal_repeated_rows(seed):
    X, y = _data(seed, n=12)
    sw = np.random.RandomState(seed).randint(0, 4, size=len(y))
    sw[0] = 1
    alpha = 0.3 * _alpha_max(X, y, sw.astype(float))
    weighted = Lasso(alpha=alpha, **TIGHT).fit(X, y, sample_weight=sw)
    repeated = Lasso(alpha=alpha, **TIGHT).fit(np.repeat(X, sw, 0), np.repeat(y, sw))
    assert_allclose(weighted.coef_, repeated.coef_, rtol=1e-7, atol=1e-9)
    assert_allclose(weighted.intercept_, repeated.intercept_, rtol=1e-7)


def test_dual_gap_and_convergence_warning():
    X, y = load_diabetes(return_X_y=True)
    reg = Lasso(alpha=0.01).fit(X, y)
    assert 0 <= reg.dual_gap_ <= reg.tol * np.var(y)
    with pytest.warns(ConvergenceWarning, match="duality gap"):
        Lasso(alpha=0.001, max_iter=2).fit(X, y)


def test_d1_lambda_mapping():
    # D1 minimises (1/n)‖Xw − y‖² + λ‖w‖₁ = 2 × this objective at α = λ/2.
    X, y = _data(4)
    lam = 0.4
    reg = Lasso(alpha=lam / 2, **TIGHT).fit(X, y)

    def d1(w, b):
        return np.mean((X @ w + b - y) ** 2) + lam * np.abs(w).sum()

    best = d1(reg.coef_, reg.intercept_)
    rng = np.random.RandomState(0)
    for _ in range(50):
        dw = 1e-3 * rng.normal(size=X.shape[1])
        assert d1(reg.coef_ + dw, reg.intercept_ + 1e-3 * rng.normal()) >= best


def test_no_intercept_and_alpha_zero_warning():
    X, y = _data(5)
    reg = Lasso(alpha=0.1, fit_intercept=False, **TIGHT).fit(X, y)
    assert reg.intercept_ == 0.0
    r = y - X @ reg.coef_
    g = X.T @ r / len(y)
    active = reg.coef_ != 0
    assert_allclose(g[active], 0.1 * np.sign(reg.coef_[active]), atol=1e-6)
    with pytest.warns(UserWarning, match="alpha=0"):
        Lasso(alpha=0.0).fit(X, y)


def test_copy_X_false_centres_in_place_without_changing_the_fit():
    X, y = _data(6)
    X = np.asfortranarray(X)
    ref = Lasso(alpha=0.1).fit(X.copy(), y)
    reg = Lasso(alpha=0.1, copy_X=False).fit(X, y)
    assert_allclose(reg.coef_, ref.coef_)
    X_c = np.ascontiguousarray(_data(6)[0])  # C input: validation copies
    X_keep = X_c.copy()
    Lasso(alpha=0.1).fit(X_c, y)
    assert_array_equal(X_c, X_keep)


@pytest.mark.parametrize(
    "params, match",
    [
        ({"alpha": -0.1}, "'alpha' parameter"),
        ({"selection": "greedy"}, "'selection' parameter"),
        ({"precompute": "yes"}, "'precompute' parameter"),
        ({"max_iter": 0}, "'max_iter' parameter"),
    ],
)
def test_bad_params(params, match):
    X, y = _data(7)
    with pytest.raises(ValueError, match=match):
        Lasso(**params).fit(X, y)


def test_all_zero_weights():
    X, y = _data(8)
    with pytest.raises(ValueError, match="zero"):
        Lasso().fit(X, y, sample_weight=np.zeros(len(y)))


@pytest.mark.parametrize("precompute", [False, True])
def test_extreme_magnitude_solves_the_same_problem(precompute):
    # Issue 23: at X * 1e300 the Lasso answered R² 0. The penalty
    # alpha ‖w‖₁ = (alpha / s) ‖w'‖₁ in the units of X / s is ~0 there, so
    # the exact solution is least squares.
    X, y = load_diabetes(return_X_y=True)
    ols = sk.LinearRegression().fit(X, y)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", ConvergenceWarning)
        reg = Lasso(alpha=0.1, precompute=precompute, max_iter=2000).fit(X * 1e300, y)
    assert_allclose(reg.predict(X * 1e300), ols.predict(X), rtol=1e-6)
    tiny = Lasso(alpha=0.1, precompute=precompute).fit(X * 1e-300, y)
    assert_array_equal(tiny.coef_, 0.0)


def test_path_and_sparse_coef_match_scikit_learn():
    import numpy as np
    import pytest
    from scipy import sparse
    from sklearn.linear_model import Lasso as SkLasso

    from skml.linear_model import Lasso
    from tests._data import load

    X, y = load("diabetes")
    X, y = X - X.mean(0), y - y.mean()
    alphas, coefs, gaps = Lasso.path(X, y, n_alphas=20, tol=1e-10, max_iter=100_000)
    assert coefs.shape == (X.shape[1], 20) and gaps.shape == (20,)
    # The grid starts at the smallest alpha with all-zero coefficients.
    assert alphas[0] == pytest.approx(np.abs(X.T @ y).max() / len(y))
    assert np.all(coefs[:, 0] == 0) and np.any(coefs[:, 1] != 0)
    # Each point of the path is scikit-learn's Lasso solution at that alpha.
    for k in (1, 7, 19):
        sk = SkLasso(alpha=alphas[k], fit_intercept=False, tol=1e-10,
                     max_iter=100_000).fit(X, y)
        np.testing.assert_allclose(coefs[:, k], sk.coef_, atol=1e-6 * np.abs(sk.coef_).max())
    model = Lasso(alpha=1.0).fit(X, y)
    assert sparse.issparse(model.sparse_coef_)
    np.testing.assert_array_equal(model.sparse_coef_.toarray().ravel(), model.coef_)


def test_warnings_carry_scikit_learns_wording():
    # Pipelines that filter these warnings by scikit-learn's text keep working.
    X, y = load_diabetes(return_X_y=True)
    with pytest.warns(ConvergenceWarning, match="Objective did not converge. You "
                      "might want to increase the number of iterations"):
        Lasso(alpha=1e-4, max_iter=1, tol=1e-12).fit(X, y)
    with pytest.warns(UserWarning, match="With alpha=0, this algorithm does not "
                      "converge well. You are advised to use the LinearRegression"):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", ConvergenceWarning)
            Lasso(alpha=0).fit([[-1.0], [0.0], [1.0]], [-1.0, 0.0, 1.0])
