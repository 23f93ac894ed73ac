"""numba kernels of the brute force on CSR data (notes A §5.1, issue 20).

Rows are given as the three CSR arrays ``(data, indices, indptr)`` with
sorted, unique column indices (the caller makes the format canonical). The
distance of two rows is a merge of their index lists, O(nnz_x + nnz_y),
summed by increasing column: the same terms in the same order as the dense
loop over all columns (a column where both rows are 0 adds an exact 0), so
the Euclidean re-measure gives the dense brute force's distances bitwise.
"""

import numpy as np
from numba import njit

from ._kd_tree_kernels import _heap_sort, _insert_sorted, _sift_down


@njit(cache=True, nogil=True, inline="always")
def _pair_reduced(ad, ai, a0, a1, bd, bi, b0, b1, l1):
    """``sum_t |a_t - b_t|`` (``l1``) or ``sum_t (a_t - b_t)^2`` of two sorted CSR rows.

    Callers pass ``l1`` as a constant, so each inlined copy keeps one formula.
    """
    acc = 0.0
    p, q = a0, b0
    while p < a1 and q < b1:
        if ai[p] == bi[q]:
            diff = ad[p] - bd[q]
            p += 1
            q += 1
        elif ai[p] < bi[q]:
            diff = ad[p]
            p += 1
        else:
            diff = -bd[q]
            q += 1
        acc += abs(diff) if l1 else diff * diff
    while p < a1:
        acc += abs(ad[p]) if l1 else ad[p] * ad[p]
        p += 1
    while q < b1:
        acc += abs(bd[q]) if l1 else bd[q] * bd[q]
        q += 1
    return acc


@njit(cache=True, nogil=True)
def _pair_sq(ad, ai, a0, a1, bd, bi, b0, b1):
    """``sum_t (a_t - b_t)^2`` of two sorted CSR rows."""
    return _pair_reduced(ad, ai, a0, a1, bd, bi, b0, b1, False)


@njit(cache=True, nogil=True)
def sparse_manhattan_block(qd, qi, qp, xd, xi, xp, out):
    """``out[r, j] = ||q_r - x_j||_1`` for every query row r and training row j."""
    for r in range(out.shape[0]):
        for j in range(out.shape[1]):
            out[r, j] = _pair_reduced(qd, qi, qp[r], qp[r + 1], xd, xi, xp[j],
                                      xp[j + 1], True)


@njit(cache=True, nogil=True)
def sparse_exact_euclidean_knn(qd, qi, qp, xd, xi, xp, dist, ind):
    """CSR twin of ``exact_euclidean_knn``: re-measure the k kept, re-sort."""
    k = ind.shape[1]
    for r in range(ind.shape[0]):
        for j in range(k):
            c = ind[r, j]
            d = np.sqrt(_pair_sq(qd, qi, qp[r], qp[r + 1], xd, xi, xp[c], xp[c + 1]))
            _insert_sorted(dist, ind, r, j, d, c)


@njit(cache=True, nogil=True)
def sparse_exact_euclidean_pairs(qd, qi, qp, xd, xi, xp, rows, cols):
    """``||q_rows[i] - x_cols[i]||_2`` for each pair i, by direct differences."""
    out = np.empty(rows.shape[0])
    for i in range(rows.shape[0]):
        r, c = rows[i], cols[i]
        out[i] = np.sqrt(_pair_sq(qd, qi, qp[r], qp[r + 1], xd, xi, xp[c], xp[c + 1]))
    return out


@njit(cache=True, nogil=True)
def sparse_euclidean_knn(queries, r0, r1, train_by_feature, yy, exclude_self, acc, hd,
                         hi):
    """k nearest of the CSR query rows ``r0:r1`` by an inverted index.

    ``queries`` and ``train_by_feature`` are CSR matrices as ``(data,
    indices, indptr)``; ``train_by_feature`` is the training matrix
    transposed (CSR of its columns: for each feature, the training rows that
    store it), so a query's products with every training row,
    ``acc[j] = q . x_j``, cost the entries of the columns the query stores,
    nothing for the others, and go into a dense accumulator instead of a
    sparse product's index lists. The candidates are ranked by
    ``||x_j||^2 - 2 q . x_j`` (``||q||^2`` is the same along a row) in
    bounded max-heaps ``hd[r - r0], hi[r - r0]`` (full of ``inf``), sorted at
    the end; the caller measures the k kept exactly. ``exclude_self`` skips
    training row ``r`` (the queries are the training rows); ``acc`` (one per
    thread, of length n_samples_fit) must be zero and is left zero.
    """
    qd, qi, qp = queries
    td, ti, tp = train_by_feature
    k = hd.shape[1]
    n_fit = acc.shape[0]
    for r in range(r0, r1):
        for p in range(qp[r], qp[r + 1]):
            v = qd[p]
            f = qi[p]
            for s in range(tp[f], tp[f + 1]):
                acc[ti[s]] += v * td[s]
        h_d = hd[r - r0]
        h_i = hi[r - r0]
        worst = h_d[0]
        skip = r if exclude_self else -1
        for j in range(n_fit):
            score = yy[j] - 2.0 * acc[j]
            acc[j] = 0.0
            if score < worst and j != skip:
                _sift_down(h_d, h_i, k, score, j)
                worst = h_d[0]
        _heap_sort(h_d, h_i)
