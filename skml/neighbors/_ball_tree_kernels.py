"""numba kernels of the ball tree: metrics, node bounds and the build.

As in ``_kd_tree_kernels``, leaf scans compare *reduced* distances (no root:
``sum |x_i - y_i|^p`` for Minkowski, the haversine's ``sin²`` term), and a
node is described by a centroid and a radius in *true* distance. The lower
bound of a node is ``max(0, d(q, c) - radius)`` (triangle inequality), turned
into a reduced distance once per node. The k-nearest and radius queries
are those of the KD-tree, in ``_tree_kernels`` (one search for both trees).

If a helper imported from ``_kd_tree_kernels`` changes, touch this file too
(numba's cache is keyed on the defining file only); if a helper here
changes, touch ``_tree_kernels.py`` and ``_tree_density_kernels.py``.
"""

import math

import numpy as np
from numba import njit

from ..metrics._distance_kernels import (
    BRAYCURTIS,
    CANBERRA,
    CHEBYSHEV,
    DICE,
    EUCLIDEAN,
    HAMMING,
    HAVERSINE,
    MANHATTAN,
    MINKOWSKI,
    pair_distance,
)
from ._kd_tree_kernels import manhattan_rows, split_widest, sq_euclidean_rows

# Metric codes: those of skml.metrics._distance_kernels (the first four as in
# _kd_tree_kernels). Codes past HAMMING (braycurtis, the boolean metrics)
# are computed by its pair_distance; their reduced distance is the distance.
_NO_WEIGHTS = np.empty(0)

# A node's lower bound d(q, c) - radius loses about eps * (d + radius) to
# cancellation; it is lowered by this relative slack so that rounding never
# prunes a node holding a point at (or tied with) the current k-th distance.
_BOUND_SLACK = 1e-12


@njit(cache=True, nogil=True, inline="always")
def rdist_rows(X, i, Y, j, code, p):
    """Reduced distance between X[i] and Y[j]."""
    m = X.shape[1]
    acc = 0.0
    if code == EUCLIDEAN:
        acc = sq_euclidean_rows(X, i, Y, j)
    elif code == MANHATTAN:
        acc = manhattan_rows(X, i, Y, j)
    elif code == CHEBYSHEV:
        for t in range(m):
            acc = max(acc, abs(X[i, t] - Y[j, t]))
    elif code == MINKOWSKI:
        for t in range(m):
            acc += abs(X[i, t] - Y[j, t]) ** p
    elif code == HAVERSINE:
        s_lat = math.sin(0.5 * (X[i, 0] - Y[j, 0]))
        s_lon = math.sin(0.5 * (X[i, 1] - Y[j, 1]))
        acc = s_lat * s_lat + math.cos(X[i, 0]) * math.cos(Y[j, 0]) * s_lon * s_lon
    elif code == CANBERRA:
        for t in range(m):
            den = abs(X[i, t]) + abs(Y[j, t])
            if den > 0.0:
                acc += abs(X[i, t] - Y[j, t]) / den
    elif code == HAMMING:  # the fraction of differing coordinates
        for t in range(m):
            if X[i, t] != Y[j, t]:
                acc += 1.0
        acc /= m
    else:
        acc = pair_distance(X, i, Y, j, code, p, _NO_WEIGHTS)
    return acc


@njit(cache=True, nogil=True, inline="always")
def rdist_to_dist(rd, code, p):
    if code == EUCLIDEAN:
        return math.sqrt(rd)
    if code == MINKOWSKI:
        return rd ** (1.0 / p)
    if code == HAVERSINE:
        return 2.0 * math.asin(math.sqrt(min(max(rd, 0.0), 1.0)))
    return rd


@njit(cache=True, nogil=True, inline="always")
def dist_to_rdist(d, code, p):
    if code == EUCLIDEAN:
        return d * d
    if code == MINKOWSKI:
        return d**p
    if code == HAVERSINE:
        s = math.sin(0.5 * min(d, math.pi))
        return s * s
    return d


@njit(cache=True, nogil=True, inline="always")
def node_dist_bounds(Xq, r, centroids, radius, node, code, p):
    """Lower and upper true distances from Xq[r] to any point of node.

    braycurtis and dice break the triangle inequality: no bound (0, inf).
    """
    if code == BRAYCURTIS or code == DICE:
        return 0.0, np.inf
    dc = rdist_to_dist(rdist_rows(Xq, r, centroids, node, code, p), code, p)
    rad = radius[node]
    lower = max(dc - rad - _BOUND_SLACK * (dc + rad), 0.0)
    return lower, dc + rad + _BOUND_SLACK * (dc + rad)


@njit(cache=True, nogil=True)
def build_ball_tree(data, n_nodes, code, p):
    """Ball tree on the complete binary layout of the KD-tree (children 2i+1, 2i+2).

    Each node owns a slice of ``idx``; its ball is centred on the mean of its
    points with the largest distance from there as radius. An internal node
    splits its slice at the middle along the coordinate of largest spread.
    Returns ``idx``, ``node_start``, ``node_end``, ``centroids``, ``radius``.
    """
    n, m = data.shape
    idx = np.arange(n)
    node_start = np.zeros(n_nodes, dtype=np.int64)
    node_end = np.zeros(n_nodes, dtype=np.int64)
    centroids = np.zeros((n_nodes, m))
    radius = np.zeros(n_nodes)
    lo = np.empty(m)
    hi = np.empty(m)
    total = np.empty(m)
    node_end[0] = n
    for node in range(n_nodes):
        s, e = node_start[node], node_end[node]
        lo[:] = np.inf
        hi[:] = -np.inf
        total[:] = 0.0
        # One pass for the sums and the spread, in local arrays (the
        # compiler keeps them apart from the output it must store).
        for q in range(s, e):
            row = idx[q]
            for t in range(m):
                v = data[row, t]
                total[t] += v
                lo[t] = min(lo[t], v)
                hi[t] = max(hi[t], v)
        for t in range(m):
            centroids[node, t] = total[t] / max(e - s, 1)
        far = 0.0
        if code == EUCLIDEAN:
            for q in range(s, e):
                row = idx[q]
                acc = 0.0
                for t in range(m):
                    diff = data[row, t] - centroids[node, t]
                    acc += diff * diff
                far = max(far, acc)
        else:
            for q in range(s, e):
                far = max(far, rdist_rows(centroids, node, data, idx[q], code, p))
        radius[node] = rdist_to_dist(far, code, p)
        if 2 * node + 1 < n_nodes:
            split_widest(data, idx, lo, hi, node, node_start, node_end)
    return idx, node_start, node_end, centroids, radius


