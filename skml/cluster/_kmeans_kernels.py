"""Lloyd's two steps for one block of samples, fused (compiled by numba).

One pass over a block assigns each sample to its nearest centre (the notes'
assignment step) and adds the sample, weighted, to that centre's running sum
(the first half of the update step); the caller divides the sums by the
cluster weights once all blocks are done. The distance is taken as
``||c||² − 2 x·c``: ``||x||²`` is the same for every centre, so it does not
change the argmin and is only added for the objective.
"""

import numpy as np
from numba import njit

# The products go through the shared BLAS-free dot (see skml.utils._kernels).
# Only the argmin depends on them: a label can differ from a BLAS-based
# implementation only on a tie to ~1e-16 relative.
from skml.utils._kernels import dot


@njit(cache=True, nogil=True)
def lloyd_block(X, sample_weight, centers, centers_sq, labels, sums, weights, update):
    """Assign the rows of ``X`` and accumulate the weighted sums of each cluster.

    Parameters
    ----------
    X : ndarray of shape (m, d)
        One block of samples (C-contiguous).
    sample_weight : ndarray of shape (m,)
    centers : ndarray of shape (k, d)
        The current centres (C-contiguous).
    centers_sq : ndarray of shape (k,)
        Their squared norms.
    labels : ndarray of shape (m,), int32
        Output: index of the nearest centre (lowest index on ties).
    sums : ndarray of shape (k, d)
        Accumulated ``Σ w x`` per cluster (added to; only if ``update``).
    weights : ndarray of shape (k,)
        Accumulated ``Σ w`` per cluster (added to; only if ``update``).
    update : bool
        Accumulate the sums (the assignment alone for predict/score).

    Returns
    -------
    objective : float
        ``Σ w min_j ||x − c_j||²`` over the block, through the expansion
        (rounding error about ``eps (||x||² + ||c||²)`` per sample).
    """
    m, d = X.shape
    k = centers.shape[0]
    objective = 0.0
    for i in range(m):
        x = X[i]
        best = 0
        best_dist = centers_sq[0] - 2.0 * dot(x, centers[0])
        for j in range(1, k):
            dist = centers_sq[j] - 2.0 * dot(x, centers[j])
            if dist < best_dist:
                best_dist = dist
                best = j
        labels[i] = best
        w = sample_weight[i]
        objective += w * max(best_dist + dot(x, x), 0.0)
        if update:
            weights[best] += w
            for f in range(d):
                sums[best, f] += w * x[f]
    return objective


@njit(cache=True, nogil=True)
def inertia_block(X, sample_weight, centers, labels):
    """``Σ w ||x − c_label||²`` over a block, by direct differences (exact form)."""
    m, d = X.shape
    total = 0.0
    for i in range(m):
        c = labels[i]
        s = 0.0
        for f in range(d):
            diff = X[i, f] - centers[c, f]
            s += diff * diff
        total += sample_weight[i] * s
    return total


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _sq_dist(a, b):
    s = 0.0
    for f in range(a.shape[0]):
        t = a[f] - b[f]
        s += t * t
    return s


@njit(cache=True, nogil=True)
def hamerly_block(X, sample_weight, centers, centers_sq, half_gap, drift, labels, upper,
                  lower, sums, weights):
    """Lloyd's assignment and sums for one block, skipping provably idle samples.

    Hamerly's bounds (2010): ``upper[i]`` bounds the distance from sample
    ``i`` to its centre, ``lower[i]`` the distance to every other centre.
    After the centres move by ``drift``, the bounds move by at most the
    drifts (triangle inequality): ``upper`` grows by its centre's drift,
    ``lower`` drops by the largest drift of the other centres. A sample whose
    upper bound is at most ``max(lower[i], half_gap[label])`` (``half_gap[j]``
    being half the distance from centre ``j`` to the nearest other centre)
    keeps its label without any distance computed. Otherwise the distance to
    its centre is computed, which tightens ``upper``, and only if the test
    still fails are all the centres scanned. The labels are those of the
    full scan; only work is saved. A label of ``-1`` marks a sample never
    assigned (full scan). ``centers_sq`` holds the centres' squared norms.

    The objective is not summed here (a skipped sample has no distance);
    the caller gets it from the sums in O(k d).
    """
    m, d = X.shape
    k = centers.shape[0]
    # Each lower bound drops by the largest drift of the *other* centres.
    top = 0
    for j in range(1, k):
        if drift[j] > drift[top]:
            top = j
    second = 0.0
    for j in range(k):
        if j != top and drift[j] > second:
            second = drift[j]
    for i in range(m):
        x = X[i]
        a = labels[i]
        if a >= 0:
            low = lower[i] - (second if a == top else drift[top])
            bound = max(low, half_gap[a])
            up = upper[i] + drift[a]
            if up > bound:
                up = np.sqrt(_sq_dist(x, centers[a]))
            rescan = up > bound
        else:
            rescan = True
        if rescan:
            # The scan ranks by ||c||² − 2 x·c, as lloyd_block (same labels).
            # Branch-free min/max: tracking the runner-up with if/elif costs
            # 3x in mispredicted branches.
            a = 0
            best = centers_sq[0] - 2.0 * dot(x, centers[0])
            next_best = np.inf
            for j in range(1, k):
                dist = centers_sq[j] - 2.0 * dot(x, centers[j])
                next_best = min(next_best, max(best, dist))
                a = j if dist < best else a
                best = min(best, dist)
            up = np.sqrt(_sq_dist(x, centers[a]))
            low = np.sqrt(max(next_best + dot(x, x), 0.0))
        labels[i] = a
        upper[i] = up
        lower[i] = low
        w = sample_weight[i]
        weights[a] += w
        for f in range(d):
            sums[a, f] += w * x[f]


@njit(cache=True, nogil=True, fastmath={"reassoc", "contract"})
def _sq_dist_same(a, b):
    """``||a − b||²`` summed in the arrays' own dtype (float32 stays float32)."""
    s = a[0] - a[0]
    for f in range(a.shape[0]):
        t = a[f] - b[f]
        s += t * t
    return s


@njit(cache=True, nogil=True)
def elkan_block(X, sample_weight, centers, half_cc, half_gap, drift, labels, upper,
                lower, sums, weights):
    """Lloyd's assignment and sums for one block, pruned by Elkan's bounds.

    Elkan (2003): ``upper[i]`` bounds the distance from sample ``i`` to its
    centre ``a``, and ``lower[i, j]`` the distance to each centre ``j``
    (``k`` bounds per sample, where Hamerly keeps one). After the centres
    move by ``drift``, ``upper`` grows by ``drift[a]`` and each
    ``lower[i, j]`` drops by ``drift[j]`` (triangle inequality). Centre
    ``j`` can only beat ``a`` if ``upper > lower[i, j]`` and
    ``upper > half_cc[a, j]`` (half the centre-centre distance: a point
    nearer to ``a`` than that is nearer to ``a`` than to ``j``); a sample
    with ``upper < half_gap[a]`` (``half_gap[a] = min_j half_cc[a, j]``)
    keeps its label without any distance. The first failing test tightens
    ``upper`` to the exact distance; each distance computed tightens its
    lower bound. A label of ``-1`` marks a sample never assigned: Elkan's
    first pass, which skips centre ``j`` as soon as the current best
    distance is at most ``half_cc[a, j]`` (its lower bound is then
    ``2 half_cc[a, j] - d(x, c_a)``).

    Distances are taken by direct differences. Ties go to the lowest centre
    index, as in ``lloyd_block``, so the labels are the full scan's up to
    the rounding of distances at a near-tie. The objective is not summed
    here (skipped samples have no distance); the caller gets it from the
    sums.
    """
    m, d = X.shape
    k = centers.shape[0]
    for i in range(m):
        x = X[i]
        low = lower[i]
        a = labels[i]
        if a < 0:
            a = 0
            u = np.sqrt(_sq_dist_same(x, centers[0]))
            low[0] = u
            for j in range(1, k):
                # j > a here: a tie keeps the lower index a.
                if u <= half_cc[a, j]:
                    low[j] = 2.0 * half_cc[a, j] - u
                    continue
                dj = np.sqrt(_sq_dist_same(x, centers[j]))
                low[j] = dj
                if dj < u:
                    a = j
                    u = dj
        else:
            u = upper[i] + drift[a]
            if u < half_gap[a]:
                for j in range(k):
                    low[j] = max(low[j] - drift[j], 0.0)
            else:
                # The bounds move as they are read (one pass over the k).
                tight = False
                for j in range(k):
                    low_j = max(low[j] - drift[j], 0.0)
                    low[j] = low_j
                    if j == a:
                        continue
                    bound = max(low_j, half_cc[a, j])
                    # A centre of lower index wins a tie, so it is skipped
                    # only if it is strictly farther.
                    if u < bound or (u == bound and j > a):
                        continue
                    if not tight:
                        u = np.sqrt(_sq_dist_same(x, centers[a]))
                        low[a] = u
                        tight = True
                        if u < bound or (u == bound and j > a):
                            continue
                    dj = np.sqrt(_sq_dist_same(x, centers[j]))
                    low[j] = dj
                    if dj < u or (dj == u and j < a):
                        a = j
                        u = dj
        labels[i] = a
        upper[i] = u
        w = sample_weight[i]
        weights[a] += w
        for f in range(d):
            sums[a, f] += w * x[f]


# -- CSR data (issue 20) ------------------------------------------------------
# The same steps on a CSR matrix given by its three arrays and a row range:
# x·c costs O(nnz(x)), and nothing of size n x d is ever formed. The sparse
# data are not centred (that would densify them), as in scikit-learn.


@njit(cache=True, nogil=True)
def lloyd_block_sparse(data, indices, indptr, start, stop, sample_weight, centers_t,
                       centers_sq, labels, sums, weights, update):
    """``lloyd_block`` for the CSR rows ``start:stop`` (labels etc. global).

    ``centers_t`` is the centres transposed, (d, k) C-contiguous: a stored
    entry of column f reads the k values ``centers_t[f]`` from one or two
    cache lines, where the (k, d) layout cost k cache misses (the centres of
    a 100k-feature problem are far larger than the cache). Each product is
    still summed over the row's entries in order, so the labels are those
    of one product per centre.
    """
    k = centers_t.shape[1]
    prod = np.empty(k)
    objective = 0.0
    for i in range(start, stop):
        a, b = indptr[i], indptr[i + 1]
        prod[:] = 0.0
        x_sq = 0.0
        for p in range(a, b):
            v = data[p]
            c = centers_t[indices[p]]
            for j in range(k):
                prod[j] += v * c[j]
            x_sq += v * v
        best = 0
        best_dist = centers_sq[0] - 2.0 * prod[0]
        for j in range(1, k):
            dist = centers_sq[j] - 2.0 * prod[j]
            if dist < best_dist:
                best_dist = dist
                best = j
        labels[i] = best
        w = sample_weight[i]
        objective += w * max(best_dist + x_sq, 0.0)
        if update:
            weights[best] += w
            for p in range(a, b):
                sums[best, indices[p]] += w * data[p]
    return objective


@njit(cache=True, nogil=True)
def sq_dist_to_label_sparse(data, indices, indptr, start, stop, centers, centers_sq,
                            labels, out):
    """``out[i] = ||x_i − c_label(i)||²`` for the CSR rows ``start:stop``.

    ``||c||² + Σ_{stored f} ((x_f − c_f)² − c_f²)``: the columns not stored
    contribute ``c_f²`` each, taken from ``||c||²``; O(nnz) per row.
    """
    for i in range(start, stop):
        c = labels[i]
        s = centers_sq[c]
        for p in range(indptr[i], indptr[i + 1]):
            cf = centers[c, indices[p]]
            diff = data[p] - cf
            s += diff * diff - cf * cf
        out[i] = max(s, 0.0)
