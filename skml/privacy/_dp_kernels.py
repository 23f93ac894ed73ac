"""Numba kernel of DP-SGD's step for linear models (notes B §13.5).

One call per lot gathers its rows (with their squared norms), computes the
linear outputs (a GEMM), the residuals ``g(z) - y`` of the canonical link,
the closed-form per-example gradient norms
:math:`\\sqrt{(\\|x_i\\|^2 + 1)\\|r_i\\|^2}`, scales each residual by
:math:`C / \\max(C, \\text{norm})` and forms the clipped sums (a GEMM): no
per-example gradient array, no Python call per layer. The MLP goes through
the network core's :func:`~skml.neural_network._modules.clipped_backward`.
"""

import math

import numpy as np
from numba import njit

IDENTITY, LOGISTIC, SOFTMAX = 0, 1, 2


@njit(cache=True, nogil=True)
def linear_clipped_sum(X, idx, W, b, Y, kind, max_norm, gW, gb, norms):
    """Sum over the rows ``idx`` of the per-example gradients, each clipped to ``max_norm``.

    Parameters
    ----------
    X : ndarray of shape (n, d)
    idx : int ndarray of shape (m,)
        The lot's rows.
    W, b : ndarray of shape (d, k), (k,)
        Current weights and intercepts.
    Y : ndarray of shape (n, k)
        Targets (0/1 for logistic, one-hot for softmax, values for identity).
    kind : int
        IDENTITY, LOGISTIC or SOFTMAX output.
    max_norm : float
        C (``inf``: no clipping).
    gW, gb : ndarray of shape (d, k), (k,)
        Overwritten with the clipped sums.
    norms : ndarray of shape (>= m,)
        The first m entries receive the norms before clipping.
    """
    m = idx.shape[0]
    d, k = W.shape
    # The lot's rows, gathered (independent loads: the memory latency of
    # random rows overlaps) with their squared norms plus 1 (the bias).
    Xb = np.empty((m, d))
    xsq = np.empty(m)
    for t in range(m):
        i = idx[t]
        s = 1.0
        for j in range(d):
            v = X[i, j]
            Xb[t, j] = v
            s += v * v
        xsq[t] = s
    R = np.dot(Xb, W)
    for t in range(m):
        i = idx[t]
        if kind == LOGISTIC:
            z = R[t, 0] + b[0]
            if z >= 0.0:
                p = 1.0 / (1.0 + math.exp(-z))
            else:
                e = math.exp(z)
                p = e / (1.0 + e)
            R[t, 0] = p - Y[i, 0]
        elif kind == SOFTMAX:
            zmax = -np.inf
            for c in range(k):
                R[t, c] += b[c]
                if R[t, c] > zmax:
                    zmax = R[t, c]
            total = 0.0
            for c in range(k):
                R[t, c] = math.exp(R[t, c] - zmax)
                total += R[t, c]
            for c in range(k):
                R[t, c] = R[t, c] / total - Y[i, c]
        else:
            for c in range(k):
                R[t, c] += b[c] - Y[i, c]
        rsq = 0.0
        for c in range(k):
            rsq += R[t, c] * R[t, c]
        nrm = math.sqrt(xsq[t] * rsq)
        norms[t] = nrm
        # C / max(norm, C): 1 below C; an overflowed (inf) or NaN norm gives 0.
        if nrm <= max_norm:
            scale = 1.0
        elif nrm != nrm:
            scale = 0.0
        else:
            scale = max_norm / nrm
        for c in range(k):
            R[t, c] = R[t, c] * scale if scale > 0.0 else 0.0
    gb[:] = 0.0
    for t in range(m):
        for c in range(k):
            gb[c] += R[t, c]
    gW[:, :] = np.dot(Xb.T, R)
