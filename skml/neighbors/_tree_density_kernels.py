"""numba kernels of the trees' kernel density and two-point correlation.

Both walk a KD-tree (``kind=KD``: node boxes ``A=lo``, ``B=hi``) or a ball
tree (``kind=BALL``: centroids ``A``, radii ``rad``) with the same node
layout, taken as one tuple ``tree = (sorted_data, idx, node_start,
node_end, A, B, rad)`` as the queries of ``_tree_kernels`` take it
(``BinaryTree._kernel_tree``). A node whose points all lie within ``[d_min, d_max]`` of the query
is settled without visiting its points when the bounds decide:

* kernel density: the node's sum lies in ``n [K(d_max), K(d_min)]``; when
  that interval is narrow enough (see :func:`kernel_density`) the midpoint is
  taken, else the node is opened;
* two-point correlation: radii below ``d_min`` get nothing from the node,
  radii at or above ``d_max`` get all its points; only the radii in between
  descend.

If a helper imported from the tree kernel modules changes, touch this file.
"""

import math

import numpy as np
from numba import njit

from ._ball_tree_kernels import dist_to_rdist, node_dist_bounds, rdist_to_dist
from ._kd_tree_kernels import CHEBYSHEV, EUCLIDEAN, MANHATTAN, _max_leaf, _min_rdist
from ._tree_kernels import BALL, KD, _leaf_rdist, push_children
GAUSSIAN, TOPHAT, EPANECHNIKOV, EXPONENTIAL, LINEAR, COSINE = range(6)


@njit(cache=True, nogil=True, inline="always")
def _kd_max_rdist(X, i, lo, hi, node, code, p):
    # Reduced distance from X[i] to the farthest corner of node's box.
    acc = 0.0
    for t in range(X.shape[1]):
        gap = max(abs(X[i, t] - lo[node, t]), abs(X[i, t] - hi[node, t]))
        if code == EUCLIDEAN:
            acc += gap * gap
        elif code == MANHATTAN:
            acc += gap
        elif code == CHEBYSHEV:
            acc = max(acc, gap)
        else:
            acc += gap**p
    return acc


@njit(cache=True, nogil=True, inline="always")
def _node_rdist_bounds(kind, Xq, r, A, B, rad, node, code, p):
    """Reduced lower and upper distances from Xq[r] to the points of node."""
    if kind == KD:
        return (_min_rdist(Xq, r, A, B, node, code, p),
                _kd_max_rdist(Xq, r, A, B, node, code, p))
    lower, upper = node_dist_bounds(Xq, r, A, rad, node, code, p)
    return dist_to_rdist(lower, code, p), dist_to_rdist(upper, code, p)


@njit(cache=True, nogil=True, inline="always")
def _kernel(d, h, kcode, shift):
    """Unnormalised kernel at distance d, times exp(shift) (shift: see caller)."""
    u = d / h
    if kcode == GAUSSIAN:
        return math.exp(shift - 0.5 * u * u)
    if kcode == EXPONENTIAL:
        return math.exp(shift - u)
    if u >= 1.0:
        return 0.0
    if kcode == TOPHAT:
        return 1.0
    if kcode == EPANECHNIKOV:
        return 1.0 - u * u
    if kcode == LINEAR:
        return 1.0 - u
    return math.cos(0.5 * math.pi * u)


@njit(cache=True, nogil=True)
def kernel_density(kind, tree, Xq, code, p, h, kcode, shift, atol_u, rtol, out):
    """``out[r] = sum_j K(d(Xq[r], x_j) / h) exp(shift[r])`` within tolerance.

    ``atol_u[r]`` is the absolute tolerance in the same (shifted,
    unnormalised) units. A node of n points whose per-point kernel values lie
    in ``[k_lo, k_hi]`` is replaced by ``n (k_lo + k_hi) / 2`` when
    ``k_hi - k_lo <= 2 (atol_u / N + rtol k_lo)``: its error is then at most
    ``n atol_u / N + rtol n k_lo``, and over all such nodes at most
    ``atol_u + rtol * result`` (the returned sum is at least the sum of the
    nodes' ``n k_lo``). With ``atol = rtol = 0`` only nodes of constant kernel
    value (all out of a compact kernel's support, or all inside the tophat)
    are settled without visiting their points.
    """
    sorted_data, _, node_start, node_end, A, B, rad = tree
    n_nodes = node_start.shape[0]
    n_total = node_end[0] - node_start[0]
    stack = np.empty(2 * 64 + 2, dtype=np.int64)
    leaf_d = np.empty(_max_leaf(node_start, node_end))
    for r in range(Xq.shape[0]):
        tol_point = atol_u[r] / n_total
        total = 0.0
        stack[0] = 0
        sp = 1
        while sp > 0:
            sp -= 1
            node = stack[sp]
            lo_r, hi_r = _node_rdist_bounds(kind, Xq, r, A, B, rad, node, code, p)
            k_hi = _kernel(rdist_to_dist(lo_r, code, p), h, kcode, shift[r])
            if k_hi == 0.0:
                continue
            k_lo = _kernel(rdist_to_dist(hi_r, code, p), h, kcode, shift[r])
            s, e = node_start[node], node_end[node]
            if k_hi - k_lo <= 2.0 * (tol_point + rtol * k_lo):
                total += (e - s) * 0.5 * (k_lo + k_hi)
                continue
            if push_children(stack, sp, node, n_nodes):
                sp += 2
                continue
            _leaf_rdist(Xq, r, sorted_data, s, e, code, p, leaf_d)
            for q in range(e - s):
                total += _kernel(rdist_to_dist(leaf_d[q], code, p), h, kcode, shift[r])
        out[r] = total


@njit(cache=True, nogil=True)
def two_point_counts(kind, tree, Xq, code, p, r_red, counts):
    """``counts[t] += #{(i, j): d(Xq[i], x_j) <= r[t]}``, ``r_red`` ascending."""
    sorted_data, _, node_start, node_end, A, B, rad = tree
    n_nodes = node_start.shape[0]
    n_r = r_red.shape[0]
    stack = np.empty((2 * 64 + 2, 3), dtype=np.int64)
    leaf_d = np.empty(_max_leaf(node_start, node_end))
    for r in range(Xq.shape[0]):
        stack[0, 0], stack[0, 1], stack[0, 2] = 0, 0, n_r
        sp = 1
        while sp > 0:
            sp -= 1
            node, ilo, ihi = stack[sp, 0], stack[sp, 1], stack[sp, 2]
            lo_r, hi_r = _node_rdist_bounds(kind, Xq, r, A, B, rad, node, code, p)
            while ilo < ihi and r_red[ilo] < lo_r:
                ilo += 1
            s, e = node_start[node], node_end[node]
            j = ihi
            while j > ilo and r_red[j - 1] >= hi_r:
                j -= 1
            for t in range(j, ihi):
                counts[t] += e - s
            ihi = j
            if ilo >= ihi:
                continue
            left = 2 * node + 1
            if left < n_nodes:
                stack[sp, 0], stack[sp, 1], stack[sp, 2] = left + 1, ilo, ihi
                stack[sp + 1, 0], stack[sp + 1, 1], stack[sp + 1, 2] = left, ilo, ihi
                sp += 2
                continue
            _leaf_rdist(Xq, r, sorted_data, s, e, code, p, leaf_d)
            for q in range(e - s):
                d = leaf_d[q]
                for t in range(ilo, ihi):
                    if d <= r_red[t]:
                        counts[t] += 1

