"""Pieces shared by the Gaussian discriminant classifiers: priors and posteriors."""

import warnings

import numpy as np

__all__ = ["check_priors", "log_softmax"]


def check_priors(priors, y_encoded, n_classes):
    """Class priors: the class frequencies, or the user's (validated) ones.

    User priors must be non-negative with one per class; priors that do not
    sum to 1 are renormalised with a warning (scikit-learn's behaviour).
    """
    if priors is None:
        return np.bincount(y_encoded, minlength=n_classes) / len(y_encoded)
    priors = np.array(priors, dtype=np.float64)
    if priors.ndim != 1 or priors.shape[0] != n_classes:
        raise ValueError(
            f"priors must have one entry per class: got shape {priors.shape} "
            f"for {n_classes} classes."
        )
    if np.any(priors < 0) or not np.all(np.isfinite(priors)):
        raise ValueError("priors must be non-negative and finite.")
    if abs(priors.sum() - 1.0) > 1e-5:
        warnings.warn("The priors do not sum to 1. Renormalizing", UserWarning)
        priors = priors / priors.sum()
    return priors


def log_softmax(scores):
    """Rows of ``scores - logsumexp(scores)`` (log posteriors from log joints)."""
    shifted = scores - np.max(scores, axis=1, keepdims=True)
    return shifted - np.log(np.sum(np.exp(shifted), axis=1, keepdims=True))
