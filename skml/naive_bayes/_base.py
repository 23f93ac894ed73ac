"""Pieces shared by the naive Bayes classifiers: Bayes' rule and ``classes``.

A subclass provides ``_joint_log_likelihood(X)``, the unnormalised
``log P(C_k) + log P(x | C_k)`` of notes B §4.1, and ``_check_X(X)`` (the
validation of its predict methods); this mixin turns them into predictions
and posteriors.
"""

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.utils.validation import check_is_fitted

from ..utils import check_n_classes, validate_params
from ..utils._docstrings import SECTIONS, fill_class_docs

__all__ = [
    "CLASS_ATTRIBUTES",
    "FIT_REST",
    "NaiveBayesMixin",
    "PARTIAL_FIT_REST",
    "encode_known_labels",
    "first_partial_fit",
    "log_normalise",
    "partial_fit_classes",
]

# The attributes every naive Bayes classifier has.
CLASS_ATTRIBUTES = """
class_count_ : ndarray of shape (n_classes,)
    Number (total weight) of training samples of each class.
classes_ : ndarray of shape (n_classes,)
    Class labels, sorted.
"""

# The sections of ``fit`` and ``partial_fit`` after the ``X`` parameter.
FIT_REST = """
y : array-like of shape (n_samples,)
    Class labels (any type).
sample_weight : array-like of shape (n_samples,), default=None
    Non-negative weights; a weight ``w`` counts as ``w`` samples.

Returns
-------
self : object
    The fitted estimator.
"""

PARTIAL_FIT_REST = """
y : array-like of shape (n_samples,)
    Class labels of this batch.
classes : array-like of shape (n_classes,), default=None
    Every label that can appear; required on the first call only.
sample_weight : array-like of shape (n_samples,), default=None
    Non-negative weights of this batch.

Returns
-------
self : object
    The updated estimator.
"""


def log_normalise(jll):
    """Rows of ``jll - logsumexp(jll)``: log posteriors from joint log likelihoods."""
    top = np.max(jll, axis=1, keepdims=True)
    shifted = jll - top
    # A row whose every entry is -inf (every class impossible, possible with
    # zero smoothing) has no posterior; give it the uniform one, not NaN.
    shifted[np.isneginf(top[:, 0])] = 0.0
    return shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))


def first_partial_fit(estimator):
    """True on the first ``partial_fit`` call (no ``classes_`` yet), whose
    parameters it then validates."""
    if hasattr(estimator, "classes_"):
        return False
    validate_params(estimator)
    return True


def partial_fit_classes(estimator, classes):
    """Set ``classes_`` on the first ``partial_fit`` call; return True then.

    ``classes`` is required on the first call and, on later calls, must be
    omitted or equal ``classes_`` (scikit-learn's rule).
    """
    if not hasattr(estimator, "classes_"):
        if classes is None:
            raise ValueError(
                "classes must be passed on the first call to partial_fit "
                "(all the labels that can appear in y)."
            )
        estimator.classes_ = np.unique(np.asarray(classes))
        check_n_classes(estimator.classes_, 1)  # one class is a constant model
        return True
    if classes is not None and not np.array_equal(
        estimator.classes_, np.unique(np.asarray(classes))
    ):
        raise ValueError(
            f"classes={classes!r} is not the same as on last call to "
            f"partial_fit (the first one, which set classes_={estimator.classes_!r})."
        )
    return False


def encode_known_labels(classes, y):
    """Indices of ``y`` in the sorted ``classes``; ValueError for unseen labels."""
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-d, got an array of shape {y.shape}.")
    idx = np.searchsorted(classes, y)
    idx_clipped = np.minimum(idx, len(classes) - 1)
    unknown = classes[idx_clipped] != y
    if np.any(unknown):
        raise ValueError(
            f"The target label(s) {np.unique(y[unknown])} in y do not exist in "
            f"the initial classes {classes}."
        )
    return idx_clipped.astype(np.intp, copy=False)


@fill_class_docs(SECTIONS)
class NaiveBayesMixin(ClassifierMixin):
    """``predict``, ``predict_proba``, ``predict_log_proba`` and
    ``predict_joint_log_proba`` from a subclass's ``_joint_log_likelihood``."""

    def predict_joint_log_proba(self, X):
        """Joint log probabilities ``log P(C_k) + log P(x | C_k)``.

        <X_samples>

        Returns
        -------
        jll : ndarray of shape (n_samples, n_classes)
            Columns in the order of ``classes_``.
        """
        check_is_fitted(self)
        return self._joint_log_likelihood(self._check_X(X))

    def predict(self, X):
        """Class of largest posterior (Bayes' rule; the evidence cancels).

        <X_samples>

        <labels_returns>
        """
        jll = self.predict_joint_log_proba(X)  # checks fitted before classes_
        return self.classes_[np.argmax(jll, axis=1)]

    def predict_log_proba(self, X):
        """Log posteriors ``log P(C_k | x)``.

        <X_samples>

        <log_proba_returns>
        """
        return log_normalise(self.predict_joint_log_proba(X))

    def predict_proba(self, X):
        """Posteriors ``P(C_k | x)``; each row sums to 1.

        <X_samples>

        <proba_returns>
        """
        return np.exp(self.predict_log_proba(X))
