"""Gaussian naive Bayes: the notes' Gaussian classifier with a diagonal covariance.

Notes B §4.3 (D4 "Naive Bayes Classifier"): every feature is an independent
1-D Gaussian within a class, so ``P(x | C_k) = Π_j N(x_j; θ_kj, σ²_kj)`` and
Bayes' rule (§4.1) gives the posterior. Fitting is the per-class weighted
mean and (biased, 1/N) variance; ``partial_fit`` merges batches with the
pairwise update of Chan, Golub and LeVeque.
"""

from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from ..utils import Interval, check_sample_weight, encode_labels, validate_params
from ..utils._magnitude import magnitude_scale
from ..utils._docstrings import SECTIONS, fill_class_docs
from ._base import FIT_REST, PARTIAL_FIT_REST, NaiveBayesMixin, encode_known_labels
from ._base import CLASS_ATTRIBUTES
from ._base import first_partial_fit, partial_fit_classes
from ..utils.validation import validate_data

__all__ = ["GaussianNB"]

_LOG_2PI = np.log(2.0 * np.pi)


def class_moments(X, y, n_classes, sample_weight=None):
    """Per-class weighted count, mean and biased variance of each feature.

    Two passes (mean, then the mean squared deviation) for accuracy; the
    class sums are one sparse ``(n_classes, n_samples)`` indicator product,
    O(n d) whatever the number of classes, instead of a loop over classes.

    Returns
    -------
    count : ndarray of shape (n_classes,)
    mean, var : ndarray of shape (n_classes, n_features)
        Zero for a class without (weighted) samples.
    """
    n_samples = X.shape[0]
    w = np.ones(n_samples) if sample_weight is None else sample_weight
    indicator = sp.csr_array(
        (w, (y, np.arange(n_samples))), shape=(n_classes, n_samples)
    )
    count = np.bincount(y, weights=w, minlength=n_classes)
    denom = np.where(count > 0, count, 1.0)[:, np.newaxis]
    mean = (indicator @ X) / denom
    dev = X - mean[y]
    dev *= dev
    var = (indicator @ dev) / denom
    return count, mean, var


def _scaled(X, scale):
    return X if scale == 1.0 else X / scale


def merge_moments(n_a, mean_a, var_a, n_b, mean_b, var_b):
    """Count, mean and variance of the union of two sets (Chan et al., 1979).

    The sums of squared deviations add, plus a term for the distance
    between the two means: ``M = M_a + M_b + n_a n_b / n (μ_a − μ_b)²``.
    This never subtracts large sums of squares, so it stays accurate
    where the textbook ``E[x²] − E[x]²`` would cancel.
    """
    n = n_a + n_b
    denom = np.where(n > 0, n, 1.0)[:, np.newaxis]
    fa, fb = n_a[:, np.newaxis] / denom, n_b[:, np.newaxis] / denom
    mean = fa * mean_a + fb * mean_b
    var = fa * var_a + fb * var_b + fa * fb * (mean_a - mean_b) ** 2
    return n, mean, var


@fill_class_docs(SECTIONS, fit_rest=FIT_REST,
                 partial_fit_rest=PARTIAL_FIT_REST, class_attributes=CLASS_ATTRIBUTES)
class GaussianNB(NaiveBayesMixin, BaseEstimator):
    """Gaussian naive Bayes (Gaussian class conditionals, diagonal covariance).

    The generative classifier of notes B §4.1 with the naive independence
    assumption of §4.3: within class ``k`` each feature ``j`` is
    ``N(θ_kj, σ²_kj)``, so

    ``log P(C_k | x) = log π_k − ½ Σ_j [log(2π σ²_kj) + (x_j − θ_kj)²/σ²_kj]
    − log Z(x)``

    with ``π_k`` the prior and ``Z`` the evidence. ``θ`` and ``σ²`` are the
    maximum-likelihood (weighted, biased 1/N) per-class means and variances.
    As in scikit-learn, ``epsilon = var_smoothing * max_j Var(x_j)`` is added
    to every variance so that a feature constant within a class does not
    give a zero variance.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Prior probabilities of the classes (non-negative, summing to 1). By
        default the (weighted) class frequencies.
    var_smoothing : float, default=1e-9
        Fraction of the largest feature variance added to all variances.

    Attributes
    ----------
    <class_attributes>
    class_prior_ : ndarray of shape (n_classes,)
        Prior probability of each class.
    epsilon_ : float
        Absolute amount added to the variances.
    theta_ : ndarray of shape (n_classes, n_features)
        Mean of each feature per class.
    var_ : ndarray of shape (n_classes, n_features)
        Variance of each feature per class, ``epsilon_`` included.
    <fitted_feature_attributes>

    See Also
    --------
    BernoulliNB : Naive Bayes for binary features.
    skml.discriminant_analysis.QuadraticDiscriminantAnalysis : Gaussian classes
        with full covariances.
    sklearn.naive_bayes.GaussianNB : The scikit-learn counterpart.

    Notes
    -----
    Fit: O(n d) time, O(k d) memory. Predict: O(n d k) as two matrix
    products, after expanding the quadratic form
    ``Σ_j (x_j − θ_kj)²/σ²_kj = (x∘x)·(1/σ²_k) − 2 x·(θ_k/σ²_k) + Σ_j θ²_kj/σ²_kj``
    (``x`` and ``θ`` are first centred on the overall training mean, so the
    expanded terms stay small and do not cancel catastrophically).

    Data of extreme magnitude (``X * 1e300``, ``X * 1e-300``, where the
    variances overflow or underflow) is divided by a power of two (exact)
    near its largest value before the statistics are computed; the model is
    the same, ``theta_`` and ``var_`` are reported in the user's units (the
    latter inf or 0 where float64 cannot hold it). Where the data has no
    spread at all (one sample, identical rows) ``epsilon_`` is
    ``var_smoothing`` times the largest squared mean instead, so that the
    densities stay finite.

    ``epsilon_`` is computed from the variance of all the data seen so far
    (recovered from the class statistics), so ``partial_fit`` over chunks
    gives the same model as ``fit`` on the whole; scikit-learn uses the last
    chunk only. With ``sample_weight`` the variance is weighted, so a weight
    of ``w`` acts exactly as ``w`` repeated rows.

    The notes' model (notes B §4.3) has no smoothing: ``var_smoothing=0``
    (then a feature constant within a class gives a zero variance).

    References
    ----------
    Chan, T. F., Golub, G. H. and LeVeque, R. J. (1979). Updating formulae and
    a pairwise algorithm for computing sample variances. Stanford CS report
    STAN-CS-79-773.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.naive_bayes import GaussianNB
    >>> X = np.array([[-1.0, -1.0], [-2.0, -1.0], [1.0, 1.0], [2.0, 1.0]])
    >>> clf = GaussianNB().fit(X, [1, 1, 2, 2])
    >>> clf.predict([[-0.8, -1.0]]).tolist()
    [1]
    >>> clf.theta_.tolist()
    [[-1.5, -1.0], [1.5, 1.0]]
    """

    _parameter_constraints = {
        "priors": ["array-like", None],
        "var_smoothing": [Interval(Real, 0, None, closed="left")],
    }

    def __init__(self, *, priors=None, var_smoothing=1e-9):
        self.priors = priors
        self.var_smoothing = var_smoothing

    def fit(self, X, y, sample_weight=None):
        """Estimate the class priors, means and variances.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data.
        <fit_rest>
        """
        validate_params(self)
        X, y = validate_data(self, X, y, dtype=np.float64)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        # One class (or other classes of zero weight) is a valid, constant
        # model, as in scikit-learn: its posterior is 1 (0 for the others).
        self.classes_, y_enc = encode_labels(y, min_classes=1)
        n_classes = len(self.classes_)
        self._scale = magnitude_scale(X)
        self.class_count_, self._theta, var = class_moments(
            _scaled(X, self._scale), y_enc, n_classes, sample_weight
        )
        self._finish(var)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Update the model with one batch of samples.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Training data of this batch.
        <partial_fit_rest>
        """
        first_call = first_partial_fit(self)
        X, y = validate_data(self, X, y, dtype=np.float64, reset=first_call)
        partial_fit_classes(self, classes)
        y_enc = encode_known_labels(self.classes_, y)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        n_classes = len(self.classes_)
        if first_call:
            # Later batches are scaled alike (the scale is a representation
            # of the statistics, not a parameter of the model).
            self._scale = magnitude_scale(X)
        count, mean, var = class_moments(
            _scaled(X, self._scale), y_enc, n_classes, sample_weight
        )
        if first_call:
            self.class_count_, self._theta = count, mean
        else:
            self.class_count_, self._theta, var = merge_moments(
                self.class_count_, self._theta, self._var - self._epsilon,
                count, mean, var,
            )
        self._finish(var)
        return self

    def _finish(self, var):
        """Set ``epsilon_``, ``theta_``, ``var_`` and ``class_prior_`` from the moments.

        ``self._theta`` and ``var`` are in the units of ``X / self._scale``;
        the public attributes are in the user's units (at ``X * 1e300``
        ``var_`` is inf there, as it is not representable; the model uses
        the scaled values).
        """
        count, theta = self.class_count_, self._theta
        total = count.sum()
        # Variance of all the data seen: within-class plus between-class parts.
        overall_mean = count @ theta / total
        overall_var = count @ (var + (theta - overall_mean) ** 2) / total
        largest = np.max(overall_var)
        if largest == 0.0:
            # No spread at all (one sample, or every row identical): there is
            # no variance to take a fraction of, so take it of the data's
            # squared magnitude (or of 1 for all-zero data) instead; every
            # variance would be 0 and every density at the data NaN.
            largest = np.max(theta * theta, initial=0.0) or 1.0
        self._epsilon = float(self.var_smoothing * largest)
        self._var = var + self._epsilon
        s2 = self._scale * self._scale
        with np.errstate(over="ignore", under="ignore"):
            self.theta_ = theta * self._scale
            self.var_ = self._var * s2
            self.epsilon_ = self._epsilon * s2
        if self.priors is None:
            self.class_prior_ = count / total
        else:
            self.class_prior_ = self._check_priors(len(count))

    def _check_priors(self, n_classes):
        priors = np.asarray(self.priors, dtype=np.float64)
        if priors.ndim != 1 or priors.shape[0] != n_classes:
            raise ValueError(
                f"Number of priors must match number of classes: got "
                f"{priors.size} priors for {n_classes} classes."
            )
        if not np.isclose(priors.sum(), 1.0):
            raise ValueError(f"The sum of the priors should be 1, got {priors.sum()}.")
        if np.any(priors < 0):
            raise ValueError("Priors must be non-negative.")
        return priors.copy()

    def _check_X(self, X):
        return validate_data(self, X, dtype=np.float64, reset=False)

    def _joint_log_likelihood(self, X):
        theta, var, count = self._theta, self._var, self.class_count_
        X = _scaled(X, self._scale)
        ref = count @ theta / count.sum()
        precision = 1.0 / var
        theta_c = theta - ref
        Xc = X - ref
        jll = (Xc * Xc) @ (-0.5 * precision.T)
        jll += Xc @ (theta_c * precision).T
        with np.errstate(divide="ignore"):  # a zero prior is a -inf log prior
            log_prior = np.log(self.class_prior_)
        jll += log_prior - 0.5 * (
            np.sum(np.log(var) + _LOG_2PI, axis=1)
            + np.sum(theta_c * theta_c * precision, axis=1)
        )
        if self._scale != 1.0:
            # The density of x is that of x / s divided by s, per feature.
            jll -= X.shape[1] * np.log(self._scale)
        return jll
