"""Sequential loops of :class:`skml.svm.LinearSVC` (compiled by numba).

Both solvers work on the primal

    P(w) = ½‖w‖² + Σ_i C_i ℓ(y_i <w, x̃_i>),    x̃_i = (x_i, s),

where ``s`` is ``intercept_scaling`` (0 without an intercept: the last
coordinate of ``w`` then stays 0), ``C_i = C · sample_weight_i ·
class_weight(y_i)`` and ``ℓ`` is the hinge ``max(0, 1 − t)`` (code 0) or the
squared hinge ``max(0, 1 − t)²`` (code 1).

* :func:`dual_cd` is the dual coordinate descent of Hsieh et al. (2008), the
  algorithm of liblinear: one ``α_i`` at a time, in a fresh random order at
  every outer iteration, with liblinear's shrinking heuristic. Each update
  reads the ``w`` left by the previous one, so the loop is sequential.
* :func:`pegasos_epoch` runs one epoch of Pegasos (Shalev-Shwartz et al.
  2007, 2011), the projected stochastic sub-gradient method of notes B §5.6.

``X`` is a dense C-contiguous array or a CSR matrix as ``CSRRows``
(:mod:`skml.utils._csr_rows`): rows are read through ``row_span`` and
``row_entry``, so the same loops serve both, and on CSR rows a dual update
costs O(nnz of the row). Pegasos's shrinking and projection of ``w`` remain
O(n_features) per step on either.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from skml.utils._csr_rows import n_rows, row_entry, row_span

HINGE = 0
SQUARED_HINGE = 1

PegasosRule = namedtuple(
    "PegasosRule", ["loss", "bias_scale", "t0", "lam", "radius", "average"])
PegasosRule.__doc__ = """Pegasos' step rule: the loss code, the intercept column's
value, the clock offset ``t0``, the penalty ``lam``, the projection radius
(``inf`` for none) and whether the average ``w̄`` is kept."""


@njit(cache=True, nogil=True)
def _next_state(state):
    # xorshift64: a seeded generator local to the kernel, so the permutation
    # depends only on random_state, whatever thread runs the kernel.
    state ^= state << np.uint64(13)
    state ^= state >> np.uint64(7)
    state ^= state << np.uint64(17)
    return state


@njit(cache=True, nogil=True)
def _score(X, i, w, bias_scale):
    s = w[w.shape[0] - 1] * bias_scale
    a, b = row_span(X, i)
    for p in range(a, b):
        j, x = row_entry(X, i, p)
        s += w[j] * x
    return s


@njit(cache=True, nogil=True)
def dual_cd(X, y, c, loss, bias_scale, alpha, w, tol, max_iter, seed):
    """Minimise the dual of ``P`` by coordinate descent, in place.

    The dual is ``min_α ½ αᵀ(Q + D)α − Σα_i`` subject to ``0 ≤ α_i ≤ U_i``
    with ``Q_ij = y_i y_j <x̃_i, x̃_j>``; for the hinge ``U_i = C_i, D = 0``,
    for the squared hinge ``U_i = ∞, D_ii = 1/(2 C_i)``. ``w = Σ α_i y_i x̃_i``
    is kept up to date, so the gradient of coordinate ``i`` costs one dot
    product: ``G_i = y_i <w, x̃_i> − 1 + D_ii α_i``.

    Parameters
    ----------
    X : ndarray of shape (n, d), C-contiguous float64, or CSRRows
    y : ndarray of shape (n,), values in {-1, +1}
    c : ndarray of shape (n,), the C_i, all > 0
    loss : int, HINGE or SQUARED_HINGE
    bias_scale : float, the constant feature ``s`` (0 for no intercept)
    alpha : ndarray of shape (n,), updated in place (start from zeros)
    w : ndarray of shape (d + 1,), must equal ``Σ α_i y_i x̃_i`` on entry
    tol : float, stop when max − min projected gradient ≤ tol
    max_iter : int, outer iterations
    seed : int, of the permutations

    Returns
    -------
    n_iter : int
        Outer iterations run (``max_iter`` means not converged).
    """
    n, d = n_rows(X), w.shape[0] - 1
    upper = np.empty(n)
    diag = np.empty(n)
    qd = np.empty(n)
    index = np.arange(n)
    for i in range(n):
        if loss == HINGE:
            upper[i] = c[i]
            diag[i] = 0.0
        else:
            upper[i] = np.inf
            diag[i] = 0.5 / c[i]
        sq = bias_scale * bias_scale
        a, b = row_span(X, i)
        for p in range(a, b):
            x = row_entry(X, i, p)[1]
            sq += x * x
        qd[i] = sq + diag[i]

    state = np.uint64(seed) * np.uint64(2654435761) + np.uint64(88172645463325252)
    active = n
    pg_max_old = np.inf
    pg_min_old = -np.inf
    n_iter = 0
    while n_iter < max_iter:
        pg_max_new = -np.inf
        pg_min_new = np.inf
        for s in range(active):
            state = _next_state(state)
            k = s + np.int64(state % np.uint64(active - s))
            index[s], index[k] = index[k], index[s]

        s = 0
        while s < active:
            i = index[s]
            G = y[i] * _score(X, i, w, bias_scale) - 1.0 + diag[i] * alpha[i]
            PG = 0.0
            if alpha[i] == 0.0:
                if G > pg_max_old:
                    # Shrinking: a bound variable whose gradient points out
                    # of the box by more than last iteration's extreme
                    # projected gradient is unlikely to move again.
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                elif G < 0.0:
                    PG = G
            elif alpha[i] == upper[i]:
                if G < pg_min_old:
                    active -= 1
                    index[s], index[active] = index[active], index[s]
                    continue
                elif G > 0.0:
                    PG = G
            else:
                PG = G
            pg_max_new = max(pg_max_new, PG)
            pg_min_new = min(pg_min_new, PG)
            if abs(PG) > 1e-12:
                a_old = alpha[i]
                if qd[i] > 0.0:
                    alpha[i] = min(max(a_old - G / qd[i], 0.0), upper[i])
                else:
                    # x̃_i = 0 (an empty row without intercept, hinge): the
                    # dual is linear in α_i with slope G, so α_i goes to the
                    # bound it points to (liblinear's G / 0 = ±inf, clipped).
                    alpha[i] = upper[i] if G < 0.0 else 0.0
                step = (alpha[i] - a_old) * y[i]
                a, b = row_span(X, i)
                for p in range(a, b):
                    j, x = row_entry(X, i, p)
                    w[j] += step * x
                w[d] += step * bias_scale
            s += 1

        n_iter += 1
        if pg_max_new - pg_min_new <= tol:
            if active == n:
                break
            # Converged on the shrunk problem: check every variable again.
            active = n
            pg_max_old = np.inf
            pg_min_old = -np.inf
            continue
        pg_max_old = pg_max_new if pg_max_new > 0.0 else np.inf
        pg_min_old = pg_min_new if pg_min_new < 0.0 else -np.inf
    return n_iter


@njit(cache=True, nogil=True)
def pegasos_epoch(X, y, c, rule, w, w_avg, t, seed):
    """One epoch (n steps, a random permutation) of Pegasos, in place.

    Step ``t`` (counted from 1 over all epochs) picks sample ``i`` and sets

        w ← (1 − η_t λ) w − η_t c_i ∂ℓ(y_i <w, x̃_i>) y_i x̃_i,   η_t = 1/(λ (t + t0)),

    which is a sub-gradient step on ``λ/2 ‖w‖² + (1/n) Σ c_i ℓ_i`` (Pegasos
    has ``t0 = 0``; the caller sets ``t0 > 0`` for the squared hinge); then, if
    ``radius`` is finite, projects ``w`` on the ball ``‖w‖ ≤ radius`` that
    contains the minimiser. With ``average`` the polynomial-decay average
    ``w̄ ← (1 − 4/(t + 3)) w̄ + 4/(t + 3) w`` (Shamir and Zhang 2013) is kept
    in ``w_avg``. ``rule`` is a :class:`PegasosRule` (``loss``,
    ``bias_scale``, ``t0``, ``lam``, ``radius``, ``average``).

    Returns
    -------
    t : int
        The step counter after the epoch.
    """
    loss, bias_scale, t0, lam = rule.loss, rule.bias_scale, rule.t0, rule.lam
    radius = rule.radius
    n, d = n_rows(X), w.shape[0] - 1
    order = np.arange(n)
    state = np.uint64(seed) * np.uint64(2654435761) + np.uint64(88172645463325252)
    for s in range(n):
        state = _next_state(state)
        k = s + np.int64(state % np.uint64(n - s))
        order[s], order[k] = order[k], order[s]
    for s in range(n):
        i = order[s]
        t += 1
        eta = 1.0 / (lam * (t + t0))
        margin = y[i] * _score(X, i, w, bias_scale)
        shrink = 1.0 - 1.0 / (t + t0)
        for j in range(d + 1):
            w[j] *= shrink
        if margin < 1.0:
            if loss == HINGE:
                g = c[i]
            else:
                g = 2.0 * c[i] * (1.0 - margin)
            step = eta * g * y[i]
            a, b = row_span(X, i)
            for p in range(a, b):
                j, x = row_entry(X, i, p)
                w[j] += step * x
            w[d] += step * bias_scale
        if radius < np.inf:
            norm2 = 0.0
            for j in range(d + 1):
                norm2 += w[j] * w[j]
            if norm2 > radius * radius:
                scale = radius / np.sqrt(norm2)
                for j in range(d + 1):
                    w[j] *= scale
        if rule.average:
            rho = 4.0 / (t + 3.0)
            for j in range(d + 1):
                w_avg[j] += rho * (w[j] - w_avg[j])
    return t


@njit(cache=True, nogil=True)
def crammer_singer_cd(X, y, c, n_classes, bias_scale, alpha, W, tol, max_iter, seed):
    """The joint multi-class SVM of Crammer and Singer by dual coordinate descent.

    Primal (notes B §5.11 "joint optimisation", one weight vector per class
    on the same scale)::

        min_W  ½ Σ_m ‖w_m‖² + Σ_i C_i ξ_i
        s.t.   <w_{y_i} − w_m, x̃_i> ≥ 1 − δ(y_i, m) − ξ_i   for all i, m.

    Its dual has one block ``α_i ∈ R^K`` per sample, with ``Σ_m α_im = 0``,
    ``α_im ≤ 0`` for ``m ≠ y_i`` and ``α_{i y_i} ≤ C_i``, and
    ``w_m = Σ_i α_im x̃_i``. The block of sample ``i`` is solved exactly with
    the others fixed (Keerthi et al. 2008, the algorithm of liblinear's
    ``crammer_singer``): with ``A = ‖x̃_i‖²`` and
    ``B_m = <w_m, x̃_i> + 1 − δ(y_i, m) − A α_im``, the sub-problem
    ``min ½ A Σ α_m² + Σ B_m α_m`` over the constraints has the solution
    ``α_m = min(C_m, (β − B_m)/A)``; ``β`` is found by sorting
    ``D_m = B_m + A C_m`` in decreasing order and taking the first ``r`` with
    ``β_r = (Σ_{top r} D − A C_i)/r ≥ D_(r+1)``.

    Parameters
    ----------
    X : ndarray of shape (n, d) or CSRRows
    y : ndarray of shape (n,), int64 class indices
    c : ndarray of shape (n,), the C_i, all > 0
    n_classes : int
    bias_scale : float, the constant feature (0 for no intercept)
    alpha : ndarray of shape (n, n_classes), updated in place (from zeros)
    W : ndarray of shape (n_classes, d + 1), equal to ``αᵀ X̃`` on entry
    tol : float, stop when every block's violation
        ``max_m G_m − min_{m: α_m < C_m} G_m`` (``G_m = B_m + A α_m``, the
        gradient) is at most ``tol`` in one pass
    max_iter : int, passes over the data
    seed : int, of the permutations

    Returns
    -------
    n_iter : int
    """
    n, d = n_rows(X), W.shape[1] - 1
    K = n_classes
    sq = np.empty(n)
    for i in range(n):
        s2 = bias_scale * bias_scale
        a, b = row_span(X, i)
        for p in range(a, b):
            x = row_entry(X, i, p)[1]
            s2 += x * x
        sq[i] = s2
    index = np.arange(n)
    G = np.empty(K)
    B = np.empty(K)
    D = np.empty(K)
    state = np.uint64(seed) * np.uint64(2654435761) + np.uint64(88172645463325252)
    n_iter = 0
    while n_iter < max_iter:
        for s in range(n):
            state = _next_state(state)
            k = s + np.int64(state % np.uint64(n - s))
            index[s], index[k] = index[k], index[s]
        worst = 0.0
        for s in range(n):
            i = index[s]
            A = sq[i]
            if A <= 0.0:
                continue  # x̃_i = 0: its block does not move w
            yi = y[i]
            for m in range(K):
                G[m] = W[m, d] * bias_scale + (0.0 if m == yi else 1.0)
            a, b = row_span(X, i)
            for p in range(a, b):
                j, x = row_entry(X, i, p)
                for m in range(K):
                    G[m] += W[m, j] * x
            g_max = -np.inf
            g_min = np.inf
            for m in range(K):
                g_max = max(g_max, G[m])
                upper = c[i] if m == yi else 0.0
                if alpha[i, m] < upper:
                    g_min = min(g_min, G[m])
            violation = g_max - g_min
            worst = max(worst, violation)
            if violation <= 1e-12:
                continue
            for m in range(K):
                B[m] = G[m] - A * alpha[i, m]
                D[m] = B[m] + (A * c[i] if m == yi else 0.0)
            D_sorted = -np.sort(-D)
            total = 0.0
            beta = 0.0
            for r in range(1, K + 1):
                total += D_sorted[r - 1]
                beta = (total - A * c[i]) / r
                if r == K or beta >= D_sorted[r]:
                    break
            for m in range(K):
                upper = c[i] if m == yi else 0.0
                new = min(upper, (beta - B[m]) / A)
                delta = new - alpha[i, m]
                if delta != 0.0:
                    alpha[i, m] = new
                    for p in range(a, b):
                        j, x = row_entry(X, i, p)
                        W[m, j] += delta * x
                    W[m, d] += delta * bias_scale
        n_iter += 1
        if worst <= tol:
            break
    return n_iter
