"""Coordinate descent for the L1-regularised squared-hinge SVM (compiled by numba).

:class:`skml.svm.LinearSVC` with ``penalty="l1"`` minimises the primal

    P(w) = ‖w‖₁ + Σ_i C_i max(0, 1 − y_i <w, x̃_i>)²,    x̃_i = (x_i, s),

(``s`` the intercept column, so the intercept is penalised as ``|b / s|``,
as for the L2 penalty by ``(b / s)²``). There is no useful dual: the L1
norm makes ``P`` non-smooth and sparse at the minimiser, so it is solved on
the primal, one coordinate at a time (the CDN method of Yuan, Chang, Hsieh
and Lin, JMLR 2010, the algorithm of liblinear's ``-s 5``). For coordinate
``j`` the loss term is once differentiable with the generalised second
derivative ``H_j = 2 Σ_{b_i > 0} C_i x_ij²`` (``b_i = 1 − y_i <w, x̃_i>``);
the step minimises its second-order model plus ``|w_j + d|`` in closed form
(soft thresholding) and is halved until the exact decrease passes an Armijo
test. Keeping ``b`` up to date makes a step cost O(nnz of column j).

Coordinates at zero whose gradient sits well inside ``(−1, 1)`` are shrunk
(skipped) until the reduced problem converges, then every coordinate is
checked again; the stopping rule is liblinear's: the L1 norm of the minimum-
norm subgradient has fallen by the factor ``tol`` from its first value.

``X̃`` is read by columns, as CSC arrays ``(data, indices, indptr)`` (dense
input is converted: the zeros are never visited); a column that stores every
sample is read in order, by the vectorised helpers.
"""

import numpy as np
from numba import njit

# Armijo's sufficient-decrease fraction and the number of step halvings.
_SIGMA = 0.01
_MAX_HALVINGS = 20


@njit(cache=True, nogil=True)
def _next_state(state):
    # 64-bit linear congruential generator (Knuth's MMIX constants)
    return (state * np.uint64(6364136223846793005)
            + np.uint64(1442695040888963407))


# A column that stores every sample (dense data without zeros, the intercept
# column) is read in order, without its indices, by the helpers below: their
# loops have no gather and no branch (a select), and ``reassoc`` lets the
# compiler split the sums into vector lanes (their order changes, their
# rounding with it; nothing else). On 15000 x 21 standardised columns this
# made a fit 4-5x faster. Columns with missing entries keep the indexed loops
# (a reassociated gather loop was slower than the scalar one).
@njit(cache=True, nogil=True, fastmath={"reassoc", "nsz"})
def _full_column_terms(col, b, C):
    """``(Σ C_i v_i b_i, Σ C_i v_i², Σ C_i b_i²)`` over the samples with ``b_i > 0``."""
    grad = 0.0
    hess = 0.0
    loss = 0.0
    for i in range(col.shape[0]):
        bi = b[i]
        positive = bi > 0.0
        cb = C[i] * bi if positive else 0.0
        cv = C[i] * col[i] if positive else 0.0
        grad += cb * col[i]
        hess += cv * col[i]
        loss += cb * bi
    return grad, hess, loss


@njit(cache=True, nogil=True, fastmath={"reassoc", "nsz"})
def _full_column_loss(col, b, C, d):
    """``Σ C_i max(0, b_i − d v_i)²``, the loss after the step d."""
    loss = 0.0
    for i in range(col.shape[0]):
        bi = b[i] - d * col[i]
        loss += C[i] * bi * bi if bi > 0.0 else 0.0
    return loss


@njit(cache=True, nogil=True)
def _full_column_step(col, b, d):
    for i in range(col.shape[0]):
        b[i] -= d * col[i]


@njit(cache=True, nogil=True)
def l1_squared_hinge_cd(data, indices, indptr, C, w, tol, max_iter, seed):
    """Minimise ``‖w‖₁ + Σ_i C_i max(0, 1 − y_i <w, x̃_i>)²`` in place.

    Parameters
    ----------
    data, indices, indptr : CSC arrays of ``y_i x̃_i`` (n_samples, n_columns):
        the labels ±1 are folded into the entries (one load less per entry).
    C : float64 array, the per-sample loss weights (0 removes a sample).
    w : float64 array of n_columns, the start point; overwritten.
    tol : relative decrease of the subgradient's L1 norm that stops it.
    max_iter : passes over the active coordinates.
    seed : int seeding the order of the coordinates.

    Returns
    -------
    n_iter : int
    """
    n_samples = C.shape[0]
    n_cols = w.shape[0]
    # b_i = 1 − y_i <w, x̃_i>, the slack of every sample
    b = np.ones(n_samples)
    for j in range(n_cols):
        if w[j] != 0.0:
            for p in range(indptr[j], indptr[j + 1]):
                i = indices[p]
                b[i] -= w[j] * data[p]
    # xsq_j = Σ_i C_i x_ij²: the loss changes by at most grad d + xsq_j d²
    # along coordinate j (max(0, t)² has second derivative <= 2), a bound
    # that accepts most steps without a pass over the column
    xsq = np.zeros(n_cols)
    for j in range(n_cols):
        for p in range(indptr[j], indptr[j + 1]):
            xsq[j] += C[indices[p]] * data[p] * data[p]
    order = np.arange(n_cols)
    active = n_cols
    state = np.uint64(seed) * np.uint64(2654435761) + np.uint64(1)
    g_max_old = np.inf
    g_norm_init = 0.0
    n_iter = 0
    while n_iter < max_iter:
        # a fresh random order of the active coordinates (Fisher-Yates)
        for k in range(active - 1, 0, -1):
            state = _next_state(state)
            r = int((state >> np.uint64(33)) % np.uint64(k + 1))
            tmp = order[k]
            order[k] = order[r]
            order[r] = tmp
        g_max_new = 0.0
        g_norm = 0.0
        threshold = g_max_old / n_samples
        s = 0
        while s < active:
            j = order[s]
            start, end = indptr[j], indptr[j + 1]
            full = end - start == n_samples
            if full:
                grad, hess, loss_old = _full_column_terms(data[start:end], b, C)
                grad = -grad
            else:
                grad = 0.0
                hess = 0.0
                loss_old = 0.0
                for p in range(start, end):
                    i = indices[p]
                    bi = b[i]
                    if bi > 0.0:
                        v = data[p]
                        grad -= C[i] * v * bi
                        hess += C[i] * v * v
                        loss_old += C[i] * bi * bi
            grad *= 2.0
            hess = max(2.0 * hess, 1e-12)
            g_plus = grad + 1.0
            g_minus = grad - 1.0
            wj = w[j]
            violation = 0.0
            if wj == 0.0:
                if g_plus < 0.0:
                    violation = -g_plus
                elif g_minus > 0.0:
                    violation = g_minus
                elif g_plus > threshold and g_minus < -threshold:
                    # well inside the subdifferential: shrink j away
                    active -= 1
                    order[s] = order[active]
                    order[active] = j
                    continue
            elif wj > 0.0:
                violation = abs(g_plus)
            else:
                violation = abs(g_minus)
            g_max_new = max(g_max_new, violation)
            g_norm += violation
            s += 1
            # the minimiser of grad d + hess d² / 2 + |wj + d|
            if g_plus < hess * wj:
                d = -g_plus / hess
            elif g_minus > hess * wj:
                d = -g_minus / hess
            else:
                d = -wj
            if abs(d) < 1e-12:
                continue
            # the model's predicted decrease, scaled with the step
            delta = grad * d + abs(wj + d) - abs(wj)
            # the full step passes Armijo's test by the bound alone?
            accepted = (abs(wj + d) - abs(wj) + grad * d + xsq[j] * d * d
                        <= _SIGMA * delta)
            for _ in range(0 if accepted else _MAX_HALVINGS):
                if full:
                    loss_new = _full_column_loss(data[start:end], b, C, d)
                else:
                    loss_new = 0.0
                    for p in range(start, end):
                        i = indices[p]
                        bi = b[i] - d * data[p]
                        if bi > 0.0:
                            loss_new += C[i] * bi * bi
                change = abs(wj + d) - abs(wj) + loss_new - loss_old
                if change <= _SIGMA * delta:
                    accepted = True
                    break
                d *= 0.5
                delta *= 0.5
            if not accepted:
                continue
            w[j] = wj + d
            if full:
                _full_column_step(data[start:end], b, d)
                continue
            for p in range(start, end):
                i = indices[p]
                b[i] -= d * data[p]
        n_iter += 1
        if n_iter == 1:
            g_norm_init = g_norm
        if g_norm <= tol * g_norm_init:
            if active == n_cols:
                break
            # the reduced problem converged: check every coordinate again
            active = n_cols
            g_max_old = np.inf
            continue
        g_max_old = g_max_new
    return n_iter
