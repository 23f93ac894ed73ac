"""numba kernels of the exact searches: bounded heaps, KD-tree bounds and build.

Distances inside the kernels are *reduced*: ``sum |x_i - y_i|^p`` for a
Minkowski ``p`` (the squared distance for ``p = 2``), ``max |x_i - y_i|`` for
Chebyshev. They order points as the true distances do and cost no root; the
caller converts the few distances it returns.

Every k-nearest search keeps the k smallest ``(distance, index)`` pairs in
lexicographic order, so ties are broken by the smaller training index, the
same answer whatever order the points are visited in (brute force or tree).
The tree queries (KD-tree and ball tree alike) are in ``_tree_kernels``.

If a helper here changes, touch the kernel files that import it
(``_ball_tree_kernels``, ``_tree_kernels``, ``_tree_density_kernels``,
``_brute_kernels``, ``_sparse_kernels``, ``_lsh_kernels``): numba's cache is
keyed on the defining file only.
"""

import numpy as np
from numba import njit

# Metric codes shared with _kd_tree.py.
CHEBYSHEV, MANHATTAN, EUCLIDEAN, MINKOWSKI = 0, 1, 2, 3

_NO_INDEX = np.iinfo(np.int64).max


@njit(cache=True, nogil=True, inline="always")
def sq_euclidean_rows(X, i, Y, j):
    """``sum_t (X[i, t] - Y[j, t])^2``, summed over t in order."""
    acc = 0.0
    for t in range(X.shape[1]):
        diff = X[i, t] - Y[j, t]
        acc += diff * diff
    return acc


@njit(cache=True, nogil=True, inline="always")
def manhattan_rows(X, i, Y, j):
    """``sum_t |X[i, t] - Y[j, t]|``, summed over t in order."""
    acc = 0.0
    for t in range(X.shape[1]):
        acc += abs(X[i, t] - Y[j, t])
    return acc


@njit(cache=True, nogil=True, inline="always")
def _sift_down(hd, hi, size, d, i):
    # Place (d, i) at the root of the max-heap hd[:size] and restore the heap.
    pos = 0
    while True:
        child = 2 * pos + 1
        if child >= size:
            break
        right = child + 1
        if right < size and (
            hd[right] > hd[child] or (hd[right] == hd[child] and hi[right] > hi[child])
        ):
            child = right
        if hd[child] > d or (hd[child] == d and hi[child] > i):
            hd[pos] = hd[child]
            hi[pos] = hi[child]
            pos = child
        else:
            break
    hd[pos] = d
    hi[pos] = i


@njit(cache=True, nogil=True)
def _heap_sort(hd, hi):
    # In-place heapsort of a full max-heap into ascending (distance, index).
    for end in range(hd.shape[0] - 1, 0, -1):
        d, i = hd[end], hi[end]
        hd[end] = hd[0]
        hi[end] = hi[0]
        _sift_down(hd, hi, end, d, i)


@njit(cache=True, nogil=True)
def select_k_smallest(D, k, row_offset, exclude_self, out_d, out_i):
    """k smallest entries of each row of D, sorted by (value, column).

    ``exclude_self`` skips column ``row + row_offset`` (the query is a
    training point). Results go to ``out_d[row]``, ``out_i[row]``.
    """
    hd = np.empty(k)
    hi = np.empty(k, dtype=np.int64)
    for r in range(D.shape[0]):
        hd[:] = np.inf
        hi[:] = _NO_INDEX
        skip = r + row_offset if exclude_self else -1
        worst = np.inf  # hd[0], kept in a register for the hot comparison
        for j in range(D.shape[1]):
            d = D[r, j]
            # Columns arrive in increasing order: an equal distance never wins.
            if d < worst and j != skip:
                _sift_down(hd, hi, k, d, j)
                worst = hd[0]
        _heap_sort(hd, hi)
        out_d[r] = hd
        out_i[r] = hi


@njit(cache=True, nogil=True, inline="always")
def _insert_sorted(dist, ind, r, j, d, q):
    """Insert (d, q) into ``dist[r, :j], ind[r, :j]``, sorted by (distance, index).

    One step of an insertion sort: the entries after the place of (d, q)
    move one slot right, into slot j.
    """
    pos = j
    while pos > 0 and (dist[r, pos - 1] > d or (
            dist[r, pos - 1] == d and ind[r, pos - 1] > q)):
        dist[r, pos] = dist[r, pos - 1]
        ind[r, pos] = ind[r, pos - 1]
        pos -= 1
    dist[r, pos] = d
    ind[r, pos] = q


@njit(cache=True, nogil=True)
def exact_euclidean_knn(Xq, X, dist, ind):
    """Replace the k distances of each query by direct differences, re-sorted.

    The brute force ranks candidates with ``||x||² − 2 x·y + ||y||²``, whose
    rounding error is about ``eps (||x||² + ||y||²)``: an exact duplicate
    comes out at ~1e-8 instead of 0. The k kept neighbours are measured
    again as ``sqrt(Σ (x_t − y_t)²)``, the KD-tree's formula and order of
    summation (so both engines give the same distances), and re-sorted by
    (distance, index) with an insertion sort (k is small, the rows nearly
    sorted).
    """
    for r in range(Xq.shape[0]):
        for j in range(ind.shape[1]):
            q = ind[r, j]
            d = np.sqrt(sq_euclidean_rows(Xq, r, X, q))
            _insert_sorted(dist, ind, r, j, d, q)


@njit(cache=True, nogil=True)
def exact_euclidean_pairs(Xq, X, rows, cols):
    """``sqrt(Σ (Xq[rows[i]] − X[cols[i]])²)`` for each pair i (as the KD-tree)."""
    out = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        out[i] = np.sqrt(sq_euclidean_rows(Xq, rows[i], X, cols[i]))
    return out


@njit(cache=True, nogil=True, inline="always")
def _min_rdist(X, i, lo, hi, node, code, p):
    # Reduced distance from X[i] to the box of node (0 inside). Branch-free
    # gap: at most one of the two terms is positive.
    acc = 0.0
    m = X.shape[1]
    if code == EUCLIDEAN:
        for t in range(m):
            gap = max(lo[node, t] - X[i, t], 0.0) + max(X[i, t] - hi[node, t], 0.0)
            acc += gap * gap
    elif code == MANHATTAN:
        for t in range(m):
            acc += max(lo[node, t] - X[i, t], 0.0) + max(X[i, t] - hi[node, t], 0.0)
    elif code == CHEBYSHEV:
        for t in range(m):
            gap = max(lo[node, t] - X[i, t], 0.0) + max(X[i, t] - hi[node, t], 0.0)
            acc = max(acc, gap)
    else:
        for t in range(m):
            gap = max(lo[node, t] - X[i, t], 0.0) + max(X[i, t] - hi[node, t], 0.0)
            acc += gap**p
    return acc


@njit(cache=True, nogil=True)
def _nth_element(data, idx, dim, start, end, nth):
    # Quickselect (Hoare partition): idx[nth] gets the point of rank nth
    # along dim, smaller ones before it and larger ones after.
    left, right = start, end - 1
    while left < right:
        pivot = data[idx[(left + right) // 2], dim]
        i, j = left, right
        while i <= j:
            while data[idx[i], dim] < pivot:
                i += 1
            while data[idx[j], dim] > pivot:
                j -= 1
            if i <= j:
                tmp = idx[i]
                idx[i] = idx[j]
                idx[j] = tmp
                i += 1
                j -= 1
        if nth <= j:
            right = j
        elif nth >= i:
            left = i
        else:
            break


@njit(cache=True, nogil=True, inline="always")
def split_widest(data, idx, lo, hi, node, node_start, node_end):
    """Split ``node``'s slice at its middle along the coordinate of largest spread.

    ``lo``, ``hi`` bound the node's points; the halves become the slices of
    its children ``2 node + 1`` and ``2 node + 2`` (the trees' layout).
    """
    s, e = node_start[node], node_end[node]
    dim = 0
    spread = -1.0
    for t in range(lo.shape[0]):
        if hi[t] - lo[t] > spread:
            spread = hi[t] - lo[t]
            dim = t
    mid = s + (e - s) // 2
    if e - s > 1:
        _nth_element(data, idx, dim, s, e, mid)
    left = 2 * node + 1
    node_start[left], node_end[left] = s, mid
    node_start[left + 1], node_end[left + 1] = mid, e


@njit(cache=True, nogil=True)
def build_tree(data, n_nodes):
    """Median-split KD-tree on a complete binary layout (children 2i+1, 2i+2).

    Returns ``idx`` (a permutation of the points, each node owning a slice),
    ``node_start``, ``node_end`` and the nodes' bounding boxes ``lo``, ``hi``.
    Each internal node splits its slice at the middle along the dimension of
    largest spread, found from its bounding box.
    """
    n, m = data.shape
    idx = np.arange(n)
    node_start = np.zeros(n_nodes, dtype=np.int64)
    node_end = np.zeros(n_nodes, dtype=np.int64)
    lo = np.empty((n_nodes, m))
    hi = np.empty((n_nodes, m))
    node_end[0] = n
    for node in range(n_nodes):
        s, e = node_start[node], node_end[node]
        for t in range(m):
            lo[node, t] = np.inf
            hi[node, t] = -np.inf
        for q in range(s, e):
            row = data[idx[q]]
            for t in range(m):
                v = row[t]
                if v < lo[node, t]:
                    lo[node, t] = v
                if v > hi[node, t]:
                    hi[node, t] = v
        if 2 * node + 1 < n_nodes:
            split_widest(data, idx, lo[node], hi[node], node, node_start, node_end)
    return idx, node_start, node_end, lo, hi


@njit(cache=True, nogil=True)
def _max_leaf(node_start, node_end):
    n_nodes = node_start.shape[0]
    largest = 1
    for node in range(n_nodes // 2, n_nodes):
        largest = max(largest, node_end[node] - node_start[node])
    return largest


