"""numba kernels of the ball tree: metrics, build, k-nearest and radius queries.

As in ``_kd_tree_kernels``, leaf scans compare *reduced* distances (no root:
``sum |x_i - y_i|^p`` for Minkowski, the haversine's ``sin²`` term), and a
node is described by a centroid and a radius in *true* distance. The lower
bound of a node is ``max(0, d(q, c) - radius)`` (triangle inequality), turned
into a reduced distance once per node. The heap, quickselect and tie rule
(smaller training index wins) are those of the KD-tree.

If a helper imported from ``_kd_tree_kernels`` changes, touch this file too
(numba's cache is keyed on the defining file only).
"""

import math

import numpy as np
from numba import njit

from ._kd_tree_kernels import _NO_INDEX, _heap_sort, _max_leaf, _nth_element, _sift_down

# Metric codes (the first four as in _kd_tree_kernels).
CHEBYSHEV, MANHATTAN, EUCLIDEAN, MINKOWSKI, HAVERSINE, CANBERRA, HAMMING = range(7)

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
        for t in range(m):
            diff = X[i, t] - Y[j, t]
            acc += diff * diff
    elif code == MANHATTAN:
        for t in range(m):
            acc += abs(X[i, t] - Y[j, t])
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
    else:  # HAMMING: the fraction of differing coordinates
        for t in range(m):
            if X[i, t] != Y[j, t]:
                acc += 1.0
        acc /= m
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
def _leaf_rdist(Xq, r, data, start, end, code, p, out):
    """Reduced distances from Xq[r] to data[start:end], into out[:end - start]."""
    m = Xq.shape[1]
    # The common metrics get their own loops (no per-coordinate branch).
    if code == EUCLIDEAN:
        for q in range(start, end):
            acc = 0.0
            for t in range(m):
                diff = Xq[r, t] - data[q, t]
                acc += diff * diff
            out[q - start] = acc
    elif code == MANHATTAN:
        for q in range(start, end):
            acc = 0.0
            for t in range(m):
                acc += abs(Xq[r, t] - data[q, t])
            out[q - start] = acc
    else:
        for q in range(start, end):
            out[q - start] = rdist_rows(Xq, r, data, q, code, p)


@njit(cache=True, nogil=True, inline="always")
def node_dist_bounds(Xq, r, centroids, radius, node, code, p):
    """Lower and upper true distances from Xq[r] to any point of node."""
    dc = rdist_to_dist(rdist_rows(Xq, r, centroids, node, code, p), code, p)
    rad = radius[node]
    lower = max(dc - rad - _BOUND_SLACK * (dc + rad), 0.0)
    return lower, dc + rad + _BOUND_SLACK * (dc + rad)


@njit(cache=True, nogil=True, inline="always")
def _min_rdist(Xq, r, centroids, radius, node, code, p):
    lower, _ = node_dist_bounds(Xq, r, centroids, radius, node, code, p)
    return dist_to_rdist(lower, code, p)


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
        left = 2 * node + 1
        if left < n_nodes:
            dim = 0
            spread = -1.0
            for t in range(m):
                if hi[t] - lo[t] > spread:
                    spread = hi[t] - lo[t]
                    dim = t
            mid = s + (e - s) // 2
            if e - s > 1:
                _nth_element(data, idx, dim, s, e, mid)
            node_start[left], node_end[left] = s, mid
            node_start[left + 1], node_end[left + 1] = mid, e
    return idx, node_start, node_end, centroids, radius


@njit(cache=True, nogil=True)
def query_knn(Xq, sorted_data, idx, node_start, node_end, centroids, radius, k, code,
              p, row_offset, exclude_self, out_d, out_i):
    """Depth-first k-nearest search of every row of Xq (reduced distances out).

    Nearer child (by its ball's lower bound) first; a node is pruned when its
    bound exceeds the current k-th distance (ties are visited: a smaller
    index may sit there).
    """
    n_nodes = node_start.shape[0]
    stack_node = np.empty(2 * 64 + 2, dtype=np.int64)
    stack_bound = np.empty(2 * 64 + 2)
    hd = np.empty(k)
    hi_ = np.empty(k, dtype=np.int64)
    leaf_d = np.empty(_max_leaf(node_start, node_end))
    for r in range(Xq.shape[0]):
        skip = r + row_offset if exclude_self else -1
        hd[:] = np.inf
        hi_[:] = _NO_INDEX
        worst = np.inf
        stack_node[0] = 0
        stack_bound[0] = 0.0
        sp = 1
        while sp > 0:
            sp -= 1
            node = stack_node[sp]
            if stack_bound[sp] > worst:
                continue
            left = 2 * node + 1
            if left >= n_nodes:
                s, e = node_start[node], node_end[node]
                _leaf_rdist(Xq, r, sorted_data, s, e, code, p, leaf_d)
                for q in range(s, e):
                    d = leaf_d[q - s]
                    if d <= worst:
                        j = idx[q]
                        if (d < worst or j < hi_[0]) and j != skip:
                            _sift_down(hd, hi_, k, d, j)
                            worst = hd[0]
            else:
                b_left = _min_rdist(Xq, r, centroids, radius, left, code, p)
                b_right = _min_rdist(Xq, r, centroids, radius, left + 1, code, p)
                if b_left <= b_right:
                    first, b_first, second, b_second = left + 1, b_right, left, b_left
                else:
                    first, b_first, second, b_second = left, b_left, left + 1, b_right
                if b_first <= worst:
                    stack_node[sp] = first
                    stack_bound[sp] = b_first
                    sp += 1
                if b_second <= worst:
                    stack_node[sp] = second
                    stack_bound[sp] = b_second
                    sp += 1
        _heap_sort(hd, hi_)
        out_d[r] = hd
        out_i[r] = hi_


@njit(cache=True, nogil=True)
def query_radius(Xq, sorted_data, idx, node_start, node_end, centroids, radius, r_red,
                 code, p, row_offset, exclude_self):
    """All points within reduced radius ``r_red[row]`` (inclusive) of each row.

    Returns CSR pieces ``indptr``, ``indices``, ``rdist`` in traversal order.
    """
    n_nodes = node_start.shape[0]
    n_q = Xq.shape[0]
    stack = np.empty(2 * 64 + 2, dtype=np.int64)
    leaf_d = np.empty(_max_leaf(node_start, node_end))
    indptr = np.zeros(n_q + 1, dtype=np.int64)
    cap = max(16, 4 * n_q)
    indices = np.empty(cap, dtype=np.int64)
    rdist = np.empty(cap)
    nnz = 0
    for r in range(n_q):
        rad = r_red[r]
        skip = r + row_offset if exclude_self else -1
        stack[0] = 0
        sp = 1
        while sp > 0:
            sp -= 1
            node = stack[sp]
            if _min_rdist(Xq, r, centroids, radius, node, code, p) > rad:
                continue
            left = 2 * node + 1
            if left < n_nodes:
                stack[sp] = left + 1
                stack[sp + 1] = left
                sp += 2
                continue
            s, e = node_start[node], node_end[node]
            _leaf_rdist(Xq, r, sorted_data, s, e, code, p, leaf_d)
            for q in range(s, e):
                d = leaf_d[q - s]
                if d <= rad and idx[q] != skip:
                    if nnz == cap:
                        cap *= 2
                        grown_i = np.empty(cap, dtype=np.int64)
                        grown_d = np.empty(cap)
                        grown_i[:nnz] = indices[:nnz]
                        grown_d[:nnz] = rdist[:nnz]
                        indices, rdist = grown_i, grown_d
                    indices[nnz] = idx[q]
                    rdist[nnz] = d
                    nnz += 1
        indptr[r + 1] = nnz
    return indptr, indices[:nnz].copy(), rdist[:nnz].copy()
