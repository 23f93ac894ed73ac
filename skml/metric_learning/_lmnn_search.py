"""Neighbour searches and pair sums of LMNN: target neighbours, impostors,
hardest triplets, and the gradient scatter over pairs.

Everything is brute force in blocks of rows (memory O(block * n)). The
one-off target search calls :func:`skml.metrics.pairwise.euclidean_distances`;
the searches repeated at every loss evaluation call its unvalidated kernel
directly, because on small data (wine: 133 x 13) the input validation of the
public function cost more than the distances themselves.
"""

import numpy as np
import scipy.sparse as sp

from ..metrics._pairwise_helpers import squared_distances
from ..metrics.pairwise import euclidean_distances
from ..utils import _parallel
from ..utils._parallel import resolve_n_jobs, row_blocks, run_in_threads

__all__ = [
    "hardest_triplets",
    "impostor_pairs",
    "merge_pairs",
    "pair_gradient",
    "pair_sq_distances",
    "target_neighbors",
]

def target_neighbors(X, y, n_neighbors):
    """The ``k`` nearest same-class points of each sample, in the input space.

    Returns ``(targets, valid)``, both of shape (n_samples, k) with
    ``k = min(n_neighbors, largest class - 1)``; in a class of ``m <= k``
    points only ``m - 1`` entries are valid (the rest point to the sample
    itself and are masked).
    """
    n_samples = X.shape[0]
    counts = np.bincount(y)
    k = int(min(n_neighbors, counts.max() - 1))
    targets = np.repeat(np.arange(n_samples)[:, np.newaxis], max(k, 0), axis=1)
    valid = np.zeros((n_samples, max(k, 0)), dtype=bool)
    for c in np.flatnonzero(counts > 1):
        idx = np.flatnonzero(y == c)
        k_c = min(k, idx.size - 1)
        Xc = X[idx]
        sq = np.einsum("ij,ij->i", Xc, Xc)
        for block in row_blocks(idx.size, idx.size):
            start, stop = block.start, block.stop
            D = euclidean_distances(
                Xc[block], Xc, squared=True,
                X_norm_squared=sq[block], Y_norm_squared=sq,
            )
            rows = np.arange(stop - start)
            D[rows, rows + start] = np.inf
            nearest = np.argpartition(D, k_c - 1, axis=1)[:, :k_c]
            # Order each row's targets by distance, ties by index: deterministic.
            d_near = np.take_along_axis(D, nearest, axis=1)
            nearest = np.take_along_axis(
                nearest, np.lexsort((nearest, d_near), axis=1), axis=1
            )
            targets[idx[start:stop], :k_c] = idx[nearest]
            valid[idx[start:stop], :k_c] = True
    return targets, valid


def pair_sq_distances(Z, a, b):
    """``||Z[a] - Z[b]||²`` for index arrays ``a`` and ``b``, in blocks."""
    out = np.empty(a.shape[0])
    for block in row_blocks(a.shape[0], Z.shape[1]):
        diff = Z[a[block]] - Z[b[block]]
        out[block] = np.einsum("ij,ij->i", diff, diff)
    return out


def pair_gradient(Z, X, a, b, w):
    """``Σ_e w_e (z_a - z_b)(x_a - x_b)ᵀ`` without forming any outer product.

    Each pair adds ``w_e (z_a - z_b)`` to row ``a`` of an (n, c) matrix ``S``
    and ``w_e (z_b - z_a)`` to row ``b``. With ``W`` the sparse matrix of the
    weights, ``S = diag(W 1 + Wᵀ 1) Z - W Z - Wᵀ Z`` (two sparse products,
    O(E c)), and the sum is ``Sᵀ X``: O(E c + n c d) instead of O(E c d).
    """
    n_samples = Z.shape[0]
    # COO products need no conversion: faster than CSR for one use (0.3 vs
    # 0.65 ms on wine, 37 vs 63 ms for 300k pairs on digits).
    W = sp.coo_array((w, (a, b)), shape=(n_samples, n_samples))
    degree = np.bincount(a, weights=w, minlength=n_samples)
    degree += np.bincount(b, weights=w, minlength=n_samples)
    S = degree[:, np.newaxis] * Z
    S -= W @ Z
    S -= W.T @ Z
    return S.T @ X


def merge_pairs(first, second, n_samples):
    """Union of two sets of pairs ``(a, b)``, sorted by ``(a, b)``."""
    codes = np.union1d(
        first[0] * n_samples + first[1], second[0] * n_samples + second[1]
    )
    return codes // n_samples, codes % n_samples


def _sq_dists(Z, sq, start, stop):
    """``||z_i - z_j||²`` for rows ``start:stop`` of Z against all of Z."""
    return squared_distances(
        Z[start:stop], Z, sq[start:stop, np.newaxis], sq[np.newaxis, :],
        same=False, working_memory=_parallel.WORKING_MEMORY / 2**20,
    )


def _impostors_in_block(Z, sq, y, radius, start, stop):
    D = _sq_dists(Z, sq, start, stop)
    mask = D < radius[start:stop, np.newaxis]
    mask &= y[start:stop, np.newaxis] != y[np.newaxis, :]
    rows, cols = np.nonzero(mask)
    return rows + start, cols


def impostor_pairs(Z, y, radius, *, max_impostors=None, rng=None, n_jobs=None):
    """Pairs ``(i, l)``, ``y_l != y_i``, with ``||z_i - z_l||² < radius_i``.

    With ``radius_i`` the largest squared target distance of ``i`` plus the
    margin, these are all the ``l`` that violate a margin of some target of
    ``i`` (Weinberger and Saul's impostors). Above ``max_impostors`` pairs a
    uniform random subset is kept (as pylmnn does), to bound the memory.
    """
    sq = np.einsum("ij,ij->i", Z, Z)
    # Threads: the distance products run in BLAS and release the GIL.
    # n_jobs=None is one thread here (the historical meaning in LMNN).
    n_threads = 1 if n_jobs is None else resolve_n_jobs(n_jobs)
    found = run_in_threads(
        lambda b: _impostors_in_block(Z, sq, y, radius, b.start, b.stop),
        row_blocks(Z.shape[0], Z.shape[0]), n_threads,
    )
    a = np.concatenate([f[0] for f in found]).astype(np.intp, copy=False)
    b = np.concatenate([f[1] for f in found]).astype(np.intp, copy=False)
    if max_impostors is not None and a.size > max_impostors:
        keep = np.sort(rng.choice(a.size, size=max_impostors, replace=False))
        a, b = a[keep], b[keep]
    return a, b


def hardest_triplets(Z, y):
    """The notes' worst-case triplets: for each anchor, the farthest
    same-class point (hardest positive) and the nearest other-class point
    (hardest negative). Anchors alone in their class are dropped.

    Returns ``(anchors, positives, negatives)``.
    """
    n_samples = Z.shape[0]
    sq = np.einsum("ij,ij->i", Z, Z)
    positives = np.empty(n_samples, dtype=np.intp)
    negatives = np.empty(n_samples, dtype=np.intp)
    for block in row_blocks(n_samples, n_samples):
        start, stop = block.start, block.stop
        D = _sq_dists(Z, sq, start, stop)
        same = y[start:stop, np.newaxis] == y[np.newaxis, :]
        positives[start:stop] = np.argmax(np.where(same, D, -np.inf), axis=1)
        negatives[start:stop] = np.argmin(np.where(same, np.inf, D), axis=1)
    anchors = np.arange(n_samples)
    keep = np.bincount(y)[y] > 1
    return anchors[keep], positives[keep], negatives[keep]
