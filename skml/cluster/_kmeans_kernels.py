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

# The products x·c are BLAS-free loops in the dtype of X (lloyd_block's
# tiles; Hamerly's rescans repeat them bit for bit). Only the argmin depends
# on them: a label can differ from a BLAS-based implementation only on a tie
# to the rounding of that dtype (~1e-16 relative for float64, ~1e-7 for
# float32, as scikit-learn's sgemm). ||x||² for Hamerly's lower bound goes
# through the shared dot (skml.utils._kernels).
from skml.utils._kernels import dot


# Bytes per feature row of a tile: 256 float32 or 128 float64 samples. The
# tile (d rows) and its products (k rows) stay in L1/L2 for the d and k of
# ordinary k-means; measured on 100k x 20, k = 10 (one pass, one thread):
# float32 3.7 / 3.4 / 3.1 ms with 64 / 128 / 256 samples, float64 6.5 / 6.4 /
# 9.2 ms.
TILE_BYTES = 1024

# Tiles only up to this many features, float32 / float64 data (``_tiled``).
# Beyond, the tile outgrows L2 and each centre re-reads it from further
# away, while one dot per pair vectorises over d by itself. One Lloyd pass,
# one thread, same run (load 8): float32 tiles 0.22 / 0.051 / 0.61 ms
# against per-pair dots 0.44 / 0.077 / 0.89 ms at d = 48 / 64 (digits) /
# 100 (20k samples, k = 8), even at d = 256 (1.04 against 1.02 ms) and
# slower at 512 (3.0 against 2.3 ms); float64 tiles 0.33 / 0.091 ms against
# 0.42 / 0.106 ms at d = 48 / 64 but slower at 100 (1.09 against 0.93 ms).
# (The limit was 32 for both until the tiles took two centres per sweep.)
TILED_MAX_FEATURES = 128
TILED_MAX_FEATURES_64 = 64

# Padding of each feature row of a tile, in elements. Rows exactly 1 KiB
# apart put every fourth feature of a sample into the same 4 KiB alias set,
# and the transposing stores stall on it; 16 more elements (64 bytes for
# float32) break the pattern (transposing 100k x 20 float32 by 256-sample
# tiles: 1.5 -> 1.1 ms a pass). The columns past ``tile`` are never read.
TILE_PAD = 16


@njit(cache=True, nogil=True, inline="always")
def _tiled(X):
    """Whether X's passes run on transposed tiles (see ``TILED_MAX_FEATURES``)."""
    limit = TILED_MAX_FEATURES if X.itemsize == 4 else TILED_MAX_FEATURES_64
    return X.shape[1] <= limit


@njit(cache=True, nogil=True, fastmath={"contract"})
def _products_one(xt, b, centers, j, pj):
    """``pj[i] = x_i · c_j`` over a transposed tile, features in order."""
    d = xt.shape[0]
    for i in range(b):
        pj[i] = 0.0
    f = 0
    while f + 4 <= d:
        c0, c1 = centers[j, f], centers[j, f + 1]
        c2, c3 = centers[j, f + 2], centers[j, f + 3]
        x0, x1, x2, x3 = xt[f], xt[f + 1], xt[f + 2], xt[f + 3]
        for i in range(b):
            pj[i] = (((pj[i] + c0 * x0[i]) + c1 * x1[i]) + c2 * x2[i]) + c3 * x3[i]
        f += 4
    while f < d:
        c = centers[j, f]
        xf = xt[f]
        for i in range(b):
            pj[i] += c * xf[i]
        f += 1


@njit(cache=True, nogil=True, fastmath={"contract"})
def _products_pair(xt, b, centers, j, pa, pb):
    """``_products_one`` for centres ``j`` and ``j + 1`` in one sweep (same sums)."""
    d = xt.shape[0]
    for i in range(b):
        pa[i] = 0.0
        pb[i] = 0.0
    f = 0
    while f + 4 <= d:
        a0, a1 = centers[j, f], centers[j, f + 1]
        a2, a3 = centers[j, f + 2], centers[j, f + 3]
        b0, b1 = centers[j + 1, f], centers[j + 1, f + 1]
        b2, b3 = centers[j + 1, f + 2], centers[j + 1, f + 3]
        x0, x1, x2, x3 = xt[f], xt[f + 1], xt[f + 2], xt[f + 3]
        for i in range(b):
            u0, u1, u2, u3 = x0[i], x1[i], x2[i], x3[i]
            pa[i] = (((pa[i] + a0 * u0) + a1 * u1) + a2 * u2) + a3 * u3
            pb[i] = (((pb[i] + b0 * u0) + b1 * u1) + b2 * u2) + b3 * u3
        f += 4
    while f < d:
        ca, cb = centers[j, f], centers[j + 1, f]
        xf = xt[f]
        for i in range(b):
            u = xf[i]
            pa[i] += ca * u
            pb[i] += cb * u
        f += 1


@njit(cache=True, nogil=True, fastmath={"contract"})
def _nearest_in_tile(xt, b, centers, centers_sq, prod, best_dist, best, second_dist):
    """Nearest centre of the first ``b`` samples of a transposed tile.

    ``xt`` (d, tile) holds the samples as columns. Each centre's ``b``
    products are accumulated feature by feature along the samples (the
    inner loop runs over contiguous samples and vectorises, in the dtype of
    X), four features and two centres per sweep, each lane summing
    ``f = 0, 1, ...`` in order. Outputs
    ``best_dist[i] = ||c||² − 2 x·c`` of the nearest centre ``best[i]``
    (lowest index on ties) and, if ``second_dist`` is not empty, the same
    for the runner-up (``inf`` when k = 1). Branch-free selects: tracking
    the runner-up with if/elif costs 3x in mispredicted branches.
    """
    d = xt.shape[0]
    k = centers.shape[0]
    # Two centres per sweep share the loads of x: four features and two
    # centres make 8 FMAs per 4 loads of x and 2 loads and stores of the
    # products (one centre: 4 FMAs per 5 loads and a store). An odd k
    # sweeps its last centre alone. 100k x 20 float32, k = 10, one thread:
    # products 1.3 -> 1.0 ms a pass.
    for j in range(0, k, 2):
        if j + 1 < k:
            _products_pair(xt, b, centers, j, prod[j], prod[j + 1])
        else:
            _products_one(xt, b, centers, j, prod[j])
    # p + p: an exact doubling that stays in the dtype of X.
    c0 = centers_sq[0]
    p0 = prod[0]
    for i in range(b):
        best_dist[i] = c0 - (p0[i] + p0[i])
        best[i] = 0
    runner_up = second_dist.shape[0] > 0
    if runner_up:
        for i in range(b):
            second_dist[i] = np.inf
    for j in range(1, k):
        cj = centers_sq[j]
        pj = prod[j]
        if runner_up:
            for i in range(b):
                dist = cj - (pj[i] + pj[i])
                second_dist[i] = min(second_dist[i], max(best_dist[i], dist))
                take = dist < best_dist[i]
                best_dist[i] = dist if take else best_dist[i]
                best[i] = j if take else best[i]
        else:
            for i in range(b):
                dist = cj - (pj[i] + pj[i])
                # Strict: ties go to the lowest centre index.
                take = dist < best_dist[i]
                best_dist[i] = dist if take else best_dist[i]
                best[i] = j if take else best[i]


@njit(cache=True, nogil=True, fastmath={"reassoc"})
def _weighted_sum(w, start, v, b):
    """``Σ_i w[start + i] v[i]`` over a tile, in float64, in any order.

    The objective of a pass (``inertia_history_``, the verbose print) and
    the tiles of ``inertia_`` (the ``exact`` pass, :func:`inertia_block`) are
    sums of non-negative or same-sized terms, so they may be reassociated
    and vectorised: summed in order, each float64 addition waits for the
    last (100k x 20 float32, one thread, same run: 1.15-1.28 -> 1.12-1.26
    ms a pass). Float32 products summed in float64 are mostly exact, so the
    order rarely shows at all. The tiles' sums are added in order.
    """
    s = 0.0
    for i in range(b):
        s += w[start + i] * v[i]
    return s


@njit(cache=True, nogil=True, inline="always")
def _put_rows8(xt, i, x0, x1, x2, x3, x4, x5, x6, x7):
    """``xt[f, i:i + 8]`` = feature ``f`` of the eight rows ``x0 ... x7``."""
    for f in range(x0.shape[0]):
        t = xt[f]
        t[i] = x0[f]
        t[i + 1] = x1[f]
        t[i + 2] = x2[f]
        t[i + 3] = x3[f]
        t[i + 4] = x4[f]
        t[i + 5] = x5[f]
        t[i + 6] = x6[f]
        t[i + 7] = x7[f]


@njit(cache=True, nogil=True)
def _transpose_tile(X, start, b, xt):
    """``xt[f, i] = X[start + i, f]`` for the ``b`` rows from ``start``.

    float32: eight rows per sweep over the features, so each row of the
    tile gets eight neighbouring elements at once, where one sample at a
    time stored one element into each of the d rows (100k x 20 by
    256-sample tiles: transposition alone 0.68 -> 0.35 ms a pass, the whole
    Lloyd pass 1.27-1.54 -> 1.11-1.37 ms, one thread, load 8-9). float64
    keeps one sample at a time: four or eight rows per sweep measured no
    faster there (2.5-2.7 ms a pass either way, 8 rows sometimes 3.3). A
    copy: the same values either way.
    """
    d = X.shape[1]
    i = 0
    while X.itemsize == 4 and i + 8 <= b:
        r = start + i
        _put_rows8(xt, i, X[r], X[r + 1], X[r + 2], X[r + 3], X[r + 4], X[r + 5],
                   X[r + 6], X[r + 7])
        i += 8
    while i < b:
        for f in range(d):
            xt[f, i] = X[start + i, f]
        i += 1


@njit(cache=True, nogil=True)
def _gather_tile(centers, labels, start, b, ct):
    """``ct[f, i] = centers[labels[start + i], f]``: each sample's centre, as
    :func:`_transpose_tile` lays out the samples (float32 data only)."""
    i = 0
    while i + 8 <= b:
        r = labels[start + i:start + i + 8]
        _put_rows8(ct, i, centers[r[0]], centers[r[1]], centers[r[2]], centers[r[3]],
                   centers[r[4]], centers[r[5]], centers[r[6]], centers[r[7]])
        i += 8
    while i < b:
        c = centers[labels[start + i]]
        for f in range(centers.shape[1]):
            ct[f, i] = c[f]
        i += 1


@njit(cache=True, nogil=True)
def _gather_rows(X, start, rows, q0, b, xt):
    """``xt[f, q] = X[start + rows[q0 + q], f]``: listed rows, transposed as
    :func:`_transpose_tile` lays out the samples (Hamerly's rescans)."""
    q = 0
    while q + 8 <= b:
        r = rows[q0 + q:q0 + q + 8]
        _put_rows8(xt, q, X[start + r[0]], X[start + r[1]], X[start + r[2]],
                   X[start + r[3]], X[start + r[4]], X[start + r[5]], X[start + r[6]],
                   X[start + r[7]])
        q += 8
    while q < b:
        x = X[start + rows[q0 + q]]
        for f in range(X.shape[1]):
            xt[f, q] = x[f]
        q += 1


@njit(cache=True, nogil=True)
def _tile_sq_dists(xt, ct, b, dist):
    """``dist[i] = ||x_i − c_i||²`` over a transposed tile, in the dtype of X.

    ``xt`` holds the samples and ``ct`` their centres (:func:`_gather_tile`)
    as columns; each lane sums its squared differences in feature order,
    the sums of :func:`_sq_diff_sum` bit for bit, but the loops run along
    the samples and vectorise (one sample's chain of ``d`` dependent
    additions left the vector units idle: 100k x 20 float32, one thread,
    same run, the ``inertia_`` pass 0.8-1.2 ms more than a plain assignment
    before, 0.6-0.8 ms now).
    """
    d = xt.shape[0]
    for i in range(b):
        dist[i] = 0.0
    for f in range(d):
        x = xt[f]
        c = ct[f]
        for i in range(b):
            diff = x[i] - c[i]
            dist[i] += diff * diff


@njit(cache=True, nogil=True)
def lloyd_block(X, sample_weight, centers, centers_sq, labels, sums, weights, update,
                exact):
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
        In: the previous labels (-1: none); out: index of the nearest centre
        (lowest index on ties).
    sums : ndarray of shape (k, d)
        Accumulated ``Σ w x`` per cluster (added to; only if ``update``).
        Up to ``TILED_MAX_FEATURES`` features (64 for float64), the block's
        sums are taken apart and then added, so they equal the in-order
        sums only from zero (as every caller passes them).
    weights : ndarray of shape (k,)
        Accumulated ``Σ w`` per cluster (added to; only if ``update``).
    update : bool
        Accumulate the sums (the assignment alone for predict/score).
    exact : bool
        Return the objective by direct differences instead (the last
        relabelling of a fit, predict and score): ``inertia_`` in the same
        pass, where a separate pass re-read X (1.5 ms at 100k x 20).

    Returns
    -------
    objective : float
        ``Σ w (||c||² − 2 x·c)`` over the block for the chosen centres,
        without the constant ``Σ w ||x||²`` (the caller adds it, computed
        once per fit rather than once per pass); if ``exact``,
        ``Σ w ||x − c||²`` summed as :func:`inertia_block` sums it.
    n_changed : int
        Number of labels that changed (the strict convergence test, without
        a copy of the previous labels and a comparison pass).

    Notes
    -----
    Up to ``TILED_MAX_FEATURES`` features (64 for float64), computed tile
    by tile, GEMM-style, in the dtype of X (issue 12); beyond, one ``dot``
    per pair (summed in float64). One
    ``dot`` per sample and centre reduced ``d`` products across SIMD lanes
    for every pair, and for float32 data converted every product to
    float64: float32 Lloyd took 2.6x scikit-learn's time (which multiplies
    float32 blocks with sgemm). Here a tile of samples (1 KiB per feature) is
    transposed to (d, tile), and each centre's products are accumulated
    feature by feature along the samples: the inner loop runs over
    contiguous samples, vectorises fully, and stays in the dtype of X (the
    precision of scikit-learn's float32 GEMM). The argmin over centres is
    taken along the tile the same way. The distances of a float32 X, and
    so the objective, carry float32 rounding, as scikit-learn's
    (``inertia_`` is always summed directly). Each lane sums its products
    over ``f = 0, 1, ...`` in order (``_nearest_in_tile``, which Hamerly's
    rescans share: their labels are these, bit for bit).
    """
    m, d = X.shape
    k = centers.shape[0]
    objective = 0.0
    n_changed = 0
    if not _tiled(X):
        for i in range(m):
            x = X[i]
            a = 0
            best_d = centers_sq[0] - 2.0 * dot(x, centers[0])
            for j in range(1, k):
                dist = centers_sq[j] - 2.0 * dot(x, centers[j])
                if dist < best_d:
                    best_d = dist
                    a = j
            if labels[i] != a:
                n_changed += 1
                labels[i] = a
            w = sample_weight[i]
            if exact:
                objective += w * _sq_diff_sum(x, centers[a])
            else:
                objective += w * best_d
            if update:
                weights[a] += w
                for f in range(d):
                    sums[a, f] += w * x[f]
        return objective, n_changed
    tile = TILE_BYTES // X.itemsize
    xt = np.empty((d, tile + TILE_PAD), dtype=X.dtype)
    prod = np.empty((k, tile), dtype=X.dtype)
    best_dist = np.empty(tile, dtype=X.dtype)
    best = np.empty(tile, dtype=np.int32)
    no_second = np.empty(0, dtype=X.dtype)
    # The exact objective (``inertia_``): each sample's distance to its
    # centre, float32 data by a tile of their centres (:func:`_tile_sq_dists`).
    tiled_exact = exact and X.itemsize == 4
    ct = np.empty((d, tile + TILE_PAD) if tiled_exact else (0, 0), dtype=X.dtype)
    dist = np.empty(tile if exact else 0, dtype=X.dtype)
    # The cluster sums, in rows padded to a multiple of 8 features: with d =
    # 20 the per-sample loop `s[f] += w x[f]` ran two 8-wide steps and four
    # scalar ones, with dp = 24 three 8-wide steps (100k x 20 float32, one
    # thread, same run: sums 0.29 -> 0.23 ms a pass, fit 59.5-61.1 -> 57.7-58.9
    # ms). The padding columns collect the next row's first features and are
    # dropped. Each sum is still taken in sample order from zero, so the
    # sums are bit for bit the same (the callers pass zero ``sums``).
    dp = (d + 7) // 8 * 8
    acc = np.zeros((k, dp), dtype=X.dtype)
    flat = X.reshape(-1)
    for start in range(0, m, tile):
        b = min(tile, m - start)
        _transpose_tile(X, start, b, xt)
        _nearest_in_tile(xt, b, centers, centers_sq, prod, best_dist, best, no_second)
        # One loop per output, each without branches inside: a single loop
        # with the label test and the exact/update cases ran 15-40% slower.
        for i in range(b):
            a = best[i]
            n_changed += labels[start + i] != a
            labels[start + i] = a
        if exact:
            if tiled_exact:
                _gather_tile(centers, best, 0, b, ct)
                _tile_sq_dists(xt, ct, b, dist)
            else:
                for i in range(b):
                    dist[i] = _sq_diff_sum(X[start + i], centers[best[i]])
            # As inertia_block sums it, tile by tile.
            objective += _weighted_sum(sample_weight, start, dist, b)
        else:
            objective += _weighted_sum(sample_weight, start, best_dist, b)
        if update:
            _accumulate(X, flat, sample_weight, start, b, best, acc, weights)
    if update:
        for j in range(k):
            for f in range(d):
                sums[j, f] += acc[j, f]
    return objective, n_changed


@njit(cache=True, nogil=True)
def _accumulate(X, flat, sample_weight, start, b, rows_label, acc, weights):
    """``acc[a] += w x`` and ``weights[a] += w`` for the ``b`` rows from ``start``.

    ``rows_label[i]`` is the label of row ``start + i``; ``acc`` has rows
    padded to ``dp``, a multiple of 8 features, and ``flat`` is X raveled.
    Each row is read dp wide, its tail from the next row (in the block): the
    loop over the features then runs as whole vectors, without a scalar
    remainder (the padding columns are dropped by the caller). Rows whose dp
    elements would reach past the block are read d wide: the last one, and
    for d < 4 (dp = 8 spans more than the next row) the last few (reading
    "b - 1" rows wide read up to 6 elements past the end of X at d = 1).
    Shared by ``lloyd_block`` and ``hamerly_block``: the same sums, in sample
    order, bit for bit.
    """
    m, d = X.shape
    dp = acc.shape[1]
    full = min(b, max(0, (m * d - dp) // d + 1 - start))
    for i in range(full):
        a = rows_label[i]
        w = sample_weight[start + i]
        weights[a] += w
        o = (start + i) * d
        x = flat[o:o + dp]
        s = acc[a]
        for f in range(dp):
            s[f] += w * x[f]
    for i in range(full, b):
        a = rows_label[i]
        w = sample_weight[start + i]
        weights[a] += w
        x = X[start + i]
        s = acc[a]
        for f in range(d):
            s[f] += w * x[f]


@njit(cache=True, nogil=True)
def _sq_diff_sum(x, c):
    """``||x − c||²`` in the dtype of X, summed in feature order (``inertia_``;
    shared by every kernel that sums it). float32 data get float32
    distances, as scikit-learn's float32 inertia; the caller sums them over
    the samples in float64."""
    s = x[0] - x[0]  # a zero of the dtype of X (X is finite here)
    for f in range(x.shape[0]):
        diff = x[f] - c[f]
        s += diff * diff
    return s


@njit(cache=True, nogil=True)
def column_means(X):
    """Column means of X in the dtype of X, summed row after row in float64.

    For float64 data the same sums, in the same order, as ``X.mean(axis=0)``;
    float32 data get a float64 sum rounded once. A NaN or infinity in X
    makes its column's mean non-finite: the caller's cue to look for it
    (``fit`` checks finiteness this way instead of one more pass over X).
    """
    m, d = X.shape
    acc = np.zeros(d)
    for i in range(m):
        for f in range(d):
            acc[f] += X[i, f]
    mean = np.empty(d, dtype=X.dtype)
    for f in range(d):
        mean[f] = acc[f] / m
    return mean


@njit(cache=True, nogil=True, inline="always")
def _center(X, out, mean, sample_weight):
    """The loop of :func:`center_into`, written once. Inlined into both
    callers, so :func:`center_in_place` compiles it with ``out`` the very
    array ``X``: a called function taking X twice would meet numba's runtime
    alias check, fail it and run scalar (3.5 ms against 1.7 ms on
    100k x 20 float32)."""
    m, d = X.shape
    col_max = np.zeros(d, dtype=X.dtype)
    col_sum = np.zeros(d)
    col_sq = np.zeros(d)
    col_wsq = np.zeros(d)
    for i in range(m):
        w = np.float64(sample_weight[i])
        xi = X[i]
        oi = out[i]
        for f in range(d):
            v = xi[f] - mean[f]
            oi[f] = v
            v64 = np.float64(v)
            sq = v64 * v64
            col_sum[f] += v64
            col_sq[f] += sq
            col_wsq[f] += w * sq
            col_max[f] = max(col_max[f], abs(v))
    return _center_stats(col_max, col_wsq, col_sum, col_sq)


@njit(cache=True, nogil=True)
def center_into(X, out, mean, sample_weight):
    """``out = X − mean`` in one pass, with the statistics of the fit.

    The copy that ``copy_x=True`` needs and the centring are one pass over
    X, where a copy followed by an in-place shift took two (issue 12). The
    pass also collects, from the centred values as stored:

    - ``max |x|`` (for the power-of-two rescaling of extreme data);
    - ``Σ_i w_i ||x_i||²`` in float64 (the constant of the Lloyd objective);
    - per column ``Σ x`` and ``Σ x²`` in float64 (the variances behind a
      relative ``tol``: ``Σ x² / n − (Σ x / n)²``).

    Each column has its own accumulators, so the loop over the features
    carries no dependency and vectorises: 1.8 ms for the copy, the centring
    and all the statistics on 100k x 20 float32, where a copy, the centring,
    ``max |x|`` and ``Σ w ||x||²`` took 0.5 + 0.9 + 0.3 + 1.2 ms.

    Returns
    -------
    max_abs : float
    w_sq_norm : float
    col_sum, col_sq : ndarray of shape (d,), float64
    """
    return _center(X, out, mean, sample_weight)


@njit(cache=True, nogil=True)
def center_in_place(X, mean, sample_weight):
    """:func:`center_into` with X as its own output (``copy_x=False``)."""
    return _center(X, X, mean, sample_weight)


@njit(cache=True, nogil=True)
def _center_stats(col_max, col_wsq, col_sum, col_sq):
    max_abs = 0.0
    w_sq_norm = 0.0
    for f in range(col_max.shape[0]):
        max_abs = max(max_abs, np.float64(col_max[f]))
        w_sq_norm += col_wsq[f]
    return max_abs, w_sq_norm, col_sum, col_sq


@njit(cache=True, nogil=True)
def weighted_sq_norm(X, sample_weight):
    """``Σ_i w_i ||x_i||²`` summed in float64 (float32 X is not copied).

    One pass over X (numpy's float64 einsum over float32 data casts through
    small buffers: 3.6 ms against 0.3 ms at 100k x 20).
    """
    total = 0.0
    for i in range(X.shape[0]):
        total += np.float64(sample_weight[i]) * _sq_norm64(X[i])
    return total


@njit(cache=True, nogil=True, inline="always")
def _sq_norm64(x):
    """``||x||²`` summed in float64 in feature order."""
    s = 0.0
    for f in range(x.shape[0]):
        v = np.float64(x[f])
        s += v * v
    return s


@njit(cache=True, nogil=True)
def hamerly_moves(centers, previous, first, max_x_sq, eps):
    """The per-pass inputs of ``hamerly_block``, in the dtype of the centres.

    Returns ``half_gap`` (half the distance from each centre to the nearest
    other), ``drift`` (how far each centre moved since ``previous``, zero on
    the ``first`` pass) and ``safety = [grow, shrink, tight, margin]``, and
    copies the centres into ``previous`` (float64). Distances are summed in
    float64 from the centres' values; the drifts are rounded up and the half
    gaps down by ``(d + 4) eps`` (``eps`` of the data's dtype), past the
    rounding of their sums and of the cast, so they bound the exact values.
    ``grow, shrink = 1 ± 2 eps`` cover the rounding of one addition to a
    bound, ``tight = 1 + (d + 6) eps`` a distance summed over ``d``
    features, and ``margin = 3 E`` with ``E = (d + 8) eps (max ||x||² +
    max ||c||²)`` the largest error of a ranking distance ``||c||² − 2 x·c``
    summed in the dtype of X (``x·c`` and ``||c||²`` are each off by at
    most ``d u`` of ``||x|| ||c||`` and ``||c||²``, ``u = eps / 2``, plus one
    rounding each for the doubling and the difference). One numba call: the
    same steps in numpy cost ~0.15 ms a pass (12 ms of an 80-pass fit).
    """
    k, d = centers.shape
    drift = np.zeros(k, dtype=centers.dtype)
    half_gap = np.empty(k, dtype=centers.dtype)
    up, down = 1.0 + (d + 4) * eps, 1.0 - (d + 4) * eps
    c_sq = 0.0
    for j in range(k):
        moved = 0.0
        norm = 0.0
        for f in range(d):
            c = np.float64(centers[j, f])
            t = c - previous[j, f]
            moved += t * t
            norm += c * c
        if not first:
            drift[j] = np.sqrt(moved) * up
        c_sq = max(c_sq, norm)
    for j in range(k):
        gap = np.inf
        for other in range(k):
            if other == j:
                continue
            s = 0.0
            for f in range(d):
                t = np.float64(centers[j, f]) - np.float64(centers[other, f])
                s += t * t
            gap = min(gap, s)
        half_gap[j] = 0.5 * np.sqrt(gap) * down
    for j in range(k):
        for f in range(d):
            previous[j, f] = centers[j, f]
    error = (d + 8) * eps * (max_x_sq + c_sq)
    safety = np.empty(4, dtype=centers.dtype)
    safety[0] = 1.0 + 2.0 * eps
    safety[1] = 1.0 - 2.0 * eps
    safety[2] = 1.0 + (d + 6) * eps
    safety[3] = 3.0 * error
    return half_gap, drift, safety


@njit(cache=True, nogil=True)
def max_row_sq_norm(X):
    """``max_i ||x_i||²`` in float64 (the scale of Hamerly's ranking error)."""
    top = 0.0
    for i in range(X.shape[0]):
        top = max(top, _sq_norm64(X[i]))
    return top


@njit(cache=True, nogil=True)
def center_shift(new, old):
    """``Σ_j ||new_j − old_j||²`` in float64, without the two (k, d)
    temporaries of the numpy expression (12 MiB at k = 8, d = 100k)."""
    total = 0.0
    for j in range(new.shape[0]):
        for f in range(new.shape[1]):
            diff = np.float64(new[j, f]) - np.float64(old[j, f])
            total += diff * diff
    return total


@njit(cache=True, nogil=True)
def objective_from_sums(centers, sums, weights, w_sq_norm):
    """``max(Σ w ||x||² − 2 Σ_j c_j·S_j + Σ_j W_j ||c_j||², 0)`` in float64.

    The objective of a bounded pass from the cluster sums ``S_j`` and
    weights ``W_j`` (``_Lloyd._objective_from_sums``), in O(k d).
    """
    cross = 0.0
    quad = 0.0
    for j in range(centers.shape[0]):
        c_sq = 0.0
        for f in range(centers.shape[1]):
            c = np.float64(centers[j, f])
            cross += c * np.float64(sums[j, f])
            c_sq += c * c
        quad += c_sq * np.float64(weights[j])
    return max(w_sq_norm - 2.0 * cross + quad, 0.0)


@njit(cache=True, nogil=True)
def inertia_block(X, sample_weight, centers, labels):
    """``Σ w ||x − c_label||²`` over a block, by direct differences (exact form).

    The sums of ``lloyd_block``'s ``exact`` pass, bit for bit: up to
    ``TILED_MAX_FEATURES`` features (64 for float64) the distances
    (:func:`_sq_diff_sum`)
    are summed tile by tile (:func:`_weighted_sum`), beyond sample by
    sample in order.
    """
    m, d = X.shape
    total = 0.0
    if not _tiled(X):
        for i in range(m):
            total += sample_weight[i] * _sq_diff_sum(X[i], centers[labels[i]])
        return total
    tile = TILE_BYTES // X.itemsize
    dist = np.empty(tile, dtype=X.dtype)
    for start in range(0, m, tile):
        b = min(tile, m - start)
        for i in range(b):
            dist[i] = _sq_diff_sum(X[start + i], centers[labels[start + i]])
        total += _weighted_sum(sample_weight, start, dist, b)
    return total


@njit(cache=True, nogil=True)
def hamerly_block(X, sample_weight, centers, centers_sq, half_gap, drift, labels, upper,
                  lower, sums, weights, safety):
    """Lloyd's assignment and sums for one block, skipping provably idle samples.

    Hamerly's bounds (2010): ``upper[i]`` bounds the distance from sample
    ``i`` to its centre, ``lower[i]`` the distance to every other centre.
    After the centres move by ``drift``, the bounds move by at most the
    drifts (triangle inequality): ``upper`` grows by its centre's drift,
    ``lower`` drops by the largest drift of the other centres. Every other
    centre is then at least ``L = max(lower, 2 half_gap[a] − upper)`` away
    (``half_gap[j]`` being half the distance from centre ``j`` to the
    nearest other centre). A sample with ``upper² + margin <= L²`` keeps
    its label without any distance computed. The bounds of a chunk of
    samples are moved and tested in one branch-free loop and the samples
    not proven listed; a label of ``-1`` marks a sample never assigned.
    ``centers_sq`` holds the centres' squared norms. Up to
    ``TILED_MAX_FEATURES`` features (64 for float64) the listed samples are
    gathered, transposed, into tiles and ranked by ``_nearest_in_tile`` as
    in ``lloyd_block``, and their new bounds come from the ranking
    (``_tile_bounds``); beyond, each listed sample first gets the distance
    to its centre (Hamerly's tightening of ``upper``) and only if the test
    still fails is ranked, one by one with its per-pair dots.

    The bounds, drifts and half gaps are in the dtype of X (issue 12:
    float32 data read and write half the bytes, and the tests vectorise
    twice as wide), each rounded the safe way: ``safety`` (dtype of X,
    from ``hamerly_moves``) holds ``[grow, shrink, tight, margin]``. Every
    moved bound is scaled by ``grow`` (upper) or ``shrink`` (lower, and
    ``2 half_gap − upper``), more than the rounding of the addition, so
    ``upper`` stays above and ``lower`` below the exact distances; a
    distance computed in the dtype of X is scaled by ``tight`` (its
    rounding over ``d`` squared differences). ``margin`` covers the
    rounding of the ranking itself: ``_nearest_in_tile`` compares
    ``||c||² − 2 x·c`` in the dtype of X, off by at most ``E`` (see
    ``hamerly_moves``), so a sample is skipped only where the exact squared
    distances differ by more than ``2 E`` (``margin = 3 E`` with the
    rounding of the test): there the ranking of the full scan cannot pick
    another centre, and the labels are bit for bit those of the "lloyd"
    algorithm, also at near-ties. The bounds of a ranked sample are its
    ranking distances plus ``||x||²``, ``2 E`` added (upper) or taken off
    (lower).

    The sums are added chunk by chunk in sample order, as ``lloyd_block``
    adds them (``_accumulate``, bit for bit). The objective is not summed
    here (a skipped sample has no distance); the caller gets it from the
    sums in O(k d). Returns the number of labels that changed.
    """
    m, d = X.shape
    k = centers.shape[0]
    grow, shrink, tight, margin = safety[0], safety[1], safety[2], safety[3]
    zero = drift[0] - drift[0]
    # Each lower bound drops by the largest drift of the *other* centres.
    top = 0
    for j in range(1, k):
        if drift[j] > drift[top]:
            top = j
    second = zero
    for j in range(k):
        if j != top and drift[j] > second:
            second = drift[j]
    # The drop of a sample's lower bound and twice its centre's half gap,
    # per centre (read by label in the branch-free test).
    drop = np.empty(k, dtype=drift.dtype)
    gap2 = np.empty(k, dtype=drift.dtype)
    for j in range(k):
        drop[j] = second if j == top else drift[top]
        gap2[j] = half_gap[j] + half_gap[j]
    tiled = _tiled(X)
    tile = TILE_BYTES // X.itemsize if tiled else 1
    xt = np.empty((d, tile + TILE_PAD), dtype=X.dtype)
    prod = np.empty((k, tile), dtype=X.dtype)
    best_dist = np.empty(tile, dtype=X.dtype)
    second_dist = np.empty(tile, dtype=X.dtype)
    best = np.empty(tile, dtype=np.int32)
    # Chunks of samples: their bounds tested in one branch-free loop, their
    # rescans ranked, then their sums added while the rows are in cache.
    chunk = 4 * TILE_BYTES // X.itemsize
    pending = np.empty(chunk, dtype=np.int32)
    dp = (d + 7) // 8 * 8
    acc = np.zeros((k, dp), dtype=X.dtype)
    flat = X.reshape(-1)
    up_t = np.empty(tile, dtype=X.dtype)
    low_t = np.empty(tile, dtype=X.dtype)
    two_e = (margin + margin) / 3  # twice the ranking error E
    n_changed = 0
    for start in range(0, m, chunk):
        c = min(chunk, m - start)
        # The bounds moved and tested without branches; the samples they do
        # not prove are listed (``pending[:n_pending]``, chunk offsets).
        n_pending = 0
        for i in range(c):
            r = start + i
            a = labels[r]
            j = max(a, 0)
            up = (upper[r] + drift[j]) * grow
            low = (lower[r] - drop[j]) * shrink
            bound = max(low, (gap2[j] - up) * shrink)
            upper[r] = up
            lower[r] = low
            proven = (bound > zero) & (up * up + margin <= bound * bound)
            pending[n_pending] = i
            n_pending += (a < 0) | (not proven)
        if tiled:
            # The listed samples gathered, transposed, into tiles and ranked
            # as lloyd_block ranks them; their bounds from the ranking. No
            # distance to the old centre first (Hamerly's tightening): one
            # sample at a time it cost more than the tiled scan it saved
            # (100k x 20 float32, k = 10: ~40% of the samples listed in the
            # middle of a fit, ~47 ns each with the tightening).
            for q0 in range(0, n_pending, tile):
                b = min(tile, n_pending - q0)
                _gather_rows(X, start, pending, q0, b, xt)
                _nearest_in_tile(xt, b, centers, centers_sq, prod, best_dist, best,
                                 second_dist)
                _tile_bounds(xt, b, best_dist, second_dist, two_e, grow, shrink, up_t,
                             low_t)
                for q in range(b):
                    r = start + pending[q0 + q]
                    a = best[q]
                    n_changed += labels[r] != a
                    labels[r] = a
                    upper[r] = up_t[q]
                    lower[r] = low_t[q]
        else:
            for q in range(n_pending):
                r = start + pending[q]
                x = X[r]
                a = labels[r]
                if a >= 0:
                    # Hamerly's tightening: the distance to the old centre.
                    up = np.sqrt(_sq_dist_same(x, centers[a])) * tight
                    upper[r] = up
                    bound = max(lower[r], (gap2[a] - up) * shrink)
                    if bound > zero and up * up + margin <= bound * bound:
                        continue
                # As lloyd_block ranks beyond TILED_MAX_FEATURES.
                a = 0
                best_d = centers_sq[0] - 2.0 * dot(x, centers[0])
                next_best = np.inf
                for j in range(1, k):
                    dist = centers_sq[j] - 2.0 * dot(x, centers[j])
                    next_best = min(next_best, max(best_d, dist))
                    a = j if dist < best_d else a
                    best_d = min(best_d, dist)
                if labels[r] != a:
                    n_changed += 1
                    labels[r] = a
                upper[r] = np.sqrt(_sq_dist_same(x, centers[a])) * tight
                lower[r] = np.sqrt(max(next_best + dot(x, x) - two_e, 0.0)) * shrink
        _accumulate(X, flat, sample_weight, start, c, labels[start:start + c], acc,
                    weights)
    for j in range(k):
        for f in range(d):
            sums[j, f] += acc[j, f]
    return n_changed


@njit(cache=True, nogil=True)
def _tile_bounds(xt, b, best_dist, second_dist, two_e, grow, shrink, up, low):
    """Hamerly's bounds of ``b`` samples just ranked by ``_nearest_in_tile``.

    With ``||x||²`` summed along the tile (in the dtype of X, vectorised),
    ``up = sqrt(best + ||x||² + 2 E)`` and ``low = sqrt(second + ||x||² −
    2 E)``: the ranking distances ``||c||² − 2 x·c`` of the nearest and the
    runner-up are off by at most ``E`` and ``||x||²`` by less, so these
    bound the exact distances (scaled by ``grow`` and ``shrink`` past the
    rounding of the square root). No distance is recomputed.
    """
    d = xt.shape[0]
    for i in range(b):
        up[i] = 0.0
    for f in range(d):
        x = xt[f]
        for i in range(b):
            up[i] += x[i] * x[i]
    for i in range(b):
        x_sq = up[i]
        up[i] = np.sqrt(best_dist[i] + x_sq + two_e) * grow
        low[i] = np.sqrt(max(second_dist[i] + x_sq - two_e, 0.0)) * shrink


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
    sums. Returns the number of labels that changed.
    """
    m, d = X.shape
    k = centers.shape[0]
    n_changed = 0
    # A zero in the dtype of the bounds: ``max(b, 0.0)`` made every moved
    # bound of float32 data a float64, and each test against it converted
    # ``u`` (the same values and results, conversions in the loop over k).
    zero = drift[0] - drift[0]
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
                    low[j] = max(low[j] - drift[j], zero)
            else:
                # The bounds move as they are read (one pass over the k).
                tight = False
                for j in range(k):
                    low_j = max(low[j] - drift[j], zero)
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
        if labels[i] != a:
            n_changed += 1
            labels[i] = a
        upper[i] = u
        w = sample_weight[i]
        weights[a] += w
        for f in range(d):
            sums[a, f] += w * x[f]
    return n_changed


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
    of one product per centre. Returns the objective and the number of
    labels that changed.
    """
    k = centers_t.shape[1]
    prod = np.empty(k)
    objective = 0.0
    n_changed = 0
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
        if labels[i] != best:
            n_changed += 1
            labels[i] = best
        w = sample_weight[i]
        objective += w * max(best_dist + x_sq, 0.0)
        if update:
            weights[best] += w
            for p in range(a, b):
                sums[best, indices[p]] += w * data[p]
    return objective, n_changed


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


# -- k-medians (metric="manhattan", issue 18) ----------------------------------


@njit(cache=True, nogil=True)
def manhattan_to_centers(X, centers, out):
    """``out[i, j] = Σ_f |x_if − c_jf|`` (float64), the L1 distances (notes B §10.1)."""
    m, d = X.shape
    k = centers.shape[0]
    for i in range(m):
        x = X[i]
        for j in range(k):
            c = centers[j]
            s = 0.0
            for f in range(d):
                s += abs(np.float64(x[f]) - np.float64(c[f]))
            out[i, j] = s


@njit(cache=True, nogil=True)
def sparse_row_sq_norms(data, indptr):
    """``||x_i||²`` of every CSR row, summed in float64 over its entries in order.

    The sums of ``row_norms_sq`` (a bincount over the entries), without its
    three temporaries of nnz elements (issue 20: 24 MB on 1M entries, twice
    the matrix's own data and indices).
    """
    n = indptr.shape[0] - 1
    out = np.zeros(n)
    for i in range(n):
        s = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            v = np.float64(data[p])
            s += v * v
        out[i] = s
    return out


@njit(cache=True, nogil=True)
def sparse_column_moments(data, indices, n_samples, n_features):
    """Column means and variances of CSR data, in O(d) memory.

    Per column ``mean = Σ_stored x / n`` and
    ``var = (Σ_stored (x − mean)² + (n − nnz) mean²) / n`` (the columns'
    implicit zeros), each sum taken over the stored entries in order in
    float64.
    """
    total = np.zeros(n_features)
    nnz = np.zeros(n_features)
    for p in range(data.shape[0]):
        total[indices[p]] += np.float64(data[p])
        nnz[indices[p]] += 1.0
    mean = total / n_samples
    ss = np.zeros(n_features)
    for p in range(data.shape[0]):
        diff = np.float64(data[p]) - mean[indices[p]]
        ss[indices[p]] += diff * diff
    var = np.empty(n_features)
    for f in range(n_features):
        var[f] = (ss[f] + (n_samples - nnz[f]) * mean[f] ** 2) / n_samples
    return mean, var


@njit(cache=True, nogil=True)
def sparse_sq_dist_to_rows(data, indices, indptr, rows_t, rows_sq, x_sq, out):
    """``out[r, i] = max(||y_r||² − 2 x_i·y_r + ||x_i||², 0)`` for CSR samples x.

    The k-means++ distances from a few candidate samples ``y_r`` (given
    dense and transposed, ``rows_t`` of shape (d, c), float64) to every
    sample, in O(nnz c) time and no memory beyond ``out``: the sparse
    product ``Y Xᵀ`` converted the transposed X into a copy of X (issue 20),
    and a float32 X into a float64 copy first. Each product is summed in
    float64 over the sample's stored entries in order.
    """
    n = indptr.shape[0] - 1
    c = rows_t.shape[1]
    prod = np.empty(c)
    for i in range(n):
        prod[:] = 0.0
        for p in range(indptr[i], indptr[i + 1]):
            v = np.float64(data[p])
            y = rows_t[indices[p]]
            for r in range(c):
                prod[r] += v * y[r]
        for r in range(c):
            out[r, i] = max((-2.0 * prod[r] + rows_sq[r]) + x_sq[i], 0.0)
