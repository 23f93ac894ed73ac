"""A power-of-two rescaling for data of extreme magnitude (issue 23).

Squares and products of float64 values overflow above ~1e154 and underflow
(or lose precision as subnormals) below ~1e-154, so ``X * 1e300`` or
``X * 1e-300`` breaks every sum of squares, distance and Gram matrix although
the values themselves are finite. Scale-invariant (or scale-equivariant)
computations can instead run on ``X / s`` and map their result back.

``s`` is a power of two: dividing by it only changes the exponent of each
value, so it is exact (short of values pushed into the subnormal range, far
below the largest one), and results map back exactly too. Inside the safe
range ``s`` is 1 and callers skip the rescaling altogether, so data of normal
magnitude give bit-identical results.
"""

import numpy as np
import scipy.sparse as sp

__all__ = [
    "SAFE_MAGNITUDE",
    "SAFE_MAGNITUDE_FLOAT32",
    "far_offset",
    "magnitude_scale",
    "max_abs",
    "safe_magnitude",
]

# max |x| within [2^-400, 2^400] (about 3.9e-121 to 2.6e120) needs no
# rescaling: squares stay within [2^-800, 2^800], so a sum of 10^12 of them
# neither overflows nor loses precision to subnormals.
SAFE_MAGNITUDE = (2.0**-400, 2.0**400)
# The same for computations carried out in float32 (largest 2^128, smallest
# normal 2^-126): squares within [2^-80, 2^80] leave room for sums of 2^40.
SAFE_MAGNITUDE_FLOAT32 = (2.0**-40, 2.0**40)


def safe_magnitude(dtype):
    """The safe range of max |x| for arithmetic in ``dtype`` (float32 or wider)."""
    return SAFE_MAGNITUDE_FLOAT32 if np.dtype(dtype) == np.float32 else SAFE_MAGNITUDE


def max_abs(X):
    """Largest finite ``|x|`` of a dense or sparse array (0.0 if none)."""
    data = X.data if sp.issparse(X) else np.asarray(X)
    if data.size == 0:
        return 0.0
    # max and min: two reductions, no temporary the size of X. NaN (allowed
    # by some estimators) propagates, so finite values are selected only then.
    m = max(abs(float(np.max(data))), abs(float(np.min(data))))
    if not np.isfinite(m):
        finite = np.abs(data[np.isfinite(data)])
        m = float(finite.max()) if finite.size else 0.0
    return m


def magnitude_scale(*arrays, magnitude=None, safe=SAFE_MAGNITUDE):
    """A power of two ``s`` bringing the largest ``|x|`` near 1, or ``1.0``.

    Parameters
    ----------
    *arrays : ndarray or sparse matrix
        The data; the largest finite absolute value over all of them counts.
    magnitude : float, default=None
        That largest value, when the caller already knows it (then
        ``arrays`` are ignored).
    safe : tuple of float, default=SAFE_MAGNITUDE
        The range of the largest value that needs no rescaling; for
        arithmetic in float32, ``safe_magnitude(np.float32)``.

    Returns
    -------
    s : float
        ``1.0`` when the largest absolute value is 0 or within ``safe``;
        else ``2**e`` with ``max |x| / s`` in [0.5, 1).
    """
    m = magnitude if magnitude is not None else max(
        (max_abs(A) for A in arrays), default=0.0)
    low, high = safe
    if not (m > 0.0 and np.isfinite(m)) or low <= m <= high:
        return 1.0
    return float(np.ldexp(1.0, int(np.frexp(m)[1])))


# A column whose mean exceeds this many times its range (X + 1e8) is "far
# from the origin": scores then carry an offset that dwarfs their
# spread, the curvature of a linear model's loss grows as (mean / std)^2,
# second-order solvers stall and fixed gradient steps diverge.
OFFSET_RATIO = 2.0**10


def far_offset(X):
    """Column means of dense ``X`` if a column sits far from the origin, else None.

    For models with an unpenalised intercept, fitting on ``X - mu`` and
    mapping back with ``b = b' - w mu`` solves the same problem; callers
    shift only when this returns an array, so that ordinary data (and their
    results) are left exactly as they were. Constant columns do not count.
    """
    if sp.issparse(X) or X.shape[0] < 2:
        return None
    # The range stands for the spread: no temporary the size of X (X.std
    # makes one) and no cancellation (E[x²] - mean² is all rounding here).
    spread = np.max(X, axis=0) - np.min(X, axis=0)
    mean = X.mean(axis=0)
    if np.any((np.abs(mean) > OFFSET_RATIO * spread) & (spread > 0)):
        return mean
    return None


def check_trainable_magnitude(X, owner, *, what="fixed step sizes", advice=None,
                              check_offset=True):
    """ValueError for data that a fit with absolute step sizes cannot learn from.

    Fixed learning rates, an absolute clip norm or an absolute noise scale are
    not scale-equivariant: at X * 1e300 the updates overflow or are negligible
    against x, at X * 1e-300 they vanish (or the noise swamps the data), at
    X + 1e8 fixed steps cannot cancel the offset. Such fits would return a
    model at chance without a word; this refuses the data instead, naming the
    magnitude and what to do.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
    owner : str
        The estimator's name, for the message.
    what : str, default="fixed step sizes"
        What in the estimator is absolute.
    advice : str, default=None
        What to do; default: standardise the features (StandardScaler).
    check_offset : bool, default=True
        Also refuse columns far from the origin (see :func:`far_offset`).
    """
    advice = advice or "Scale the features first, e.g. with StandardScaler."
    m = max_abs(X)
    if magnitude_scale(magnitude=m) != 1.0:
        low, high = SAFE_MAGNITUDE
        raise ValueError(
            f"X holds values of magnitude up to {m:.3g}, outside the range "
            f"[{low:.3g}, {high:.3g}] where the {what} of {owner} can fit a model. "
            f"{advice}")
    if check_offset:
        mu = far_offset(X)
        if mu is not None:
            raise ValueError(
                f"The columns of X sit far from the origin (mean up to "
                f"{max_abs(mu):.3g}, over 1024 times their range): the {what} of "
                f"{owner} cannot fit the offset. Centre and scale X first, e.g. with "
                "StandardScaler.")
