"""numba kernel of the additive chi-squared kernel of ``skml.metrics.pairwise``.

``-sum_t (x_t - y_t)^2 / (x_t + y_t)`` for every pair of rows, a term whose
denominator is 0 (both coordinates 0) counting 0. One pass over the pair's
coordinates, no temporary of size ``n_X * n_Y * d`` as a broadcast numpy
expression would make; the rows are split over threads by the caller.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def additive_chi2_block(X, Y, out):
    """Fill ``out[i, j]`` with the additive chi-squared kernel of ``X[i]`` and
    ``Y[j]`` (non-negative rows, checked by the caller), summed in float64."""
    n_x, d = X.shape
    n_y = Y.shape[0]
    for i in range(n_x):
        for j in range(n_y):
            s = 0.0
            for t in range(d):
                a = np.float64(X[i, t])
                b = np.float64(Y[j, t])
                den = a + b
                if den > 0.0:
                    diff = a - b
                    s += diff * diff / den
            out[i, j] = -s
