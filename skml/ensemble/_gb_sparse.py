"""Sparse input for gradient boosting: CSC binning and CSR prediction.

Histogram mode bins every feature once (:func:`skml.tree._hist_kernels.bin_columns`
for dense X). For a CSC matrix the same edges and codes come from each
column's stored values alone: the implicit zeros (and the explicit ones,
which are treated alike) are one run of equal values in the sorted column,
so the percentiles and distinct values are read from the sorted non-zeros
and the count of zeros, never from a dense column; every zero gets the one
code of 0.0 and only the non-zeros are searched. Work and float memory are
proportional to the stored values; the output codes are the usual
``n x p`` uint8 matrix the histogram trees read.

Prediction on CSR rows scatters one row at a time into a dense buffer and
walks every tree (as :func:`skml.tree._packed.apply_packed_csr` does), adding
the shrunk leaf values in tree order, so each row's sum is the same
floating-point sum as the dense path's.
"""

import numpy as np
from numba import njit

# numba's on-disk cache of a kernel is keyed on the file that defines it, not
# on the kernels it calls: after a change to skml/tree/_packed.py's _leaf,
# change this file too (this comment will do).
from ..tree._packed import _leaf

__all__ = ["bin_csc", "sum_leaf_values_csr"]


@njit(cache=True, nogil=True)
def _sorted_value(neg, pos, n_neg, n_zero, k):
    """The ``k``-th value of the sorted column: negatives, zeros, positives."""
    if k < n_neg:
        return neg[k]
    if k < n_neg + n_zero:
        return 0.0
    return pos[k - n_neg - n_zero]


@njit(cache=True, nogil=True)
def _column_edges(neg, pos, n_zero, quantiles, missing_bin, out):
    """Bin edges of one column (as ``bin_columns``: the midpoints of the
    distinct values when they fit in ``missing_bin`` bins, else the unique
    midpoint percentiles); writes them to ``out`` and returns their number."""
    n_neg = neg.shape[0]
    n = n_neg + n_zero + pos.shape[0]
    if n == 0:
        return 0
    # Distinct values in increasing order.
    distinct = np.empty(n_neg + pos.shape[0] + 1)
    nd = 0
    for k in range(n_neg):
        if nd == 0 or neg[k] != distinct[nd - 1]:
            distinct[nd] = neg[k]
            nd += 1
    if n_zero > 0:
        distinct[nd] = 0.0
        nd += 1
    for k in range(pos.shape[0]):
        if nd == 0 or pos[k] != distinct[nd - 1]:
            distinct[nd] = pos[k]
            nd += 1
    if nd <= missing_bin:
        for b in range(nd - 1):
            e = 0.5 * (distinct[b] + distinct[b + 1])
            # A midpoint rounding up onto the next value would merge two bins.
            out[b] = distinct[b] if e == distinct[b + 1] else e
        return nd - 1
    # numpy's percentile(method="midpoint") on the virtual sorted column.
    m = quantiles.shape[0]
    vals = np.empty(m)
    for q in range(m):
        lo = np.floor((n - 1) * quantiles[q])
        hi = np.ceil((n - 1) * quantiles[q])
        virtual = 0.5 * (lo + hi)
        prev = np.floor(virtual)
        if virtual >= n - 1:
            ip = n - 1
            inx = n - 1
        else:
            ip = np.intp(prev)
            inx = ip + 1
        gamma = 0.0 if virtual % 1 == 0 else 0.5
        a = _sorted_value(neg, pos, n_neg, n_zero, ip)
        b = _sorted_value(neg, pos, n_neg, n_zero, inx)
        diff = b - a
        if gamma >= 0.5:
            vals[q] = b - diff * (1 - gamma)
        else:
            vals[q] = a + diff * gamma
    u = np.unique(vals)
    out[:u.shape[0]] = u
    return u.shape[0]


@njit(cache=True, nogil=True)
def _bin_csc(data, indices, indptr, n_samples, quantiles, missing_bin, codes, edges,
             n_bins):
    n_features = indptr.shape[0] - 1
    for j in range(n_features):
        start, end = indptr[j], indptr[j + 1]
        # Explicit zeros count as implicit ones (so -0.0 as well).
        nz = 0
        for q in range(start, end):
            if data[q] != 0.0:
                nz += 1
        vals = np.empty(nz)
        rows = np.empty(nz, dtype=np.intp)
        c = 0
        for q in range(start, end):
            if data[q] != 0.0:
                vals[c] = data[q]
                rows[c] = indices[q]
                c += 1
        s = np.sort(vals)
        n_neg = np.searchsorted(s, 0.0)
        n_e = _column_edges(s[:n_neg], s[n_neg:], n_samples - nz, quantiles,
                            missing_bin, edges[j])
        n_bins[j] = n_e + 1
        e = edges[j, :n_e]
        zero_code = np.searchsorted(e, 0.0)  # side="left": edges below 0
        col = codes[:, j]
        col[:] = zero_code
        for c in range(nz):
            col[rows[c]] = np.searchsorted(e, vals[c])


def bin_csc(X, max_bins):
    """``bin_columns(X.toarray(), max_bins)`` of a finite CSC matrix, from its
    stored values (duplicates summed first, as a dense X would hold them).

    Returns
    -------
    codes, edges, n_bins, missing_bin, has_missing
        As ``bin_columns`` (codes in Fortran order; no missing values).
    """
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    n_samples, n_features = X.shape
    missing_bin = int(max_bins) - 1
    edges = np.full((n_features, missing_bin), np.inf)
    n_bins = np.zeros(n_features, dtype=np.intp)
    codes = np.empty((n_samples, n_features), dtype=np.uint8, order="F")
    quantiles = np.linspace(0, 100, max_bins)[1:-1] / 100
    _bin_csc(np.asarray(X.data, dtype=np.float64), X.indices.astype(np.intp),
             X.indptr.astype(np.intp), n_samples, quantiles, missing_bin, codes, edges,
             n_bins)
    return codes, edges, n_bins, missing_bin, np.zeros(n_features, dtype=bool)


@njit(cache=True, nogil=True)
def sum_leaf_values_csr(data, indices, indptr, n_features, nodes, values, pool, roots,
                        columns, scale, out):
    """``sum_leaf_values`` (one value per leaf) on CSR rows: each row is
    scattered into one dense buffer, walked down every tree in order, and
    reset; memory is one row."""
    n = indptr.shape[0] - 1
    row = np.zeros((1, n_features))
    for i in range(n):
        for q in range(indptr[i], indptr[i + 1]):
            row[0, indices[q]] += data[q]  # += sums duplicate entries
        for t in range(roots.shape[0]):
            out[i, columns[t]] += scale * values[_leaf(row, 0, nodes, pool, roots[t]), 0]
        for q in range(indptr[i], indptr[i + 1]):
            row[0, indices[q]] = 0.0
    return out
