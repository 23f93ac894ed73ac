"""Linear discriminant analysis: Gaussian classes sharing one covariance (notes B §4.2).

With a covariance Σ common to all classes the quadratic terms of the log
posteriors cancel and the boundary between two classes is the hyperplane
``w·x + b = 0``, ``w = Σ⁻¹(μ1 − μ2)``. Three solvers: least squares on Σ
("lsqr"), the generalised eigenproblem of between- and within-class scatter
("eigen", which also gives the discriminant directions) and an SVD of the
within-class-centred data that never forms Σ ("svd").
"""

import copy
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from scipy import linalg
from scipy.special import expit, log_expit
from sklearn.base import (
    BaseEstimator,
    clone,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted

from ..linear_model._base import LinearClassifierMixin
from ..utils import HasMethods, Interval, Options, encode_labels, validate_params
from ..utils._docstrings import SECTIONS, fill_class_docs
from ._base import check_priors, log_softmax
from ..utils.validation import validate_data

__all__ = ["LinearDiscriminantAnalysis"]


def class_means(X, y, n_classes):
    """Mean of each class's rows (one sparse indicator product)."""
    n_samples = X.shape[0]
    indicator = sp.csr_array(
        (np.ones(n_samples), (y, np.arange(n_samples))), shape=(n_classes, n_samples)
    )
    return (indicator @ X) / np.bincount(y, minlength=n_classes)[:, np.newaxis]


def empirical_covariance(X):
    """Maximum-likelihood (biased, 1/N) covariance, the notes' Σ* (§4.1)."""
    Xc = X - X.mean(axis=0)
    return Xc.T @ Xc / X.shape[0]


def ledoit_wolf_shrinkage(X):
    """Ledoit-Wolf (2004) optimal shrinkage of the covariance towards ``μ I``.

    With ``S`` the empirical covariance of the centred ``X`` and
    ``μ = tr(S)/p``, the shrinkage is ``min(β, δ)/δ`` where
    ``δ = ‖S − μI‖²_F / p`` and ``β = Σ_n ‖x_n x_nᵀ − S‖²_F / (n² p)``,
    estimated without forming the ``x_n x_nᵀ``.
    """
    n_samples, n_features = X.shape
    if n_features == 1:
        return 0.0
    X = X - X.mean(axis=0)
    X2 = X * X
    trace_per_feature = X2.sum(axis=0) / n_samples
    mu = trace_per_feature.sum() / n_features
    # Σ_ij Σ_n x_ni² x_nj² = Σ_n (Σ_i x_ni²)²: O(n p), not O(n p²).
    beta_ = np.sum(X2.sum(axis=1) ** 2)
    delta_ = np.sum((X.T @ X) ** 2) / n_samples**2
    beta = (beta_ / n_samples - delta_) / (n_features * n_samples)
    delta = (delta_ - 2.0 * mu * trace_per_feature.sum() + n_features * mu**2)
    delta /= n_features
    beta = min(beta, delta)
    return 0.0 if beta == 0 else beta / delta


def shrunk_covariance(S, shrinkage):
    """``(1 − s) S + s μ I`` with ``μ = tr(S)/p``."""
    n_features = S.shape[0]
    shrunk = (1.0 - shrinkage) * S
    shrunk.flat[:: n_features + 1] += shrinkage * np.trace(S) / n_features
    return shrunk


def covariance(X, shrinkage=None, covariance_estimator=None, unit=1.0):
    """Covariance of ``X``: empirical, Ledoit-Wolf ("auto"), fixed shrinkage or
    a user's estimator.

    "auto" shrinks the correlation matrix (features standardised first, as
    scikit-learn does) and scales back, so the shrinkage target respects
    the features' units. ``covariance_estimator`` (any object with ``fit``
    and a ``covariance_`` attribute, e.g. ``sklearn.covariance.OAS()``) is
    cloned and fitted on ``X * unit``, the data in the user's units (the
    callers work on ``X / unit``; an estimator with a penalty is not scale
    equivariant), and its covariance is brought back to ``X``'s units.
    """
    if covariance_estimator is not None:
        # A copy is fitted, never the user's object: clone() for estimators,
        # a deep copy for any other object with fit and covariance_.
        if hasattr(covariance_estimator, "get_params"):
            estimator = clone(covariance_estimator)
        else:
            estimator = copy.deepcopy(covariance_estimator)
        estimator.fit(X * unit)
        if not hasattr(estimator, "covariance_"):
            raise ValueError(
                f"covariance_estimator={type(covariance_estimator).__name__} has no "
                "covariance_ attribute after fit; pass an estimator like those in "
                "sklearn.covariance."
            )
        S = np.asarray(estimator.covariance_, dtype=np.float64)
        if S.shape != (X.shape[1], X.shape[1]):
            raise ValueError(
                f"covariance_estimator returned a covariance_ of shape {S.shape}; "
                f"expected ({X.shape[1]}, {X.shape[1]})."
            )
        return S / np.float64(unit) ** 2
    if shrinkage is None:
        return empirical_covariance(X)
    if shrinkage == "auto":
        n_samples, eps = X.shape[0], np.finfo(np.float64).eps
        mean, var = X.mean(axis=0), X.var(axis=0)
        scale = np.sqrt(var)
        # scikit-learn's StandardScaler rule: a variance within rounding of
        # zero means a constant feature, left unscaled.
        scale[var <= n_samples * eps * var + (n_samples * mean * eps) ** 2] = 1.0
        Z = (X - mean) / scale
        S = shrunk_covariance(empirical_covariance(Z), ledoit_wolf_shrinkage(Z))
        return scale[:, np.newaxis] * S * scale[np.newaxis, :]
    return shrunk_covariance(empirical_covariance(X), shrinkage)


def check_covariance_options(solver, shrinkage, covariance_estimator, solvers):
    """The errors scikit-learn gives for shrinkage/estimator/solver mixes.

    Shrinkage with a solver that never forms the covariance matrix is a
    NotImplementedError (scikit-learn's type), an estimator there a ValueError.
    """
    if solver not in solvers:
        if shrinkage is not None:
            raise NotImplementedError(
                f"shrinkage is not supported with solver={solver!r}; use "
                + " or ".join(f"solver={s!r}" for s in solvers) + "."
            )
        if covariance_estimator is not None:
            raise ValueError(
                f"covariance_estimator is not supported with solver={solver!r}: a "
                f"covariance estimator is not supported with {solver}, which never "
                "forms the covariance matrix; use "
                + " or ".join(f"solver={s!r}" for s in solvers) + "."
            )
    if covariance_estimator is not None and shrinkage is not None and shrinkage != 0:
        raise ValueError(
            "covariance_estimator and shrinkage parameters are not None. Only one "
            "of the two can be set: the estimator replaces the (shrunk) empirical "
            "covariance."
        )


def power_of_two_scale(X):
    """``2**e`` near ``max |X|``: dividing by it is exact and brings ``X`` to O(1).

    The fit works on ``X / scale`` so that ``X * 1e300`` does not overflow
    in the covariances and ``X * 1e-300`` does not underflow to zero; the
    learnt attributes are scaled back exactly (a power of two), so ordinary
    data give bit-for-bit the same model.
    """
    peak = float(np.max(np.abs(X), initial=0.0))
    if peak == 0.0 or not np.isfinite(peak):
        return 1.0
    return float(np.ldexp(1.0, np.frexp(peak)[1]))


def within_class_covariance(X, y, priors, shrinkage=None, covariance_estimator=None,
                            unit=1.0):
    """The notes' shared Σ = Σ_k π_k Σ_k (D4: (79/140)Σ1 + (61/140)Σ2)."""
    n_features = X.shape[1]
    S = np.zeros((n_features, n_features))
    for k, prior in enumerate(priors):
        S += prior * covariance(X[y == k], shrinkage, covariance_estimator, unit)
    return S


@fill_class_docs(SECTIONS)
class LinearDiscriminantAnalysis(
    ClassNamePrefixFeaturesOutMixin,
    LinearClassifierMixin,
    TransformerMixin,
    BaseEstimator,
):
    """Gaussian classifier with a shared covariance: linear boundaries (LDA).

    The shared-covariance generative classifier of notes B §4.2 (D4
    "Modifying Model", "Posterior Probability"): class ``k`` is
    ``N(μ_k, Σ)`` with the same ``Σ = Σ_k π_k Σ_k`` (the maximum-likelihood
    pooled covariance), and Bayes' rule gives linear scores

    ``δ_k(x) = μ_kᵀΣ⁻¹x − ½ μ_kᵀΣ⁻¹μ_k + log π_k``.

    For two classes ``P(C2 | x) = σ(w·x + b)`` with ``w = Σ⁻¹(μ2 − μ1)`` and
    ``b = −½ μ2ᵀΣ⁻¹μ2 + ½ μ1ᵀΣ⁻¹μ1 + log(π2/π1)``, the notes' formula with
    the classes in scikit-learn's order (``classes_[1]`` is positive). As a
    transformer it projects on the at most ``n_classes − 1`` directions that
    maximise the between-class over the within-class variance (Fisher).

    Parameters
    ----------
    solver : {"svd", "lsqr", "eigen"}, default="svd"
        - "svd": SVD of the within-class-centred, scaled data; Σ is never
          formed (good with many features); no shrinkage.
        - "lsqr": solve ``Σ W = Mᵀ`` by least squares; no ``transform``.
        - "eigen": generalised eigenproblem ``S_b v = λ S_w v``.
    shrinkage : "auto", float in [0, 1] or None, default=None
        Shrink each class covariance towards a multiple of the identity:
        "auto" is Ledoit-Wolf's optimal amount. "lsqr" and "eigen" only.
    priors : array-like of shape (n_classes,), default=None
        Class priors; by default the class frequencies (D4: 79/140, 61/140).
    n_components : int, default=None
        Dimension of ``transform``'s output, at most
        ``min(n_classes − 1, n_features)`` (the default).
    store_covariance : bool, default=False
        Also compute ``covariance_`` with the "svd" solver (always stored by
        the others).
    tol : float, default=1e-4
        "svd": singular values below it (in the scaled coordinates) count as
        zero when estimating the rank.
    covariance_estimator : estimator, default=None
        Estimates each class covariance instead of the (shrunk) empirical one:
        any object with ``fit`` and a ``covariance_`` attribute, e.g.
        ``sklearn.covariance.OAS()`` (cloned, fitted on each class's rows).
        "lsqr" and "eigen" only; leave ``shrinkage`` None with it.

    Attributes
    ----------
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
        Weights of the linear scores (one row for two classes: ``w``).
    intercept_ : ndarray of shape (1,) or (n_classes,)
        Intercepts (``b`` for two classes).
    covariance_ : ndarray of shape (n_features, n_features)
        The shared (possibly shrunk) covariance ``Σ_k π_k Σ_k``. With the
        "svd" solver only if ``store_covariance=True``.
    explained_variance_ratio_ : ndarray of shape (n_components,)
        Share of the between-class variance along each direction ("svd",
        "eigen").
    means_ : ndarray of shape (n_classes, n_features)
        Class means.
    priors_ : ndarray of shape (n_classes,)
        Class priors (summing to 1).
    scalings_ : ndarray of shape (rank, n_classes - 1) or (n_features, n_features)
        Discriminant directions ("svd": in the space spanned by the class
        centroids; "eigen": all generalised eigenvectors).
    xbar_ : ndarray of shape (n_features,)
        Prior-weighted overall mean ("svd" only).
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    <fitted_feature_attributes>

    See Also
    --------
    QuadraticDiscriminantAnalysis : One covariance per class (quadratic boundary).
    skml.naive_bayes.GaussianNB : Diagonal covariances per class.
    sklearn.discriminant_analysis.LinearDiscriminantAnalysis : The scikit-learn
        counterpart.

    Notes
    -----
    Fit: O(n d²) for "lsqr"/"eigen" plus O(d³) for the solve; "svd" costs
    O(n d min(n, d)). Predict: one product, O(n d k).

    Why linear: in ``log P(x | C_k)`` the only quadratic term is
    ``−½ xᵀΣ⁻¹x`` (and ``log |Σ|``), the same for every class when Σ is
    shared, so it cancels from every difference of log posteriors.

    The notes' Σ is the maximum-likelihood one, weighted by the class
    counts; ``covariance_`` weights by ``priors_``, which is the same unless
    ``priors`` is given.

    References
    ----------
    Hastie, T., Tibshirani, R. and Friedman, J. (2009). The Elements of
    Statistical Learning, 2nd ed., §4.3. Springer.

    Ledoit, O. and Wolf, M. (2004). A well-conditioned estimator for
    large-dimensional covariance matrices. J. Multivariate Anal. 88, 365-411.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.discriminant_analysis import LinearDiscriminantAnalysis
    >>> X = np.array([[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]])
    >>> clf = LinearDiscriminantAnalysis().fit(X, [1, 1, 1, 2, 2, 2])
    >>> clf.predict([[-0.8, -1]]).tolist()
    [1]
    >>> clf.transform([[-0.8, -1]]).shape
    (1, 1)
    """

    _parameter_constraints = {
        "solver": [Options({"svd", "lsqr", "eigen"})],
        "shrinkage": [Options({"auto"}), Interval(Real, 0, 1, closed="both"), None],
        "priors": ["array-like", None],
        "n_components": [Interval(Integral, 1, None, closed="left"), None],
        "store_covariance": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "covariance_estimator": [HasMethods("fit"), None],
    }

    def __init__(
        self,
        solver="svd",
        shrinkage=None,
        priors=None,
        n_components=None,
        store_covariance=False,
        tol=1e-4,
        covariance_estimator=None,
    ):
        self.solver = solver
        self.shrinkage = shrinkage
        self.priors = priors
        self.n_components = n_components
        self.store_covariance = store_covariance
        self.tol = tol
        self.covariance_estimator = covariance_estimator

    def fit(self, X, y):
        """Estimate the class means, the shared covariance and the scores.

        <supervised_fit>
        """
        validate_params(self)
        X, y = validate_data(self, X, y, ensure_min_samples=2,
                             dtype=[np.float64, np.float32])
        # Solved in float64; float32 X gives float32 coef_ and intercept_.
        out_dtype = X.dtype
        X = X.astype(np.float64, copy=False)
        self.classes_, y_enc = encode_labels(y)
        n_samples, n_features = X.shape
        n_classes = len(self.classes_)
        if n_samples == n_classes:
            raise ValueError(
                "The number of samples must be more than the number of classes."
            )
        check_covariance_options(self.solver, self.shrinkage,
                                 self.covariance_estimator, ("lsqr", "eigen"))
        self.priors_ = check_priors(self.priors, y_enc, n_classes)
        max_components = min(n_classes - 1, n_features)
        if self.n_components is not None and self.n_components > max_components:
            raise ValueError(
                "n_components cannot be larger than min(n_features, n_classes - 1) "
                f"= {max_components}; got n_components={self.n_components}."
            )
        self._max_components = (
            max_components if self.n_components is None else self.n_components
        )

        # Solve on X / scale (exact: a power of two), then scale back.
        scale = power_of_two_scale(X)
        X = X / scale
        self.means_ = class_means(X, y_enc, n_classes)
        if self.solver == "svd":
            self._solve_svd(X, y_enc)
        else:
            self.covariance_ = within_class_covariance(
                X, y_enc, self.priors_, self.shrinkage, self.covariance_estimator, scale
            )
            if self.solver == "lsqr":
                self.coef_ = linalg.lstsq(self.covariance_, self.means_.T)[0].T
            else:
                self._solve_eigen(X, scale)
            with np.errstate(divide="ignore"):  # a zero prior: -inf intercept
                log_priors = np.log(self.priors_)
            quad = np.sum(self.means_ * self.coef_, axis=1)
            self.intercept_ = -0.5 * quad + log_priors
        self._unscale(scale)

        if n_classes == 2:  # one score: the log odds of classes_[1]
            self.coef_ = (self.coef_[1] - self.coef_[0])[np.newaxis, :]
            self.intercept_ = np.array([self.intercept_[1] - self.intercept_[0]])
        self.coef_ = self.coef_.astype(out_dtype, copy=False)
        self.intercept_ = self.intercept_.astype(out_dtype, copy=False)
        self._n_features_out = self._max_components
        return self

    def _unscale(self, scale):
        """Attributes learnt on ``X / scale`` in ``X``'s units (exact, or inf/0)."""
        if scale == 1.0:
            return
        with np.errstate(over="ignore", under="ignore"):
            self.means_ = self.means_ * scale
            self.coef_ = self.coef_ / scale
            if self.solver != "lsqr":
                self.scalings_ = self.scalings_ / scale
            if self.solver == "svd":
                self.xbar_ = self.xbar_ * scale
            if self.solver != "svd" or self.store_covariance:
                # Beyond float64 for X * 1e300: inf, the honest value.
                self.covariance_ = self.covariance_ * np.float64(scale) ** 2

    def _solve_eigen(self, X, unit):
        # Fisher: maximise vᵀS_b v / vᵀS_w v, S_b = S_t − S_w between-class scatter.
        Sw = self.covariance_
        Sb = covariance(X, self.shrinkage, self.covariance_estimator, unit) - Sw
        try:
            evals, evecs = linalg.eigh(Sb, Sw)
        except linalg.LinAlgError:
            raise ValueError(
                "The within-class covariance is singular (identical rows, "
                "collinear features, or fewer samples than features), so the "
                "'eigen' solver cannot whiten it: use shrinkage (e.g. "
                "shrinkage='auto') or solver='svd'."
            ) from None
        order = np.argsort(evals)[::-1]
        self.explained_variance_ratio_ = (evals[order] / np.sum(evals))[
            : self._max_components
        ]
        self.scalings_ = evecs[:, order]
        # Σ⁻¹ = V Vᵀ for the Sw-orthonormal eigenvectors V.
        self.coef_ = (self.means_ @ self.scalings_) @ self.scalings_.T

    def _solve_svd(self, X, y):
        n_samples = X.shape[0]
        n_classes = len(self.classes_)
        if self.store_covariance:
            self.covariance_ = within_class_covariance(X, y, self.priors_)
        self.xbar_ = self.priors_ @ self.means_
        Xc = X - self.means_[y]
        # 1) Whiten the pooled within-class scatter: scale the features, then
        #    an SVD; scalings maps x to coordinates where S_w = I.
        std = Xc.std(axis=0)
        # A within-class spread at rounding level (identical rows leave
        # residues of eps |x| from the means) is no spread: dividing by it
        # would blow the residues up into directions.
        flat = std <= self._rounding_level(X, n_samples)
        Xc[:, flat] = 0.0
        std[flat] = 1.0
        _, S, Vt = linalg.svd(Xc / (std * np.sqrt(n_samples)), full_matrices=False)
        rank = int(np.sum(S > self.tol))
        if rank == 0:
            self._no_within_class_variance(n_samples)
            return
        scalings = (Vt[:rank] / std).T / S[:rank]
        # 2) The centroids, weighted by their priors, span at most k − 1
        #    directions in those coordinates; an SVD finds them in order.
        fac = 1.0 / (n_classes - 1)
        centroids = (
            np.sqrt(n_samples * self.priors_ * fac)[:, np.newaxis]
            * (self.means_ - self.xbar_)
        ) @ scalings
        _, S, Vt = linalg.svd(centroids, full_matrices=False)
        total = np.sum(S**2)
        ratio = S**2 / total if total > 0 else np.zeros_like(S)
        self.explained_variance_ratio_ = ratio[: self._max_components]
        # Equal class means (S all zero): no direction, the priors decide.
        rank = int(np.sum(S > self.tol * S[0])) if total > 0 else 0
        self.scalings_ = scalings @ Vt.T[:, :rank]
        coef = (self.means_ - self.xbar_) @ self.scalings_
        with np.errstate(divide="ignore"):
            self.intercept_ = -0.5 * np.sum(coef**2, axis=1) + np.log(self.priors_)
        self.coef_ = coef @ self.scalings_.T
        self.intercept_ -= self.xbar_ @ self.coef_.T

    @staticmethod
    def _rounding_level(A, n_terms):
        """Per column, the rounding error of sums of ``n_terms`` of ``A``'s values."""
        return n_terms * np.finfo(np.float64).eps * np.max(np.abs(A), axis=0)

    def _no_within_class_variance(self, n_samples):
        """The "svd" solver's answer when every class's rows are identical."""
        n_classes, n_features = self.means_.shape
        level = self._rounding_level(self.means_, n_samples)
        if np.any(np.abs(self.means_ - self.means_[0]) > level):
            raise ValueError(
                "The rows of each class are identical (zero within-class "
                "variance) while the classes differ: the shared covariance of "
                "LDA is zero and its boundary undefined. Add samples with "
                "variation, or use solver='lsqr' with shrinkage."
            )
        # All rows are one point: no direction discriminates, the posteriors
        # are the priors (what the formulas give as the variance goes to 0).
        self._max_components = 0
        self.scalings_ = np.zeros((n_features, 0))
        self.explained_variance_ratio_ = np.zeros(0)
        self.coef_ = np.zeros((n_classes, n_features))
        with np.errstate(divide="ignore"):
            self.intercept_ = np.log(self.priors_)

    def transform(self, X):
        """Project on the discriminant directions ("svd" and "eigen" solvers).

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data to project.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_components)
            Coordinates along the directions, best separating first ("svd":
            at most the rank of the centroid scatter).
        """
        check_is_fitted(self)
        if self.solver == "lsqr":
            raise NotImplementedError(
                "transform not implemented for 'lsqr' solver (it finds no "
                "directions); use solver='svd' or solver='eigen'."
            )
        X = validate_data(self, X, dtype=np.float64, reset=False)
        if self.solver == "svd":
            X_new = (X - self.xbar_) @ self.scalings_
        else:
            X_new = X @ self.scalings_
        return X_new[:, : self._max_components]

    def predict_proba(self, X):
        """Posteriors ``P(C_k | x)``: sigmoid (two classes) or softmax of the scores.

        <X_samples>

        <proba_returns>
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([expit(-scores), expit(scores)])
        return np.exp(log_softmax(scores))

    def predict_log_proba(self, X):
        """Log posteriors ``log P(C_k | x)``.

        <X_samples>

        <log_proba_returns>
        """
        scores = self.decision_function(X)
        if scores.ndim == 1:
            return np.column_stack([log_expit(-scores), log_expit(scores)])
        return log_softmax(scores)
