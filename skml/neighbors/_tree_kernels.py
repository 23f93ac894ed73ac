"""numba kernels of the queries shared by the KD-tree and the ball tree.

Both trees use the same node layout (a complete binary tree, children 2i+1
and 2i+2, each node a slice ``idx[node_start:node_end]`` of the points,
``sorted_data = data[idx]``) and differ only in the lower bound of a node:
a box (``kind=KD``: corners ``A = lo``, ``B = hi``) or a ball
(``kind=BALL``: centres ``A``, radii ``rad``). A query takes the tree as
one tuple ``(sorted_data, idx, node_start, node_end, A, B, rad)``
(``BinaryTree._kernel_tree``). The search is written once and compiled
once per kind (``QUERY_KNN[kind]``, ``QUERY_RADIUS[kind]``).

Distances are *reduced* (see ``_kd_tree_kernels``); the heap, the tie rule
(smaller training index wins) and the leaf scan are those of the brute
force.

If a helper imported from ``_kd_tree_kernels`` or ``_ball_tree_kernels``
changes, touch this file and ``_tree_density_kernels.py`` too (numba's cache
is keyed on the defining file only).
"""

import numpy as np
from numba import njit

from ._ball_tree_kernels import dist_to_rdist, node_dist_bounds, rdist_rows
from ._kd_tree_kernels import (
    _NO_INDEX,
    CHEBYSHEV,
    EUCLIDEAN,
    MANHATTAN,
    MINKOWSKI,
    _heap_sort,
    _max_leaf,
    _min_rdist,
    _sift_down,
)

KD, BALL = 0, 1

# Depth-first stacks: a node is pushed with at most one sibling per level
# and the trees have fewer than 64 levels.
_STACK = 2 * 64 + 2


# The distance helpers take 2-d arrays and row numbers, not row views (a view
# costs a reference-count update per call), and branch on the metric code
# once, outside their loops: a branch inside the per-coordinate loop made the
# leaf scan eight times slower.
@njit(cache=True, nogil=True, inline="always")
def _leaf_rdist(Xq, r, data, start, end, code, p, out):
    """Reduced distances from Xq[r] to data[start:end], into out[:end - start]."""
    m = Xq.shape[1]
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
    elif code == CHEBYSHEV:
        for q in range(start, end):
            acc = 0.0
            for t in range(m):
                acc = max(acc, abs(Xq[r, t] - data[q, t]))
            out[q - start] = acc
    elif code == MINKOWSKI:
        for q in range(start, end):
            acc = 0.0
            for t in range(m):
                acc += abs(Xq[r, t] - data[q, t]) ** p
            out[q - start] = acc
    else:  # the ball tree's other metrics (haversine, canberra, hamming,
        # braycurtis, the boolean ones: rdist_rows)
        for q in range(start, end):
            out[q - start] = rdist_rows(Xq, r, data, q, code, p)


@njit(cache=True, nogil=True, inline="always")
def node_min_rdist(kind, Xq, r, A, B, rad, node, code, p):
    """Reduced lower bound of the distance from Xq[r] to any point of node."""
    if kind == KD:
        return _min_rdist(Xq, r, A, B, node, code, p)
    lower, _ = node_dist_bounds(Xq, r, A, rad, node, code, p)
    return dist_to_rdist(lower, code, p)


@njit(cache=True, nogil=True, inline="always")
def push_children(stack, sp, node, n_nodes):
    """One step of the depth-first walks that open every surviving node.

    An inner node's children go on ``stack[sp:sp + 2]`` (the left one on
    top, so it pops first) and True is returned: the caller adds 2 to its
    stack size. A leaf pushes nothing and returns False. (The k-nearest
    search orders its children by bound instead.)
    """
    left = 2 * node + 1
    if left >= n_nodes:
        return False
    stack[sp] = left + 1
    stack[sp + 1] = left
    return True


@njit(cache=True, nogil=True, inline="always")
def _knn_search(kind, tree, Xq, k, code, p, row_offset, exclude_self, out_d, out_i):
    """Depth-first k-nearest search of every row of Xq (reduced distances).

    Nodes are visited nearer child first; a node is pruned when its lower
    bound exceeds the current k-th distance (ties are still visited: a
    smaller index may sit there). ``exclude_self`` skips training point
    ``row + row_offset`` (the queries are the indexed points). Results go
    to ``out_d[row]``, ``out_i[row]``, sorted by (distance, index).
    """
    sorted_data, idx, node_start, node_end, A, B, rad = tree
    n_nodes = node_start.shape[0]
    stack_node = np.empty(_STACK, dtype=np.int64)
    stack_bound = np.empty(_STACK)
    hd = np.empty(k)
    hi_ = np.empty(k, dtype=np.int64)
    leaf_d = np.empty(_max_leaf(node_start, node_end))
    for r in range(Xq.shape[0]):
        skip = r + row_offset if exclude_self else -1
        hd[:] = np.inf
        hi_[:] = _NO_INDEX
        worst = np.inf  # hd[0], kept in a register
        stack_node[0] = 0
        stack_bound[0] = 0.0  # the root is always opened (worst is inf)
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
                b_left = node_min_rdist(kind, Xq, r, A, B, rad, left, code, p)
                b_right = node_min_rdist(kind, Xq, r, A, B, rad, left + 1, code, p)
                # Push the farther child first so the nearer one pops first.
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


@njit(cache=True, nogil=True, inline="always")
def _radius_search(kind, tree, Xq, r_red, code, p, row_offset, exclude_self):
    """All points within reduced radius ``r_red[row]`` (inclusive) of each row.

    Returns CSR pieces ``indptr``, ``indices``, ``rdist`` in traversal order;
    the buffers grow by doubling.
    """
    sorted_data, idx, node_start, node_end, A, B, rad = tree
    n_nodes = node_start.shape[0]
    n_q = Xq.shape[0]
    stack = np.empty(_STACK, dtype=np.int64)
    leaf_d = np.empty(_max_leaf(node_start, node_end))
    indptr = np.zeros(n_q + 1, dtype=np.int64)
    cap = max(16, 4 * n_q)
    indices = np.empty(cap, dtype=np.int64)
    rdist = np.empty(cap)
    nnz = 0
    for r in range(n_q):
        radius = r_red[r]
        skip = r + row_offset if exclude_self else -1
        stack[0] = 0
        sp = 1
        while sp > 0:
            sp -= 1
            node = stack[sp]
            if node_min_rdist(kind, Xq, r, A, B, rad, node, code, p) > radius:
                continue
            if push_children(stack, sp, node, n_nodes):
                sp += 2
                continue
            s, e = node_start[node], node_end[node]
            _leaf_rdist(Xq, r, sorted_data, s, e, code, p, leaf_d)
            for q in range(s, e):
                d = leaf_d[q - s]
                if d <= radius and idx[q] != skip:
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


# One compiled entry point per tree: the shared search is inlined with a
# constant kind, so the compiler drops the other tree's bound (a run-time
# kind cost the ball tree's queries up to 30%).
@njit(cache=True, nogil=True)
def kd_query_knn(tree, Xq, k, code, p, row_offset, exclude_self, out_d, out_i):
    """k-nearest search of a KD-tree (see ``_knn_search``)."""
    _knn_search(KD, tree, Xq, k, code, p, row_offset, exclude_self, out_d, out_i)


@njit(cache=True, nogil=True)
def ball_query_knn(tree, Xq, k, code, p, row_offset, exclude_self, out_d, out_i):
    """k-nearest search of a ball tree (see ``_knn_search``)."""
    _knn_search(BALL, tree, Xq, k, code, p, row_offset, exclude_self, out_d, out_i)


@njit(cache=True, nogil=True)
def kd_query_radius(tree, Xq, r_red, code, p, row_offset, exclude_self):
    """Radius search of a KD-tree (see ``_radius_search``)."""
    return _radius_search(KD, tree, Xq, r_red, code, p, row_offset, exclude_self)


@njit(cache=True, nogil=True)
def ball_query_radius(tree, Xq, r_red, code, p, row_offset, exclude_self):
    """Radius search of a ball tree (see ``_radius_search``)."""
    return _radius_search(BALL, tree, Xq, r_red, code, p, row_offset, exclude_self)


QUERY_KNN = {KD: kd_query_knn, BALL: ball_query_knn}
QUERY_RADIUS = {KD: kd_query_radius, BALL: ball_query_radius}
