"""Ordinary least squares: normal equations, SVD least squares, gradient descent."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from joblib import Parallel, delayed
from scipy import linalg, optimize
from scipy.sparse.linalg import LinearOperator, lsqr, svds
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning

from ..utils import Interval, Options, check_sample_weight, validate_params
from ._base import (
    CentredSparse,
    LinearRegressorMixin,
    preprocess_data,
    set_intercept,
    solve_spd,
)
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc
from ..utils.validation import validate_data

__all__ = ["LinearRegression"]

# The fit docstring of the least-squares regressors (Ridge's too).
REGRESSION_FIT_DOC = """
Parameters
----------
X : {array-like, sparse matrix} of shape (n_samples, n_features)
    Training data.
y : array-like of shape (n_samples,) or (n_samples, n_targets)
    Targets.
sample_weight : array-like of shape (n_samples,), default=None
    Non-negative weights; an integer weight equals repeating the row.

Returns
-------
self : object
    The fitted estimator.
"""

# Sparse input: the dense Gram matrix of the normal equations (8 p² bytes)
# is formed only up to this many features (32 MB); beyond, LSQR works on
# the sparse matrix itself, O(nnz) per iteration.
SPARSE_GRAM_MAX = 2000


def least_squares_loss_grad(W, X, Y, alpha, scale):
    """``J(W) = (‖Y − XW‖²_F + Σ_k alpha_k ‖W[:, k]‖²) / (2 scale)`` and its
    gradient ``(alpha · W − Xᵀ(Y − XW)) / scale`` (W of shape (p, k))."""
    R = Y - X @ W
    J = ((R * R).sum() + (alpha * (W * W).sum(axis=0)).sum()) / (2.0 * scale)
    return J, (alpha * W - X.T @ R) / scale


def least_squares_gd(X, Y, alpha, *, scale, learning_rate, max_iter, tol):
    """Batch gradient descent on the (ridge-)regularised least-squares loss.

    Minimises ``J(W) = (‖Y − X W‖²_F + Σ_k alpha_k ‖W[:, k]‖²) / (2 · scale)``
    with simultaneous updates ``W ← W − η ∇J``, ``∇J = (Xᵀ(XW − Y) + W·alpha)
    / scale`` (notes B §2.2 / D3; ``alpha = 0`` gives plain least squares),
    and stops when ``|J_{t−1} − J_t| ≤ tol``.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Centred (and sqrt-weight rescaled) data; see ``preprocess_data``.
    Y : ndarray of shape (n_samples, n_targets)
    alpha : ndarray of shape (n_targets,)
        L2 penalty per target (zeros for least squares).
    scale : float
        ``m`` of the notes: the sum of the sample weights.
    learning_rate : "auto" or float
        ``"auto"`` takes ``η_k = 1 / L_k`` with ``L_k = (λ_max(XᵀX) + alpha_k)
        / scale``, the Lipschitz constant of ``∇J``: J then decreases at
        every step. A float is used for every target.
    max_iter : int
    tol : float
        Absolute threshold on the per-iteration decrease of J.

    Returns
    -------
    coef : ndarray of shape (n_targets, n_features)
    n_iter : int
        Number of updates made.
    loss_curve : list of float
        ``J`` at the start and after every update.
    converged : bool
    """
    n_samples, n_features = X.shape
    if learning_rate == "auto":
        lam = _largest_eigenvalue(X)
        lipschitz = (max(lam, 0.0) + alpha) / scale
        # Any step works on a zero-curvature problem (X = 0 and alpha = 0).
        eta = 1.0 / np.where(lipschitz > 0, lipschitz, 1.0)
    else:
        eta = np.full(Y.shape[1], float(learning_rate))

    W = np.zeros((n_features, Y.shape[1]))
    J, grad = least_squares_loss_grad(W, X, Y, alpha, scale)
    loss_curve = [J]
    converged = False
    n_iter = 0
    for n_iter in range(1, max_iter + 1):
        W -= eta * grad  # all coefficients at once: simultaneous update
        # A diverging run overflows; that is detected and reported below.
        with np.errstate(over="ignore", invalid="ignore"):
            J_new, grad = least_squares_loss_grad(W, X, Y, alpha, scale)
        loss_curve.append(J_new)
        if not np.isfinite(J_new):
            raise ValueError(
                "Gradient descent diverged (the loss became infinite or NaN): "
                f"learning_rate={learning_rate!r} is too large for this data; "
                "use a smaller value or learning_rate='auto'."
            )
        if abs(J - J_new) <= tol:
            converged = True
            break
        J = J_new
    return W.T, n_iter, loss_curve, converged


def _largest_eigenvalue(X):
    """``λ_max(XᵀX)`` for an array or a ``LinearOperator`` (sparse input)."""
    n_samples, n_features = X.shape
    if isinstance(X, LinearOperator):
        if min(X.shape) > SPARSE_GRAM_MAX:
            # The largest singular value by ARPACK, from a fixed start.
            v0 = np.ones(min(X.shape))
            return float(svds(X, k=1, v0=v0, return_singular_vectors=False)[0] ** 2)
        # A small Gram matrix through the operator: X̃ᵀ(X̃ I) or X̃(X̃ᵀ I).
        if n_features <= n_samples:
            gram = X.T @ (X @ np.eye(n_features))
        else:
            gram = X @ (X.T @ np.eye(n_samples))
        gram = 0.5 * (gram + gram.T)
    else:
        # λ_max(XᵀX) = λ_max(XXᵀ): use the smaller Gram matrix.
        gram = X.T @ X if n_features <= n_samples else X @ X.T
    m = gram.shape[0]
    return linalg.eigvalsh(gram, subset_by_index=[m - 1, m - 1], check_finite=False)[0]


def sparse_lsqr(op, Y, alpha, tol, max_iter=None):
    """LSQR on ``min ‖op w − y_k‖² + alpha_k ‖w‖²``, one target at a time.

    ``op`` is the implicitly centred sparse matrix (``CentredSparse.op``);
    each iteration costs one product with X and one with Xᵀ, O(nnz). From
    ``w = 0`` with ``alpha = 0`` LSQR converges to the minimum-norm
    least-squares solution (the one ``lstsq`` gives on dense data).
    ``atol = btol = tol`` as scikit-learn's sparse solvers use them.
    Returns ``W`` of shape (n_features, n_targets) and the largest
    iteration count.
    """
    W = np.empty((op.shape[1], Y.shape[1]))
    n_iter = 0
    for k in range(Y.shape[1]):
        out = lsqr(op, Y[:, k], damp=float(np.sqrt(alpha[k])), atol=tol, btol=tol,
                   iter_lim=max_iter)
        W[:, k] = out[0]
        n_iter = max(n_iter, int(out[2]))
    return W, n_iter


def _lstsq(X, y, overwrite_X):
    coef, _, rank, singular = linalg.lstsq(
        X,
        y,
        cond=max(X.shape) * np.finfo(X.dtype).eps,
        overwrite_a=overwrite_X,
        check_finite=False,
    )
    return coef, rank, singular


@fill_doc(fitted_feature_attributes=FITTED_FEATURE_ATTRIBUTES)
class LinearRegression(LinearRegressorMixin, BaseEstimator):
    """Ordinary least squares linear regression.

    Minimises ``Σ_i s_i (y_i − x_iᵀw − b)²`` (``s_i`` the sample weights),
    the least-squares regression of notes B §2.1 (closed form, D1 §3.2 and
    D3 "正规方程") and §2.2 (batch gradient descent, D3). The intercept is
    handled by centring ``X`` and ``y`` on their weighted means, so every
    solver works on an intercept-free problem and ``b = ȳ − x̄ᵀw``.

    Parameters
    ----------
    fit_intercept : bool, default=True
        Whether to fit the intercept ``b`` (else the data are used as is).
    copy_X : bool, default=True
        If False, ``X`` may be centred (and reweighted) in place; ``y`` never is.
    solver : {"auto", "normal", "lstsq", "gd"}, default="auto"
        - ``"normal"``: the normal equations ``XᵀX w = Xᵀy`` on the centred,
          weighted data, solved by Cholesky. When ``XᵀX`` is singular or its
          (equilibrated) condition number exceeds 1e9, a
          ``UserWarning`` is emitted (the notes' advice: drop features or
          regularise, e.g. :class:`Ridge`) and the minimum-norm least-squares
          solution of ``"lstsq"`` is returned instead.
        - ``"lstsq"``: ``scipy.linalg.lstsq`` (SVD, LAPACK ``gelsd``): the
          minimum-norm solution whatever the rank; sets ``rank_`` and
          ``singular_``.
        - ``"auto"``: ``"normal"`` when ``n_samples > n_features`` and the
          Gram matrix is well-conditioned (several times faster), else
          ``"lstsq"``, silently.
        - ``"gd"``: batch gradient descent on ``J = (1/2m) Σ s_i (h − y)²``
          with ``m = Σ s_i`` (D3), simultaneous updates of all coefficients.

        On sparse X nothing is centred or densified: ``"normal"`` uses the
        implicitly centred Gram matrix ``XᵀSX − (Σs) x̄x̄ᵀ`` ("auto": only up
        to 2000 features), and ``"lstsq"`` (also the fallback) is LSQR on
        the implicitly centred matrix, reported as ``solver_ = "lsqr"``.
    learning_rate : "auto" or float, default="auto"
        Step size ``α`` of ``"gd"``. ``"auto"`` uses ``1/L`` with ``L`` the
        largest eigenvalue of ``XᵀX/m`` (centred), which makes ``J``
        decrease monotonically; a step above ``2/L`` diverges.
    max_iter : int, default=1000
        Maximum number of gradient steps of ``"gd"``.
    tol : float, default=1e-6
        ``"gd"`` stops when the decrease of ``J`` in one step is at most
        ``tol`` (an absolute threshold, like the notes' ``ΔJ ≤ 1e-3``; it
        scales with ``y²``). LSQR on sparse X uses it as ``atol`` and
        ``btol``, as scikit-learn does.
    n_jobs : int, default=None
        Parallel jobs (joblib) over the targets of a multi-output
        ``positive`` fit; the other solvers treat all targets in one BLAS
        call. None means 1 unless in a ``joblib.parallel_backend`` context.
    positive : bool, default=False
        Constrain the coefficients to be non-negative (the intercept stays
        free): non-negative least squares on the centred, weighted data
        (Lawson-Hanson active set, ``scipy.optimize.nnls``, as scikit-learn).
        ``solver`` is then ignored and ``solver_`` is "nnls". Sparse X is
        then refused with a TypeError, as scikit-learn refuses it
        (``Ridge(alpha=0.0, positive=True)`` takes it).

    Attributes
    ----------
    coef_ : ndarray of shape (n_features,) or (n_targets, n_features)
        Coefficients; 2-d when ``y`` is 2-d.
    intercept_ : float or ndarray of shape (n_targets,)
        ``0.0`` when ``fit_intercept=False``.
    solver_ : str
        The solver that produced ``coef_`` ("normal", "lstsq", "gd", or
        "lsqr" on sparse X; "nnls" with ``positive``).
    rank_ : int or None
        Rank of the centred ``X`` when ``"lstsq"`` ran, else None.
    singular_ : ndarray of shape (min(n_samples, n_features),) or None
        Singular values of the centred, weighted ``X`` when ``"lstsq"`` ran.
    n_iter_ : int
        Gradient steps taken by ``"gd"``, LSQR iterations (the most over the
        targets) on sparse X; 1 for the direct solvers.
    loss_curve_ : list of float or None
        ``"gd"`` only: ``J`` at ``w = 0`` then after each step.
    <fitted_feature_attributes>

    See Also
    --------
    Ridge : Least squares with an L2 penalty.
    Lasso : Least squares with an L1 penalty.
    sklearn.linear_model.LinearRegression : The scikit-learn counterpart
        (``lstsq`` only, with ``cond=tol``).

    Notes
    -----
    Cost: the normal equations need ``O(n p²)`` for ``XᵀX`` plus ``O(p³)``;
    ``lstsq`` needs ``O(n p²)`` with a larger constant (an SVD); ``"gd"``
    costs ``O(n p)`` per step. Memory ``O(n p)`` for the centred copy of X.

    The Cholesky solution has a relative error of about ``cond(X)² · eps``,
    the SVD one about ``cond(X) · eps``: hence the conditioning test and the
    fallback. D1's example ``X = [[0], [ε]], y = [1, −1]`` gives
    ``coef_ = −2/ε``, ``intercept_ = 1``: tiny changes of ``X`` move ``w`` a
    lot.

    Notes D1 write the loss as ``(1/n)‖WX − Y‖²_F`` with padded ``X``; D3 as
    ``(1/2m)‖Xθ − y‖²``; both have the same minimiser as this class with
    ``fit_intercept=True`` (no penalty, so padding and centring agree).
    ``rank_`` is computed with ``cond = max(n, p) · eps`` (scikit-learn uses
    ``cond = tol = 1e-6``).

    References
    ----------
    Golub, G. H. and Van Loan, C. F. (2013). Matrix Computations, 4th ed.,
    §5.3 (the full-rank least-squares problem).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.linear_model import LinearRegression
    >>> X = np.array([[0.0], [0.1]])
    >>> reg = LinearRegression().fit(X, [1.0, -1.0])
    >>> round(float(reg.coef_[0]), 6), round(float(reg.intercept_), 6)
    (-20.0, 1.0)
    """

    _parameter_constraints = {
        "fit_intercept": ["boolean"],
        "copy_X": ["boolean"],
        "solver": [Options({"auto", "normal", "lstsq", "gd"})],
        "learning_rate": [Options({"auto"}), Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "n_jobs": [Integral, None],
        "positive": ["boolean"],
    }

    def __init__(
        self,
        *,
        fit_intercept=True,
        copy_X=True,
        solver="auto",
        learning_rate="auto",
        max_iter=1000,
        tol=1e-6,
        n_jobs=None,
        positive=False,
    ):
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.solver = solver
        self.learning_rate = learning_rate
        self.max_iter = max_iter
        self.tol = tol
        self.n_jobs = n_jobs
        self.positive = positive

    @fill_doc(regression_fit_doc=REGRESSION_FIT_DOC)
    def fit(self, X, y, sample_weight=None):
        """Fit the least-squares model.

        <regression_fit_doc>
        """
        validate_params(self)
        # positive=True refuses sparse X with check_array's TypeError, as
        # scikit-learn's LinearRegression does.
        X, y = validate_data(
            self, X, y, accept_sparse=False if self.positive else ("csr", "csc"),
            dtype=np.float64, multi_output=True, y_numeric=True,
        )
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        y = np.asarray(y, dtype=np.float64)
        if sp.issparse(X):
            return self._fit_sparse(X, y, sample_weight)
        X, Y, X_offset, y_offset = preprocess_data(
            X,
            y,
            fit_intercept=self.fit_intercept,
            sample_weight=sample_weight,
            copy=self.copy_X,
        )
        n_samples, n_features = X.shape
        solver = self.solver
        self.rank_ = self.singular_ = self.loss_curve_ = None
        self.n_iter_ = 1

        if self.positive:
            Y2 = Y.reshape(n_samples, -1)
            columns = Parallel(n_jobs=self.n_jobs)(
                delayed(optimize.nnls)(X, Y2[:, k]) for k in range(Y2.shape[1])
            )
            coef = np.column_stack([c for c, _ in columns]).T
            solver = "nnls"
        elif solver == "gd":
            coef = self._fit_gd(X, Y.reshape(n_samples, -1), sample_weight)
        else:
            coef = None
            rank_ok = n_samples - int(self.fit_intercept) >= n_features
            if solver == "normal" or (solver == "auto" and rank_ok):
                coef = solve_spd(X.T @ X, X.T @ Y)
                if coef is None and solver == "normal":
                    _warn_singular_gram("SVD")
            if coef is None:
                solver = "lstsq"
                # X is our own centred copy unless neither centring nor
                # weighting touched it.
                own_X = self.copy_X and (
                    self.fit_intercept or sample_weight is not None
                )
                coef, self.rank_, self.singular_ = _lstsq(X, Y, own_X)
            else:
                solver = "normal"
            coef = coef.T
        self.solver_ = solver
        self.coef_ = coef.reshape(-1) if y.ndim == 1 else coef
        set_intercept(self, X_offset, y_offset)
        return self

    def _fit_sparse(self, X, y, sample_weight):
        """``fit`` on sparse X: X is never centred nor densified.

        The normal equations use the implicitly centred Gram matrix
        ``XᵀSX − (Σs) x̄x̄ᵀ`` (dense p x p, only up to ``SPARSE_GRAM_MAX``
        features under "auto"); "lstsq", the fallback of a singular Gram
        matrix and wide data use LSQR on the implicitly centred operator
        (``atol = btol = tol``, as scikit-learn's sparse LinearRegression);
        "gd" steps with the same operator.
        """
        data = CentredSparse(
            X, y, fit_intercept=self.fit_intercept, sample_weight=sample_weight
        )
        n_samples, n_features = X.shape
        Y = data.Y
        solver = self.solver
        self.rank_ = self.singular_ = self.loss_curve_ = None
        self.n_iter_ = 1
        if solver == "gd":
            coef = self._fit_gd(data.op, Y, sample_weight)
        else:
            coef = None
            rank_ok = n_samples - int(self.fit_intercept) >= n_features
            if solver == "normal" or (
                solver == "auto" and rank_ok and n_features <= SPARSE_GRAM_MAX
            ):
                coef = solve_spd(data.gram(), data.op.T @ Y)
                if coef is None and solver == "normal":
                    _warn_singular_gram("LSQR")
            if coef is None:
                solver = "lsqr"
                coef, self.n_iter_ = sparse_lsqr(
                    data.op, Y, np.zeros(Y.shape[1]), self.tol
                )
            else:
                solver = "normal"
            coef = coef.T
        self.solver_ = solver
        self.coef_ = coef.reshape(-1) if y.ndim == 1 else coef
        set_intercept(self, data.X_offset, data.y_offset)
        return self

    def _fit_gd(self, X, Y, sample_weight):
        """Gradient descent on ``X`` (dense, or the centred sparse operator)
        for the 2-d ``Y``; warns when it stops before converging."""
        scale = Y.shape[0] if sample_weight is None else sample_weight.sum()
        coef, self.n_iter_, self.loss_curve_, converged = least_squares_gd(
            X, Y, np.zeros(Y.shape[1]), scale=scale, learning_rate=self.learning_rate,
            max_iter=self.max_iter, tol=self.tol,
        )
        if not converged:
            warnings.warn(
                f"Gradient descent did not converge in max_iter={self.max_iter} "
                f"steps (last decrease of J above tol={self.tol}); increase "
                "max_iter or learning_rate, or scale the features.",
                ConvergenceWarning,
            )
        return coef

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = not self.positive  # as scikit-learn's
        return tags


def _warn_singular_gram(fallback):
    warnings.warn(
        "XᵀX is singular or ill-conditioned, so the normal equations are "
        f"unreliable; returning the minimum-norm least-squares ({fallback}) "
        "solution instead. Consider dropping collinear features or "
        "regularising (Ridge).",
        UserWarning,
    )
