"""numba kernels of the tiled Euclidean brute force (notes A §5.1, issue 12).

The query-to-training products come in tiles (a block of query rows against
a block of training rows, one BLAS call each, sized to stay in cache); each
tile is folded at once into the per-row bounded max-heaps, so no
``n_queries x n_samples_fit`` distance matrix is ever written. Candidates
are ranked by ``||y||^2 - 2 x.y``: the query's own ``||x||^2`` is the same
for every candidate of a row, so it is left out of the ranking (the k kept
are measured exactly afterwards, see ``exact_euclidean_knn``).
"""

import numpy as np
from numba import njit

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
