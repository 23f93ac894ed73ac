"""Numba kernels of gradient boosting's per-round arithmetic.

The binary log loss is the default and its round costs two transcendental
passes in numpy (the sigmoid for the gradient, ``log(1 + e^F)`` for the
training loss) plus temporaries; here both come from one ``exp`` per
sample, in one pass. The Newton leaf values are summed per leaf from the
training rows' leaf ids (which the histogram growth returns), without
``np.bincount``'s temporaries. The fused loss passes have ``_par`` twins on
numba's threads, for fits with ``n_jobs > 1`` on at least
:data:`PARALLEL_MIN_ROWS` rows; a twin gives the serial kernel's bits (its
sums are taken per fixed block of rows and the blocks added in order).
"""

import numpy as np
from numba import njit, prange

# Below this, a leaf's hessian sum counts as zero: its Newton step is 0
# (probabilities saturated at 0 or 1 cannot improve the loss).
TINY_HESSIAN = 1e-150

# Below this many rows a round's loss pass runs on one thread whatever
# n_jobs (a parallel launch costs tens of microseconds, and waking a sleeping
# worker more: the raw-score update, ~0.3 ns a row, stays serial).
PARALLEL_MIN_ROWS = 32768


# Rows whose log(1 + e^-|F|) terms are multiplied before one log is taken:
# each factor is in [1, 2], so 512 of them stay below 2^512 (no overflow) and
# the product's relative rounding error (< 512 ulp) is an absolute error of
# ~1e-13 on a block sum of several hundred.
_LOG_BLOCK = 512


@njit(cache=True, nogil=True)
def _binomial_block(y, f, w, unit, neg_grad, lo, hi, part):
    """Rows ``lo:hi`` of :func:`binomial_loss_neg_gradient`: writes their
    ``neg_grad`` and ``part = (sum w (max(F, 0) - y F), sum w log(1 + e^-|F|),
    sum w)``."""
    linear = 0.0
    logs = 0.0
    wsum = 0.0
    prod = 1.0
    for i in range(lo, hi):
        fi = f[i]
        e = np.exp(-abs(fi))
        d = 1.0 / (1.0 + e)
        p = d if fi >= 0.0 else e * d
        neg_grad[i] = y[i] - p
        if unit:
            prod *= 1.0 + e
        else:
            logs += w[i] * np.log1p(e)
        linear += w[i] * (max(fi, 0.0) - y[i] * fi)
        wsum += w[i]
    if unit:
        logs = np.log(prod)
    part[0] = linear
    part[1] = logs
    part[2] = wsum


# Which loss a row pass computes (its blocks' partial sums: 3 and 2 columns).
_BINOMIAL = 0
_SQUARED = 1


@njit(cache=True, nogil=True)
def _squared_block(y, f, w, neg_grad, lo, hi, part):
    """Rows ``lo:hi`` of :func:`squared_loss_neg_gradient`: writes their
    residuals and ``part = (sum w r^2, sum w)``."""
    total = 0.0
    wsum = 0.0
    for i in range(lo, hi):
        r = y[i] - f[i]
        neg_grad[i] = r
        total += w[i] * r * r
        wsum += w[i]
    part[0] = total
    part[1] = wsum


@njit(cache=True, nogil=True)
def _loss_block(kind, y, f, w, unit, neg_grad, b, part):
    """Block ``b`` (``_LOG_BLOCK`` rows) of the row pass of loss ``kind``."""
    lo = b * _LOG_BLOCK
    hi = min(lo + _LOG_BLOCK, f.shape[0])
    if kind == _BINOMIAL:
        _binomial_block(y, f, w, unit, neg_grad, lo, hi, part)
    else:
        _squared_block(y, f, w, neg_grad, lo, hi, part)


@njit(cache=True, nogil=True)
def _row_pass(kind, y, f, w, unit, neg_grad):
    """The blocks' partial sums of the row pass of loss ``kind``, one thread."""
    n_blocks = (f.shape[0] + _LOG_BLOCK - 1) // _LOG_BLOCK
    parts = np.zeros((n_blocks, 3))
    for b in range(n_blocks):
        _loss_block(kind, y, f, w, unit, neg_grad, b, parts[b])
    return parts


@njit(cache=True, nogil=True, parallel=True)
def _row_pass_par(kind, y, f, w, unit, neg_grad):
    """:func:`_row_pass` with the blocks shared among numba's threads."""
    n_blocks = (f.shape[0] + _LOG_BLOCK - 1) // _LOG_BLOCK
    parts = np.zeros((n_blocks, 3))
    for b in prange(n_blocks):
        _loss_block(kind, y, f, w, unit, neg_grad, b, parts[b])
    return parts


@njit(cache=True, nogil=True)
def _loss_value(kind, parts):
    """The weighted mean loss from the blocks' partial sums, added in block
    order (the same bits whichever thread summed a block)."""
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    for b in range(parts.shape[0]):
        s0 += parts[b, 0]
        s1 += parts[b, 1]
        s2 += parts[b, 2]
    if kind == _BINOMIAL:
        return 2.0 * (s0 + s1) / s2
    return s0 / s1


@njit(cache=True, nogil=True)
def binomial_loss_neg_gradient(y, f, w, unit, neg_grad):
    """Weighted mean binomial deviance ``2 (log(1 + e^F) - y F)``; writes
    ``neg_grad = y - sigmoid(F)``.

    ``log(1 + e^F) = max(F, 0) + log(1 + e^-|F|)`` and ``sigmoid(F)`` is
    ``d = 1 / (1 + e^-|F|)`` or ``e^-|F| d`` by the sign of F: one ``exp``
    serves both, and neither overflows. With unit weights (``unit``) the
    logarithms of a block of rows are summed as the log of their product,
    one ``log`` per ``_LOG_BLOCK`` rows (the log was 2/3 of the pass). The
    sums are taken per block of ``_LOG_BLOCK`` rows and the blocks' sums
    added in order, as :func:`binomial_loss_neg_gradient_par` does: the
    same bits for any number of threads.
    """
    return _loss_value(_BINOMIAL, _row_pass(_BINOMIAL, y, f, w, unit, neg_grad))


@njit(cache=True, nogil=True)
def binomial_loss_neg_gradient_par(y, f, w, unit, neg_grad):
    """:func:`binomial_loss_neg_gradient` with the blocks of rows shared
    among numba's threads (the same bits)."""
    return _loss_value(_BINOMIAL, _row_pass_par(_BINOMIAL, y, f, w, unit, neg_grad))


@njit(cache=True, nogil=True)
def logistic_leaf_values(leaf, y, neg_grad, w, n_nodes, scale):
    """One Newton step of the (binary or one class's multinomial) log loss
    per node id: ``scale * sum w (y - p) / sum w p (1 - p)`` with
    ``p = y - neg_grad``; 0 where the hessian sum is below ``TINY_HESSIAN``
    in magnitude or the node holds no row."""
    num = np.zeros(n_nodes)
    den = np.zeros(n_nodes)
    for i in range(leaf.shape[0]):
        t = leaf[i]
        g = neg_grad[i]
        p = y[i] - g
        num[t] += w[i] * g
        den[t] += w[i] * p * (1.0 - p)
    out = np.zeros(n_nodes)
    for t in range(n_nodes):
        if abs(den[t]) >= TINY_HESSIAN:
            out[t] = scale * num[t] / den[t]
    return out


@njit(cache=True, nogil=True)
def add_leaf_values(raw_k, leaf, values, learning_rate):
    """``raw_k += learning_rate * values[leaf]`` in place, without the
    gathered temporary (``raw_k`` may be a strided column)."""
    for i in range(leaf.shape[0]):
        raw_k[i] += learning_rate * values[leaf[i]]



@njit(cache=True, nogil=True)
def fused_round(kind, leaf, y, neg_grad, w, unit, children_left, value, raw_k,
                learning_rate):
    """A round's arithmetic after its tree's growth, one call instead of
    four (~15 us of Python and dispatch a round, 5% of a depth-3 round on
    284 rows), for a one-tree round of loss ``kind`` on one thread:

    the binary log loss's Newton values of the leaves (kind ``_BINOMIAL``,
    :func:`logistic_leaf_values`) written into ``value`` (the tree's leaf
    values; the squared error keeps the tree's means), then
    :func:`add_leaf_values` of ``raw_k``, then the loss pass of
    :func:`binomial_loss_neg_gradient` / :func:`squared_loss_neg_gradient`
    on the new scores, which overwrites ``neg_grad`` with the next round's
    negative gradient and returns the training loss. The same functions in
    the same order as the separate calls: the same bits.
    """
    if kind == _BINOMIAL:
        newton = logistic_leaf_values(leaf, y, neg_grad, w, value.shape[0], 1.0)
        for t in range(value.shape[0]):
            if children_left[t] == -1:  # a leaf (TREE_LEAF)
                value[t] = newton[t]
    add_leaf_values(raw_k, leaf, value, learning_rate)
    return _loss_value(kind, _row_pass(kind, y, raw_k, w, unit, neg_grad))


@njit(cache=True, nogil=True)
def squared_loss_neg_gradient(y, f, w, neg_grad):
    """Weighted mean squared error ``(y - F)^2``; writes ``neg_grad = y - F``
    (the residual), in one pass without temporaries; summed per block of
    ``_LOG_BLOCK`` rows as :func:`squared_loss_neg_gradient_par` (the same
    bits for any number of threads)."""
    return _loss_value(_SQUARED, _row_pass(_SQUARED, y, f, w, True, neg_grad))


@njit(cache=True, nogil=True)
def squared_loss_neg_gradient_par(y, f, w, neg_grad):
    """:func:`squared_loss_neg_gradient` on numba's threads (the same bits)."""
    return _loss_value(_SQUARED, _row_pass_par(_SQUARED, y, f, w, True, neg_grad))


@njit(cache=True, nogil=True)
def subsample_mask(u, n_inbag, inbag):
    """Writes into ``inbag`` a subsample of exactly ``n_inbag`` of the
    ``len(u)`` rows, each subset equally likely, from one uniform ``u[i]`` per
    row: selection sampling (Knuth's Algorithm S), row ``i`` is taken with
    probability (rows still needed) / (rows left). scikit-learn's draw, so
    a ``random_state`` gives scikit-learn's subsamples."""
    n = u.shape[0]
    taken = 0
    for i in range(n):
        take = u[i] * (n - i) < n_inbag - taken
        inbag[i] = take
        if take:
            taken += 1
