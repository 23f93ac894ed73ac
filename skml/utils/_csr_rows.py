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
from numba import types
from numba.extending import overload

__all__ = [
    "CSRRows",
    "as_rows",
    "gather_rows",
    "is_sparse_rows",
    "n_rows",
    "row_entry",
    "row_span",
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
        if not X.has_canonical_format:
            X = X.copy()
            X.sum_duplicates()
        return CSRRows(X.indptr, X.indices, X.data, int(X.shape[1]))
    return X


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
            for k in range(idx.shape[0]):
                i = idx[k]
                for j in range(X.shape[1]):
                    out[k, j] = X[i, j]
            return out

        return impl

    def impl(X, idx):
        indptr = np.empty(idx.shape[0] + 1, dtype=X.indptr.dtype)
        indptr[0] = 0
        for k in range(idx.shape[0]):
            i = idx[k]
            indptr[k + 1] = indptr[k] + (X.indptr[i + 1] - X.indptr[i])
        nnz = indptr[idx.shape[0]]
        indices = np.empty(nnz, dtype=X.indices.dtype)
        data = np.empty(nnz, dtype=X.data.dtype)
        for k in range(idx.shape[0]):
            i = idx[k]
            q = indptr[k]
            for p in range(X.indptr[i], X.indptr[i + 1]):
                indices[q] = X.indices[p]
                data[q] = X.data[p]
                q += 1
        return CSRRows(indptr, indices, data, X.n_features)

    return impl
