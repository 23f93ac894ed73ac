"""Private helpers of :mod:`skml.metrics.pairwise`: validation, the blocked
squared-distance core, and the per-pair loop for callable kernels."""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from ..utils import Interval, InvalidParameterError, Options

# Default bound, in MiB, on the temporary float64 block of the product (float32
# or sparse input). Dense float64 needs no temporary: its product is written
# straight into the output in ONE BLAS call, because every call wakes the BLAS
# threads and on a loaded 2-core machine 4 calls cost 30% more than one, and
# 80 calls of 64 rows 10x more.
DEFAULT_WORKING_MEMORY = 64

# The element-wise passes after the product (shift, clip, sqrt or exp) run
# on sub-blocks of about 4 MiB, so that the five passes hit the cache instead
# of streaming the whole matrix through memory five times.
_CACHE_BLOCK_MIB = 4

# Blocks start at multiples of 64 rows so that each row of X meets the same
# BLAS micro-kernel (OpenBLAS unrolls rows by 4 to 16) as in one unchunked
# product: the result is then bitwise independent of the block size, and
# bitwise equal to scikit-learn's unchunked float64 computation.
_ROW_ALIGN = 64


def check_param(value, name, func, allowed):
    """Raise ``InvalidParameterError`` unless ``value`` meets one constraint.

    ``allowed`` holds ``None``, ``bool``, :class:`Interval` or :class:`Options`
    items, as in the estimators' ``_parameter_constraints``.
    """
    for constraint in allowed:
        if constraint is None and value is None:
            return
        if constraint is bool and isinstance(value, (bool, np.bool_)):
            return
        if isinstance(constraint, (Interval, Options)) and constraint.is_satisfied_by(
            value
        ):
            return
    forms = [
        "None" if c is None else "a bool" if c is bool else str(c) for c in allowed
    ]
    expected = forms[-1]
    if len(forms) > 1:
        expected = ", ".join(forms[:-1]) + " or " + expected
    raise InvalidParameterError(
        f"The {name!r} parameter of {func} must be {expected}. Got {value!r} instead."
    )


def float_dtype(X, Y):
    """float32 when both inputs are float32, float64 otherwise (as sklearn)."""

    def dtype_of(A):
        return A.dtype if hasattr(A, "dtype") else np.asarray(A).dtype

    if dtype_of(X) == np.float32 and (Y is None or dtype_of(Y) == np.float32):
        return np.float32
    return np.float64


def check_pairwise_arrays(
    X, Y, func, *, accept_sparse=True, dtype="float", check_n_features=True
):
    """Validate ``X`` and ``Y``; return them with ``Y is X`` when Y was None or X.

    Parameters
    ----------
    X, Y : array-like or sparse matrix
        The two sample sets; ``Y=None`` means X against itself.
    func : str
        Name of the public function, for messages.
    accept_sparse : bool, default=True
        When False, sparse input raises ``TypeError``.
    dtype : "float" or "numeric", default="float"
        "float" converts both to float32 (both float32) or float64; "numeric"
        keeps numeric dtypes (callable kernels see the user's values).
    check_n_features : bool, default=True
        Require the same number of columns (callables may not need it).
    """
    for name, A in (("X", X), ("Y", Y)):
        if not accept_sparse and sp.issparse(A):
            raise TypeError(
                f"{func} does not support sparse input (got a sparse {name}); "
                f"convert it with {name}.toarray()."
            )
    target = float_dtype(X, Y) if dtype == "float" else "numeric"
    kw = dict(accept_sparse="csr" if accept_sparse else False, dtype=target)
    same = Y is None or Y is X
    X = check_array(X, input_name="X", **kw)
    if same:
        return X, X
    Y = check_array(Y, input_name="Y", **kw)
    if check_n_features and X.shape[1] != Y.shape[1]:
        raise ValueError(
            f"Incompatible dimension for X and Y matrices in {func}: X has shape "
            f"{X.shape} and Y has shape {Y.shape}; they need the same number of "
            "features (columns)."
        )
    return X, Y


def check_norms(norms, n_samples, name, shape_of_data, orient):
    """Validate precomputed squared norms; return them as a column or a row.

    Accepts shapes (n,), (n, 1) and (1, n); ``orient`` is "column" or "row".
    """
    norms = check_array(norms, ensure_2d=False, dtype="numeric", input_name=name)
    original = norms.shape
    if norms.ndim == 1 and norms.shape[0] == n_samples:
        norms = norms.reshape(-1, 1)
    elif norms.shape == (1, n_samples):
        norms = norms.T
    if norms.shape != (n_samples, 1):
        data = name.split("_")[0]
        raise ValueError(
            f"Incompatible dimensions for {data} of shape {shape_of_data} and "
            f"{name} of shape {original}."
        )
    return norms if orient == "column" else norms.T


def row_norms_sq(A):
    """Squared L2 norm of each row of a dense or CSR float64 matrix."""
    if sp.issparse(A):
        # Summed in float64 (also for float32 data), O(nnz) temporaries only.
        A = A.tocsr()
        rows = np.repeat(np.arange(A.shape[0]), np.diff(A.indptr))
        data = A.data.astype(np.float64)
        return np.bincount(rows, weights=data * data, minlength=A.shape[0])
    # einsum: the same per-row reduction as scikit-learn's row_norms, so that
    # norms (and hence distances) agree bitwise with it.
    return np.einsum("ij,ij->i", A, A)


def canonical_csr(X):
    """CSR with sorted, unique column indices (copied only if needed).

    Kernels that merge or square the stored entries of a row need each
    column once; explicit zeros are kept (they contribute 0).
    """
    X = X if sp.issparse(X) and X.format == "csr" else sp.csr_matrix(X)
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def unit_rows(X):
    """Each row of ``X`` (dense or sparse) scaled to unit L2 norm, a copy in
    ``X``'s dtype; a zero row stays zero (similarity 0, cosine distance 1 to
    every row). A row whose squares overflow or underflow (entries beyond
    ~1e154 or below ~1e-154) is first divided by a power of two near its
    largest entry (exact: the direction is all that counts), so the rows of
    ``X * 1e200`` are those of ``X``."""
    if sp.issparse(X):
        X = canonical_csr(X).copy()
        starts = X.indptr[:-1]
        nonempty = np.diff(X.indptr) > 0
        top = np.zeros(X.shape[0], dtype=X.dtype)
        if X.nnz:
            top[nonempty] = np.maximum.reduceat(np.abs(X.data), starts[nonempty])
        exponent = _rescue_exponents(top, np.sqrt(row_norms_sq(X)))
        if exponent is not None:
            X.data = np.ldexp(X.data, -np.repeat(exponent, np.diff(X.indptr)))
        norms = np.sqrt(row_norms_sq(X))
        norms[norms == 0.0] = 1.0
        X.data = X.data / np.repeat(norms, np.diff(X.indptr))  # as the dense x / |x|
        return X
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    top = np.max(np.abs(X), axis=1) if X.shape[1] else np.zeros(len(X))
    exponent = _rescue_exponents(top, norms)
    if exponent is not None:
        X = np.ldexp(X, -exponent[:, None])
        norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    norms[norms == 0.0] = 1.0
    return X / norms[:, None]


def _rescue_exponents(top, norms):
    """Per row, the power of two to divide by so that its squares neither
    overflow nor underflow (0 for rows that need nothing); None if no row
    does. ``top``: each row's largest magnitude; ``norms``: its L2 norm as
    computed directly."""
    bad = (top > 0) & ((norms < 1e-150) | (norms > 1e150))
    if not bad.any():
        return None
    exponent = np.zeros(len(top), dtype=int)
    exponent[bad] = np.frexp(top[bad])[1]
    return exponent


def dot(A, B, dense_output=True):
    """``A @ B`` for dense or sparse operands; dense ndarray if dense_output."""
    R = A @ B
    if sp.issparse(R):
        return R.toarray() if dense_output else R
    return np.asarray(R)


def chunk_rows(n_columns, working_memory, itemsize=8):
    """Rows of X per block so that a block of ``n_columns`` fits the budget."""
    budget = working_memory * 2**20
    rows = int(budget // max(1, n_columns * itemsize))
    if rows >= _ROW_ALIGN:
        return rows - rows % _ROW_ALIGN
    return max(1, rows)


def squared_distances(X, Y, XX, YY, *, same, working_memory, finalize=None):
    """Blocked ``||x||² - 2 x·y + ||y||²`` with clipping, exact zero diagonal.

    Parameters
    ----------
    X, Y : ndarray or CSR matrix, both float32 or both float64
        Validated inputs; ``same`` says whether Y is X.
    XX : ndarray of shape (n_X, 1) float64, or None
        Squared norms of the rows of X; None computes them (per block, from
        the float64 upcast, for float32 input).
    YY : ndarray of shape (1, n_Y) float64, or None
        Squared norms of the rows of Y.
    same : bool
        X is Y: the diagonal is set to exactly 0 before ``finalize``.
    working_memory : float
        Budget in MiB for one temporary float64 block of the product (and the
        float64 upcast of X for float32 input); unused for dense float64.
    finalize : callable, default=None
        Applied in place to each finished block of the output (in the output
        dtype): sqrt for distances, ``exp(-gamma * .)`` for the RBF kernel.
        Fusing it per block keeps the block in cache.

    Returns
    -------
    out : ndarray of shape (n_X, n_Y), dtype of X
    """
    n_X, n_Y = X.shape[0], Y.shape[0]
    out_dtype = X.dtype
    out = np.empty((n_X, n_Y), dtype=out_dtype)
    # float32: the expansion cancels catastrophically in single precision, so
    # X (per block) and Y (once) are upcast to float64, as scikit-learn does.
    upcast = out_dtype == np.float32
    Y64 = Y.astype(np.float64) if upcast else Y
    if YY is None:
        YY = XX.T if (same and XX is not None) else row_norms_sq(Y64)[None, :]
    YT = Y64.T
    # Dense float64: the product is written straight into the output, so the
    # only working memory is the norms; float32 and sparse need a temporary.
    in_place = not upcast and not sp.issparse(X) and not sp.issparse(Y)
    if in_place:
        rows = n_X
    else:
        rows = chunk_rows(n_Y + (X.shape[1] if upcast else 0), working_memory)
    sub_rows = max(1, min(rows, chunk_rows(n_Y, _CACHE_BLOCK_MIB)))
    for start in range(0, n_X, rows):
        stop = min(start + rows, n_X)
        Xc = X[start:stop]
        if upcast:
            Xc = Xc.astype(np.float64)
        XXc = row_norms_sq(Xc)[:, None] if XX is None else XX[start:stop]
        if in_place:
            D = out[start:stop]
            np.dot(Xc, YT, out=D)
        else:
            D = dot(Xc, YT)
        for lo in range(0, stop - start, sub_rows):
            hi = min(lo + sub_rows, stop - start)
            d = D[lo:hi]
            d *= -2
            d += XXc[lo:hi]
            d += YY
            block = out[start + lo : start + hi]
            if not in_place:
                block[...] = d
            np.maximum(block, 0, out=block)
            if same:
                idx = np.arange(start + lo, start + hi)
                block[idx - start - lo, idx] = 0
            if finalize is not None:
                finalize(block)
    return out


def pairwise_callable(X, Y, kernel, rows, *, same, out, kwds):
    """Fill ``out[rows]`` with ``kernel(x_i, y_j, **kwds)``, pair by pair.

    When ``same`` only the upper triangle (j >= i) is filled; the caller
    mirrors it. Dense rows are passed as 1-d views, sparse rows as 1 x d CSR.
    """
    x_rows = [_row(X, i) for i in range(rows.start, rows.stop)]
    y_rows = [_row(Y, j) for j in range(Y.shape[0])]
    for i, x in zip(range(rows.start, rows.stop), x_rows):
        first = i if same else 0
        out[i, first:] = [kernel(x, y, **kwds) for y in y_rows[first:]]


def _row(A, i):
    return A[[i]] if sp.issparse(A) else A[i]


def even_slices(n, n_parts):
    """``n_parts`` contiguous slices covering range(n) with near-equal sizes."""
    bounds = np.linspace(0, n, min(n_parts, n) + 1).round().astype(int)
    return [slice(a, b) for a, b in zip(bounds[:-1], bounds[1:]) if b > a]
