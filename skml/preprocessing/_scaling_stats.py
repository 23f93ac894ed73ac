"""Per-column statistics shared by the scalers: NaN-aware, weighted, mergeable.

A batch is summarised by ``(count, mean, m2)`` per column, ``m2`` being the
weighted sum of squared deviations from the batch mean. Two summaries combine
exactly with the pairwise update of Chan, Golub & LeVeque (1983), which is how
``partial_fit`` stays as accurate as one ``fit`` on all the rows.
"""

import numpy as np
from scipy import sparse
from sklearn.utils.validation import check_is_fitted

from ..utils.validation import validate_data

__all__ = [
    "FLOAT_DTYPES",
    "SCALER_DOCS",
    "check_dense",
    "float_nan_tags",
    "validate_transform_input",
    "column_mean_var",
    "merge_mean_var",
    "nan_min_max",
    "near_constant",
    "safe_divisor",
    "shift_scale",
    "sparse_scale_columns",
    "collapse_count",
]

# float16 is kept as scikit-learn keeps it (its FLOAT_DTYPES); the statistics are
# accumulated in float64 whatever the input dtype.
FLOAT_DTYPES = (np.float64, np.float32, np.float16)

# Docstring sections shared by the scalers.
_SCALER_RETURNS = """
Returns
-------
self : object
    Fitted scaler.
"""

SCALER_DOCS = {
    "dense_fit_X": """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Training data; NaN entries are ignored.
y : None
    Ignored.
""",
    "copy_parameter": """
copy : bool, default=None
    Copy X or not; ``None`` uses the ``copy`` parameter.
""",
    "samples_seen_attribute": """
n_samples_seen_ : int, float or ndarray of shape (n_features,)
    Non-NaN samples seen per feature (their total weight when
    ``sample_weight`` was given); a single number when equal for all
    features.
""",
    "scaler_returns": _SCALER_RETURNS,
    "partial_fit_rest": """
y : None
    Ignored.
sample_weight : array-like of shape (n_samples,), default=None
    Weights of the samples of this batch.
""" + _SCALER_RETURNS,
}


def validate_transform_input(estimator, X, copy, *, accept_sparse=False,
                             allow_nan=True):
    """``X`` checked for a fitted scaler's ``transform`` (float dtype kept).

    Dense-only scalers (``accept_sparse=False``) refuse sparse input with
    :func:`check_dense`'s message; a sparse X (CSR) is copied when ``copy``,
    a dense one is made writeable when it is to be scaled in place.
    """
    check_is_fitted(estimator)
    if not accept_sparse:
        check_dense(X, type(estimator).__name__)
    return validate_data(
        estimator,
        X,
        reset=False,
        accept_sparse=accept_sparse,
        dtype=FLOAT_DTYPES,
        copy=copy and sparse.issparse(X),
        force_writeable=not copy,
        ensure_all_finite="allow-nan" if allow_nan else True,
    )


def float_nan_tags(tags):
    """Tags of the NaN-tolerant scalers: NaN allowed, float32 and float64 kept."""
    tags.input_tags.allow_nan = True
    tags.transformer_tags.preserves_dtype = ["float64", "float32"]
    return tags


def check_dense(X, name):
    """TypeError for sparse input, which centring or shifting would densify."""
    if sparse.issparse(X):
        raise TypeError(
            f"{name} does not support sparse input: shifting the features "
            "would make every implicit zero non-zero. Convert X with "
            "X.toarray(), or scale sparse data with StandardScaler(with_mean=False)."
        )


def column_mean_var(X, sample_weight=None, *, with_var=True):
    """Weighted count, mean and sum of squared deviations of each column.

    NaN entries are ignored (they count towards nothing). Statistics are
    accumulated in float64 whatever the dtype of ``X``.

    Parameters
    ----------
    X : ndarray or sparse matrix of shape (n_samples, n_features)
        Sparse input counts its implicit zeros as values.
    sample_weight : ndarray of shape (n_samples,), default=None
        Non-negative weights; ``None`` counts every row once.
    with_var : bool, default=True
        Also compute ``m2``; ``None`` is returned for it otherwise.

    Returns
    -------
    count : ndarray of shape (n_features,)
        Non-NaN rows (int64) or their total weight (float64).
    mean : ndarray of shape (n_features,)
        NaN for a column without any non-NaN value of positive weight.
    m2 : ndarray of shape (n_features,) or None
        ``sum_i w_i (x_ij - mean_j)**2``.
    """
    if sparse.issparse(X):
        return _sparse_mean_var(X, sample_weight, with_var)
    return _dense_mean_var(X, sample_weight, with_var)


def _dense_mean_var(X, w, with_var):
    X = X.astype(np.float64, copy=False)
    n_samples = X.shape[0]
    # Column sums as BLAS matrix-vector products: several times faster than
    # ``X.sum(axis=0)`` on a C-ordered array, and not less accurate: numpy's
    # pairwise summation applies only along the contiguous axis, so that sum
    # also accumulates row after row.
    weights = np.ones(n_samples) if w is None else w
    total = weights @ X
    # Inf was rejected by validation, so a NaN sum means NaN entries: this
    # saves a full isnan pass over clean data.
    nan = np.isnan(X) if np.isnan(total).any() else None
    if nan is not None:
        X = np.where(nan, 0.0, X)
        total = weights @ X
        count = n_samples - nan.sum(axis=0) if w is None else w @ ~nan
    else:
        count = np.full(X.shape[1], n_samples if w is None else w.sum())
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = total / count
    if not with_var:
        return count, mean, None
    deviation = X - mean
    if nan is not None:
        deviation[nan] = 0.0
    correction = weights @ deviation
    deviation *= deviation
    return count, mean, _corrected_m2(weights @ deviation, correction, count)


def _sparse_mean_var(X, w, with_var):
    n_samples, n_features = X.shape
    coo = X.tocoo(copy=True)
    coo.sum_duplicates()
    data, rows, cols = coo.data.astype(np.float64), coo.row, coo.col
    w_stored = np.ones_like(data) if w is None else w[rows]
    total_weight = n_samples if w is None else w.sum()
    nan = np.isnan(data)
    has_nan = nan.any()
    if has_nan:
        data[nan] = 0.0
        w_nan = _column_sums(cols, w_stored * nan, n_features)
        count = total_weight - w_nan
    else:
        count = np.full(n_features, total_weight)
    if w is None:
        count = np.rint(count).astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = _column_sums(cols, w_stored * data, n_features) / count
    if not with_var:
        return count, mean, None
    w_values = w_stored * ~nan if has_nan else w_stored
    # Implicit zeros deviate from the mean by -mean; they are not stored, so
    # their total weight is added in closed form.
    if w is None:
        w_zeros = count - _column_sums(cols, w_values, n_features)
    else:
        w_zeros = _implicit_zero_weight(rows, cols, w, n_features)
    deviation = data - mean[cols]
    correction = _column_sums(cols, w_values * deviation, n_features)
    squares = _column_sums(cols, w_values * deviation**2, n_features)
    with np.errstate(invalid="ignore"):
        correction -= w_zeros * mean
        squares += w_zeros * mean**2
    return count, mean, _corrected_m2(squares, correction, count)


def _column_sums(cols, values, n_features):
    # np.bincount of empty input is int64 even with float weights.
    return np.bincount(cols, values, minlength=n_features).astype(np.float64,
                                                                   copy=False)


def _implicit_zero_weight(rows, cols, w, n_features):
    """Total weight of the rows that store nothing in each column.

    Summed gap by gap over the prefix sums of ``w``, so that a column stored
    in every row (or whose unstored rows weigh 0) gets exactly 0: the
    difference ``sum(w) - stored weight`` leaves a rounding error there,
    which times ``mean**2`` made a constant column look variable (scale_
    1e-6 where the dense path gives 1).
    """
    prefix = np.concatenate([[0.0], np.cumsum(w)])  # non-decreasing: gaps >= 0
    order = np.lexsort((rows, cols))
    rows, cols = rows[order].astype(np.int64), cols[order]
    first = np.ones(rows.shape[0], dtype=bool)
    first[1:] = cols[1:] != cols[:-1]
    start = np.zeros_like(rows)
    start[1:] = rows[:-1] + 1
    start[first] = 0
    # The gap before each stored entry, then the tail after a column's last.
    w_zeros = _column_sums(cols, prefix[rows] - prefix[start], n_features)
    last_row = np.full(n_features, -1, dtype=np.int64)
    last = np.ones(rows.shape[0], dtype=bool)
    last[:-1] = cols[:-1] != cols[1:]
    last_row[cols[last]] = rows[last]
    return w_zeros + (prefix[-1] - prefix[last_row + 1])


def _corrected_m2(squares, correction, count):
    # Corrected two-pass formula: the correction term removes most of the
    # rounding error left in the mean (Chan, Golub & LeVeque 1983).
    with np.errstate(divide="ignore", invalid="ignore"):
        m2 = squares - correction**2 / count
    return np.maximum(m2, 0.0, where=~np.isnan(m2), out=m2)


def merge_mean_var(count_a, mean_a, m2_a, count_b, mean_b, m2_b):
    """Combine the summaries of two disjoint batches (Chan et al. pairwise update).

    ``n = n_a + n_b``, ``mean = mean_a + delta n_b / n`` and
    ``m2 = m2_a + m2_b + delta**2 n_a n_b / n`` with ``delta = mean_b - mean_a``.
    A column empty on one side keeps the other side's values. ``m2_a`` and
    ``m2_b`` may both be ``None`` when only the mean is tracked.
    """
    count = count_a + count_b
    with np.errstate(divide="ignore", invalid="ignore"):
        share_b = count_b / count
        delta = mean_b - mean_a
        mean = np.where(count_b == 0, mean_a, mean_a + delta * share_b)
        mean = np.where(count_a == 0, mean_b, mean)
        if m2_a is None:
            return count, mean, None
        m2 = m2_a + m2_b + delta**2 * count_a * share_b
        m2 = np.where(count_b == 0, m2_a, np.where(count_a == 0, m2_b, m2))
    return count, mean, m2


def collapse_count(count):
    """One number when every column saw as many samples, as scikit-learn reports."""
    return count[0] if np.all(count == count[0]) else count


def near_constant(var, mean, count):
    """Columns whose variance is within the rounding error of a constant column.

    The bound ``n eps var + (n mean eps)**2`` is the error of the two-pass
    variance (Chan, Golub & LeVeque); below it a column is treated as constant.
    """
    eps = np.finfo(np.float64).eps
    return var <= count * eps * var + (count * mean * eps) ** 2


def safe_divisor(scale, constant=None):
    """Copy of ``scale`` with (near) zero entries set to 1, to divide by."""
    scale = np.array(scale, dtype=np.float64)
    if constant is None:
        constant = scale < 10 * np.finfo(np.float64).eps
    scale[constant] = 1.0
    return scale


def nan_min_max(X, sample_weight=None):
    """Column minimum and maximum ignoring NaN and rows of zero weight.

    ``fmin``/``fmax`` skip NaN without the all-NaN warning of ``nanmin``; an
    all-NaN column gives NaN.
    """
    if sample_weight is not None and not np.all(sample_weight > 0):
        X = X[sample_weight > 0]
    data_min = np.fmin.reduce(X, axis=0).astype(np.float64)
    data_max = np.fmax.reduce(X, axis=0).astype(np.float64)
    return data_min, data_max


def shift_scale(X, shift, divisor, *, copy, multiply=False):
    """``(X - shift) / divisor`` (or ``* divisor``) with at most one new array.

    ``None`` skips a step. With ``copy=False`` ``X`` is overwritten; with
    ``copy=True`` the first operation allocates the result, which saves the
    separate copy pass scikit-learn makes.
    """
    out = None if copy else X
    if shift is not None:
        out = np.subtract(X, shift.astype(X.dtype, copy=False), out=out)
    if divisor is not None:
        op = np.multiply if multiply else np.divide
        divisor = divisor.astype(X.dtype, copy=False)
        out = op(X if out is None else out, divisor, out=out)
    return X.copy() if out is None else out


def sparse_scale_columns(X, factor):
    """Multiply column ``j`` of a CSR/CSC matrix by ``factor[j]``, in place."""
    if X.format == "csr":
        X.data *= factor.astype(X.dtype, copy=False)[X.indices]
    else:
        X.data *= np.repeat(factor.astype(X.dtype, copy=False), np.diff(X.indptr))
    return X
