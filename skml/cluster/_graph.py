"""Similarity graphs, their cuts and Laplacians (notes A §7.3).

The notes' graph has weights ``W_ij = s(x_i, x_j) >= 0``, a zero diagonal
and degrees ``D_ii = Σ_j W_ij``; its unnormalised Laplacian is ``L = D − W``.
The two normalised forms of von Luxburg's tutorial are
``L_sym = D^{-1/2} L D^{-1/2}`` and ``L_rw = D^{-1} L``.
"""

import numpy as np
import scipy.sparse as sp
from sklearn.utils.validation import check_array

from ..utils._docstrings import fill_doc

__all__ = ["cut", "graph_laplacian", "normalized_cut", "ratio_cut", "similarity_graph"]

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


def _check_labels(labels, n):
    labels = np.asarray(labels)
    if labels.ndim != 1 or labels.shape[0] != n:
        raise ValueError(
            f"labels must be one label per node, shape ({n},); got shape "
            f"{labels.shape}.")
    return np.unique(labels, return_inverse=True)[1]


def _crossing_weights(W, codes):
    """``W(C_i, C̄_i)`` per cluster ``i`` and the cluster sizes and volumes."""
    k = codes.max() + 1 if codes.size else 0
    W = W.tocoo() if sp.issparse(W) else sp.coo_matrix(W)
    off = W.row != W.col  # the diagonal is not an edge
    rows, cols, w = W.row[off], W.col[off], W.data[off]
    crossing = codes[rows] != codes[cols]
    # float even without edges (bincount of no weights gives ints)
    out = np.bincount(codes[rows[crossing]], weights=w[crossing],
                      minlength=k).astype(np.float64)
    volume = np.bincount(codes[rows], weights=w, minlength=k).astype(np.float64)
    return out, np.bincount(codes, minlength=k), volume


# The Parameters section of the three cuts, and their shared See Also and
# Examples (one partition measured three ways), placed by ``fill_doc``.
_CUT_DOC = {
    "cut parameters": """
Parameters
----------
adjacency : {array-like, sparse matrix} of shape (n_nodes, n_nodes)
    Symmetric, non-negative weights; the diagonal is ignored.
labels : array-like of shape (n_nodes,)
    Cluster of each node.
""",
    "cut examples": """
See Also
--------
cut, ratio_cut, normalized_cut : The weight leaving the clusters, as is or
    divided by their sizes or volumes.
graph_laplacian : The Laplacians whose eigenvectors relax the cuts.
similarity_graph : A weight matrix from points.

Examples
--------
>>> import numpy as np
>>> from skml.cluster import cut, normalized_cut, ratio_cut
>>> W = np.array([[0, 3, 1], [3, 0, 1], [1, 1, 0]])
>>> labels = [0, 0, 1]
>>> float(cut(W, labels)), float(ratio_cut(W, labels)), float(normalized_cut(W, labels))
(4.0, 3.0, 1.25)
""",
}


def _cut_terms(adjacency, labels):
    """Validate, then ``W(C_i, C̄_i)`` per cluster, the sizes and the volumes."""
    W = _check_adjacency(adjacency)
    codes = _check_labels(labels, W.shape[0])
    return _crossing_weights(W, codes)


@fill_doc(**_CUT_DOC)
def cut(adjacency, labels):
    """The notes' Cut of a partition: weight leaving each cluster, summed.

    ``Cut(C_1, ..., C_k) = Σ_i Σ_{r ∈ C_i, s ∉ C_i} W_rs`` (notes A §7.3, S0
    §7 "Spectral Clustering"): every edge between two clusters counts once
    from each side (S0 has no factor 1/2; von Luxburg's tutorial has).

    <cut parameters>

    Returns
    -------
    cut : float

    <cut examples>
    """
    return float(_cut_terms(adjacency, labels)[0].sum())


@fill_doc(**_CUT_DOC)
def ratio_cut(adjacency, labels):
    """The notes' RatioCut: ``Σ_i W(C_i, C̄_i) / |C_i|`` (notes A §7.3).

    S0's definition (no factor 1/2). With ``H_ij = 1[i ∈ C_j] / sqrt(|C_j|)``
    it equals ``tr(H^T L H)`` for ``L = D − W`` (the notes' lemma, which
    spectral clustering relaxes).

    <cut parameters>

    Returns
    -------
    ratio_cut : float

    <cut examples>
    """
    crossing, sizes, _ = _cut_terms(adjacency, labels)
    return float(np.sum(crossing / sizes))


@fill_doc(**_CUT_DOC)
def normalized_cut(adjacency, labels):
    """Ncut: ``Σ_i W(C_i, C̄_i) / vol(C_i)`` with ``vol(C) = Σ_{r ∈ C} D_rr``.

    The cut that the normalised Laplacians relax (von Luxburg's tutorial;
    :class:`SpectralClustering`'s default ``laplacian="rw"``), with the same
    convention as :func:`ratio_cut` (no factor 1/2). A cluster of volume 0
    (isolated nodes only) contributes 0.

    <cut parameters>

    Returns
    -------
    normalized_cut : float

    <cut examples>
    """
    crossing, _, volume = _cut_terms(adjacency, labels)
    return float(np.sum(np.divide(crossing, volume, out=np.zeros_like(crossing),
                                  where=volume > 0)))


def similarity_graph(X, *, kind="full", sigma=1.0, n_neighbors=10, epsilon=None,
                     mutual=False):
    """Similarity graph of the rows of ``X`` (notes A §7.3).

    ``kind="full"``: the notes' complete graph ``W_ij = exp(−||x_i − x_j||^2
    / σ^2)`` (σ², not 2σ², as S0 writes it) with a zero diagonal.
    ``kind="knn"``: the same weights kept only between each point and its
    ``n_neighbors`` nearest neighbours, symmetrised by "either is a
    neighbour of the other" (or "both", ``mutual=True``). ``kind="epsilon"``:
    ``W_ij = 1`` when ``||x_i − x_j|| <= epsilon`` (unweighted), the third
    graph of von Luxburg's tutorial.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
    kind : {"full", "knn", "epsilon"}, default="full"
    sigma : float, default=1.0
        Width of the Gaussian weights, > 0.
    n_neighbors : int, default=10
        Neighbours per point for ``kind="knn"``.
    epsilon : float, default=None
        Radius for ``kind="epsilon"`` (required there).
    mutual : bool, default=False
        Mutual k-nearest-neighbour graph.

    Returns
    -------
    W : ndarray of shape (n_samples, n_samples)
        Dense for ``"full"``, CSR for ``"knn"`` and ``"epsilon"``.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.cluster import similarity_graph
    >>> W = similarity_graph(np.array([[0.0], [1.0], [3.0]]), sigma=1.0)
    >>> bool(np.isclose(W[0, 1], np.exp(-1.0))), float(W[1, 1])
    (True, 0.0)
    """
    from ..metrics.pairwise import euclidean_distances
    from ..neighbors import NearestNeighbors

    if kind not in ("full", "knn", "epsilon"):
        raise ValueError(
            f"kind must be 'full', 'knn' or 'epsilon'; got {kind!r}.")
    X = check_array(X, dtype=np.float64, input_name="X")
    n = X.shape[0]
    if isinstance(sigma, bool) or not np.isscalar(sigma) or not np.isfinite(
            sigma) or sigma <= 0:
        raise ValueError(f"sigma must be a positive finite number; got {sigma!r}.")
    if kind == "full":
        W = np.exp(-euclidean_distances(X, squared=True) / sigma**2)
        np.fill_diagonal(W, 0.0)
        return W
    if kind == "epsilon":
        if epsilon is None or isinstance(epsilon, bool) or not np.isscalar(
                epsilon) or not epsilon >= 0:
            raise ValueError(
                f"kind='epsilon' needs epsilon >= 0; got epsilon={epsilon!r}.")
        D = euclidean_distances(X)
        W = sp.csr_matrix((D <= epsilon) & ~np.eye(n, dtype=bool), dtype=np.float64)
        return W
    if isinstance(n_neighbors, bool) or not isinstance(
            n_neighbors, (int, np.integer)) or not 1 <= n_neighbors < n:
        raise ValueError(
            f"n_neighbors must be an int in [1, n_samples - 1 = {n - 1}]; got "
            f"{n_neighbors!r}.")
    dist, ind = NearestNeighbors(n_neighbors=int(n_neighbors)).fit(X).kneighbors()
    rows = np.repeat(np.arange(n), n_neighbors)
    A = sp.csr_matrix((np.exp(-dist.ravel() ** 2 / sigma**2), (rows, ind.ravel())),
                      shape=(n, n))
    W = A.minimum(A.T) if mutual else A.maximum(A.T)
    return sp.csr_matrix(W)
