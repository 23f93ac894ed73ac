"""Numba kernels of histogram growth: binned features, sibling subtraction.

The mode gradient boosting uses (LightGBM's and scikit-learn's
``HistGradientBoosting`` idea): every feature is binned once into at most
255 value bins plus one bin for missing values (``uint8`` codes), a node's
split search scans per-bin sums instead of sorted samples, and of two
siblings only the smaller one's histogram is summed from its samples, the
other being the parent's minus it. Squared error only (boosting fits
regression trees to gradients). This module is the histogram splitter
of the one growth loop, :func:`skml.tree._builder_kernels.grow`, so the tree
comes out as the exact splitter's, thresholds being bin edges on the raw
feature scale: prediction needs no binning.
"""

from collections import namedtuple

import numpy as np
from numba import njit
from numba.typed import List

# numba's on-disk cache of a kernel is keyed on the file that defines it, not
# on the kernels it calls: after a change to _splitter_kernels.py, change this
# file too (this comment will do), or the cached growth keeps the old search.
from ._builder_kernels import fitted_samples, grow, push, register_splitter
from ._splitter_kernels import EPSILON, NEG_INF, SQUARED_ERROR, TreeData, rng_randint


@njit(cache=True, nogil=True)
def _histogram(Xb, y, w, samples, start, end, n_bins_total, hist):
    """Per-feature, per-bin (sum w, sum w y, count) of ``samples[start:end]``."""
    n_features = Xb.shape[1]
    hist[:, :, :] = 0.0
    for j in range(n_features):
        h = hist[j]
        for p in range(start, end):
            i = samples[p]
            b = Xb[i, j]
            wi = w[i]
            h[b, 0] += wi
            h[b, 1] += wi * y[i]
            h[b, 2] += 1.0


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


# The histogram splitter (see skml.tree._builder_kernels.register_splitter).
# ``hists[slot]`` is a node's histogram (per feature and bin: sum w, sum w y,
# count); a node owns a slot from its creation until it is split (its larger
# child inherits it, subtracted in place) or becomes a leaf, and ``free``
# lists the slots to reuse.
HistSplitter = namedtuple("HistSplitter", [
    "data", "crit", "ybuf", "wbuf", "edges", "n_bins", "missing_bin", "features",
    "rng", "tmp", "hists", "free",
])


@njit(cache=True, nogil=True)
def _take_slot(sp):
    if len(sp.free) > 0:
        return sp.free.pop()
    sp.hists.append(np.zeros_like(sp.hists[0]))
    return len(sp.hists) - 1


@njit(cache=True, nogil=True)
def _hist_root(sp, samples):
    slot = _take_slot(sp)
    _histogram(sp.data.X, sp.data.y_reg, sp.data.w, samples, 0, samples.shape[0],
               sp.missing_bin + 1, sp.hists[slot])
    return slot


@njit(cache=True, nogil=True)
def _hist_find(sp, rules, samples, node, wn, imp, w_root, best):
    w, y = sp.data.w, sp.data.y_reg
    features, rng, n_bins, missing_bin = sp.features, sp.rng, sp.n_bins, sp.missing_bin
    n_features = features.shape[0]
    n_bins_total = missing_bin + 1
    start = node.start
    end = node.end
    m = end - start
    hist = sp.hists[node.hist]
    stot = 0.0
    for b in range(n_bins_total):
        stot += hist[0, b, 1]
    best_proxy = NEG_INF
    best_j = -1
    best_b = -1
    best_ml = False
    n_visited = 0
    f_i = 0
    rng[0] = node.key
    for q in range(n_features):
        features[q] = q
    while f_i < n_features and n_visited < rules.max_features:
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
                                  rules.min_samples_leaf, rules.min_weight_leaf)
        if proxy > best_proxy:
            best_proxy = proxy
            best_j = j
            best_b = b
            best_ml = ml
    if best_j < 0:
        return False
    s2 = 0.0
    for p in range(start, end):
        i = samples[p]
        s2 += w[i] * y[i] * y[i]
    gain = imp - (s2 - best_proxy) / wn
    node.improvement = wn / w_root * gain
    split = best[0]
    split.feature = best_j
    split.bin = best_b
    split.missing_left = best_ml
    split.proxy = best_proxy
    split.gain = gain
    return node.improvement + EPSILON >= rules.min_impurity_decrease


@njit(cache=True, nogil=True)
def _hist_split(sp, samples, node, split):
    Xb, missing_bin, tmp = sp.data.X, sp.missing_bin, sp.tmp
    start = node.start
    end = node.end
    j = split.feature
    best_b = split.bin
    has_missing = sp.hists[node.hist][j, missing_bin, 2] > 0.0
    ml = split.missing_left != 0
    if best_b == sp.n_bins[j] - 1 and has_missing and not ml:
        node.threshold = np.inf
    else:
        node.threshold = sp.edges[j, best_b]
    # Partition, and where NaN goes at predict time.
    nl = 0
    nr = 0
    for p in range(start, end):
        i = samples[p]
        b = Xb[i, j]
        go_left = ml if b == missing_bin else b <= best_b
        if go_left:
            samples[start + nl] = i
            nl += 1
        else:
            tmp[nr] = i
            nr += 1
    for q in range(nr):
        samples[start + nl + q] = tmp[q]
    node.split_pos = start + nl
    if not has_missing:
        ml = nl > nr  # unseen here: follow the larger child
    node.missing_left = np.uint8(ml)
    return 0


@njit(cache=True, nogil=True)
def _hist_push_children(sp, stack, top, nodes, nd, samples):
    """Histograms of the children (the smaller one summed, the other the
    parent's minus it, in the parent's slot), then push them."""
    node = nodes[nd]
    start = node.start
    end = node.end
    mid = node.split_pos
    small = _take_slot(sp)
    big = node.hist
    left_small = mid - start <= end - mid
    hists = sp.hists
    lo, hi = (start, mid) if left_small else (mid, end)
    _histogram(sp.data.X, sp.data.y_reg, sp.data.w, samples, lo, hi, sp.missing_bin + 1,
               hists[small])
    hists[big] -= hists[small]
    depth = node.depth + 1
    top = push(stack, top, mid, end, depth, nd, 1, big if left_small else small)
    return push(stack, top, start, mid, depth, nd, 0, small if left_small else big)


@njit(cache=True, nogil=True)
def _hist_release(sp, node):
    sp.free.append(node.hist)


register_splitter(HistSplitter, root=_hist_root, find=_hist_find, split=_hist_split,
                  push_children=_hist_push_children, release=_hist_release)


@njit(cache=True, nogil=True)
def build_tree_hist(Xb, edges, n_bins, missing_bin, y, w, rules):
    """Grow a squared-error tree on binned features; same outputs as ``build_tree``.

    ``edges[j, b]`` is the raw-scale upper edge of bin ``b`` of feature ``j``
    (a sample is in bin ``b`` iff ``edges[j, b-1] < x <= edges[j, b]``),
    ``n_bins[j]`` its number of value bins, ``missing_bin`` the code of NaN.
    ``rules`` is a :data:`~skml.tree._builder_kernels.GrowthRules`.
    """
    n_total, n_features = Xb.shape
    samples = fitted_samples(w)
    n = samples.shape[0]
    w_root = 0.0
    for i in range(n_total):
        w_root += w[i]
    # A binary tree has at most 2n - 1 nodes, 2^(depth+1) - 1 under a depth
    # limit and 2 L - 1 with L leaves; sizing by the tightest bound spares
    # boosting large node arrays per shallow tree.
    cap = 2 * n
    if rules.max_depth < 40:
        cap = min(cap, 2 ** (rules.max_depth + 1))
    if rules.max_leaf_nodes > 0:
        cap = min(cap, 2 * rules.max_leaf_nodes)
    cap = max(cap, 1)
    hists = List()
    hists.append(np.zeros((n_features, missing_bin + 1, 3)))
    free = List()
    free.append(0)
    sp = HistSplitter(
        TreeData(Xb, np.zeros(1, dtype=np.intp), y, w, np.zeros(n_features, dtype=np.intp),
                 np.zeros((0, 0), dtype=np.int32)),
        SQUARED_ERROR, np.zeros(1), np.zeros(1), edges, n_bins, missing_bin,
        np.arange(n_features), np.zeros(1, dtype=np.uint64), np.empty(n, dtype=np.intp),
        hists, free,
    )
    return grow(sp, rules, samples, w_root, cap, 1)
