"""numba kernels of the vector distances of ``skml.metrics.pairwise``.

One pair distance, ``pair_distance``, chooses its formula by an integer
code (no Python callback inside a kernel); ``distance_block`` fills a block
of a distance matrix with it. The ball tree's kernels call ``pair_distance``
too, so the codes below are shared: the first seven are those of
``skml/neighbors/_ball_tree_kernels.py`` (if this file changes, touch that
one and ``skml/neighbors/_tree_kernels.py``: numba's cache is keyed on the
defining file only).

Boolean metrics read a coordinate as true when it is non-zero; with
``n_tt`` the number of coordinates true in both vectors, ``n_tf``/``n_ft``
true in one only and ``n_ff`` in neither, ``R = n_tf + n_ft``:

- jaccard ``R / (n_tt + R)``, dice ``R / (2 n_tt + R)``;
- rogerstanimoto = sokalmichener ``2R / (n_tt + n_ff + 2R)``;
- russellrao ``(n - n_tt) / n``, sokalsneath ``2R / (n_tt + 2R)``;
- yule ``2 n_tf n_ft / (n_tt n_ff + n_tf n_ft)``.

braycurtis is ``sum |x_t - y_t| / sum (|x_t| + |y_t|)``, as scikit-learn's
neighbours and DistanceMetric (scipy divides by ``sum |x_t + y_t|``: the same
on non-negative data; this one stays in [0, 1]).

A ratio 0 / 0 (two all-false vectors, two zero vectors of braycurtis) is
0: the two vectors are then equal.
"""

import math

import numpy as np
from numba import njit

# Metric codes. 0-6 as in the ball tree's kernels.
(CHEBYSHEV, MANHATTAN, EUCLIDEAN, MINKOWSKI, HAVERSINE, CANBERRA, HAMMING,
 BRAYCURTIS, JACCARD, DICE, ROGERSTANIMOTO, RUSSELLRAO, SOKALSNEATH, YULE,
 SQEUCLIDEAN, NAN_EUCLIDEAN, WMINKOWSKI) = range(17)

BOOLEAN_CODES = (JACCARD, DICE, ROGERSTANIMOTO, RUSSELLRAO, SOKALSNEATH, YULE)


@njit(cache=True, nogil=True, inline="always")
def _ratio(num, den):
    return num / den if den > 0.0 else 0.0


@njit(cache=True, nogil=True)
def pair_distance(X, i, Y, j, code, p, w):
    """Distance between rows X[i] and Y[j] (float64 arithmetic).

    ``p`` is the Minkowski order (MINKOWSKI, WMINKOWSKI), ``w`` the weights of
    WMINKOWSKI: ``(sum_t w_t |x_t - y_t|^p)^(1/p)``.
    """
    m = X.shape[1]
    acc = 0.0
    if code == EUCLIDEAN or code == SQEUCLIDEAN:
        for t in range(m):
            diff = np.float64(X[i, t]) - np.float64(Y[j, t])
            acc += diff * diff
        return math.sqrt(acc) if code == EUCLIDEAN else acc
    if code == MANHATTAN:
        for t in range(m):
            acc += abs(np.float64(X[i, t]) - np.float64(Y[j, t]))
        return acc
    if code == CHEBYSHEV:
        for t in range(m):
            acc = max(acc, abs(np.float64(X[i, t]) - np.float64(Y[j, t])))
        return acc
    if code == MINKOWSKI:
        for t in range(m):
            acc += abs(np.float64(X[i, t]) - np.float64(Y[j, t])) ** p
        return acc ** (1.0 / p)
    if code == WMINKOWSKI:
        for t in range(m):
            acc += w[t] * abs(np.float64(X[i, t]) - np.float64(Y[j, t])) ** p
        return acc ** (1.0 / p)
    if code == HAVERSINE:
        s_lat = math.sin(0.5 * (np.float64(X[i, 0]) - np.float64(Y[j, 0])))
        s_lon = math.sin(0.5 * (np.float64(X[i, 1]) - np.float64(Y[j, 1])))
        h = s_lat * s_lat + (math.cos(np.float64(X[i, 0]))
                             * math.cos(np.float64(Y[j, 0])) * s_lon * s_lon)
        return 2.0 * math.asin(math.sqrt(min(max(h, 0.0), 1.0)))
    if code == CANBERRA:
        for t in range(m):
            a, b = np.float64(X[i, t]), np.float64(Y[j, t])
            acc += _ratio(abs(a - b), abs(a) + abs(b))
        return acc
    if code == BRAYCURTIS:
        den = 0.0
        for t in range(m):
            a, b = np.float64(X[i, t]), np.float64(Y[j, t])
            acc += abs(a - b)
            den += abs(a) + abs(b)
        return _ratio(acc, den)
    if code == HAMMING:
        for t in range(m):
            if X[i, t] != Y[j, t]:
                acc += 1.0
        return acc / m
    if code == NAN_EUCLIDEAN:
        # scikit-learn's nan_euclidean: the squared distance over the
        # coordinates present in both, scaled up by m / (number present).
        present = 0
        for t in range(m):
            a, b = np.float64(X[i, t]), np.float64(Y[j, t])
            if not (math.isnan(a) or math.isnan(b)):
                present += 1
                acc += (a - b) * (a - b)
        if present == 0:
            return np.nan
        return math.sqrt(acc * m / present)
    # boolean metrics
    n_tt = 0.0
    n_tf = 0.0
    n_ft = 0.0
    for t in range(m):
        a = X[i, t] != 0
        b = Y[j, t] != 0
        if a and b:
            n_tt += 1.0
        elif a:
            n_tf += 1.0
        elif b:
            n_ft += 1.0
    r = n_tf + n_ft
    n_ff = m - n_tt - r
    if code == JACCARD:
        return _ratio(r, n_tt + r)
    if code == DICE:
        return _ratio(r, 2.0 * n_tt + r)
    if code == ROGERSTANIMOTO:
        return _ratio(2.0 * r, n_tt + n_ff + 2.0 * r)
    if code == RUSSELLRAO:
        return (m - n_tt) / m if m > 0 else 0.0
    if code == SOKALSNEATH:
        return _ratio(2.0 * r, n_tt + 2.0 * r)
    # YULE
    return _ratio(2.0 * n_tf * n_ft, n_tt * n_ff + n_tf * n_ft)


@njit(cache=True, nogil=True)
def distance_block(X, Y, code, p, w, out):
    """``out[i, j] = d(X[i], Y[j])`` for every pair."""
    for i in range(X.shape[0]):
        for j in range(Y.shape[0]):
            out[i, j] = pair_distance(X, i, Y, j, code, p, w)
