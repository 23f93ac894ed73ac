"""A hypothesis strategy for dense/sparse twins (issue 20's equivalence tests).

``sparse_pairs`` draws a dense matrix and its CSR or CSC copy, float32 or
float64, with a random sparsity pattern that may hold explicit zeros (stored
entries equal to 0), empty rows and empty columns.
"""

import numpy as np
import scipy.sparse as sp
from hypothesis import strategies as st


def make_sparse_pair(seed, n_rows, n_cols, density, fmt, dtype, *, explicit_zeros=True,
                     empty_row=True, empty_col=True, min_row_nnz=0):
    """The dense array and its sparse copy (``fmt`` "csr"/"csc")."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n_rows, n_cols)).round(3)
    X[rng.random((n_rows, n_cols)) >= density] = 0.0
    for i in range(min(min_row_nnz, n_cols)):
        # keep a few stored values per row where a caller needs them
        X[np.arange(n_rows), (np.arange(n_rows) + i) % n_cols] = rng.normal(size=n_rows)
    if empty_row and n_rows > 2:
        X[rng.integers(n_rows)] = 0.0
    if empty_col and n_cols > 2:
        X[:, rng.integers(n_cols)] = 0.0
    X = X.astype(dtype)
    rows, cols = np.nonzero(X)
    data = X[rows, cols]
    if explicit_zeros:
        zr, zc = np.nonzero(X == 0)
        pick = rng.random(zr.shape[0]) < 0.1
        rows = np.concatenate([rows, zr[pick]])
        cols = np.concatenate([cols, zc[pick]])
        data = np.concatenate([data, np.zeros(pick.sum(), dtype=dtype)])
    S = sp.coo_matrix((data, (rows, cols)), shape=X.shape, dtype=dtype)
    S = S.tocsr() if fmt == "csr" else S.tocsc()
    return X, S


@st.composite
def sparse_pairs(draw, min_rows=6, max_rows=30, min_cols=2, max_cols=12,
                 min_row_nnz=0, dtypes=(np.float32, np.float64)):
    """(dense, sparse) with random shape, density, format and dtype."""
    n_rows = draw(st.integers(min_rows, max_rows))
    n_cols = draw(st.integers(min_cols, max_cols))
    density = draw(st.floats(0.05, 0.9))
    fmt = draw(st.sampled_from(["csr", "csc"]))
    dtype = draw(st.sampled_from(list(dtypes)))
    seed = draw(st.integers(0, 2**32 - 1))
    return make_sparse_pair(seed, n_rows, n_cols, density, fmt, dtype,
                            explicit_zeros=draw(st.booleans()),
                            empty_row=draw(st.booleans()),
                            empty_col=draw(st.booleans()),
                            min_row_nnz=min_row_nnz)
