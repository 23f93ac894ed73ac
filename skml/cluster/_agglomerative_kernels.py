"""Numba kernels of agglomerative clustering: distances, NN-chain, Prim, labels.

The condensed distance vector holds ``d(i, j)`` for ``i < j`` row by row, as
:func:`scipy.spatial.distance.pdist` lays it out, at
``i * n - i * (i + 1) // 2 + j - i - 1``: row ``i`` is contiguous, so the
scan of one cluster's neighbours reads one run of memory and one strided
column.

Linkage codes: 0 ward (on squared euclidean distances), 1 complete, 2
average, 3 single. Metric codes: 0 squared euclidean, 1 euclidean, 2
manhattan, 3 cosine (1 - cosine similarity).
"""

import numpy as np
from numba import njit

WARD, COMPLETE, AVERAGE, SINGLE = 0, 1, 2, 3
SQEUCLIDEAN, EUCLIDEAN, MANHATTAN, COSINE = 0, 1, 2, 3


@njit(cache=True, nogil=True, inline="always")
def _pair_index(n, i, j):
    # i < j
    return i * n - (i * (i + 1)) // 2 + j - i - 1


@njit(cache=True, nogil=True)
def _distances_from(X, i, cols, m, metric, norms, out):
    """``out[t] = d(X[i], X[cols[t]])`` for ``t < m``.

    One loop per metric: a branch on the metric inside the loop over pairs
    cost twice the time of the loop itself.
    """
    d = X.shape[1]
    xi = X[i]
    if metric == MANHATTAN:
        for t in range(m):
            xj = X[cols[t]]
            s = 0.0
            for f in range(d):
                s += abs(xi[f] - xj[f])
            out[t] = s
    elif metric == COSINE:
        for t in range(m):
            j = cols[t]
            xj = X[j]
            s = 0.0
            for f in range(d):
                s += xi[f] * xj[f]
            out[t] = 1.0 - s / (norms[i] * norms[j])
    else:
        for t in range(m):
            xj = X[cols[t]]
            s = 0.0
            for f in range(d):
                u = xi[f] - xj[f]
                s += u * u
            out[t] = np.sqrt(s) if metric == EUCLIDEAN else s


@njit(cache=True, nogil=True)
def condensed_distances_rows(X, metric, norms, start, stop, out):
    """Fill the rows ``start:stop`` of the condensed distances of ``X``."""
    n = X.shape[0]
    cols = np.arange(n)
    for i in range(start, min(stop, n - 1)):
        base = _pair_index(n, i, i + 1)
        _distances_from(X, i, cols[i + 1:], n - i - 1, metric, norms,
                        out[base:base + n - i - 1])


@njit(cache=True, nogil=True)
def nn_chain(D, n, linkage):
    """Merges of ward/complete/average linkage by the nearest-neighbour chain.

    ``D`` (condensed, overwritten) holds the dissimilarities, squared
    euclidean ones for ward. Returns ``(a, b, height, size)`` per merge in
    the order found (not sorted by height). A merged cluster lives on in the
    larger of its two slots; a chain's next link is the strictly nearest
    active cluster, lowest slot first on ties, except that the previous link
    wins a tie, which is what makes every chain end in a reciprocal pair.
    """
    size = np.ones(n, dtype=np.int64)
    # Active slots as a doubly linked list, so scans skip merged slots.
    nxt = np.empty(n + 1, dtype=np.int64)
    prv = np.empty(n + 1, dtype=np.int64)
    for i in range(n):
        nxt[i] = i + 1
        prv[i] = i - 1
    head = 0
    chain = np.empty(n, dtype=np.int64)
    length = 0
    out_a = np.empty(n - 1, dtype=np.int64)
    out_b = np.empty(n - 1, dtype=np.int64)
    out_h = np.empty(n - 1, dtype=np.float64)
    out_s = np.empty(n - 1, dtype=np.int64)
    for step in range(n - 1):
        if length == 0:
            chain[0] = head
            length = 1
        while True:
            x = chain[length - 1]
            y = -1
            best = np.inf
            if length > 1:
                y = chain[length - 2]
                best = D[_pair_index(n, min(x, y), max(x, y))]
            i = head
            while i < x:
                v = D[_pair_index(n, i, x)]
                if v < best:
                    best = v
                    y = i
                i = nxt[i]
            i = nxt[x]
            base = _pair_index(n, x, x + 1) - x - 1 if x + 1 < n else 0
            while i < n:
                v = D[base + i]
                if v < best:
                    best = v
                    y = i
                i = nxt[i]
            if length > 1 and y == chain[length - 2]:
                break
            chain[length] = y
            length += 1
        length -= 2
        if x > y:
            x, y = y, x
        nx, ny = size[x], size[y]
        out_a[step], out_b[step], out_h[step] = x, y, best
        out_s[step] = nx + ny
        # Lance-Williams: the merged cluster replaces y; x leaves.
        k = head
        while k < n:
            if k != x and k != y:
                ix = _pair_index(n, min(k, x), max(k, x))
                iy = _pair_index(n, min(k, y), max(k, y))
                dkx, dky = D[ix], D[iy]
                if linkage == WARD:
                    nk = size[k]
                    D[iy] = ((nk + nx) * dkx + (nk + ny) * dky - nk * best) / (
                        nx + ny + nk)
                elif linkage == COMPLETE:
                    D[iy] = max(dkx, dky)
                elif linkage == AVERAGE:
                    D[iy] = (nx * dkx + ny * dky) / (nx + ny)
                else:
                    D[iy] = min(dkx, dky)
            k = nxt[k]
        size[y] = nx + ny
        size[x] = 0
        if prv[x] >= 0:
            nxt[prv[x]] = nxt[x]
        else:
            head = nxt[x]
        if nxt[x] < n:
            prv[nxt[x]] = prv[x]
    return out_a, out_b, out_h, out_s


@njit(cache=True, nogil=True)
def _prim(X, D, n, metric, norms):
    """Prim's minimum spanning tree of the complete graph on ``n`` vertices.

    Weights are read from the condensed ``D`` when it is not empty, else
    computed from the rows of ``X`` on the fly (memory stays O(n)). Returns
    the edges ``(parent, child, weight)`` in the order the tree grew; the
    vertex added next is the nearest one, the lowest id on ties.
    """
    best = np.full(n, np.inf)
    parent = np.zeros(n, dtype=np.int64)
    # Vertices outside the tree in increasing order: removing one shifts the
    # tail (a memmove), which keeps the scans sequential and ties simple.
    outside = np.arange(1, n)
    dist = np.empty(n)
    m = n - 1
    current = 0
    from_points = D.size == 0
    out_a = np.empty(n - 1, dtype=np.int64)
    out_b = np.empty(n - 1, dtype=np.int64)
    out_h = np.empty(n - 1, dtype=np.float64)
    for step in range(n - 1):
        if from_points:
            _distances_from(X, current, outside, m, metric, norms, dist)
        else:
            for t in range(m):
                j = outside[t]
                dist[t] = D[_pair_index(n, min(current, j), max(current, j))]
        pick = 0
        pick_value = np.inf
        for t in range(m):
            j = outside[t]
            v = best[j]
            if dist[t] < v:
                v = dist[t]
                best[j] = v
                parent[j] = current
            if v < pick_value:
                pick_value = v
                pick = t
        j = outside[pick]
        out_a[step], out_b[step], out_h[step] = parent[j], j, best[j]
        m -= 1
        outside[pick:m] = outside[pick + 1:m + 1]
        current = j
    return out_a, out_b, out_h


def prim_points(X, metric, norms):
    """Minimum spanning tree of the rows of ``X`` (distances on the fly)."""
    return _prim(X, np.empty(0), X.shape[0], metric, norms)


def prim_condensed(D, n):
    """Minimum spanning tree on the condensed distances ``D``."""
    return _prim(np.empty((0, 0)), D, n, 0, np.empty(0))


@njit(cache=True, nogil=True)
def _find(root, i):
    while root[i] != i:
        root[i] = root[root[i]]
        i = root[i]
    return i


@njit(cache=True, nogil=True)
def label_merges(a, b, n):
    """Node ids of merges given in height order (union-find).

    Merge ``k`` of the points' clusters containing ``a[k]`` and ``b[k]``
    forms node ``n + k``; returns the children (smaller id first) and the
    size of each node.
    """
    root = np.arange(2 * n - 1)
    node = np.arange(2 * n - 1)  # node id of each union-find root
    count = np.ones(2 * n - 1, dtype=np.int64)
    children = np.empty((n - 1, 2), dtype=np.int64)
    sizes = np.empty(n - 1, dtype=np.int64)
    for k in range(n - 1):
        ra, rb = _find(root, a[k]), _find(root, b[k])
        u, v = node[ra], node[rb]
        if u > v:
            u, v = v, u
        children[k, 0], children[k, 1] = u, v
        root[ra] = rb
        node[rb] = n + k
        count[rb] += count[ra]
        sizes[k] = count[rb]
    return children, sizes


@njit(cache=True, nogil=True)
def cut_labels(children, n, n_clusters):
    """Labels of the ``n_clusters`` clusters left by undoing the last merges.

    Clusters are numbered in the order of their first sample.
    """
    root = np.arange(n)
    # A node stands for any of its leaves in the union-find over samples.
    leaf = np.empty(2 * n - 1, dtype=np.int64)
    for i in range(n):
        leaf[i] = i
    # children may stop early (n - n_clusters merges, structured clustering).
    for k in range(children.shape[0]):
        leaf[n + k] = leaf[children[k, 0]]
    for k in range(n - n_clusters):
        ra = _find(root, leaf[children[k, 0]])
        rb = _find(root, leaf[children[k, 1]])
        root[ra] = rb
    labels = np.empty(n, dtype=np.int64)
    number = np.full(n, -1, dtype=np.int64)
    next_label = 0
    for i in range(n):
        r = _find(root, i)
        if number[r] < 0:
            number[r] = next_label
            next_label += 1
        labels[i] = number[r]
    return labels
