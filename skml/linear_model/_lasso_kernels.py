"""Coordinate-descent kernels of the Lasso (compiled by numba).

Both kernels minimise ``P(w) = ½‖y − Xw‖² + alpha‖w‖₁`` (``alpha`` already
multiplied by ``n_samples`` by the caller) by cyclic or random coordinate
descent with soft-thresholding, and stop on scikit-learn's rule: when the
largest coefficient change of an epoch is at most ``tol · max|w|``, compute
the duality gap ``G(w, v) = P(w) − D(v)`` at the rescaled residual
``v = R · min(1, alpha / ‖XᵀR‖_∞)`` and stop if ``G ≤ tol · ‖y‖²``.
The loop over coordinates is inherently sequential: each update uses the
residual left by the previous one.

The three kernels (data matrix, Gram matrix, CSC matrix) share one epoch
loop, :func:`_descend`; each describes its residual as a named tuple
(:class:`DenseCD`, :class:`GramCD`, :class:`SparseCD`) whose type selects,
at compile time, the four things that differ (numba overloads inlined into
the loop): a coordinate's curvature ``‖X_j‖²``, its partial residual
correlation ``X_jᵀR + w_j ‖X_j‖²``, the residual update after ``w_j``
moves, and the duality gap.
"""

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.extending import overload

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


# The residual of each variant, updated in place by the loop. DenseCD: the
# transposed data, y, R = y − Xw and the columns' squared norms. GramCD:
# Q = XᵀX, q = Xᵀy, ‖y‖² and H = Q w. SparseCD: the CSC arrays, the weighted
# column means x̄, √s, y, R_s, the column norms of X̃ and √s·Xs_j, Σs, the
# scalars (c, T) as a 2-array, and R, the scratch of the gap check.
DenseCD = namedtuple("DenseCD", ["XT", "y", "R", "norm2"])
GramCD = namedtuple("GramCD", ["Q", "q", "y_norm2", "H"])
SparseCD = namedtuple("SparseCD", [
    "X", "x_mean", "sqrt_sw", "y", "R_s", "norm2", "col_sw", "sw_sum", "cT", "R",
])


def _curvature(p, j):
    raise NotImplementedError("coordinate-descent hooks run inside numba only")


def _correlation(p, j, w_j):
    raise NotImplementedError("coordinate-descent hooks run inside numba only")


def _move(p, j, w_j, w_new):
    raise NotImplementedError("coordinate-descent hooks run inside numba only")


def _gap(p, w, alpha, positive):
    raise NotImplementedError("coordinate-descent hooks run inside numba only")


def _dense_curvature(p, j):
    return p.norm2[j]


def _dense_correlation(p, j, w_j):
    return dot(p.XT[j], p.R) + w_j * p.norm2[j]


def _dense_move(p, j, w_j, w_new):
    delta = w_j - w_new
    Xj = p.XT[j]
    R = p.R
    for i in range(R.shape[0]):
        R[i] += delta * Xj[i]


def _dense_gap(p, w, alpha, positive):
    XtA = _rows_dot(p.XT, p.R)
    return _gap_from_parts(w, alpha, XtA, dot(p.R, p.R), dot(p.R, p.y), positive)


def _gram_curvature(p, j):
    return p.Q[j, j]


def _gram_correlation(p, j, w_j):
    return p.q[j] - p.H[j] + w_j * p.Q[j, j]


def _gram_move(p, j, w_j, w_new):
    delta = w_new - w_j
    Qj = p.Q[j]  # Q is symmetric: row j is column j
    H = p.H
    for k in range(H.shape[0]):
        H[k] += delta * Qj[k]


def _gram_gap(p, w, alpha, positive):
    wq = dot(w, p.q)
    return _gap_from_parts(
        w, alpha, p.q - p.H, p.y_norm2 - 2.0 * wq + dot(w, p.H), p.y_norm2 - wq, positive
    )


def _sparse_curvature(p, j):
    return p.norm2[j]


def _sparse_correlation(p, j, w_j):
    data, indices, indptr = p.X
    R_s = p.R_s
    acc = 0.0
    for k in range(indptr[j], indptr[j + 1]):
        acc += data[k] * R_s[indices[k]]
    c = p.cT[0]
    xr = acc + c * p.col_sw[j] - p.x_mean[j] * (p.cT[1] + c * p.sw_sum)
    return xr + w_j * p.norm2[j]


def _sparse_move(p, j, w_j, w_new):
    data, indices, indptr = p.X
    delta = w_j - w_new
    # R += delta X̃_j = delta Xs_j − delta x̄_j √s
    R_s = p.R_s
    for k in range(indptr[j], indptr[j + 1]):
        R_s[indices[k]] += delta * data[k]
    p.cT[1] += delta * p.col_sw[j]
    p.cT[0] -= delta * p.x_mean[j]


def _sparse_gap(p, w, alpha, positive):
    R = p.R
    c = p.cT[0]
    for i in range(R.shape[0]):
        R[i] = p.R_s[i] + c * p.sqrt_sw[i]
    XtA = _sparse_residual_products(p.X, p.x_mean, p.sqrt_sw, R)
    return _gap_from_parts(w, alpha, XtA, dot(R, R), dot(R, p.y), positive)


_HOOKS = {
    DenseCD: (_dense_curvature, _dense_correlation, _dense_move, _dense_gap),
    GramCD: (_gram_curvature, _gram_correlation, _gram_move, _gram_gap),
    SparseCD: (_sparse_curvature, _sparse_correlation, _sparse_move, _sparse_gap),
}


def _hook_of(p, index):
    """The Python function of the ``index``-th hook of ``p``'s class (None:
    not a coordinate-descent residual); numba inlines it into the loop."""
    if isinstance(p, types.BaseNamedTuple) and p.instance_class in _HOOKS:
        return _HOOKS[p.instance_class][index]
    return None


@overload(_curvature, inline="always")
def _ov_curvature(p, j):
    return _hook_of(p, 0)


@overload(_correlation, inline="always")
def _ov_correlation(p, j, w_j):
    return _hook_of(p, 1)


@overload(_move, inline="always")
def _ov_move(p, j, w_j, w_new):
    return _hook_of(p, 2)


@overload(_gap, inline="always")
def _ov_gap(p, w, alpha, positive):
    return _hook_of(p, 3)


@njit(cache=True, nogil=True)
def _descend(p, w, alpha, max_iter, tol, tol_abs, positive, random, seed):
    """The epochs of coordinate descent on the residual ``p`` (see the module
    docstring); returns what :func:`lasso_cd` returns."""
    gap = _gap(p, w, alpha, positive)
    if gap <= tol_abs:
        return w, gap, tol_abs, 0
    n_features = w.shape[0]
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
            denom = _curvature(p, j)
            if denom == 0.0:
                continue
            w_j = w[j]
            w_new = _soft_threshold(_correlation(p, j, w_j), alpha, denom, positive)
            if w_new != w_j:
                _move(p, j, w_j, w_new)
                w[j] = w_new
            d_w_max = max(d_w_max, abs(w_new - w_j))
            w_max = max(w_max, abs(w_new))
        if w_max == 0.0 or d_w_max / w_max <= tol or n_iter == max_iter:
            gap = _gap(p, w, alpha, positive)
            if gap <= tol_abs:
                break
    return w, gap, tol_abs, n_iter


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
    return _descend(DenseCD(XT, y, R, norm2), w, alpha, max_iter, tol,
                    tol * dot(y, y), positive, random, seed)


@njit(cache=True, nogil=True)
def lasso_cd_gram(w, Q, q, y_norm2, alpha, max_iter, tol, positive, random, seed):
    """Coordinate descent on the Gram matrix ``Q = XᵀX`` and ``q = Xᵀy``.

    Each update costs ``O(n_features)`` instead of ``O(n_samples)``; the
    residual enters only through ``H = Q w``: ``XᵀR = q − H``,
    ``‖R‖² = ‖y‖² − 2 w·q + w·H`` and ``R·y = ‖y‖² − w·q``. Same parameters
    and returns as :func:`lasso_cd`, with ``y_norm2 = ‖y‖²``.
    """
    H = _rows_dot(Q, w)
    return _descend(GramCD(Q, q, y_norm2, H), w, alpha, max_iter, tol,
                    tol * y_norm2, positive, random, seed)


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
    given as the CSC arrays ``X = (data, indices, indptr)``, ``x̄`` the weighted
    column means, zero without intercept), never forming ``X̃``: the residual
    is kept as ``R = R_s + c √s`` with ``R_s`` updated on the stored entries
    of the column only and the scalar ``c`` carrying the centring, and
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
    cT = np.array([c, dot(sqrt_sw, R_s)])
    p = SparseCD(X, x_mean, sqrt_sw, y, R_s, norm2, col_sw, sw_sum, cT,
                 np.empty(n_samples))
    return _descend(p, w, alpha, max_iter, tol, tol * dot(y, y), positive, random, seed)
