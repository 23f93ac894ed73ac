"""Iterative ridge solvers: conjugate gradients, L-BFGS(-B, for positive), SAG/SAGA.

Each minimises ``||y_k - X w||^2 + alpha_k ||w||^2`` for every target ``k``
on data already centred and row-rescaled by ``sqrt(sample_weight)`` (a dense
array, or ``CentredSparse.op`` for sparse input), except SAG/SAGA on sparse
input, which fit the intercept themselves on the raw rows (centring would
make them dense). All return ``W`` of shape (n_features, n_targets) and the
iteration counts, an int32 array of one count per target (the shape and
dtype of scikit-learn's ``Ridge.n_iter_``).
"""

import warnings

import numpy as np
from scipy import optimize
from scipy.sparse.linalg import LinearOperator, aslinearoperator, cg
from sklearn.exceptions import ConvergenceWarning

from ._sag_kernels import SQUARED, SAGConfig, SAGData, sag_rows, sag_solve

__all__ = ["ridge_lbfgs", "ridge_sag", "ridge_sparse_cg"]


def ridge_sparse_cg(X, Y, alpha, tol, max_iter=None):
    """Conjugate gradients on the normal equations, one target at a time.

    Primal ``(XᵀX + αI) w = Xᵀy`` when ``n_features <= n_samples``, else the
    dual ``(XXᵀ + αI) v = y``, ``w = Xᵀv`` (the smaller system). Each CG
    iteration is one product with ``X`` and one with ``Xᵀ``; ``rtol = tol``
    on the residual of that system (scikit-learn's sparse_cg criterion).
    """
    op = X if isinstance(X, LinearOperator) else aslinearoperator(X)
    n_samples, n_features = op.shape
    primal = n_features <= n_samples
    size = n_features if primal else n_samples
    W = np.empty((n_features, Y.shape[1]))
    n_iter = np.zeros(Y.shape[1], dtype=np.int32)
    for k in range(Y.shape[1]):
        a_k = float(alpha[k])
        if primal:
            def mv(v, a_k=a_k):
                return op.rmatvec(op.matvec(v)) + a_k * v
            rhs = op.rmatvec(Y[:, k])
        else:
            def mv(v, a_k=a_k):
                return op.matvec(op.rmatvec(v)) + a_k * v
            rhs = Y[:, k]
        count = [0]

        def callback(_, count=count):
            count[0] += 1

        A = LinearOperator((size, size), matvec=mv, dtype=np.float64)
        sol, info = cg(A, rhs, rtol=tol, maxiter=max_iter, callback=callback)
        if info > 0:
            warnings.warn(
                f"sparse_cg did not converge after {info} iterations; increase "
                "max_iter or tol.", ConvergenceWarning, stacklevel=3)
        W[:, k] = sol if primal else op.rmatvec(sol)
        n_iter[k] = count[0]
    return W, n_iter


def ridge_lbfgs(X, Y, alpha, tol, max_iter=None, positive=False):
    """L-BFGS-B on ``(1/2)||Xw - y||^2 + (alpha/2)||w||^2``, ``w >= 0`` if positive.

    ``tol`` is L-BFGS-B's ``ftol`` and ``gtol`` (as scikit-learn's lbfgs
    ridge solver sets them). The bound ``w >= 0`` is handled by L-BFGS-B's
    projected (Cauchy point) steps; the intercept, solved on the centred
    data, stays free.
    """
    op = X if isinstance(X, LinearOperator) else aslinearoperator(X)
    n_features = op.shape[1]
    W = np.empty((n_features, Y.shape[1]))
    bounds = [(0.0, np.inf)] * n_features if positive else None
    options = {} if max_iter is None else {"maxiter": max_iter}
    n_iter = np.zeros(Y.shape[1], dtype=np.int32)
    for k in range(Y.shape[1]):
        y_k, a_k = Y[:, k], float(alpha[k])

        def fun(w, y_k=y_k, a_k=a_k):
            r = op.matvec(w) - y_k
            return 0.5 * (r @ r + a_k * (w @ w)), op.rmatvec(r) + a_k * w

        res = optimize.minimize(fun, np.zeros(n_features), jac=True,
                                method="L-BFGS-B", bounds=bounds, tol=tol,
                                options=options)
        if not res.success:
            warnings.warn(
                f"The lbfgs solver did not converge ({res.message}); increase "
                f"max_iter (now {max_iter}) or tol (now {tol}).",
                ConvergenceWarning, stacklevel=3)
        W[:, k] = res.x
        n_iter[k] = res.nit
    return W, n_iter


def ridge_sag(X, Y, alpha, sample_weight, fit_intercept, tol, max_iter, rng, saga):
    """SAG or SAGA on ``sum_i s_i ||y_i - W x_i - b||^2 + alpha ||W||^2``.

    ``X`` dense (then already centred and rescaled: ``fit_intercept`` False,
    unit weights) or CSR (raw rows, the kernel fits ``b``). Divided by
    ``2 S`` this is the kernel's ``(1/S) sum_i s_i (1/2)(z - y)^2 +
    (l2/2)||W||^2`` with ``l2 = alpha / S``. Step ``1/L`` (SAG) or
    ``1/(2L + min(2 n l2, L))`` (SAGA), ``L = max_i a_i (||x_i||^2 + 1) + l2``
    with ``a_i = n s_i / S``. Stops when an epoch changes the weights by at
    most ``tol`` times their largest value (scikit-learn's sag criterion).
    Returns ``W`` (n_features, n_targets), the intercepts (n_targets,) and
    the epoch counts (n_targets,).
    """
    n, p = X.shape
    sw = np.ones(n) if sample_weight is None else sample_weight
    S = float(sw.sum())
    a = n * sw / S
    rows, sq = sag_rows(X)
    W = np.zeros((p, Y.shape[1]))
    b = np.zeros(Y.shape[1])
    n_iter = np.zeros(Y.shape[1], dtype=np.int32)
    codes = np.zeros(n, dtype=np.int64)
    for k in range(Y.shape[1]):
        l2 = float(alpha[k]) / S
        L = float(np.max(a * (sq + float(fit_intercept)))) + l2
        step = 1.0 / L if not saga else 1.0 / (2.0 * L + min(2.0 * n * l2, L))
        w_k = np.zeros((1, p))
        b_k = np.zeros(1)
        problem = SAGData(*rows, codes, np.ascontiguousarray(Y[:, k:k + 1]), a)
        config = SAGConfig(SQUARED, fit_intercept, l2, 0.0, step, int(max_iter),
                           float(tol), bool(saga), int(rng.randint(2**31 - 1)))
        epochs, converged = sag_solve(problem, config, w_k, b_k)
        if not np.all(np.isfinite(w_k)):
            raise ValueError("The sag solver diverged (non-finite weights).")
        if not converged:
            warnings.warn(
                f"The max_iter={max_iter} epochs were reached before the "
                "coefficients converged; increase max_iter or scale the data.",
                ConvergenceWarning, stacklevel=3)
        W[:, k] = w_k[0]
        b[k] = b_k[0]
        n_iter[k] = epochs
    return W, b, n_iter
