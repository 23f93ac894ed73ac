"""Gaussian mixture fitted by expectation-maximisation (notes B §10.5).

The E-step computes the responsibilities ``r_ik ∝ π_k N(x_i | μ_k, Σ_k)``
by a log-sum-exp; the M-step re-estimates ``π_k = N_k / n``,
``μ_k = Σ_i r_ik x_i / N_k`` and ``Σ_k`` (full, tied, diagonal or
spherical) plus ``reg_covar`` on the diagonal. The densities and the steps
are in ``_gaussian``; this module holds the initialisations, the EM loop and
the estimator.
"""

import math
import warnings
from contextlib import nullcontext
from numbers import Integral, Real
from time import time

import numpy as np
from sklearn.base import BaseEstimator, DensityMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import check_array, check_is_fitted, check_random_state

from ..cluster import KMeans, kmeans_plusplus
from ..utils import Interval, Options, check_sample_weight, validate_params
from ..utils._blas import blas_threads_for
from ..utils._docstrings import SECTIONS, fill_class_docs
from ._gaussian import covariances_from_cholesky, estimate_gaussian_parameters
from ._gaussian import estimate_log_gaussian_prob, largest_blas_call, log_prob_and_resp
from ._gaussian import n_parameters, precision_cholesky, precisions_from_cholesky
from ._gaussian import precision_cholesky_from_precisions
from ..utils.validation import validate_data

__all__ = ["GaussianMixture"]

_COVARIANCE_TYPES = ("full", "tied", "diag", "spherical")
_INIT_PARAMS = ("kmeans", "k-means++", "random", "random_from_data")


def _check_shape(param, shape, name, init_name):
    # Named as scikit-learn names them ('weights', 'means', 'full precision'),
    # then the constructor parameter that holds them.
    if param.shape != shape:
        raise ValueError(
            f"The parameter '{name}' should have the shape of {shape}, "
            f"but got {param.shape} (the {init_name} given)."
        )


def _check_weights_init(weights, n_components, dtype):
    weights = check_array(
        weights, dtype=[np.float64, np.float32], ensure_2d=False,
        input_name="weights_init",
    )
    _check_shape(weights, (n_components,), "weights", "weights_init")
    if np.any(weights < 0.0) or np.any(weights > 1.0):
        raise ValueError(
            "The parameter 'weights_init' should be in the range [0, 1], but got "
            f"max value {weights.max():.5f}, min value {weights.min():.5f}."
        )
    atol = 1e-6 if weights.dtype == np.float32 else 1e-8
    if abs(1.0 - float(weights.sum())) > atol:
        raise ValueError(
            "The parameter 'weights_init' should be normalized, but got "
            f"sum(weights_init) = {float(weights.sum()):.5f}."
        )
    return weights.astype(dtype)


def _check_means_init(means, n_components, n_features, dtype):
    means = check_array(
        means, dtype=[np.float64, np.float32], ensure_2d=False, input_name="means_init"
    )
    _check_shape(means, (n_components, n_features), "means", "means_init")
    return means.astype(dtype)


def _check_precisions_init(precisions, covariance_type, n_components, n_features,
                           dtype):
    precisions = check_array(
        precisions, dtype=[np.float64, np.float32], ensure_2d=False,
        allow_nd=covariance_type == "full", input_name="precisions_init",
    )
    shape = {
        "full": (n_components, n_features, n_features),
        "tied": (n_features, n_features),
        "diag": (n_components, n_features),
        "spherical": (n_components,),
    }[covariance_type]
    _check_shape(precisions, shape, f"{covariance_type} precision", "precisions_init")
    if covariance_type in ("full", "tied"):
        stack = precisions.reshape(-1, n_features, n_features)
        symmetric = np.allclose(stack, stack.transpose(0, 2, 1))
        if not symmetric or np.any(np.linalg.eigvalsh(stack) <= 0.0):
            raise ValueError(
                f"'{covariance_type} precision' should be symmetric, "
                "positive-definite (the precisions_init given)."
            )
    elif np.any(precisions <= 0.0):
        raise ValueError(
            f"'{covariance_type} precision' should be positive (the "
            "precisions_init given)."
        )
    return precisions.astype(dtype)


def _weighted_mean(values, sample_weight):
    if sample_weight is None:
        return float(np.mean(values))
    return float(values @ sample_weight / sample_weight.sum())


@fill_class_docs(SECTIONS)
class GaussianMixture(DensityMixin, BaseEstimator):
    """Gaussian mixture model fitted by expectation-maximisation.

    The density ``p(x) = Σ_k π_k N(x | μ_k, Σ_k)`` with full, tied (one
    shared ``Σ``), diagonal or spherical (``σ_k² I``) covariances, fitted by
    EM (notes B §10.5, the catalogue's standard fill-in: the seed's GMM
    section is an empty heading; Gaussian densities notes B §10.2). Each EM
    step cannot decrease the log-likelihood; it stops when the mean
    log-likelihood per sample changes by less than ``tol``. Initial
    responsibilities come from k-means (:class:`skml.cluster.KMeans`),
    k-means++ seeds, random responsibilities or random samples; any of the
    weights, means and precisions can be given instead.

    Parameters
    ----------
    n_components : int, default=1
        Number of mixture components ``k``.
    covariance_type : {"full", "tied", "diag", "spherical"}, default="full"
        "full": each component has its own covariance matrix; "tied": all
        share one; "diag": each has a diagonal covariance; "spherical":
        each has one variance.
    tol : float, default=1e-3
        Convergence threshold on the change of the mean log-likelihood per
        sample (the lower bound) between EM iterations.
    reg_covar : float, default=1e-6
        Added to the diagonal of every covariance, which keeps them
        positive definite.
    max_iter : int, default=100
        Number of EM iterations per initialisation (0 keeps the
        initialisation).
    n_init : int, default=1
        Initialisations; the one reaching the largest lower bound is kept.
    init_params : {"kmeans", "k-means++", "random", "random_from_data"}, \
            default="kmeans"
        Initial responsibilities: the labels of a k-means run (one-hot),
        the k-means++ seeds (one sample per component), random
        responsibilities, or ``k`` random samples.
    weights_init : array-like of shape (n_components,), default=None
        Initial weights (replaces those computed from ``init_params``).
    means_init : array-like of shape (n_components, n_features), default=None
        Initial means.
    precisions_init : array-like, default=None
        Initial precisions (inverse covariances), shaped per covariance
        type: (n_components,) "spherical", (n_features, n_features) "tied",
        (n_components, n_features) "diag", (n_components, n_features,
        n_features) "full".
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation and :meth:`sample`.
    warm_start : bool, default=False
        If True, a fit after a fit continues EM from the fitted parameters
        (one initialisation, ``n_init`` ignored).
    verbose : int, default=0
        1 prints each initialisation and iteration; 2 also timings and the
        change of the lower bound.
    verbose_interval : int, default=10
        Iterations between two messages.

    Attributes
    ----------
    weights_ : ndarray of shape (n_components,)
        Mixture weights ``π_k``.
    means_ : ndarray of shape (n_components, n_features)
        Component means.
    covariances_ : ndarray
        Covariances, shaped per covariance type as ``precisions_init``.
    precisions_ : ndarray
        Inverse covariances, same shape.
    precisions_cholesky_ : ndarray
        Cholesky factors ``U`` of the precisions (``Σ⁻¹ = U Uᵀ``, ``U``
        upper triangular for "full" and "tied"; ``1/σ`` for "diag" and
        "spherical").
    converged_ : bool
        Whether the best initialisation reached ``tol``.
    n_iter_ : int
        EM iterations of the best initialisation.
    lower_bound_ : float
        Mean log-likelihood per sample at the last E-step of the best
        initialisation.
    lower_bounds_ : ndarray of shape (`n_iter_`,)
        The lower bound at each iteration of the best initialisation
        (non-decreasing, up to rounding and ``reg_covar``).
    <fitted_feature_attributes>

    See Also
    --------
    skml.cluster.KMeans : Hard assignments; the initialisation.
    sklearn.mixture.GaussianMixture : The scikit-learn counterpart.

    Notes
    -----
    Every covariance is kept through the Cholesky factor ``U`` of its
    precision, so ``log N(x | μ, Σ) = −½(d log 2π + ‖(x − μ)ᵀU‖²) + log|U|``
    needs no inverse and no determinant, and the responsibilities come from
    a log-sum-exp, stable when the densities underflow. One iteration costs
    O(n k d²) for "full" (O(n k d) for the others): the E-step is one
    matrix product ``X [U_1 … U_k]`` per block of rows for all components,
    the M-step one weighted ``d x d`` product per component. The data are
    shifted by their mean first (the model is translation invariant), which
    keeps the expanded squares of "diag", "spherical" and "tied" accurate.
    The blocks keep each product small, and BLAS then runs on one thread
    (``skml.utils._blas``): small many-threaded products mostly wait for
    each other on a busy machine.

    ``sample_weight`` (not in scikit-learn's GaussianMixture) weights every
    sum of the M-step and the lower bound: an integer weight acts as that
    many copies of the sample, given the same initialisation.

    The notes' M-step has no ``reg_covar``; with ``reg_covar > 0`` the
    M-step maximises a slightly penalised objective, so the log-likelihood
    is non-decreasing up to terms of order ``reg_covar``. Given the same
    initialisation (``weights_init``, ``means_init``, ``precisions_init``)
    the fit equals scikit-learn's to rounding.

    References
    ----------
    A. P. Dempster, N. M. Laird and D. B. Rubin, "Maximum likelihood from
    incomplete data via the EM algorithm", JRSS B 39(1), 1977.
    C. M. Bishop, "Pattern Recognition and Machine Learning", §9.2, 2006.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.mixture import GaussianMixture
    >>> X = np.array([[1, 2], [1, 4], [1, 0], [10, 2], [10, 4], [10, 0]])
    >>> gm = GaussianMixture(n_components=2, random_state=0).fit(X)
    >>> gm.means_[np.argsort(gm.means_[:, 0])]
    array([[ 1.,  2.],
           [10.,  2.]])
    >>> gm.predict([[0, 0], [12, 3]]) == gm.predict([[1, 2], [10, 2]])
    array([ True,  True])
    """

    _parameter_constraints = {
        "n_components": [Interval(Integral, 1, None, closed="left")],
        "covariance_type": [Options(set(_COVARIANCE_TYPES))],
        "tol": [Interval(Real, 0.0, None, closed="left")],
        "reg_covar": [Interval(Real, 0.0, None, closed="left")],
        "max_iter": [Interval(Integral, 0, None, closed="left")],
        "n_init": [Interval(Integral, 1, None, closed="left")],
        "init_params": [Options(set(_INIT_PARAMS))],
        "weights_init": ["array-like", None],
        "means_init": ["array-like", None],
        "precisions_init": ["array-like", None],
        "random_state": ["random_state"],
        "warm_start": ["boolean"],
        "verbose": ["verbose"],
        "verbose_interval": [Interval(Integral, 1, None, closed="left")],
    }

    def __init__(
        self,
        n_components=1,
        *,
        covariance_type="full",
        tol=1e-3,
        reg_covar=1e-6,
        max_iter=100,
        n_init=1,
        init_params="kmeans",
        weights_init=None,
        means_init=None,
        precisions_init=None,
        random_state=None,
        warm_start=False,
        verbose=0,
        verbose_interval=10,
    ):
        self.n_components = n_components
        self.covariance_type = covariance_type
        self.tol = tol
        self.reg_covar = reg_covar
        self.max_iter = max_iter
        self.n_init = n_init
        self.init_params = init_params
        self.weights_init = weights_init
        self.means_init = means_init
        self.precisions_init = precisions_init
        self.random_state = random_state
        self.warm_start = warm_start
        self.verbose = verbose
        self.verbose_interval = verbose_interval

    def fit(self, X, y=None, sample_weight=None):
        """Estimate the mixture's parameters by EM.

        <unsupervised_X>
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample in the M-step sums and the lower bound.

        <self_returns>
        """
        self._fit(X, sample_weight, final_e_step=False)
        return self

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit, then return the most probable component of each training sample.

        <unsupervised_X>
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample in the M-step sums and the lower bound.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Component labels, equal to ``fit(X).predict(X)``.
        """
        return self._fit(X, sample_weight, final_e_step=True)

    # -- fitting -----------------------------------------------------------

    def _fit(self, X, sample_weight, final_e_step):
        validate_params(self)
        do_init = not (self.warm_start and hasattr(self, "converged_"))
        # A warm start continues the fitted model: X must have its features.
        X = validate_data(self, X, reset=do_init, dtype=[np.float64, np.float32],
                          ensure_min_samples=2)
        n_samples, n_features = X.shape
        k = self.n_components
        if n_samples < k:
            raise ValueError(
                "Expected n_samples >= n_components but got "
                f"n_components = {k}, n_samples = {n_samples}."
            )
        sw = None
        if sample_weight is not None:
            sw = check_sample_weight(sample_weight, X, dtype=X.dtype)
            if np.count_nonzero(sw) < k:
                raise ValueError(
                    f"Only {np.count_nonzero(sw)} samples have a non-zero "
                    f"sample_weight; n_components = {k} needs at least as many."
                )
        inits = self._checked_inits(n_features, X.dtype)
        if not do_init and self.means_.shape[0] != k:
            raise ValueError(
                f"warm_start=True continues from the {self.means_.shape[0]} fitted "
                f"components, but n_components = {k}; refit with warm_start=False."
            )
        n_init = self.n_init if do_init else 1
        rng = check_random_state(self.random_state)

        offset = X.mean(axis=0)
        Xc = X - offset
        with np.errstate(over="ignore"):
            second_moment = np.float64(np.max(np.abs(Xc), initial=0.0)) ** 2 * n_samples
        if not np.isfinite(second_moment):
            # Covariances of X * 1e300 are of order 1e600: no float64 holds
            # them (the densities and precisions would be inf and NaN).
            raise ValueError(
                f"X's values are too large for Gaussian covariances in float64 "
                f"(max |x - mean| = {np.max(np.abs(Xc)):.3g}; its square "
                "overflows): rescale X, e.g. divide it by a constant or use "
                "StandardScaler."
            )
        total_weight = n_samples if sw is None else float(sw.sum())
        moments = self._moments(Xc, sw)

        work = largest_blas_call(n_samples, n_features, k, self.covariance_type)
        best, best_lower_bound, best_history = None, -np.inf, []
        converged_best = False
        with blas_threads_for(work):
            for init in range(n_init):
                self._print_init_begin(init)
                if do_init:
                    params = self._initial_parameters(
                        X, Xc, offset, sw, total_weight, moments, inits, rng
                    )
                    lower_bound = -np.inf
                else:
                    params = (self.weights_, self.means_ - offset, self.covariances_,
                              self.precisions_cholesky_)
                    lower_bound = self.lower_bound_
                if self.max_iter == 0:
                    best, n_iter_best = params, 0
                    continue
                params, lower_bound, history, n_iter, converged = self._em(
                    Xc, params, lower_bound, sw, moments
                )
                if lower_bound > best_lower_bound or best_lower_bound == -np.inf:
                    best, best_lower_bound, best_history = params, lower_bound, history
                    n_iter_best, converged_best = n_iter, converged
            labels = None
            if final_e_step:
                # Labels of the returned model, so that fit_predict(X) equals
                # fit(X).predict(X) whatever max_iter and tol.
                labels = np.argmax(self._e_step(Xc, best)[1], axis=1)

        if not converged_best and self.max_iter > 0:
            warnings.warn(
                "Best performing initialization did not converge. Try different "
                "init parameters, or increase max_iter, tol, or check for "
                "degenerate data.",
                ConvergenceWarning,
            )
        weights, means, covariances, prec_chol = best
        self.weights_ = weights
        self.means_ = means + offset
        self.covariances_ = covariances
        self.precisions_cholesky_ = prec_chol
        self.precisions_ = precisions_from_cholesky(prec_chol, self.covariance_type)
        self.converged_ = converged_best
        self.n_iter_ = n_iter_best
        self.lower_bound_ = best_lower_bound
        self.lower_bounds_ = np.asarray(best_history, dtype=np.float64)
        return labels

    def _em(self, Xc, params, lower_bound, sw, moments):
        """EM iterations from ``params`` until the lower bound moves by < tol."""
        history = []
        converged = False
        for n_iter in range(1, self.max_iter + 1):
            previous = lower_bound
            log_prob_norm, resp = self._e_step(Xc, params)
            lower_bound = _weighted_mean(log_prob_norm, sw)
            if sw is not None:
                resp *= sw[:, np.newaxis]
            params = self._m_step(Xc, resp, moments)
            history.append(lower_bound)
            change = lower_bound - previous
            self._print_iter_end(n_iter, change)
            if abs(change) < self.tol:
                converged = True
                break
        self._print_init_end(lower_bound, converged)
        return params, lower_bound, history, n_iter, converged

    def _checked_inits(self, n_features, dtype):
        k = self.n_components
        weights = means = precisions = None
        if self.weights_init is not None:
            weights = _check_weights_init(self.weights_init, k, dtype)
        if self.means_init is not None:
            means = _check_means_init(self.means_init, k, n_features, dtype)
        if self.precisions_init is not None:
            precisions = _check_precisions_init(
                self.precisions_init, self.covariance_type, k, n_features, dtype
            )
        return weights, means, precisions

    def _moments(self, Xc, sw):
        """The M-step's data terms that do not change between iterations."""
        if self.covariance_type == "tied":
            return (Xc if sw is None else Xc * sw[:, np.newaxis]).T @ Xc
        if self.covariance_type in ("diag", "spherical"):
            return Xc * Xc
        return None

    def _initial_resp(self, X, sw, rng):
        n_samples, k = X.shape[0], self.n_components
        resp = np.zeros((n_samples, k), dtype=X.dtype)
        if self.init_params == "kmeans":
            labels = KMeans(n_clusters=k, n_init=1, random_state=rng).fit(
                X, sample_weight=sw
            ).labels_
            resp[np.arange(n_samples), labels] = 1
        elif self.init_params == "k-means++":
            _, indices = kmeans_plusplus(X, k, sample_weight=sw, random_state=rng)
            resp[indices, np.arange(k)] = 1
        elif self.init_params == "random":
            resp = rng.uniform(size=(n_samples, k)).astype(X.dtype, copy=False)
            resp /= resp.sum(axis=1)[:, np.newaxis]
        else:  # "random_from_data"
            p = None if sw is None else sw / sw.sum()
            indices = rng.choice(n_samples, size=k, replace=False, p=p)
            resp[indices, np.arange(k)] = 1
        return resp

    def _initial_parameters(self, X, Xc, offset, sw, total_weight, moments, inits,
                            rng):
        weights_init, means_init, precisions_init = inits
        weights = means = covariances = None
        if weights_init is None or means_init is None or precisions_init is None:
            resp = self._initial_resp(X, sw, rng)
            if sw is not None:
                resp *= sw[:, np.newaxis]
            # "tied": the initial responsibilities need not sum to w_i per
            # sample (one-hot seeds), so its moments are recomputed.
            weights, means, covariances = estimate_gaussian_parameters(
                Xc, resp, self.reg_covar, self.covariance_type,
                None if self.covariance_type == "tied" else moments,
            )
            weights /= total_weight
        if weights_init is not None:
            weights = weights_init.copy()
        if means_init is not None:
            means = means_init - offset
        if precisions_init is None:
            prec_chol = precision_cholesky(covariances, self.covariance_type)
        else:
            prec_chol = precision_cholesky_from_precisions(
                precisions_init, self.covariance_type
            )
            covariances = covariances_from_cholesky(prec_chol, self.covariance_type)
        return weights, means, covariances, prec_chol

    def _e_step(self, Xc, params, with_resp=True):
        weights, means, _, prec_chol = params
        weighted_log_prob = estimate_log_gaussian_prob(
            Xc, means, prec_chol, self.covariance_type
        )
        with np.errstate(divide="ignore"):
            weighted_log_prob += np.log(weights)
        return log_prob_and_resp(weighted_log_prob, with_resp)

    def _m_step(self, Xc, resp, moments):
        nk, means, covariances = estimate_gaussian_parameters(
            Xc, resp, self.reg_covar, self.covariance_type, moments
        )
        weights = nk / nk.sum()
        prec_chol = precision_cholesky(covariances, self.covariance_type)
        return weights, means, covariances, prec_chol

    # -- verbose output (scikit-learn's messages) --------------------------

    def _print_init_begin(self, init):
        if self.verbose:
            print(f"Initialization {init}")
            self._init_prev_time = self._iter_prev_time = time()

    def _print_iter_end(self, n_iter, change):
        if self.verbose and n_iter % self.verbose_interval == 0:
            if self.verbose == 1:
                print(f"  Iteration {n_iter}")
            else:
                now = time()
                print(
                    f"  Iteration {n_iter}\t time lapse "
                    f"{now - self._iter_prev_time:.5f}s\t ll change {change:.5f}"
                )
                self._iter_prev_time = now

    def _print_init_end(self, lower_bound, converged):
        if not self.verbose:
            return
        status = "converged" if converged else "did not converge"
        if self.verbose == 1:
            print(f"Initialization {status}.")
        else:
            elapsed = time() - self._init_prev_time
            print(
                f"Initialization {status}. time lapse {elapsed:.5f}s\t lower bound "
                f"{lower_bound:.5f}."
            )

    # -- inference ---------------------------------------------------------

    def _log_prob_resp(self, X, with_resp=True):
        """``log p(x)`` and the responsibilities, for fitted parameters."""
        check_is_fitted(self)
        X = validate_data(self, X, reset=False, dtype=[np.float64, np.float32])
        # Any shift is exact; the model's mean keeps the expanded squares
        # accurate (it is the training mean, up to rounding).
        offset = self.weights_ @ self.means_
        params = (self.weights_, self.means_ - offset, self.covariances_,
                  self.precisions_cholesky_)
        work = largest_blas_call(*X.shape, self.n_components, self.covariance_type)
        # Below ~10⁵ multiply-adds BLAS stays on one thread by itself, and
        # the limit would cost more (~50 µs) than the whole product.
        limit = blas_threads_for(work) if work > 100_000 else nullcontext()
        with limit:
            return self._e_step(X - offset, params, with_resp)

    def score_samples(self, X):
        """Log-density ``log p(x) = log Σ_k π_k N(x | μ_k, Σ_k)`` of each sample.

        <X_samples>

        Returns
        -------
        log_prob : ndarray of shape (n_samples,)
            Log-likelihood of each sample under the model.
        """
        return self._log_prob_resp(X, with_resp=False)[0]

    def score(self, X, y=None, sample_weight=None):
        """Mean log-likelihood per sample.

        <X_samples>
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Weights of the mean.

        Returns
        -------
        log_likelihood : float
            ``Σ w_i log p(x_i) / Σ w_i``.
        """
        log_prob = self.score_samples(X)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, log_prob)
        return _weighted_mean(log_prob, sample_weight)

    def predict(self, X):
        """Most probable component of each sample.

        <X_samples>

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Component labels.
        """
        return np.argmax(self._log_prob_resp(X)[1], axis=1)

    def predict_proba(self, X):
        """Posterior probability of each component (the responsibilities).

        <X_samples>

        Returns
        -------
        resp : ndarray of shape (n_samples, n_components)
            ``r_ik = π_k N(x_i | μ_k, Σ_k) / p(x_i)``; rows sum to 1.
        """
        return self._log_prob_resp(X)[1]

    def sample(self, n_samples=1):
        """Draw samples from the fitted mixture.

        The component counts are multinomial with the weights; a component's
        samples are ``μ + L z`` with ``Σ = L Lᵀ`` (Cholesky) and ``z``
        standard normal.

        Parameters
        ----------
        n_samples : int, default=1
            Number of samples.

        Returns
        -------
        X : ndarray of shape (n_samples, n_features)
            The samples, grouped by component.
        y : ndarray of shape (n_samples,)
            Their components.
        """
        check_is_fitted(self)
        if not isinstance(n_samples, Integral) or isinstance(n_samples, bool) \
                or n_samples < 1:
            raise ValueError(
                f"Invalid value for 'n_samples': {n_samples!r}. The sampling "
                "requires at least one sample."
            )
        rng = check_random_state(self.random_state)
        n_features = self.means_.shape[1]
        counts = rng.multinomial(n_samples, self.weights_.astype(np.float64))
        covariances = np.asarray(self.covariances_, dtype=np.float64)
        if self.covariance_type in ("full", "tied"):
            chol = np.linalg.cholesky(covariances)
        parts = []
        for j, (mean, count) in enumerate(zip(self.means_, counts)):
            z = rng.standard_normal(size=(count, n_features))
            if self.covariance_type == "full":
                parts.append(mean + z @ chol[j].T)
            elif self.covariance_type == "tied":
                parts.append(mean + z @ chol.T)
            else:
                parts.append(mean + z * np.sqrt(covariances[j]))
        X = np.vstack(parts).astype(np.float64, copy=False)
        y = np.repeat(np.arange(self.n_components, dtype=np.int64), counts)
        return X, y

    def _n_parameters(self):
        return n_parameters(self.covariance_type, self.n_components,
                            self.means_.shape[1])

    def bic(self, X):
        """Bayesian information criterion on X (lower is better).

        <X_samples>

        Returns
        -------
        bic : float
            ``−2 log L + p log n``, with ``p`` the free parameters.
        """
        n = len(X)
        return -2 * self.score(X) * n + self._n_parameters() * math.log(n)

    def aic(self, X):
        """Akaike information criterion on X (lower is better).

        <X_samples>

        Returns
        -------
        aic : float
            ``−2 log L + 2 p``, with ``p`` the free parameters.
        """
        n = len(X)
        return -2 * self.score(X) * n + 2 * self._n_parameters()
