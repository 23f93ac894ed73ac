"""numba kernels of Barnes-Hut t-SNE: the space-partitioning tree and the
repulsive forces summed over it (van der Maaten 2014; notes A §9.3).

The tree is a 2^d-ary tree over the embedding (a binary tree for d = 1, a
quad-tree for d = 2, an oct-tree for d = 3): each cell is a cube split at its
centre into 2^d children. It is stored flat, in depth-first preorder, so the
subtree of node ``k`` is the contiguous run ``k .. skip[k] - 1``. A traversal
is then a single loop without a stack: descend with ``k + 1``, jump over a
subtree with ``skip[k]``.

Per node: the number of points, their centre of mass and the squared width
of the cell. A cell whose points would all fall into one child is not
stored; it is replaced by that child (the walk goes down until the points
separate), so a chain of single-child cells costs no nodes and a tree has at
most ``2 n`` of them. Points closer than 2^-50 of the root's width (duplicates)
share a leaf.

Repulsion of point i (the Barnes-Hut criterion with ``theta = angle``): a
cell of width ``r`` at distance ``D`` from i (to its centre of mass) with
``r^2 < theta^2 D^2`` counts as ``N_cell`` points at its centre of mass,

    Z_i += N_cell w,   F_i += N_cell w^2 (y_i - y_cell),   w = 1 / (1 + D^2),

otherwise its children are visited; a leaf that fails the test is summed
point by point (i itself skipped). With ``theta = 0`` no cell is summarised
and the sums are the exact ones.
"""

import numpy as np
from numba import njit

# Halvings of the root cell before points are taken as coincident: 2^-50 of
# the embedding's width is at the resolution of float64 coordinates.
MAX_DEPTH = 50


@njit(cache=True, nogil=True)
def _grow(a, size):
    out = np.empty((size,) + a.shape[1:], dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True, nogil=True)
def build_tree(Y, leaf_size):
    """The flat tree of the points ``Y`` (n, d), d in 1..3.

    Returns ``(Ys, order, com, count, width2, skip, start, end, is_leaf)``:
    ``Ys`` the points in tree order (``Ys[p] = Y[order[p]]``), and per node
    the centre of mass, the number of points, the squared cell width, the
    index after its subtree, its points ``start .. end - 1`` in ``Ys`` and
    whether it is a leaf. A cell holding at most ``leaf_size`` points is a
    leaf; a leaf with one point has width 0 (a point has no extent: it is
    always summarised as itself, which is exact).
    """
    n, d = Y.shape
    n_child = 1 << d
    order = np.arange(n)
    codes = np.empty(n, dtype=np.int64)
    buffer = np.empty(n, dtype=np.int64)
    counts = np.zeros(n_child, dtype=np.int64)
    offsets = np.zeros(n_child + 1, dtype=np.int64)

    cap = 2 * n + 16
    com = np.zeros((cap, d))
    count = np.zeros(cap, dtype=np.int64)
    width2 = np.zeros(cap)
    parent = np.zeros(cap, dtype=np.int64)
    start = np.zeros(cap, dtype=np.int64)
    end = np.zeros(cap, dtype=np.int64)
    is_leaf = np.zeros(cap, dtype=np.bool_)

    # Root cube: the bounding box's longest side, a hair wider so that the
    # maxima fall strictly inside.
    lo = np.empty(d)
    hi = np.empty(d)
    for c in range(d):
        lo[c] = Y[0, c]
        hi[c] = Y[0, c]
    for i in range(n):
        for c in range(d):
            v = Y[i, c]
            if v < lo[c]:
                lo[c] = v
            if v > hi[c]:
                hi[c] = v
    half = 0.0
    for c in range(d):
        half = max(half, 0.5 * (hi[c] - lo[c]))
    half = half * (1.0 + 1e-9) + 1e-12

    # Explicit stack of cells to visit: (start, end, parent, depth, centre,
    # half-width). Pushed children are at most 2^d - 1 per level deeper.
    stack_cap = n_child * (MAX_DEPTH + 2)
    st_start = np.empty(stack_cap, dtype=np.int64)
    st_end = np.empty(stack_cap, dtype=np.int64)
    st_parent = np.empty(stack_cap, dtype=np.int64)
    st_depth = np.empty(stack_cap, dtype=np.int64)
    st_half = np.empty(stack_cap)
    st_centre = np.empty((stack_cap, d))
    top = 0
    st_start[0] = 0
    st_end[0] = n
    st_parent[0] = -1
    st_depth[0] = 0
    st_half[0] = half
    for c in range(d):
        st_centre[0, c] = 0.5 * (lo[c] + hi[c])
    top = 1
    centre = np.empty(d)
    n_nodes = 0
    while top > 0:
        top -= 1
        s = st_start[top]
        e = st_end[top]
        par = st_parent[top]
        depth = st_depth[top]
        h = st_half[top]
        for c in range(d):
            centre[c] = st_centre[top, c]
        m = e - s
        leaf = True
        # Descend while all points fall into one child (no node stored).
        while m > leaf_size and depth < MAX_DEPTH:
            for k in range(n_child):
                counts[k] = 0
            for p in range(s, e):
                i = order[p]
                code = 0
                for c in range(d):
                    if Y[i, c] > centre[c]:
                        code |= 1 << c
                codes[p] = code
                counts[code] += 1
            only = -1
            for k in range(n_child):
                if counts[k] == m:
                    only = k
            h *= 0.5
            depth += 1
            if only < 0:
                leaf = False
                break
            for c in range(d):
                if only & (1 << c):
                    centre[c] += h
                else:
                    centre[c] -= h
        node = n_nodes
        n_nodes += 1
        if n_nodes > cap:
            cap = 2 * cap
            com = _grow(com, cap)
            count = _grow(count, cap)
            width2 = _grow(width2, cap)
            parent = _grow(parent, cap)
            start = _grow(start, cap)
            end = _grow(end, cap)
            is_leaf = _grow(is_leaf, cap)
        count[node] = m
        parent[node] = par
        start[node] = s
        end[node] = e
        is_leaf[node] = leaf
        for c in range(d):
            com[node, c] = 0.0
        for p in range(s, e):
            i = order[p]
            for c in range(d):
                com[node, c] += Y[i, c]
        for c in range(d):
            com[node, c] /= m
        if leaf:
            # h is the half-width of the leaf's cell (of the last child the
            # descent moved into, when the depth limit stopped it).
            width2[node] = 0.0 if m == 1 else (4.0 * h * h)
            continue
        # Split: h has been halved, so the cell's width is 4 h.
        width2[node] = 16.0 * h * h
        offsets[0] = s
        for k in range(n_child):
            offsets[k + 1] = offsets[k] + counts[k]
        for k in range(n_child):
            counts[k] = offsets[k]
        for p in range(s, e):
            k = codes[p]
            buffer[counts[k]] = order[p]
            counts[k] += 1
        for p in range(s, e):
            order[p] = buffer[p]
        # Reverse order, so that child 0 is popped (and numbered) first.
        for k in range(n_child - 1, -1, -1):
            if offsets[k + 1] > offsets[k]:
                st_start[top] = offsets[k]
                st_end[top] = offsets[k + 1]
                st_parent[top] = node
                st_depth[top] = depth
                st_half[top] = h
                for c in range(d):
                    st_centre[top, c] = centre[c] + (h if k & (1 << c) else -h)
                top += 1
    # skip[k] = k + size of k's subtree (children follow their parents).
    skip = np.ones(n_nodes, dtype=np.int64)
    for k in range(n_nodes - 1, 0, -1):
        skip[parent[k]] += skip[k]
    for k in range(n_nodes):
        skip[k] += k
    Ys = np.empty((n, d))
    for p in range(n):
        for c in range(d):
            Ys[p, c] = Y[order[p], c]
    return (Ys, order, com[:n_nodes].copy(), count[:n_nodes].copy(),
            width2[:n_nodes].copy(), skip, start[:n_nodes].copy(),
            end[:n_nodes].copy(), is_leaf[:n_nodes].copy())


@njit(cache=True, nogil=True)
def repulsive_forces(tree, theta2, p0, p1, rep, z_rows):
    """Barnes-Hut sums for the points ``Ys[p0:p1]`` (tree order) of ``tree``,
    the tuple :func:`build_tree` returns.

    ``rep[order[p]] = sum_{j != i} w_ij^2 (y_i - y_j)`` and
    ``z_rows[order[p]] = sum_{j != i} w_ij`` with i = order[p], approximated
    with the criterion ``width^2 < theta2 * dist^2``. The caller sums
    ``z_rows`` in one fixed order, so Z does not depend on how the points
    were split over threads (a fit amplifies a last-bit difference). Points are visited
    in tree order: neighbours in space walk the same cells one after the
    other, which keeps those cells in cache.
    """
    Ys, order, com, count, width2, skip, start, end, is_leaf = tree
    n, d = Ys.shape
    n_nodes = skip.shape[0]
    if d == 2:
        for p in range(p0, p1):
            y0 = Ys[p, 0]
            y1 = Ys[p, 1]
            f0 = 0.0
            f1 = 0.0
            z = 0.0
            k = 0
            while k < n_nodes:
                d0 = y0 - com[k, 0]
                d1 = y1 - com[k, 1]
                dist2 = d0 * d0 + d1 * d1
                if width2[k] < theta2 * dist2 or (count[k] == 1 and start[k] != p):
                    w = 1.0 / (1.0 + dist2)
                    cw = count[k] * w
                    z += cw
                    cw *= w
                    f0 += cw * d0
                    f1 += cw * d1
                    k = skip[k]
                elif is_leaf[k]:
                    for q in range(start[k], end[k]):
                        if q == p:
                            continue
                        e0 = y0 - Ys[q, 0]
                        e1 = y1 - Ys[q, 1]
                        w = 1.0 / (1.0 + e0 * e0 + e1 * e1)
                        z += w
                        w *= w
                        f0 += w * e0
                        f1 += w * e1
                    k = skip[k]
                else:
                    k += 1
            i = order[p]
            rep[i, 0] = f0
            rep[i, 1] = f1
            z_rows[i] = z
        return
    f = np.empty(d)
    diff = np.empty(d)
    for p in range(p0, p1):
        for c in range(d):
            f[c] = 0.0
        z = 0.0
        k = 0
        while k < n_nodes:
            dist2 = 0.0
            for c in range(d):
                diff[c] = Ys[p, c] - com[k, c]
                dist2 += diff[c] * diff[c]
            if width2[k] < theta2 * dist2 or (count[k] == 1 and start[k] != p):
                w = 1.0 / (1.0 + dist2)
                cw = count[k] * w
                z += cw
                cw *= w
                for c in range(d):
                    f[c] += cw * diff[c]
                k = skip[k]
            elif is_leaf[k]:
                for q in range(start[k], end[k]):
                    if q == p:
                        continue
                    dist2 = 0.0
                    for c in range(d):
                        diff[c] = Ys[p, c] - Ys[q, c]
                        dist2 += diff[c] * diff[c]
                    w = 1.0 / (1.0 + dist2)
                    z += w
                    w *= w
                    for c in range(d):
                        f[c] += w * diff[c]
                k = skip[k]
            else:
                k += 1
        i = order[p]
        for c in range(d):
            rep[i, c] = f[c]
        z_rows[i] = z
