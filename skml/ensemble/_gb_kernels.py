"""Numba kernels of gradient boosting's per-round arithmetic.

The binary log loss is the default and its round costs two transcendental
passes in numpy (the sigmoid for the gradient, ``log(1 + e^F)`` for the
training loss) plus temporaries; here both come from one ``exp`` per
sample, in one pass. The Newton leaf values are summed per leaf from the
training rows' leaf ids (which the histogram growth returns), without
``np.bincount``'s temporaries.
"""

import numpy as np
from numba import njit

# Below this, a leaf's hessian sum counts as zero: its Newton step is 0
# (probabilities saturated at 0 or 1 cannot improve the loss).
TINY_HESSIAN = 1e-150


# Rows whose log(1 + e^-|F|) terms are multiplied before one log is taken:
# each factor is in [1, 2], so 512 of them stay below 2^512 (no overflow) and
# the product's relative rounding error (< 512 ulp) is an absolute error of
# ~1e-13 on a block sum of several hundred.
_LOG_BLOCK = 512


@njit(cache=True, nogil=True)
def binomial_loss_neg_gradient(y, f, w, unit, neg_grad):
    """Weighted mean binomial deviance ``2 (log(1 + e^F) - y F)``; writes
    ``neg_grad = y - sigmoid(F)``.

    ``log(1 + e^F) = max(F, 0) + log(1 + e^-|F|)`` and ``sigmoid(F)`` is
    ``d = 1 / (1 + e^-|F|)`` or ``e^-|F| d`` by the sign of F: one ``exp``
    serves both, and neither overflows. With unit weights (``unit``) the
    logarithms of a block of rows are summed as the log of their product,
    one ``log`` per ``_LOG_BLOCK`` rows (the log was 2/3 of the pass).
    """
    n = f.shape[0]
    linear = 0.0
    logs = 0.0
    wsum = 0.0
    for lo in range(0, n, _LOG_BLOCK):
        hi = min(lo + _LOG_BLOCK, n)
        prod = 1.0
        for i in range(lo, hi):
            fi = f[i]
            e = np.exp(-abs(fi))
            d = 1.0 / (1.0 + e)
            p = d if fi >= 0.0 else e * d
            neg_grad[i] = y[i] - p
            if unit:
                prod *= 1.0 + e
            else:
                logs += w[i] * np.log1p(e)
            linear += w[i] * (max(fi, 0.0) - y[i] * fi)
            wsum += w[i]
        if unit:
            logs += np.log(prod)
    return 2.0 * (linear + logs) / wsum


@njit(cache=True, nogil=True)
def logistic_leaf_values(leaf, y, neg_grad, w, n_nodes, scale):
    """One Newton step of the (binary or one class's multinomial) log loss
    per node id: ``scale * sum w (y - p) / sum w p (1 - p)`` with
    ``p = y - neg_grad``; 0 where the hessian sum is below ``TINY_HESSIAN``
    in magnitude or the node holds no row."""
    num = np.zeros(n_nodes)
    den = np.zeros(n_nodes)
    for i in range(leaf.shape[0]):
        t = leaf[i]
        g = neg_grad[i]
        p = y[i] - g
        num[t] += w[i] * g
        den[t] += w[i] * p * (1.0 - p)
    out = np.zeros(n_nodes)
    for t in range(n_nodes):
        if abs(den[t]) >= TINY_HESSIAN:
            out[t] = scale * num[t] / den[t]
    return out


@njit(cache=True, nogil=True)
def add_leaf_values(raw_k, leaf, values, learning_rate):
    """``raw_k += learning_rate * values[leaf]`` in place, without the
    gathered temporary (``raw_k`` may be a strided column)."""
    for i in range(leaf.shape[0]):
        raw_k[i] += learning_rate * values[leaf[i]]


@njit(cache=True, nogil=True)
def squared_loss_neg_gradient(y, f, w, neg_grad):
    """Weighted mean squared error ``(y - F)^2``; writes ``neg_grad = y - F``
    (the residual), in one pass without temporaries."""
    total = 0.0
    wsum = 0.0
    for i in range(f.shape[0]):
        r = y[i] - f[i]
        neg_grad[i] = r
        total += w[i] * r * r
        wsum += w[i]
    return total / wsum
