"""Losses of gradient boosting: gradient, leaf update, init, raw -> output.

Notes B §9.5 (Friedman's GBDT): each round fits a least-squares tree to the
negative gradient :math:`-\\partial \\ell / \\partial F` and then sets each
leaf :math:`R_j` to the line-search value :math:`\\gamma_j =
\\arg\\min_\\gamma \\sum_{i \\in R_j} w_i\\, \\ell(y_i, F(x_i) + \\gamma)` (or one
Newton step towards it). One class per loss, shared by the classifier and
the regressor; all arrays are float64 and ``raw`` has shape
``(n_samples, K)`` (``K = 1`` except for the multinomial loss).

``__call__`` is the weighted mean loss on the scale scikit-learn reports in
``train_score_``: squared error and binary log loss count twice scikit-learn's
"half" losses, i.e. the mean squared error and the binomial deviance.
"""

import numpy as np

from ._gb_kernels import (
    _BINOMIAL,
    _SQUARED,
    PARALLEL_MIN_ROWS,
    binomial_loss_neg_gradient,
    binomial_loss_neg_gradient_par,
    logistic_leaf_values,
    squared_loss_neg_gradient,
    squared_loss_neg_gradient_par,
)

__all__ = ["LOSSES", "SquaredError", "leaf_quantile", "make_loss"]


def _clip_proba(p):
    """Probabilities kept off 0 and 1 (a log of them stays finite)."""
    eps = np.finfo(np.float64).eps
    return np.clip(np.asarray(p, dtype=np.float64), eps, 1 - eps)


def _expit(x):
    return 0.5 * (1.0 + np.tanh(0.5 * x))


def _log1pexp(x):
    """``log(1 + exp(x))`` without overflow (20x faster than np.logaddexp)."""
    return np.log1p(np.exp(-np.abs(x))) + np.maximum(x, 0.0)


def _leaf_sums(leaf, values, n_nodes):
    return np.bincount(leaf, weights=values, minlength=n_nodes)


def _safe_ratio(num, den):
    # A leaf whose hessian vanishes (probabilities saturated at 0 or 1)
    # cannot improve the loss: its step is 0, as scikit-learn's _safe_divide.
    out = np.zeros_like(num)
    ok = np.abs(den) >= 1e-150
    out[ok] = num[ok] / den[ok]
    return out


def leaf_quantile(values, leaf, w, q, n_nodes):
    """Weighted ``q``-quantile of ``values`` in each leaf (inverted CDF).

    The smallest value whose cumulative weight reaches ``q`` times the leaf's
    total weight (scikit-learn's ``_weighted_percentile``); all leaves at
    once by one sort on (leaf, value). Samples of zero weight are ignored.

    Returns
    -------
    out : ndarray of shape (n_nodes,)
        The quantile of each node id that holds a sample of positive weight,
        0 elsewhere.
    """
    keep = w > 0
    values, leaf, w = values[keep], leaf[keep], w[keep]
    out = np.zeros(n_nodes)
    if values.shape[0] == 0:
        return out
    order = np.lexsort((values, leaf))
    lv, vv = leaf[order], values[order]
    cw = np.cumsum(w[order])
    starts = np.flatnonzero(np.r_[True, lv[1:] != lv[:-1]])
    ends = np.r_[starts[1:], lv.shape[0]]
    base = np.r_[0.0, cw][starts]
    target = base + q * (cw[ends - 1] - base)
    idx = np.searchsorted(cw, target, side="left")
    idx = np.clip(idx, starts, ends - 1)
    out[lv[starts]] = vv[idx]
    return out


def _threaded(serial, parallel, n_threads, n_rows):
    """The kernel of a row pass: its threaded twin (the same bits) for more
    than one thread and at least ``PARALLEL_MIN_ROWS`` rows."""
    return parallel if n_threads > 1 and n_rows >= PARALLEL_MIN_ROWS else serial


class _Loss:
    """Interface; ``K`` trees per round."""

    is_classification = False
    # __call__ / (mean of the loss whose derivative ``gradient`` returns).
    score_factor = 1.0
    # numba threads of the fused row passes (set by the boosting loop for a
    # fit with n_jobs > 1; the same bits for any number).
    n_threads = 1

    def __init__(self, n_classes=1, alpha=0.9):
        self.n_classes = n_classes
        self.alpha = alpha
        self.K = 1

    def init_raw(self, y, w, weighted):
        """Constant raw score minimising the loss, shape (K,)."""
        raise NotImplementedError

    def __call__(self, y, raw, w):
        """Weighted mean loss."""
        raise NotImplementedError

    def gradient(self, y, raw):
        """:math:`\\partial \\ell / \\partial F`, shape (n_samples, K)."""
        raise NotImplementedError

    def begin_round(self, y, raw, w):
        """Per-round state (Huber's delta)."""

    # Whether loss_and_neg_gradient is one pass: the boosting loop then takes
    # a round's training loss and the next round's gradient from one call
    # (only for losses without per-round state).
    fuses_gradient = False
    # The loss code of _gb_kernels.fused_round (None: the loss has no fused
    # round), which does a one-tree round's leaf values, score update and
    # loss pass in one call.
    fused_kind = None

    def loss_and_neg_gradient(self, y, raw, w):
        """``(self(y, raw, w), -self.gradient(y, raw))``."""
        return self(y, raw, w), -self.gradient(y, raw)

    def leaf_values(self, y, raw, neg_grad, leaf, w, n_nodes, k):
        """Line-search / Newton value of every node id (leaves matter).

        ``w`` is zero for the samples out of the round's subsample.
        """
        raise NotImplementedError


class SquaredError(_Loss):
    """:math:`\\ell = (y - F)^2`; the leaf value is the mean residual."""

    score_factor = 2.0

    def init_raw(self, y, w, weighted):
        return np.array([np.average(y, weights=w)])

    def __call__(self, y, raw, w):
        return float(np.average((y - raw[:, 0]) ** 2, weights=w))

    fuses_gradient = True
    fused_kind = _SQUARED

    def gradient(self, y, raw):
        # d/dF of (y - F)^2 / 2: scikit-learn's HalfSquaredError, so that the
        # negative gradient is the residual itself (the notes' pseudo-residual).
        return (raw[:, 0] - y)[:, None]

    def loss_and_neg_gradient(self, y, raw, w):
        neg_grad = np.empty((y.shape[0], 1))
        kernel = _threaded(squared_loss_neg_gradient, squared_loss_neg_gradient_par,
                           self.n_threads, y.shape[0])
        value = kernel(y, np.ascontiguousarray(raw[:, 0]), w, neg_grad[:, 0])
        return float(value), neg_grad

    def leaf_values(self, y, raw, neg_grad, leaf, w, n_nodes, k):
        num = _leaf_sums(leaf, w * neg_grad, n_nodes)
        den = _leaf_sums(leaf, w, n_nodes)
        return _safe_ratio(num, den)


class AbsoluteError(_Loss):
    """:math:`\\ell = |y - F|`; the leaf value is the weighted median residual."""

    def init_raw(self, y, w, weighted):
        if not weighted:
            return np.array([np.percentile(y, 50)])
        return leaf_quantile(y, np.zeros(y.shape[0], dtype=np.intp), w, 0.5, 1)

    def __call__(self, y, raw, w):
        return float(np.average(np.abs(y - raw[:, 0]), weights=w))

    def gradient(self, y, raw):
        return np.sign(raw[:, 0] - y)[:, None]

    def leaf_values(self, y, raw, neg_grad, leaf, w, n_nodes, k):
        return leaf_quantile(y - raw[:, 0], leaf, w, 0.5, n_nodes)


class PinballLoss(_Loss):
    """Quantile loss :math:`\\rho_\\alpha(y - F)`; the leaf value is the
    weighted :math:`\\alpha`-quantile of the residuals."""

    def init_raw(self, y, w, weighted):
        if not weighted:
            return np.array([np.percentile(y, 100 * self.alpha)])
        return leaf_quantile(y, np.zeros(y.shape[0], dtype=np.intp), w, self.alpha, 1)

    def __call__(self, y, raw, w):
        r = y - raw[:, 0]
        return float(np.average(np.where(r >= 0, self.alpha * r, (self.alpha - 1) * r),
                                weights=w))

    def gradient(self, y, raw):
        # rho_alpha(u) = u (alpha - [u < 0]); d/dF at u = y - F.
        return np.where(y > raw[:, 0], -self.alpha, 1.0 - self.alpha)[:, None]

    def leaf_values(self, y, raw, neg_grad, leaf, w, n_nodes, k):
        return leaf_quantile(y - raw[:, 0], leaf, w, self.alpha, n_nodes)


class HuberLoss(_Loss):
    """Huber loss, quadratic up to :math:`\\delta` (the ``alpha``-quantile of
    the absolute residuals, re-estimated every round) and linear beyond.

    The leaf value is Friedman's one-step estimate: the residuals' median
    :math:`\\tilde r` plus the mean of
    :math:`\\operatorname{sign}(r - \\tilde r) \\min(\\delta, |r - \\tilde r|)`.
    """

    delta = 1.0

    def init_raw(self, y, w, weighted):
        if not weighted:
            return np.array([np.percentile(y, 50)])
        return leaf_quantile(y, np.zeros(y.shape[0], dtype=np.intp), w, 0.5, 1)

    def begin_round(self, y, raw, w):
        absr = np.abs(y - raw[:, 0])
        self.delta = float(leaf_quantile(absr, np.zeros(absr.shape[0], dtype=np.intp),
                                         w, self.alpha, 1)[0])

    def __call__(self, y, raw, w):
        a = np.abs(y - raw[:, 0])
        d = self.delta
        return float(np.average(np.where(a <= d, 0.5 * a * a, d * (a - 0.5 * d)),
                                weights=w))

    def gradient(self, y, raw):
        r = y - raw[:, 0]
        return -np.where(np.abs(r) <= self.delta, r, self.delta * np.sign(r))[:, None]

    def leaf_values(self, y, raw, neg_grad, leaf, w, n_nodes, k):
        r = y - raw[:, 0]
        med = leaf_quantile(r, leaf, w, 0.5, n_nodes)
        diff = r - med[leaf]
        term = np.sign(diff) * np.minimum(self.delta, np.abs(diff))
        num = _leaf_sums(leaf, w * term, n_nodes)
        den = _leaf_sums(leaf, w, n_nodes)
        return med + _safe_ratio(num, den)


class BinomialLogLoss(_Loss):
    """Binary log loss, :math:`p = \\sigma(F)`; one Newton step per leaf,
    :math:`\\sum w (y - p) / \\sum w p (1 - p)`."""

    is_classification = True
    score_factor = 2.0

    def init_raw(self, y, w, weighted):
        eps = np.finfo(np.float64).eps
        p = np.clip(np.average(y, weights=w), eps, 1 - eps)
        return np.array([np.log(p / (1 - p))])

    def __call__(self, y, raw, w):
        f = raw[:, 0]
        return float(2.0 * np.average(_log1pexp(f) - y * f, weights=w))

    fuses_gradient = True
    fused_kind = _BINOMIAL

    def gradient(self, y, raw):
        # The fused kernel's sigmoid, so that a warm-start fit (whose first
        # gradient comes from here) repeats a one-go fit bit for bit.
        return -self.loss_and_neg_gradient(y, raw, np.ones(y.shape[0]))[1]

    def loss_and_neg_gradient(self, y, raw, w):
        neg_grad = np.empty((y.shape[0], 1))
        f = np.ascontiguousarray(raw[:, 0])
        kernel = _threaded(binomial_loss_neg_gradient, binomial_loss_neg_gradient_par,
                           self.n_threads, y.shape[0])
        value = kernel(y, f, w, bool(np.all(w == 1.0)), neg_grad[:, 0])
        return float(value), neg_grad

    def leaf_values(self, y, raw, neg_grad, leaf, w, n_nodes, k):
        return logistic_leaf_values(leaf, y, np.ascontiguousarray(neg_grad), w, n_nodes,
                                    1.0)

    def proba(self, raw):
        p1 = _expit(raw[:, 0])
        return np.column_stack([1 - p1, p1])

    def link(self, proba):
        """Raw scores whose :meth:`proba` is ``proba`` (an initial
        estimator's), clipped to ``[eps, 1 - eps]``: :math:`\\log(p / (1 - p))`."""
        p1 = _clip_proba(proba[:, 1])
        return np.log(p1 / (1 - p1))[:, None]


class MultinomialLogLoss(_Loss):
    """Multinomial log loss with :math:`p = \\operatorname{softmax}(F)`; K
    trees per round, leaf value :math:`\\frac{K-1}{K} \\sum w g_k / \\sum w
    p_k (1 - p_k)` (Friedman 2001, Algorithm 6, as scikit-learn)."""

    is_classification = True

    def __init__(self, n_classes=3, alpha=0.9):
        super().__init__(n_classes, alpha)
        self.K = n_classes

    def init_raw(self, y, w, weighted):
        eps = np.finfo(np.float64).eps
        p = np.bincount(y.astype(np.intp), weights=w, minlength=self.K) / w.sum()
        logp = np.log(np.clip(p, eps, 1 - eps))
        # The symmetric multinomial logit (scores summing to 0), as scikit-learn.
        return logp - logp.mean()

    def _onehot(self, y):
        return (y.astype(np.intp)[:, None] == np.arange(self.K)).astype(np.float64)

    def __call__(self, y, raw, w):
        top = raw.max(axis=1)
        lse = top + np.log(np.exp(raw - top[:, None]).sum(axis=1))
        f_y = raw[np.arange(raw.shape[0]), y.astype(np.intp)]
        return float(np.average(lse - f_y, weights=w))

    def gradient(self, y, raw):
        return self.proba(raw) - self._onehot(y)

    def leaf_values(self, y, raw, neg_grad, leaf, w, n_nodes, k):
        # y is the indicator of class k here.
        return logistic_leaf_values(leaf, y, np.ascontiguousarray(neg_grad), w, n_nodes,
                                    (self.K - 1) / self.K)

    def proba(self, raw):
        e = np.exp(raw - raw.max(axis=1, keepdims=True))
        return e / e.sum(axis=1, keepdims=True)

    def link(self, proba):
        """Raw scores whose :meth:`proba` is ``proba``: the symmetric
        multinomial logit :math:`\\log p_k - \\frac1K \\sum_j \\log p_j`."""
        logp = np.log(_clip_proba(proba))
        return logp - logp.mean(axis=1, keepdims=True)


class ExponentialLoss(_Loss):
    """AdaBoost's exponential loss :math:`e^{-\\tilde y F}`, :math:`\\tilde y
    = 2y - 1` (notes B §9.5, D4: AdaBoost is gradient boosting with this
    loss); Newton leaf step :math:`\\sum w \\tilde y e^{-\\tilde y F} /
    \\sum w e^{-\\tilde y F}`, :math:`p = \\sigma(2F)`."""

    is_classification = True

    def init_raw(self, y, w, weighted):
        eps = np.finfo(np.float64).eps
        p = np.clip(np.average(y, weights=w), eps, 1 - eps)
        return np.array([0.5 * np.log(p / (1 - p))])

    def __call__(self, y, raw, w):
        return float(np.average(np.exp(-(2 * y - 1) * raw[:, 0]), weights=w))

    def gradient(self, y, raw):
        s = 2 * y - 1
        return (-s * np.exp(-s * raw[:, 0]))[:, None]

    def leaf_values(self, y, raw, neg_grad, leaf, w, n_nodes, k):
        hess = np.abs(neg_grad)  # = exp(-y~ F)
        num = _leaf_sums(leaf, w * neg_grad, n_nodes)
        den = _leaf_sums(leaf, w * hess, n_nodes)
        return _safe_ratio(num, den)

    def proba(self, raw):
        p1 = _expit(2.0 * raw[:, 0])
        return np.column_stack([1 - p1, p1])

    def link(self, proba):
        """Raw scores whose :meth:`proba` is ``proba``: half the log odds."""
        p1 = _clip_proba(proba[:, 1])
        return 0.5 * np.log(p1 / (1 - p1))[:, None]


LOSSES = {
    "squared_error": SquaredError,
    "absolute_error": AbsoluteError,
    "huber": HuberLoss,
    "quantile": PinballLoss,
    "log_loss": BinomialLogLoss,
    "exponential": ExponentialLoss,
}


def make_loss(name, n_classes=1, alpha=0.9):
    """The loss object for ``name`` (multinomial when ``n_classes > 2``)."""
    if name == "log_loss" and n_classes > 2:
        return MultinomialLogLoss(n_classes, alpha)
    return LOSSES[name](n_classes, alpha)
