"""Bernoulli naive Bayes: independent binary features (notes B §4.3).

D4: "if a feature is binary (yes or no), it is unlikely to be Gaussian; it
is more likely Bernoulli". Each feature ``j`` is a coin of bias ``p_kj``
within class ``k``; the fit counts, with Laplace (additive) smoothing.
"""

import warnings
from numbers import Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from ..utils import Interval, check_sample_weight, encode_labels, validate_params
from ..utils._docstrings import SECTIONS, fill_class_docs
from ._base import FIT_REST, PARTIAL_FIT_REST, NaiveBayesMixin, encode_known_labels
from ._base import CLASS_ATTRIBUTES
from ._base import first_partial_fit, partial_fit_classes
from ._nb_kernels import (
    csr_class_counts,
    csr_threshold_product,
    dense_threshold_product,
)
from ..utils.validation import validate_data

__all__ = ["BernoulliNB"]

# Below this a smoothing constant makes log(0) likely for unseen events;
# scikit-learn raises alpha to it unless force_alpha=True.
_ALPHA_MIN = 1e-10


def _check_sparse_threshold(threshold):
    """A sparse X keeps its implicit zeros as zeros only for a threshold >= 0."""
    if threshold < 0:
        raise ValueError(
            f"binarize={threshold} < 0 would turn the implicit zeros of a "
            "sparse X into ones; use a threshold >= 0 or dense input."
        )


def _counted_in_place(dtype):
    """Stored values that the compiled CSR count reads as they are."""
    return dtype in (np.float64, np.float32) or dtype.kind in "iu"


def _binarize(X, threshold):
    """``1.0`` where ``X > threshold`` else ``0.0``; sparse stays sparse (CSR)."""
    if sp.issparse(X):
        _check_sparse_threshold(threshold)
        # New values on the same structure: the indices are shared, not
        # copied (entries turned 0 stay stored; they add nothing to a count).
        X = X.tocsr()
        data = (X.data > threshold).astype(np.float64)
        return sp.csr_matrix((data, X.indices, X.indptr), shape=X.shape)
    return (X > threshold).astype(np.float64)


def _threshold_product(X, threshold, W):
    """``B @ W`` with ``B = [X > threshold]`` (``B = X`` for ``threshold=None``).

    The binarised ``B`` is not formed (issue 20): a compiled loop thresholds
    each entry as it is read, so the memory is that of the (n_samples, m)
    result. Dtypes the loops do not take (float16, bool) use the binarised copy.
    """
    if threshold is None:
        return np.asarray(X @ W)
    out = np.zeros((X.shape[0], W.shape[1]))
    if sp.issparse(X):
        _check_sparse_threshold(threshold)
    if not _counted_in_place(X.dtype):
        return np.asarray(_binarize(X, threshold) @ W)
    if X.dtype.kind == "f":
        # As numpy's X > threshold: a Python float is compared in the
        # precision of float32 data (0.3 is not above float32(0.3)).
        threshold = X.dtype.type(threshold)
    else:
        threshold = float(threshold)
    W = np.ascontiguousarray(W, dtype=np.float64)
    if sp.issparse(X):
        X = X.tocsr()
        csr_threshold_product(X.indptr, X.indices, X.data, threshold, W, out)
    else:
        dense_threshold_product(X, threshold, W, out)
    return out


def _numeric(X, feature_names=None):
    """``X`` as float64 where validation left it as objects; a clear error otherwise.

    A pandas frame with a categorical or string column comes out of
    validation as an object array, and the threshold comparison would then
    fail deep inside with "'>' not supported between 'str' and 'float'".
    """
    if sp.issparse(X) or X.dtype != object:
        return X
    try:
        return X.astype(np.float64)
    except (TypeError, ValueError):
        pass
    for j in range(X.shape[1]):
        try:
            X[:, j].astype(np.float64)
        except (TypeError, ValueError):
            column = feature_names[j] if feature_names is not None else j
            bad = next(v for v in X[:, j] if not _is_number(v))
            raise ValueError(
                f"BernoulliNB needs numeric X, but column {column!r} holds "
                f"non-numeric values such as {bad!r} (a categorical or string "
                "column): encode it as numbers first, e.g. with "
                "sklearn.preprocessing.OneHotEncoder."
            ) from None
    raise ValueError("BernoulliNB needs numeric X; could not convert X to float64.")


def _is_number(value):
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


@fill_class_docs(SECTIONS, fit_rest=FIT_REST,
                 partial_fit_rest=PARTIAL_FIT_REST, class_attributes=CLASS_ATTRIBUTES)
class BernoulliNB(NaiveBayesMixin, BaseEstimator):
    """Naive Bayes for binary features (independent Bernoulli class conditionals).

    The naive Bayes classifier of notes B §4.3 for yes/no features: within
    class ``k`` feature ``j`` is 1 with probability

    ``p_kj = (N_kj + alpha) / (N_k + 2 alpha)``

    (``N_kj`` the weighted count of class-``k`` samples with ``x_j = 1``,
    ``N_k`` the class count; ``alpha = 1`` is Laplace's rule), and

    ``log P(x, C_k) = log π_k + Σ_j [x_j log p_kj + (1 − x_j) log(1 − p_kj)]``.

    Absent features count as evidence (the ``1 − x_j`` term), unlike the
    multinomial model.

    Parameters
    ----------
    alpha : float or array-like of shape (n_features,), default=1.0
        Additive smoothing (0 for the notes' unsmoothed frequencies); an
        array gives feature ``j`` its own ``alpha_j`` in ``p_kj``.
    force_alpha : bool, default=True
        Keep ``alpha`` as given; if False, values below 1e-10 are raised to
        1e-10 with a warning.
    binarize : float or None, default=0.0
        Threshold: a feature is 1 where ``x > binarize``. None means ``X`` is
        already binary.
    fit_prior : bool, default=True
        Learn the priors from the class frequencies; if False, uniform.
    class_prior : array-like of shape (n_classes,), default=None
        Fixed priors (override ``fit_prior``).

    Attributes
    ----------
    <class_attributes>
    class_log_prior_ : ndarray of shape (n_classes,)
        Log prior of each class.
    feature_count_ : ndarray of shape (n_classes, n_features)
        Weighted count of ones of each feature per class.
    feature_log_prob_ : ndarray of shape (n_classes, n_features)
        ``log p_kj``.
    <fitted_feature_attributes>

    See Also
    --------
    GaussianNB : Naive Bayes for continuous features.
    sklearn.naive_bayes.BernoulliNB : The scikit-learn counterpart.

    Notes
    -----
    Fit: O(nnz(X)) counting, O(k d) memory. On CSR input a compiled loop
    thresholds the stored entries as it adds them up, so nothing the size of
    ``X`` is allocated (no binarised copy); dense input is binarised and
    counted by one sparse indicator product.
    Predict: one product of the binarised ``X`` with a (d, k) matrix, writing
    ``Σ_j (1 − x_j) log(1 − p_kj) = Σ_j log(1 − p_kj) − x · log(1 − p_k)``;
    a compiled loop thresholds each entry as it reads it (dense or CSR), so
    predict allocates O(n k) (its output), not a binarised copy of ``X``.
    Sparse ``X`` (CSR) is accepted in fit, partial_fit and predict.

    Worked example (notes B §16 item 6, D4 "Discriminative v.s. Generative"):
    13 points with two binary features, class 1 = {(1, 1)}, class 2 = 4 x
    (1, 0), 4 x (0, 1), 4 x (0, 0). Without smoothing, ``P(C1 | (1, 1)) =
    (1/13) / (1/13 + 12/13 · 1/3 · 1/3) = 3/7``: naive Bayes prefers class 2
    for a point seen only in class 1.

    References
    ----------
    Manning, C. D., Raghavan, P. and Schütze, H. (2008). Introduction to
    Information Retrieval, §13.3. Cambridge University Press.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.naive_bayes import BernoulliNB
    >>> X = np.array([[1, 1]] + [[1, 0]] * 4 + [[0, 1]] * 4 + [[0, 0]] * 4)
    >>> y = [1] + [2] * 12
    >>> clf = BernoulliNB(alpha=0.0).fit(X, y)
    >>> round(float(clf.predict_proba([[1, 1]])[0, 0]), 6)
    0.428571
    """

    _parameter_constraints = {
        "alpha": [Interval(Real, 0, None, closed="left"), "array-like"],
        "force_alpha": ["boolean"],
        "binarize": [None, Interval(Real, None, None, closed="neither")],
        "fit_prior": ["boolean"],
        "class_prior": ["array-like", None],
    }

    def __init__(
        self,
        *,
        alpha=1.0,
        force_alpha=True,
        binarize=0.0,
        fit_prior=True,
        class_prior=None,
    ):
        self.alpha = alpha
        self.force_alpha = force_alpha
        self.binarize = binarize
        self.fit_prior = fit_prior
        self.class_prior = class_prior

    def fit(self, X, y, sample_weight=None):
        """Count the ones of each feature per class.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data (binarised with ``binarize``).
        <fit_rest>
        """
        validate_params(self)
        X, y = validate_data(self, X, y, accept_sparse="csr")
        X = _numeric(X, getattr(self, "feature_names_in_", None))
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        # One class (or other classes of zero weight) is a valid, constant
        # model, as in scikit-learn: its posterior is 1 (0 for the others).
        self.classes_, y_enc = encode_labels(y, min_classes=1)
        n_classes = len(self.classes_)
        self.class_count_ = np.zeros(n_classes)
        self.feature_count_ = np.zeros((n_classes, X.shape[1]))
        self._count(X, y_enc, sample_weight)
        return self

    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add the counts of one batch of samples.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data of this batch.
        <partial_fit_rest>
        """
        first_call = first_partial_fit(self)
        X, y = validate_data(self, X, y, accept_sparse="csr", reset=first_call)
        X = _numeric(X, getattr(self, "feature_names_in_", None))
        if partial_fit_classes(self, classes):
            self.class_count_ = np.zeros(len(self.classes_))
            self.feature_count_ = np.zeros((len(self.classes_), X.shape[1]))
        y_enc = encode_known_labels(self.classes_, y)
        if sample_weight is not None:
            sample_weight = check_sample_weight(sample_weight, X)
        self._count(X, y_enc, sample_weight)
        return self

    def _count(self, X, y, sample_weight):
        """Add the batch's counts, then recompute the log probabilities."""
        n_samples, n_classes = X.shape[0], len(self.classes_)
        w = np.ones(n_samples) if sample_weight is None else sample_weight
        if sp.issparse(X) and _counted_in_place(X.dtype):
            if self.binarize is not None:
                _check_sparse_threshold(self.binarize)
            # Threshold the stored entries while counting them (issue 20): no
            # binarised copy of X and no sparse product, O(k d) extra memory.
            X = X.tocsr()
            threshold = 0.0 if self.binarize is None else self.binarize
            if X.dtype.kind == "f":
                # As numpy's X > threshold: a Python float is compared in the
                # precision of float32 data (0.3 is not above float32(0.3)).
                threshold = X.dtype.type(threshold)
            counts = np.zeros((n_classes, X.shape[1]))
            csr_class_counts(
                X.indptr, X.indices, X.data, y, w, threshold,
                self.binarize is not None, counts,
            )
        else:
            if self.binarize is not None:
                X = _binarize(X, self.binarize)
            indicator = sp.csr_array(
                (w, (y, np.arange(n_samples))), shape=(n_classes, n_samples)
            )
            counts = indicator @ X
        self.feature_count_ += counts
        self.class_count_ += np.bincount(y, weights=w, minlength=n_classes)

        alpha = self._check_alpha()
        with np.errstate(divide="ignore"):  # alpha = 0: log 0 = -inf is meant
            # (k, 1) + (d,) broadcasts a per-feature alpha (scikit-learn 1.9
            # fails on it with a shape error).
            self.feature_log_prob_ = np.log(self.feature_count_ + alpha) - np.log(
                self.class_count_[:, np.newaxis] + 2.0 * alpha
            )
        self.class_log_prior_ = self._class_log_prior()

    def _check_alpha(self):
        alpha = np.asarray(self.alpha, dtype=np.float64)
        if alpha.ndim > 0:
            if alpha.shape != (self.n_features_in_,):
                raise ValueError(
                    "When alpha is an array it needs one value per feature: got "
                    f"shape {alpha.shape} for {self.n_features_in_} features."
                )
            if np.any(alpha < 0):
                raise ValueError("All values in alpha must be non-negative.")
        if np.min(alpha) < _ALPHA_MIN and not self.force_alpha:
            warnings.warn(
                f"alpha too small will result in numeric errors, setting alpha = "
                f"{_ALPHA_MIN:.1e}. Use force_alpha=True to keep alpha unchanged."
            )
            return np.maximum(alpha, _ALPHA_MIN)
        return alpha

    def _class_log_prior(self):
        n_classes = len(self.classes_)
        if self.class_prior is not None:
            prior = np.asarray(self.class_prior, dtype=np.float64)
            if prior.shape != (n_classes,):
                raise ValueError(
                    f"Number of priors must match number of classes: got "
                    f"{prior.size} priors for {n_classes} classes."
                )
            with np.errstate(divide="ignore"):
                return np.log(prior)
        if self.fit_prior:
            with np.errstate(divide="ignore"):  # a class not seen yet: -inf
                return np.log(self.class_count_) - np.log(self.class_count_.sum())
        return np.full(n_classes, -np.log(n_classes))

    def _check_X(self, X):
        X = validate_data(self, X, accept_sparse="csr", reset=False)
        return _numeric(X, getattr(self, "feature_names_in_", None))

    def _joint_log_likelihood(self, X):
        log_p = self.feature_log_prob_
        with np.errstate(divide="ignore"):  # p = 1 gives log(1 - p) = -inf
            log_not_p = np.log1p(-np.exp(log_p))
        # One product: Σ_j (1 − x_j) log(1 − p_kj) = Σ_j log(1 − p_kj) − x·log(1 − p_k).
        # With alpha = 0 some p are exactly 0 or 1; the products then use
        # 0 in place of log 0 (so that 0·log 0 = 0, not NaN) and the samples
        # that hit an impossible event get -inf separately.
        impossible_p, impossible_q = np.isneginf(log_p), np.isneginf(log_not_p)
        lp = np.where(impossible_p, 0.0, log_p)
        lq = np.where(impossible_q, 0.0, log_not_p)
        # X is binarised as it is read (never copied): memory O(n_samples k).
        any_impossible = impossible_p.any() or impossible_q.any()
        W = (lp - lq).T
        if any_impossible:
            bad = impossible_p.astype(float) - impossible_q.astype(float)
            W = np.hstack([W, bad.T])  # both products in one pass over X
        products = _threshold_product(X, self.binarize, W)
        n_classes = lp.shape[0]
        jll = products[:, :n_classes] + (self.class_log_prior_ + lq.sum(axis=1))
        if any_impossible:
            n_impossible = products[:, n_classes:] + impossible_q.sum(axis=1)
            jll[n_impossible > 0.5] = -np.inf
        return jll

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        # Binarising at 0 throws most of the information of the checks'
        # continuous data away (scikit-learn sets the same tag).
        tags.classifier_tags.poor_score = True
        return tags
