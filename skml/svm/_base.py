"""Shared plumbing of SVC and SVR: kernels, the SMO call, the decision values.

The estimators hand the dual problem of notes B §5.5 / §5.12 to the compiled
solver in ``_smo_kernels.py`` and keep libsvm's conventions for everything
they store, so that their attributes read like scikit-learn's.
"""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_random_state

from skml.metrics._pairwise_helpers import canonical_csr, row_norms_sq
from skml.metrics.pairwise import (
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
)
from skml.utils import Interval, Options

from ._smo_kernels import (
    LINEAR, POLY, PRECOMPUTED, RBF, SIGMOID, Kernel, SMOOptions, smo_solve,
)
from ..utils.validation import validate_data

_KERNEL_CODES = {
    "linear": LINEAR,
    "poly": POLY,
    "rbf": RBF,
    "sigmoid": SIGMOID,
    "precomputed": PRECOMPUTED,
}
# Kernels the estimators accept: the solver's, plus the notes' Laplace kernel
# exp(-gamma ||x - z||_2) (notes B §5.8, D1 Ch. 7; unsquared L2 norm, not
# scikit-learn's L1 laplacian_kernel), which the solver reads as a
# precomputed Gram matrix: its exact distances need the row difference, not
# the inner product the compiled kernels are built from.
_KERNELS = set(_KERNEL_CODES) | {"laplacian"}
# Test-by-SV kernel blocks are computed in row chunks of about this size.
_BLOCK_BYTES = 64 * 2**20


def smo_dual(K_or_X, y, p, C, *, kernel="precomputed", gamma=1.0, coef0=0.0,
             degree=3, tol=1e-3, shrinking=True, max_iter=-1, cache_size=200,
             n_trace=0, svr=False):
    """Solve ``min 1/2 a'Qa + p'a`` s.t. ``y'a = 0``, ``0 <= a <= C`` by SMO.

    A thin wrapper of the compiled solver, used by the estimators and by the
    tests (the objective trace shows the notes' dual ``W = -f`` rising).

    Parameters
    ----------
    K_or_X : ndarray of shape (n, n) or (n, d)
        Kernel matrix (``kernel="precomputed"``) or samples.
    y : ndarray of shape (n_var,)
        Signs +-1 (C-SVC); for ``svr=True`` the regression targets ``z``.
    p : ndarray of shape (n_var,) or float
        Linear term (C-SVC, usually -1); for ``svr=True`` the epsilon.
    C : ndarray of shape (n,) or float
        Upper bounds.
    kernel, gamma, coef0, degree : kernel of the dual.
    tol, shrinking, max_iter, cache_size : solver options, as in SVC.
    n_trace : int, default=0
        Record ``f(a)`` after each of the first ``n_trace`` iterations.
    svr : bool, default=False
        Build and solve libsvm's 2l-variable epsilon-SVR dual.

    Returns
    -------
    alpha : ndarray
        The dual solution (for SVR the ``2l`` values ``(a, a*)``).
    rho : float
        Decision function ``sum_t y_t a_t k(x_t, x) - rho``.
    obj : float
        The minimised ``f``.
    n_iter : int
    status : int
        0 converged, 1 stopped at ``max_iter``.
    trace : ndarray of shape (min(n_trace, n_iter),)
    """
    code = _KERNEL_CODES[kernel]
    sparse = sp.issparse(K_or_X)
    if sparse:
        if code == PRECOMPUTED:
            raise TypeError("Sparse precomputed kernels are not supported.")
        X = canonical_csr(K_or_X)
        sq = row_norms_sq(X) if code == RBF else np.zeros(X.shape[0])
        n = X.shape[0]
        # the solver's CSR form: one compiled signature (float64, int64)
        X = (np.ascontiguousarray(X.data, dtype=np.float64),
             X.indices.astype(np.int64), X.indptr.astype(np.int64))
    else:
        X = np.ascontiguousarray(K_or_X, dtype=np.float64)
        if not X.flags.writeable:
            # one compiled signature: read-only inputs (memmaps) are copied
            X = X.copy()
        n = X.shape[0]
        sq = np.einsum("ij,ij->i", X, X) if code == RBF else np.zeros(n)
    C = np.broadcast_to(np.asarray(C, dtype=np.float64), (n,))
    if svr:
        z = np.asarray(y, dtype=np.float64)
        eps = float(p)
        y_var = np.concatenate([np.ones(n), -np.ones(n)])
        p_var = np.concatenate([eps - z, eps + z])
        C_var = np.concatenate([C, C])
        xrow = np.concatenate([np.arange(n), np.arange(n)])
        width, permute, svr_l = n, False, n
    else:
        y_var = np.asarray(y, dtype=np.float64).copy()
        p_var = np.broadcast_to(np.asarray(p, dtype=np.float64), (n,)).copy()
        C_var = C.copy()
        xrow = np.arange(n)
        # CSR rows are not swapped in place (variables reach them by xrow)
        width, permute, svr_l = n, code != PRECOMPUTED and not sparse, 0
        if permute:
            X = X.copy()  # the solver swaps rows in place
    if max_iter < 0:
        # libsvm's own safety cap (max(1e7, 100 l) iterations)
        max_iter = max(10_000_000, 100 * len(y_var))
    # float32 rows, as libsvm's Qfloat: cache_size MB hold this many rows
    n_slots = max(2, int(cache_size * 2**20 // (4 * width)))
    trace = np.zeros(n_trace)
    ker = Kernel(X, sq, code, float(gamma), float(coef0), float(degree), permute)
    opts = SMOOptions(float(tol), bool(shrinking), int(max_iter), n_slots)
    alpha, rho, obj, n_iter, status = smo_solve(
        ker, xrow, svr_l, y_var, p_var, C_var, opts, trace)
    return alpha, rho, obj, n_iter, status, trace[: min(n_trace, n_iter)]


class _BaseSVM(BaseEstimator):
    """Kernel parameters, validation and decision values of SVC and SVR."""

    _parameter_constraints = {
        "kernel": [Options(_KERNELS), callable],
        "degree": [Interval(Integral, 0, None, closed="left")],
        "gamma": [Options({"scale", "auto"}), Interval(Real, 0, None, closed="left")],
        "coef0": [Interval(Real, None, None, closed="neither")],
        "tol": [Interval(Real, 0, None, closed="neither")],
        "C": [Interval(Real, 0, None, closed="neither")],
        "shrinking": ["boolean"],
        "cache_size": [Interval(Real, 0, None, closed="neither")],
        "verbose": ["verbose"],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
    }

    # CSR/CSC input (SVC, SVR): kernel rows computed on the stored entries.
    _accepts_sparse = False

    # -- fit helpers --------------------------------------------------------

    def _check_sparse_precomputed(self, X):
        if sp.issparse(X) and self.kernel == "precomputed":
            # scikit-learn's refusal, word for word
            raise TypeError("Sparse precomputed kernels are not supported.")

    def _validate_fit_data(self, X, y, **kw):
        if self._accepts_sparse:
            kw["accept_sparse"] = "csr"
        X, y = validate_data(self, X, y, dtype=np.float64, order="C", **kw)
        self._check_sparse_precomputed(X)
        if sp.issparse(X):
            X = canonical_csr(X)
        if self.kernel == "precomputed" and X.shape[0] != X.shape[1]:
            raise ValueError(
                "With kernel='precomputed', X must be the square kernel matrix "
                f"of the training samples; got shape {X.shape}."
            )
        check_random_state(getattr(self, "random_state", None))
        return X, y

    def _set_geometry(self, X, shift_linear=True):
        """Choose the coordinates the solver works in; return ``X`` in them.

        The rbf kernel depends only on ``gamma * ||x - z||²``: the solver sees
        ``(X - mean) / unit`` (``unit`` the largest centred magnitude) with
        ``gamma * unit²``, the same kernel values, so ``X * 1e300`` or
        ``X + 1e8`` give the model of ``X`` instead of overflowing or losing
        every digit to cancellation. The linear kernel's dual is unchanged
        by centring (``sum_i a_i y_i = 0``), only the intercept moves, so
        ``X`` is centred but not scaled (``C`` is absolute). Other kernels
        see ``X`` as given. Sets ``_gamma`` (in ``X``'s units, as
        scikit-learn) and ``_gamma_solver`` (in the solver's).
        """
        n_features = X.shape[1]
        self._shift, self._unit = None, 1.0
        X_solver = X
        if sp.issparse(X):
            return self._set_sparse_geometry(X)
        if self.kernel in ("rbf", "laplacian") or (
                self.kernel == "linear" and shift_linear):
            self._shift = X.mean(axis=0)
            X_solver = X - self._shift
        if self.kernel == "rbf":
            unit = float(np.max(np.abs(X_solver), initial=0.0))
            if not np.isfinite(unit):
                raise ValueError(
                    "X's values span more than float64 can represent once centred "
                    "(|x - mean(x)| overflows); rescale X, e.g. with StandardScaler."
                )
            self._unit = unit if unit > 0 else 1.0
            X_solver = X_solver / self._unit
        with np.errstate(over="ignore", under="ignore"):
            unit2 = np.float64(self._unit) ** 2  # may be inf or 0: handled below
        if self.gamma == "scale":
            # scikit-learn's X.var(): over all entries of X as given. Centring
            # each column removed the spread of the column means, which is
            # added back (total variance = mean within-column variance +
            # variance of the column means), in the solver's units.
            var = X_solver.var()
            if self._shift is not None:
                var = var + np.var(self._shift / self._unit)
            gamma_solver = 1.0 / (n_features * var) if var != 0 else unit2
        elif self.gamma == "auto":
            gamma_solver = unit2 / n_features
        else:
            with np.errstate(over="ignore"):
                gamma_solver = np.float64(self.gamma) * unit2
        if self.kernel != "rbf" and self.gamma == "scale":
            with np.errstate(over="ignore"):
                var = X.var()  # as given: the kernel is not scale-free
            gamma_solver = 1.0 / (n_features * var) if var != 0 else 1.0
        if self.kernel == "laplacian" and self.gamma == "scale":
            # 1 / sqrt(n_features var): the distance, not its square, is scaled
            gamma_solver = np.sqrt(gamma_solver)
        # gamma * unit² beyond float64 means k(x, z) = [x == z]: cap it.
        self._gamma_solver = float(min(gamma_solver, np.finfo(np.float64).max / 4))
        with np.errstate(over="ignore", under="ignore", divide="ignore"):
            self._gamma = float(np.float64(self._gamma_solver) / unit2)
        return X_solver

    def _set_sparse_geometry(self, X):
        """``_set_geometry`` for CSR data: scaled (rbf), never centred.

        Centring would make the data dense; the rbf kernel is shift-free and
        the linear dual too, so only the intercept's accuracy for data far
        from 0 is lost (as in scikit-learn, which centres nothing).
        """
        n_features = X.shape[1]
        if self.kernel == "rbf":
            unit = float(np.max(np.abs(X.data), initial=0.0))
            self._unit = unit if unit > 0 else 1.0
        X_solver = X / self._unit if self._unit != 1.0 else X
        with np.errstate(over="ignore", under="ignore"):
            unit2 = np.float64(self._unit) ** 2

        def variance(A):
            # over all n * d entries, the stored ones and the implicit zeros
            size = A.shape[0] * A.shape[1]
            if size == 0:
                return 0.0
            mean = A.data.sum() / size
            return float((A.data @ A.data) / size - mean * mean)

        if self.gamma == "scale":
            var = variance(X_solver if self.kernel == "rbf" else X)
            gamma_solver = 1.0 / (n_features * var) if var > 0 else (
                unit2 if self.kernel == "rbf" else 1.0)
            if self.kernel == "laplacian":
                gamma_solver = np.sqrt(gamma_solver)  # as in _set_geometry
        elif self.gamma == "auto":
            gamma_solver = unit2 / n_features
        else:
            with np.errstate(over="ignore"):
                gamma_solver = np.float64(self.gamma) * unit2
        self._gamma_solver = float(min(gamma_solver, np.finfo(np.float64).max / 4))
        with np.errstate(over="ignore", under="ignore", divide="ignore"):
            self._gamma = float(np.float64(self._gamma_solver) / unit2)
        return X_solver

    def _to_solver(self, X):
        """``X`` in the solver's coordinates (see ``_set_geometry``)."""
        if getattr(self, "_shift", None) is not None:
            if sp.issparse(X):
                X = X.toarray()  # a block of test rows of a dense-fitted model
            X = X - self._shift
        unit = getattr(self, "_unit", 1.0)
        return X if unit == 1.0 else X / unit

    def _check_kernel_finite(self, X_solver):
        """Refuse data whose kernel values overflow, before the solver sees them."""
        if self.kernel in ("linear", "poly"):
            with np.errstate(over="ignore", invalid="ignore"):
                diag = (row_norms_sq(X_solver) if sp.issparse(X_solver)
                        else np.einsum("ij,ij->i", X_solver, X_solver))
                if self.kernel == "poly":
                    diag = (self._gamma_solver * diag + self.coef0) ** self.degree
            if not np.all(np.isfinite(diag)):
                raise ValueError(
                    f"The {self.kernel} kernel overflows float64 on these data "
                    f"(k(x, x) is infinite for {int(np.sum(~np.isfinite(diag)))} "
                    "rows): X's values are too large. Rescale X, e.g. with "
                    "StandardScaler."
                )

    def _solver_kernel(self, X):
        """The matrix the solver reads and the kernel name it applies.

        Sets the solver's coordinates first (``_set_geometry``).
        """
        X_solver = self._set_geometry(X)
        if callable(self.kernel):
            K = self.kernel(X, X)
            K = np.asarray(K.toarray() if sp.issparse(K) else K, dtype=np.float64)
            if K.shape != (X.shape[0], X.shape[0]):
                raise ValueError(
                    f"The kernel callable returned shape {K.shape}; expected "
                    f"({X.shape[0]}, {X.shape[0]})."
                )
            if not np.all(np.isfinite(K)):
                raise ValueError("The kernel callable returned NaN or infinite values.")
            return K, "precomputed"
        if self.kernel == "laplacian":
            X_solver = X_solver.toarray() if sp.issparse(X_solver) else X_solver
            return self._laplacian(X_solver, X_solver), "precomputed"
        self._check_kernel_finite(X_solver)
        return X_solver, self.kernel

    def _solve(self, X, y, p, C, *, kernel, svr=False, cache_size=None):
        alpha, rho, obj, n_iter, status, _ = smo_dual(
            X, y, p, C, kernel=kernel, gamma=self._gamma_solver, coef0=self.coef0,
            degree=self.degree, tol=self.tol, shrinking=self.shrinking,
            max_iter=self.max_iter,
            cache_size=self.cache_size if cache_size is None else cache_size,
            svr=svr,
        )
        if self.verbose:
            print(
                f"[{type(self).__name__}] optimization finished, #iter = {n_iter}, "
                f"obj = {obj:.6g}, rho = {rho:.6g}, nSV = {np.count_nonzero(alpha)}"
            )
        return alpha, rho, n_iter, status

    def _warn_status(self, status):
        self.fit_status_ = int(status)
        if status and np.isinf(self.C):
            # the hard-margin dual is unbounded exactly when no separating
            # surface exists, and SMO then runs to its iteration cap
            raise ValueError(
                "C=inf (hard margin) did not converge within max_iter: the data "
                "look not separable with this kernel; use a finite C."
            )
        if status:
            warnings.warn(
                f"Solver terminated early (max_iter={self.max_iter}). Consider "
                "pre-processing your data with StandardScaler or MinMaxScaler.",
                ConvergenceWarning,
            )

    def _store_support(self, X, support):
        self.support_ = support.astype(np.int32)
        # Fitted on sparse X, the support vectors, dual coefficients and the
        # linear kernel's coef_ are scipy CSR matrices, as scikit-learn's.
        self._fit_sparse = sp.issparse(X)
        if self.kernel == "precomputed":
            # As scikit-learn: test kernels are sliced by support_ instead.
            self.support_vectors_ = np.empty((0, 0))
            self._sv_solver = self.support_vectors_
        else:
            self.support_vectors_ = X[support]
            self._sv_solver = self._to_solver(self.support_vectors_)
        self.shape_fit_ = X.shape

    def _set_decision_weights(self, W, b):
        """Store ``decision(x) = k(x, SV) @ W + b`` (libsvm signs for OvO).

        ``b`` is the solver's intercept; returns it in ``X``'s coordinates
        (they differ for the centred linear kernel only), for ``intercept_``.
        """
        self._W = np.ascontiguousarray(W)
        self._b = np.asarray(b, dtype=np.float64)
        if not (np.all(np.isfinite(self._W)) and np.all(np.isfinite(self._b))):
            raise ValueError(
                "The dual coefficients or the intercept are not finite: the solver "
                "failed on these data (values too large or too small for float64?). "
                "Rescale X, e.g. with StandardScaler."
            )
        # The linear kernel collapses to one product with the primal weights
        # (computed from the centred support vectors: no cancellation).
        self._W_primal = None
        if self.kernel == "linear":
            self._W_primal = self._sv_solver.T @ self._W
            if getattr(self, "_shift", None) is not None:
                # w.(x - m) + b_s = w.x + (b_s - w.m)
                self._b = self._b - self._shift @ self._W_primal
        return self._b.copy()

    # -- prediction helpers -------------------------------------------------

    def _validate_test_data(self, X):
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False,
                          accept_sparse="csr" if self._accepts_sparse else False)
        self._check_sparse_precomputed(X)
        if sp.issparse(X):
            X = canonical_csr(X)
        if self.kernel == "precomputed" and X.shape[1] != self.shape_fit_[0]:
            raise ValueError(
                "X.shape[1] should be equal to the number of samples at training "
                f"time ({self.shape_fit_[0]}) with kernel='precomputed'; got "
                f"{X.shape[1]}."
            )
        return X

    def _kernel_block(self, X):
        """k(X, support vectors) for a block of test rows."""
        kernel = self.kernel
        if kernel == "precomputed":
            return X[:, self.support_]
        if callable(kernel):
            K = kernel(X, self.support_vectors_)
            return np.asarray(K.toarray() if sp.issparse(K) else K, dtype=np.float64)
        return self._solver_kernel_block(self._to_solver(X), self._sv_solver)

    def _solver_kernel_block(self, X, SV):
        """The named kernel between rows already in the solver's coordinates."""
        kernel, gamma = self.kernel, self._gamma_solver
        if kernel == "poly":
            if self.degree == 0:
                return np.ones((X.shape[0], SV.shape[0]))
            return polynomial_kernel(X, SV, degree=self.degree, gamma=gamma,
                                     coef0=self.coef0)
        if kernel == "rbf":
            return rbf_kernel(X, SV, gamma=gamma)
        if kernel == "sigmoid":
            return sigmoid_kernel(X, SV, gamma=gamma, coef0=self.coef0)
        if kernel == "laplacian":
            return self._laplacian(X.toarray() if sp.issparse(X) else X,
                                   SV.toarray() if sp.issparse(SV) else SV)
        return linear_kernel(X, SV)

    def _laplacian(self, X, Y):
        """The notes' L2 Laplace kernel in the solver's coordinates."""
        return laplacian_kernel(X, Y, gamma=self._gamma_solver, norm="l2")

    def _decision_values(self, X):
        """``k(X, SV) @ W + b`` in row blocks bounding the kernel block memory."""
        if self._W_primal is not None:
            return X @ self._W_primal + self._b
        if self._W.shape[0] == 0:  # no support vector: a constant
            return np.broadcast_to(self._b, (X.shape[0], len(self._b))).copy()
        n_sv = max(1, self._W.shape[0])
        step = max(1, _BLOCK_BYTES // (8 * n_sv))
        out = np.empty((X.shape[0], self._W.shape[1]))
        for start in range(0, X.shape[0], step):
            rows = slice(start, start + step)
            out[rows] = self._kernel_block(X[rows]) @ self._W + self._b
        return out

    def _primal_coef(self):
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        coef = np.ascontiguousarray(self._W_primal.T)
        return sp.csr_matrix(coef) if getattr(self, "_fit_sparse", False) else coef

    def _public_dual(self, dual):
        """``dual_coef_`` as scikit-learn stores it: CSR after a sparse fit."""
        return sp.csr_matrix(dual) if self._fit_sparse else dual

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        # sparse X, except as a precomputed kernel (scikit-learn's rule)
        tags.input_tags.sparse = self._accepts_sparse and self.kernel != "precomputed"
        return tags
