"""numba kernels of the tiled brute force (notes A §5.1, issues 12 and 21).

The query-to-training products come in tiles (a block of query rows against
a block of training rows, one BLAS call each, sized to stay in cache); each
tile is folded at once into the per-row bounded max-heaps, so no
``n_queries x n_samples_fit`` distance matrix is ever written. Candidates
are ranked by ``||y||^2 - 2 x.y``: the query's own ``||x||^2`` is the same
for every candidate of a row, so it is left out of the ranking (the k kept
are measured exactly afterwards, see ``exact_euclidean_knn``).
"""

import math

import numpy as np
from numba import njit

from ..metrics._distance_kernels import (
    BRAYCURTIS,
    CANBERRA,
    CHEBYSHEV,
    EUCLIDEAN,
    HAMMING,
    MANHATTAN,
    MINKOWSKI,
    NAN_EUCLIDEAN,
    SQEUCLIDEAN,
)
from ._kd_tree_kernels import _heap_sort, _sift_down

# Scores checked at once before any goes to the heap.
_LANES = 16


@njit(cache=True, nogil=True, fastmath={"nnan", "nsz"})
def push_tile(G, yy, col0, row0, exclude_self, hd, hi):
    """Fold the tile ``G[r, j] = x_r . y_(col0 + j)`` into the heaps.

    ``hd[r], hi[r]`` is row r's max-heap of (score, index), score
    ``yy[j] - 2 G[r, j]``; tiles must arrive by increasing ``col0`` (an
    equal score never displaces a smaller index). ``exclude_self`` skips
    the column ``row0 + r`` (the query is training point ``row0 + r``).
    """
    k = hd.shape[1]
    n_cols = G.shape[1]
    for r in range(G.shape[0]):
        h_d = hd[r]
        h_i = hi[r]
        worst = h_d[0]
        skip = row0 + r - col0 if exclude_self else -1
        g = G[r]
        for j0 in range(0, n_cols, _LANES):
            j1 = min(j0 + _LANES, n_cols)
            # Branch-free minimum of a few scores first (vectorised): most
            # groups hold no candidate and cost no comparison chain.
            low = np.inf
            for j in range(j0, j1):
                low = min(low, yy[col0 + j] - 2.0 * g[j])
            if low >= worst:
                continue
            for j in range(j0, j1):
                s = yy[col0 + j] - 2.0 * g[j]
                if s < worst and j != skip:
                    _sift_down(h_d, h_i, k, s, col0 + j)
                    worst = h_d[0]


@njit(cache=True, nogil=True)
def sort_heaps(hd, hi):
    """Sort every row's full heap into ascending (score, index)."""
    for r in range(hd.shape[0]):
        _heap_sort(hd[r], hi[r])


# -- the other vector metrics (manhattan, chebyshev, minkowski, canberra,
# braycurtis, hamming, sqeuclidean, nan_euclidean; seuclidean, mahalanobis
# and weighted Minkowski on mapped rows) ------------------------------------
# Training points per tile: the tile is copied transposed (features x
# points), 20 features x 256 points is 40 KiB, and stays in cache while every
# query row of the block is measured against it.
_METRIC_TILE = 256

# The metric codes ``metric_knn`` computes.
TILED_CODES = (EUCLIDEAN, SQEUCLIDEAN, MANHATTAN, CHEBYSHEV, MINKOWSKI, CANBERRA,
               BRAYCURTIS, HAMMING, NAN_EUCLIDEAN)


@njit(cache=True, nogil=True, error_model="numpy")
def _row_tile(Xq, r, YT, w, code, p, acc, den):
    """``acc[j] = d(Xq[r], tile column j)`` for the w columns of the tile ``YT``.

    Each pair's sum runs over the features in order (the bits of
    ``pair_distance``); the innermost loops run over the tile's columns,
    contiguous and independent, so the compiler vectorises them. The
    canberra ratio is a select (``error_model="numpy"``: no zero-division
    branch), braycurtis divides once per pair.
    """
    m = Xq.shape[1]
    acc[:w] = 0.0
    if code == BRAYCURTIS:
        den[:w] = 0.0
        for t in range(m):
            a = np.float64(Xq[r, t])
            aa = abs(a)
            for j in range(w):
                b = YT[t, j]
                acc[j] += abs(a - b)
                den[j] += aa + abs(b)
        for j in range(w):
            acc[j] = acc[j] / den[j] if den[j] > 0.0 else 0.0
    elif code == CANBERRA:
        for t in range(m):
            a = np.float64(Xq[r, t])
            aa = abs(a)
            for j in range(w):
                b = YT[t, j]
                s = aa + abs(b)
                q = abs(a - b) / s
                acc[j] += q if s > 0.0 else 0.0
    elif code == EUCLIDEAN or code == SQEUCLIDEAN:
        # (euclidean: seuclidean, mahalanobis, weighted Minkowski on
        # mapped rows; the plain one has its BLAS search)
        for t in range(m):
            a = np.float64(Xq[r, t])
            for j in range(w):
                diff = a - YT[t, j]
                acc[j] += diff * diff
        if code == EUCLIDEAN:
            for j in range(w):
                acc[j] = math.sqrt(acc[j])
    elif code == HAMMING:
        for t in range(m):
            a = np.float64(Xq[r, t])
            for j in range(w):
                acc[j] += 1.0 if a != YT[t, j] else 0.0
        for j in range(w):
            acc[j] = acc[j] / m
    elif code == NAN_EUCLIDEAN:
        # Over the coordinates present in both, scaled by m / present;
        # none present: NaN in pairwise_distances, ranked last here.
        den[:w] = 0.0
        for t in range(m):
            a = np.float64(Xq[r, t])
            for j in range(w):
                diff = a - YT[t, j]
                present = diff == diff  # (False when either is NaN)
                acc[j] += diff * diff if present else 0.0
                den[j] += 1.0 if present else 0.0
        for j in range(w):
            acc[j] = math.sqrt(acc[j] * m / den[j]) if den[j] > 0.0 else np.inf
    elif code == MANHATTAN:
        for t in range(m):
            a = np.float64(Xq[r, t])
            for j in range(w):
                acc[j] += abs(a - YT[t, j])
    elif code == CHEBYSHEV:
        for t in range(m):
            a = np.float64(Xq[r, t])
            for j in range(w):
                acc[j] = max(acc[j], abs(a - YT[t, j]))
    else:  # MINKOWSKI (TILED_CODES only)
        for t in range(m):
            a = np.float64(Xq[r, t])
            for j in range(w):
                acc[j] += abs(a - YT[t, j]) ** p
        inv_p = 1.0 / p
        for j in range(w):
            acc[j] = acc[j] ** inv_p


@njit(cache=True, nogil=True)
def _tile_buffers(m, n_fit):
    """The transposed tile of Y (m x width) and the row buffers of ``_row_tile``."""
    width = max(min(_METRIC_TILE, n_fit), 1)
    return np.empty((m, width)), np.empty(width), np.empty(width)


@njit(cache=True, nogil=True)
def _load_tile(Y, c0, YT):
    """Copy rows ``c0:c0 + w`` of Y, transposed, into ``YT``; return ``w``."""
    w = min(YT.shape[1], Y.shape[0] - c0)
    for t in range(YT.shape[0]):
        for j in range(w):
            YT[t, j] = Y[c0 + j, t]
    return w


@njit(cache=True, nogil=True, error_model="numpy")
def metric_knn(Xq, Y, code, p, row0, exclude_self, hd, hi):
    """k nearest rows of Y to each row of Xq under ``code``, into the heaps.

    The distances are those of ``pair_distance`` bit for bit (see
    ``_row_tile``), measured against transposed tiles of Y. ``hd, hi`` start as
    ``inf, _NO_INDEX`` and end sorted by (distance, index); ``exclude_self``
    skips training point ``row0 + r`` for query row r.
    """
    k = hd.shape[1]
    YT, acc, den = _tile_buffers(Xq.shape[1], Y.shape[0])
    for c0 in range(0, Y.shape[0], YT.shape[1]):
        w = _load_tile(Y, c0, YT)
        for r in range(Xq.shape[0]):
            _row_tile(Xq, r, YT, w, code, p, acc, den)
            h_d = hd[r]
            h_i = hi[r]
            worst = h_d[0]
            skip = row0 + r - c0 if exclude_self else -1
            for j0 in range(0, w, _LANES):
                j1 = min(j0 + _LANES, w)
                low = np.inf
                for j in range(j0, j1):
                    low = min(low, acc[j])
                if not low < worst:
                    continue
                for j in range(j0, j1):
                    # Tiles arrive by increasing index: an equal distance
                    # never displaces a smaller index.
                    if acc[j] < worst and j != skip:
                        _sift_down(h_d, h_i, k, acc[j], c0 + j)
                        worst = h_d[0]
    for r in range(Xq.shape[0]):
        _heap_sort(hd[r], hi[r])


@njit(cache=True, nogil=True, error_model="numpy")
def metric_block(Xq, Y, code, p, out):
    """``out[r, c] = d(Xq[r], Y[c])`` by the tiles of ``metric_knn`` (same bits)."""
    YT, acc, den = _tile_buffers(Xq.shape[1], Y.shape[0])
    for c0 in range(0, Y.shape[0], YT.shape[1]):
        w = _load_tile(Y, c0, YT)
        for r in range(Xq.shape[0]):
            _row_tile(Xq, r, YT, w, code, p, acc, den)
            for j in range(w):
                out[r, c0 + j] = acc[j]
