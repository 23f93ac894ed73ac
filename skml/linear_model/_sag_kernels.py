"""Stochastic average gradient kernels (SAG and SAGA) for linear models.

Minimises ``(1/S) sum_i s_i l_i(W x_i + b) + (l2/2) ||W||^2 + l1 ||W||_1``
(``l1 = 0`` for SAG) with ``l_i`` the binary (one row ``W``) or softmax
cross-entropy (LogisticRegression), or the squared error
``(1/2) ||W x_i + b - y_i||^2`` (Ridge). For a linear model the gradient of sample ``i``'s term is
``r_i x_i^T`` with a residual ``r_i`` of ``K`` numbers, so the table of past
gradients is an ``(n_samples, K)`` array of residuals, and their average
``G = (1/n) sum_i r_i x_i^T`` is kept up to date in ``O(nnz(x_i) K)``.

- SAG (Le Roux, Schmidt and Bach 2012): refresh sample ``i``'s residual,
  then step along the average of the table (over the samples seen so far,
  the first epoch's correction that scikit-learn's sag also makes).
- SAGA (Defazio, Bach and Lacoste-Julien 2014): step along the unbiased
  ``(r_new - r_old) x_i + G_old``, then apply the L1 proximal operator
  (soft thresholding by ``step * l1``).

Samples are drawn uniformly with replacement, as in both papers. Sparse rows
without an L1 penalty use just-in-time updates (``_sag_lazy``): a step costs
``O(nnz(x_i) K)``. With L1 (SAGA's prox) the ``l2`` decay, the ``G`` step and
the soft thresholding are applied to every weight each step,
``O(n_features K)``.
"""

from collections import namedtuple

import numpy as np
import scipy.sparse as sp
from numba import njit

from skml.utils._csr_rows import CSRRows, has_duplicates, row_sq_norms

__all__ = ["sag_solve", "sag_rows", "SAGConfig", "SAGData", "LOGISTIC", "MULTINOMIAL",
           "SQUARED"]

# The solver's inputs by name (numba compiles a namedtuple as a tuple whose
# fields are read by name at no cost), instead of 19 positional arguments.
SAGData = namedtuple(
    "SAGData", ["X", "data", "indices", "indptr", "is_sparse", "codes", "Y", "weights"])
SAGData.__doc__ = """The samples: dense ``X`` or CSR ``(data, indices, indptr)``
(``is_sparse``; the other form a dummy), the class ``codes``, the targets
``Y`` of shape (n_samples, K) (for the logistic losses the one-hot, or
label-smoothed, class probabilities: ``K = 1`` for the binary model) and the
per-sample ``weights`` ``n s_i / S``."""


def sag_rows(X):
    """``(rows, sq)``: the samples as :class:`SAGData`'s first five fields
    (dense ``X`` or CSR ``data, indices, indptr``, then ``is_sparse``; the
    unused form a dummy) and their squared norms. CSR duplicates are summed
    (a copy): the lazy kernel reads each ``j`` of a row once; merely
    unsorted indices (as a sparse product leaves them) are kept, no copy."""
    if sp.issparse(X):
        X = X.tocsr()
        if not X.has_canonical_format and has_duplicates(X):
            X = X.copy()
            X.sum_duplicates()
        sq = row_sq_norms(CSRRows(X.indptr, X.indices, X.data, X.shape[1]))
        return (np.zeros((0, 0)), X.data, X.indices, X.indptr, True), sq
    sq = np.einsum("ij,ij->i", X, X)
    return (np.ascontiguousarray(X), np.zeros(0), np.zeros(0, np.int32),
            np.zeros(1, np.int32), False), sq


SAGConfig = namedtuple(
    "SAGConfig",
    ["loss", "fit_intercept", "l2", "l1", "step", "max_epochs", "tol", "saga", "seed"])
SAGConfig.__doc__ = """The loss code, the penalties, the step size, the stopping
rule, SAGA or SAG, and the seed of the sample draws."""


@njit(cache=True, nogil=True)
def _scores(X, data, indices, indptr, is_sparse, i, W, b, z):
    K, p = W.shape
    for k in range(K):
        s = b[k]
        if is_sparse:
            for jj in range(indptr[i], indptr[i + 1]):
                s += W[k, indices[jj]] * data[jj]
        else:
            for j in range(p):
                s += W[k, j] * X[i, j]
        z[k] = s


# Loss codes of sag_solve.
LOGISTIC, MULTINOMIAL, SQUARED = 0, 1, 2


@njit(cache=True, nogil=True)
def _residual(z, code, target, weight, loss, r):
    """``weight * (p - y)`` (sigmoid or softmax) or ``weight * (z - y)``.

    ``target`` is the sample's row of ``Y``; for the logistic losses it holds
    the class probabilities the model is fitted to (one-hot, or smoothed).
    """
    K = z.shape[0]
    if loss == SQUARED:
        for k in range(K):
            r[k] = weight * (z[k] - target[k])
    elif loss == MULTINOMIAL:
        m = z[0]
        for k in range(1, K):
            if z[k] > m:
                m = z[k]
        total = 0.0
        for k in range(K):
            r[k] = np.exp(z[k] - m)
            total += r[k]
        for k in range(K):
            r[k] = weight * (r[k] / total - target[k])
    else:
        t = z[0]
        if t >= 0:
            prob = 1.0 / (1.0 + np.exp(-t))
        else:
            e = np.exp(t)
            prob = e / (1.0 + e)
        r[0] = weight * (prob - target[0])


# inlined: it runs once per stored entry of every drawn row
@njit(cache=True, nogil=True, inline="always")
def _catch_up(V, G, cum, last, j, now):
    """Bring weight column ``j`` of the lazy solver up to step ``now``.

    Its feature was last read at step ``last[j]``; since then each step moved
    it by ``-(c_t / s_{t+1}) G[:, j]`` (the scaled form of ``_sag_lazy``), and
    ``cum`` holds the running sum of those multipliers.
    """
    delta = cum[now] - cum[last[j]]
    if delta != 0.0:
        for k in range(V.shape[0]):
            V[k, j] -= delta * G[k, j]
    last[j] = now


@njit(cache=True, nogil=True)
def _catch_up_all(V, G, cum, last, now, scale):
    """Every weight up to step ``now``, with the common scale folded in."""
    for j in range(V.shape[1]):
        _catch_up(V, G, cum, last, j, now)
        for k in range(V.shape[0]):
            V[k, j] *= scale


@njit(cache=True, nogil=True)
def _epoch_change(W, W_prev, b, b_prev, fit_intercept):
    """The largest change of a weight over the epoch, and the largest weight."""
    change = 0.0
    largest = 0.0
    for k in range(W.shape[0]):
        for j in range(W.shape[1]):
            change = max(change, abs(W[k, j] - W_prev[k, j]))
            largest = max(largest, abs(W[k, j]))
        if fit_intercept:
            change = max(change, abs(b[k] - b_prev[k]))
            largest = max(largest, abs(b[k]))
    return change, largest


@njit(cache=True, nogil=True)
def _sag_lazy(problem, config, W, b):
    """``sag_solve`` on CSR rows without L1, in ``O(nnz(x_i) K)`` per step.

    A weight whose feature is absent from the drawn rows follows the affine
    recursion ``w <- rho w - c_t g`` (``rho = 1 - step l2``, ``g`` its fixed
    average gradient, ``c_t`` the step's multiplier), so it is stored as
    ``w = s v`` with a common scale ``s`` (``s <- rho s``) and brought up to
    date only when its feature is next read, from the running sum of
    ``c_t / s_{t+1}`` ("just-in-time" updates). Every weight is brought up to
    date at the end of each epoch, and when ``s`` gets small.
    """
    data, indices, indptr = problem.data, problem.indices, problem.indptr
    codes, Y, weights = problem.codes, problem.Y, problem.weights
    loss, fit_intercept, saga = config.loss, config.fit_intercept, config.saga
    l2, step, tol = config.l2, config.step, config.tol
    n = codes.shape[0]
    K, p = W.shape
    R = np.zeros((n, K))
    G = np.zeros((K, p))
    g_b = np.zeros(K)
    seen = np.zeros(n, dtype=np.bool_)
    n_seen = 0
    z = np.empty(K)
    r = np.empty(K)
    d = np.empty(K)
    V = W.copy()
    scale = 1.0
    rho = 1.0 - step * l2
    last = np.zeros(p, dtype=np.int64)
    cum = np.zeros(n + 1)
    W_prev = np.empty_like(W)
    b_prev = np.empty_like(b)
    np.random.seed(config.seed)
    for epoch in range(config.max_epochs):
        W_prev[:, :] = V
        b_prev[:] = b
        last[:] = 0
        cum[0] = 0.0
        for t in range(n):
            i = np.random.randint(n)
            start, stop = indptr[i], indptr[i + 1]
            for jj in range(start, stop):  # bring the row's weights up to date
                _catch_up(V, G, cum, last, indices[jj], t)
            for k in range(K):
                acc = 0.0
                for jj in range(start, stop):
                    acc += V[k, indices[jj]] * data[jj]
                z[k] = b[k] + scale * acc
            _residual(z, codes[i], Y[i], weights[i], loss, r)
            for k in range(K):
                d[k] = r[k] - R[i, k]
                R[i, k] = r[k]
            if not seen[i]:
                seen[i] = True
                n_seen += 1
            new_scale = scale * rho
            c = step if saga else step / n_seen
            cum[t + 1] = cum[t] + c / new_scale
            for k in range(K):
                if saga:
                    for jj in range(start, stop):
                        j = indices[jj]
                        V[k, j] -= (c * G[k, j] + step * d[k] * data[jj]) / new_scale
                        G[k, j] += d[k] * data[jj] / n
                    if fit_intercept:
                        b[k] -= step * (g_b[k] + d[k])
                        g_b[k] += d[k] / n
                else:
                    for jj in range(start, stop):
                        j = indices[jj]
                        G[k, j] += d[k] * data[jj]
                        V[k, j] -= c * G[k, j] / new_scale
                    if fit_intercept:
                        g_b[k] += d[k]
                        b[k] -= step * g_b[k] / n_seen
            for jj in range(start, stop):
                last[indices[jj]] = t + 1
            scale = new_scale
            # Renormalise early: cum grows as 1/scale, and differences of it
            # lose ~eps/scale relative precision.
            if scale < 1e-6:
                _catch_up_all(V, G, cum, last, t + 1, scale)
                scale = 1.0
                # later differences of cum restart from this point
                for u in range(t + 1):
                    cum[u] = cum[t + 1]
        _catch_up_all(V, G, cum, last, n, scale)  # the epoch's end
        scale = 1.0
        change, largest = _epoch_change(V, W_prev, b, b_prev, fit_intercept)
        W[:, :] = V
        if not np.isfinite(change):
            return epoch + 1, False
        if change <= tol * largest:
            return epoch + 1, True
    return config.max_epochs, False


@njit(cache=True, nogil=True)
def sag_solve(problem, config, W, b):
    """Run SAG or SAGA in place on ``W`` (K, p) and ``b`` (K,).

    ``problem`` is a :class:`SAGData`: ``codes`` are the class codes and
    ``Y`` the targets, shape (n_samples, K): the responses (squared loss) or
    the class probabilities fitted (logistic losses); ``weights`` are
    ``n s_i / S`` (the per-sample terms then average to the objective's data
    term). ``config`` is a :class:`SAGConfig`. Stops after the first epoch whose largest weight
    change is at most ``tol`` times the largest weight (scikit-learn's sag
    criterion). Returns ``(epochs run, converged)``.
    """
    if problem.is_sparse and config.l1 == 0.0:
        return _sag_lazy(problem, config, W, b)
    X, data, indices, indptr = problem.X, problem.data, problem.indices, problem.indptr
    is_sparse, codes, Y, weights = (problem.is_sparse, problem.codes, problem.Y,
                                    problem.weights)
    loss, fit_intercept, saga = config.loss, config.fit_intercept, config.saga
    l2, step, tol = config.l2, config.step, config.tol
    n = codes.shape[0]
    K, p = W.shape
    R = np.zeros((n, K))
    G = np.zeros((K, p))  # SAGA: average of the table; SAG: its sum
    g_b = np.zeros(K)
    seen = np.zeros(n, dtype=np.bool_)
    n_seen = 0
    z = np.empty(K)
    r = np.empty(K)
    d = np.empty(K)
    W_prev = np.empty_like(W)
    b_prev = np.empty_like(b)
    np.random.seed(config.seed)
    thresh = step * config.l1
    for epoch in range(config.max_epochs):
        W_prev[:, :] = W
        b_prev[:] = b
        for _ in range(n):
            i = np.random.randint(n)
            _scores(X, data, indices, indptr, is_sparse, i, W, b, z)
            _residual(z, codes[i], Y[i], weights[i], loss, r)
            for k in range(K):
                d[k] = r[k] - R[i, k]
                R[i, k] = r[k]
            if not seen[i]:
                seen[i] = True
                n_seen += 1
            if saga:
                # W - step (G_old + l2 W), then the fresh part d x_i, then prox.
                for k in range(K):
                    for j in range(p):
                        W[k, j] -= step * (G[k, j] + l2 * W[k, j])
                    if is_sparse:
                        for jj in range(indptr[i], indptr[i + 1]):
                            j = indices[jj]
                            W[k, j] -= step * d[k] * data[jj]
                            G[k, j] += d[k] * data[jj] / n
                    else:
                        for j in range(p):
                            W[k, j] -= step * d[k] * X[i, j]
                            G[k, j] += d[k] * X[i, j] / n
                    if fit_intercept:
                        b[k] -= step * (g_b[k] + d[k])
                        g_b[k] += d[k] / n
                    if thresh > 0.0:
                        for j in range(p):
                            w = W[k, j]
                            if w > thresh:
                                W[k, j] = w - thresh
                            elif w < -thresh:
                                W[k, j] = w + thresh
                            else:
                                W[k, j] = 0.0
            else:
                for k in range(K):
                    if is_sparse:
                        for jj in range(indptr[i], indptr[i + 1]):
                            G[k, indices[jj]] += d[k] * data[jj]
                    else:
                        for j in range(p):
                            G[k, j] += d[k] * X[i, j]
                    for j in range(p):
                        W[k, j] -= step * (G[k, j] / n_seen + l2 * W[k, j])
                    if fit_intercept:
                        g_b[k] += d[k]
                        b[k] -= step * g_b[k] / n_seen
        change, largest = _epoch_change(W, W_prev, b, b_prev, fit_intercept)
        if not np.isfinite(change):
            return epoch + 1, False
        if change <= tol * largest:
            return epoch + 1, True
    return config.max_epochs, False
