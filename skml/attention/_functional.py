r"""Attention, masks, sinusoidal positions and label smoothing (notes B §7.6, A §14.1).

Scaled dot-product attention (notes B §7.6, D1 §11.3.1; notes A §14.1):

.. math::

   \operatorname{Attention}(Q, K, V) = \operatorname{softmax}_{\text{row}}
   \left(\frac{Q K^\top}{\sqrt{d}}\right) V,

each output row a convex combination of the rows of ``V``. The sinusoidal
encoding of D1 §11.2 is :math:`P_{t,2i} = \sin(t / 10000^{2i/d})`,
:math:`P_{t,2i+1} = \cos(t / 10000^{2i/d})`, and label smoothing (D1 §12.2)
replaces a one-hot target by :math:`(1-\varepsilon)\delta_{k,y} + \varepsilon / C`.
"""

import numbers

import numpy as np

__all__ = [
    "causal_mask",
    "label_smoothing",
    "scaled_dot_product_attention",
    "sinusoidal_positional_encoding",
    "softmax",
]


def _check_int(name, value, low):
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{name} must be an int; got {value!r}.")
    if value < low:
        raise ValueError(f"{name} must be >= {low}; got {value}.")
    return int(value)


def softmax(S, axis=-1):
    """Softmax along ``axis``, shifted by the maximum (no overflow); a new array.

    Entries of ``-inf`` get weight 0; a slice that is ``-inf`` everywhere gets
    all-zero weights instead of NaN.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.attention import softmax
    >>> softmax(np.array([0.0, np.log(3.0)])).round(2)
    array([0.25, 0.75])
    """
    S = np.asarray(S, dtype=np.result_type(S, np.float32))
    top = np.max(S, axis=axis, keepdims=True)
    top = np.where(np.isfinite(top), top, 0.0)
    P = np.exp(S - top)
    total = P.sum(axis=axis, keepdims=True)
    np.divide(P, total, out=P, where=total > 0)
    return P


def causal_mask(T):
    """Boolean ``(T, T)`` mask of the allowed keys: position t sees 0..t.

    True marks a key the query may attend to (PyTorch's convention for a
    boolean ``attn_mask``): the lower triangle with its diagonal (notes B
    §7.6, D1 §11.4.1, masked attention).

    Examples
    --------
    >>> from skml.attention import causal_mask
    >>> causal_mask(3).astype(int)
    array([[1, 0, 0],
           [1, 1, 0],
           [1, 1, 1]])
    """
    T = _check_int("T", T, 1)
    return np.tril(np.ones((T, T), dtype=bool))


def scaled_dot_product_attention(Q, K, V, mask=None, return_weights=False):
    r"""Softmax attention ``softmax(Q K^T / sqrt(d)) V`` over leading batch axes.

    Notes B §7.6 (D1 §11.3.1, matrix form) and notes A §14.1:
    :math:`a_{mn} = \exp(q_m^\top k_n / \sqrt d) / \sum_j \exp(q_m^\top k_j /
    \sqrt d)` and :math:`o_m = \sum_n a_{mn} v_n`.

    Parameters
    ----------
    Q : array-like of shape (..., T_q, d)
        Queries.
    K : array-like of shape (..., T_k, d)
        Keys.
    V : array-like of shape (..., T_k, d_v)
        Values. The leading axes of ``Q``, ``K`` and ``V`` broadcast.
    mask : array-like of shape broadcastable to (..., T_q, T_k), default=None
        Boolean: True where a query may attend to a key (see
        :func:`causal_mask`). Float: added to the scores (0 to keep, ``-inf``
        to block), as PyTorch's additive ``attn_mask``.
    return_weights : bool, default=False
        Also return the attention weights.

    Returns
    -------
    output : ndarray of shape (..., T_q, d_v)
    weights : ndarray of shape (..., T_q, T_k)
        Only with ``return_weights``: rows sum to 1, masked entries are 0.

    Notes
    -----
    The scores are shifted by their row maximum before the exponential, so
    large logits cannot overflow. A query whose keys are all masked gets zero
    weights and a zero output (PyTorch returns NaN there). Time
    :math:`O(T_q T_k (d + d_v))` per batch entry, memory :math:`O(T_q T_k)`
    for the weights; the batch axes go through one ``np.matmul``.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.attention import scaled_dot_product_attention
    >>> Q = K = np.eye(2)
    >>> V = np.array([[1.0, 0.0], [0.0, 1.0]])
    >>> out, A = scaled_dot_product_attention(Q, K, V, return_weights=True)
    >>> A.sum(axis=-1)
    array([1., 1.])
    """
    Q, K, V = (np.asarray(a) for a in (Q, K, V))
    for name, a in (("Q", Q), ("K", K), ("V", V)):
        if a.ndim < 2:
            raise ValueError(f"{name} must have at least 2 dimensions (..., T, d); "
                             f"got shape {a.shape}.")
        if not np.issubdtype(a.dtype, np.number) or np.iscomplexobj(a):
            raise TypeError(f"{name} must hold real numbers; got dtype {a.dtype}.")
    if Q.shape[-1] != K.shape[-1]:
        raise ValueError(f"Q and K must share their last dimension d; got "
                         f"{Q.shape[-1]} and {K.shape[-1]}.")
    if K.shape[-2] != V.shape[-2]:
        raise ValueError(f"K and V must have as many rows (keys); got "
                         f"{K.shape[-2]} and {V.shape[-2]}.")
    dtype = np.result_type(Q, K, V, np.float32)
    S = np.matmul(Q.astype(dtype, copy=False),
                  np.swapaxes(K.astype(dtype, copy=False), -1, -2))
    S *= 1.0 / np.sqrt(Q.shape[-1])
    if mask is not None:
        mask = np.asarray(mask)
        try:
            np.broadcast_shapes(mask.shape, S.shape)
        except ValueError:
            raise ValueError(f"mask of shape {mask.shape} does not broadcast to the "
                             f"scores' shape {S.shape}.") from None
        if mask.dtype == bool:
            S = np.where(mask, S, -np.inf)
        elif np.issubdtype(mask.dtype, np.number):
            S = S + mask.astype(dtype, copy=False)
        else:
            raise TypeError(f"mask must be boolean or numeric; got dtype {mask.dtype}.")
    A = softmax(S, axis=-1)
    out = np.matmul(A, V.astype(dtype, copy=False))
    return (out, A) if return_weights else out


def sinusoidal_positional_encoding(T, d, base=10000.0):
    r"""The ``(T, d)`` sinusoidal position table of D1 §11.2 (notes B §7.6).

    :math:`P_{t,2i} = \sin(t / b^{2i/d})` and :math:`P_{t,2i+1} = \cos(t /
    b^{2i/d})` with :math:`b` = ``base``; added to the token embeddings, no
    parameters. With an odd ``d`` the last column is a sine.

    Parameters
    ----------
    T : int
        Number of positions, 0..T-1.
    d : int
        Model dimension.
    base : float, default=10000.0

    Returns
    -------
    P : ndarray of shape (T, d)

    Examples
    --------
    >>> from skml.attention import sinusoidal_positional_encoding
    >>> P = sinusoidal_positional_encoding(2, 512)
    >>> P[1, :2].round(4)  # sin 1, cos 1
    array([0.8415, 0.5403])
    """
    T = _check_int("T", T, 1)
    d = _check_int("d", d, 1)
    base = _check_base(base)
    t = np.arange(T, dtype=np.float64)[:, None]
    inv = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
    P = np.empty((T, d))
    P[:, 0::2] = np.sin(t * inv)
    P[:, 1::2] = np.cos(t * inv[: d // 2])
    return P


def _check_base(base):
    if isinstance(base, (bool, np.bool_)) or not isinstance(base, numbers.Real):
        raise TypeError(f"base must be a float; got {base!r}.")
    if not (np.isfinite(base) and base > 1.0):
        raise ValueError(f"base must be a finite float > 1; got {base!r}.")
    return float(base)


def label_smoothing(y, eps, n_classes):
    r"""Smoothed one-hot targets :math:`(1-\varepsilon)\delta_{k,y} + \varepsilon/C`.

    Notes B §7.6 (D1 §12.2): every class keeps mass :math:`\varepsilon / C`,
    the true class gets :math:`1 - \varepsilon + \varepsilon / C`; rows sum
    to 1. The same formula as PyTorch's ``CrossEntropyLoss(label_smoothing=eps)``.

    Parameters
    ----------
    y : array-like of int of shape (n_samples,)
        Class indices in ``0..n_classes-1``.
    eps : float in [0, 1]
    n_classes : int
        C, at least 2.

    Returns
    -------
    Y : ndarray of shape (n_samples, n_classes)

    Examples
    --------
    >>> from skml.attention import label_smoothing
    >>> label_smoothing([0, 2], 0.3, 3)
    array([[0.8, 0.1, 0.1],
           [0.1, 0.1, 0.8]])
    """
    n_classes = _check_int("n_classes", n_classes, 2)
    if isinstance(eps, (bool, np.bool_)) or not isinstance(eps, numbers.Real):
        raise TypeError(f"eps must be a float; got {eps!r}.")
    if not 0.0 <= eps <= 1.0:
        raise ValueError(f"eps must be in [0, 1]; got {eps!r}.")
    y = np.asarray(y)
    if y.ndim != 1:
        raise ValueError(f"y must be 1-d class indices; got shape {y.shape}.")
    if y.size and (y.dtype.kind not in "iu" and not (
            y.dtype.kind == "f" and np.all(np.isfinite(y)) and np.all(y == np.round(y)))):
        raise ValueError("y must hold integer class indices.")
    y = y.astype(np.intp)
    if y.size and (y.min() < 0 or y.max() >= n_classes):
        raise ValueError(f"y must hold class indices in [0, {n_classes - 1}]; got "
                         f"values in [{y.min()}, {y.max()}].")
    Y = np.full((y.size, n_classes), eps / n_classes)
    Y[np.arange(y.size), y] += 1.0 - eps
    return Y
