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
from sklearn.utils.validation import check_is_fitted, check_random_state

from skml.metrics._pairwise_helpers import canonical_csr, row_norms_sq
from skml.metrics.pairwise import (
    laplacian_kernel,
    linear_kernel,
    polynomial_kernel,
    rbf_kernel,
    sigmoid_kernel,
)
from skml.utils import Interval, Options, check_sample_weight
from skml.utils._docstrings import predict_doc as _predict_doc

from ._smo_kernels import (
    LINEAR, POLY, PRECOMPUTED, RBF, SIGMOID, Kernel, SMOOptions, row_sq_norms,
    smo_solve,
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


def kernel_parameters(default):
    """The ``kernel``, ``degree``, ``gamma`` and ``coef0`` entries of a docstring.

    SVC, SVR and HardMarginSVC take the same kernels and differ only in the
    default ``kernel``.
    """
    return f"""
kernel : {{"linear", "poly", "rbf", "sigmoid", "laplacian", "precomputed"}} \
        or callable, default="{default}"
    The kernel; a callable ``kernel(X, Y)`` returns the Gram matrix (for
    sums, products and multiples of kernels see
    :func:`skml.metrics.pairwise.kernel_sum`); it receives X unconverted
    when X is not numeric (strings, graphs), and at prediction it is called
    as ``kernel(X_test, support_vectors_)`` (scikit-learn passes all the
    training rows), so it must fill every entry of a rectangular block, not
    only a symmetric square one. ``"laplacian"`` is the
    notes' Laplace kernel ``exp(-gamma ||x - z||_2)`` (notes B §5.8, D1
    Ch. 7: the **unsquared** L2 norm, ``gamma = 1 / sigma``; not
    scikit-learn's L1 ``laplacian_kernel``), solved on its Gram matrix
    (O(n²) memory, as a callable kernel).
degree : int, default=3
    Degree of the "poly" kernel.
gamma : {{"scale", "auto"}} or float, default="scale"
    Kernel coefficient of "rbf", "poly", "sigmoid" and "laplacian":
    "scale" is ``1 / (n_features X.var())`` (``1 / sqrt(n_features
    X.var())`` for "laplacian", whose distance is not squared), "auto" is
    ``1 / n_features``.
coef0 : float, default=0.0
    Constant term of "poly" and "sigmoid".
"""


def fit_doc(y_doc):
    """The Parameters and Returns sections of SVC's and SVR's ``fit``."""
    return f"""
Parameters
----------
X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
    Training samples, or the kernel matrix for ``kernel="precomputed"``.
y : array-like of shape (n_samples,)
    {y_doc}
sample_weight : array-like of shape (n_samples,), default=None
    Per-sample multipliers of C; zero-weight samples are left out.

Returns
-------
self : object
    The fitted estimator.
"""


def predict_doc(returns):
    """:func:`~skml.utils._docstrings.predict_doc` of a kernel machine's ``X``."""
    return _predict_doc(
        returns, "array-like", "Samples (for a precomputed kernel: ``k(X, X_train)``)."
    )


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
        n = X.shape[0]
        # the solver's CSR form: one compiled signature (float64, int64)
        X = (np.ascontiguousarray(X.data, dtype=np.float64),
             X.indices.astype(np.int64), X.indptr.astype(np.int64))
        # summed as the solver's inner products: dense and CSR agree bitwise
        sq = row_sq_norms(X, n) if code == RBF else np.zeros(n)
    else:
        X = np.ascontiguousarray(K_or_X, dtype=np.float64)
        if not X.flags.writeable:
            # one compiled signature: read-only inputs (memmaps) are copied
            X = X.copy()
        n = X.shape[0]
        sq = row_sq_norms(X, n) if code == RBF else np.zeros(n)
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


def _far_from_origin(mean, spread):
    """True when the column means are large against the data's spread.

    Then ``||x||² + ||z||² - 2 x.z`` loses about ``2 log10(|mean| / spread)``
    digits to cancellation; below a ratio of 64 (under 4 digits) the data
    stay where they are, as libsvm leaves them.
    """
    size = float(np.max(np.abs(mean), initial=0.0))
    return size > 64.0 * spread


def _power_of_two_above(value):
    """The smallest power of two ``>= value`` (1 for 0): dividing by it is exact."""
    if value <= 0.0:
        return 1.0
    exponent = min(int(np.frexp(value)[1]), 1023)  # 2**1024 overflows
    return float(np.ldexp(1.0, exponent))


def _entries_variance(X):
    """Variance over all ``n * d`` entries of dense or sparse ``X``.

    Computed from the nonzero entries in row order (and the count of
    zeros) whatever the format, so a dense ``X`` and its CSR form give the
    same bits (issue 21); two passes, as ``np.var``.
    """
    size = X.shape[0] * X.shape[1]
    if size == 0:
        return 0.0
    values = X.data if sp.issparse(X) else np.asarray(X).ravel()
    values = values[values != 0]
    mean = values.sum() / size
    dev = values - mean
    return float((np.sum(dev * dev) + (size - values.size) * mean * mean) / size)


def libsvm_sample_weight(sample_weight, X):
    """``sample_weight`` as libsvm reads it: a weight ``<= 0`` removes its sample.

    scikit-learn's SVC and SVR accept negative weights and drop those samples
    (as zero weights); all weights ``<= 0`` leave nothing to fit.
    """
    if sample_weight is not None:
        raw = np.asarray(sample_weight, dtype=np.float64)
        n_samples = X.shape[0] if hasattr(X, "shape") else len(X)
        if (raw.ndim == 0 or raw.shape == (n_samples,)) and not np.any(raw > 0) \
                and np.all(np.isfinite(raw)):
            raise ValueError(
                "Invalid input - all samples have zero or negative weights."
            )
    weight = check_sample_weight(sample_weight, X, allow_negative=True)
    return np.maximum(weight, 0.0)


def _numeric(X):
    """True for sparse matrices and array-likes of numbers."""
    if sp.issparse(X):
        return True
    try:
        return np.asarray(X).dtype.kind in "biufc"
    except (TypeError, ValueError):  # ragged sequences
        return False


def _as_object_rows(X):
    """The samples of ``X`` as a 1-d object array (one entry per sample)."""
    rows = np.empty(len(X), dtype=object)
    for i, row in enumerate(X):
        rows[i] = row
    return rows


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
        self._raw_input = callable(self.kernel) and not _numeric(X)
        if self._raw_input:
            # A callable kernel may read any objects (strings, graphs, ...),
            # as in scikit-learn: X goes to it unconverted, as a 1-d object
            # array (indexable by the support), and only y is validated.
            X = _as_object_rows(X)
            y = np.asarray(y, dtype=np.float64 if kw.get("y_numeric") else None)
            if y.ndim != 1 or y.shape[0] != X.shape[0]:
                raise ValueError(
                    f"X has {X.shape[0]} samples but y has shape {y.shape}; "
                    "expected one label per sample."
                )
            return X, y
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
        ``(X - shift) / unit`` with ``gamma * unit²``, the same kernel values,
        so ``X * 1e300`` or ``X + 1e8`` give the model of ``X`` instead of
        overflowing or losing every digit to cancellation. ``unit`` is a
        power of two (at least the largest magnitude), so the scaling is
        exact: the kernel values are those of ``X`` to the last bit. The
        columns are centred (``shift`` their means) only for data far from
        the origin (``_far_from_origin``), where the cancellation in
        ``||x||² + ||z||² - 2 x.z`` would cost digits; the linear kernel's dual
        is unchanged by centring (``sum_i a_i y_i = 0``), only the intercept
        moves, so ``X`` is then centred but not scaled (``C`` is absolute).
        Other kernels see ``X`` as given. Sparse ``X`` is never centred, so
        ordinary data (near the origin) are solved in the same coordinates
        dense or sparse, and both fits give the same model (issue 21). Sets
        ``_gamma`` (in ``X``'s units, as scikit-learn) and ``_gamma_solver``
        (in the solver's).
        """
        self._shift, self._unit = None, 1.0
        X_solver = X
        sparse = sp.issparse(X)
        if not sparse and (self.kernel in ("rbf", "laplacian") or (
                self.kernel == "linear" and shift_linear)):
            with np.errstate(over="ignore", invalid="ignore"):
                mean = X.mean(axis=0)
                centred = X - mean
                spread = float(np.max(np.abs(centred), initial=0.0))
            if self.kernel == "rbf" and not np.isfinite(spread):
                # Opens with scikit-learn's words (its libsvm gets non-finite
                # duals on these data; its tests match them).
                raise ValueError(
                    "The dual coefficients or intercepts are not finite for these "
                    "data: X's values span more than float64 can represent once "
                    "centred (|x - mean(x)| overflows); rescale X, e.g. with "
                    "StandardScaler."
                )
            if _far_from_origin(mean, spread):
                self._shift = mean
                X_solver = centred
        if self.kernel == "rbf":
            values = X_solver.data if sparse else X_solver
            largest = float(np.max(np.abs(values), initial=0.0))
            if not np.isfinite(largest):
                raise ValueError(
                    "X holds values too large for float64 (inf); rescale X, "
                    "e.g. with StandardScaler."
                )
            self._unit = _power_of_two_above(largest)
            if self._unit != 1.0:
                X_solver = X_solver / self._unit  # exact: a power of two
        with np.errstate(over="ignore", under="ignore"):
            unit2 = np.float64(self._unit) ** 2  # may be inf or 0: handled below
        n_features = X.shape[1]
        if self.gamma == "scale":
            if self.kernel == "rbf":
                # scikit-learn's X.var(), over all entries of X as given, in
                # the solver's units. Centring each column removed the spread
                # of the column means, which is added back (total variance =
                # mean within-column variance + variance of the column means).
                var = _entries_variance(X_solver)
                if self._shift is not None:
                    var = var + np.var(self._shift / self._unit)
                gamma_solver = 1.0 / (n_features * var) if var > 0 else unit2
            else:
                with np.errstate(over="ignore"):
                    var = _entries_variance(X)  # as given: not scale-free
                gamma_solver = 1.0 / (n_features * var) if var > 0 else 1.0
            if self.kernel == "laplacian":
                # 1 / sqrt(n_features var): the distance, not its square, is scaled
                gamma_solver = np.sqrt(gamma_solver)
        elif self.gamma == "auto":
            gamma_solver = unit2 / n_features
        else:
            with np.errstate(over="ignore"):
                gamma_solver = np.float64(self.gamma) * unit2
        # gamma * unit² beyond float64 means k(x, z) = [x == z]: cap it.
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
        if getattr(self, "_raw_input", False):
            self._shift, self._unit = None, 1.0
            self._gamma = self._gamma_solver = 0.0  # the callable has its own
            X_solver = X
        else:
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
                f"Solver terminated early (max_iter={self.max_iter}).  Consider "
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
                "The dual coefficients or intercepts are not finite: the solver "
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
        if getattr(self, "_raw_input", False):
            return _as_object_rows(X)  # for the callable kernel, unconverted
        X = validate_data(self, X, dtype=np.float64, order="C", reset=False,
                          accept_sparse="csr" if self._accepts_sparse else False)
        self._check_sparse_precomputed(X)
        if sp.issparse(X):
            if not getattr(self, "_fit_sparse", False) and not callable(self.kernel):
                # scikit-learn's refusal (its wording): the model was fitted
                # in dense coordinates
                raise ValueError(
                    f"cannot use sparse input in {type(self).__name__!r} trained on "
                    "dense data (fit on sparse X, or pass X.toarray())"
                )
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
        n_support = getattr(self, "_n_support", None)
        if n_support is not None and (
                int(np.sum(n_support)) != self._W.shape[0]
                or not np.array_equal(n_support, self.n_support_)):
            # scikit-learn's check (CVE-2020-28975): the per-class support
            # counts no longer describe the stored support vectors
            raise ValueError(
                f"The internal representation of {type(self).__name__} was altered: "
                "n_support_ does not match the stored support vectors; refit."
            )
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

    @property
    def coef_(self):
        """Primal weights (linear kernel only; see the class's ``coef_``)."""
        check_is_fitted(self)
        if self.kernel != "linear":
            raise AttributeError("coef_ is only available when using a linear kernel")
        coef = np.ascontiguousarray(self._W_primal.T)
        if getattr(self, "_fit_sparse", False):
            return sp.csr_matrix(coef)
        # read-only, as scikit-learn's: coef_ is derived from the dual, so an
        # edit of it would change nothing and must not pass silently
        coef.flags.writeable = False
        return coef

    def _public_dual(self, dual):
        """``dual_coef_`` as scikit-learn stores it: CSR after a sparse fit."""
        return sp.csr_matrix(dual) if self._fit_sparse else dual

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.kernel == "precomputed"
        # sparse X, except as a precomputed kernel (scikit-learn's rule)
        tags.input_tags.sparse = self._accepts_sparse and self.kernel != "precomputed"
        return tags
