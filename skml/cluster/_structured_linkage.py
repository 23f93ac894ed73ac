"""Agglomerative clustering along a connectivity graph (structured clustering).

Two clusters may merge only if an edge of the graph joins them, so clusters
stay contiguous on the graph (pixels of an image, points of a k-nearest
neighbour graph). The graph is made symmetric; if it is disconnected it is
completed, as scikit-learn completes it, with one edge between the closest
pair of points of each pair of components.
"""

import warnings

import numpy as np
import scipy.sparse as sp
from scipy.sparse.csgraph import connected_components

from . import _agglomerative_kernels as _k
from . import _structured_linkage_kernels as _sk

__all__ = ["connectivity_graph", "structured_linkage_tree"]


def connectivity_graph(connectivity, X, metric):
    """The symmetric CSR graph without diagonal and its component count.

    ``connectivity`` is an (n, n) array or sparse matrix, or a callable of
    ``X`` returning one; its stored entries are the edges (their values are
    ignored). ``metric`` (a kernel code, or None for a distance matrix ``X``)
    finds the closest pairs that join the components.
    """
    n = X.shape[0]
    if callable(connectivity):
        connectivity = connectivity(X)
    if not sp.issparse(connectivity):
        connectivity = np.asarray(connectivity)
        if connectivity.ndim != 2:
            raise ValueError(
                "connectivity must be a 2-d (n_samples, n_samples) array or sparse "
                f"matrix; got an array of shape {connectivity.shape}.")
    if connectivity.shape != (n, n):
        raise ValueError(
            f"Wrong shape for connectivity matrix: {connectivity.shape} when X has "
            f"{n} samples; it must be ({n}, {n}).")
    if sp.issparse(connectivity):
        graph = sp.csr_matrix(connectivity, dtype=np.float64, copy=True)
    else:
        graph = sp.csr_matrix(connectivity != 0, dtype=np.float64)
    graph.data[:] = 1.0  # stored entries are edges, whatever their value
    graph = (graph + graph.T).tocsr()
    graph.setdiag(0)
    graph.eliminate_zeros()
    n_components, labels = connected_components(graph, directed=False)
    if n_components > 1:
        warnings.warn(
            f"the number of connected components of the connectivity matrix is "
            f"{n_components} > 1. Completing it to avoid stopping the tree early.",
            UserWarning, stacklevel=3)
        graph = _join_components(graph, X, metric, labels, n_components)
    graph.sort_indices()
    return graph, n_components


def _join_components(graph, X, metric, labels, n_components):
    """Add an edge between the closest points of every pair of components."""
    members = [np.flatnonzero(labels == c) for c in range(n_components)]
    norms = (np.sqrt(np.einsum("ij,ij->i", X, X)) if metric == _k.COSINE
             else np.empty(0))
    rows, cols = [], []
    for a in range(n_components):
        for b in range(a):
            if metric is None:
                block = X[np.ix_(members[a], members[b])]
                i, j = np.unravel_index(np.argmin(block), block.shape)
                i, j = members[a][i], members[b][j]
            elif metric in (_k.EUCLIDEAN, _k.SQEUCLIDEAN):
                i, j = _closest_euclidean(X, members[a], members[b])
            else:
                i, j, _ = _sk.closest_pair(X, members[a], members[b], metric, norms)
            rows += [i, j]
            cols += [j, i]
    extra = sp.csr_matrix((np.ones(len(rows)), (rows, cols)), shape=graph.shape)
    graph = (graph + extra).tocsr()
    graph.data[:] = 1.0
    return graph


def _closest_euclidean(X, rows_a, rows_b, block=1024):
    """The closest pair by ``|a|^2 + |b|^2 - 2 a.b`` in row blocks (BLAS).

    Components can hold thousands of points each: a matrix product per block
    is ~10x faster than a loop over pairs, and memory stays ``block x |b|``.
    """
    Xb = X[rows_b]
    nb = np.einsum("ij,ij->i", Xb, Xb)
    best, best_pair = np.inf, (rows_a[0], rows_b[0])
    for start in range(0, len(rows_a), block):
        Xa = X[rows_a[start:start + block]]
        d2 = np.einsum("ij,ij->i", Xa, Xa)[:, None] + nb[None, :] - 2.0 * (Xa @ Xb.T)
        i, j = np.unravel_index(np.argmin(d2), d2.shape)
        if d2[i, j] < best:
            best, best_pair = d2[i, j], (rows_a[start + i], rows_b[j])
    return best_pair


def structured_linkage_tree(X, graph, linkage, metric, n_merges):
    """``children`` (merge order, smaller id first) and ``heights`` along ``graph``.

    ``X`` is the data, or a square distance matrix when ``metric`` is None;
    ``n_merges`` below ``n - 1`` stops early (scikit-learn's
    ``compute_full_tree=False``). Single linkage keeps merges in height
    order (the minimum spanning tree of the graph); the others keep the
    order the heap pops them in, which with a graph need not be increasing.
    """
    code = _k.WARD if linkage == "ward" else {
        "complete": _k.COMPLETE, "average": _k.AVERAGE, "single": _k.SINGLE}[linkage]
    n = graph.shape[0]
    indptr = graph.indptr.astype(np.int64)
    indices = graph.indices.astype(np.int64)
    if code == _k.WARD:
        weights = np.empty(0)
    elif metric is None:
        weights = X[np.repeat(np.arange(n), np.diff(indptr)), indices].astype(np.float64)
    else:
        norms = (np.sqrt(np.einsum("ij,ij->i", X, X)) if metric == _k.COSINE
                 else np.empty(0))
        weights = _sk.edge_distances(X, indptr, indices, metric, norms)
    if code == _k.SINGLE:
        rows = np.repeat(np.arange(n), np.diff(indptr))
        upper = indices > rows
        rows, cols, w = rows[upper], indices[upper], weights[upper]
        order = np.argsort(w, kind="stable")
        a, b, h = _sk.single_linkage_edges(rows[order], cols[order], w[order], n)
        children, _ = _k.label_merges(a, b, n)
        return children[:n_merges], h[:n_merges]
    data = X if code == _k.WARD else np.empty((0, 0))
    children, heights, done = _sk.structured_tree(indptr, indices, weights, data,
                                                  n_merges, code)
    if done < n_merges:  # cannot happen on a completed graph
        raise RuntimeError("The connectivity graph is disconnected after completion.")
    return children, heights
