r"""Contrastive learning as a Markov random field on a similarity graph (notes A §8.3).

``pi`` is a weighted graph on the points (``pi[i, j] >= 0``). A subgraph
``W`` in which every node has out-degree exactly one has probability
proportional to :math:`\prod_{ij} \pi_{ij}^{W_{ij}}`; its rows are
independent, row ``i`` one draw of ``Multinomial(1, pi_i / sum_j pi_ij)``.
The cross-entropy of the kernel graph :math:`K_Z` of the embeddings against
such draws is

.. math::

    H_\pi(Z) = -\mathbb{E}_{W \sim P(\cdot; \pi)} \log P(W; K_Z)
             = -\sum_i \sum_j \frac{\pi_{ij}}{\sum_k \pi_{ik}} \log Q_{ij},
    \qquad Q_{ij} = \frac{K_Z(i, j)}{\sum_k K_Z(i, k)},

with :math:`K_Z(i, j) = \exp(-\|z_i - z_j\|^2 / 2\tau)`. For a one-hot
``pi`` linking each query to its positive it is InfoNCE (notes A §8.3;
S0 prints the opposite sign, a typo).
"""

import numpy as np
from sklearn.utils.validation import check_random_state

from ._losses import _check_temperature

__all__ = ["gaussian_kernel_matrix", "mrf_cross_entropy",
           "sample_unitary_outdegree_graph"]


def _check_matrix(M, name):
    M = np.asarray(M, dtype=np.float64)
    if M.ndim != 2 or M.shape[0] < 1 or M.shape[1] < 1:
        raise ValueError(f"{name} must be a non-empty 2-d array; got shape {M.shape}.")
    if not np.all(np.isfinite(M)):
        raise ValueError(f"{name} contains NaN or infinity.")
    return M


def _check_pi(pi, n_rows, n_cols):
    pi = _check_matrix(pi, "pi")
    if n_rows is not None and pi.shape != (n_rows, n_cols):
        raise ValueError(f"pi must have shape {(n_rows, n_cols)} (one row per point "
                         f"of Z, one column per candidate); got {pi.shape}.")
    if np.any(pi < 0):
        raise ValueError("pi must hold non-negative edge weights.")
    if np.any(pi.sum(axis=1) <= 0):
        raise ValueError("every row of pi needs a positive weight (each node must "
                         "have an out-edge to sample).")
    return pi


def _log_kernel(Z, Y, tau):
    sq = (np.einsum("ij,ij->i", Z, Z)[:, None] + np.einsum("ij,ij->i", Y, Y)[None, :]
          - 2.0 * (Z @ Y.T))
    np.maximum(sq, 0.0, out=sq)
    return sq / (-2.0 * tau)


def gaussian_kernel_matrix(Z, temperature=1.0, Y=None):
    r"""The kernel graph :math:`K(i, j) = \exp(-\|z_i - y_j\|^2 / 2\tau)`.

    Parameters
    ----------
    Z : array-like of shape (n_samples, n_features)
    temperature : float, default=1.0
        :math:`\tau > 0`.
    Y : array-like of shape (n_candidates, n_features), default=None
        The candidates; None uses ``Z`` (a square graph, self-loops of weight 1).

    Returns
    -------
    K : ndarray of shape (n_samples, n_candidates)

    Examples
    --------
    >>> import numpy as np
    >>> from skml.contrastive import gaussian_kernel_matrix
    >>> gaussian_kernel_matrix(np.array([[0.0], [2.0]]), temperature=1.0).round(3)
    array([[1.   , 0.135],
           [0.135, 1.   ]])
    """
    Z = _check_matrix(Z, "Z")
    Y = Z if Y is None else _check_matrix(Y, "Y")
    if Y.shape[1] != Z.shape[1]:
        raise ValueError(f"Y has {Y.shape[1]} features but Z has {Z.shape[1]}.")
    return np.exp(_log_kernel(Z, Y, _check_temperature(temperature)))


def mrf_cross_entropy(pi, Z, temperature=1.0, Y=None):
    r"""Exact cross-entropy :math:`H_\pi(Z)` of the kernel graph against ``pi``.

    Parameters
    ----------
    pi : array-like of shape (n_samples, n_candidates)
        Non-negative edge weights; each row needs a positive one. Rows are
        normalised to the out-edge distributions.
    Z : array-like of shape (n_samples, n_features)
        The embeddings of the nodes.
    temperature : float, default=1.0
        :math:`\tau > 0` of the Gaussian kernel.
    Y : array-like of shape (n_candidates, n_features), default=None
        Embeddings of the candidates (a bipartite graph, as InfoNCE's
        queries against keys); None uses ``Z`` itself, self-loops included
        as in the notes' :math:`K_Z`.

    Returns
    -------
    H : float
        :math:`-\sum_i \sum_j (\pi_{ij} / \sum_k \pi_{ik}) \log Q_{ij}`.

    See Also
    --------
    info_nce_loss : Equal to ``mrf_cross_entropy(np.eye(n), Q, tau, Y=P)``.
    sample_unitary_outdegree_graph : Draws ``W``; the mean of
        ``-log P(W; K_Z)`` over draws converges to ``H``.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.contrastive import info_nce_loss, mrf_cross_entropy
    >>> rng = np.random.RandomState(0)
    >>> Q, P = rng.randn(5, 3), rng.randn(5, 3)
    >>> H = mrf_cross_entropy(np.eye(5), Q, 0.5, Y=P)
    >>> bool(np.isclose(H, info_nce_loss(Q, P, 0.5)[0]))
    True
    """
    Z = _check_matrix(Z, "Z")
    Y = Z if Y is None else _check_matrix(Y, "Y")
    if Y.shape[1] != Z.shape[1]:
        raise ValueError(f"Y has {Y.shape[1]} features but Z has {Z.shape[1]}.")
    pi = _check_pi(pi, Z.shape[0], Y.shape[0])
    logK = _log_kernel(Z, Y, _check_temperature(temperature))
    m = logK.max(axis=1, keepdims=True)
    logQ = logK - (m + np.log(np.exp(logK - m).sum(axis=1, keepdims=True)))
    weights = pi / pi.sum(axis=1, keepdims=True)
    # 0 log 0 = 0: an edge of weight zero contributes nothing.
    return float(-np.sum(np.where(weights > 0, weights * logQ, 0.0)))


def sample_unitary_outdegree_graph(pi, n_samples=1, random_state=None):
    r"""Draw subgraphs ``W`` in which every node has exactly one out-edge.

    Under :math:`P(W; \pi) \propto \Omega(W) \prod_{ij} \pi_{ij}^{W_{ij}}`
    with :math:`\Omega(W) = 1` iff every out-degree is one, the rows are
    independent: row ``i`` picks column ``j`` with probability
    :math:`\pi_{ij} / \sum_k \pi_{ik}` (notes A §8.3).

    Parameters
    ----------
    pi : array-like of shape (n_nodes, n_candidates)
        Non-negative edge weights, a positive one in every row.
    n_samples : int, default=1
        Number of independent subgraphs.
    random_state : int, RandomState instance or None, default=None

    Returns
    -------
    W : ndarray of shape (n_samples, n_nodes, n_candidates), dtype int8
        Each row of each draw holds exactly one 1.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.contrastive import sample_unitary_outdegree_graph
    >>> W = sample_unitary_outdegree_graph(np.ones((3, 3)), 4, random_state=0)
    >>> W.shape, bool(np.all(W.sum(axis=2) == 1))
    ((4, 3, 3), True)
    """
    pi = _check_pi(pi, None, None)
    if (not isinstance(n_samples, (int, np.integer)) or isinstance(n_samples, bool)
            or n_samples < 1):
        raise ValueError(f"n_samples must be an int >= 1; got {n_samples!r}.")
    rng = check_random_state(random_state)
    n, m = pi.shape
    cum = np.cumsum(pi / pi.sum(axis=1, keepdims=True), axis=1)
    u = rng.uniform(size=(n_samples, n, 1))
    # First column whose cumulative probability exceeds u; a column of zero
    # weight has cum equal to its left neighbour's, so it is never chosen.
    choice = np.minimum((u >= cum[None, :, :]).sum(axis=2), m - 1)
    # Rounding can leave cum[-1] slightly below 1: step back over zero weights.
    zero = pi[np.arange(n)[None, :], choice] == 0
    if np.any(zero):
        last = m - 1 - np.argmax(pi[:, ::-1] > 0, axis=1)
        choice = np.where(zero, last[None, :], choice)
    W = np.zeros((n_samples, n, m), dtype=np.int8)
    np.put_along_axis(W, choice[:, :, None], 1, axis=2)
    return W
