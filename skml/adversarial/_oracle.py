r"""Exact robust error of a linear classifier (notes B §12.1, §12.5).

For a linear binary classifier :math:`f(x) = w \cdot x + b` and labels
:math:`y \in \{\pm 1\}`, the smallest margin over the ball
:math:`\|x' - x\|_p \le \varepsilon` is, by Hölder's inequality,

.. math::

   \min_{\|\delta\|_p \le \varepsilon} y\,(w \cdot (x + \delta) + b)
     = y\,(w \cdot x + b) - \varepsilon \|w\|_q, \qquad 1/p + 1/q = 1,

so :math:`x` is robustly correct iff :math:`y(w \cdot x + b) > \varepsilon
\|w\|_q` (:math:`q = 1` for the :math:`\ell_\infty` ball). A model that
predicts :math:`\arg\max_k (W x + b)_k` (softmax or one-vs-rest) is robustly
correct at :math:`x` iff every pairwise margin survives:
:math:`(w_y - w_t) \cdot x + b_y - b_t > \varepsilon \|w_y - w_t\|_q` for all
:math:`t \ne y` (B §12.5). With a box ``clip=(lo, hi)`` and the
:math:`\ell_\infty` ball the worst case is still coordinate-wise: each
coordinate goes to the end of ``[max(lo, x - eps), min(hi, x + eps)]`` that
lowers the margin.
"""

from numbers import Real

import numpy as np
from sklearn.utils.validation import check_array

__all__ = ["exact_linear_robust_error"]


def _check_eps(eps, name="eps"):
    if (isinstance(eps, (bool, np.bool_)) or not isinstance(eps, Real)
            or not np.isfinite(eps)):
        raise TypeError(f"{name} must be a finite real number; got {eps!r}.")
    if eps < 0:
        raise ValueError(f"{name} must be >= 0; got {eps!r}.")
    return float(eps)


def _check_norm(norm):
    if norm in (np.inf, "inf"):
        return np.inf
    if norm in (1, 2) and not isinstance(norm, bool):
        return int(norm)
    raise ValueError(f"norm must be np.inf, 'inf', 1 or 2; got {norm!r}.")


def _check_clip(clip):
    if clip is None:
        return None
    try:
        lo, hi = (float(c) for c in clip)
    except (TypeError, ValueError):
        raise TypeError(
            f"clip must be None or a pair (min, max); got {clip!r}.") from None
    if not lo < hi:
        raise ValueError(f"clip must satisfy min < max; got {clip!r}.")
    return lo, hi


def _dual_norm(V, norm):
    """``||v||_q`` of every row of ``V``, q the dual exponent of ``norm``."""
    if norm == np.inf:
        return np.abs(V).sum(axis=-1)
    if norm == 2:
        return np.sqrt((V * V).sum(axis=-1))
    return np.abs(V).max(axis=-1)


def _worst_pair_margins(V, c, X, eps, norm, clip):
    """Smallest value of ``V x' + c`` over the ball (and box), per row and pair.

    ``V`` is (m, d) (pair directions), ``c`` (m,); returns (n, m).
    """
    M = X @ V.T + c
    if clip is None:
        return M - eps * _dual_norm(V, norm)
    if norm != np.inf:
        raise ValueError("clip is supported with norm=np.inf only (the worst "
                         "case in an l2 ball intersected with a box has no "
                         "closed form).")
    lo, hi = clip
    lower = np.maximum(X - eps, lo)  # (n, d)
    upper = np.minimum(X + eps, hi)
    # Coordinate j goes to `lower` when v_j > 0 and to `upper` when v_j < 0.
    Vp, Vn = np.maximum(V, 0.0), np.minimum(V, 0.0)
    return lower @ Vp.T + upper @ Vn.T + c


def exact_linear_robust_error(coef, intercept, X, y, eps, norm=np.inf, *, clip=None,
                              return_mask=False):
    r"""Exact robust error of a linear classifier under a norm ball (B §12.1).

    The Hölder oracle of notes B §12.1: a row is robustly correct iff its
    margin exceeds ``eps`` times the dual norm of the weight vector; for more
    than two classes (softmax or one-vs-rest, prediction ``argmax W x + b``)
    iff every pairwise margin does (B §12.5). A margin equal to the bound
    counts as an error (an attacker reaches the tie).

    Parameters
    ----------
    coef : array-like of shape (n_features,), (1, n_features) or (n_classes, n_features)
        ``coef_`` of a linear classifier; one row means two classes.
    intercept : float or array-like of shape (1,) or (n_classes,)
    X : array-like of shape (n_samples, n_features)
    y : array-like of shape (n_samples,)
        Class indices: ``0``/``1`` (or ``-1``/``+1``) for one row of
        ``coef``, ``0 .. n_classes - 1`` otherwise
        (``np.searchsorted(classes_, labels)``).
    eps : float
        Radius of the ball, >= 0.
    norm : {np.inf, 2, 1}, default=np.inf
        The ball's norm; the margin shrinks by ``eps * ||w||_q`` with q the
        dual exponent (1, 2, inf).
    clip : (float, float), default=None
        A box the perturbed point must stay in (``norm=np.inf`` only).
    return_mask : bool, default=False
        Also return the boolean mask of the robustly correct rows.

    Returns
    -------
    error : float
        Fraction of rows that some point of the ball misclassifies (rows
        misclassified at ``x`` included).
    robust : ndarray of shape (n_samples,) of bool
        Only with ``return_mask=True``.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.adversarial import exact_linear_robust_error
    >>> X = np.array([[1.0, 0.0], [0.2, 0.1], [-1.0, 0.5]])
    >>> round(exact_linear_robust_error([1.0, -1.0], 0.0, X, [1, 1, 0], eps=0.3), 3)
    0.333
    """
    eps = _check_eps(eps)
    norm = _check_norm(norm)
    clip = _check_clip(clip)
    X = check_array(X, dtype=np.float64)
    W = np.atleast_2d(np.asarray(coef, dtype=np.float64))
    b = np.atleast_1d(np.asarray(intercept, dtype=np.float64)).ravel()
    if W.ndim != 2 or W.shape[1] != X.shape[1]:
        raise ValueError(f"coef must have {X.shape[1]} columns (the features of X); "
                         f"got shape {np.shape(coef)}.")
    if b.shape[0] != W.shape[0]:
        raise ValueError(f"intercept must have {W.shape[0]} entries (one per row of "
                         f"coef); got {b.shape[0]}.")
    y = np.asarray(y)
    if y.shape != (X.shape[0],):
        raise ValueError(f"y must have shape ({X.shape[0]},), one label per row of X; "
                         f"got {y.shape}.")
    if clip is not None and (X.min() < clip[0] or X.max() > clip[1]):
        raise ValueError("X has values outside clip; the clean point must lie in "
                         "the box.")
    if W.shape[0] == 1:
        labels = set(np.unique(y).tolist())
        if not labels <= {0, 1} and not labels <= {-1, 1}:
            raise ValueError("With one row of coef, y must hold 0/1 or -1/+1; got "
                             f"{sorted(labels)!r}.")
        s = np.where(y == 1, 1.0, -1.0)
        # Margin s (w.x + b) = (s w).x + s b: one "pair" per row, handled as a
        # per-row direction.
        margins = np.empty(X.shape[0])
        for sign in (1.0, -1.0):
            rows = s == sign
            if rows.any():
                margins[rows] = _worst_pair_margins(
                    sign * W, sign * b, X[rows], eps, norm, clip)[:, 0]
        robust = margins > 0
    else:
        k = W.shape[0]
        if not np.issubdtype(y.dtype, np.integer) or y.min() < 0 or y.max() >= k:
            raise ValueError(f"y must hold class indices 0..{k - 1}; got values "
                             f"outside that range.")
        robust = np.empty(X.shape[0], dtype=bool)
        for c in range(k):  # rows of one true class share their k - 1 pairs
            rows = y == c
            if not rows.any():
                continue
            others = np.delete(np.arange(k), c)
            V, cst = W[c] - W[others], b[c] - b[others]
            robust[rows] = (_worst_pair_margins(V, cst, X[rows], eps, norm, clip)
                            > 0).all(axis=1)
    error = float(1.0 - robust.mean())
    return (error, robust) if return_mask else error
