"""Numba kernels of agglomerative clustering along a connectivity graph.

Only clusters joined by an edge of the graph may merge. The candidate merges
wait in a binary heap keyed on ``(height, a, b)``; a merge whose clusters are
gone is skipped when it reaches the top (lazy deletion). Each cluster keeps
its neighbours in a singly linked list in one growing pool: a merge lists
the live neighbours of its two parts (the new cluster's adjacency), computes
its linkage to each and appends itself to their lists.
"""

import numpy as np
from numba import njit

from ._agglomerative_kernels import AVERAGE, COMPLETE, WARD, _distances_from

__all__ = ["closest_pair", "edge_distances", "single_linkage_edges",
           "structured_tree"]


@njit(cache=True, nogil=True, inline="always")
def _less(w1, a1, b1, w2, a2, b2):
    if w1 != w2:
        return w1 < w2
    if a1 != a2:
        return a1 < a2
    return b1 < b2


@njit(cache=True, nogil=True, inline="always")
def _swap(hw, ha, hb, i, j):
    """Swap heap entries i and j (the three arrays hold one entry)."""
    hw[i], hw[j] = hw[j], hw[i]
    ha[i], ha[j] = ha[j], ha[i]
    hb[i], hb[j] = hb[j], hb[i]


@njit(cache=True, nogil=True)
def _grown(arr, needed):
    """``arr`` itself, or a copy with room for ``needed`` entries."""
    if needed <= arr.shape[0]:
        return arr
    out = np.empty(max(needed, 2 * arr.shape[0]), dtype=arr.dtype)
    out[: arr.shape[0]] = arr
    return out


@njit(cache=True, nogil=True)
def _heap_push(hw, ha, hb, size, w, a, b):
    pos = size
    hw[pos], ha[pos], hb[pos] = w, a, b
    while pos > 0:
        up = (pos - 1) >> 1
        if not _less(hw[pos], ha[pos], hb[pos], hw[up], ha[up], hb[up]):
            break
        _swap(hw, ha, hb, pos, up)
        pos = up


@njit(cache=True, nogil=True)
def _heap_pop(hw, ha, hb, size):
    """Move the least entry to ``size - 1`` and restore the heap before it."""
    last = size - 1
    _swap(hw, ha, hb, 0, last)
    pos = 0
    while True:
        left = 2 * pos + 1
        if left >= last:
            break
        child = left
        right = left + 1
        if right < last and _less(hw[right], ha[right], hb[right],
                                  hw[left], ha[left], hb[left]):
            child = right
        if not _less(hw[child], ha[child], hb[child], hw[pos], ha[pos], hb[pos]):
            break
        _swap(hw, ha, hb, pos, child)
        pos = child


@njit(cache=True, nogil=True, inline="always")
def _ward_inertia(sums, count, a, b):
    """``|A||B|/(|A|+|B|) ||mean(A) - mean(B)||^2``, the merge's cost."""
    s = 0.0
    ca, cb = count[a], count[b]
    for f in range(sums.shape[1]):
        u = sums[a, f] / ca - sums[b, f] / cb
        s += u * u
    return s * ca * cb / (ca + cb)


@njit(cache=True, nogil=True)
def structured_tree(indptr, indices, weights, X, n_merges, linkage):
    """Merges along the graph: ``children`` (smaller id first), ``heights``, count.

    ``indptr``/``indices``/``weights`` are a symmetric CSR graph without its
    diagonal; ``weights`` are the edge distances (complete and average
    linkage), ``X`` the data (ward). Merge ``k`` forms node ``n + k``. The
    linkage to a merged cluster follows scikit-learn's structured rule: the
    maximum (complete) or size-weighted mean (average) of the two parts'
    linkages where both parts touch the neighbour, else the one that does.
    Ward's heights are ``sqrt(2 * inertia)``, its unstructured scale. Stops
    early (third output below ``n_merges``) if the graph is disconnected.
    """
    n = indptr.shape[0] - 1
    n_nodes = n + n_merges
    ward = linkage == WARD
    count = np.zeros(n_nodes, dtype=np.int64)
    count[:n] = 1
    sums = np.empty((n_nodes if ward else 0, X.shape[1]))
    if ward:
        sums[:n] = X
    # Adjacency lists: pool entries (neighbour, linkage, next entry).
    cap = indices.shape[0] + 16
    nbr = np.empty(cap, dtype=np.int64)
    val = np.empty(cap)
    nxt = np.empty(cap, dtype=np.int64)
    head = np.full(n_nodes, -1, dtype=np.int64)
    top = 0
    hcap = indices.shape[0] // 2 + 16
    hw, ha, hb = np.empty(hcap), np.empty(hcap, dtype=np.int64), np.empty(
        hcap, dtype=np.int64)
    hsize = 0
    for i in range(n):
        for p in range(indptr[i + 1] - 1, indptr[i] - 1, -1):
            j = indices[p]
            if j == i:
                continue
            w = _ward_inertia(sums, count, i, j) if ward else weights[p]
            nbr[top], val[top], nxt[top] = j, w, head[i]
            head[i] = top
            top += 1
            if j < i:
                _heap_push(hw, ha, hb, hsize, w, i, j)
                hsize += 1
    children = np.empty((n_merges, 2), dtype=np.int64)
    heights = np.empty(n_merges)
    stamp = np.full(n_nodes, -1, dtype=np.int64)
    link = np.empty(n_nodes)
    cols = np.empty(n_nodes, dtype=np.int64)
    alive = np.zeros(n_nodes, dtype=np.bool_)
    alive[:n] = True
    for k in range(n, n_nodes):
        found = False
        while hsize > 0:
            _heap_pop(hw, ha, hb, hsize)
            hsize -= 1
            if alive[ha[hsize]] and alive[hb[hsize]]:
                found = True
                break
        if not found:
            return children, heights, k - n
        w, i, j = hw[hsize], ha[hsize], hb[hsize]
        children[k - n, 0], children[k - n, 1] = min(i, j), max(i, j)
        heights[k - n] = np.sqrt(2.0 * w) if ward else w
        alive[i] = alive[j] = False
        alive[k] = True
        ci, cj = count[i], count[j]
        count[k] = ci + cj
        if ward:
            sums[k] = sums[i] + sums[j]
        m = 0
        for part in (i, j):
            e = head[part]
            while e >= 0:
                x = nbr[e]
                if alive[x] and x != k:
                    if stamp[x] != k:
                        stamp[x] = k
                        link[x] = val[e]
                        cols[m] = x
                        m += 1
                    elif linkage == COMPLETE:
                        link[x] = max(link[x], val[e])
                    elif linkage == AVERAGE:
                        link[x] = (ci * link[x] + cj * val[e]) / (ci + cj)
                e = nxt[e]
        nbr, val, nxt = _grown(nbr, top + 2 * m), _grown(val, top + 2 * m), _grown(
            nxt, top + 2 * m)
        hw, ha, hb = _grown(hw, hsize + m), _grown(ha, hsize + m), _grown(hb, hsize + m)
        for t in range(m):
            x = cols[t]
            w = _ward_inertia(sums, count, k, x) if ward else link[x]
            nbr[top], val[top], nxt[top] = x, w, head[k]
            head[k] = top
            top += 1
            nbr[top], val[top], nxt[top] = k, w, head[x]
            head[x] = top
            top += 1
            _heap_push(hw, ha, hb, hsize, w, k, x)
            hsize += 1
    return children, heights, n_merges


@njit(cache=True, nogil=True)
def edge_distances(X, indptr, indices, metric, norms):
    """The distance along each stored edge of a CSR graph."""
    out = np.empty(indices.shape[0])
    for i in range(indptr.shape[0] - 1):
        start, stop = indptr[i], indptr[i + 1]
        if stop > start:
            _distances_from(X, i, indices[start:stop], stop - start, metric, norms,
                            out[start:stop])
    return out


@njit(cache=True, nogil=True)
def closest_pair(X, rows_a, rows_b, metric, norms):
    """``(a, b, d)``: the closest ``a`` in ``rows_a`` and ``b`` in ``rows_b``."""
    buf = np.empty(rows_b.shape[0])
    best, best_a, best_b = np.inf, rows_a[0], rows_b[0]
    for a in rows_a:
        _distances_from(X, a, rows_b, rows_b.shape[0], metric, norms, buf)
        t = np.argmin(buf)
        if buf[t] < best:
            best, best_a, best_b = buf[t], a, rows_b[t]
    return best_a, best_b, best


@njit(cache=True, nogil=True)
def single_linkage_edges(rows, cols, weights, n):
    """Kruskal's algorithm: the graph's minimum spanning forest in height order.

    Single linkage along a graph is its minimum spanning tree (as without a
    graph). ``rows``/``cols``/``weights`` list each edge once, sorted by
    weight; returns the kept edges' ends and weights.
    """
    root = np.arange(n)
    a = np.empty(n - 1, dtype=np.int64)
    b = np.empty(n - 1, dtype=np.int64)
    h = np.empty(n - 1)
    m = 0
    for e in range(rows.shape[0]):
        ra, rb = rows[e], cols[e]
        while root[ra] != ra:
            root[ra] = root[root[ra]]
            ra = root[ra]
        while root[rb] != rb:
            root[rb] = root[root[rb]]
            rb = root[rb]
        if ra == rb:
            continue
        root[ra] = rb
        a[m], b[m], h[m] = rows[e], cols[e], weights[e]
        m += 1
        if m == n - 1:
            break
    return a[:m], b[:m], h[:m]
