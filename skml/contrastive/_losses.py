r"""Contrastive losses with their analytic gradients (notes A §8.1, §8.2, §8.4).

Every loss returns ``(value, grad_a, grad_b)``: the loss and its gradient with
respect to each of its two embedding matrices, so it plugs into the network
core's back-propagation (``Sequential.backward``) unchanged. All of them are
a cross-entropy over a matrix of logits, computed with a row-wise
log-sum-exp; their gradient with respect to the logits is the familiar
``softmax - one_hot``, carried back through the similarity by one or two
matrix products.

==============  ===============================  ==================================
loss            logits                           candidates of anchor ``i``
==============  ===============================  ==================================
nt_xent_loss    cos(z_i, z_k) / tau              the other ``2N - 1`` views
info_nce_loss   -||q_i - p_j||^2 / (2 tau)       the ``N`` rows of ``P``
                or cos(q_i, p_j) / tau
clip_loss       cos(a_i, b_j) / tau              ``B`` for rows of ``A``, and back
==============  ===============================  ==================================
"""

import numbers

import numpy as np

__all__ = ["clip_loss", "info_nce_loss", "nt_xent_loss"]


def _check_pair(A, B, names):
    A = np.asarray(A, dtype=np.float64)
    B = np.asarray(B, dtype=np.float64)
    for M, name in zip((A, B), names):
        if M.ndim != 2:
            raise ValueError(f"{name} must be a 2-d array (n_samples, n_features); "
                             f"got shape {M.shape}.")
        if M.shape[0] < 1 or M.shape[1] < 1:
            raise ValueError(f"{name} must hold at least one row and one column; "
                             f"got shape {M.shape}.")
        if not np.all(np.isfinite(M)):
            raise ValueError(f"{name} contains NaN or infinity.")
    if A.shape != B.shape:
        raise ValueError(f"{names[0]} and {names[1]} must have the same shape (row i "
                         f"of one is paired with row i of the other); got "
                         f"{A.shape} and {B.shape}.")
    return A, B


def _check_temperature(temperature):
    if (not isinstance(temperature, numbers.Real) or isinstance(temperature, bool)
            or not np.isfinite(temperature) or temperature <= 0):
        raise ValueError(f"temperature must be a finite number > 0; got {temperature!r}.")
    return float(temperature)


def _normalize(Z):
    """Rows of ``Z`` scaled to unit length, and the lengths (zero rows stay zero)."""
    norms = np.sqrt(np.einsum("ij,ij->i", Z, Z))
    safe = np.where(norms > 0, norms, 1.0)
    return Z / safe[:, None], safe


def _normalize_backward(dU, U, norms):
    """Gradient wrt ``Z`` from the gradient wrt ``U = Z / ||Z||``: ``(I - u u^T) dU / ||z||``."""
    dZ = dU - U * np.einsum("ij,ij->i", U, dU)[:, None]
    dZ /= norms[:, None]
    return dZ


def _softmax_xent(logits, targets):
    """Per-row ``logsumexp(logits_i) - logits_i[targets_i]`` and ``softmax - one_hot``.

    Entries equal to ``-inf`` (masked candidates) get probability zero.
    """
    m = logits.max(axis=1, keepdims=True)
    E = np.exp(logits - m)
    s = E.sum(axis=1, keepdims=True)
    rows = np.arange(logits.shape[0])
    per_row = (np.log(s) + m)[:, 0] - logits[rows, targets]
    E /= s
    E[rows, targets] -= 1.0
    return per_row, E


def nt_xent_loss(Z_a, Z_b, temperature=0.5):
    r"""SimCLR's normalised temperature-scaled cross-entropy (notes A §8.1).

    With the ``2N`` views ``z`` (``Z_a[k]`` and ``Z_b[k]`` two views of the
    same sample), the cosine similarities ``s_ik`` and the positive ``i'`` of
    each view,

    .. math::

        \ell(i, i') = -\log \frac{\exp(s_{ii'}/\tau)}
            {\sum_{k \ne i} \exp(s_{ik}/\tau)}, \qquad
        L = \frac{1}{2N} \sum_{i=1}^{2N} \ell(i, i').

    The denominator holds the positive and excludes the view itself.

    Parameters
    ----------
    Z_a, Z_b : array-like of shape (n_samples, n_features)
        The projections of the first and the second view of each sample.
    temperature : float, default=0.5
        :math:`\tau > 0`.

    Returns
    -------
    loss : float
    grad_a, grad_b : ndarray of shape (n_samples, n_features)
        :math:`\partial L / \partial Z_a` and :math:`\partial L / \partial Z_b`.

    Notes
    -----
    With :math:`U` the normalised views and :math:`S = U U^T/\tau` (diagonal
    masked), :math:`G = \partial L/\partial S = (\mathrm{softmax}(S) - Y)/(2N)`,
    so :math:`\partial L/\partial U = (G + G^T) U / \tau`, projected on the
    tangent space of the sphere and divided by :math:`\|z_i\|`. Time
    :math:`O(N^2 d)`, memory :math:`O(N^2)`. A zero row has no direction; it
    is left at zero (cosine 0 with everything).

    Examples
    --------
    >>> import numpy as np
    >>> from skml.contrastive import nt_xent_loss
    >>> Z = np.ones((3, 2))
    >>> loss, _, _ = nt_xent_loss(Z, Z)        # all similarities equal
    >>> bool(np.isclose(loss, np.log(5)))      # log(2N - 1)
    True
    """
    Z_a, Z_b = _check_pair(Z_a, Z_b, ("Z_a", "Z_b"))
    return _nt_xent(Z_a, Z_b, _check_temperature(temperature))


def _nt_xent(Z_a, Z_b, tau):
    """:func:`nt_xent_loss` of checked float arrays (the training loop's call)."""
    n = Z_a.shape[0]
    U, norms = _normalize(np.vstack([Z_a, Z_b]))
    S = U @ U.T
    S /= tau
    np.fill_diagonal(S, -np.inf)
    positives = np.concatenate([np.arange(n, 2 * n), np.arange(n)])
    per_row, G = _softmax_xent(S, positives)
    G /= 2 * n
    dU = (G + G.T) @ U
    dU /= tau
    dZ = _normalize_backward(dU, U, norms)
    return float(per_row.mean()), dZ[:n], dZ[n:]


def info_nce_loss(Q, P, temperature=1.0, similarity="gaussian", reduction="sum"):
    r"""InfoNCE of queries ``Q`` against candidates ``P`` (notes A §8.2).

    Row ``P[i]`` is the positive of ``Q[i]`` and every row of ``P`` is a
    candidate (the positive is in the denominator):

    .. math::

        L = \sum_{i=1}^{N} -\log \frac{\exp(f(q_i, p_i))}
            {\sum_{j=1}^{N} \exp(f(q_i, p_j))},

    with the notes' Gaussian kernel :math:`f(q, p) = -\|q - p\|^2 / (2\tau)`
    or the cosine :math:`f(q, p) = \cos(q, p)/\tau` of SimCLR and CLIP.

    Parameters
    ----------
    Q, P : array-like of shape (n_samples, n_features)
    temperature : float, default=1.0
        :math:`\tau > 0`.
    similarity : {"gaussian", "cosine"}, default="gaussian"
    reduction : {"sum", "mean"}, default="sum"
        The notes' sum over the anchors (no :math:`1/N`), or the mean.

    Returns
    -------
    loss : float
    grad_q, grad_p : ndarray of shape (n_samples, n_features)

    Notes
    -----
    With :math:`G` the softmax of the logits minus the identity, the
    Gaussian form has :math:`\partial L/\partial Q = G P / \tau` (the rows of
    :math:`G` sum to zero) and :math:`\partial L/\partial p_j =
    ((G^T Q)_j - (\sum_i G_{ij}) p_j)/\tau`. Time :math:`O(N^2 d)`.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.contrastive import info_nce_loss
    >>> Q = np.zeros((4, 2))
    >>> loss, _, _ = info_nce_loss(Q, Q, reduction="mean")   # equal distances
    >>> bool(np.isclose(loss, np.log(4)))
    True
    """
    Q, P = _check_pair(Q, P, ("Q", "P"))
    tau = _check_temperature(temperature)
    if similarity not in ("gaussian", "cosine"):
        raise ValueError(f"similarity must be 'gaussian' or 'cosine'; got {similarity!r}.")
    if reduction not in ("sum", "mean"):
        raise ValueError(f"reduction must be 'sum' or 'mean'; got {reduction!r}.")
    n = Q.shape[0]
    diag = np.arange(n)
    if similarity == "gaussian":
        sq = np.einsum("ij,ij->i", Q, Q)[:, None] + np.einsum("ij,ij->i", P, P)[None, :]
        sq -= 2.0 * (Q @ P.T)
        np.maximum(sq, 0.0, out=sq)
        logits = sq / (-2.0 * tau)
    else:
        Uq, nq = _normalize(Q)
        Up, n_p = _normalize(P)
        logits = (Uq @ Up.T) / tau
    per_row, G = _softmax_xent(logits, diag)
    if reduction == "mean":
        G /= n
    if similarity == "gaussian":
        dQ = (G @ P) / tau
        dP = (G.T @ Q - G.sum(axis=0)[:, None] * P) / tau
    else:
        dQ = _normalize_backward((G @ Up) / tau, Uq, nq)
        dP = _normalize_backward((G.T @ Uq) / tau, Up, n_p)
    value = per_row.sum() if reduction == "sum" else per_row.mean()
    return float(value), dQ, dP


def clip_loss(A, B, temperature=0.07):
    r"""CLIP's symmetric InfoNCE of paired embeddings (notes A §8.4).

    With the logits :math:`S_{ij} = \cos(a_i, b_j)/\tau`, the mean of the
    cross-entropy of each row of ``A`` against the rows of ``B`` and of each
    row of ``B`` against those of ``A`` (the positive is the same index):

    .. math::

        L = \frac{1}{2N} \sum_i \Big[-\log \mathrm{softmax}(S_{i\cdot})_i
            - \log \mathrm{softmax}(S_{\cdot i})_i\Big].

    The notes name CLIP in words; this is the standard form.

    Parameters
    ----------
    A, B : array-like of shape (n_samples, n_features)
        The two modalities' embeddings (row ``i`` of each is one pair).
    temperature : float, default=0.07
        :math:`\tau > 0` (CLIP learns it; here it is fixed).

    Returns
    -------
    loss : float
    grad_a, grad_b : ndarray of shape (n_samples, n_features)

    Examples
    --------
    >>> import numpy as np
    >>> from skml.contrastive import clip_loss
    >>> loss, _, _ = clip_loss(np.ones((4, 3)), np.ones((4, 3)))
    >>> bool(np.isclose(loss, np.log(4)))
    True
    """
    A, B = _check_pair(A, B, ("A", "B"))
    tau = _check_temperature(temperature)
    n = A.shape[0]
    Ua, na = _normalize(A)
    Ub, nb = _normalize(B)
    S = (Ua @ Ub.T) / tau
    diag = np.arange(n)
    rows, G_rows = _softmax_xent(S, diag)
    cols, G_cols = _softmax_xent(S.T.copy(), diag)
    G = (G_rows + G_cols.T) / (2 * n)
    dA = _normalize_backward((G @ Ub) / tau, Ua, na)
    dB = _normalize_backward((G.T @ Ua) / tau, Ub, nb)
    return float((rows.sum() + cols.sum()) / (2 * n)), dA, dB
