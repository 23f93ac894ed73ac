"""Graph Laplacians of a similarity graph (notes A §7.3).

The notes' graph has weights ``W_ij = s(x_i, x_j) >= 0``, a zero diagonal
and degrees ``D_ii = Σ_j W_ij``; its unnormalised Laplacian is ``L = D − W``.
The two normalised forms of von Luxburg's tutorial are
``L_sym = D^{-1/2} L D^{-1/2}`` and ``L_rw = D^{-1} L``.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

__all__ = ["graph_laplacian"]

_KINDS = ("unnormalized", "sym", "rw")


def _check_adjacency(adjacency, check_symmetric=True, name="adjacency"):
    """Validate a square, finite, non-negative weight matrix (dense or CSR)."""
    if sp.issparse(adjacency):
        W = check_array(adjacency, accept_sparse="csr", dtype=np.float64,
                        input_name=name)
    else:
        W = check_array(adjacency, dtype=np.float64, input_name=name)
    n, m = W.shape
    if n != m:
        raise ValueError(
            f"The {name} matrix must be square (one row and one column per "
            f"node); got shape {W.shape}."
        )
    values = W.data if sp.issparse(W) else W
    if values.size and values.min() < 0:
        raise ValueError(
            f"The {name} matrix has negative weights (min {values.min():.3g}); a "
            "graph Laplacian needs non-negative weights W_ij >= 0 to be positive "
            "semi-definite."
        )
    if check_symmetric:
        # Relative to the largest weight: kernels computed blockwise are
        # symmetric only up to rounding.
        scale = float(values.max()) if values.size else 0.0
        diff = abs(W - W.T)
        if sp.issparse(diff):
            diff = float(diff.max()) if diff.nnz else 0.0
        else:
            diff = float(diff.max(initial=0.0))
        if diff > 1e-10 * max(scale, 1.0):
            raise ValueError(
                f"The {name} matrix must be symmetric (an undirected graph; the "
                f"notes' 'directed graph' is a typo, notes A §0 item 6); "
                f"max |W - W.T| = {diff:.3g}."
            )
    return W


def _laplacian(W, kind):
    """Laplacian of a validated weight matrix; returns ``(L, degrees)``.

    The diagonal of ``W`` (self-loops) is ignored, as in the notes' zero
    diagonal and in ``scipy.sparse.csgraph.laplacian``. An isolated node
    (degree 0) has a zero row and column in every form.
    """
    n = W.shape[0]
    if sp.issparse(W):
        W = W.tocsr(copy=True)
        W.setdiag(0.0)
        W.eliminate_zeros()
        d = np.asarray(W.sum(axis=1)).ravel()
    else:
        W = W.copy()
        np.fill_diagonal(W, 0.0)
        d = W.sum(axis=1)
    if kind == "unnormalized":
        if sp.issparse(W):
            L = (sp.diags(d) - W).tocsr()
        else:
            # 0 - W, not -W: no negative zeros in the output.
            L = np.subtract(0.0, W, out=W)
            L.flat[:: n + 1] = d
        return L, d
    isolated = d == 0
    d_safe = np.where(isolated, 1.0, d)
    if kind == "sym":
        s = 1.0 / np.sqrt(d_safe)
        left, right = s, s
    else:  # "rw"
        left, right = 1.0 / d_safe, np.ones(n)
    diag = np.where(isolated, 0.0, 1.0)
    if sp.issparse(W):
        L = (sp.diags(diag) - sp.diags(left) @ W @ sp.diags(right)).tocsr()
    else:
        W *= left[:, np.newaxis]
        W *= right[np.newaxis, :]
        L = np.subtract(0.0, W, out=W)
        L.flat[:: n + 1] = diag
    return L, d


def graph_laplacian(adjacency, *, kind="unnormalized", return_diag=False):
    """Laplacian of an undirected weighted graph.

    The unnormalised Laplacian ``L = D − W`` of notes A §7.3 (S0 §7
    "Spectral Clustering Analysis"), or one of its normalised forms:
    ``L_sym = D^{-1/2} L D^{-1/2} = I − D^{-1/2} W D^{-1/2}`` and
    ``L_rw = D^{-1} L = I − D^{-1} W``. All three are positive semi-definite
    (``L_rw`` has the eigenvalues of ``L_sym``) and the multiplicity of their
    eigenvalue 0 is the number of connected components.

    Parameters
    ----------
    adjacency : {array-like, sparse matrix} of shape (n_nodes, n_nodes)
        Symmetric, non-negative weights ``W_ij``. The diagonal (self-loops)
        is ignored, as in the notes' zero diagonal.
    kind : {"unnormalized", "sym", "rw"}, default="unnormalized"
        Which Laplacian.
    return_diag : bool, default=False
        Also return the degrees ``D_ii = Σ_{j≠i} W_ij``.

    Returns
    -------
    laplacian : ndarray or scipy.sparse.csr_matrix of shape (n_nodes, n_nodes)
        Dense for dense input, CSR for sparse input.
    degrees : ndarray of shape (n_nodes,)
        Only if ``return_diag``.

    Raises
    ------
    ValueError
        If the matrix is not square, not symmetric, has negative, NaN or
        infinite weights, or ``kind`` is unknown.

    See Also
    --------
    SpectralClustering : Clustering with the eigenvectors of these matrices.

    Notes
    -----
    ``f^T L f = 1/2 Σ_ij W_ij (f_i − f_j)^2`` for every ``f``, hence PSD and
    ``L 1 = 0``. With the notes' indicator matrix ``H_ij = 1[i ∈ C_j] /
    sqrt(|C_j|)``, ``tr(H^T L H)`` is the notes' RatioCut (S0's definition,
    without the factor 1/2 of S2; catalogue A §0 item 7). An isolated node
    (degree 0) gets a zero row and column in the normalised forms too
    (``scipy.sparse.csgraph.laplacian`` does the same). O(nnz) time.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.cluster import graph_laplacian
    >>> W = np.array([[0, 1, 0], [1, 0, 2], [0, 2, 0]])
    >>> graph_laplacian(W)
    array([[ 1., -1.,  0.],
           [-1.,  3., -2.],
           [ 0., -2.,  2.]])
    >>> L, d = graph_laplacian(W, kind="rw", return_diag=True)
    >>> d
    array([1., 3., 2.])
    """
    if not isinstance(kind, str) or kind not in _KINDS:
        raise ValueError(
            f"The 'kind' parameter of graph_laplacian must be one of {_KINDS}; "
            f"got {kind!r}."
        )
    if not isinstance(return_diag, (bool, np.bool_)):
        raise TypeError(
            f"The 'return_diag' parameter of graph_laplacian must be a bool; got "
            f"{return_diag!r}."
        )
    W = _check_adjacency(adjacency)
    L, d = _laplacian(W, kind)
    return (L, d) if return_diag else L
