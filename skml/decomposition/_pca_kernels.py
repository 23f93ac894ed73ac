"""One pass over the training data of PCA (compiled by numba).

``fit`` needs the column means and, for its power-of-two rescaling of data
of extreme magnitude, the largest ``|x|``. numpy takes two passes for them
and ``np.abs`` a temporary the size of X; this kernel reads X once.
"""

import numpy as np
from numba import njit


@njit(cache=True, nogil=True)
def column_sums_and_peak(X):
    """Column sums of X (in X's dtype) and ``max |x|``, row after row.

    For C-contiguous X the sums are the same additions, in the same order
    and precision, as numpy's ``X.sum(axis=0)`` (a reduction over the outer
    axis adds rows into an accumulator), so ``sums / n`` is bit for bit
    ``X.mean(axis=0)``. X must be finite (validated by the caller).
    """
    n, d = X.shape
    sums = np.zeros(d, dtype=X.dtype)
    # Per column, so that the inner loop has no reduction to one scalar and
    # vectorises.
    peaks = np.zeros(d, dtype=X.dtype)
    for i in range(n):
        for j in range(d):
            x = X[i, j]
            sums[j] += x
            a = abs(x)
            peaks[j] = a if a > peaks[j] else peaks[j]
    peak = 0.0
    for j in range(d):
        peak = max(peak, float(peaks[j]))
    return sums, peak
