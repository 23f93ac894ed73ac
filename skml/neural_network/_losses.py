r"""Losses of the network core, from the network's raw output (notes B §7).

Each loss is a function ``loss(output, target, sample_weight=None) ->
(value, d_output)``: ``value`` is the weighted mean over the rows of the
per-row loss (summed over the output columns),

.. math:: J = \frac{\sum_i s_i \ell(z_i, y_i)}{\sum_i s_i},

and ``d_output`` is :math:`\partial J / \partial z`, an array like
``output``. Each loss takes the *pre-activation* output ``z`` (logits, log
means) and applies its output function itself, which is both stable
(log-sum-exp, ``log(1 + e^z)``) and canonical: the gradient is always
:math:`s_i (g(z_i) - y_i) / \sum_j s_j`.

=====================  ================  =====================================
loss                   output ``g``      :math:`\ell(z, y)`
=====================  ================  =====================================
softmax_cross_entropy  softmax           :math:`-\sum_k y_k \log g(z)_k`
logistic_loss          sigmoid           :math:`\sum_k \log(1+e^{z_k}) - y_k z_k`
squared_loss           identity          :math:`\tfrac12 \|z - y\|^2`
poisson_loss           exp               :math:`\sum_k e^{z_k} - y_k z_k`
=====================  ================  =====================================

:data:`OUTPUTS` maps the MLPs' ``out_activation_`` names to ``(loss, g)``.
"""

import numpy as np
from scipy.special import expit

__all__ = [
    "OUTPUTS",
    "logistic_loss",
    "poisson_loss",
    "softmax",
    "softmax_cross_entropy",
    "squared_loss",
]


def _weighted_mean(per_row, d_output, sample_weight):
    """Weighted mean of ``per_row``; scales ``d_output`` in place to match."""
    n = per_row.shape[0]
    if sample_weight is None:
        d_output *= 1.0 / n
        return float(per_row.sum()) / n
    total = float(sample_weight.sum())
    w = (sample_weight / total).astype(d_output.dtype, copy=False)
    d_output *= w[:, None]
    return float(w @ per_row)


def softmax(Z):
    """Row-wise softmax of ``Z`` (a new array), shifted by the row maximum."""
    P = Z - Z.max(axis=1, keepdims=True)
    np.exp(P, out=P)
    P /= P.sum(axis=1, keepdims=True)
    return P


def softmax_cross_entropy(Z, Y, sample_weight=None, label_smoothing=0.0):
    """Cross-entropy of the softmax of logits ``Z`` against distributions ``Y``.

    Rows of ``Y`` are probability vectors (one-hot labels, or soft targets).
    ``label_smoothing`` eps replaces them by ``(1 - eps) Y + eps / K``.
    """
    if label_smoothing:
        Y = (1.0 - label_smoothing) * Y + label_smoothing / Y.shape[1]
    shifted = Z - Z.max(axis=1, keepdims=True)
    P = np.exp(shifted)
    total = P.sum(axis=1)
    # -sum_k y_k log p_k = log sum_j e^{z_j} - sum_k y_k z_k  (sum_k y_k = 1)
    shifted *= Y
    per_row = np.log(total) - shifted.sum(axis=1)
    P /= total[:, None]
    P -= Y
    return _weighted_mean(per_row, P, sample_weight), P


def logistic_loss(Z, Y, sample_weight=None):
    """Binary cross-entropy of ``sigmoid(Z)`` against 0/1 (or soft) targets ``Y``.

    Every column is its own two-class problem (one column for two classes;
    several columns for multi-label targets).
    """
    per_row = np.logaddexp(0.0, Z)  # log(1 + e^z), without overflow
    per_row -= Y * Z
    D = expit(Z)
    D -= Y
    return _weighted_mean(per_row.sum(axis=1), D, sample_weight), D


def squared_loss(Z, Y, sample_weight=None):
    """Half the squared error, summed over the outputs."""
    D = Z - Y
    per_row = 0.5 * np.einsum("ij,ij->i", D, D)
    return _weighted_mean(per_row, D, sample_weight), D


def poisson_loss(Z, Y, sample_weight=None):
    """Poisson deviance up to a constant, ``e^z - y z``, with ``z`` the log mean."""
    D = np.exp(Z)
    per_row = (D - Y * Z).sum(axis=1)
    D -= Y
    return _weighted_mean(per_row, D, sample_weight), D


def _identity(Z):
    return Z


OUTPUTS = {
    "softmax": (softmax_cross_entropy, softmax),
    "logistic": (logistic_loss, expit),
    "identity": (squared_loss, _identity),
    "exp": (poisson_loss, np.exp),
}
