"""Numba kernels of histogram growth: binned features, sibling subtraction.

The mode gradient boosting uses (LightGBM's and scikit-learn's
``HistGradientBoosting`` idea): every feature is binned once into at most
255 value bins plus one bin for missing values (``uint8`` codes), a node's
split search scans per-bin sums instead of sorted samples, and of two
siblings only the smaller one's histogram is summed from its samples, the
other being the parent's minus it. Squared error only (boosting fits
regression trees to gradients). The tree comes out in the same storage as
:func:`skml.tree._builder_kernels.build_tree`, thresholds being bin edges
on the raw feature scale, so prediction needs no binning.
"""

import numpy as np
from numba import njit

# numba's on-disk cache of a kernel is keyed on the file that defines it, not
# on the kernels it calls: after a change to _splitter_kernels.py, change this
# file too (this comment will do), or the cached growth keeps the old search.
from ._splitter_kernels import (
    EPSILON,
    NEG_INF,
    child_key,
    rng_randint,
    root_key,
)

TREE_LEAF = -1
TREE_UNDEFINED = -2


@njit(cache=True, nogil=True)
def _node_sums(y, w, samples, start, end, wy):
    """(sum w, sum w y, sum w y^2) of ``samples[start:end]``, whether every
    weight is 1, and ``wy[q] = w y`` of the ``q``-th sample in node order
    (the histograms then read the gradients sequentially)."""
    wn = 0.0
    s = 0.0
    s2 = 0.0
    unit = True
    for p in range(start, end):
        i = samples[p]
        wi = w[i]
        v = wi * y[i]
        wy[p - start] = v
        wn += wi
        s += v
        s2 += v * y[i]
        if wi != 1.0:
            unit = False
    return wn, s, s2, unit


@njit(cache=True, nogil=True)
def _histogram(XbT, w, wy, samples, start, end, unit, identity, hist):
    """Per-feature, per-bin (sum w, sum w y, count) of ``samples[start:end]``.

    ``XbT`` is feature-major (one contiguous row of codes per feature),
    ``wy`` the node's ``w y`` in node order (see :func:`_node_sums`). With
    unit weights the weight sum is the count (exact in float64 below 2^53)
    and is not accumulated; ``identity`` (the root when no row is left out:
    ``samples[p] == p``) reads the codes sequentially.
    """
    n_features = XbT.shape[0]
    m = end - start
    hist[:, :, :] = 0.0
    for j in range(n_features):
        h = hist[j]
        row = XbT[j]
        if identity and unit:
            for q in range(m):
                b = row[q]
                h[b, 1] += wy[q]
                h[b, 2] += 1.0
        elif identity:
            for q in range(m):
                b = row[q]
                h[b, 0] += w[q]
                h[b, 1] += wy[q]
                h[b, 2] += 1.0
        elif unit:
            for q in range(m):
                b = row[samples[start + q]]
                h[b, 1] += wy[q]
                h[b, 2] += 1.0
        else:
            for q in range(m):
                i = samples[start + q]
                b = row[i]
                h[b, 0] += w[i]
                h[b, 1] += wy[q]
                h[b, 2] += 1.0
        if unit:
            for b in range(h.shape[0]):
                h[b, 0] = h[b, 2]


@njit(cache=True, nogil=True)
def _histogram_rows(Xb, w, wy, samples, start, end, unit, hist):
    """:func:`_histogram` reading sample-major codes ``Xb`` (C order): one
    gathered row of codes per sample instead of one gathered byte per sample
    and feature; 20-25% faster below the root, where the samples are a
    scattered subset (the root reads the feature-major codes sequentially)."""
    n_features = Xb.shape[1]
    hist[:, :, :] = 0.0
    for q in range(end - start):
        i = samples[start + q]
        v = wy[q]
        r = Xb[i]
        if unit:
            for j in range(n_features):
                b = r[j]
                hist[j, b, 1] += v
                hist[j, b, 2] += 1.0
        else:
            wi = w[i]
            for j in range(n_features):
                b = r[j]
                hist[j, b, 0] += wi
                hist[j, b, 1] += v
                hist[j, b, 2] += 1.0
    if unit:
        for j in range(n_features):
            for b in range(hist.shape[1]):
                hist[j, b, 0] = hist[j, b, 2]


@njit(cache=True, nogil=True)
def _scan_hist(h, n_bins, missing_bin, wtot, stot, m, min_samples_leaf, min_weight_leaf):
    """Best "bin <= b" split of one feature's histogram; missing tried both sides.

    Returns (proxy, b, missing_left); ``b == n_bins - 1`` with missing right
    is the split "every observed value left, missing right".
    """
    best = NEG_INF
    best_b = -1
    best_ml = False
    wm = h[missing_bin, 0]
    sm = h[missing_bin, 1]
    cm = h[missing_bin, 2]
    n_pass = 2 if cm > 0 else 1
    for ps in range(n_pass):
        miss_left = ps == 1
        wl = wm if miss_left else 0.0
        sl = sm if miss_left else 0.0
        cl = cm if miss_left else 0.0
        last = n_bins if (cm > 0 and not miss_left) else n_bins - 1
        for b in range(last):
            if h[b, 2] == 0.0 and b < n_bins - 1:
                continue  # empty bin: the same split as the previous one
            wl += h[b, 0]
            sl += h[b, 1]
            cl += h[b, 2]
            if cl < min_samples_leaf or m - cl < min_samples_leaf:
                continue
            wr = wtot - wl
            if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
                continue
            sr = stot - sl
            proxy = sl * sl / wl + sr * sr / wr
            if proxy > best:
                best = proxy
                best_b = b
                best_ml = miss_left
    return best, best_b, best_ml


@njit(cache=True, nogil=True)
def build_tree_hist(Xb, edges, n_bins, missing_bin, y, w, max_features, max_depth,
                    min_samples_split, min_samples_leaf, min_weight_leaf,
                    min_impurity_decrease, max_leaf_nodes, seed):
    """Grow a squared-error tree on binned features; same outputs as ``build_tree``.

    ``Xb`` has shape (n_samples, n_features) (Fortran order is the fast one);
    see :func:`grow_tree_hist` for the rest.
    """
    leaf_of = np.empty(Xb.shape[0], dtype=np.intp)
    return grow_tree_hist(Xb.T, np.ascontiguousarray(Xb), edges, n_bins, missing_bin, y, w, max_features,
                          max_depth, min_samples_split, min_samples_leaf,
                          min_weight_leaf, min_impurity_decrease, max_leaf_nodes, seed,
                          leaf_of)


@njit(cache=True, nogil=True)
def grow_tree_hist(XbT, XbR, edges, n_bins, missing_bin, y, w, max_features, max_depth,
                   min_samples_split, min_samples_leaf, min_weight_leaf,
                   min_impurity_decrease, max_leaf_nodes, seed, leaf_of):
    """Grow a squared-error tree on feature-major binned codes ``XbT``.

    ``XbT[j, i]`` is the bin of sample ``i`` in feature ``j`` (C order, so a
    feature's codes are contiguous) and ``XbR`` the same codes sample-major
    (``XbR[i, j]``, C order; the histograms below the root read them);
    ``edges[j, b]`` is the raw-scale upper
    edge of bin ``b`` of feature ``j`` (a sample is in bin ``b`` iff
    ``edges[j, b-1] < x <= edges[j, b]``), ``n_bins[j]`` its number of value
    bins, ``missing_bin`` the code of NaN. ``max_leaf_nodes < 0`` grows
    depth-first, otherwise best-first. ``leaf_of`` (length n_samples) receives
    the leaf of every sample of nonzero weight, -1 for the others: boosting
    updates its training scores from it instead of walking the tree again.
    Returns ``build_tree``'s arrays.
    """
    n_features, n_total = XbT.shape
    n = 0
    for i in range(n_total):
        if w[i] != 0.0:
            n += 1
    samples = np.empty(n, dtype=np.intp)
    k = 0
    w_root = 0.0
    unit = True
    for i in range(n_total):
        w_root += w[i]
        leaf_of[i] = -1
        if w[i] != 0.0:
            samples[k] = i
            k += 1
            if w[i] != 1.0:
                unit = False
    wy = np.empty(n, dtype=np.float64)
    # A binary tree has at most 2n - 1 nodes, 2^(depth+1) - 1 under a depth
    # limit and 2 L - 1 with L leaves; sizing by the tightest bound spares
    # boosting ~17 arrays of length 2n per shallow tree.
    cap = 2 * n
    if max_depth < 40:
        cap = min(cap, 2 ** (max_depth + 1))
    if max_leaf_nodes > 0:
        cap = min(cap, 2 * max_leaf_nodes)
    cap = max(cap, 1)
    left = np.full(cap, TREE_LEAF, dtype=np.intp)
    right = np.full(cap, TREE_LEAF, dtype=np.intp)
    feature = np.full(cap, TREE_UNDEFINED, dtype=np.intp)
    threshold = np.full(cap, float(TREE_UNDEFINED))
    missing_left = np.zeros(cap, dtype=np.uint8)
    impurity = np.zeros(cap)
    n_node = np.zeros(cap, dtype=np.intp)
    wn_node = np.zeros(cap)
    value = np.zeros((cap, 1))
    node_start = np.zeros(cap, dtype=np.intp)
    node_end = np.zeros(cap, dtype=np.intp)
    node_depth = np.zeros(cap, dtype=np.intp)
    split_pos = np.zeros(cap, dtype=np.intp)
    improvement = np.zeros(cap)
    node_slot = np.zeros(cap, dtype=np.intp)
    # Per-node random streams, as build_tree's.
    node_key = np.zeros(cap, dtype=np.uint64)
    rng = np.zeros(1, dtype=np.uint64)
    n_bins_total = missing_bin + 1
    # Histogram slots: a node owns one from its creation until it is split
    # (its larger child inherits it, subtracted in place) or becomes a leaf.
    pool = np.zeros((4, n_features, n_bins_total, 3))
    free = np.empty(4, dtype=np.intp)
    for s in range(4):
        free[s] = 3 - s
    n_free = 4
    features = np.arange(n_features)
    tmp = np.empty(n, dtype=np.intp)
    st_start = np.zeros(cap + 1, dtype=np.intp)
    st_end = np.zeros(cap + 1, dtype=np.intp)
    st_depth = np.zeros(cap + 1, dtype=np.intp)
    st_parent = np.zeros(cap + 1, dtype=np.intp)
    st_side = np.zeros(cap + 1, dtype=np.intp)
    st_slot = np.zeros(cap + 1, dtype=np.intp)
    frontier = np.zeros(cap + 1, dtype=np.intp)
    n_frontier = 0
    n_leaves = 1
    best_first = max_leaf_nodes > 0
    node_count = 0
    max_depth_seen = 0

    n_free -= 1
    root_slot = free[n_free]
    _node_sums(y, w, samples, 0, n, wy)
    _histogram(XbT, w, wy, samples, 0, n, unit, n == n_total, pool[root_slot])
    st_start[0] = 0
    st_end[0] = n
    st_depth[0] = 0
    st_parent[0] = -1
    st_side[0] = 0
    st_slot[0] = root_slot
    top = 1
    while True:
        if top == 0:
            if not best_first or n_frontier == 0:
                break
            kb = 0
            for q in range(1, n_frontier):
                if improvement[frontier[q]] > improvement[frontier[kb]]:
                    kb = q
            nd = frontier[kb]
            frontier[kb] = frontier[n_frontier - 1]
            n_frontier -= 1
            if n_leaves + 1 > max_leaf_nodes:
                feature[nd] = TREE_UNDEFINED
                threshold[nd] = TREE_UNDEFINED
                if node_slot[nd] >= 0:
                    free[n_free] = node_slot[nd]
                    n_free += 1
                continue
            n_leaves += 1
        else:
            top -= 1
            start = st_start[top]
            end = st_end[top]
            depth = st_depth[top]
            parent = st_parent[top]
            nd = node_count
            node_count += 1
            if parent >= 0:
                if st_side[top] == 0:
                    left[parent] = nd
                else:
                    right[parent] = nd
            node_start[nd] = start
            node_end[nd] = end
            node_depth[nd] = depth
            node_slot[nd] = st_slot[top]
            node_key[nd] = (root_key(seed) if parent < 0
                            else child_key(node_key[parent], st_side[top]))
            max_depth_seen = max(max_depth_seen, depth)
            wn, s1, s2, _ = _node_sums(y, w, samples, start, end, wy)
            mean = s1 / wn if wn > 0.0 else 0.0
            value[nd, 0] = mean
            imp = max(s2 / wn - mean * mean, 0.0) if wn > 0.0 else 0.0
            impurity[nd] = imp
            n_node[nd] = end - start
            wn_node[nd] = wn
            m = end - start
            is_leaf = (depth >= max_depth or m < min_samples_split
                       or m < 2 * min_samples_leaf or wn < 2.0 * min_weight_leaf
                       or imp <= EPSILON)
            found = False
            if not is_leaf:
                hist = pool[node_slot[nd]]
                stot = 0.0
                for b in range(n_bins_total):
                    stot += hist[0, b, 1]
                best_proxy = NEG_INF
                best_j = -1
                best_b = -1
                best_ml = False
                n_visited = 0
                f_i = 0
                rng[0] = node_key[nd]
                for q in range(n_features):
                    features[q] = q
                while f_i < n_features and n_visited < max_features:
                    r = f_i + rng_randint(rng, n_features - f_i)
                    j = features[r]
                    features[r] = features[f_i]
                    features[f_i] = j
                    f_i += 1
                    h = hist[j]
                    n_nonempty = 0
                    for b in range(n_bins_total):
                        if h[b, 2] > 0.0:
                            n_nonempty += 1
                    if n_nonempty < 2:
                        continue  # constant (or all missing) here
                    n_visited += 1
                    proxy, b, ml = _scan_hist(h, n_bins[j], missing_bin, wn, stot, m,
                                              min_samples_leaf, min_weight_leaf)
                    if proxy > best_proxy:
                        best_proxy = proxy
                        best_j = j
                        best_b = b
                        best_ml = ml
                if best_j >= 0:
                    gain = imp - (s2 - best_proxy) / wn
                    improvement[nd] = wn / w_root * gain
                    found = improvement[nd] + EPSILON >= min_impurity_decrease
            if not found:
                if node_slot[nd] >= 0:
                    free[n_free] = node_slot[nd]
                    n_free += 1
                continue
            j = best_j
            feature[nd] = j
            has_missing = pool[node_slot[nd]][j, missing_bin, 2] > 0.0
            if best_b == n_bins[j] - 1 and has_missing and not best_ml:
                threshold[nd] = np.inf
            else:
                threshold[nd] = edges[j, best_b]
            ml = best_ml
            # Partition, and where NaN goes at predict time.
            # Branch-free (the side of a row is a coin flip to the CPU): every
            # row is written to both buffers and only one cursor advances.
            # Codes of values are below missing_bin, so best_b < missing_bin.
            nl = 0
            nr = 0
            row = XbT[j]
            for p in range(start, end):
                i = samples[p]
                b = row[i]
                go = np.intp((b <= best_b) | (ml & (b == missing_bin)))
                samples[start + nl] = i
                tmp[nr] = i
                nl += go
                nr += 1 - go
            for q in range(nr):
                samples[start + nl + q] = tmp[q]
            split_pos[nd] = start + nl
            if not has_missing:
                ml = nl > nr  # unseen here: follow the larger child
            missing_left[nd] = np.uint8(ml)
            if best_first:
                frontier[n_frontier] = nd
                n_frontier += 1
                continue
        # Split node nd: histograms of the children, then push them.
        start = node_start[nd]
        end = node_end[nd]
        mid = split_pos[nd]
        if n_free == 0:
            grown = np.zeros((2 * pool.shape[0], n_features, n_bins_total, 3))
            grown[:pool.shape[0]] = pool
            free_new = np.empty(2 * pool.shape[0], dtype=np.intp)
            for s in range(pool.shape[0]):
                free_new[s] = 2 * pool.shape[0] - 1 - s
            n_free = pool.shape[0]
            free = free_new
            pool = grown
        # A child that is a leaf whatever its rows (depth, size) needs no
        # histogram; when both are, the parent's slot is released instead.
        d1 = node_depth[nd] + 1
        need = False
        for m_c in (mid - start, end - mid):
            if d1 < max_depth and m_c >= min_samples_split and m_c >= 2 * min_samples_leaf:
                need = True
        left_small = mid - start <= end - mid
        small = -1
        big = -1
        if need:
            n_free -= 1
            small = free[n_free]
            big = node_slot[nd]
            s_lo, s_hi = (start, mid) if left_small else (mid, end)
            _node_sums(y, w, samples, s_lo, s_hi, wy)
            _histogram_rows(XbR, w, wy, samples, s_lo, s_hi, unit, pool[small])
            pool[big] -= pool[small]
        else:
            free[n_free] = node_slot[nd]
            n_free += 1
        for side in range(1, -1, -1):
            st_start[top] = start if side == 0 else mid
            st_end[top] = mid if side == 0 else end
            st_side[top] = side
            st_parent[top] = nd
            st_depth[top] = node_depth[nd] + 1
            st_slot[top] = small if (side == 0) == left_small else big
            top += 1
    for nd in range(node_count):
        if left[nd] == TREE_LEAF:
            for p in range(node_start[nd], node_end[nd]):
                leaf_of[samples[p]] = nd
    return (left[:node_count].copy(), right[:node_count].copy(),
            feature[:node_count].copy(), threshold[:node_count].copy(),
            missing_left[:node_count].copy(), impurity[:node_count].copy(),
            n_node[:node_count].copy(), wn_node[:node_count].copy(),
            value[:node_count].copy(), np.full(node_count, TREE_LEAF, dtype=np.intp),
            np.zeros(0, dtype=np.intp), max_depth_seen)


@njit(cache=True, nogil=True)
def _codes_of_column(col, edges, n_edges, missing_bin, out):
    """``out[i] = searchsorted(edges[:n_edges], col[i], side="left")``, NaN to
    ``missing_bin``: a branch-free binary search, unrolled, over the edges
    padded with +inf to 256 (at most 255 edges), so the unsorted values cost
    no mispredicted branches (4.4x faster than ``np.searchsorted``)."""
    padded = np.full(256, np.inf)
    padded[:n_edges] = edges[:n_edges]
    for i in range(col.shape[0]):
        x = col[i]
        # Each step moves right past a block of edges all strictly below x.
        pos = 128 * np.intp(padded[127] < x)
        pos += 64 * np.intp(padded[pos + 63] < x)
        pos += 32 * np.intp(padded[pos + 31] < x)
        pos += 16 * np.intp(padded[pos + 15] < x)
        pos += 8 * np.intp(padded[pos + 7] < x)
        pos += 4 * np.intp(padded[pos + 3] < x)
        pos += 2 * np.intp(padded[pos + 1] < x)
        pos += np.intp(padded[pos] < x)
        out[i] = missing_bin if x != x else pos


def bin_columns(X, max_bins):
    """The binning of :func:`skml.tree._tree.bin_features`, faster.

    Same edges and codes (checked against it on ties, constants, NaN and
    continuous columns): one ``np.sort`` per column serves both the distinct
    values and the percentiles, whose ``method="midpoint"`` interpolation is
    numpy's own formula evaluated on the sorted values (no ``np.unique``, no
    partition), and the codes come from :func:`_codes_of_column`; 5x faster
    on 20k and 200k x 20.

    Returns
    -------
    codes, edges, n_bins, missing_bin, has_missing
        As the fields of ``BinnedFeatures`` (codes in Fortran order).
    """
    X = np.asarray(X, dtype=np.float64)
    n_samples, n_features = X.shape
    missing_bin = int(max_bins) - 1
    edges = np.full((n_features, missing_bin), np.inf)
    n_bins = np.zeros(n_features, dtype=np.intp)
    codes = np.empty((n_samples, n_features), dtype=np.uint8, order="F")
    has_missing = np.zeros(n_features, dtype=bool)
    quantiles = np.linspace(0, 100, max_bins)[1:-1] / 100
    for j in range(n_features):
        col = np.ascontiguousarray(X[:, j])
        s = np.sort(col)  # NaN sort last
        n_obs = s.shape[0]
        while n_obs > 0 and np.isnan(s[n_obs - 1]):
            n_obs -= 1
        has_missing[j] = n_obs < s.shape[0]
        s = s[:n_obs]
        new = np.empty(n_obs, dtype=bool)
        if n_obs:
            new[0] = True
            np.not_equal(s[1:], s[:-1], out=new[1:])
        n_distinct = int(np.count_nonzero(new))
        if n_distinct <= missing_bin:
            distinct = s[new]
            e = 0.5 * (distinct[:-1] + distinct[1:])
            # A midpoint rounding up onto the next value would merge two bins.
            e = np.where(e == distinct[1:], distinct[:-1], e)
        else:
            e = np.unique(_midpoint_percentiles(s, quantiles))
        edges[j, :e.shape[0]] = e
        n_bins[j] = e.shape[0] + 1
        _codes_of_column(col, edges[j], e.shape[0], missing_bin, codes[:, j])
    return codes, edges, n_bins, missing_bin, has_missing


def _midpoint_percentiles(s, quantiles):
    """``np.percentile(s, 100 * quantiles, method="midpoint")`` of sorted ``s``:
    numpy's virtual index, neighbours and interpolation, step by step."""
    n = s.shape[0]
    virtual = 0.5 * (np.floor((n - 1) * quantiles) + np.ceil((n - 1) * quantiles))
    prev = np.floor(virtual)
    nxt = prev + 1
    above = virtual >= n - 1
    prev[above] = -1
    nxt[above] = -1
    prev = prev.astype(np.intp)
    nxt = nxt.astype(np.intp)
    gamma = np.where(virtual % 1 == 0, 0.0, 0.5)
    a = s[prev]
    b = s[nxt]
    diff = b - a
    out = a + diff * gamma
    upper = gamma >= 0.5
    out[upper] = (b - diff * (1 - gamma))[upper]
    return out
