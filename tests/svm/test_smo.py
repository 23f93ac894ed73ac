"""The SMO solver (notes B §5.5, §5.7): KKT, feasibility, duality, monotonicity."""

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from skml.metrics.pairwise import rbf_kernel
from skml.svm._base import smo_dual
from skml.svm._smo_kernels import _take_step


def _problem(seed, n=40, d=3, flip=0.15):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, d))
    y = np.where(X[:, 0] + 0.5 * X[:, 1] > 0, 1.0, -1.0)
    flipped = rng.random(n) < flip
    y[flipped] *= -1
    if np.all(y == y[0]):
        y[0] = -y[0]
    return X, y


def _svc_dual(K, y, C, tol=1e-3, **kw):
    alpha, rho, obj, n_iter, status, trace = smo_dual(
        K, y, -1.0, C, kernel="precomputed", tol=tol, **kw
    )
    assert status == 0
    return alpha, rho, obj, trace


def _margins(K, y, alpha, rho):
    # y_i f(x_i) with f(x) = sum_j a_j y_j k(x_j, x) - rho
    return y * (K @ (alpha * y) - rho)


@given(seed=st.integers(0, 10_000), C=st.sampled_from([0.1, 1.0, 10.0]))
def test_kkt_box_and_equality_constraint_hold(seed, C):
    X, y = _problem(seed)
    K = rbf_kernel(X, gamma=0.5)
    tol = 1e-4
    alpha, rho, _, _ = _svc_dual(K, y, C, tol=tol)
    # feasibility: 0 <= a <= C and sum a_i y_i = 0
    assert np.all(alpha >= 0) and np.all(alpha <= C)
    assert abs(alpha @ y) <= 1e-10 * max(1.0, C * len(y))
    # complementary slackness (notes B §5.5): a=0 => yf >= 1, free => yf = 1,
    # a=C => yf <= 1, each up to the stopping tolerance
    m = _margins(K, y, alpha, rho)
    free = (alpha > 0) & (alpha < C)
    assert np.all(m[alpha == 0] >= 1 - 2 * tol)
    assert np.all(np.abs(m[free] - 1) <= 2 * tol)
    assert np.all(m[alpha == C] <= 1 + 2 * tol)


@pytest.mark.parametrize("C", [0.5, 5.0])
def test_duality_gap_vanishes(C):
    X, y = _problem(1, n=60)
    K = rbf_kernel(X, gamma=1.0)
    gaps = []
    for tol in [1e-2, 1e-4, 1e-7]:
        alpha, rho, obj, _ = _svc_dual(K, y, C, tol=tol)
        v = alpha * y
        half_w2 = 0.5 * v @ K @ v  # 1/2 ||w||^2 through the kernel
        hinge = np.maximum(0.0, 1 - _margins(K, y, alpha, rho))
        primal = half_w2 + C * hinge.sum()
        dual = alpha.sum() - half_w2  # the notes' W(a) = -f(a)
        np.testing.assert_allclose(-obj, dual, rtol=1e-5)
        assert primal >= dual - 1e-8  # weak duality
        gaps.append((primal - dual) / primal)
    assert gaps[-1] < 1e-6
    assert gaps[-1] <= gaps[0]


@pytest.mark.parametrize("shrinking", [True, False])
@pytest.mark.parametrize("seed", [0, 3])
def test_dual_objective_never_decreases(shrinking, seed):
    X, y = _problem(seed, n=80, flip=0.25)
    K = rbf_kernel(X, gamma=2.0)
    alpha, rho, obj, trace = _svc_dual(K, y, 2.0, tol=1e-6, shrinking=shrinking,
                                       n_trace=100_000)
    W = -trace  # the notes' dual W(a), maximised
    assert len(W) > 50
    assert np.all(np.diff(W) >= -1e-12 * np.abs(W).max())
    np.testing.assert_allclose(-W[-1], obj, rtol=1e-8)


@given(seed=st.integers(0, 10_000), same_sign=st.booleans())
def test_pair_step_is_the_clipped_exact_maximiser(seed, same_sign):
    # The two-variable update must be the maximiser of the dual restricted to
    # the pair's feasible segment (notes B §5.7 steps 2-5): compare it with a
    # brute-force grid along that segment.
    rng = np.random.default_rng(seed)
    n, C = 6, 1.0
    X = rng.normal(size=(n, 2))
    K = rbf_kernel(X, gamma=0.7)
    y = np.array([1.0, 1.0 if same_sign else -1.0, 1.0, -1.0, 1.0, -1.0])
    Q = y[:, None] * y[None, :] * K
    alpha = rng.uniform(0, C, size=n)
    p = -np.ones(n)
    G = Q @ alpha + p
    f = lambda a: 0.5 * a @ Q @ a + p @ a  # noqa: E731
    i, j = 0, 1
    a0 = alpha.copy()
    d_i, d_j = _take_step(i, j, Q[i].astype(np.float32), y.copy(),
                          np.full(n, C), np.diag(K).copy(), alpha, G.copy())
    # the pair moves along y_i d_i + y_j d_j = 0 and stays in the box
    assert abs(y[i] * d_i + y[j] * d_j) < 1e-12
    assert np.all((alpha >= -1e-15) & (alpha <= C + 1e-15))
    # brute force over the segment a_j = a0_j + t, a_i = a0_i - y_i y_j t
    lo = max(-a0[j], (a0[i] - C) if y[i] == y[j] else -a0[i])
    hi = min(C - a0[j], a0[i] if y[i] == y[j] else C - a0[i])
    direction = np.zeros(n)
    direction[j] = 1.0
    direction[i] = -y[i] * y[j]
    t = np.linspace(lo, hi, 200_001)
    # f(a0 + t d) = f(a0) + t G'd + t^2/2 d'Qd, on the whole grid at once
    on_grid = f(a0) + t * (G @ direction) + 0.5 * t**2 * (direction @ Q @ direction)
    assert f(alpha) <= on_grid.min() + 1e-9


def test_tiny_cache_and_shrinking_give_the_same_solution():
    # Two cached rows force evictions and cache column swaps on every shrink.
    X, y = _problem(5, n=120, flip=0.3)
    runs = [
        smo_dual(X, y, -1.0, 1.0, kernel="rbf", gamma=1.0, tol=1e-8,
                 shrinking=shrinking, cache_size=cache)
        for shrinking in (True, False)
        for cache in (1e-4, 100)
    ]
    ref = runs[-1][0]
    for alpha, *_ in runs:
        np.testing.assert_allclose(alpha, ref, atol=1e-5)


def test_built_in_kernel_matches_precomputed():
    X, y = _problem(2, n=50)
    K = rbf_kernel(X, gamma=0.3)
    a1, rho1, *_ = smo_dual(X, y, -1.0, 1.0, kernel="rbf", gamma=0.3, tol=1e-8)
    a2, rho2, *_ = smo_dual(K, y, -1.0, 1.0, kernel="precomputed", tol=1e-8)
    np.testing.assert_allclose(a1, a2, atol=1e-6)
    assert rho1 == pytest.approx(rho2, abs=1e-6)


def test_svr_dual_constraints():
    # epsilon-SVR as the 2l-variable problem (notes B §5.12): a, a* in [0, C],
    # a_i a*_i = 0 and sum (a - a*) = 0.
    rng = np.random.default_rng(0)
    X = rng.normal(size=(60, 2))
    z = np.sin(X[:, 0]) + 0.1 * rng.normal(size=60)
    C = 2.0
    alpha, rho, obj, n_iter, status, _ = smo_dual(
        X, z, 0.1, C, kernel="rbf", gamma=1.0, tol=1e-6, svr=True
    )
    a, a_star = alpha[:60], alpha[60:]
    assert status == 0
    assert np.all((alpha >= 0) & (alpha <= C))
    assert np.max(a * a_star) < 1e-12
    assert abs(np.sum(a - a_star)) < 1e-10


def test_max_iter_stops_with_status():
    X, y = _problem(0, n=60, flip=0.3)
    *_, n_iter, status, _ = smo_dual(X, y, -1.0, 1.0, kernel="rbf", gamma=1.0,
                                     max_iter=3)
    assert n_iter == 3 and status == 1
