"""The Lasso: least squares with an L1 penalty, by coordinate descent."""

import warnings
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_random_state

from ..utils import Interval, Options, check_sample_weight, validate_params
from ..utils._magnitude import magnitude_scale
from ._base import (
    REGRESSION_COEF,
    CentredSparse,
    LinearRegressorMixin,
    preprocess_data,
    set_intercept,
)
from ._lasso_kernels import lasso_cd, lasso_cd_gram, lasso_cd_sparse
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc
from ..utils.validation import validate_data

__all__ = ["Lasso"]


@fill_doc(
    regression_coef=REGRESSION_COEF,
    fitted_feature_attributes=FITTED_FEATURE_ATTRIBUTES,
)
class Lasso(LinearRegressorMixin, BaseEstimator):
    """Linear least squares with an L1 penalty (the Lasso), by coordinate descent.

    Minimises ``(1 / (2 n)) ‖y − Xw − b‖² + alpha ‖w‖₁`` (with sample weights,
    ``(1 / (2 Σs)) Σ s_i (y_i − x_iᵀw − b)² + alpha ‖w‖₁``), the penalised
    Lasso of notes B §2.4 (D1 §3.2, Tibshirani 1996). The notes give no
    solver; this is cyclic (or random) coordinate descent with
    soft-thresholding and residual updates (Friedman et al. 2010), stopped
    by the duality gap exactly as scikit-learn's ``Lasso``. The intercept is
    not penalised (centred data).

    Parameters
    ----------
    alpha : float, default=1.0
        L1 strength, ``>= 0``. ``alpha = 0`` is least squares, better fitted
        with :class:`LinearRegression` (a warning says so).
    fit_intercept : bool, default=True
        Whether to fit an (unpenalised) intercept.
    precompute : bool or "auto", default=False
        Run coordinate descent on the Gram matrix ``XᵀX`` (each update
        ``O(p)`` instead of ``O(n)``; best when ``n_samples >> n_features``).
        ``"auto"`` means ``n_samples > n_features``.
    copy_X : bool, default=True
        If False, ``X`` may be centred (and reweighted) in place; ``y`` never is.
    max_iter : int, default=1000
        Maximum number of epochs (passes over the coordinates).
    tol : float, default=1e-4
        When the largest coefficient change of an epoch is at most
        ``tol · max|w_j|``, the duality gap is checked; the fit stops when
        the gap is at most ``tol · ‖y − ȳ‖² / n``.
    warm_start : bool, default=False
        Start from the previous ``coef_`` (when its shape fits).
    positive : bool, default=False
        Constrain the coefficients to be non-negative.
    random_state : int, RandomState instance or None, default=None
        Seeds the coordinate sampler when ``selection="random"``.
    selection : {"cyclic", "random"}, default="cyclic"
        Visit coordinates in order, or draw one uniformly at random per step.

    Attributes
    ----------
    <regression_coef>
    dual_gap_ : float or ndarray of shape (n_targets,)
        Duality gap at the end (in the ``1/(2n)`` scaling of the objective).
    n_iter_ : int or list of int
        Epochs run, per target when there are several.
    <fitted_feature_attributes>

    See Also
    --------
    Ridge : L2 penalty, closed form, dense coefficients.
    LinearRegression : No penalty.
    sklearn.linear_model.Lasso : The scikit-learn counterpart.

    Notes
    -----
    One coordinate update: ``ρ_j = X_jᵀ(R + w_j X_j)``, ``w_j ← S(ρ_j, nα) /
    ‖X_j‖²`` with ``S(t, λ) = sign(t) max(|t| − λ, 0)``, then
    ``R ← R − Δw_j X_j``. An epoch costs ``O(n p)`` (``O(p²)`` with
    ``precompute``); the gap check costs one ``Xᵀ R``. A 2-d ``y`` is
    solved one target at a time (the ℓ1 norm of ``W`` is separable).

    Sparse X (CSC; CSR is converted) is centred implicitly, as in
    scikit-learn: the coordinate loop runs on the stored entries with the
    column means folded into a scalar term of the residual, so an epoch
    costs ``O(nnz + p)`` and X is never densified; ``precompute="auto"``
    then skips the dense Gram matrix. Dense and sparse fits give the same
    model to rounding.

    Constants (catalogue B §0.1): D1 writes ``(1/n)‖WX − Y‖²_F + λ‖W‖₁``,
    which is twice this objective with ``alpha = λ / 2``: use
    ``Lasso(alpha=λ/2)``. The smallest ``alpha`` giving ``w = 0`` is
    ``alpha_max = ‖X_cᵀ y_c‖_∞ / n`` (centred data), i.e. D1's
    ``λ_max = (2/n)‖Xᵀy‖_∞``.

    References
    ----------
    Tibshirani, R. (1996). Regression shrinkage and selection via the lasso.
    JRSS B 58(1), 267-288.
    Friedman, J., Hastie, T. and Tibshirani, R. (2010). Regularization paths
    for generalized linear models via coordinate descent. J. Stat. Softw. 33(1).

    Examples
    --------
    >>> from skml.linear_model import Lasso
    >>> reg = Lasso(alpha=0.1).fit([[0, 0], [1, 1], [2, 2]], [0, 1, 2])
    >>> reg.coef_.round(4).tolist(), round(float(reg.intercept_), 4)
    ([0.85, 0.0], 0.15)
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left")],
        "fit_intercept": ["boolean"],
        "precompute": ["boolean", Options({"auto"})],
        "copy_X": ["boolean"],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "warm_start": ["boolean"],
        "positive": ["boolean"],
        "random_state": ["random_state"],
        "selection": [Options({"cyclic", "random"})],
    }

    def __init__(
        self,
        alpha=1.0,
        *,
        fit_intercept=True,
        precompute=False,
        copy_X=True,
        max_iter=1000,
        tol=1e-4,
        warm_start=False,
        positive=False,
        random_state=None,
        selection="cyclic",
    ):
        self.alpha = alpha
        self.fit_intercept = fit_intercept
        self.precompute = precompute
        self.copy_X = copy_X
        self.max_iter = max_iter
        self.tol = tol
        self.warm_start = warm_start
        self.positive = positive
        self.random_state = random_state
        self.selection = selection

    def fit(self, X, y, sample_weight=None, check_input=True):
        """Fit the Lasso by coordinate descent.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights (rescaled internally to sum to
            ``n_samples``); an integer weight equals repeating the row.
        check_input : bool, default=True
            Accepted for scikit-learn's signature; the input is validated
            either way (the checks cost O(n p), little beside the fit, and
            skipping them would trade a clear error for a wrong answer).

        Returns
        -------
        self : Lasso
        """
        validate_params(self)
        if self.alpha == 0:
            warnings.warn(
                "With alpha=0, this algorithm does not converge well. You are "
                "advised to use the LinearRegression estimator (the Lasso is then "
                "least squares, which coordinate descent solves slowly).",
                UserWarning,
            )
        X_in = X
        X, y = validate_data(
            self,
            X,
            y,
            accept_sparse="csc",
            dtype=np.float64,
            order="F",
            multi_output=True,
            y_numeric=True,
        )
        n_samples, n_features = X.shape
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
            # The objective is invariant to rescaling the weights; summing to
            # n_samples makes alpha mean the same as without weights.
            sample_weight *= n_samples / sample_weight.sum()
        # Centre in place when validation already copied X (C order input).
        copy = self.copy_X and (
            not isinstance(X_in, np.ndarray) or np.may_share_memory(X, X_in)
        )
        # Data of extreme magnitude (X * 1e300): the same problem in the units
        # of X / s (s = 2^e, exact), where X = s X', w = w' / s and the
        # penalty alpha ||w||_1 = (alpha / s) ||w'||_1. Where alpha / s
        # overflows (tiny X) the penalty dominates and w = 0 is right as is.
        s = magnitude_scale(X)
        alpha = self.alpha
        if s != 1.0 and np.isfinite(alpha / s):
            X = (X / s).tocsc() if sp.issparse(X) else np.asfortranarray(X / s)
            alpha, copy = alpha / s, False
        else:
            s = 1.0
        y = np.array(y, dtype=np.float64, order="F")  # always our own copy
        precompute = self.precompute
        if sp.issparse(X):
            # Sparse X is centred implicitly (never densified); "auto" does
            # not form the dense Gram matrix, as in scikit-learn.
            data = CentredSparse(
                X, y, fit_intercept=self.fit_intercept, sample_weight=sample_weight
            )
            Y = np.asfortranarray(data.Y)
            X_offset, y_offset = data.X_offset, data.y_offset
            Xs = data.Xs.tocsc()
            precompute = False if precompute == "auto" else precompute
        else:
            X, Y, X_offset, y_offset = preprocess_data(
                X,
                y,
                fit_intercept=self.fit_intercept,
                sample_weight=sample_weight,
                copy=copy,
            )
            X = np.asfortranarray(X)
            Y = Y.reshape(n_samples, -1, order="F")
        n_targets = Y.shape[1]

        coef = np.zeros((n_targets, n_features))
        if self.warm_start and hasattr(self, "coef_"):
            previous = np.atleast_2d(self.coef_)
            if previous.shape == coef.shape:
                coef[:] = previous * s

        if precompute == "auto":
            precompute = n_samples > n_features
        if precompute and sp.issparse(X):
            Q = data.gram()
            XY = data.op.T @ Y
        elif precompute:
            Q = X.T @ X
            XY = X.T @ Y
        rng = check_random_state(self.random_state)
        random = self.selection == "random"
        l1_reg = alpha * n_samples
        gaps = np.empty(n_targets)
        n_iters = []
        for k in range(n_targets):
            w = coef[k].copy()
            seed = rng.randint(1, np.iinfo(np.int32).max)
            if precompute:
                y_k = Y[:, k]
                w, gap, tol_abs, n_iter = lasso_cd_gram(
                    w, Q, XY[:, k].copy(), float(y_k @ y_k), l1_reg,
                    self.max_iter, self.tol, self.positive, random, seed,
                )  # fmt: skip
            elif sp.issparse(X):
                w, gap, tol_abs, n_iter = lasso_cd_sparse(
                    w, (Xs.data, Xs.indices, Xs.indptr), X_offset, data.sqrt_sw,
                    np.ascontiguousarray(Y[:, k]), l1_reg,
                    self.max_iter, self.tol, self.positive, random, seed,
                )  # fmt: skip
            else:
                w, gap, tol_abs, n_iter = lasso_cd(
                    w, X.T, Y[:, k], l1_reg,
                    self.max_iter, self.tol, self.positive, random, seed,
                )  # fmt: skip
            if gap > tol_abs:
                warnings.warn(
                    "Objective did not converge. You might want to increase the "
                    "number of iterations. Coordinate descent ran max_iter="
                    f"{self.max_iter} epochs: duality gap {gap:.3e} > tolerance "
                    f"{tol_abs:.3e}. Increase max_iter, scale the features or "
                    "increase alpha.",
                    ConvergenceWarning,
                )
            coef[k] = w
            gaps[k] = gap / n_samples
            n_iters.append(n_iter)

        if not np.all(np.isfinite(coef)):
            raise ValueError(
                "Coordinate descent produced non-finite coefficients; the input "
                "may contain values too large for float64 arithmetic."
            )
        # One target in a column is reported as one target (scikit-learn's
        # shapes); intercept_ then keeps shape (1,).
        if n_targets == 1:
            self.coef_, self.dual_gap_, self.n_iter_ = coef[0], gaps[0], n_iters[0]
        else:
            self.coef_, self.dual_gap_, self.n_iter_ = coef, gaps, n_iters
        set_intercept(self, X_offset, y_offset)
        if s != 1.0:
            self.coef_ = self.coef_ / s  # back to the units of X
        return self

    @property
    def sparse_coef_(self):
        """``coef_`` as a scipy.sparse CSR matrix (the Lasso's zeros left out)."""
        from scipy import sparse

        return sparse.csr_matrix(np.atleast_2d(self.coef_))

    @staticmethod
    def path(X, y, *, eps=1e-3, n_alphas=100, alphas=None, max_iter=1000, tol=1e-4,
             **params):
        """The Lasso's coefficients along a decreasing grid of ``alpha``.

        As scikit-learn's ``Lasso.path``: no intercept is fitted (centre X and
        y first for one); each fit starts from the previous coefficients.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)
        eps : float, default=1e-3
            ``alpha_min / alpha_max`` of the default grid, where ``alpha_max``
            is the smallest alpha giving all-zero coefficients.
        n_alphas : int, default=100
        alphas : array-like, default=None
            The grid (sorted in decreasing order); the default is log-spaced.
        max_iter, tol : as in :class:`Lasso`.
        **params
            Other :class:`Lasso` parameters (``positive``, ``precompute``).

        Returns
        -------
        alphas : ndarray of shape (n_alphas,)
        coefs : ndarray of shape (n_features, n_alphas) or (n_targets, n_features, n_alphas)
        dual_gaps : ndarray of shape (n_alphas,) or (n_targets, n_alphas)
        """
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y, dtype=np.float64)
        if alphas is None:
            alpha_max = np.max(np.abs(X.T @ y.reshape(len(y), -1))) / X.shape[0]
            alpha_max = alpha_max if alpha_max > 0 else 1.0
            alphas = np.geomspace(alpha_max, alpha_max * eps, n_alphas)
        else:
            alphas = np.sort(np.asarray(alphas, dtype=np.float64))[::-1]
        model = Lasso(fit_intercept=False, warm_start=True, max_iter=max_iter, tol=tol,
                      **params)
        coefs, gaps = [], []
        for alpha in alphas:
            model.set_params(alpha=alpha)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", ConvergenceWarning)
                model.fit(X, y)
            coefs.append(np.array(model.coef_, copy=True))
            gaps.append(np.array(model.dual_gap_, copy=True))
        return alphas, np.stack(coefs, axis=-1), np.stack(gaps, axis=-1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.input_tags.sparse = True
        return tags
