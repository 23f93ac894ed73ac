"""Gaussian-process regression with a marginal-likelihood fit of the kernel."""

from numbers import Integral, Real

import numpy as np
from scipy.linalg import LinAlgError, cho_solve, cholesky, solve_triangular
from scipy.optimize import minimize
from sklearn.base import BaseEstimator, RegressorMixin, clone
from sklearn.utils import check_random_state
from sklearn.utils.validation import check_array, check_is_fitted

from ..utils import Interval, Options, validate_params
from .kernels import RBF, ConstantKernel, Kernel
from ..utils.validation import validate_data

__all__ = ["GaussianProcessRegressor"]

_LOG_2PI = np.log(2.0 * np.pi)
# Below this range, every squared scaled distance underflows for length
# scales down to 1e-50 (far below any kernel's default bounds).
_TINY_SPREAD = 1e-100


class GaussianProcessRegressor(RegressorMixin, BaseEstimator):
    """Gaussian-process regression (Rasmussen & Williams, Algorithm 2.1).

    The prior is ``f ~ GP(0, k)``; observations add independent noise of
    variance ``alpha``. Fitting computes the Cholesky factor ``L`` of
    ``K + alpha I`` and ``alpha_ = K⁻¹ y``; the kernel's free hyper-parameters
    maximise the log marginal likelihood

        log p(y | X, θ) = -½ yᵀ K⁻¹ y - Σ log L_ii - n/2 log 2π,

    whose gradient ``½ tr((α αᵀ - K⁻¹) ∂K/∂θ)`` is exact, with L-BFGS-B over
    ``θ = log(hyper-parameters)`` inside the kernel's bounds, from the kernel's
    own start and ``n_restarts_optimizer`` log-uniform random starts. It is the
    surrogate of :class:`~skml.model_selection.BayesSearchCV`.

    Parameters
    ----------
    kernel : Kernel, default=None
        The covariance (see :mod:`skml.gaussian_process.kernels`). ``None``
        means ``ConstantKernel(1.0, "fixed") * RBF(1.0, "fixed")``, as in
        scikit-learn (nothing to optimise).
    alpha : float or array-like of shape (n_samples,), default=1e-10
        Noise variance added to the diagonal (also keeps ``K`` positive
        definite).
    optimizer : {"fmin_l_bfgs_b"} or None, default="fmin_l_bfgs_b"
        ``None`` keeps the kernel's hyper-parameters as given.
    n_restarts_optimizer : int, default=0
        Further starts drawn log-uniformly within the bounds.
    normalize_y : bool, default=False
        Standardise the target (per output) before fitting; predictions are
        mapped back.
    copy_X_train : bool, default=True
        Store a copy of the training inputs (else a reference).
    n_targets : int, default=None
        Number of outputs of :meth:`predict` and :meth:`sample_y` before
        ``fit`` (from the prior; None means 1). ``fit`` checks that ``y``
        has that many columns.
    random_state : int, RandomState instance or None, default=None
        Seeds the restarts and :meth:`sample_y`'s default.

    Attributes
    ----------
    X_train_ : ndarray of shape (n_samples, n_features)
    y_train_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        The (normalised, if asked) training targets.
    kernel_ : Kernel
        The kernel with the fitted hyper-parameters.
    L_ : ndarray of shape (n_samples, n_samples)
        Lower Cholesky factor of ``kernel_(X_train_) + alpha I``.
    alpha_ : ndarray of shape (n_samples,) or (n_samples, n_targets)
        ``(K + alpha I)⁻¹ y_train_``.
    log_marginal_likelihood_value_ : float
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when X has string column names.

    See Also
    --------
    skml.model_selection.BayesSearchCV : uses this model as its surrogate.

    Notes
    -----
    The notes name Bayesian optimisation (A §11.1) and leave the model to the
    slides; this is the textbook GP of Rasmussen & Williams (2006), ch. 2 and
    5. Only Matérn ν ∈ {0.5, 1.5, 2.5, ∞} is offered (the closed forms).
    Before ``fit``, ``predict`` and ``sample_y`` use the prior (mean 0,
    covariance ``kernel``, or ``1.0 * RBF(1.0)`` when it is None), with
    ``n_targets`` outputs, as scikit-learn's class does.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.gaussian_process import GaussianProcessRegressor
    >>> from skml.gaussian_process.kernels import RBF, ConstantKernel
    >>> X = np.linspace(0, 5, 20)[:, None]
    >>> y = np.sin(X).ravel()
    >>> gp = GaussianProcessRegressor(ConstantKernel() * RBF(), random_state=0).fit(X, y)
    >>> mean, std = gp.predict([[2.5]], return_std=True)
    >>> bool(abs(mean[0] - np.sin(2.5)) < 1e-3 and std[0] < 1e-2)
    True
    """

    _parameter_constraints = {
        "kernel": [Kernel, None],
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "optimizer": [Options({"fmin_l_bfgs_b"}), None],
        "n_restarts_optimizer": [Interval(Integral, 0, None, closed="left")],
        "normalize_y": ["boolean"],
        "copy_X_train": ["boolean"],
        "n_targets": [Interval(Integral, 1, None, closed="left"), None],
        "random_state": ["random_state"],
    }

    def __init__(self, kernel=None, *, alpha=1e-10, optimizer="fmin_l_bfgs_b",
                 n_restarts_optimizer=0, normalize_y=False, copy_X_train=True,
                 n_targets=None, random_state=None):
        self.kernel = kernel
        self.alpha = alpha
        self.optimizer = optimizer
        self.n_restarts_optimizer = n_restarts_optimizer
        self.normalize_y = normalize_y
        self.copy_X_train = copy_X_train
        self.n_targets = n_targets
        self.random_state = random_state

    def fit(self, X, y):
        """Fit the kernel's hyper-parameters, then condition on ``(X, y)``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        y : array-like of shape (n_samples,) or (n_samples, n_targets)

        Returns
        -------
        self : GaussianProcessRegressor
        """
        validate_params(self)
        X, y = validate_data(self, X, y, multi_output=True, y_numeric=True,
                             dtype=np.float64, copy=self.copy_X_train)
        n_targets_seen = y.shape[1] if y.ndim > 1 else 1
        if self.n_targets is not None and n_targets_seen != self.n_targets:
            raise ValueError(
                f"y has {n_targets_seen} target(s) but n_targets={self.n_targets}; "
                "set n_targets to y's number of columns (or None).")
        alpha = np.asarray(self.alpha, dtype=float)
        if alpha.ndim and alpha.shape != (X.shape[0],):
            raise ValueError(f"alpha must be a scalar or have one entry per sample "
                             f"({X.shape[0]}); got shape {alpha.shape}.")
        if np.any(alpha < 0) or not np.all(np.isfinite(alpha)):
            raise ValueError("alpha must be finite and non-negative.")
        self._noise = alpha
        spread = np.ptp(X, axis=0).max(initial=0.0)
        if 0.0 < spread < _TINY_SPREAD:
            raise ValueError(
                f"The features of X vary by at most {spread:.1e}: no kernel length scale "
                "within any sensible bounds tells such rows apart (the covariance is all "
                "ones to machine precision). Standardise X (e.g. StandardScaler) first.")
        if self.normalize_y:
            self._y_mean = np.mean(y, axis=0)
            std = np.std(y, axis=0)
            self._y_std = np.where(std > 0, std, 1.0)
            y = (y - self._y_mean) / self._y_std
        else:
            self._y_mean = np.zeros(y.shape[1:])
            self._y_std = np.ones(y.shape[1:])
        self.X_train_, self.y_train_ = X, y
        self.kernel_ = self._prior_kernel()

        if self.optimizer is not None and self.kernel_.n_dims > 0:
            self.kernel_.theta = self._optimise()
        self.log_marginal_likelihood_value_ = self._condition()
        return self

    # -- the likelihood -------------------------------------------------------------
    def _factor(self, K):
        K[np.diag_indices_from(K)] += self._noise
        try:
            return cholesky(K, lower=True, check_finite=False)
        except LinAlgError as exc:
            raise ValueError(
                f"The kernel {self.kernel_!r} is not positive definite on the training "
                "data (the Cholesky factorisation of K + alpha*I failed). Increase alpha "
                "(the noise variance), add a WhiteKernel, or remove duplicate rows."
            ) from exc

    def _lml(self, kernel, eval_gradient):
        """Log marginal likelihood (summed over targets) and its theta gradient."""
        if eval_gradient:
            K, dK = kernel(self.X_train_, eval_gradient=True)
        else:
            K = kernel(self.X_train_)
        try:
            L = self._factor(K)
        except ValueError:
            return (-np.inf, np.zeros(kernel.n_dims)) if eval_gradient else -np.inf
        y = self.y_train_.reshape(self.y_train_.shape[0], -1)
        alpha = cho_solve((L, True), y, check_finite=False)
        lml = (-0.5 * np.einsum("ik,ik->", y, alpha)
               - y.shape[1] * (np.log(np.diag(L)).sum() + 0.5 * y.shape[0] * _LOG_2PI))
        if not eval_gradient:
            return lml
        # ½ tr((α αᵀ - K⁻¹) ∂K/∂θ), summed over the targets.
        inner = alpha @ alpha.T - y.shape[1] * cho_solve(
            (L, True), np.eye(K.shape[0]), check_finite=False)
        return lml, 0.5 * np.einsum("ij,jik->k", inner, dK)

    def _optimise(self):
        kernel = self.kernel_
        bounds = kernel.bounds

        def objective(theta):
            lml, grad = self._lml(kernel.clone_with_theta(theta), eval_gradient=True)
            if not np.isfinite(lml):
                return np.inf, np.zeros_like(theta)
            return -lml, -grad

        starts = [kernel.theta]
        if self.n_restarts_optimizer:
            if not np.all(np.isfinite(bounds)):
                raise ValueError("n_restarts_optimizer needs finite kernel bounds.")
            rng = check_random_state(self.random_state)
            starts += list(rng.uniform(bounds[:, 0], bounds[:, 1],
                                       size=(self.n_restarts_optimizer, len(bounds))))
        best_theta, best_value = kernel.theta, np.inf
        for start in starts:
            result = minimize(objective, start, jac=True, method="L-BFGS-B",
                              bounds=bounds)
            if result.fun < best_value:
                best_theta, best_value = result.x, result.fun
        if not np.isfinite(best_value):
            raise ValueError(
                "No kernel hyper-parameters within the bounds give a positive definite "
                "covariance on the training data; increase alpha or add a WhiteKernel.")
        return best_theta

    def _condition(self):
        K = self.kernel_(self.X_train_)
        self.L_ = self._factor(K)
        self.alpha_ = cho_solve((self.L_, True), self.y_train_, check_finite=False)
        return float(self._lml(self.kernel_, eval_gradient=False))

    def log_marginal_likelihood(self, theta=None, eval_gradient=False, clone_kernel=True):
        """The log marginal likelihood at ``theta`` (default: the fitted one).

        Parameters
        ----------
        theta : array-like of shape (n_dims,), default=None
            Log hyper-parameters; ``None`` returns the fitted value.
        eval_gradient : bool, default=False
            Also return the gradient with respect to ``theta``.
        clone_kernel : bool, default=True
            Evaluate on a copy of ``kernel_`` (else set ``kernel_.theta``).

        Returns
        -------
        log_likelihood : float
        gradient : ndarray of shape (n_dims,), only if ``eval_gradient``
        """
        check_is_fitted(self)
        if theta is None:
            if eval_gradient:
                raise ValueError("eval_gradient needs theta.")
            return self.log_marginal_likelihood_value_
        if clone_kernel:
            kernel = self.kernel_.clone_with_theta(theta)
        else:
            kernel = self.kernel_
            kernel.theta = theta
        return self._lml(kernel, eval_gradient)

    # -- prediction -------------------------------------------------------------------
    def predict(self, X, return_std=False, return_cov=False):
        """Posterior mean, and optionally its standard deviation or covariance.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
        return_std : bool, default=False
        return_cov : bool, default=False
            At most one of the two.

        Returns
        -------
        y_mean : ndarray of shape (n_samples,) or (n_samples, n_targets)
        y_std : ndarray, only if ``return_std``
            Same shape as ``y_mean``.
        y_cov : ndarray of shape (n_samples, n_samples) or (n_samples, n_samples, n_targets),
            only if ``return_cov``
        """
        if return_std and return_cov:
            raise ValueError("At most one of return_std and return_cov can be True.")
        if not hasattr(self, "X_train_"):
            return self._predict_prior(X, return_std, return_cov)
        X = validate_data(self, X, reset=False, dtype=np.float64)
        K_trans = self.kernel_(X, self.X_train_)
        mean = K_trans @ self.alpha_ * self._y_std + self._y_mean
        if not (return_std or return_cov):
            return mean
        V = solve_triangular(self.L_, K_trans.T, lower=True, check_finite=False)
        if return_cov:
            cov = self.kernel_(X) - V.T @ V
            return mean, (cov if self._y_std.ndim == 0
                          else cov[:, :, None] * self._y_std ** 2)
        var = self.kernel_.diag(X) - np.einsum("ij,ij->j", V, V)
        std = np.sqrt(np.maximum(var, 0.0))  # rounding can make tiny variances < 0
        return mean, (std * self._y_std if self._y_std.ndim == 0
                      else std[:, None] * self._y_std)

    def _prior_kernel(self):
        if self.kernel is None:
            return ConstantKernel(1.0, "fixed") * RBF(1.0, "fixed")
        return clone(self.kernel)

    def _predict_prior(self, X, return_std, return_cov):
        """``predict`` before ``fit``: the prior ``GP(0, kernel)``, ``n_targets`` outputs."""
        validate_params(self)
        X = check_array(X, dtype=np.float64, input_name="X")
        kernel, n = self._prior_kernel(), X.shape[0]
        n_targets = 1 if self.n_targets is None else self.n_targets
        shape = (n,) if n_targets == 1 else (n, n_targets)
        mean = np.zeros(shape)
        if return_cov:
            cov = kernel(X)
            return mean, (cov if n_targets == 1
                          else np.repeat(cov[:, :, None], n_targets, axis=2))
        if return_std:
            std = np.sqrt(np.maximum(kernel.diag(X), 0.0))
            return mean, (std if n_targets == 1
                          else np.repeat(std[:, None], n_targets, axis=1))
        return mean

    def sample_y(self, X, n_samples=1, random_state=0):
        """Draw functions from the posterior at ``X``.

        Parameters
        ----------
        X : array-like of shape (n_points, n_features)
        n_samples : int, default=1
        random_state : int, RandomState instance or None, default=0

        Returns
        -------
        y_samples : ndarray of shape (n_points, n_samples) or (n_points, n_targets, n_samples)
        """
        rng = check_random_state(random_state)
        mean, cov = self.predict(X, return_cov=True)

        def draw(m, c):
            # A symmetric square root by eigh: the posterior covariance is
            # often singular (at training points), where Cholesky fails.
            w, V = np.linalg.eigh(c)
            root = V * np.sqrt(np.maximum(w, 0.0))
            return m[:, None] + root @ rng.standard_normal((m.shape[0], n_samples))

        if mean.ndim == 1:
            return draw(mean, cov)
        return np.stack([draw(mean[:, t], cov[:, :, t]) for t in range(mean.shape[1])],
                        axis=1)

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.multi_output = True
        tags.requires_fit = False  # predicts from the prior before fit
        return tags
