"""Coordinate-descent kernels of the Lasso (compiled by numba).

Both kernels minimise ``P(w) = ½‖y − Xw‖² + alpha‖w‖₁`` (``alpha`` already
multiplied by ``n_samples`` by the caller) by cyclic or random coordinate
descent with soft-thresholding, and stop on scikit-learn's rule: when the
largest coefficient change of an epoch is at most ``tol · max|w|``, compute
the duality gap ``G(w, v) = P(w) − D(v)`` at the rescaled residual
``v = R · min(1, alpha / ‖XᵀR‖_∞)`` and stop if ``G ≤ tol · ‖y‖²``.
The loop over coordinates is inherently sequential: each update uses the
residual left by the previous one.
"""

import numpy as np
from numba import njit

# BLAS-free, vectorised dot products: see skml.utils._kernels for why.
from skml.utils._kernels import dot


@njit(cache=True, nogil=True)
def _rows_dot(A, v):
    """``A @ v`` for a C-contiguous ``A``, one row at a time."""
    out = np.empty(A.shape[0])
    for j in range(A.shape[0]):
        out[j] = dot(A[j], v)
    return out


@njit(cache=True, nogil=True)
def _next_state(state):
    # xorshift32: a tiny seeded generator local to the kernel, so random
    # selection is reproducible from random_state without global state.
    state ^= (state << 13) & 0xFFFFFFFF
    state ^= state >> 17
    state ^= (state << 5) & 0xFFFFFFFF
    return state


@njit(cache=True, nogil=True)
def _soft_threshold(tmp, alpha, denom, positive):
    if positive and tmp < 0.0:
        return 0.0
    if tmp > alpha:
        return (tmp - alpha) / denom
    if tmp < -alpha:
        return (tmp + alpha) / denom
    return 0.0


@njit(cache=True, nogil=True)
def _gap_from_parts(w, alpha, XtA, R_norm2, Ry, positive):
    """Duality gap of the Lasso from ``XtA = XᵀR``, ``‖R‖²`` and ``R·y``.

    With ``alpha == 0`` there is no dual; like scikit-learn, return the
    first-order optimality measure ``‖XᵀR‖²`` instead.
    """
    if alpha == 0.0:
        return dot(XtA, XtA)
    dual_norm = np.max(XtA) if positive else np.max(np.abs(XtA))
    scale = alpha / dual_norm if dual_norm > alpha else 1.0
    primal = 0.5 * R_norm2 + alpha * np.sum(np.abs(w))
    dual = -0.5 * scale * scale * R_norm2 + scale * Ry
    return primal - dual


@njit(cache=True, nogil=True)
def lasso_cd(w, XT, y, alpha, max_iter, tol, positive, random, seed):
    """Coordinate descent on the data matrix, with residual updates.

    Parameters
    ----------
    w : ndarray of shape (n_features,)
        Initial coefficients, updated in place.
    XT : ndarray of shape (n_features, n_samples), C-contiguous
        The transposed data (a Fortran-ordered X, viewed), so each column of
        X is a contiguous row here.
    y : ndarray of shape (n_samples,)
    alpha : float
        L1 strength of the un-normalised objective (``n_samples · alpha``).
    max_iter : int
    tol : float
    positive : bool
    random : bool
        Pick coordinates uniformly at random instead of cyclically.
    seed : int
        Non-zero seed of the coordinate sampler.

    Returns
    -------
    w : ndarray
    gap : float
        Final duality gap (un-normalised).
    tol_abs : float
        ``tol · ‖y‖²``, the gap threshold used.
    n_iter : int
        Epochs run (0 when the start already met the tolerance).
    """
    n_features, n_samples = XT.shape
    norm2 = np.empty(n_features)
    for j in range(n_features):
        norm2[j] = dot(XT[j], XT[j])
    R = y.copy()
    for j in range(n_features):
        if w[j] != 0.0:
            Xj = XT[j]
            for i in range(n_samples):
                R[i] -= w[j] * Xj[i]
    tol_abs = tol * dot(y, y)
    XtA = _rows_dot(XT, R)
    gap = _gap_from_parts(w, alpha, XtA, dot(R, R), dot(R, y), positive)
    if gap <= tol_abs:
        return w, gap, tol_abs, 0
    state = np.int64(seed) & 0xFFFFFFFF
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        w_max = 0.0
        d_w_max = 0.0
        for f in range(n_features):
            if random:
                state = _next_state(state)
                j = state % n_features
            else:
                j = f
            if norm2[j] == 0.0:
                continue
            w_j = w[j]
            Xj = XT[j]
            tmp = dot(Xj, R) + w_j * norm2[j]
            w_new = _soft_threshold(tmp, alpha, norm2[j], positive)
            if w_new != w_j:
                delta = w_j - w_new
                for i in range(n_samples):
                    R[i] += delta * Xj[i]
                w[j] = w_new
            d_w_max = max(d_w_max, abs(w_new - w_j))
            w_max = max(w_max, abs(w_new))
        if w_max == 0.0 or d_w_max / w_max <= tol or n_iter == max_iter:
            XtA = _rows_dot(XT, R)
            gap = _gap_from_parts(
                w, alpha, XtA, dot(R, R), dot(R, y), positive
            )
            if gap <= tol_abs:
                break
    return w, gap, tol_abs, n_iter


@njit(cache=True, nogil=True)
def lasso_cd_gram(w, Q, q, y_norm2, alpha, max_iter, tol, positive, random, seed):
    """Coordinate descent on the Gram matrix ``Q = XᵀX`` and ``q = Xᵀy``.

    Each update costs ``O(n_features)`` instead of ``O(n_samples)``; the
    residual enters only through ``H = Q w``: ``XᵀR = q − H``,
    ``‖R‖² = ‖y‖² − 2 w·q + w·H`` and ``R·y = ‖y‖² − w·q``. Same parameters
    and returns as :func:`lasso_cd`, with ``y_norm2 = ‖y‖²``.
    """
    n_features = Q.shape[0]
    H = _rows_dot(Q, w)
    tol_abs = tol * y_norm2
    wq = dot(w, q)
    gap = _gap_from_parts(
        w, alpha, q - H, y_norm2 - 2.0 * wq + dot(w, H), y_norm2 - wq, positive
    )
    if gap <= tol_abs:
        return w, gap, tol_abs, 0
    state = np.int64(seed) & 0xFFFFFFFF
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        w_max = 0.0
        d_w_max = 0.0
        for f in range(n_features):
            if random:
                state = _next_state(state)
                j = state % n_features
            else:
                j = f
            if Q[j, j] == 0.0:
                continue
            w_j = w[j]
            tmp = q[j] - H[j] + w_j * Q[j, j]
            w_new = _soft_threshold(tmp, alpha, Q[j, j], positive)
            if w_new != w_j:
                delta = w_new - w_j
                Qj = Q[j]  # Q is symmetric: row j is column j
                for k in range(n_features):
                    H[k] += delta * Qj[k]
                w[j] = w_new
            d_w_max = max(d_w_max, abs(w_new - w_j))
            w_max = max(w_max, abs(w_new))
        if w_max == 0.0 or d_w_max / w_max <= tol or n_iter == max_iter:
            wq = dot(w, q)
            gap = _gap_from_parts(
                w,
                alpha,
                q - H,
                y_norm2 - 2.0 * wq + dot(w, H),
                y_norm2 - wq,
                positive,
            )
            if gap <= tol_abs:
                break
    return w, gap, tol_abs, n_iter


@njit(cache=True, nogil=True)
def _sparse_residual_products(X, x_mean, sqrt_sw, R):
    """``X̃ᵀR`` for ``X̃_j = Xs_j − x̄_j √s`` (see :func:`lasso_cd_sparse`)."""
    data, indices, indptr = X
    n_features = indptr.shape[0] - 1
    r_sum = dot(sqrt_sw, R)
    out = np.empty(n_features)
    for j in range(n_features):
        acc = 0.0
        for p in range(indptr[j], indptr[j + 1]):
            acc += data[p] * R[indices[p]]
        out[j] = acc - x_mean[j] * r_sum
    return out


@njit(cache=True, nogil=True)
def lasso_cd_sparse(w, X, x_mean, sqrt_sw, y, alpha, max_iter, tol, positive, random,
                    seed):
    """Coordinate descent on a CSC matrix, centred implicitly.

    The loop of :func:`lasso_cd` on ``X̃ = Xs − √s x̄ᵀ`` (``Xs = diag(√s) X``
    given as the CSC arrays ``X = (data, indices, indptr)``, ``x̄`` the weighted column means, zero without
    intercept), never forming ``X̃``: the residual is kept as
    ``R = R_s + c √s`` with ``R_s`` updated on the stored entries of the
    column only and the scalar ``c`` carrying the centring, and
    ``T = √s·R_s`` makes ``X̃_jᵀR = Xs_jᵀR_s + c (√s·Xs_j) − x̄_j (T + c Σs)``
    an O(nnz_j) product. An epoch costs O(nnz + p); the gap check O(n + nnz).
    ``‖X̃_j‖² = ‖Xs_j‖² − (Σs) x̄_j²``. Same returns as :func:`lasso_cd`.
    """
    data, indices, indptr = X
    n_features = indptr.shape[0] - 1
    n_samples = y.shape[0]
    sw_sum = dot(sqrt_sw, sqrt_sw)
    norm2 = np.empty(n_features)
    col_sw = np.empty(n_features)  # √s·Xs_j = Σ_i s_i X_ij
    for j in range(n_features):
        sq = 0.0
        cs = 0.0
        for p in range(indptr[j], indptr[j + 1]):
            sq += data[p] * data[p]
            cs += data[p] * sqrt_sw[indices[p]]
        # Cancellation can leave a tiny negative for a constant column.
        norm2[j] = max(sq - sw_sum * x_mean[j] * x_mean[j], 0.0)
        col_sw[j] = cs
    # R = y − X̃w = (y − Xs w) + (x̄·w) √s
    R_s = y.copy()
    c = 0.0
    for j in range(n_features):
        if w[j] != 0.0:
            for p in range(indptr[j], indptr[j + 1]):
                R_s[indices[p]] -= w[j] * data[p]
            c += w[j] * x_mean[j]
    R = np.empty(n_samples)
    for i in range(n_samples):
        R[i] = R_s[i] + c * sqrt_sw[i]
    tol_abs = tol * dot(y, y)
    XtA = _sparse_residual_products(X, x_mean, sqrt_sw, R)
    gap = _gap_from_parts(w, alpha, XtA, dot(R, R), dot(R, y), positive)
    if gap <= tol_abs:
        return w, gap, tol_abs, 0
    T = dot(sqrt_sw, R_s)
    state = np.int64(seed) & 0xFFFFFFFF
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        w_max = 0.0
        d_w_max = 0.0
        for f in range(n_features):
            if random:
                state = _next_state(state)
                j = state % n_features
            else:
                j = f
            if norm2[j] == 0.0:
                continue
            w_j = w[j]
            acc = 0.0
            for p in range(indptr[j], indptr[j + 1]):
                acc += data[p] * R_s[indices[p]]
            xr = acc + c * col_sw[j] - x_mean[j] * (T + c * sw_sum)
            tmp = xr + w_j * norm2[j]
            w_new = _soft_threshold(tmp, alpha, norm2[j], positive)
            if w_new != w_j:
                delta = w_j - w_new
                # R += delta X̃_j = delta Xs_j − delta x̄_j √s
                for p in range(indptr[j], indptr[j + 1]):
                    R_s[indices[p]] += delta * data[p]
                T += delta * col_sw[j]
                c -= delta * x_mean[j]
                w[j] = w_new
            d_w_max = max(d_w_max, abs(w_new - w_j))
            w_max = max(w_max, abs(w_new))
        if w_max == 0.0 or d_w_max / w_max <= tol or n_iter == max_iter:
            for i in range(n_samples):
                R[i] = R_s[i] + c * sqrt_sw[i]
            XtA = _sparse_residual_products(X, x_mean, sqrt_sw, R)
            gap = _gap_from_parts(
                w, alpha, XtA, dot(R, R), dot(R, y), positive
            )
            if gap <= tol_abs:
                break
    return w, gap, tol_abs, n_iter
