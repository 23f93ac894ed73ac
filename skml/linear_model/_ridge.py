"""Ridge regression: closed form (Cholesky, SVD), iterative solvers, gradient descent."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_random_state

from ..utils import Interval, Options, check_sample_weight, validate_params
from ..utils._magnitude import magnitude_scale
from ._base import (
    REGRESSION_COEF, CentredSparse, LinearRegressorMixin, preprocess_data, set_intercept,
    solve_spd,
)
from ._least_squares import REGRESSION_FIT_DOC, SPARSE_GRAM_MAX, least_squares_gd, sparse_lsqr
from ._ridge_solvers import ridge_lbfgs, ridge_sag, ridge_sparse_cg
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc
from ..utils.validation import validate_data

__all__ = ["Ridge"]

# Solvers of _ridge_solvers, run on the centred data (sag/saga: dense only;
# sparse sag/saga fit the intercept on the raw rows).
_ITERATIVE = ("sparse_cg", "lbfgs", "sag", "saga")


def _check_alpha(alpha, n_targets):
    """Return ``alpha`` as a float array of shape (n_targets,)."""
    try:
        alpha = np.asarray(alpha, dtype=np.float64)
    except (TypeError, ValueError):
        raise ValueError(f"alpha must be a float or an array of floats; got {alpha!r}.")
    if alpha.ndim > 1 or alpha.size not in (1, n_targets):
        # scikit-learn's wording after ours (its tests match it).
        raise ValueError(
            f"alpha must be a float or an array of one penalty per target; got "
            f"shape {alpha.shape}. Number of targets and number of penalties do "
            f"not correspond: {alpha.size} != {n_targets}."
        )
    if not np.all(np.isfinite(alpha)) or np.any(alpha < 0):
        raise ValueError(f"alpha must be finite and non-negative; got {alpha!r}.")
    return np.broadcast_to(alpha.reshape(-1), (n_targets,)).copy()


def _solve_cholesky(X, Y, alpha):
    """Primal ``(XᵀX + αI) W = XᵀY`` or dual ``W = Xᵀ(XXᵀ + αI)⁻¹Y``.

    Returns ``W`` of shape (n_features, n_targets), or None if a system is
    singular or too ill-conditioned (the caller then uses the SVD).
    """
    n_samples, n_features = X.shape
    primal = n_features <= n_samples
    A = X.T @ X if primal else X @ X.T
    B = X.T @ Y if primal else Y
    sol = _solve_regularised(A, B, alpha)
    if sol is None:
        return None
    return sol if primal else X.T @ sol


def _solve_regularised(A, B, alpha):
    """``(A + alpha_k I) x_k = B[:, k]`` for every target, or None (ill-posed)."""
    m = A.shape[0]
    if np.all(alpha == alpha[0]):
        A.flat[:: m + 1] += alpha[0]
        sol = solve_spd(A, B)
    else:
        sol = np.empty_like(B)
        for k, a_k in enumerate(alpha):
            A_k = A.copy()
            A_k.flat[:: m + 1] += a_k
            col = solve_spd(A_k, B[:, k])
            if col is None:
                return None
            sol[:, k] = col
    return sol


def _solve_svd(X, Y, alpha):
    """``W = V diag(s / (s² + α)) Uᵀ Y``; singular values below the rank
    cut-off ``max(n, p) · eps · s_max`` are dropped (minimum norm at α=0)."""
    U, s, Vt = linalg.svd(X, full_matrices=False, check_finite=False)
    keep = s > max(X.shape) * np.finfo(X.dtype).eps * (s[0] if s.size else 0.0)
    s_kept = s[keep][:, np.newaxis]
    d = np.zeros((s.size, alpha.size))
    d[keep] = s_kept / (s_kept**2 + alpha)
    return Vt.T @ (d * (U.T @ Y))


def _lsqr(op, Y, alpha, tol, max_iter):
    """``sparse_lsqr`` target by target: ``W`` and one LSQR count per target.

    ``n_iter_`` is an int32 array of shape (n_targets,) for the iterative
    solvers, as scikit-learn's; ``sparse_lsqr`` reports only the largest count.
    """
    fits = [sparse_lsqr(op, Y[:, k:k + 1], alpha[k:k + 1], tol, max_iter)
            for k in range(Y.shape[1])]
    return (np.hstack([W for W, _ in fits]),
            np.array([n for _, n in fits], dtype=np.int32))


def _rescale(X, alpha):
    """``X / s`` and the penalty of the same problem in those units.

    With ``X = s X'`` and ``w = w' / s`` the scores are unchanged and
    ``alpha ||w||^2 = (alpha / s^2) ||w'||^2``: the same minimiser, mapped
    back by ``coef_ = w' / s``. Only for data of extreme magnitude
    (``magnitude_scale``), where ``XᵀX`` would overflow or underflow; there
    ``alpha / s^2`` is ~0 at X * 1e300 (the fit is least squares, as the
    exact solution is). If ``alpha / s^2`` overflows (tiny X), the penalty
    dominates and the unscaled computation already gives ``coef_`` ~ 0.
    Returns ``X, alpha, s`` (``s = 1.0``: unchanged).
    """
    s = magnitude_scale(X)
    if s != 1.0:
        with np.errstate(over="ignore", under="ignore"):
            alpha_s = alpha / s / s
        if np.all(np.isfinite(alpha_s)):
            return X / s, alpha_s, s
    return X, alpha, 1.0


@fill_doc(
    regression_coef=REGRESSION_COEF,
    fitted_feature_attributes=FITTED_FEATURE_ATTRIBUTES,
)
class Ridge(LinearRegressorMixin, BaseEstimator):
    """Least squares with an L2 penalty on the coefficients (not the intercept).

    Minimises ``Σ_i s_i (y_i − x_iᵀw − b)² + alpha ‖w‖²`` (``s_i`` the sample
    weights), ridge regression of notes B §2.3 in the D3/D4 variant where the
    intercept is not penalised. Closed form on the centred data:
    ``w = (XᵀX + αI)⁻¹Xᵀy`` when ``n_features <= n_samples``, else the dual
    ``w = Xᵀ(XXᵀ + αI)⁻¹y``; ``b = ȳ − x̄ᵀw``.

    Parameters
    ----------
    alpha : float or array-like of shape (n_targets,), default=1.0
        Non-negative penalty; an array gives one penalty per target.
    fit_intercept : bool, default=True
        Whether to fit an (unpenalised) intercept.
    copy_X : bool, default=True
        If False, ``X`` may be centred (and reweighted) in place; ``y`` never is.
    max_iter : int, default=None
        Maximum steps of ``"gd"`` (None means 1000), iterations of
        ``"lsqr"`` (None: LSQR's default, ``2 n_features``), ``"sparse_cg"``
        (None: scipy's ``10 n``) and ``"lbfgs"`` (None: scipy's 15000),
        epochs of ``"sag"``/``"saga"`` (None means 1000). Unused otherwise.
    tol : float, default=1e-4
        ``"gd"`` stops when ``J`` decreases by at most ``tol`` in one step
        (absolute); ``"lsqr"`` uses it as ``atol`` and ``btol``,
        ``"sparse_cg"`` as the relative residual of the normal equations,
        ``"lbfgs"`` as L-BFGS-B's ``ftol`` and ``gtol``, ``"sag"``/``"saga"``
        as the largest weight change of an epoch relative to the largest
        weight (each as scikit-learn's same solver). Unused otherwise.
    solver : {"auto", "svd", "cholesky", "lsqr", "sparse_cg", "sag", "saga", \
"lbfgs", "gd"}, default="auto"
        - ``"cholesky"``: Cholesky of the primal ``XᵀX + αI`` or the dual
          ``XXᵀ + αI``, whichever is smaller; falls back to ``"svd"`` when
          the system is singular or ill-conditioned (only possible for
          ``alpha`` near 0).
        - ``"svd"``: from the thin SVD of the centred ``X``; the most stable.
        - ``"auto"``: ``"lbfgs"`` when ``positive``, else ``"cholesky"``
          (``"lsqr"`` for large sparse X, see below).
        - ``"lsqr"``: LSQR (``scipy.sparse.linalg.lsqr`` with
          ``damp = √alpha``): iterative, one product with ``X`` and one with
          ``Xᵀ`` per iteration.
        - ``"sparse_cg"``: conjugate gradients (``scipy.sparse.linalg.cg``)
          on the primal normal equations, or on the dual ``XXᵀ + αI`` when
          ``n_features > n_samples``.
        - ``"sag"``, ``"saga"``: stochastic average gradient and SAGA
          (skml's numba kernels, samples drawn with ``random_state``); fast
          only on features of similar scale. On sparse X with an intercept,
          as in scikit-learn: ``"saga"`` is refused, and ``"sag"`` runs only
          when ``max_iter`` is None and ``tol > 1e-4`` (with a UserWarning:
          it fits the intercept itself on the uncentred rows, which needs
          many epochs), ``"sparse_cg"`` taking its place otherwise.
        - ``"lbfgs"``: L-BFGS-B (scipy); the only solver for
          ``positive=True`` and, as in scikit-learn, refused without it.
        - ``"gd"``: batch gradient descent on ``J = (1/2m)[Σ s_i (h − y)² +
          α‖w‖²]``, ``m = Σ s_i``, i.e. D3's update
          ``w_j ← w_j(1 − ηα/m) − η(1/m)Σ(h − y)x_j`` (skml's own).

        Sparse X is never centred nor densified: ``"cholesky"`` forms the
        implicitly centred ``XᵀSX − (Σs) x̄x̄ᵀ`` (or its dual, n x n), which
        ``"auto"`` does only while ``min(n_samples, n_features) <= 2000``,
        else it takes ``"lsqr"`` on the implicitly centred matrix (also the
        fallback of a singular system); ``"sparse_cg"`` and ``"lbfgs"`` work
        on that implicitly centred matrix too. As scikit-learn's, an explicit
        ``"cholesky"``, ``"svd"`` or ``"saga"`` refuses to fit an intercept
        on sparse X (ValueError; ``"auto"`` does it), and ``"svd"`` refuses
        sparse X without one too (TypeError).
    positive : bool, default=False
        Constrain the coefficients to ``w >= 0`` (not the intercept), solved
        by L-BFGS-B's bound constraints; needs ``solver`` "auto" or "lbfgs".
    random_state : int, RandomState instance or None, default=None
        Draws the samples of ``"sag"`` and ``"saga"``; unused otherwise.
    learning_rate : "auto" or float, default="auto"
        Step of ``"gd"``; ``"auto"`` is ``1/L``, ``L = (λ_max(XᵀX) + α)/m``.

    Attributes
    ----------
    <regression_coef>
        ``coef_`` and ``intercept_`` are float32 for float32 X (solved in
        float64 and rounded), else float64.
    solver_ : str
        Solver that produced ``coef_`` ("cholesky", "svd", "lsqr",
        "sparse_cg", "sag", "saga", "lbfgs" or "gd").
    n_iter_ : None or ndarray of shape (n_targets,)
        As scikit-learn's: one count per target (int32; shape (1,) for 1-d
        ``y``), iterations of ``"lsqr"`` and epochs of ``"sag"``/``"saga"``;
        None for the closed-form solvers, ``"sparse_cg"`` and ``"lbfgs"``.
        ``"gd"`` (skml's own) descends all targets together: its step count,
        once per target.
    loss_curve_ : list of float or None
        ``"gd"`` only: ``J`` at ``w = 0`` and after each step.
    <fitted_feature_attributes>

    See Also
    --------
    LinearRegression : The unpenalised model (``alpha = 0``).
    Lasso : L1 penalty, sparse coefficients.
    sklearn.linear_model.Ridge : The scikit-learn counterpart.

    Notes
    -----
    Cost: ``O(n p²) + O(p³)`` (primal) or ``O(n² p) + O(n³)`` (dual) for
    Cholesky; ``O(n p min(n, p))`` for SVD; ``O(n p)`` per ``"gd"`` step.

    Constants of the notes (catalogue B §0.1):

    - D3 ``(1/2m)[Σ(h − y)² + λΣ_{j≥1}θ_j²]`` and D4 ``Σ(ŷ − b − w·x)² +
      λΣw_i²`` (intercept not penalised): ``Ridge(alpha=λ)``.
    - D1 ``(1/n)‖WX − Y‖²_F + λ‖W‖²_F`` with the bias padded into ``W`` (so
      penalised): ``Ridge(alpha=n·λ, fit_intercept=False)`` on ``X`` with an
      appended column of ones.

    D1's data-augmentation identity: ridge equals least squares on
    ``[X; √α I]`` and ``[y; 0]`` (here with centred ``X`` and ``y``).
    As ``alpha`` grows, ``‖w‖`` shrinks to 0 and the training error grows.

    References
    ----------
    Hoerl, A. E. and Kennard, R. W. (1970). Ridge regression: biased
    estimation for nonorthogonal problems. Technometrics 12(1), 55-67.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.linear_model import Ridge
    >>> X = np.array([[0.0, 0.0], [1.0, 1.0], [2.0, 2.0]])
    >>> reg = Ridge(alpha=1.0).fit(X, [0.0, 1.0, 2.0])
    >>> np.round(reg.coef_, 4).tolist(), round(float(reg.intercept_), 4)
    ([0.4, 0.4], 0.2)
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "fit_intercept": ["boolean"],
        "copy_X": ["boolean"],
        "solver": [Options({"auto", "cholesky", "svd", "lsqr", "sparse_cg", "sag",
                            "saga", "lbfgs", "gd"})],
        "positive": ["boolean"],
        "random_state": ["random_state"],
        "learning_rate": [Options({"auto"}), Interval(Real, 0, None, closed="neither")],
        "max_iter": [Interval(Integral, 1, None, closed="left"), None],
        "tol": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        fit_intercept=True,
        copy_X=True,
        max_iter=None,
        tol=1e-4,
        solver="auto",
        positive=False,
        random_state=None,
        learning_rate="auto",
    ):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.solver = solver
        self.positive = positive
        self.random_state = random_state
        self.learning_rate = learning_rate

    def _check_solver(self):
        """The solver to run: scikit-learn 1.9's rules for ``positive``."""
        if self.positive:
            if self.solver not in ("auto", "lbfgs"):
                raise ValueError(
                    f"solver='{self.solver}' does not support positive fitting. "
                    "Please set the solver to 'auto' or 'lbfgs', or set "
                    "`positive=False`")
            return "lbfgs"
        if self.solver == "lbfgs":
            raise ValueError(
                "'lbfgs' solver can be used only when positive=True. "
                "Please use another solver.")
        return self.solver

    @fill_doc(regression_fit_doc=REGRESSION_FIT_DOC)
    def fit(self, X, y, sample_weight=None):
        """Fit the ridge model.

        <regression_fit_doc>
        """
        validate_params(self)
        solver = self._check_solver()
        X, y = validate_data(
            self, X, y, accept_sparse=("csr", "csc"), dtype=[np.float64, np.float32],
            multi_output=True, y_numeric=True,
        )
        # float32 X is solved in float64 (the normal equations square the
        # condition number) and coef_ / intercept_ are returned in float32,
        # the dtype scikit-learn's Ridge keeps.
        dtype = X.dtype
        X = X.astype(np.float64, copy=False)
        if sp.issparse(X):
            solver = self._check_sparse_solver(solver)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        y = np.asarray(y, dtype=np.float64)
        alpha = _check_alpha(self.alpha, 1 if y.ndim == 1 else y.shape[1])
        X, alpha, s = _rescale(X, alpha)
        if sp.issparse(X):
            self._fit_sparse(X, y, alpha, sample_weight, solver)
        else:
            self._fit_dense(X, y, alpha, sample_weight, solver, copy=s == 1.0)
        if s != 1.0:
            self.coef_ /= s  # back from the units of X / s (exact: s = 2^e)
        if dtype == np.float32:
            self.coef_ = self.coef_.astype(np.float32)
            if self.fit_intercept:
                self.intercept_ = np.asarray(self.intercept_, dtype=np.float32)[()]
        return self

    def _check_sparse_solver(self, solver):
        """The solver for sparse X: scikit-learn 1.9's refusals and its sag rule.

        With an intercept, scikit-learn refuses "svd", "cholesky" and "saga"
        on sparse X (ValueError; "auto" still solves the problem here, by the
        implicitly centred Gram matrix). It runs "sag" only when ``max_iter``
        is None and ``tol > 1e-4``, with a warning that the intercept needs
        many epochs, and "sparse_cg" in its place otherwise. Without an
        intercept "svd" alone is refused (TypeError).
        """
        if self.fit_intercept and not self.positive:
            if solver in ("svd", "cholesky", "saga"):
                raise ValueError(
                    f"solver='{solver}' does not support fitting the intercept on "
                    "sparse data, as in scikit-learn: use solver='auto' (which "
                    "solves it exactly), 'lsqr', 'sparse_cg', 'sag' or 'gd', set "
                    "fit_intercept=False, or pass X.toarray()."
                )
            if solver == "sag":
                if self.max_iter is not None or self.tol <= 1e-4:
                    return "sparse_cg"
                warnings.warn(
                    '"sag" solver requires many iterations to fit an intercept '
                    'with sparse inputs. Either set the solver to "auto" or '
                    '"sparse_cg", or set a low "tol" and a high "max_iter" '
                    "(especially if inputs are not standardized).",
                    UserWarning,
                )
        if solver == "svd":
            raise TypeError(
                "SVD solver does not support sparse inputs (as in scikit-learn): use "
                "solver='auto', 'cholesky', 'lsqr' or 'gd', or X.toarray()."
            )
        return solver

    def _fit_dense(self, X, y, alpha, sample_weight, solver, copy):
        """``fit`` on dense float64 X (already rescaled)."""
        X, Y, X_offset, y_offset = preprocess_data(
            X,
            y,
            fit_intercept=self.fit_intercept,
            sample_weight=sample_weight,
            copy=self.copy_X and copy,
        )
        Y = Y.reshape(X.shape[0], -1)
        solver = "cholesky" if solver == "auto" else solver
        self.n_iter_, self.loss_curve_ = None, None
        if solver in _ITERATIVE:
            coef, self.n_iter_ = self._solve_iterative(solver, X, Y, alpha)
            coef = coef.T
        elif solver == "gd":
            coef = self._fit_gd(X, Y, alpha, sample_weight)
        elif solver == "lsqr":
            coef, self.n_iter_ = _lsqr(X, Y, alpha, self.tol, self.max_iter)
            coef = coef.T
        else:
            coef = _solve_cholesky(X, Y, alpha) if solver == "cholesky" else None
            if coef is None:
                solver = "svd"
                coef = _solve_svd(X, Y, alpha)
            coef = coef.T
        self.solver_ = solver
        # One target in a column gives 1-d coef_ (and intercept_ of shape
        # (1,)), hence 1-d predictions, as scikit-learn's Ridge does.
        self.coef_ = coef.reshape(-1) if coef.shape[0] == 1 else coef
        set_intercept(self, X_offset, y_offset)

    def _fit_gd(self, X, Y, alpha, sample_weight):
        """Gradient descent on ``X`` (dense, or the centred sparse operator)
        for the 2-d ``Y``; warns when it stops before converging."""
        scale = Y.shape[0] if sample_weight is None else sample_weight.sum()
        coef, n_iter, self.loss_curve_, converged = least_squares_gd(
            X, Y, alpha, scale=scale, learning_rate=self.learning_rate,
            max_iter=1000 if self.max_iter is None else self.max_iter,
            tol=self.tol,
        )
        self.n_iter_ = np.full(Y.shape[1], n_iter, dtype=np.int32)
        if not converged:
            warnings.warn(
                "Gradient descent did not converge (last decrease of J above "
                f"tol={self.tol}); increase max_iter or scale the features.",
                ConvergenceWarning,
            )
        return coef

    def _solve_iterative(self, solver, X, Y, alpha):
        """sparse_cg or lbfgs on centred data, or sag/saga on dense centred data.

        Returns ``W`` and ``n_iter_``: None for sparse_cg and lbfgs, as
        scikit-learn reports them, else one epoch count per target.
        """
        if solver == "sparse_cg":
            return ridge_sparse_cg(X, Y, alpha, self.tol, self.max_iter)[0], None
        if solver == "lbfgs":
            return ridge_lbfgs(X, Y, alpha, self.tol, self.max_iter,
                               positive=self.positive)[0], None
        W, _, n_iter = ridge_sag(
            X, Y, alpha, None, False, self.tol,
            1000 if self.max_iter is None else self.max_iter,
            check_random_state(self.random_state), saga=solver == "saga")
        return W, n_iter

    def _fit_sparse(self, X, y, alpha, sample_weight, solver):
        """``fit`` on sparse X, never centred nor densified (see ``solver``)."""
        n_samples, n_features = X.shape
        if solver in ("sag", "saga"):
            # On the raw rows: the kernel fits the intercept (centring would
            # densify X); with an intercept only "sag" comes here (see
            # _check_sparse_solver).
            Y = np.asarray(y, dtype=np.float64).reshape(n_samples, -1)
            coef, intercept, self.n_iter_ = ridge_sag(
                X, Y, alpha, sample_weight, self.fit_intercept, self.tol,
                1000 if self.max_iter is None else self.max_iter,
                check_random_state(self.random_state), saga=solver == "saga")
            self.loss_curve_, self.solver_ = None, solver
            coef = coef.T
            self.coef_ = coef.reshape(-1) if coef.shape[0] == 1 else coef
            self.intercept_ = (
                (intercept[0] if y.ndim == 1 else intercept)
                if self.fit_intercept else 0.0)
            return
        data = CentredSparse(
            X, y, fit_intercept=self.fit_intercept, sample_weight=sample_weight
        )
        Y = data.Y
        if solver == "auto":
            solver = ("lsqr" if min(n_samples, n_features) > SPARSE_GRAM_MAX
                      else "cholesky")
        self.n_iter_, self.loss_curve_ = None, None
        coef = None
        if solver in _ITERATIVE:
            coef, self.n_iter_ = self._solve_iterative(solver, data.op, Y, alpha)
        if solver == "cholesky":
            primal = n_features <= n_samples
            if primal:
                coef = _solve_regularised(data.gram(), data.op.T @ Y, alpha)
            else:
                dual = _solve_regularised(data.kernel(), Y, alpha)
                coef = None if dual is None else data.op.T @ dual
            if coef is None:
                solver = "lsqr"  # singular at alpha ~ 0: LSQR's minimum norm
        if solver == "gd":
            coef = self._fit_gd(data.op, Y, alpha, sample_weight)
        elif solver == "lsqr":
            coef, self.n_iter_ = _lsqr(data.op, Y, alpha, self.tol, self.max_iter)
        self.solver_ = solver
        if solver != "gd":  # least_squares_gd returns (n_targets, n_features)
            coef = coef.T
        self.coef_ = coef.reshape(-1) if coef.shape[0] == 1 else coef
        set_intercept(self, data.X_offset, data.y_offset)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        # As scikit-learn's: "svd" refuses sparse X, and so does "cholesky"
        # with an intercept. ("saga" with an intercept is refused at fit too,
        # but scikit-learn's tag says True; ours says the same.)
        tags.input_tags.sparse = self.solver != "svd" and (
            self.solver != "cholesky" or not self.fit_intercept)
        return tags
