"""Pairwise Euclidean distances and kernels (notes A §1.5-1.6, notes B §5.8).

The kernels behind the kernel SVM, kernel k-means and spectral clustering,
written with numpy/scipy and scikit-learn's signatures. A kernel
``k(x, z) = <phi(x), phi(z)>`` is an inner product in some feature space;
Mercer's theorem (notes A §1.6, D1 Ch. 7) says ``k`` is one iff every Gram
matrix ``K_ij = k(x_i, x_j)`` is symmetric positive semi-definite, which
:func:`is_valid_kernel` checks on a sample.

The course notes write the same kernels with different constants (catalogue
B §0.1 and §15); every function here takes scikit-learn's ``gamma``:

- D1 Gaussian ``exp(-||x-z||^2 / sigma)``: ``rbf_kernel(gamma=1/sigma)``;
- D3 Gaussian ``exp(-||x-z||^2 / (2 sigma^2))``:
  ``rbf_kernel(gamma=1/(2 sigma^2))``;
- D4 RBF ``exp(-1/2 ||x-z||)`` (norm unsquared, likely a typo):
  ``rbf_kernel(gamma=0.5)``;
- D1 Laplace ``exp(-||x-z||_2 / sigma)`` (unsquared L2 norm):
  ``laplacian_kernel(gamma=1/sigma, norm="l2")``; scikit-learn's Laplacian
  kernel is the L1 one, ``norm="l1"`` here;
- D1 polynomial ``(<x,z> + 1)^p``: ``polynomial_kernel(degree=p, gamma=1)``;
- D3 polynomial ``(x'z + c)^d``:
  ``polynomial_kernel(degree=d, gamma=1, coef0=c)``;
- D3/D4 quadratic ``(x'z)^2``:
  ``polynomial_kernel(degree=2, gamma=1, coef0=0)``;
- D4 sigmoid ``tanh(x . z)``: ``sigmoid_kernel(gamma=1, coef0=0)``.

:func:`gamma_from_sigma` converts the D1 and D3 Gaussian ``sigma``.
"""

from numbers import Integral, Real

import numpy as np
import scipy.linalg
import scipy.sparse as sp
from joblib import effective_n_jobs
from scipy.spatial.distance import cdist
from sklearn.utils.parallel import Parallel, delayed
from sklearn.utils.validation import check_array

from ..utils import Interval, InvalidParameterError, Options
from ..utils._magnitude import magnitude_scale, safe_magnitude
from ..utils._docstrings import fill_doc
from . import _distance_kernels as dk
from ._chi2_kernels import additive_chi2_block
from ._pairwise_helpers import (
    DEFAULT_WORKING_MEMORY,
    check_norms,
    check_pairwise_arrays,
    check_param,
    dot,
    even_slices,
    float_dtype,
    pairwise_callable,
    squared_distances,
    unit_rows,
)

__all__ = [
    "CombinedKernel",
    "KERNEL_PARAMS",
    "PAIRWISE_KERNEL_FUNCTIONS",
    "additive_chi2_kernel",
    "chi2_kernel",
    "cosine_similarity",
    "euclidean_distances",
    "gamma_from_sigma",
    "haversine_distances",
    "is_valid_kernel",
    "kernel_product",
    "kernel_scale",
    "kernel_sum",
    "laplacian_kernel",
    "linear_kernel",
    "pairwise_distances",
    "pairwise_kernels",
    "polynomial_kernel",
    "rbf_kernel",
    "sigmoid_kernel",
]

_GAMMA = [Interval(Real, 0, None, closed="left"), None]

# Docstring sections shared by the kernel functions.
_KERNEL_X_Y = """
X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
    Samples, one per row.
Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), \
        default=None
    Second set of samples; ``None`` means ``Y = X``.
"""

_KERNEL_RETURNS = """
Returns
-------
K : ndarray of shape (n_samples_X, n_samples_Y)
    The kernel (Gram) matrix.
"""

_COMBINED_RETURNS = """
Returns
-------
kernel : CombinedKernel
    A callable ``kernel(X, Y=None)``, usable as ``SVC(kernel=kernel)``.
"""

_COMBINED_SECTIONS = """
Parameters
----------
*kernels : str or callable
    Names accepted by :func:`pairwise_kernels` (with their default
    parameters) or callables ``k(X, Y)`` returning the kernel matrix.

""" + _COMBINED_RETURNS
_COEF0 = [Interval(Real, None, None, closed="neither")]


def _default_gamma(gamma, X):
    return 1.0 / X.shape[1] if gamma is None else gamma


def euclidean_distances(
    X,
    Y=None,
    *,
    Y_norm_squared=None,
    squared=False,
    X_norm_squared=None,
    working_memory=None,
):
    """Euclidean distance between every row of X and every row of Y.

    Uses the expansion ``||x - y||^2 = ||x||^2 - 2 x.y + ||y||^2`` so that
    the work is one matrix product (BLAS, or a sparse product for CSR input),
    computed block by block over the rows of X. This is the distance behind
    the Gaussian kernels of notes B §5.8 and k-means (notes A §7.2).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Samples, one per row. Sparse input is converted to CSR.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), \
            default=None
        Second set of samples. ``None`` (or ``Y is X``) means X against
        itself, and then the diagonal is exactly 0.
    Y_norm_squared : array-like of shape (n_samples_Y,), (n_samples_Y, 1) \
            or (1, n_samples_Y), default=None
        Precomputed ``(Y ** 2).sum(axis=1)``. Ignored when it is float32
        (too imprecise for the expansion) and when Y is X.
    squared : bool, default=False
        Return squared distances (skips the square root).
    X_norm_squared : array-like of shape (n_samples_X,), (n_samples_X, 1) \
            or (1, n_samples_X), default=None
        Precomputed ``(X ** 2).sum(axis=1)``. Ignored when float32.
    working_memory : float, default=None
        Upper bound, in MiB, on the temporary float64 block of the product
        for float32 or sparse input (with the float64 copy of the block of
        rows of X). ``None`` means 64 MiB. Dense float64 input needs no
        temporary and ignores it. Blocks hold a multiple of 64 rows whenever
        the budget allows it, which makes the result bitwise independent of
        the budget.

    Returns
    -------
    distances : ndarray of shape (n_samples_X, n_samples_Y)
        The distances; float32 when X and Y are both float32, else float64.

    See Also
    --------
    rbf_kernel : ``exp(-gamma * euclidean_distances(X, Y, squared=True))``.
    laplacian_kernel : Uses the exact L1 or L2 distance instead.

    Notes
    -----
    Time O(n_X n_Y d). Dense float64: one BLAS product written straight
    into the output, no temporary beyond the norms. float32 or sparse: one
    product per block of rows of X, at most ``working_memory`` extra (plus
    a float64 copy of Y for float32 input). The element-wise passes after
    the product (shift by the norms, clip, square root) run on sub-blocks of
    about 4 MiB while they are in cache.

    The expansion cancels catastrophically for points close to each other:
    the squared distance has an absolute error of about
    ``eps * (||x||^2 + ||y||^2)``. Negative results are clipped to 0, and
    float32 input is upcast to float64 block by block (as in scikit-learn)
    before the result is rounded back to float32. The matrix for Y is X is
    symmetric only up to rounding, as in scikit-learn.

    Examples
    --------
    >>> from skml.metrics.pairwise import euclidean_distances
    >>> X = [[0, 1], [1, 1]]
    >>> euclidean_distances(X, X)
    array([[0., 1.],
           [1., 0.]])
    >>> euclidean_distances(X, [[0, 0]])
    array([[1.        ],
           [1.41421356]])
    """
    func = "euclidean_distances"
    check_param(squared, "squared", func, [bool])
    check_param(
        working_memory,
        "working_memory",
        func,
        [Interval(Real, 0, None, closed="neither"), None],
    )
    X, Y = check_pairwise_arrays(X, Y, func)
    same = Y is X
    XX = YY = None
    if X_norm_squared is not None:
        XX = check_norms(
            X_norm_squared, X.shape[0], "X_norm_squared", X.shape, "column"
        )
    if Y_norm_squared is not None:
        YY = check_norms(Y_norm_squared, Y.shape[0], "Y_norm_squared", Y.shape, "row")
    # float32 norms carry ~1e-7 relative error, far more than the expansion
    # can absorb, so they are recomputed in float64 (scikit-learn does too).
    XX = None if XX is None or XX.dtype == np.float32 else XX.astype(np.float64)
    YY = None if YY is None or YY.dtype == np.float32 or same else YY.astype(np.float64)

    # Squares overflow at X * 1e300 and underflow at X * 1e-300: the
    # distances are then those of X / s and Y / s (s = 2^e, exact) times s.
    # s = 1 on data of ordinary magnitude, which is left untouched.
    # float32 results hold the squared distances before the square root.
    s = magnitude_scale(X, Y, safe=safe_magnitude(X.dtype))
    if s != 1.0:
        X = X / s
        Y = X if same else Y / s
        XX = YY = None  # the given norms are those of the unscaled data

    def finalize(block):
        np.sqrt(block, out=block)
        if s != 1.0:
            block *= s

    D = squared_distances(
        X,
        Y,
        XX,
        YY,
        same=same,
        working_memory=working_memory or DEFAULT_WORKING_MEMORY,
        finalize=None if squared else finalize,
    )
    if squared and s != 1.0:
        with np.errstate(over="ignore", under="ignore"):
            D *= s  # a squared distance of 1e600 is inf: the true value
            D *= s
    return D


def haversine_distances(X, Y=None):
    """Great-circle distance on the unit sphere between rows (latitude, longitude).

    ``d(x, y) = 2 arcsin sqrt(sin^2((x_0 - y_0) / 2) + cos x_0 cos y_0
    sin^2((x_1 - y_1) / 2))``, coordinates in radians (multiply by the
    sphere's radius, e.g. 6371 km, for a length). Dense input only.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, 2)
        Latitude and longitude of each point, in radians.
    Y : array-like of shape (n_samples_Y, 2), default=None
        The other points; X if None.

    Returns
    -------
    D : ndarray of shape (n_samples_X, n_samples_Y)
        Distances in ``[0, pi]``, in float64.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.metrics.pairwise import haversine_distances
    >>> d = haversine_distances([[0.0, 0.0]], [[0.0, np.pi / 2], [np.pi / 2, 0.0]])
    >>> np.allclose(d, np.pi / 2)
    True
    """
    X = check_array(X, dtype=np.float64, input_name="X")
    Y = X if Y is None else check_array(Y, dtype=np.float64, input_name="Y")
    if X.shape[1] != 2 or Y.shape[1] != 2:
        raise ValueError("Haversine distance only valid in 2 dimensions (latitude, "
                         f"longitude); got {X.shape[1]} and {Y.shape[1]} features.")
    lat_x, lat_y = X[:, 0][:, np.newaxis], Y[:, 0][np.newaxis, :]
    s_lat = np.sin(0.5 * (lat_x - lat_y))
    s_lon = np.sin(0.5 * (X[:, 1][:, np.newaxis] - Y[:, 1][np.newaxis, :]))
    h = s_lat * s_lat + np.cos(lat_x) * np.cos(lat_y) * (s_lon * s_lon)
    np.clip(h, 0.0, 1.0, out=h)  # rounding can step just past 1
    return 2.0 * np.arcsin(np.sqrt(h, out=h), out=h)


# --- the vector distances ----------------------------------------------------------
# name (with scikit-learn's aliases) -> canonical name.
DISTANCE_ALIASES = {
    "euclidean": "euclidean", "l2": "euclidean",
    "manhattan": "manhattan", "cityblock": "manhattan", "l1": "manhattan",
    "chebyshev": "chebyshev", "infinity": "chebyshev",
    "minkowski": "minkowski", "p": "minkowski",
    "sqeuclidean": "sqeuclidean", "seuclidean": "seuclidean",
    "mahalanobis": "mahalanobis", "cosine": "cosine", "correlation": "correlation",
    "haversine": "haversine", "canberra": "canberra", "braycurtis": "braycurtis",
    "hamming": "hamming", "nan_euclidean": "nan_euclidean",
    "jaccard": "jaccard", "dice": "dice", "rogerstanimoto": "rogerstanimoto",
    "sokalmichener": "sokalmichener", "russellrao": "russellrao",
    "sokalsneath": "sokalsneath", "yule": "yule",
}

# The metrics on booleans (a coordinate is true when non-zero).
BOOLEAN_METRICS = frozenset({"jaccard", "dice", "rogerstanimoto", "sokalmichener",
                             "russellrao", "sokalsneath", "yule"})

# The metric arguments each metric takes (others: none).
_METRIC_ARGS = {"minkowski": {"p", "w"}, "seuclidean": {"V"},
                "mahalanobis": {"V", "VI"}}

_CODES = {
    "euclidean": dk.EUCLIDEAN, "manhattan": dk.MANHATTAN, "chebyshev": dk.CHEBYSHEV,
    "sqeuclidean": dk.SQEUCLIDEAN, "haversine": dk.HAVERSINE, "canberra": dk.CANBERRA,
    "braycurtis": dk.BRAYCURTIS, "hamming": dk.HAMMING,
    "nan_euclidean": dk.NAN_EUCLIDEAN, "jaccard": dk.JACCARD, "dice": dk.DICE,
    "rogerstanimoto": dk.ROGERSTANIMOTO, "sokalmichener": dk.ROGERSTANIMOTO,
    "russellrao": dk.RUSSELLRAO, "sokalsneath": dk.SOKALSNEATH, "yule": dk.YULE,
    # (mapped first: see metric_transform)
    "seuclidean": dk.EUCLIDEAN, "mahalanobis": dk.EUCLIDEAN,
}


def missing_data_param(metric, kwds):
    """The argument scikit-learn estimates from the data when absent, or None.

    ``"V"`` for seuclidean without ``V``; ``"VI"`` for mahalanobis without
    ``VI`` (nor ``V``, which skml takes in its place). ``metric`` is a
    canonical name.
    """
    if metric == "seuclidean" and kwds.get("V") is None:
        return "V"
    if metric == "mahalanobis" and kwds.get("VI") is None and kwds.get("V") is None:
        return "VI"
    return None


def data_metric_params(metric, X):
    """scikit-learn's estimate of a missing seuclidean ``V`` or mahalanobis ``VI``.

    From the rows of X when the distances are those of X to itself (as
    ``sklearn.metrics.pairwise_distances`` with ``Y`` None or X): the
    variances ``var(X, ddof=1)`` of each feature, or the inverse of the
    covariance ``cov(X.T)``. Returns ``{name: value}`` (empty for the other
    metrics).
    """
    X = np.asarray(X, dtype=np.float64)
    if metric == "seuclidean":
        return {"V": np.var(X, axis=0, ddof=1)}
    if metric == "mahalanobis":
        return {"VI": np.linalg.inv(np.cov(X.T)).T}
    return {}


def missing_param_error(metric, name):
    """The ValueError of a missing V / VI when the queries are not the data."""
    return ValueError(
        f"The {name!r} parameter is required for the {metric} metric when Y is "
        f"passed (scikit-learn's rule: it is estimated from the data only for "
        f"the distances of the data to itself); pass {name} in the metric "
        "arguments."
    )


def metric_transform(metric, n_features, p=2.0, **kwds):
    """Linear map ``T`` with ``d(x, y) = ||T^T x - T^T y||_p``, for the weighted metrics.

    As :func:`metric_map`, for a true metric: a mahalanobis ``VI`` that is
    not positive semi-definite is refused.
    """
    T, signs = metric_map(metric, n_features, p, **kwds)
    if signs is not None:
        raise ValueError("mahalanobis: VI must be symmetric positive definite "
                         "(or semi-definite) for a metric.")
    return T


def metric_map(metric, n_features, p=2.0, **kwds):
    """Linear map ``T`` of the weighted metrics, and the signs of an indefinite VI.

    ``seuclidean`` divides each feature by ``sqrt(V)``; ``mahalanobis``
    multiplies by a square root ``L`` of ``VI = L L^T`` (then
    ``||L^T (x - y)||² = (x - y)^T VI (x - y)``); a weighted Minkowski
    distance ``(sum_i w_i |x_i - y_i|^p)^(1/p)`` scales feature i by
    ``w_i^(1/p)``. Rows are mapped as ``X @ T``. Returns None when the
    metric needs no map. ``metric`` is a canonical name.

    A mahalanobis ``VI`` with negative eigenvalues (scipy's and
    scikit-learn's brute force accept it) maps by ``U sqrt(|lambda|)`` and
    returns ``sign(lambda)`` as second value: the squared distance is then
    ``sum_t sign_t z_t^2``, whose square root is NaN where it is negative,
    as theirs. The second value is None otherwise.
    """
    allowed = _METRIC_ARGS.get(metric, set())
    extra = set(kwds) - allowed
    if extra:
        # (TypeError, as an unexpected keyword argument)
        raise TypeError(f"metric={metric!r} takes no argument(s) {sorted(extra)}"
                        + (f"; it takes {sorted(allowed)}." if allowed else "."))
    if metric == "seuclidean":
        if kwds.get("V") is None:
            raise ValueError("metric='seuclidean' needs V, the variance of each "
                             "feature (metric_params={'V': ...}).")
        V = np.asarray(kwds["V"], dtype=np.float64).reshape(-1)
        if V.shape[0] != n_features:
            raise ValueError(f"seuclidean: V must hold one variance per feature "
                             f"({n_features}); got {V.shape[0]}.")
        if np.any(~(V > 0)):
            raise ValueError("seuclidean: V must hold positive variances.")
        return np.diag(1.0 / np.sqrt(V)), None
    if metric == "mahalanobis":
        if kwds.get("VI") is not None:
            VI = np.asarray(kwds["VI"], dtype=np.float64)
        elif kwds.get("V") is not None:
            V = np.asarray(kwds["V"], dtype=np.float64)
            if V.ndim != 2 or V.shape[0] != V.shape[1]:
                raise ValueError(f"mahalanobis: V must be a square matrix; got "
                                 f"shape {V.shape}.")
            VI = np.linalg.inv(V)
        else:
            raise ValueError("metric='mahalanobis' needs VI (the inverse covariance) "
                             "or V (the covariance) (metric_params={'VI': ...}).")
        if VI.shape != (n_features, n_features):
            raise ValueError(f"mahalanobis: VI must have shape ({n_features}, "
                             f"{n_features}); got {VI.shape}.")
        # A square root of the symmetric part (the quadratic form sees only
        # that): L = U sqrt(lambda) from its eigendecomposition.
        lam, U = np.linalg.eigh(0.5 * (VI + VI.T))
        if lam.min(initial=0.0) < -1e-10 * max(abs(lam).max(initial=0.0), 1.0):
            return U * np.sqrt(np.abs(lam)), np.sign(lam)
        return U * np.sqrt(np.clip(lam, 0.0, None)), None
    if metric == "minkowski" and kwds.get("w") is not None:
        w = np.asarray(kwds["w"], dtype=np.float64).reshape(-1)
        if w.shape[0] != n_features:
            raise ValueError(f"minkowski: w must hold one weight per feature "
                             f"({n_features}); got {w.shape[0]}.")
        if np.any(~(w >= 0)):
            raise ValueError("minkowski: w must hold non-negative weights.")
        if np.isinf(p):
            raise ValueError("minkowski: weights w need a finite p.")
        return np.diag(w ** (1.0 / p)), None
    return None, None


def metric_code(metric, p=2.0):
    """The kernel code and order of a canonical metric name (no cosine/correlation).

    A Minkowski order of 1, 2 or inf is computed by its own (faster) code.
    """
    if metric == "minkowski":
        if p == 1:
            return dk.MANHATTAN, 1.0
        if p == 2:
            return dk.EUCLIDEAN, 2.0
        if np.isinf(p):
            return dk.CHEBYSHEV, np.inf
        return dk.MINKOWSKI, float(p)
    return _CODES[metric], 1.0


def prepare_rows(X, metric, transform=None):
    """The rows the kernel compares for ``metric``, float64 (a view when it can).

    ``transform``: the map of :func:`metric_transform`. Correlation centres
    each row and, like cosine, scales it to unit norm (the distance is then
    ``1 - x . y``); a constant row has no direction and stays zero (distance
    1 to every other row, as cosine's zero vector).
    """
    X = np.asarray(X)
    if metric in BOOLEAN_METRICS:
        return X != 0 if X.dtype != bool else X
    X = X if X.dtype == np.float64 else X.astype(np.float64)
    if transform is not None:
        X = X @ transform
    if metric == "correlation":
        X = X - X.mean(axis=1, keepdims=True)
    if metric in ("cosine", "correlation"):
        X = unit_rows(X)
    return np.ascontiguousarray(X)


def prepared_distances(A, B, metric, p=2.0, out=None, signs=None):
    """Distances between rows prepared by :func:`prepare_rows` (one thread).

    ``signs``: those of an indefinite mahalanobis ``VI`` (see :func:`metric_map`).
    """
    if out is None:
        out = np.empty((A.shape[0], B.shape[0]))
    if metric in ("cosine", "correlation"):
        np.dot(A, B.T, out=out)
        np.subtract(1.0, out, out=out)
        np.clip(out, 0.0, 2.0, out=out)
        return out
    if metric in BOOLEAN_METRICS:
        return _boolean_distances(A, B, metric, out)
    code, p = metric_code(metric, p)
    w = np.empty(0)
    if signs is not None:
        code, p, w = dk.WMINKOWSKI, 2.0, signs
    dk.distance_block(A, B, code, p, w, out)
    return out


def _boolean_distances(A, B, metric, out):
    """The boolean metrics from the counts n_tt (one BLAS product) and the row sums.

    Counts are small integers, exact in float64; the formulas (and 0 / 0 = 0)
    are those of ``pair_distance`` (a pair at a time there, a block here:
    the product is several times faster than counting coordinate by
    coordinate).
    """
    Af, Bf = A.astype(np.float64), B.astype(np.float64)
    m = A.shape[1]
    n_tt = np.dot(Af, Bf.T, out=out)
    a = Af.sum(axis=1)[:, np.newaxis]
    b = Bf.sum(axis=1)[np.newaxis, :]
    n_tf, n_ft = a - n_tt, b - n_tt
    r = n_tf + n_ft
    n_ff = m - n_tt - r
    if metric == "jaccard":
        num, den = r, n_tt + r
    elif metric == "dice":
        num, den = r, 2.0 * n_tt + r
    elif metric in ("rogerstanimoto", "sokalmichener"):
        num, den = 2.0 * r, n_tt + n_ff + 2.0 * r
    elif metric == "russellrao":
        num, den = m - n_tt, np.full_like(n_tt, float(m))
    elif metric == "sokalsneath":
        num, den = 2.0 * r, n_tt + 2.0 * r
    else:  # yule
        num, den = 2.0 * n_tf * n_ft, n_tt * n_ff + n_tf * n_ft
    np.divide(num, den, out=out, where=den > 0)
    out[~(den > 0)] = 0.0
    return out


def pairwise_distances(X, Y=None, metric="euclidean", *, n_jobs=None, **kwds):
    """Distance matrix between the rows of X and those of Y, for many metrics.

    Each distance is written from scratch (numba kernels in
    ``skml.metrics._distance_kernels``, or a BLAS product for cosine and
    correlation), with scikit-learn's (and scipy's) metric names and meanings:

    - Minkowski family: ``"euclidean"`` (``"l2"``), ``"manhattan"``
      (``"cityblock"``, ``"l1"``), ``"chebyshev"`` (``"infinity"``),
      ``"minkowski"`` (``p``, and weights ``w``:
      ``(sum_i w_i |x_i - y_i|^p)^(1/p)``), ``"sqeuclidean"``;
    - weighted: ``"seuclidean"`` (variances ``V``:
      ``sqrt(sum_i (x_i - y_i)^2 / V_i)``), ``"mahalanobis"`` (``VI``, the
      inverse covariance, or ``V``: ``sqrt((x - y)^T VI (x - y))``); as in
      scikit-learn, when ``Y`` is None (or X) a missing ``V`` is
      ``var(X, ddof=1)`` and a missing ``VI`` is ``inv(cov(X.T))``, and with
      another ``Y`` they are required (ValueError);
    - ``"cosine"``, ``"correlation"`` (cosine of the centred rows),
      ``"canberra"`` ``sum |x_i - y_i| / (|x_i| + |y_i|)``, ``"braycurtis"``
      ``sum |x_i - y_i| / sum (|x_i| + |y_i|)`` (scikit-learn's neighbours';
      scipy's divides by ``sum |x_i + y_i|``, the same on non-negative data), ``"hamming"`` (fraction of
      differing coordinates), ``"haversine"`` (2 features, radians),
      ``"nan_euclidean"`` (Euclidean over the coordinates present in both,
      scaled by ``n_features / n_present``; NaN when none is);
    - boolean (non-zero is true): ``"jaccard"``, ``"dice"``,
      ``"rogerstanimoto"``, ``"sokalmichener"``, ``"russellrao"``,
      ``"sokalsneath"``, ``"yule"`` (formulas in
      ``skml.metrics._distance_kernels``);
    - a callable ``metric(x, y, **kwds)`` on two 1-d rows.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
        Dense input (sparse input only for a callable metric, which then
        receives 1-row CSR matrices).
    Y : array-like of shape (n_samples_Y, n_features), default=None
        The other rows; X if None.
    metric : str or callable, default="euclidean"
        One of the names above, or a callable.
    n_jobs : int, default=None
        Threads over blocks of rows of X (the kernels release the GIL).
    **kwds
        Metric arguments: ``p``, ``w`` (minkowski), ``V`` (seuclidean,
        mahalanobis), ``VI`` (mahalanobis); a callable's keyword arguments.

    Returns
    -------
    D : ndarray of shape (n_samples_X, n_samples_Y)
        Distances in float64.

    Notes
    -----
    A ratio 0 / 0 (two all-false boolean vectors, two zero vectors of
    braycurtis) is 0, and a constant row of correlation is at distance 1
    from every other row (as cosine's zero vector), where scipy returns NaN.
    Time O(n_X n_Y d) (the weighted metrics first map each row, O(n d^2)).

    Examples
    --------
    >>> from skml.metrics.pairwise import pairwise_distances
    >>> pairwise_distances([[1, 0, 1]], [[1, 1, 0], [1, 0, 1]], metric="jaccard")
    array([[0.66666667, 0.        ]])
    """
    if callable(metric):
        X = check_array(X, accept_sparse="csr", dtype=None, input_name="X",
                        ensure_all_finite=False)
        Y = X if Y is None else check_array(Y, accept_sparse="csr", dtype=None,
                                            input_name="Y", ensure_all_finite=False)
        out = np.empty((X.shape[0], Y.shape[0]))
        pairwise_callable(X, Y, metric, range(X.shape[0]), same=False, out=out,
                          kwds=kwds)
        return out
    if not isinstance(metric, str) or metric not in DISTANCE_ALIASES:
        raise ValueError(f"metric must be a callable or one of "
                         f"{sorted(DISTANCE_ALIASES)}; got {metric!r}.")
    name = DISTANCE_ALIASES[metric]
    finite = "allow-nan" if name == "nan_euclidean" else True
    same = Y is None or Y is X
    X = check_array(X, dtype=None, input_name="X", ensure_all_finite=finite)
    Y = X if same else check_array(Y, dtype=None, input_name="Y",
                                   ensure_all_finite=finite)
    missing = missing_data_param(name, kwds)
    if missing is not None:
        # As scikit-learn: estimated from X for X against itself only.
        if not same:
            raise missing_param_error(name, missing)
        kwds = {**kwds, **data_metric_params(name, X)}
    if X.shape[1] != Y.shape[1]:
        raise ValueError(f"X has {X.shape[1]} features, Y has {Y.shape[1]}.")
    if name == "haversine" and X.shape[1] != 2:
        raise ValueError("Haversine distance only valid in 2 dimensions (latitude, "
                         f"longitude); got {X.shape[1]} features.")
    p = kwds.get("p", 2.0)
    if name == "minkowski" and not (isinstance(p, Real) and p > 0):
        raise ValueError(f"minkowski: p must be a positive number; got {p!r}.")
    transform, signs = metric_map(name, X.shape[1], **kwds)
    A = prepare_rows(X, name, transform)
    B = A if Y is X else prepare_rows(Y, name, transform)
    out = np.empty((A.shape[0], B.shape[0]))
    n_threads = max(1, min(effective_n_jobs(n_jobs), A.shape[0]))
    slices = even_slices(A.shape[0], n_threads)
    if len(slices) == 1:
        return prepared_distances(A, B, name, p, out, signs)
    Parallel(n_jobs=n_threads, prefer="threads")(
        delayed(prepared_distances)(A[s], B, name, p, out[s], signs) for s in slices)
    return out


@fill_doc(kernel_X_Y=_KERNEL_X_Y)
def linear_kernel(X, Y=None, dense_output=True):
    """Linear kernel ``k(x, z) = <x, z>``.

    The plain inner product of notes A §1.5 (phi is the identity).

    Parameters
    ----------
    <kernel_X_Y>
    dense_output : bool, default=True
        When False and both X and Y are sparse, return a sparse matrix.

    Returns
    -------
    K : {ndarray, sparse matrix} of shape (n_samples_X, n_samples_Y)
        The Gram matrix ``X @ Y.T``.

    See Also
    --------
    polynomial_kernel : Powers of the shifted linear kernel.

    Notes
    -----
    One BLAS product, O(n_X n_Y d) time.

    Examples
    --------
    >>> from skml.metrics.pairwise import linear_kernel
    >>> linear_kernel([[0, 1], [1, 1]], [[1, 2], [0, 1]])
    array([[2., 1.],
           [3., 1.]])
    """
    check_param(dense_output, "dense_output", "linear_kernel", [bool])
    X, Y = check_pairwise_arrays(X, Y, "linear_kernel")
    return dot(X, Y.T, dense_output=dense_output)


def _affine_gram(X, Y, gamma, coef0, func):
    """``gamma <x, z> + coef0`` for every pair, ``gamma`` and ``coef0`` checked."""
    check_param(gamma, "gamma", func, _GAMMA)
    check_param(coef0, "coef0", func, _COEF0)
    X, Y = check_pairwise_arrays(X, Y, func)
    K = dot(X, Y.T)
    K *= _default_gamma(gamma, X)
    K += coef0
    return K


@fill_doc(kernel_X_Y=_KERNEL_X_Y, kernel_returns=_KERNEL_RETURNS)
def polynomial_kernel(X, Y=None, degree=3, gamma=None, coef0=1):
    """Polynomial kernel ``k(x, z) = (gamma <x, z> + coef0) ** degree``.

    D1's ``(<x, z> + 1)^p`` and D3's ``(x'z + c)^d`` are ``gamma=1`` with
    ``coef0=1`` or ``c`` (notes B §5.8); ``coef0=0, degree=2`` is the
    homogeneous quadratic kernel with the explicit map
    ``phi(x) = (x1^2, sqrt(2) x1 x2, x2^2)`` of notes A §1.5.

    Parameters
    ----------
    <kernel_X_Y>
    degree : float, default=3
        The power, at least 1.
    gamma : float, default=None
        Scale of the inner product, ``>= 0``. ``None`` means
        ``1 / n_features`` (set ``gamma=1`` for the notes' kernels).
    coef0 : float, default=1
        Constant added to the scaled inner product.

    <kernel_returns>

    See Also
    --------
    linear_kernel : The case ``degree=1, gamma=1, coef0=0``.

    Notes
    -----
    The Gram matrix is positive semi-definite for integer degrees and
    ``coef0 >= 0`` (closure of kernels under sums and products, notes B
    §5.8). One BLAS product, O(n_X n_Y d) time.

    Examples
    --------
    >>> from skml.metrics.pairwise import polynomial_kernel
    >>> polynomial_kernel([[1, 2]], [[3, 4]], degree=2, gamma=1, coef0=1)
    array([[144.]])
    """
    func = "polynomial_kernel"
    check_param(degree, "degree", func, [Interval(Real, 1, None, closed="left")])
    K = _affine_gram(X, Y, gamma, coef0, func)
    K **= degree
    return K


@fill_doc(kernel_X_Y=_KERNEL_X_Y, kernel_returns=_KERNEL_RETURNS)
def sigmoid_kernel(X, Y=None, gamma=None, coef0=1):
    """Sigmoid kernel ``k(x, z) = tanh(gamma <x, z> + coef0)``.

    D4's ``tanh(x . z)`` (``gamma=1, coef0=0``), which D4 relates to a
    one-hidden-layer tanh network (notes B §5.8). It is *not* a Mercer
    kernel for all parameters: its Gram matrix can be indefinite (see
    :func:`is_valid_kernel`).

    Parameters
    ----------
    <kernel_X_Y>
    gamma : float, default=None
        Scale of the inner product, ``>= 0``; ``None`` means ``1 / n_features``.
    coef0 : float, default=1
        Constant added inside the tanh.

    <kernel_returns>

    See Also
    --------
    is_valid_kernel : Detects indefinite Gram matrices.

    Notes
    -----
    One BLAS product then an element-wise tanh, O(n_X n_Y d) time.

    Examples
    --------
    >>> from skml.metrics.pairwise import sigmoid_kernel
    >>> sigmoid_kernel([[1, 0]], [[1, 1]], gamma=1, coef0=0).round(4)
    array([[0.7616]])
    """
    K = _affine_gram(X, Y, gamma, coef0, "sigmoid_kernel")
    np.tanh(K, out=K)
    return K


def rbf_kernel(X, Y=None, gamma=None):
    """Gaussian (RBF) kernel ``k(x, z) = exp(-gamma ||x - z||^2)``.

    The Gaussian kernel of notes B §5.8 in scikit-learn's parameterisation:
    D1's ``exp(-||x-z||^2 / sigma)`` is ``gamma = 1 / sigma`` and D3's
    ``exp(-||x-z||^2 / (2 sigma^2))`` is ``gamma = 1 / (2 sigma^2)``; see
    :func:`gamma_from_sigma`. Its feature map is infinite-dimensional.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Samples, one per row.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), \
            default=None
        Second set of samples; ``None`` means ``Y = X`` (the diagonal is then
        exactly 1).
    gamma : float, default=None
        Inverse squared length scale, ``>= 0``; ``None`` means
        ``1 / n_features``.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        The kernel matrix, with values in (0, 1].

    See Also
    --------
    gamma_from_sigma : ``gamma`` for the notes' ``sigma`` conventions.
    euclidean_distances : The squared distances used here.

    Notes
    -----
    The squared distances come from :func:`euclidean_distances` (one BLAS
    product), and the exponential is applied sub-block by sub-block while
    each is still in cache, instead of in extra passes over the whole
    matrix. O(n_X n_Y d) time.

    Examples
    --------
    >>> from skml.metrics.pairwise import gamma_from_sigma, rbf_kernel
    >>> X = [[0, 0], [1, 1]]
    >>> rbf_kernel(X, gamma=gamma_from_sigma(1.0, convention="D3")).round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """
    func = "rbf_kernel"
    check_param(gamma, "gamma", func, _GAMMA)
    X, Y = check_pairwise_arrays(X, Y, func)
    neg_gamma = -_default_gamma(gamma, X)

    def finalize(block):
        block *= neg_gamma
        np.exp(block, out=block)

    return squared_distances(
        X,
        Y,
        None,
        None,
        same=Y is X,
        working_memory=DEFAULT_WORKING_MEMORY,
        finalize=finalize,
    )


def laplacian_kernel(X, Y=None, gamma=None, norm="l1"):
    """Laplacian kernel ``k(x, z) = exp(-gamma ||x - z||)``, L1 or L2 norm.

    ``norm="l1"`` is scikit-learn's ``laplacian_kernel``. ``norm="l2"`` is the
    Laplace kernel of the notes (D1 Ch. 7, notes B §5.8),
    ``exp(-||x - z||_2 / sigma)`` with the **unsquared** Euclidean norm, for
    ``gamma = 1 / sigma``; scikit-learn has no such kernel (catalogue B §0.1).
    Both are positive definite (the L1 one is a product of one-dimensional
    Laplace kernels; the L2 one is ``exp(-sqrt(t))`` of the squared
    distance, a completely monotone function).

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
        Samples, one per row. Sparse input is not supported (``TypeError``).
    Y : array-like of shape (n_samples_Y, n_features), default=None
        Second set of samples; ``None`` means ``Y = X``.
    gamma : float, default=None
        Inverse length scale, ``> 0``; ``None`` means ``1 / n_features``.
    norm : {"l1", "l2"}, default="l1"
        The distance inside the exponential.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        The kernel matrix (float32 for float32 X and Y).

    See Also
    --------
    rbf_kernel : The Gaussian kernel, with the squared L2 distance.

    Notes
    -----
    The distances are computed exactly by ``scipy.spatial.distance.cdist``
    (``cityblock`` or ``euclidean``) rather than by the norm expansion: the
    unsquared distance near 0 would otherwise carry an error of
    ``sqrt(eps) * ||x||``. O(n_X n_Y d) time.

    Examples
    --------
    >>> from skml.metrics.pairwise import laplacian_kernel
    >>> X = [[0, 0], [3, 4]]
    >>> laplacian_kernel(X, gamma=1 / 5, norm="l2").round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    >>> laplacian_kernel(X, gamma=1 / 7, norm="l1").round(4)
    array([[1.    , 0.3679],
           [0.3679, 1.    ]])
    """
    func = "laplacian_kernel"
    check_param(gamma, "gamma", func, [Interval(Real, 0, None, closed="neither"), None])
    check_param(norm, "norm", func, [Options({"l1", "l2"})])
    X, Y = check_pairwise_arrays(X, Y, func, accept_sparse=False)
    K = cdist(X, Y, "cityblock" if norm == "l1" else "euclidean")
    K *= -_default_gamma(gamma, X)
    np.exp(K, out=K)
    return K.astype(X.dtype, copy=False)


def _non_negative(A, name, func):
    if np.any(A < 0):
        raise ValueError(f"{func} needs non-negative values: {name} contains negative "
                         "values (the chi-squared kernels compare histograms).")


def additive_chi2_kernel(X, Y=None):
    """Additive chi-squared kernel ``k(x, z) = -sum_t (x_t - z_t)^2 / (x_t + z_t)``.

    For non-negative features such as histograms (bag of visual words, term
    counts); a coordinate where both are 0 adds 0. Being minus a distance it
    is only conditionally positive definite: use :func:`chi2_kernel` where a
    kernel method needs a positive definite one.

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
        Non-negative samples, one per row. Sparse input is not supported
        (``TypeError``), as in scikit-learn.
    Y : array-like of shape (n_samples_Y, n_features), default=None
        Second set of non-negative samples; ``None`` means ``Y = X``.

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        The kernel matrix (float32 for float32 X and Y; summed in float64).

    See Also
    --------
    chi2_kernel : Its exponential, positive definite.

    Notes
    -----
    One numba pass over each pair's coordinates, O(n_X n_Y d) time, rows
    split over threads by :func:`pairwise_kernels`' ``n_jobs``.

    Examples
    --------
    >>> from skml.metrics.pairwise import additive_chi2_kernel
    >>> additive_chi2_kernel([[0, 1], [1, 1]], [[1, 3]])
    array([[-2.],
           [-1.]])
    """
    func = "additive_chi2_kernel"
    X, Y = check_pairwise_arrays(X, Y, func, accept_sparse=False)
    _non_negative(X, "X", func)
    if Y is not X:
        _non_negative(Y, "Y", func)
    K = np.empty((X.shape[0], Y.shape[0]))
    additive_chi2_block(X, Y, K)
    return K.astype(X.dtype, copy=False)


def chi2_kernel(X, Y=None, gamma=1.0):
    """Exponential chi-squared kernel ``k(x, z) = exp(-gamma sum_t (x_t - z_t)^2 / (x_t + z_t))``.

    The exponential of ``gamma`` times :func:`additive_chi2_kernel`, positive
    definite on non-negative data (Zhang et al. 2007's kernel for histograms;
    scikit-learn's ``chi2_kernel``, with its default ``gamma=1``).

    Parameters
    ----------
    X : array-like of shape (n_samples_X, n_features)
        Non-negative samples, one per row. Sparse input is not supported
        (``TypeError``).
    Y : array-like of shape (n_samples_Y, n_features), default=None
        Second set of non-negative samples; ``None`` means ``Y = X``.
    gamma : float, default=1.0
        Scale of the chi-squared distance, ``>= 0``; ``None`` means 1.0 (so
        the estimators whose ``gamma=None`` default stands for "the kernel's
        default", such as KernelRidge, work with ``kernel="chi2"``, where
        scikit-learn's raise).

    Returns
    -------
    K : ndarray of shape (n_samples_X, n_samples_Y)
        The kernel matrix, in (0, 1] (float32 for float32 X and Y).

    See Also
    --------
    additive_chi2_kernel : The exponent without ``gamma``.

    Examples
    --------
    >>> from skml.metrics.pairwise import chi2_kernel
    >>> chi2_kernel([[0, 1], [1, 1]], [[1, 3]], gamma=2.0).round(4)
    array([[0.0183],
           [0.1353]])
    """
    check_param(gamma, "gamma", "chi2_kernel", _GAMMA)
    K = additive_chi2_kernel(X, Y)
    K *= 1.0 if gamma is None else gamma
    np.exp(K, out=K)
    return K


def cosine_similarity(X, Y=None, dense_output=True):
    """Cosine kernel ``k(x, z) = <x, z> / (||x|| ||z||)``.

    The linear kernel of the rows scaled to unit L2 norm; a zero row stays
    zero (its similarity to every row is 0), as in scikit-learn. Sparse X and
    Y are kept sparse for the product.

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features)
        Samples, one per row.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), \
            default=None
        Second set of samples; ``None`` means ``Y = X``.
    dense_output : bool, default=True
        When False and both X and Y are sparse, return a sparse matrix.

    Returns
    -------
    K : {ndarray, sparse matrix} of shape (n_samples_X, n_samples_Y)
        The similarities, in [-1, 1].

    See Also
    --------
    linear_kernel : The same product without the scaling.

    Examples
    --------
    >>> from skml.metrics.pairwise import cosine_similarity
    >>> cosine_similarity([[3, 4], [0, 0]], [[1, 0]])
    array([[0.6],
           [0. ]])
    """
    func = "cosine_similarity"
    check_param(dense_output, "dense_output", func, [bool])
    X, Y = check_pairwise_arrays(X, Y, func)
    Xn = unit_rows(X)
    Yn = Xn if Y is X else unit_rows(Y)
    return dot(Xn, Yn.T, dense_output=dense_output)


def gamma_from_sigma(sigma, convention="D1"):
    """``gamma`` of :func:`rbf_kernel` for the notes' Gaussian ``sigma``.

    The course notes write the Gaussian kernel three ways (catalogue B §15):

    - ``"D1"``: ``exp(-||x - z||^2 / sigma)``, so ``gamma = 1 / sigma``
      (also D1's Laplace kernel ``exp(-||x - z||_2 / sigma)``:
      ``laplacian_kernel(gamma=1 / sigma, norm="l2")``);
    - ``"D3"``: ``exp(-||x - z||^2 / (2 sigma^2))``, so
      ``gamma = 1 / (2 sigma^2)``;
    - D4's ``exp(-1/2 ||x - z||)`` has no ``sigma``; read with the squared
      norm it is ``gamma = 0.5``.

    Parameters
    ----------
    sigma : float
        The width in the chosen convention, ``> 0``.
    convention : {"D1", "D3"}, default="D1"
        Which notes' formula ``sigma`` belongs to.

    Returns
    -------
    gamma : float
        The matching ``gamma`` of :func:`rbf_kernel`.

    See Also
    --------
    rbf_kernel : The kernel that takes the result.

    Examples
    --------
    >>> from skml.metrics.pairwise import gamma_from_sigma
    >>> gamma_from_sigma(2.0, convention="D1")
    0.5
    >>> gamma_from_sigma(2.0, convention="D3")
    0.125
    """
    func = "gamma_from_sigma"
    check_param(sigma, "sigma", func, [Interval(Real, 0, np.inf, closed="neither")])
    check_param(convention, "convention", func, [Options({"D1", "D3"})])
    sigma = float(sigma)
    return 1.0 / sigma if convention == "D1" else 1.0 / (2.0 * sigma**2)


PAIRWISE_KERNEL_FUNCTIONS = {
    "additive_chi2": additive_chi2_kernel,
    "chi2": chi2_kernel,
    "cosine": cosine_similarity,
    "laplacian": laplacian_kernel,
    "linear": linear_kernel,
    "poly": polynomial_kernel,
    "polynomial": polynomial_kernel,
    "rbf": rbf_kernel,
    "sigmoid": sigmoid_kernel,
}

KERNEL_PARAMS = {
    "additive_chi2": frozenset(),
    "chi2": frozenset({"gamma"}),
    "cosine": frozenset({"dense_output"}),
    "laplacian": frozenset({"gamma", "norm"}),
    "linear": frozenset({"dense_output"}),
    "poly": frozenset({"gamma", "degree", "coef0"}),
    "polynomial": frozenset({"gamma", "degree", "coef0"}),
    "rbf": frozenset({"gamma"}),
    "sigmoid": frozenset({"gamma", "coef0"}),
}


def _check_precomputed(X, Y):
    X = check_array(X, dtype=float_dtype(X, None), input_name="X")
    if Y is None:
        n_indexed = X.shape[0]
    else:
        n_indexed = check_array(Y, accept_sparse="csr", input_name="Y").shape[0]
    if X.shape[1] != n_indexed:
        raise ValueError(
            "metric='precomputed' expects X to be a kernel matrix of shape "
            f"(n_queries, n_indexed) = (n_queries, {n_indexed}); got X of shape "
            f"{X.shape}."
        )
    return X


@fill_doc(kernel_returns=_KERNEL_RETURNS)
def pairwise_kernels(
    X, Y=None, metric="linear", *, filter_params=False, n_jobs=None, **kwds
):
    """Kernel matrix between X and Y for a named kernel or a callable.

    The Gram matrix ``K_ij = k(x_i, y_j)`` used by the kernel methods of
    notes A §1.5 / notes B §5.9 (kernel SVM, kernel k-means, spectral
    clustering).

    Parameters
    ----------
    X : {array-like, sparse matrix} of shape (n_samples_X, n_features) or \
            (n_samples_X, n_samples_Y)
        Samples, or a kernel matrix when ``metric="precomputed"``.
    Y : {array-like, sparse matrix} of shape (n_samples_Y, n_features), \
            default=None
        Second set of samples; ``None`` means ``Y = X``. With
        ``metric="precomputed"`` only its number of rows is used, to check X.
    metric : str or callable, default="linear"
        A key of :data:`PAIRWISE_KERNEL_FUNCTIONS` (``"linear"``, ``"poly"``,
        ``"polynomial"``, ``"rbf"``, ``"sigmoid"``, ``"laplacian"``,
        ``"chi2"``, ``"additive_chi2"``, ``"cosine"``),
        ``"precomputed"`` (X is returned, validated), or a callable. A callable
        is called on each pair of rows ``metric(x, y, **kwds)`` and must
        return a number; one of this module's kernel functions (e.g.
        ``rbf_kernel``) is recognised and called once on the whole matrices.
    filter_params : bool, default=False
        Drop the entries of ``kwds`` that the named kernel does not take
        (listed in :data:`KERNEL_PARAMS`); otherwise they raise ``TypeError``.
    n_jobs : int, default=None
        Number of threads, each computing a slice of the rows of X. ``None``
        means 1 (unless in a joblib context), ``-1`` all cores.
    **kwds : dict
        Parameters of the kernel (``gamma``, ``degree``, ``coef0``, ``norm``)
        or of the callable.

    <kernel_returns>

    See Also
    --------
    is_valid_kernel : Mercer check of the result.

    Notes
    -----
    For a per-pair callable the cost is one Python call per pair, halved
    when Y is X (only the upper triangle is evaluated, then mirrored).
    Threads only help a callable that releases the GIL (numpy on large
    rows); the named kernels already use multithreaded BLAS for the product.
    Unlike scikit-learn, a callable's X and Y must be 2-d (their number of
    columns is not checked).

    Examples
    --------
    >>> from skml.metrics.pairwise import pairwise_kernels
    >>> X = [[0, 0, 0], [1, 1, 1]]
    >>> Y = [[1, 0, 0], [1, 1, 0]]
    >>> pairwise_kernels(X, Y, metric="linear")
    array([[0., 0.],
           [1., 2.]])
    >>> pairwise_kernels(X, Y, metric=lambda x, y: min(x.sum(), y.sum()))
    array([[0., 0.],
           [1., 2.]])
    """
    func = "pairwise_kernels"
    check_param(filter_params, "filter_params", func, [bool])
    check_param(n_jobs, "n_jobs", func, [Interval(Integral, None, None), None])
    if isinstance(metric, str):
        if metric == "precomputed":
            return _check_precomputed(X, Y)
        if metric not in PAIRWISE_KERNEL_FUNCTIONS:
            names = sorted(PAIRWISE_KERNEL_FUNCTIONS) + ["precomputed"]
            raise InvalidParameterError(
                f"Unknown kernel metric={metric!r} in {func}; use one of "
                f"{names} or a callable."
            )
        allowed = KERNEL_PARAMS[metric]
        if filter_params:
            kwds = {k: v for k, v in kwds.items() if k in allowed}
        elif set(kwds) - allowed:
            raise TypeError(
                f"Unexpected parameter(s) {sorted(set(kwds) - allowed)} for "
                f"kernel {metric!r}, which takes {sorted(allowed)}; pass "
                "filter_params=True to drop them."
            )
        kernel, vectorised = PAIRWISE_KERNEL_FUNCTIONS[metric], True
    elif callable(metric):
        kernel = metric
        vectorised = metric in set(PAIRWISE_KERNEL_FUNCTIONS.values())
    else:
        raise InvalidParameterError(
            f"The 'metric' parameter of {func} must be a str or a callable. "
            f"Got {metric!r} instead."
        )

    n_threads = effective_n_jobs(n_jobs)
    if vectorised and (n_threads == 1 or kwds.get("dense_output") is False):
        return kernel(X, Y, **kwds)
    if vectorised:
        X, Y = check_pairwise_arrays(X, Y, func)
        dtype = X.dtype
    else:
        X, Y = check_pairwise_arrays(
            X, Y, func, dtype="numeric", check_n_features=False
        )
        dtype = float_dtype(X, Y)
    same = Y is X
    out = np.zeros((X.shape[0], Y.shape[0]), dtype=dtype)
    slices = even_slices(X.shape[0], n_threads)

    if vectorised:

        def fill(rows):
            out[rows] = kernel(X[rows], Y, **kwds)

        tasks = (delayed(fill)(rows) for rows in slices)
    else:
        tasks = (
            delayed(pairwise_callable)(
                X, Y, kernel, rows, same=same, out=out, kwds=kwds
            )
            for rows in slices
        )
    # The tasks fill ``out`` in place: threads even under a process backend
    # (which would override a mere prefer="threads" and leave ``out`` empty).
    Parallel(n_jobs=len(slices), require="sharedmem")(tasks)

    if same and not vectorised:
        lower = np.tril_indices(X.shape[0], -1)
        out[lower] = out.T[lower]
    elif same and kernel is rbf_kernel:
        # A row slice of X is not Y, so its self-distances were not zeroed.
        np.fill_diagonal(out, 1.0)
    return out


# -- kernel algebra (notes B §5.8, D1 Ch. 7 closure rules) ---------------------
# The closure rules make new kernels from old: for kernels k1, k2 and c > 0,
# k1 + k2, k1 * k2 (entrywise) and c k1 are kernels, since sums, Hadamard
# products (Schur's product theorem) and positive multiples of PSD Gram
# matrices are PSD. skml.gaussian_process.kernels has the same algebra for
# its covariance objects (Sum, Product, ConstantKernel) with hyper-parameters
# and gradients; these three functions are its plain counterpart for the
# pairwise kernels, with no hyper-parameter machinery, usable wherever a
# callable kernel is (``SVC(kernel=...)``, ``KernelRidge(kernel=...)``). A
# GP kernel object is a callable ``k(X, Y)`` too and may be an operand.


class CombinedKernel:
    """A sum or an entrywise product of kernels, times a positive constant.

    Made by :func:`kernel_sum`, :func:`kernel_product` and
    :func:`kernel_scale`; calling it as ``k(X, Y=None)`` returns the kernel
    matrix. Picklable, so an estimator holding one can be saved.

    Parameters
    ----------
    operation : {"sum", "product"}
        How the operands' matrices combine.
    kernels : tuple of str or callable
        Kernel names of :func:`pairwise_kernels` (default parameters) or
        callables ``k(X, Y)`` returning a kernel matrix (e.g.
        ``functools.partial(rbf_kernel, gamma=0.5)``).
    scale : float, default=1.0
        The positive constant the result is multiplied by.
    """

    def __init__(self, operation, kernels, scale=1.0):
        self.operation = operation
        self.kernels = tuple(kernels)
        self.scale = scale

    def __call__(self, X, Y=None):
        out = None
        for kernel in self.kernels:
            if isinstance(kernel, str):
                K = pairwise_kernels(X, Y, metric=kernel)
            else:
                K = kernel(X, X if Y is None else Y)
            K = np.asarray(K.toarray() if sp.issparse(K) else K, dtype=np.float64)
            if out is None:
                out = K.copy()
            elif K.shape != out.shape:
                raise ValueError(
                    f"The combined kernels return matrices of different shapes: "
                    f"{out.shape} and {K.shape}."
                )
            elif self.operation == "sum":
                out += K
            else:
                out *= K
        if self.scale != 1.0:
            out *= self.scale
        return out

    def __repr__(self):
        names = [k if isinstance(k, str) else repr(k) for k in self.kernels]
        body = (" + " if self.operation == "sum" else " * ").join(names)
        return f"{self.scale!r} * ({body})" if self.scale != 1.0 else f"({body})"


def _check_operands(kernels, func):
    if len(kernels) == 0:
        raise ValueError(f"{func} needs at least one kernel.")
    for k in kernels:
        if isinstance(k, str):
            if k not in PAIRWISE_KERNEL_FUNCTIONS:
                raise ValueError(
                    f"{func}: unknown kernel name {k!r}; expected one of "
                    f"{sorted(PAIRWISE_KERNEL_FUNCTIONS)} or a callable."
                )
        elif not callable(k):
            raise TypeError(
                f"{func}: each kernel must be a name or a callable k(X, Y); got "
                f"{type(k).__name__}."
            )
    return tuple(kernels)


@fill_doc(combined_sections=_COMBINED_SECTIONS)
def kernel_sum(*kernels):
    """The sum of kernels, ``k(x, z) = sum_m k_m(x, z)``.

    A sum of kernels is a kernel (notes B §5.8, D1 Ch. 7 closure rules): its
    Gram matrix is a sum of PSD matrices. Its feature map is the
    concatenation of the operands' feature maps.

    <combined_sections>

    See Also
    --------
    kernel_product : The entrywise product.
    kernel_scale : A positive multiple.
    skml.gaussian_process.kernels.Sum : The same rule for the covariance
        objects of the Gaussian process, with hyper-parameters.

    Examples
    --------
    >>> from functools import partial
    >>> import numpy as np
    >>> from skml.metrics.pairwise import kernel_sum, rbf_kernel
    >>> X = np.array([[0.0, 0.0], [1.0, 2.0]])
    >>> k = kernel_sum("linear", partial(rbf_kernel, gamma=0.2))
    >>> k(X).round(4)
    array([[1.    , 0.3679],
           [0.3679, 6.    ]])
    """
    return CombinedKernel("sum", _check_operands(kernels, "kernel_sum"))


@fill_doc(combined_sections=_COMBINED_SECTIONS)
def kernel_product(*kernels):
    """The entrywise product of kernels, ``k(x, z) = prod_m k_m(x, z)``.

    A product of kernels is a kernel (notes B §5.8, D1 Ch. 7 closure rules):
    by Schur's product theorem the entrywise product of PSD matrices is
    PSD. Its feature map is the tensor product of the operands' maps.

    <combined_sections>

    See Also
    --------
    kernel_sum : The sum.
    skml.gaussian_process.kernels.Product : The same rule for the covariance
        objects of the Gaussian process.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.metrics.pairwise import kernel_product
    >>> X = np.array([[1.0, 0.0], [1.0, 2.0]])
    >>> kernel_product("linear", "linear")(X)  # (<x, z>)^2
    array([[ 1.,  1.],
           [ 1., 25.]])
    """
    return CombinedKernel("product", _check_operands(kernels, "kernel_product"))


@fill_doc(combined_returns=_COMBINED_RETURNS)
def kernel_scale(kernel, c):
    """The kernel ``k(x, z) = c k_1(x, z)`` for a constant ``c > 0``.

    A positive multiple of a kernel is a kernel (notes B §5.8, D1 Ch. 7
    closure rules); its feature map is ``sqrt(c) phi``.

    Parameters
    ----------
    kernel : str or callable
        A name accepted by :func:`pairwise_kernels` or a callable
        ``k(X, Y)``; a :class:`CombinedKernel` keeps its operands.
    c : float
        The multiplier, ``> 0``.

    <combined_returns>

    See Also
    --------
    kernel_sum : The sum.
    skml.gaussian_process.kernels.ConstantKernel : The multiplier of the
        Gaussian process's covariance objects.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.metrics.pairwise import kernel_scale
    >>> kernel_scale("linear", 2.0)(np.array([[1.0, 2.0]]))
    array([[10.]])
    """
    func = "kernel_scale"
    check_param(c, "c", func, [Interval(Real, 0, np.inf, closed="neither")])
    (kernel,) = _check_operands((kernel,), func)
    if isinstance(kernel, CombinedKernel):
        return CombinedKernel(kernel.operation, kernel.kernels, kernel.scale * float(c))
    return CombinedKernel("sum", (kernel,), float(c))


def is_valid_kernel(kernel, X=None, *, tol=1e-8, **kwds):
    """Check Mercer's condition on a sample (Gram matrix symmetric and PSD).

    Mercer's theorem (notes A §1.6, D1 Ch. 7): a symmetric ``k`` is an inner
    product ``<phi(x), phi(z)>`` in some feature space iff every Gram matrix
    ``K_ij = k(x_i, x_j)`` is positive semi-definite. On one sample this is a
    necessary condition only: ``True`` does not prove ``k`` is a kernel,
    ``False`` proves it is not.

    Parameters
    ----------
    kernel : str, callable or array-like of shape (n_samples, n_samples)
        A name accepted by :func:`pairwise_kernels` (``"rbf"``, ``"poly"``,
        ...), a callable ``kernel(X, Y, **kwds)`` returning the kernel matrix
        between the rows of X and Y, or a precomputed square Gram matrix.
    X : array-like of shape (n_samples, n_features), default=None
        The sample; required unless ``kernel`` is a matrix (then, if given,
        only its number of rows is checked against the matrix).
    tol : float, default=1e-8
        Relative tolerance: asymmetry up to ``tol * max|K_ij|`` and
        eigenvalues down to ``-tol * max|lambda|`` are accepted, to absorb
        rounding.
    **kwds : dict
        Parameters of the kernel (``gamma``, ``degree``, ...).

    Returns
    -------
    valid : bool
        Whether the Gram matrix on X is symmetric positive semi-definite.

    See Also
    --------
    pairwise_kernels : Builds the Gram matrix for a named kernel.

    Notes
    -----
    One symmetric eigendecomposition (``scipy.linalg.eigvalsh``), O(n^3)
    time: use a sample of a few hundred points.

    References
    ----------
    .. [1] S. Shalev-Shwartz and S. Ben-David, "Understanding Machine
       Learning", Cambridge University Press, 2014, Lemma 16.2.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.metrics.pairwise import euclidean_distances, is_valid_kernel
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0]])
    >>> is_valid_kernel("rbf", X, gamma=0.5)
    True
    >>> is_valid_kernel(lambda A, B: -euclidean_distances(A, B, squared=True), X)
    False
    """
    func = "is_valid_kernel"
    check_param(tol, "tol", func, [Interval(Real, 0, None, closed="left")])
    if isinstance(kernel, str) or callable(kernel):
        if X is None:
            raise ValueError(f"{func} needs the sample X when kernel is {kernel!r}.")
        if isinstance(kernel, str):
            G = pairwise_kernels(X, metric=kernel, **kwds)
        else:
            X = check_array(X, accept_sparse="csr", dtype="numeric", input_name="X")
            G = kernel(X, X, **kwds)
    else:
        if kwds:
            raise TypeError(
                f"{func} got kernel parameters {sorted(kwds)} with a precomputed "
                "Gram matrix."
            )
        G = kernel
        if X is not None:
            n_samples = check_array(X, accept_sparse="csr", input_name="X").shape[0]
            if np.shape(G)[0] != n_samples:
                raise ValueError(
                    f"The Gram matrix has shape {np.shape(G)} but X has "
                    f"{n_samples} samples."
                )
    if sp.issparse(G):
        G = G.toarray()
    G = check_array(G, dtype=np.float64, input_name="kernel matrix")
    if G.shape[0] != G.shape[1]:
        raise ValueError(f"A Gram matrix must be square; got shape {G.shape}.")
    scale = np.abs(G).max()
    if np.abs(G - G.T).max() > tol * scale:
        return False
    eigenvalues = scipy.linalg.eigvalsh(G, check_finite=False)
    return bool(eigenvalues[0] >= -tol * np.abs(eigenvalues).max())
