"""Quadratic discriminant analysis: a Gaussian with its own covariance per class.

Notes B §4.1.

Each class is ``N(μ_k, Σ_k)`` with the maximum-likelihood mean and (biased)
covariance; the log posterior keeps the quadratic term ``−½ xᵀΣ_k⁻¹x``, so
boundaries are quadrics. Σ_k is kept as the SVD of the centred class data,
``Σ_k = V_k diag(s_k) V_kᵀ``, which gives the Mahalanobis distances and
``log |Σ_k|`` without an inverse or a determinant.
"""

from numbers import Real

import numpy as np
from scipy import linalg
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..utils import HasMethods, Interval, Options, encode_labels, validate_params
from ..utils._docstrings import SECTIONS, fill_class_docs
from ._base import check_priors, log_softmax
from ._lda import check_covariance_options, covariance, power_of_two_scale
from ..utils.validation import validate_data

__all__ = ["QuadraticDiscriminantAnalysis"]


@fill_class_docs(SECTIONS)
class QuadraticDiscriminantAnalysis(ClassifierMixin, BaseEstimator):
    """Gaussian classifier with one covariance per class: quadratic boundaries (QDA).

    The generative classifier of notes B §4.1 (D4 "Probabilistic Generative
    Model"): priors ``π_k`` (class frequencies), class densities
    ``N(μ_k, Σ_k)`` with ``μ_k = (1/N_k) Σ x`` and
    ``Σ_k = (1/N_k) Σ (x − μ_k)(x − μ_k)ᵀ``, and Bayes' rule. The score
    of class ``k`` is the log joint up to a constant,

    ``δ_k(x) = −½ (x − μ_k)ᵀΣ_k⁻¹(x − μ_k) − ½ log |Σ_k| + log π_k``,

    and for two classes ``decision_function`` is the notes' ``z`` (the log
    odds of ``classes_[1]``), ``P(C2 | x) = σ(z)``.

    Parameters
    ----------
    solver : {"svd", "eigen"}, default="svd"
        - "svd": thin SVD of each class's centred rows; Σ_k is never formed.
        - "eigen": eigendecomposition of Σ_k as estimated with ``shrinkage``
          or ``covariance_estimator`` (its axes are all ``n_features``).
    shrinkage : "auto", float in [0, 1] or None, default=None
        "eigen" only: shrink each Σ_k towards a multiple of the identity
        ("auto": Ledoit-Wolf's amount, on standardised features), which makes
        it invertible when a class has fewer samples than features.
    priors : array-like of shape (n_classes,), default=None
        Class priors; by default the class frequencies.
    reg_param : float in [0, 1], default=0.0
        Regularisation: the eigenvalues ``s`` of each Σ_k become
        ``(1 − reg_param) s + reg_param``, i.e. Σ_k → (1 − r)Σ_k + r I.
        Applied by both solvers (scikit-learn 1.9's "eigen" solver ignores
        it, which its documentation does not say).
    store_covariance : bool, default=False
        Store each class covariance in ``covariance_``.
    tol : float, default=1e-4
        An eigenvalue (after regularisation) at most ``tol`` makes a class
        covariance rank deficient, which is an error.
    covariance_estimator : estimator, default=None
        "eigen" only: estimates each Σ_k instead of the (shrunk) empirical
        covariance, any object with ``fit`` and ``covariance_`` (e.g.
        ``sklearn.covariance.OAS()``; cloned, fitted on each class's rows).

    Attributes
    ----------
    covariance_ : list of n_classes ndarrays of shape (n_features, n_features)
        Each class covariance (regularised). Only with ``store_covariance``.
    means_ : ndarray of shape (n_classes, n_features)
        Class means.
    priors_ : ndarray of shape (n_classes,)
        Class priors (summing to 1).
    rotations_ : list of n_classes ndarrays of shape (n_features, n_k)
        Principal axes ``V_k`` of each class, ``n_k = min(n_features, N_k)``.
    scalings_ : list of n_classes ndarrays of shape (n_k,)
        Variances along those axes (regularised eigenvalues of Σ_k).
    classes_ : ndarray of shape (n_classes,)
        Class labels, sorted.
    <fitted_feature_attributes>

    See Also
    --------
    LinearDiscriminantAnalysis : One shared covariance (linear boundary).
    skml.naive_bayes.GaussianNB : Diagonal class covariances.
    sklearn.discriminant_analysis.QuadraticDiscriminantAnalysis : The
        scikit-learn counterpart.

    Notes
    -----
    Fit: one thin SVD per class, O(N_k d min(N_k, d)). Predict: per class a
    product with ``V_k diag(s_k)^(-1/2)``, O(n d² k).

    A class needs more samples than features (else Σ_k is singular and a
    ``LinAlgError``, a ``ValueError``, asks for ``reg_param``). When the
    classes share one covariance the model has the same optimum as LDA's
    and, for large samples, the same posteriors.

    References
    ----------
    Hastie, T., Tibshirani, R. and Friedman, J. (2009). The Elements of
    Statistical Learning, 2nd ed., §4.3 (eq. 4.12). Springer.

    Examples
    --------
    >>> from skml.discriminant_analysis import QuadraticDiscriminantAnalysis
    >>> X = [[-1, -1], [-2, -1], [-3, -2], [1, 1], [2, 1], [3, 2]]
    >>> qda = QuadraticDiscriminantAnalysis().fit(X, [1, 1, 1, 2, 2, 2])
    >>> qda.predict([[-0.8, -1]]).tolist()
    [1]
    >>> [R.shape for R in qda.rotations_]  # three samples: two axes per class
    [(2, 2), (2, 2)]
    """

    _parameter_constraints = {
        "solver": [Options({"svd", "eigen"})],
        "shrinkage": [Options({"auto"}), Interval(Real, 0, 1, closed="both"), None],
        "priors": ["array-like", None],
        "reg_param": [Interval(Real, 0, 1, closed="both")],
        "store_covariance": ["boolean"],
        "tol": [Interval(Real, 0, None, closed="left")],
        "covariance_estimator": [HasMethods("fit"), None],
    }

    def __init__(self, *, solver="svd", shrinkage=None, priors=None, reg_param=0.0,
                 store_covariance=False, tol=1e-4, covariance_estimator=None):
        self.solver = solver
        self.shrinkage = shrinkage
        self.priors = priors
        self.reg_param = reg_param
        self.store_covariance = store_covariance
        self.tol = tol
        self.covariance_estimator = covariance_estimator

    def fit(self, X, y):
        """Estimate each class's prior, mean and covariance.

        <supervised_fit>
        """
        validate_params(self)
        check_covariance_options(self.solver, self.shrinkage,
                                 self.covariance_estimator, ("eigen",))
        X, y = validate_data(self, X, y, dtype=np.float64)
        self.classes_, y_enc = encode_labels(y)
        n_features = X.shape[1]
        self.priors_ = check_priors(self.priors, y_enc, len(self.classes_))
        r = self.reg_param
        # Work in units of u (a power of two near max |X|, so exact) that keep
        # the variances of X * 1e300 or X * 1e-300 inside float64; with
        # reg_param > 0 and tiny X the variances vanish beside reg_param
        # anyway, and real units are kept (r / u² would overflow).
        u = power_of_two_scale(X)
        with np.errstate(over="ignore"):
            if r > 0 and not np.isfinite(r / np.float64(u) ** 2):
                u = 1.0
            u2 = np.float64(u) ** 2
        Xu = X / u
        means, scalings, rotations, covariances = [], [], [], []
        for k, label in enumerate(self.classes_):
            Xk = Xu[y_enc == k]
            if len(Xk) == 1:
                raise ValueError(
                    f"y has only 1 sample in class {label}, covariance is ill "
                    "defined."
                )
            mean = Xk.mean(axis=0)
            variances, Vt = self._axes(Xk, mean, u)
            with np.errstate(under="ignore"):
                scaling = (1.0 - r) * variances  # in units of u²
                if r > 0:
                    scaling += r / u2
            with np.errstate(divide="ignore"):
                threshold = self.tol / u2  # tol is in X's units
            if np.sum(scaling > threshold) < n_features:
                with np.errstate(over="ignore", under="ignore"):
                    low, high = np.min(scaling) * u2, np.max(scaling) * u2
                svd_note = (
                    " When using `solver='svd'` a class needs more samples than "
                    "features (its thin SVD has at most as many axes as samples), "
                    "whatever reg_param."
                    if self.solver == "svd" and len(Xk) <= n_features else ""
                )
                raise np.linalg.LinAlgError(
                    f"The covariance matrix of class {label} is not full rank."
                    f"{svd_note} Its "
                    f"eigenvalues (after reg_param) range from {low:.3g} to "
                    f"{high:.3g} and those at most tol={self.tol:g} count as zero "
                    f"({len(Xk)} samples, {n_features} features, collinear "
                    "features, or X's scale too small). Increase reg_param to "
                    "regularise it (or use solver='eigen' with shrinkage), or "
                    "rescale X."
                )
            means.append(mean)
            scalings.append(scaling)
            rotations.append(Vt.T)
            if self.store_covariance:
                with np.errstate(over="ignore", under="ignore"):
                    covariances.append((Vt.T * scaling) @ Vt * u2)
        with np.errstate(over="ignore", under="ignore"):
            # Public attributes in X's units (inf or 0 beyond float64).
            self.means_ = np.asarray(means) * u
            self.scalings_ = [s * u2 for s in scalings]
        self.rotations_ = rotations
        self._unit, self._scalings_unit, self._means_unit = u, scalings, np.asarray(means)
        if self.store_covariance:
            self.covariance_ = covariances
        return self

    def _axes(self, Xk, mean, unit):
        """Variances along the principal axes of class ``Xk`` and the axes (rows).

        "svd": from the singular values of the centred rows. "eigen": the
        eigenpairs of the estimated covariance (shrunk or the user's), in
        decreasing order.
        """
        if self.solver == "svd":
            _, S, Vt = np.linalg.svd(Xk - mean, full_matrices=False)
            return S**2 / len(Xk), Vt
        cov = covariance(Xk, self.shrinkage, self.covariance_estimator, unit)
        evals, evecs = linalg.eigh(cov)
        order = np.argsort(evals)[::-1]
        return np.maximum(evals[order], 0.0), evecs[:, order].T

    def _scores(self, X):
        """Log joints up to a constant: ``−½(mahalanobis² + log|Σ_k|) + log π_k``."""
        check_is_fitted(self)
        X = validate_data(self, X, dtype=np.float64, reset=False)
        # In the fit's units u: |Σ_k| = |Σ_k/u²| u^(2d), a constant shared by
        # the classes, added back so the scores equal those in X's units.
        u = getattr(self, "_unit", 1.0)
        means = getattr(self, "_means_unit", self.means_)
        log_unit = 2.0 * X.shape[1] * np.log(u)
        X = X / u
        scores = np.empty((X.shape[0], len(self.classes_)))
        scalings = getattr(self, "_scalings_unit", self.scalings_)
        for k, (R, S) in enumerate(zip(self.rotations_, scalings)):
            Z = (X - means[k]) @ (R / np.sqrt(S))
            scores[:, k] = -0.5 * (
                np.einsum("ij,ij->i", Z, Z) + np.sum(np.log(S)) + log_unit
            )
        with np.errstate(divide="ignore"):  # a zero prior: the class is impossible
            scores += np.log(self.priors_)
        return scores

    def decision_function(self, X):
        """Scores: log joints per class, or the log odds of ``classes_[1]``.

        <X_samples>

        Returns
        -------
        scores : ndarray of shape (n_samples,) or (n_samples, n_classes)
            For two classes the notes' ``z = log P(C2|x) − log P(C1|x)``.
        """
        scores = self._scores(X)
        if scores.shape[1] == 2:
            return scores[:, 1] - scores[:, 0]
        return scores

    def predict(self, X):
        """Class of largest posterior.

        <X_samples>

        <labels_returns>
        """
        scores = self._scores(X)  # checks fitted before classes_
        return self.classes_[np.argmax(scores, axis=1)]

    def predict_log_proba(self, X):
        """Log posteriors ``log P(C_k | x)``.

        <X_samples>

        <log_proba_returns>
        """
        return log_softmax(self._scores(X))

    def predict_proba(self, X):
        """Posteriors ``P(C_k | x)`` (Bayes' rule); each row sums to 1.

        <X_samples>

        <proba_returns>
        """
        scores = self._scores(X)
        if scores.shape[1] == 2:
            z = scores[:, 1] - scores[:, 0]
            return np.column_stack([expit(-z), expit(z)])
        return np.exp(log_softmax(scores))
