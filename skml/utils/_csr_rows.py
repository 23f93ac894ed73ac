"""Row access shared by dense and CSR numba kernels.

A kernel written against ``row_span(X, k)`` and ``row_entry(X, k, p)``
serves both a dense C-contiguous ``X`` and a CSR matrix passed as a
:data:`CSRRows` record::

    a, b = row_span(X, k)
    for p in range(a, b):
        j, x = row_entry(X, k, p)
        s += x * w[j]

The helpers are numba overloads chosen by the container type when the kernel
is compiled and inlined: on a dense array the loop is the plain
``for j in range(n_features)`` loop over ``X[k, j]`` (the same machine code as
before), on ``CSRRows`` it visits row ``k``'s stored entries only. A kernel
therefore costs O(nnz) per pass over sparse data, and numba keeps one
compiled specialisation per container.
"""

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.extending import overload

__all__ = [
    "CSRRows",
    "as_rows",
    "gather_rows",
    "gather_rows_into",
    "has_duplicates",
    "epoch_rows",
    "refresh_epoch_rows",
    "work_row",
    "is_sparse_rows",
    "n_rows",
    "row_entry",
    "row_span",
    "row_sq_norms",
]

# A CSR matrix as the kernels take it: row k's stored entries are
# data[indptr[k]:indptr[k + 1]] at columns indices[...].
CSRRows = namedtuple("CSRRows", ["indptr", "indices", "data", "n_features"])


def as_rows(X):
    """The kernels' view of X: the dense array itself, or a :data:`CSRRows`.

    Sparse X becomes CSR; its arrays are shared, not copied, unless it
    holds duplicate entries, which a copy sums first (a row's squared norm
    would otherwise be wrong). Explicit zeros are kept: they are harmless.
    """
    if hasattr(X, "indptr"):
        X = X.tocsr()
        # has_canonical_format is also False for merely unsorted indices,
        # which the kernels do not mind: look for real duplicates, O(nnz).
        if not X.has_canonical_format and has_duplicates(X):
            X = X.copy()
            X.sum_duplicates()
        return CSRRows(X.indptr, X.indices, X.data, int(X.shape[1]))
    return X


def has_duplicates(X):
    """True if the CSR matrix ``X`` stores some column twice in a row."""
    return bool(_has_duplicates(X.indptr, X.indices, X.shape[1]))


@njit(cache=True, nogil=True)
def _has_duplicates(indptr, indices, n_features):
    """True if some row stores a column twice (O(nnz + p) time).

    The marker is one byte per feature, set over a row and cleared after it
    (an int64 row number per feature would take 8 p bytes: 0.8 MB on text).
    """
    seen = np.zeros(n_features, dtype=np.bool_)
    for i in range(indptr.shape[0] - 1):
        a, b = indptr[i], indptr[i + 1]
        for p in range(a, b):
            j = indices[p]
            if seen[j]:
                return True
            seen[j] = True
        for p in range(a, b):
            seen[indices[p]] = False
    return False


# Row access shared by the dense and the CSR loops. Each is a Python stub
# whose numba implementation is chosen by the container type at compile time
# and inlined, so the dense loops compile to what they were before.
def row_span(X, k):
    """``(start, stop)`` of row ``k``'s entries (all columns when dense)."""


def row_entry(X, k, p):
    """``(column, value)`` of entry ``p`` of row ``k``."""


def n_rows(X):
    """Number of rows."""


def is_sparse_rows(X):
    """True for :data:`CSRRows` (a compile-time constant)."""


def gather_rows(X, idx):
    """A new container holding the rows ``idx`` of X, in that order."""


def epoch_rows(X, idx):
    """The rows an epoch reads, in the order ``idx``: a contiguous copy for
    dense X (reading a dense X in shuffled order stalls on cache misses),
    X itself for CSR (rows are reached through ``indptr`` anyway, and a copy
    would double the memory of the data); see :func:`work_row`."""


def work_row(Xw, idx, k):
    """Row of ``Xw = epoch_rows(X, idx)`` holding the ``k``-th row of the
    epoch: ``k`` for the dense copy, ``idx[k]`` for CSR."""


def gather_rows_into(X, idx, out):
    """Refill ``out`` (from ``gather_rows(X, idx2)``, ``idx2`` a permutation
    of ``idx``: the same sizes) with the rows ``idx`` of X, in that order."""


def _is_dense(X):
    return isinstance(X, types.Array)


@overload(row_span, inline="always")
def _ov_row_span(X, k):
    if _is_dense(X):
        return lambda X, k: (0, X.shape[1])
    return lambda X, k: (X.indptr[k], X.indptr[k + 1])


@overload(row_entry, inline="always")
def _ov_row_entry(X, k, p):
    if _is_dense(X):
        return lambda X, k, p: (p, X[k, p])
    return lambda X, k, p: (X.indices[p], X.data[p])


@overload(n_rows, inline="always")
def _ov_n_rows(X):
    if _is_dense(X):
        return lambda X: X.shape[0]
    return lambda X: X.indptr.shape[0] - 1


@overload(is_sparse_rows, inline="always")
def _ov_is_sparse_rows(X):
    if _is_dense(X):
        return lambda X: False
    return lambda X: True


@overload(gather_rows)
def _ov_gather_rows(X, idx):
    if _is_dense(X):

        def impl(X, idx):
            out = np.empty((idx.shape[0], X.shape[1]))
            gather_rows_into(X, idx, out)
            return out

        return impl

    def impl(X, idx):
        nnz = 0
        for k in range(idx.shape[0]):
            nnz += X.indptr[idx[k] + 1] - X.indptr[idx[k]]
        out = CSRRows(
            np.empty(idx.shape[0] + 1, dtype=X.indptr.dtype),
            np.empty(nnz, dtype=X.indices.dtype),
            np.empty(nnz, dtype=X.data.dtype),
            X.n_features,
        )
        gather_rows_into(X, idx, out)
        return out

    return impl


@overload(gather_rows_into)
def _ov_gather_rows_into(X, idx, out):
    if _is_dense(X):

        def impl(X, idx, out):
            for k in range(idx.shape[0]):
                i = idx[k]
                for j in range(X.shape[1]):
                    out[k, j] = X[i, j]

        return impl

    def impl(X, idx, out):
        out.indptr[0] = 0
        q = 0
        for k in range(idx.shape[0]):
            i = idx[k]
            for p in range(X.indptr[i], X.indptr[i + 1]):
                out.indices[q] = X.indices[p]
                out.data[q] = X.data[p]
                q += 1
            out.indptr[k + 1] = q

    return impl


@overload(epoch_rows)
def _ov_epoch_rows(X, idx):
    if _is_dense(X):
        return lambda X, idx: gather_rows(X, idx)
    return lambda X, idx: X


@overload(work_row, inline="always")
def _ov_work_row(Xw, idx, k):
    if _is_dense(Xw):
        return lambda Xw, idx, k: k
    return lambda Xw, idx, k: idx[k]


def refresh_epoch_rows(X, idx, Xw):
    """After ``idx`` was shuffled: refill the dense copy (CSR: nothing)."""


@overload(refresh_epoch_rows)
def _ov_refresh_epoch_rows(X, idx, Xw):
    if _is_dense(X):

        def impl(X, idx, Xw):
            gather_rows_into(X, idx, Xw)

        return impl

    def impl(X, idx, Xw):
        pass

    return impl


@njit(cache=True, nogil=True)
def row_sq_norms(X):
    """``‖x_i‖²`` of every row of a dense array or :data:`CSRRows`, no temporary."""
    n = n_rows(X)
    out = np.empty(n)
    for i in range(n):
        acc = 0.0
        a, b = row_span(X, i)
        for p in range(a, b):
            x = row_entry(X, i, p)[1]
            acc += x * x
        out[i] = acc
    return out
