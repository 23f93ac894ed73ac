r"""Differentially private statistics (notes B §13.2).

Sensitivity :math:`S(q) = \max_{D \sim D'} |q(D) - q(D')|`, over neighbouring
datasets: *unbounded* DP adds or removes a row, *bounded* DP replaces one.

================  ======================  ===========================
query             unbounded               bounded (n public)
================  ======================  ===========================
count             1                       1
histogram (ℓ1)    1                       2 (one count down, one up)
sum in [a, b]     max(|a|, |b|)           b - a
================  ======================  ===========================

The notes print S = 2 for a bounded *count*; that is the histogram's value
(a replaced row moves one bin down and another up), while a single count
changes by at most 1 under replacement, which is what is used here.

Sensitivity is bounded by clipping the data to public bounds (a bias-variance
trade-off), and functions of unknown sensitivity by subsample-and-aggregate.
Bounds are always arguments: inferring them from the data would leak it.

Every function takes ``accountant=None``: a :class:`~skml.privacy.BudgetAccountant`
on which the query's ε is spent before anything is released (a query past
the budget raises and releases nothing).
"""

import numbers

import numpy as np

from ._mechanisms import LaplaceMechanism, _as_float_array
from ._validation import _check_bounds, _check_epsilon, _check_positive, _rng

__all__ = [
    "clip",
    "clip_norm",
    "count_sensitivity",
    "dp_count",
    "dp_histogram",
    "dp_mean",
    "dp_sum",
    "normalise_counts",
    "subsample_and_aggregate",
    "sum_sensitivity",
]


def count_sensitivity(bounded=False, histogram=False):
    """Sensitivity of a count (1), or the ℓ1 one of a histogram (1; 2 if bounded).

    Examples
    --------
    >>> from skml.privacy import count_sensitivity
    >>> count_sensitivity(), count_sensitivity(bounded=True, histogram=True)
    (1.0, 2.0)
    """
    return 2.0 if (bounded and histogram) else 1.0


def sum_sensitivity(lower, upper, bounded=False):
    """Sensitivity of a sum of values in ``[lower, upper]`` (notes B §13.2).

    Unbounded DP: ``max(|lower|, |upper|)``; bounded DP: ``upper - lower``.

    Examples
    --------
    >>> from skml.privacy import sum_sensitivity
    >>> sum_sensitivity(-1.0, 3.0), sum_sensitivity(-1.0, 3.0, bounded=True)
    (3.0, 4.0)
    """
    lower, upper = _check_bounds(lower, upper)
    return (upper - lower) if bounded else max(abs(lower), abs(upper))


def clip(X, lower, upper):
    """Values of ``X`` clipped to ``[lower, upper]`` (a new float array)."""
    lower, upper = _check_bounds(lower, upper)
    return np.clip(_as_float_array(X, "X"), lower, upper)


def clip_norm(X, max_norm):
    r"""Rows of ``X`` scaled to ℓ2 norm at most ``max_norm``: :math:`x / \max(1, \|x\|/C)`.

    The clipping of DP-SGD (notes B §13.5). A new array; ``max_norm=inf``
    returns a copy.
    """
    X = np.atleast_2d(_as_float_array(X, "X"))
    if not (isinstance(max_norm, numbers.Real) and max_norm > 0):
        raise ValueError(f"max_norm must be a positive float; got {max_norm!r}.")
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    if np.isinf(max_norm):
        return X.copy()
    scale = max_norm / np.maximum(norms, max_norm)
    return X * scale[:, None]


def _spend(accountant, epsilon):
    """Record ``epsilon`` on ``accountant`` (a BudgetAccountant or None) before release.

    The check comes first: a query that would exceed the budget raises
    :class:`~skml.privacy.BudgetExceededError` and releases nothing.
    """
    if accountant is not None:
        if not hasattr(accountant, "spend"):
            raise TypeError(
                f"accountant must be a BudgetAccountant or None; got {accountant!r}.")
        accountant.spend(_check_epsilon(epsilon))


def _laplace(epsilon, sensitivity, random_state):
    return LaplaceMechanism(epsilon, sensitivity, random_state=random_state)


def dp_count(x, epsilon, random_state=None, accountant=None):
    """Number of non-zero (True) entries of ``x`` plus Lap(1/ε) (notes B §13.2).

    Examples
    --------
    >>> from skml.privacy import dp_count
    >>> value = dp_count([1, 0, 1, 1], epsilon=1.0, random_state=0)
    >>> isinstance(value, float)
    True
    """
    x = _as_float_array(x, "x")
    mech = _laplace(epsilon, 1.0, random_state)
    _spend(accountant, epsilon)
    return mech.randomise(float(np.count_nonzero(x)))


def dp_sum(x, epsilon, bounds, bounded=False, random_state=None, accountant=None):
    """Sum of ``x`` clipped to ``bounds`` plus Laplace noise of the sum's sensitivity."""
    lower, upper = _check_bounds(*_pair(bounds))
    x = clip(x, lower, upper)
    sens = sum_sensitivity(lower, upper, bounded)
    _check_epsilon(epsilon)
    _spend(accountant, epsilon)
    if sens == 0:
        return float(x.sum())
    return _laplace(epsilon, sens, random_state).randomise(float(x.sum()))


def _pair(bounds):
    try:
        lower, upper = bounds
    except (TypeError, ValueError):
        raise ValueError(f"bounds must be a pair (lower, upper); got {bounds!r}.") from None
    return lower, upper


def dp_mean(x, epsilon, bounds, bounded=False, random_state=None, accountant=None):
    r"""Mean of ``x`` clipped to ``bounds``, ε-DP.

    Bounded DP (n public): the mean's sensitivity is (b - a)/n, all of ε on
    it. Unbounded DP: ε/2 on a noisy sum and ε/2 on a noisy count (basic
    composition), their ratio clipped to the bounds (post-processing).
    """
    epsilon = _check_epsilon(epsilon)
    lower, upper = _check_bounds(*_pair(bounds))
    x = clip(x, lower, upper).ravel()
    n = x.size
    if n == 0:
        raise ValueError("x is empty: the mean of no values is undefined.")
    rng = _rng(random_state)
    _spend(accountant, epsilon)
    if bounded:
        if upper == lower:
            return lower
        return float(np.clip(
            _laplace(epsilon, (upper - lower) / n, rng).randomise(float(x.mean())),
            lower, upper))
    total = dp_sum(x, epsilon / 2, (lower, upper), random_state=rng)
    count = _laplace(epsilon / 2, 1.0, rng).randomise(float(n))
    return float(np.clip(total / max(count, 1.0), lower, upper))


def dp_histogram(x, epsilon, bins=10, range=None, bounded=False, random_state=None,
                 accountant=None):
    """Histogram counts of ``x`` plus Lap(S/ε) per bin (S = 1; 2 if bounded).

    ``range`` must be given (public) unless ``bins`` is an array of edges.

    Returns
    -------
    counts : ndarray of float
        Noisy counts (may be negative; see :func:`normalise_counts`).
    edges : ndarray
    """
    x = _as_float_array(x, "x").ravel()
    if range is None and np.ndim(bins) == 0:
        raise ValueError(
            "range must be given (public bounds of the data) when bins is an int: "
            "taking it from the data would leak it.")
    counts, edges = np.histogram(x, bins=bins, range=range)
    sens = count_sensitivity(bounded, histogram=True)
    mech = _laplace(epsilon, sens, random_state)
    _spend(accountant, epsilon)
    return mech.randomise(counts.astype(float)), edges


def normalise_counts(counts):
    """Noisy counts to probabilities: negatives clipped to 0, then divided by the sum.

    Post-processing of notes B §13.7 (counts (3, 3) with noise (+1.5, -1.5)
    give (0.75, 0.25)). All-zero counts give the uniform distribution. Works
    along the last axis.

    Examples
    --------
    >>> from skml.privacy import normalise_counts
    >>> normalise_counts([3 + 1.5, 3 - 1.5])
    array([0.75, 0.25])
    """
    c = np.maximum(np.asarray(counts, dtype=float), 0.0)
    total = c.sum(axis=-1, keepdims=True)
    uniform = np.full_like(c, 1.0 / c.shape[-1])
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(total > 0, c / np.where(total > 0, total, 1.0), uniform)


def subsample_and_aggregate(f, X, n_blocks, epsilon, output_range, random_state=None,
                            accountant=None):
    r"""ε-DP estimate of ``f`` by subsample-and-aggregate (notes B §13.2).

    The rows of ``X`` are split at random into ``n_blocks`` disjoint blocks;
    ``f`` is computed on each, its outputs clipped to ``output_range`` and
    averaged, and Laplace noise of the average's ℓ1 sensitivity, d(b - a)/n_blocks
    for a d-dimensional output, is added: one row changes one block's output
    only.

    Parameters
    ----------
    f : callable
        ``f(X_block) -> float or 1-d array``; any sensitivity.
    X : array-like of shape (n_samples, ...)
    n_blocks : int
        >= 1 and <= n_samples.
    epsilon : float
    output_range : (float, float)
        Public bounds of ``f``'s output.
    random_state : None, int, RandomState or Generator

    Examples
    --------
    >>> import numpy as np
    >>> from skml.privacy import subsample_and_aggregate
    >>> X = np.arange(1000.0) / 1000
    >>> est = subsample_and_aggregate(np.median, X, 50, 1.0, (0, 1), random_state=0)
    >>> bool(abs(est - 0.5) < 0.1)
    True
    """
    if not callable(f):
        raise TypeError(f"f must be callable; got {f!r}.")
    X = np.asarray(X)
    lower, upper = _check_bounds(*_pair(output_range), name="output_range")
    epsilon = _check_epsilon(epsilon)
    n = X.shape[0] if X.ndim else 0
    if isinstance(n_blocks, bool) or not isinstance(n_blocks, numbers.Integral) or not (
        1 <= n_blocks <= max(n, 1)
    ) or n == 0:
        raise ValueError(
            f"n_blocks must be an int in [1, n_samples={n}]; got {n_blocks!r}.")
    rng = _rng(random_state)
    blocks = np.array_split(rng.permutation(n), n_blocks)
    _spend(accountant, epsilon)
    outs = np.array([np.clip(np.asarray(f(X[b]), dtype=float), lower, upper)
                     for b in blocks])
    mean = outs.mean(axis=0)
    dim = int(np.size(mean))
    sens = dim * (upper - lower) / n_blocks
    if sens == 0:
        return _return(mean)
    noisy = LaplaceMechanism(epsilon, sens, random_state=rng).randomise(mean)
    return _return(noisy)


def _return(value):
    return float(value) if np.ndim(value) == 0 else np.asarray(value)
