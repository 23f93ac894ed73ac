"""Numba kernels of the split search: node statistics, criteria, the best split.

Everything here works on one node, the segment ``samples[start:end]`` of the
builder's sample-index array, and is array-in/array-out with
``@njit(cache=True, nogil=True)`` so that forests can grow trees in threads.

Criterion codes (resolved once by the estimator):

==  ================  ===========================================
0   ``gini``          CART, :math:`1 - \\sum_k p_k^2`
1   ``entropy``       ID3, :math:`-\\sum_k p_k \\log_2 p_k`
2   ``gain_ratio``    C4.5, entropy gain / split information
3   ``squared_error`` CART least squares, weighted variance
4   ``absolute_error`` weighted mean absolute deviation from the median
5   ``poisson``       half Poisson deviance, :math:`\\frac{1}{W}\\sum_i w_i y_i \\ln(y_i / \\bar y)`
==  ================  ===========================================

A candidate split is ranked by a *proxy* that orders splits like the
impurity decrease but is cheaper (scikit-learn's trick): the proxy is
``-sum_c W_c * impurity_c`` over the children ``c``, written in closed form
from the running class counts (Gini, entropy) or sums (squared error;
Poisson: ``sum_c S_c ln(S_c / W_c)``, since ``sum_i w_i y_i ln y_i`` is the
same for every split).

Monotonicity constraints (``TreeData.mono``, one of -1/0/1 per feature,
empty when none): a candidate split on a constrained feature is kept only
when its children's values (mean, median, or the proportion of class 0,
the constraint's sign then flipped by the estimator) are in the node's
bounds ``[lo, hi]`` and ordered as the constraint says (scikit-learn's
rule); the builder bounds the children by the split's middle value.
"""

from collections import namedtuple

import numpy as np
from numba import njit

GINI, ENTROPY, GAIN_RATIO, SQUARED_ERROR, ABSOLUTE_ERROR, POISSON = 0, 1, 2, 3, 4, 5

# Two feature values closer than this are treated as equal (scikit-learn's
# FEATURE_THRESHOLD), so no threshold falls between float round-off copies.
FEATURE_THRESHOLD = 1e-7
EPSILON = np.finfo(np.float64).eps
NEG_INF = -np.inf

# Per-node random streams (splitmix64). Each node's feature order and
# random thresholds come from a key fixed by the tree's seed and the node's
# path from the root, not from one generator shared by the nodes in the
# order they are searched; so best-first growth (which searches nodes in
# another order) grows the depth-first tree when its leaf limit does not
# bind, and nothing depends on the order of the search.
_GOLDEN = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_INV_2_53 = 1.0 / 9007199254740992.0

# A split, candidate or chosen (scikit-learn's HistGradientBoosting calls it
# SplitInfo): a numba record, read and written by reference. ``proxy`` ranks
# candidates (see the module docstring), ``gain`` is the impurity decrease
# ``i(t) - sum_c W_c i(c) / W_t``, ``split_info`` C4.5's split information
# and ``bin`` the last bin going left (histogram search only).
SPLIT = np.dtype([
    ("feature", np.intp), ("threshold", np.float64), ("missing_left", np.uint8),
    ("n_left", np.intp), ("proxy", np.float64), ("gain", np.float64),
    ("split_info", np.float64), ("bin", np.intp),
], align=True)

# What the split search reads: the features (categorical ones hold codes,
# ``cat_n[j]`` of them, 0 for numeric), the targets (class indices or
# floats; the other one is a dummy), the sample weights, and with presorting
# each numeric feature's order of the samples, kept by the builder. A sparse
# X comes as its arrays ``csc`` (see :func:`sparse_views`: the values once,
# a row view and a column view of them; no stored zeros) and ``X`` is a
# placeholder; a dense one has empty ``csc``.
# ``mono``: the monotonicity constraint of each feature (int8 -1/0/1), empty
# when there is none. ``rows``: for a sparse X, :func:`sparse_rows`' row
# structure of the same entries and the search's per-feature node stamps.
TreeData = namedtuple("TreeData", ["X", "csc", "y_cls", "y_reg", "w", "cat_n",
                                   "presorted", "mono", "rows"])

# The search's fixed settings for one tree (``is_sparse``: X comes as CSC).
SplitRules = namedtuple("SplitRules", [
    "crit", "n_classes", "max_features", "random_split", "min_samples_leaf",
    "min_weight_leaf", "use_presort", "is_sparse",
])

# What :func:`find_split_dense` reads: the data's arrays and the workspace's
# buffers it uses, no others (see its docstring).
DenseData = namedtuple("DenseData", ["X", "presorted", "y_cls", "y_reg", "w"])
DenseBuffers = namedtuple("DenseBuffers", [
    "features", "cand", "rng", "Xf", "sidx", "sort_stack", "ybuf", "tmp", "scan",
])

# The running sums of one feature's threshold scan (classification: class
# weights left, in the node, of the missing samples; absolute error: Fenwick
# trees and prefix sums over the node's y-ranks). A tuple of its own so that
# the per-feature scan, the hot call, receives these arrays and no others:
# numba passes every array of a tuple argument field by field and counts its
# references, and a call with the whole workspace cost 11% of a fit.
ScanBuffers = namedtuple("ScanBuffers", [
    "cl", "ctot", "cmiss", "rank", "bit_w", "bit_wy", "cum_w", "cum_wy", "ysort",
])

# What the scan of one sparse feature in a node reads (:func:`_sparse_scan`):
# the targets and weights, the node's random stream, the scan's class sums
# (left, node, zero block: the workspace's cl, ctot, cmiss), the sort's
# stack and the feature's stored values ``vals`` at the samples ``ids``.
SparseScan = namedtuple("SparseScan", [
    "y_cls", "y_reg", "w", "rng", "cl", "ctot", "czero", "sort_stack", "vals", "ids",
])

# Buffers of the split search, allocated once per tree by
# :func:`split_workspace`; ``rng`` holds the current node's random stream
# and (``rng[1]``) the draws :func:`draw_feature` made since ``features`` was
# in order.
SplitWorkspace = namedtuple("SplitWorkspace", [
    # a feature's sorted values and samples, and the sort's stack
    "Xf", "sidx", "sort_stack",
    # node targets and weights (absolute error, categorical children, random thresholds)
    "ybuf", "wbuf", "tmp",
    # a categorical child's class counts, samples per code, weight per child
    "counts", "slot_count", "child_w",
    # the scan's running sums
    "scan",
    # the feature order, each examined feature's best split, the random stream
    "features", "cand", "rng",
    # sparse X only (empty otherwise): each sample's position in ``samples``
    # (valid for the samples of the node being split), its side in a partition
    "node_pos", "side",
    # presorting only (empty otherwise): the buffers of the presorted
    # partitions (each sample's child, a scratch row, the children's ends)
    "group", "ps_tmp", "child_end",
    # monotonicity constraints only (empty otherwise): the value bounds
    # (lo, hi) of the nodes, a node's NODE.work indexing its row, and the
    # number of rows used
    "bounds", "n_bounds",
    # CART's binary groupings of categories only (empty otherwise): each
    # feature's side of each code (1 left) in the node's best grouping, and
    # per-code sums (class weights, or weight, sum w y, sum w y^2 / w y ln y)
    "group_side", "code_stats",
    # settings of the notes' variants, scalars (no reference counting):
    # grouping (True) or multiway categorical splits; C4.5's selection,
    # Quinlan's (ratio_epsilon < 0) or Li Hang's with that epsilon
    "cat_grouping", "ratio_epsilon",
])


@njit(cache=True, nogil=True)
def split_workspace(n_total, n_features, max_slots, n_values, is_sparse, use_presort,
                    n_bounds=0, n_rank_sets=1, cat_grouping=False, ratio_epsilon=-1.0):
    """Buffers for nodes of up to ``n_total`` samples (see :data:`SplitWorkspace`);
    ``n_bounds`` rows of node bounds (monotonicity constraints);
    ``n_rank_sets`` sets of the absolute error's rank buffers, one after the
    other (one per output of a multi-output target);
    ``cat_grouping``: binary groupings of categories instead of multiway
    splits; ``ratio_epsilon >= 0``: Li Hang's C4.5 selection (gain ratio)."""
    n_g = n_features if cat_grouping else 0
    n_c = max_slots + 1 if cat_grouping else 0
    n_ps = n_total if use_presort else 0
    n_sp = n_total if is_sparse else 0
    # Per-sample and per-code buffers: a node's samples or a feature's codes
    # (the features' own arrays, features and cand, are n_features long).
    # They were max(n_total, n_features) long; no read or write goes past
    # n_total + 2 (the tree, ensemble and tree common-check tests pass under
    # NUMBA_BOUNDSCHECK=1, 2026-11-27).
    nw = max(n_total, max_slots) + 2
    ni = max(nw, 130)
    nr = nw * n_rank_sets
    # The large buffers are not zeroed: each is written before it is read
    # (checked by filling them with NaN and garbage integers: the tree and
    # ensemble tests and the common checks all passed, 2026-11-27), and
    # only the pages a node touches become resident. Zeroed, they took
    # ~18 MiB of a sparse forest's fit on 100k features (nw = n_features).
    scan = ScanBuffers(
        np.zeros(n_values), np.zeros(n_values), np.zeros(n_values),
        np.empty(n_total * n_rank_sets, dtype=np.intp), np.empty(nr), np.empty(nr),
        np.empty(nr), np.empty(nr), np.empty(nr),
    )
    return SplitWorkspace(
        np.empty(nw), np.empty(ni, dtype=np.intp), np.empty(ni, dtype=np.intp),
        np.empty(nw), np.empty(nw), np.empty(ni, dtype=np.intp),
        np.zeros(n_values), np.empty(ni, dtype=np.intp), np.empty(nw),
        scan,
        np.arange(n_features), np.empty(n_features, dtype=SPLIT),
        np.zeros(2, dtype=np.uint64),
        np.full(n_sp, -1, dtype=np.intp), np.empty(n_sp, dtype=np.uint8),
        np.empty(n_ps, dtype=np.intp),
        np.empty(n_ps + max_slots + 2 if use_presort else 0, dtype=np.intp),
        np.zeros(max_slots + 1, dtype=np.intp),
        np.zeros((n_bounds, 2)), np.zeros(1, dtype=np.intp),
        np.zeros((n_g, max_slots + 1), dtype=np.uint8),
        np.zeros((n_c, max(n_values, 3))),
        bool(cat_grouping), float(ratio_epsilon),
    )


@njit(cache=True, nogil=True)
def _mix64(z):
    z = (z ^ (z >> np.uint64(30))) * _MIX1
    z = (z ^ (z >> np.uint64(27))) * _MIX2
    return z ^ (z >> np.uint64(31))


@njit(cache=True, nogil=True)
def root_key(seed):
    """Random-stream key of the root node, from the tree's integer seed."""
    return _mix64(np.uint64(seed) + _GOLDEN)


@njit(cache=True, nogil=True)
def child_key(parent_key, slot):
    """Key of the child in ``slot`` (side 0/1, or category code) of a node."""
    return _mix64(parent_key ^ _mix64(np.uint64(slot + 1) * _GOLDEN))


@njit(cache=True, nogil=True)
def _next_bits(rng):
    rng[0] = rng[0] + _GOLDEN
    return _mix64(rng[0]) >> np.uint64(11)  # 53 random bits


@njit(cache=True, nogil=True)
def rng_random(rng):
    """Uniform float in [0, 1) from the stream ``rng[0]`` (a uint64 array)."""
    return float(_next_bits(rng)) * _INV_2_53


@njit(cache=True, nogil=True)
def rng_randint(rng, n):
    """Uniform int in [0, n) from the stream ``rng``."""
    return int(rng_random(rng) * n)


@njit(cache=True, nogil=True)
def _xlogx(x):
    return x * np.log2(x) if x > 0.0 else 0.0


@njit(cache=True, nogil=True)
def _xlny(x):
    return x * np.log(x) if x > 0.0 else 0.0


@njit(cache=True, nogil=True)
def monotonic_ok(cst, lo, hi, v_left, v_right):
    """Whether children values ``v_left``, ``v_right`` of a split on a feature
    with constraint ``cst`` (-1/1) keep the node's bounds ``[lo, hi]`` and the
    constraint's order (scikit-learn's test)."""
    return (lo <= v_left <= hi and lo <= v_right <= hi
            and (v_left - v_right) * cst <= 0.0)


@njit(cache=True, nogil=True)
def _class_impurity(counts, total, crit):
    """Gini (crit 0) or entropy (crit 1, 2) of weighted class counts."""
    if total <= 0.0:
        return 0.0
    out = 0.0
    if crit == GINI:
        for c in counts:
            out += c * c
        return 1.0 - out / (total * total)
    for c in counts:
        if c > 0.0:
            p = c / total
            out -= p * np.log2(p)
    return out


@njit(cache=True, nogil=True)
def weighted_median(ys, ws, m):
    """Weighted median of sorted ``ys[:m]`` (midpoint when the weight halves)."""
    total = 0.0
    for i in range(m):
        total += ws[i]
    half = 0.5 * total
    cum = 0.0
    for i in range(m):
        cum += ws[i]
        if cum >= half:
            if cum == half and i + 1 < m:
                return 0.5 * (ys[i] + ys[i + 1])
            return ys[i]
    return ys[m - 1]


@njit(cache=True, nogil=True)
def node_stats(samples, start, end, y_cls, y_reg, w, crit, value, ybuf, wbuf):
    """Weighted size and impurity of a node; writes its prediction to ``value``.

    ``value`` holds the class proportions (classification) or the mean
    (squared error, Poisson) or weighted median (absolute error).
    """
    wn = 0.0
    if crit <= GAIN_RATIO:
        n_classes = value.shape[0]
        other = n_classes > 4
        if not other:
            for p in range(start, end):
                other |= w[samples[p]] != 1.0
        if other:
            value[:] = 0.0
            for p in range(start, end):
                i = samples[p]
                value[y_cls[i]] += w[i]
                wn += w[i]
        else:
            # Unit weights, few classes: counts (exact, the same bits), one
            # pass per class but the last, without the chain of additions
            # through ``value`` (~10 cycles a sample).
            rest = end - start
            for c in range(n_classes - 1):
                nc = 0
                for p in range(start, end):
                    nc += y_cls[samples[p]] == c
                value[c] = nc
                rest -= nc
            value[n_classes - 1] = rest
            wn = float(end - start)
        imp = _class_impurity(value, wn, crit)
        if wn > 0.0:
            value /= wn
        return wn, imp
    s = 0.0
    s2 = 0.0
    for p in range(start, end):
        i = samples[p]
        wi = w[i]
        wn += wi
        s += wi * y_reg[i]
        s2 += wi * y_reg[i] * y_reg[i]
    mean = s / wn if wn > 0.0 else 0.0
    if crit == SQUARED_ERROR:
        value[0] = mean
        return wn, max(s2 / wn - mean * mean, 0.0) if wn > 0.0 else 0.0
    if crit == POISSON:
        # Half Poisson deviance around the mean; the sum of w (mean - y)
        # vanishes there. A zero mean (every y = 0, as y >= 0) deviates by 0.
        value[0] = mean
        if mean <= 0.0:
            return wn, 0.0
        dev = 0.0
        for p in range(start, end):
            i = samples[p]
            dev += w[i] * _xlny(y_reg[i]) - w[i] * y_reg[i] * np.log(mean)
        return wn, max(dev / wn, 0.0)
    m = end - start
    for p in range(start, end):
        ybuf[p - start] = y_reg[samples[p]]
    order = np.argsort(ybuf[:m])
    for k in range(m):
        i = samples[start + order[k]]
        ybuf[k] = y_reg[i]
        wbuf[k] = w[i]
    med = weighted_median(ybuf, wbuf, m)
    value[0] = med
    sad = 0.0
    for k in range(m):
        sad += wbuf[k] * abs(ybuf[k] - med)
    return wn, sad / wn if wn > 0.0 else 0.0


@njit(cache=True, nogil=True)
def _insertion_sort2(v, s, lo, hi):
    for i in range(lo + 1, hi):
        x = v[i]
        y = s[i]
        k = i - 1
        while k >= lo and v[k] > x:
            v[k + 1] = v[k]
            s[k + 1] = s[k]
            k -= 1
        v[k + 1] = x
        s[k + 1] = y


@njit(cache=True, nogil=True)
def sort2(v, s, n, stack):
    """Sort ``v[:n]`` in place, permuting ``s[:n]`` alongside.

    Quicksort with a median-of-three pivot and three-way partitioning (runs
    of equal feature values are common), insertion sort below 16 items. It
    sorts the values and the sample ids together, without the allocation
    and the gather of an argsort, which dominate on the many small nodes of
    a deep tree.
    """
    top = 0
    lo = 0
    hi = n
    while True:
        while hi - lo > 16:
            mid = (lo + hi) // 2
            a = v[lo]
            b = v[mid]
            c = v[hi - 1]
            if a < b:
                pivot = b if b < c else (c if a < c else a)
            else:
                pivot = a if a < c else (c if b < c else b)
            # Three-way partition: [lo, lt) < pivot, [lt, gt) == pivot, [gt, hi) >.
            lt = lo
            i = lo
            gt = hi
            while i < gt:
                x = v[i]
                if x < pivot:
                    v[i] = v[lt]
                    v[lt] = x
                    t = s[i]
                    s[i] = s[lt]
                    s[lt] = t
                    lt += 1
                    i += 1
                elif x > pivot:
                    gt -= 1
                    v[i] = v[gt]
                    v[gt] = x
                    t = s[i]
                    s[i] = s[gt]
                    s[gt] = t
                else:
                    i += 1
            # Recurse (via the stack) into the larger side, loop on the smaller.
            if lt - lo > hi - gt:
                stack[top] = lo
                stack[top + 1] = lt
                top += 2
                lo = gt
            else:
                stack[top] = gt
                stack[top + 1] = hi
                top += 2
                hi = lt
        _insertion_sort2(v, s, lo, hi)
        if top == 0:
            break
        top -= 2
        lo = stack[top]
        hi = stack[top + 1]


@njit(cache=True, nogil=True)
def _bit_add(tree, k, v):
    k += 1
    n = tree.shape[0]
    while k < n:
        tree[k] += v
        k += k & (-k)


@njit(cache=True, nogil=True)
def _bit_prefix(tree, k):
    """Sum of entries ``0..k-1``."""
    s = 0.0
    while k > 0:
        s += tree[k]
        k -= k & (-k)
    return s


@njit(cache=True, nogil=True)
def _median_of_set(bit_w, cum_w, ysort, m, complement):
    """Weighted median of a set of ranks, given as in :func:`_sad_of_set`, as
    :func:`weighted_median` takes it (the midpoint of the two middle values
    when the weight halves exactly), so that a constrained split's children
    values are checked as they will be stored."""
    if complement:
        total = cum_w[m] - _bit_prefix(bit_w, m)
    else:
        total = _bit_prefix(bit_w, m)
    half = 0.5 * total
    k = _first_rank_above(bit_w, cum_w, m, complement, half, False)
    c = _bit_prefix(bit_w, k + 1)
    if complement:
        c = cum_w[k + 1] - c
    if c == half and k + 1 < m:
        k2 = _first_rank_above(bit_w, cum_w, m, complement, half, True)
        c2 = _bit_prefix(bit_w, k2 + 1)
        if complement:
            c2 = cum_w[k2 + 1] - c2
        if c2 > half:
            return 0.5 * (ysort[k] + ysort[k2])
    return ysort[k]


@njit(cache=True, nogil=True)
def _first_rank_above(bit_w, cum_w, m, complement, half, strict):
    """First rank whose cumulative weight in the set reaches ``half``
    (exceeds it, with ``strict``); ``m - 1`` if none."""
    lo, hi = 0, m - 1
    while lo < hi:
        mid = (lo + hi) // 2
        c = _bit_prefix(bit_w, mid + 1)
        if complement:
            c = cum_w[mid + 1] - c
        if c > half or (c == half and not strict):
            hi = mid
        else:
            lo = mid + 1
    return lo


@njit(cache=True, nogil=True)
def _sad_of_set(bit_w, bit_wy, cum_w, cum_wy, ysort, m, complement):
    """Sum of absolute deviations from the weighted median of a set of ranks.

    The set is given by Fenwick trees over the node's y-ranks (weights and
    weighted values); with ``complement`` it is the node minus that set, read
    off the static prefix sums ``cum_w``/``cum_wy``. O(log^2 m).
    """
    if complement:
        total = cum_w[m] - _bit_prefix(bit_w, m)
    else:
        total = _bit_prefix(bit_w, m)
    half = 0.5 * total
    lo, hi = 0, m - 1
    while lo < hi:  # first rank whose cumulative weight reaches half
        mid = (lo + hi) // 2
        c = _bit_prefix(bit_w, mid + 1)
        if complement:
            c = cum_w[mid + 1] - c
        if c >= half:
            hi = mid
        else:
            lo = mid + 1
    k = lo
    wb = _bit_prefix(bit_w, k + 1)
    sb = _bit_prefix(bit_wy, k + 1)
    wt = _bit_prefix(bit_w, m)
    st = _bit_prefix(bit_wy, m)
    if complement:
        wb = cum_w[k + 1] - wb
        sb = cum_wy[k + 1] - sb
        wt = cum_w[m] - wt
        st = cum_wy[m] - st
    med = ysort[k]
    return (med * wb - sb) + ((st - sb) - med * (wt - wb))


@njit(cache=True, nogil=True)
def _class_children_proxy(cl, ctot, n_classes, crit, wl, wr):
    """Proxy of a classification split (Gini: ``sum_k l_k^2 / W_l + r_k^2 /
    W_r``; entropy: ``-W_l H_l - W_r H_r``) from the left class weights
    ``cl`` and the node's ``ctot`` (the right ones are their difference).
    :func:`_scan_sorted` writes it out: called in its loop, even inlined, it
    made a DecisionTreeClassifier's fit 2x slower."""
    if crit == GINI:
        sl2 = 0.0
        sr2 = 0.0
        for k in range(n_classes):
            a = cl[k]
            b = ctot[k] - a
            sl2 += a * a
            sr2 += b * b
        return sl2 / wl + sr2 / wr
    proxy = -_xlogx(wl) - _xlogx(wr)
    for k in range(n_classes):
        a = cl[k]
        proxy += _xlogx(a) + _xlogx(ctot[k] - a)
    return proxy


@njit(cache=True, nogil=True)
def _scan_squared_error(Xf, sidx, n_nm, y_reg, w, wtot, stot, min_samples_leaf,
                        min_weight_leaf):
    """:func:`_scan_sorted` for squared error without missing values.

    The common case of regression (and of boosting) gets its own tight loop:
    no criterion branches, no second pass, node sums given by the caller.
    """
    best = NEG_INF
    best_pos = -1
    wl = 0.0
    sl = 0.0
    for p in range(n_nm - 1):
        i = sidx[p]
        wi = w[i]
        wl += wi
        sl += wi * y_reg[i]
        if Xf[p + 1] <= Xf[p] + FEATURE_THRESHOLD:
            continue
        if p + 1 < min_samples_leaf or n_nm - p - 1 < min_samples_leaf:
            continue
        wr = wtot - wl
        if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
            continue
        sr = stot - sl
        proxy = sl * sl / wl + sr * sr / wr
        if proxy > best:
            best = proxy
            best_pos = p + 1
    return best, best_pos, False


@njit(cache=True, nogil=True)
def _scan_sorted(Xf, sidx, n_nm, n_miss, y_cls, y_reg, w, rules, buf, wtot, stot,
                 mono):
    """Best threshold of one feature over its sorted non-missing values.

    ``sidx[:n_nm]`` are the node's samples sorted by ``Xf[:n_nm]``, the
    missing ones are ``sidx[n_nm:n_nm + n_miss]``. Each candidate is tried
    with the missing samples sent left and right (one pass each); the split
    "all non-missing left, missing right" is tried too. The node's totals
    (weight ``wtot``, weighted target sum ``stot``, class weights ``ctot``)
    are computed once per node by the caller; ``buf`` is the
    :data:`ScanBuffers`. ``mono = (cst, lo, hi)``: the feature's
    monotonicity constraint (0.0: none) and the node's value bounds (see
    the module docstring). Returns (proxy, n_left_non_missing, missing_left).
    """
    cst, lo, hi = mono
    crit, n_classes = rules.crit, rules.n_classes
    min_samples_leaf, min_weight_leaf = rules.min_samples_leaf, rules.min_weight_leaf
    cl, ctot, cmiss, rank = buf.cl, buf.ctot, buf.cmiss, buf.rank
    bit_w, bit_wy, cum_w, cum_wy, ysort = buf.bit_w, buf.bit_wy, buf.cum_w, buf.cum_wy, buf.ysort
    if n_miss == 0 and crit == SQUARED_ERROR and cst == 0:
        return _scan_squared_error(Xf, sidx, n_nm, y_reg, w, wtot, stot,
                                   min_samples_leaf, min_weight_leaf)
    m = n_nm + n_miss
    best = NEG_INF
    best_pos = -1
    best_ml = False
    # Poisson: samples of positive target in the node, among the missing
    # ones, and on the left, counted exactly (a child's sum, the node's
    # minus the other child's, rounds to some 1e-15 instead of 0).
    npos = 0
    npos_miss = 0
    if crit == POISSON:
        for q in range(m):
            if y_reg[sidx[q]] > 0.0:
                npos += 1
                if q >= n_nm:
                    npos_miss += 1
    # The missing samples' part of the node totals.
    wmiss = 0.0
    smiss = 0.0
    if crit <= GAIN_RATIO:
        cmiss[:] = 0.0
    for q in range(n_nm, m):
        i = sidx[q]
        wmiss += w[i]
        if crit <= GAIN_RATIO:
            cmiss[y_cls[i]] += w[i]
        else:
            smiss += w[i] * y_reg[i]
    n_pass = 2 if n_miss > 0 else 1
    for ps in range(n_pass):
        miss_left = ps == 1
        wl = wmiss if miss_left else 0.0
        sl = smiss if miss_left else 0.0
        npos_l = npos_miss if miss_left else 0
        if crit <= GAIN_RATIO:
            for k in range(n_classes):
                cl[k] = cmiss[k] if miss_left else 0.0
        if crit == ABSOLUTE_ERROR:
            bit_w[:m + 1] = 0.0
            bit_wy[:m + 1] = 0.0
            if miss_left:
                for q in range(n_nm, m):
                    i = sidx[q]
                    _bit_add(bit_w, rank[i], w[i])
                    _bit_add(bit_wy, rank[i], w[i] * y_reg[i])
        last = n_nm if (n_miss > 0 and not miss_left) else n_nm - 1
        for p in range(last):
            i = sidx[p]
            wi = w[i]
            wl += wi
            if crit <= GAIN_RATIO:
                cl[y_cls[i]] += wi
            elif crit == SQUARED_ERROR or crit == POISSON:
                sl += wi * y_reg[i]
                if y_reg[i] > 0.0:
                    npos_l += 1
            else:
                _bit_add(bit_w, rank[i], wi)
                _bit_add(bit_wy, rank[i], wi * y_reg[i])
            if p + 1 < n_nm and Xf[p + 1] <= Xf[p] + FEATURE_THRESHOLD:
                continue
            n_left = p + 1 + (n_miss if miss_left else 0)
            if n_left < min_samples_leaf or m - n_left < min_samples_leaf:
                continue
            wr = wtot - wl
            if wl < min_weight_leaf or wr < min_weight_leaf:
                continue
            if wl <= 0.0 or wr <= 0.0:
                # A child whose weight rounds to 0 next to the others' (weights
                # 1e16 apart, as late AdaBoost rounds give) is no split.
                continue
            if cst != 0:
                if crit <= GAIN_RATIO:
                    v_left = cl[0] / wl
                    v_right = (ctot[0] - cl[0]) / wr
                elif crit == ABSOLUTE_ERROR:
                    v_left = _median_of_set(bit_w, cum_w, ysort, m, False)
                    v_right = _median_of_set(bit_w, cum_w, ysort, m, True)
                else:
                    v_left = sl / wl
                    v_right = (stot - sl) / wr
                if not monotonic_ok(cst, lo, hi, v_left, v_right):
                    continue
            if crit == GINI:
                sl2 = 0.0
                sr2 = 0.0
                for k in range(n_classes):
                    a = cl[k]
                    b = ctot[k] - a
                    sl2 += a * a
                    sr2 += b * b
                proxy = sl2 / wl + sr2 / wr
            elif crit <= GAIN_RATIO:
                proxy = -_xlogx(wl) - _xlogx(wr)
                for k in range(n_classes):
                    a = cl[k]
                    proxy += _xlogx(a) + _xlogx(ctot[k] - a)
            elif crit == SQUARED_ERROR:
                sr = stot - sl
                proxy = sl * sl / wl + sr * sr / wr
            elif crit == POISSON:
                # A child of zero mean has an infinite deviance: no split.
                sr = stot - sl
                if sl <= EPSILON or sr <= EPSILON or npos_l == 0 or npos_l == npos:
                    continue
                proxy = sl * np.log(sl / wl) + sr * np.log(sr / wr)
            else:
                proxy = -(_sad_of_set(bit_w, bit_wy, cum_w, cum_wy, ysort, m, False)
                          + _sad_of_set(bit_w, bit_wy, cum_w, cum_wy, ysort, m, True))
            if proxy > best:
                best = proxy
                best_pos = p + 1
                best_ml = miss_left
    return best, best_pos, best_ml


@njit(cache=True, nogil=True)
def _children_impurity_sum(proxy, crit, wn, s2):
    """``sum_c W_c * impurity_c`` from a proxy (``s2`` = node's sum w y^2;
    Poisson: sum w y ln y)."""
    if crit == GINI:
        return wn - proxy
    if crit == SQUARED_ERROR or crit == POISSON:
        return s2 - proxy
    return -proxy


@njit(cache=True, nogil=True)
def _proxy_from_children_sum(total, crit, wn, s2):
    """Inverse of :func:`_children_impurity_sum`."""
    if crit == GINI:
        return wn - total
    if crit == SQUARED_ERROR or crit == POISSON:
        return s2 - total
    return -total


@njit(cache=True, nogil=True)
def _split_info(wl, wr):
    wn = wl + wr
    return -(_xlogx(wl / wn) + _xlogx(wr / wn))


@njit(cache=True, nogil=True)
def _eval_categorical(data, rules, ws, j, samples, start, end):
    """Multiway split on a categorical feature: one child per present code.

    Returns (proxy, n_children, split_information); proxy is -inf when the
    split is invalid (fewer than two children, or a child below the leaf
    minimums).
    """
    X, y_cls, y_reg, w = data.X, data.y_cls, data.y_reg, data.w
    n_slots = data.cat_n[j]
    crit = rules.crit
    min_samples_leaf, min_weight_leaf = rules.min_samples_leaf, rules.min_weight_leaf
    tmp, slot_count, value = ws.tmp, ws.slot_count, ws.counts
    ybuf, wbuf, child_w = ws.ybuf, ws.wbuf, ws.child_w
    n_children = _counting_sort(X, j, n_slots, samples, start, end, tmp, slot_count)
    if n_children < 2:
        return NEG_INF, n_children, 0.0
    proxy = 0.0
    pos = start
    c = 0
    for s in range(n_slots):
        cnt = slot_count[s]
        if cnt == 0:
            continue
        if cnt < min_samples_leaf:
            return NEG_INF, n_children, 0.0
        wc, imp = node_stats(tmp, pos, pos + cnt, y_cls, y_reg, w, crit, value,
                             ybuf, wbuf)
        if wc < min_weight_leaf or wc <= 0.0:
            return NEG_INF, n_children, 0.0
        if crit == POISSON and value[0] * wc <= EPSILON:
            return NEG_INF, n_children, 0.0  # a child of zero mean
        child_w[c] = wc
        c += 1
        proxy -= wc * imp
        pos += cnt
    wn = 0.0
    for k in range(n_children):
        wn += child_w[k]
    iv = 0.0
    for k in range(n_children):
        iv -= _xlogx(child_w[k] / wn)
    return proxy, n_children, iv


@njit(cache=True, nogil=True)
def _counting_sort(X, j, n_slots, samples, start, end, tmp, slot_count):
    """Group ``samples[start:end]`` by category code into ``tmp[start:end]``.

    Code ``n_slots - 1`` is the missing-value slot (NaN). Returns the number of
    non-empty codes; ``slot_count`` gets the per-code counts.
    """
    slot_count[:n_slots] = 0
    for p in range(start, end):
        x = X[samples[p], j]
        k = n_slots - 1 if x != x else int(x)
        slot_count[k] += 1
    n_children = 0
    offset = start
    for s in range(n_slots):
        c = slot_count[s]
        if c > 0:
            n_children += 1
        slot_count[s] = offset  # turn counts into write positions
        offset += c
    for p in range(start, end):
        i = samples[p]
        x = X[i, j]
        k = n_slots - 1 if x != x else int(x)
        tmp[slot_count[k]] = i
        slot_count[k] += 1
    prev = start
    for s in range(n_slots):  # back to counts
        c = slot_count[s] - prev
        prev = slot_count[s]
        slot_count[s] = c
    return n_children


# Present codes up to which CART's grouping of a multiclass feature (or one
# where the order by mean is not exact) tries every grouping: 2^(k-1) - 1 of
# them, 511 at k = 10, each summed in O(k * n_classes).
MAX_EXHAUSTIVE_CODES = 10


@njit(cache=True, nogil=True)
def _group_children_sum(stats, left, total, classify, crit, wl, wr):
    """``sum_c W_c * impurity_c`` of the two groups, from the left group's
    sums ``left`` and the node's ``total`` (rows as :func:`_eval_grouping`'s);
    -1.0 when a Poisson group has a zero mean (refused)."""
    if classify:
        right = total - left
        return (wl * _class_impurity(left, wl, crit)
                + wr * _class_impurity(right, wr, crit))
    sl = left[1]
    sr = total[1] - sl
    if crit == SQUARED_ERROR:
        return (max(left[2] - sl * sl / wl, 0.0)
                + max(total[2] - left[2] - sr * sr / wr, 0.0))
    # Poisson: sum w y ln y - S ln(S / W) per group (half deviance times W).
    if sl <= EPSILON * wl or sr <= EPSILON * wr:
        return -1.0
    return (max(left[2] - sl * np.log(sl / wl), 0.0)
            + max(total[2] - left[2] - sr * np.log(sr / wr), 0.0))


@njit(cache=True, nogil=True)
def _grouping_candidate(stats, left, total, classify, crit, nl, nr, wl, wr, rules):
    """Proxy (``-sum_c W_c impurity_c``) of a grouping of ``nl`` samples of
    weight ``wl`` left (``left``: their per-code sums added up) and ``nr``,
    ``wr`` right; -inf when a child breaks the leaf limits of ``rules`` or
    has no weight, or the sums' round-off makes the impurity negative."""
    if (nl < rules.min_samples_leaf or nr < rules.min_samples_leaf
            or wl < rules.min_weight_leaf or wr < rules.min_weight_leaf
            or wl <= 0.0 or wr <= 0.0):
        return NEG_INF
    s = _group_children_sum(stats, left, total, classify, crit, wl, wr)
    if s < 0.0:
        return NEG_INF
    return -s


@njit(cache=True, nogil=True)
def _eval_grouping(data, rules, ws, j, samples, start, end):
    """CART's binary split of a categorical feature: two groups of codes.

    Notes B §8.7 (003 "multi-valued attributes"): the codes present at the
    node (NaN is one more code) are split into two groups, and the grouping
    of least weighted impurity wins. When the impurity of a group is
    ``W phi(mean)`` with ``phi`` concave in the group's mean (two classes:
    the proportion of class 1, under Gini or entropy; squared error;
    Poisson), the best grouping is a prefix of the codes sorted by that
    mean (Breiman et al. 1984, Thm 4.5; Fisher 1958), so k - 1 prefixes are
    scanned. Otherwise (more classes) all 2^(k-1) - 1 groupings are tried
    up to :data:`MAX_EXHAUSTIVE_CODES` present codes, and beyond that the
    prefixes of the order by the proportion of the node's most frequent
    class (a heuristic). Writes ``ws.group_side[j]`` (1: left).

    Returns (proxy, n_codes_present, split_information, n_left, w_left);
    proxy is ``-sum_c W_c impurity_c``, -inf when no grouping is valid.
    """
    X, y_cls, y_reg, w = data.X, data.y_cls, data.y_reg, data.w
    k = data.cat_n[j]
    n_codes = k + 1  # NaN is code k
    crit = rules.crit
    classify = crit <= GAIN_RATIO
    n_val = rules.n_classes if classify else 3
    st = ws.code_stats
    cnt = ws.slot_count
    side = ws.group_side[j]
    for c in range(n_codes):
        cnt[c] = 0
        side[c] = 0
        for v in range(n_val):
            st[c, v] = 0.0
    for p in range(start, end):
        i = samples[p]
        x = X[i, j]
        c = k if x != x else int(x)
        cnt[c] += 1
        wi = w[i]
        if classify:
            st[c, y_cls[i]] += wi
        else:
            y = y_reg[i]
            st[c, 0] += wi
            st[c, 1] += wi * y
            st[c, 2] += wi * y * y if crit == SQUARED_ERROR else wi * _xlny(y)
    n_pres = 0
    for c in range(n_codes):
        if cnt[c] > 0:
            n_pres += 1
    if n_pres < 2:
        return NEG_INF, n_pres, 0.0, 0, 0.0
    codes = np.empty(n_pres, dtype=np.intp)
    wc = np.zeros(n_pres)
    q = 0
    for c in range(n_codes):
        if cnt[c] > 0:
            codes[q] = c
            for v in range(n_val):
                wc[q] += st[c, v] if classify else 0.0
            if not classify:
                wc[q] = st[c, 0]
            q += 1
    total = np.zeros(n_val)
    for q in range(n_pres):
        for v in range(n_val):
            total[v] += st[codes[q], v]
    wn = 0.0
    for q in range(n_pres):
        wn += wc[q]
    m = end - start
    left = np.zeros(n_val)
    best = NEG_INF
    best_nl = 0
    best_wl = 0.0
    exhaustive = classify and n_val > 2 and n_pres <= MAX_EXHAUSTIVE_CODES
    if exhaustive:
        # codes[0] stays left, so each grouping is seen once.
        best_mask = 0
        for mask in range((1 << (n_pres - 1)) - 1):
            left[:] = st[codes[0], :n_val]
            nl = cnt[codes[0]]
            wl = wc[0]
            for b in range(n_pres - 1):
                if (mask >> b) & 1:
                    c = codes[b + 1]
                    left += st[c, :n_val]
                    nl += cnt[c]
                    wl += wc[b + 1]
            proxy = _grouping_candidate(st, left, total, classify, crit, nl, m - nl, wl,
                                        wn - wl, rules)
            if proxy > best:
                best = proxy
                best_mask = mask
                best_nl = nl
                best_wl = wl
        if best == NEG_INF:
            return NEG_INF, n_pres, 0.0, 0, 0.0
        side[codes[0]] = 1
        for b in range(n_pres - 1):
            if (best_mask >> b) & 1:
                side[codes[b + 1]] = 1
    else:
        # The order by mean (class 1's proportion; or the node's most
        # frequent class's, a heuristic, for more classes).
        key = np.empty(n_pres)
        ref = 1
        if classify and n_val > 2:
            for v in range(n_val):
                if total[v] > total[ref]:
                    ref = v
        for q in range(n_pres):
            c = codes[q]
            if classify:
                key[q] = st[c, ref] / wc[q] if wc[q] > 0.0 else 0.0
            else:
                key[q] = st[c, 1] / wc[q] if wc[q] > 0.0 else 0.0
        order = np.argsort(key, kind="mergesort")
        best_cut = -1
        nl = 0
        wl = 0.0
        for q in range(n_pres - 1):
            c = codes[order[q]]
            left += st[c, :n_val]
            nl += cnt[c]
            wl += wc[order[q]]
            proxy = _grouping_candidate(st, left, total, classify, crit, nl, m - nl, wl,
                                        wn - wl, rules)
            if proxy > best:
                best = proxy
                best_cut = q
                best_nl = nl
                best_wl = wl
        if best == NEG_INF:
            return NEG_INF, n_pres, 0.0, 0, 0.0
        for q in range(best_cut + 1):
            side[codes[order[q]]] = 1
    return best, n_pres, _split_info(best_wl, wn - best_wl), best_nl, best_wl


@njit(nogil=True, inline="always")
def _entry_value(data, pos, q):
    """The value of entry ``q`` of a view of :func:`~skml.tree._tree.sparse_views`'
    arrays: ``data[pos[q]]``, or ``data[q]`` when ``pos`` is empty (the values
    are stored in that view's order)."""
    if pos.shape[0] == 0:
        return data[q]
    return data[pos[q]]


@njit(cache=True, nogil=True)
def sparse_check(ptr, idx, data, n_minor):
    """Whether a compressed sparse matrix (``ptr``, ``idx``, ``data``: CSR, or
    CSC, with ``n_minor`` columns, or rows) stores no zero and no entry twice,
    and whether each row (column) lists its entries in increasing order.
    Returns (clean, in_order); O(entries) time, ``n_minor`` integers."""
    seen = np.full(n_minor, -1, dtype=np.int64)
    clean = True
    in_order = True
    for i in range(ptr.shape[0] - 1):
        for q in range(ptr[i], ptr[i + 1]):
            j = idx[q]
            if data[q] == 0.0 or seen[j] == i:
                clean = False
            seen[j] = i
            if q > ptr[i] and idx[q - 1] >= j:
                in_order = False
    return clean, in_order


@njit(cache=True, nogil=True)
def sparse_transpose(ptr, idx, n_out, entries, positions=True):
    """The other view of a compressed sparse matrix's entries (the columns of
    a CSR, the rows of a CSC), without moving its values.

    Returns ``(out_ptr, out_idx, out_pos)``: slice ``t`` of the other view,
    ``out_ptr[t]:out_ptr[t + 1]``, lists the entries of index ``t``, in
    increasing order of the slice ``i`` that holds them (``out_idx``) with
    their positions ``q`` in ``idx`` and in the values (``out_pos``): two
    integers per entry. With ``entries`` False, only the counts
    (``out_ptr``; the other two empty); with ``positions`` False, no
    ``out_pos`` (empty).
    """
    nnz = idx.shape[0]
    out_ptr = np.zeros(n_out + 1, dtype=ptr.dtype)
    for q in range(nnz):
        out_ptr[idx[q] + 1] += 1
    for t in range(n_out):
        out_ptr[t + 1] += out_ptr[t]
    n_fill = nnz if entries else 0
    out_idx = np.empty(n_fill, dtype=idx.dtype)
    out_pos = np.empty(n_fill if positions else 0, dtype=idx.dtype)
    if entries:
        fill = out_ptr[:-1].copy()
        for i in range(ptr.shape[0] - 1):
            for q in range(ptr[i], ptr[i + 1]):
                t = idx[q]
                out_idx[fill[t]] = i
                if positions:
                    out_pos[fill[t]] = q
                fill[t] += 1
    return out_ptr, out_idx, out_pos


@njit(cache=True, nogil=True)
def sparse_column_top(ptr, idx, data, n_features, by_rows):
    """The largest absolute value of each column of a CSR (``by_rows``) or
    CSC matrix, 0 for an empty one; no copy of the values."""
    top = np.zeros(n_features)
    for i in range(ptr.shape[0] - 1):
        for q in range(ptr[i], ptr[i + 1]):
            j = idx[q] if by_rows else i
            v = abs(data[q])
            if v > top[j]:
                top[j] = v
    return top


# A CSR row of up to this many stored values is searched entry by entry for
# a column (it may be out of order); a longer one by bisection (it must be in
# order, see column_positions_needed).
SHORT_ROW = 128


def column_positions_needed(row_ptr, in_order):
    """Whether the column view of a CSR must keep each entry's position in
    the values (``col_pos``): only when its rows are out of order and one
    is longer than :data:`SHORT_ROW` (see :func:`_column_entry_value`)."""
    longest = int(np.diff(row_ptr).max()) if row_ptr.shape[0] > 1 else 0
    return not in_order and longest > SHORT_ROW


@njit(cache=True, nogil=True, inline="always")
def _column_entry_value(csc, q, i, j):
    """The value of the column view's entry ``q``, at row ``i`` of column
    ``j``. A CSC X's values are in the column view's order (``data[q]``).
    A CSR X's are found in row ``i`` of the row view: scanned when the row
    is short (up to :data:`SHORT_ROW` values, in any order), else bisected
    (the row is in order, or the view keeps each entry's position,
    ``col_pos``). Not storing the positions saves 4 bytes per stored value,
    a third of the views' memory (9.3 of a 20-tree forest's 66 MiB on 40k
    x 100k text features), for ~10% more fit time there."""
    data, col_pos, row_ptr, row_cols, row_pos = csc[0], csc[3], csc[4], csc[5], csc[6]
    if col_pos.shape[0] > 0:
        return data[col_pos[q]]
    if row_pos.shape[0] > 0:
        return data[q]
    a = row_ptr[i]
    b = row_ptr[i + 1]
    if b - a <= SHORT_ROW:
        while row_cols[a] != j:
            a += 1
        return data[a]
    while a < b:
        mid = (a + b) >> 1
        if row_cols[mid] < j:
            a = mid + 1
        else:
            b = mid
    return data[a]


@njit(cache=True, nogil=True)
def _nonzeros_in_node(csc, j, samples, start, end, node_pos, vals, ids):
    """The stored values of column ``j`` among the node's samples.

    Writes them to ``vals[:k]`` and their samples to ``ids[:k]``; returns
    ``k``. ``node_pos[i]`` is sample ``i``'s position in ``samples`` for the
    node's samples (stale for others, hence the check). Scans the column's
    entries, or for a node much smaller than the column binary-searches each
    of its samples, whichever is cheaper (scikit-learn's choice). Needs the
    column view (:func:`~skml.tree._tree.sparse_views`).
    """
    indices, indptr = csc[1], csc[2]
    lo = indptr[j]
    hi = indptr[j + 1]
    m = end - start
    k = 0
    if hi - lo <= 8 * m:
        for q in range(lo, hi):
            i = indices[q]
            p = node_pos[i]
            if start <= p < end and samples[p] == i:
                vals[k] = _column_entry_value(csc, q, i, j)
                ids[k] = i
                k += 1
        return k
    for p in range(start, end):
        i = samples[p]
        a = lo
        b = hi
        while a < b:
            mid = (a + b) // 2
            if indices[mid] < i:
                a = mid + 1
            else:
                b = mid
        if a < hi and indices[a] == i:
            vals[k] = _column_entry_value(csc, a, i, j)
            ids[k] = i
            k += 1
    return k


@njit(cache=True, nogil=True)
def sparse_rows(csc, n_features, rules):
    """The row structure of a sparse X's entries, for :func:`find_split`
    with the growth rules ``rules`` (a ``GrowthRules``).

    Returns the tuple ``(row_ptr, row_cols, stamp, row_pos, bucket_count,
    bucket_end, node_features, bucket_vals, bucket_ids, results)``: the row
    view of :func:`~skml.tree._tree.sparse_views`' arrays ``csc`` (the same
    arrays, not copies: the columns of row ``i``'s stored values are
    ``row_cols[row_ptr[i]:row_ptr[i + 1]]``, their values ``csc[0]`` at
    ``row_pos``, or at the same positions when ``row_pos`` is empty);
    ``stamp`` (one slot per feature and a counter) marks the features with a
    stored value in the node being split (:func:`_stamp_node_features`); the
    rest is :func:`_sparse_node_splits`' workspace: per feature an entry
    count and a bucket end (-1 outside the batch being filled), the node's
    features, the buckets of the node's entries grouped by feature (room for
    an eighth of the entries and at least the longest column: the few larger
    nodes near the root fill them in batches of features) and each
    feature's split in the node (:data:`SPLIT` records, their ``feature``
    the status of :func:`_sparse_split`). The workspace is empty unless
    every node searches every feature by :func:`_sparse_split` (best
    splitter, ``max_features`` all of them, a criterion up to squared
    error). Empty arrays for a dense X (empty ``csc``).
    """
    indptr = csc[2]
    sparse = indptr.shape[0] > 0
    nf = n_features if sparse else 0
    whole = (sparse and not rules.random_split and rules.crit <= SQUARED_ERROR
             and rules.max_features >= n_features)
    nw = nf if whole else 0
    cap = 0
    if whole:
        longest = 0
        for j in range(nf):
            longest = max(longest, indptr[j + 1] - indptr[j])
        cap = max(csc[5].shape[0] // 8, longest) + 64
    return (csc[4], csc[5], np.zeros(nf + 1 if sparse else 0, dtype=np.int64), csc[6],
            np.zeros(nw, dtype=np.intp), np.full(nw, -1, dtype=np.intp),
            np.zeros(nw, dtype=np.intp), np.zeros(cap), np.zeros(cap, dtype=np.intp),
            np.zeros(nw, dtype=SPLIT))


@njit(cache=True, nogil=True)
def _stamp_node_features(rows, samples, start, end):
    """Stamp the features with a stored value among ``samples[start:end]``;
    returns the node's stamp (see :func:`sparse_rows`)."""
    row_ptr, row_cols, stamp = rows[0], rows[1], rows[2]
    n_features = stamp.shape[0] - 1
    stamp[n_features] += 1
    node = stamp[n_features]
    for p in range(start, end):
        i = samples[p]
        for q in range(row_ptr[i], row_ptr[i + 1]):
            stamp[row_cols[q]] = node
    return node


@njit(cache=True, nogil=True)
def _gather_sparse(csc, j, samples, start, end, node_pos, vals, ids):
    """Column ``j`` at the node's samples in their order (zeros included),
    as the dense gather gives it; returns the count."""
    indices, indptr = csc[1], csc[2]
    m = end - start
    for p in range(start, end):
        vals[p - start] = 0.0
        ids[p - start] = samples[p]
    for q in range(indptr[j], indptr[j + 1]):
        i = indices[q]
        p = node_pos[i]
        if start <= p < end and samples[p] == i:
            vals[p - start] = _column_entry_value(csc, q, i, j)
    return m


@njit(cache=True, nogil=True, inline="always")
def _sparse_proxy(crit, cl, ctot, wl, wr, sl, stot):
    """:func:`_scan_sorted`'s proxy of a candidate from its left sums."""
    if crit == GINI:
        sl2 = 0.0
        sr2 = 0.0
        for k in range(cl.shape[0]):
            a = cl[k]
            b = ctot[k] - a
            sl2 += a * a
            sr2 += b * b
        return sl2 / wl + sr2 / wr
    if crit <= GAIN_RATIO:
        proxy = -_xlogx(wl) - _xlogx(wr)
        for k in range(cl.shape[0]):
            a = cl[k]
            proxy += _xlogx(a) + _xlogx(ctot[k] - a)
        return proxy
    sr = stot - sl
    return sl * sl / wl + sr * sr / wr


@njit(cache=True, nogil=True)
def _fill_buckets(rows, data, indptr, m, by_id, order, start, end):
    """Append the entries of the rows ``order[start:end]`` to their
    features' buckets (``rows``: :func:`sparse_rows`' tuple; its
    ``bucket_end``: each bucket's next slot, -1 for a feature outside the
    batch), for the features whose column :func:`_nonzeros_in_node` scans in
    a node of ``m`` samples (``by_id`` 1), for the others (0) or for all
    (-1)."""
    row_ptr, row_cols, row_pos, bucket_end = rows[0], rows[1], rows[3], rows[5]
    bucket_vals, bucket_ids = rows[7], rows[8]
    for p in range(start, end):
        i = order[p]
        for q in range(row_ptr[i], row_ptr[i + 1]):
            f = row_cols[q]
            b = bucket_end[f]
            if b < 0:
                continue
            if by_id >= 0 and (indptr[f + 1] - indptr[f] <= 8 * m) != (by_id == 1):
                continue
            bucket_vals[b] = _entry_value(data, row_pos, q)
            bucket_ids[b] = i
            bucket_end[f] = b + 1


@njit(cache=True, nogil=True)
def _sparse_node_splits(rows, csc, samples, start, end, node_pos, bufs, rules, wn, stot):
    """Every stamped feature's best threshold in the node (best splitter),
    into ``results`` of the row structure ``rows`` (:func:`sparse_rows`),
    which then answer for :func:`_sparse_split` in the node's search.

    The node's entries are taken from its rows and grouped by feature (a
    counting sort), so each feature's stored values in the node cost O(k)
    for its ``k`` of them, without a pass over its column or a search per
    sample, and the node costs O(its entries) before the sorts; no column
    view is read (:func:`~skml.tree._tree.sparse_views` makes none for this
    search). Each bucket lists its values in the order
    :func:`_nonzeros_in_node` would give them (by sample for a column it
    scans, in the node's order for one it searches: one pass when the two
    agree, the node's samples in increasing order, as the stable partitions
    keep the root's), so the sorts, the sums and the tree are the same bit
    for bit. A node with more entries than the buckets hold (near the root)
    fills them in batches of features, a pass over its rows per batch.
    """
    row_ptr, row_cols = rows[0], rows[1]
    count, bucket_end, features = rows[4], rows[5], rows[6]
    bucket_vals, bucket_ids, results = rows[7], rows[8], rows[9]
    vals, ids = bufs.vals, bufs.ids
    data, indptr = csc[0], csc[2]
    m = end - start
    n_f = 0
    for p in range(start, end):
        i = samples[p]
        for q in range(row_ptr[i], row_ptr[i + 1]):
            f = row_cols[q]
            if count[f] == 0:
                features[n_f] = f
                n_f += 1
            count[f] += 1
    in_order = True
    for p in range(start + 1, end):
        if samples[p - 1] > samples[p]:
            in_order = False
            break
    order = samples[start:end] if in_order else np.sort(samples[start:end])
    cap = bucket_vals.shape[0]
    t0 = 0
    while t0 < n_f:
        # The next features whose entries fit (at least one: the buckets
        # hold the longest column).
        pos = 0
        t1 = t0
        while t1 < n_f and pos + count[features[t1]] <= cap:
            bucket_end[features[t1]] = pos
            pos += count[features[t1]]
            t1 += 1
        if in_order:
            _fill_buckets(rows, data, indptr, m, -1, samples, start, end)
        else:
            _fill_buckets(rows, data, indptr, m, 0, samples, start, end)
            _fill_buckets(rows, data, indptr, m, 1, order, 0, m)
        for t in range(t0, t1):
            f = features[t]
            k = count[f]
            b = bucket_end[f] - k
            for q in range(k):
                vals[q] = bucket_vals[b + q]
                ids[q] = bucket_ids[b + q]
            count[f] = 0
            bucket_end[f] = -1
            status, proxy, thr, ml, n_left, iv = _sparse_scan(k, m, bufs, rules, wn, stot)
            # (a SPLIT record whose feature field holds the status)
            set_split(results, f, status, proxy, thr, ml, n_left, 0.0, iv)
        t0 = t1


@njit(cache=True, nogil=True)
def _sparse_node_search(data, rules, ws, samples, start, end, wn, stot):
    """Before a node's feature loop: when every feature is searched (best
    splitter, ``max_features`` all of them, a criterion of
    :func:`_sparse_split`: :func:`sparse_rows` then made room for the
    results), evaluate all its stamped features at once
    (:func:`_sparse_node_splits`) and return True; the loop then reads
    their results (:func:`sparse_result`) in its order: the same splits."""
    if data.rows[9].shape[0] == 0:
        return False
    _sparse_node_splits(data.rows, data.csc, samples, start, end, ws.node_pos,
                        _sparse_scan_buffers(data, ws), rules, wn, stot)
    return True


@njit(nogil=True, inline="always")
def _sparse_scan_buffers(data, ws):
    scan = ws.scan
    return SparseScan(data.y_cls, data.y_reg, data.w, ws.rng, scan.cl, scan.ctot, scan.cmiss,
                      ws.sort_stack, ws.ybuf, ws.tmp)


@njit(nogil=True, inline="always")
def sparse_result(results, j):
    """:func:`_sparse_split`'s answer for feature ``j`` from the node's
    ``results`` (:func:`_sparse_node_search`)."""
    r = results[j]
    return (int(r.feature), float(r.proxy), float(r.threshold), int(r.missing_left),
            int(r.n_left), float(r.split_info))


@njit(cache=True, nogil=True)
def _sparse_split(data, rules, ws, j, samples, start, end, wn, stot):
    """Best (or random) threshold of the sparse column ``j`` in a node.

    Only the node's stored values are gathered (from the column) and
    sorted; the samples without one are a single block of zeros between the
    negative and the positive values (scikit-learn's sparse splitter), see
    :func:`_sparse_scan`. A node that searches every feature takes them all
    at once instead (:func:`_sparse_node_search`).

    Returns (status, proxy, threshold, missing_left, n_left, split_info):
    status 0 when the feature is constant in the node, 1 when no threshold
    is valid, 2 for a split.
    """
    k = _nonzeros_in_node(data.csc, j, samples, start, end, ws.node_pos, ws.ybuf, ws.tmp)
    return _sparse_scan(k, end - start, _sparse_scan_buffers(data, ws), rules, wn, stot)


# _insertion_sort2 inlined: sort2's own way below 17 items, the common case
# of a sparse feature in a node (a call costs more than sorting three).
_insertion_sort2_inline = njit(nogil=True, inline="always")(_insertion_sort2.py_func)


@njit(cache=True, nogil=True, inline="always")
def _sparse_scan(k, m, bufs, rules, wn, stot):
    """The threshold scan of a sparse feature in a node of ``m`` samples,
    from its ``k`` stored values there, ``bufs.vals[:k]`` at the samples
    ``bufs.ids[:k]`` (``bufs``: a :data:`SparseScan`; ``rules``: the
    :data:`SplitRules`).

    The stored values are sorted; the samples without one are a single
    block of zeros between the negative and the positive values
    (scikit-learn's sparse splitter), whose sums are the node's totals
    minus the stored values' sums, so a feature costs O(k log k) instead
    of O(m log m). Candidates, checks and proxies are those of
    :func:`_scan_sorted` over the node's sorted values, zeros included (no
    missing values: sparse input has none). Returns what
    :func:`_sparse_split` does.
    """
    y_cls, y_reg, w, rng = bufs.y_cls, bufs.y_reg, bufs.w, bufs.rng
    cl, ctot, czero, sort_stack = bufs.cl, bufs.ctot, bufs.czero, bufs.sort_stack
    vals, ids = bufs.vals, bufs.ids
    crit, random_split = rules.crit, rules.random_split
    min_samples_leaf, min_weight_leaf = rules.min_samples_leaf, rules.min_weight_leaf
    n_zero = m - k
    if k > 16:
        sort2(vals, ids, k, sort_stack)
    else:
        _insertion_sort2_inline(vals, ids, 0, k)
    lo = vals[0] if k > 0 else 0.0
    hi = vals[k - 1] if k > 0 else 0.0
    if n_zero > 0:
        lo = min(lo, 0.0)
        hi = max(hi, 0.0)
    if hi <= lo + FEATURE_THRESHOLD:
        return 0, NEG_INF, 0.0, 0, 0, 0.0
    # The zero block's sums: the node's minus the stored values'.
    classify = crit <= GAIN_RATIO
    wz = wn
    sz = stot
    if classify:
        for c in range(ctot.shape[0]):
            czero[c] = ctot[c]
    for q in range(k):
        i = ids[q]
        wz -= w[i]
        if classify:
            czero[y_cls[i]] -= w[i]
        else:
            sz -= w[i] * y_reg[i]
    n_neg = 0
    while n_neg < k and vals[n_neg] < 0.0:
        n_neg += 1
    n_items = k + (1 if n_zero > 0 else 0)
    wl = 0.0
    sl = 0.0
    if classify:
        cl[:] = 0.0
    best = NEG_INF
    best_pos = -1
    best_lo = 0.0
    best_hi = 0.0
    best_wl = 0.0
    if random_split:
        thr = lo + rng_random(rng) * (hi - lo)
        if thr == hi:
            thr = lo
    else:
        thr = NEG_INF
    pos = 0
    for t in range(n_items):
        # Item t: a stored negative value, the zero block, a stored positive one.
        if t < n_neg or n_zero == 0:
            q = t
        elif t == n_neg:
            q = -1
        else:
            q = t - 1
        if q < 0:
            v = 0.0
            wl += wz
            sl += sz
            if classify:
                for c in range(ctot.shape[0]):
                    cl[c] += czero[c]
            pos += n_zero
        else:
            v = vals[q]
            i = ids[q]
            wl += w[i]
            if classify:
                cl[y_cls[i]] += w[i]
            else:
                sl += w[i] * y_reg[i]
            pos += 1
        if t == n_items - 1:
            break
        if n_zero > 0 and t + 1 == n_neg:
            v_next = 0.0
        else:
            v_next = vals[t + 1 if (t + 1 < n_neg or n_zero == 0) else t]
        if random_split:
            # One candidate: every value <= thr goes left.
            if v_next <= thr:
                continue
        elif v_next <= v + FEATURE_THRESHOLD:
            continue
        if pos < min_samples_leaf or m - pos < min_samples_leaf:
            if random_split:
                break
            continue
        wr = wn - wl
        if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
            if random_split:
                break
            continue
        proxy = _sparse_proxy(crit, cl, ctot, wl, wr, sl, stot)
        if proxy > best:
            best = proxy
            best_pos = pos
            best_lo = v
            best_hi = v_next
            best_wl = wl
        if random_split:
            break
    if best_pos < 0:
        return 1, NEG_INF, 0.0, 0, 0, 0.0
    if not random_split:
        thr = 0.5 * (best_lo + best_hi)
        if thr == best_hi or thr == np.inf or thr == -np.inf:
            thr = best_lo
    ml = 1 if best_pos > m - best_pos else 0
    iv = 0.0
    if crit == GAIN_RATIO and 0.0 < best_wl < wn:
        iv = _split_info(best_wl, wn - best_wl)
    return 2, best, thr, ml, best_pos, iv


@njit(cache=True, nogil=True)
def partition_sparse(csc, samples, start, end, j, thr, node_pos, side, vals, ids, tmp):
    """:func:`partition_numeric` for a sparse column (no missing values);
    ``node_pos``, ``side``, ``vals``, ``ids`` and ``tmp`` are the workspace's
    buffers of those names (``vals``: ``ybuf``, ``ids``: ``sidx``). Reads
    column ``j`` from the column view, or without one (a decision tree's
    whole-node search) each sample's value from its row."""
    zero_left = np.uint8(0.0 <= thr)
    if csc[1].shape[0] == csc[5].shape[0]:  # a column view
        for p in range(start, end):
            node_pos[samples[p]] = p
            side[samples[p]] = zero_left
        k = _nonzeros_in_node(csc, j, samples, start, end, node_pos, vals, ids)
        for q in range(k):
            side[ids[q]] = np.uint8(vals[q] <= thr)
    else:
        data, row_ptr, row_cols, row_pos = csc[0], csc[4], csc[5], csc[6]
        for p in range(start, end):
            i = samples[p]
            here = zero_left
            for q in range(row_ptr[i], row_ptr[i + 1]):
                if row_cols[q] == j:
                    here = np.uint8(_entry_value(data, row_pos, q) <= thr)
                    break
            side[i] = here
    nl = 0
    for p in range(start, end):
        i = samples[p]
        if side[i]:
            samples[start + nl] = i
            nl += 1
        else:
            tmp[p - start - nl] = i
    for q in range(end - start - nl):
        samples[start + nl + q] = tmp[q]
    return start + nl


@njit(cache=True, nogil=True)
def node_ranks(samples, start, end, y, w, ybuf, rank, cum_w, cum_wy, ysort):
    """Ranks of the node's targets ``y`` (stable order), for the absolute
    error's Fenwick-tree median scans: ``rank[i]`` of each sample, the sorted
    targets ``ysort`` and the prefix sums ``cum_w``, ``cum_wy`` over them."""
    m = end - start
    for p in range(start, end):
        ybuf[p - start] = y[samples[p]]
    order = np.argsort(ybuf[:m], kind="mergesort")
    cum_w[0] = 0.0
    cum_wy[0] = 0.0
    for k in range(m):
        i = samples[start + order[k]]
        rank[i] = k
        ysort[k] = y[i]
        cum_w[k + 1] = cum_w[k] + w[i]
        cum_wy[k + 1] = cum_wy[k] + w[i] * y[i]


@njit(cache=True, nogil=True, inline="always")
def gather_feature(X, csc, presorted, j, samples, start, end, node_pos, vals, ids,
                   use_presort):
    """Feature ``j`` at the node's samples (see :func:`gather_column`): in
    presorted order with ``use_presort``, expanded from the CSC columns for a
    sparse X (``node_pos`` not empty; zeros included, no missing values).
    Returns (n_nm, n_miss). The caller takes the arrays out of its tuples
    once per node: each reach into a tuple counts a reference, and per
    feature that cost small nodes ~15% of the search."""
    if node_pos.shape[0] > 0:
        return _gather_sparse(csc, j, samples, start, end, node_pos, vals, ids), 0
    if use_presort:  # already in order: a gather replaces the sort
        return gather_column(X, j, presorted, j, start, end, vals, ids)
    rows = samples.reshape((1, samples.shape[0]))
    return gather_column(X, j, rows, 0, start, end, vals, ids)


@njit(cache=True, nogil=True)
def random_threshold(vals, rng, n_nm):
    """One random threshold of a feature's non-missing values ``vals[:n_nm]``
    (extremely randomised trees): drawn uniformly between their smallest
    and largest (one pass, no sort). Returns (threshold, smallest, largest);
    the threshold is NaN for a constant feature (no draw)."""
    lo = np.inf
    hi = -np.inf
    for q in range(n_nm):
        lo = min(lo, vals[q])
        hi = max(hi, vals[q])
    if hi <= lo + FEATURE_THRESHOLD:
        return np.nan, lo, hi
    thr = lo + rng_random(rng) * (hi - lo)
    if thr == hi:
        thr = lo
    return thr, lo, hi


@njit(cache=True, nogil=True)
def random_plateaus(vals, ids, Xf, sidx, rng, n_nm, m):
    """One random split of a feature gathered in ``vals``, ``ids``
    (:func:`gather_column`: ``n_nm`` values, then the ``m - n_nm`` missing
    samples), with the node's samples regrouped into ``sidx[:m]`` as two
    plateaus, the left child's then the right one's, marked 0 and 1 in
    ``Xf[:m]``: a sorted scan of all ``m`` samples as non-missing
    (``n_miss`` 0) sees the one candidate, whose missing samples are where
    the draw put them.

    scikit-learn's random splitter: the threshold is drawn between the
    non-missing extremes (:func:`random_threshold`), and where the feature
    has missing values in the node a fair coin, drawn after it, sends them
    all left or all right; "every non-missing value left, missing right"
    is not a draw. A feature whose non-missing values are constant but with
    missing values in the node is not constant: its split is non-missing
    left (threshold their largest value), missing right (scikit-learn draws
    the coin there too and drops the split of nothing right it gives half
    of the time). Without missing values the draws and plateaus are those of
    the search without missing-value support, bit for bit.

    Returns (threshold, n_left, missing_left): ``n_left`` counts the left
    plateau (missing samples included), -1 for a constant feature (all
    missing, or constant without missing values; no draw)."""
    n_miss = m - n_nm
    thr, lo, hi = random_threshold(vals, rng, n_nm)
    ml = False
    if thr != thr:
        if n_miss == 0:
            return 0.0, -1, False
        thr = hi  # constant up to FEATURE_THRESHOLD: every value left
    elif n_miss > 0:
        ml = rng_randint(rng, 2) == 1
    nl = 0
    if ml:
        for q in range(n_nm, m):
            sidx[nl] = ids[q]
            Xf[nl] = 0.0
            nl += 1
    for q in range(n_nm):
        if vals[q] <= thr:
            sidx[nl] = ids[q]
            Xf[nl] = 0.0
            nl += 1
    nr = nl
    for q in range(n_nm):
        if vals[q] > thr:
            sidx[nr] = ids[q]
            Xf[nr] = 1.0
            nr += 1
    if not ml:
        for q in range(n_nm, m):
            sidx[nr] = ids[q]
            Xf[nr] = 1.0
            nr += 1
    return thr, nl, ml


@njit(cache=True, nogil=True)
def midpoint_threshold(Xf, n_left, n_nm):
    """Threshold between the sorted values ``Xf[n_left - 1]`` and
    ``Xf[n_left]`` (their midpoint, or the lower one where the midpoint
    rounds onto the upper one or overflows); inf for "every non-missing
    value left"."""
    if n_left == n_nm:
        return np.inf
    thr = 0.5 * (Xf[n_left - 1] + Xf[n_left])
    if thr == Xf[n_left] or thr == np.inf or thr == -np.inf:
        thr = Xf[n_left - 1]
    return thr


@njit(cache=True, nogil=True, inline="always")
def missing_side(ml_b, n_miss, n_left, m):
    """``missing_left`` of a split: the side the scan chose for the missing
    values, or without any in the node the larger child (for unseen ones)."""
    if n_miss == 0:
        return 1 if n_left > m - n_left else 0
    return 1 if ml_b else 0


@njit(cache=True, nogil=True)
def set_split(out, k, feature, proxy, threshold, missing_left, n_left, gain, split_info):
    """Write a candidate split into the :data:`SPLIT` record ``out[k]``."""
    c = out[k]
    c.feature = feature
    c.proxy = proxy
    c.threshold = threshold
    c.missing_left = missing_left
    c.n_left = n_left
    c.gain = gain
    c.split_info = split_info


@njit(cache=True, nogil=True)
def presort_if_chosen(X, samples, cat_n, rules, is_sparse):
    """``(use_presort, presorted)``: whether the exact search keeps the
    numeric features presorted (:func:`presort_features` of the root's
    ``samples``; else an empty placeholder). Never for a sparse X, random
    thresholds (``rules.random_split``) or no numeric feature;
    ``rules.presort`` 1 or 0 says, -1 chooses: presort when at least half
    of the features are examined per node (``rules.max_features``)."""
    if presort_chosen(cat_n, rules, is_sparse):
        return True, presort_features(X, samples, cat_n)
    return False, np.zeros((0, 0), dtype=np.int32)


@njit(cache=True, nogil=True)
def presort_chosen(cat_n, rules, is_sparse):
    """Whether :func:`presort_if_chosen` presorts, with these settings."""
    n_features = cat_n.shape[0]
    n_numeric = 0
    for j in range(n_features):
        if cat_n[j] == 0:
            n_numeric += 1
    if is_sparse or rules.random_split or n_numeric == 0:
        return False
    if rules.presort < 0:
        return 2 * rules.max_features >= n_features
    return rules.presort > 0


@njit(cache=True, nogil=True)
def find_split(data, rules, ws, samples, start, end, wn, imp, best_out, lo=NEG_INF,
               hi=np.inf):
    """Best split of the node ``samples[start:end]`` over sampled features.

    ``wn`` and ``imp`` are the node's weight and impurity. With
    ``rules.use_presort`` (best splitter only), ``data.presorted[j,
    start:end]`` holds the node's samples already sorted by feature ``j``
    (missing values last), kept so by the builder, and no sort is needed here.

    Features are drawn in a random order (``ws.features`` is reset and
    permuted in place with the node's stream ``ws.rng``) until
    ``max_features`` were drawn, constant ones included, and past that only
    while every one drawn was constant (:func:`keep_drawing`, scikit-learn's
    rule). Ties keep the first feature found. With ``crit == GAIN_RATIO``
    each feature's threshold maximises the information gain and, among the
    features whose gain is at least the average, the largest gain ratio wins
    (Quinlan's C4.5 rule); with ``ws.ratio_epsilon >= 0`` the largest gain
    ratio wins outright, and none does when it is below ``ws.ratio_epsilon``
    (Li Hang's). With
    ``ws.cat_grouping`` a categorical feature is split in two groups of
    codes (:func:`_eval_grouping`) instead of one child per code.

    ``best_out[0]`` (a one-record :data:`SPLIT` array) receives the best
    split; returns True when a split was found. ``[lo, hi]`` bounds the
    children's values of a split on a constrained feature (``data.mono``).
    """
    y_cls, y_reg, w = data.y_cls, data.y_reg, data.w
    cat_n = data.cat_n
    X, csc, presorted = data.X, data.csc, data.presorted
    node_pos = ws.node_pos
    crit, max_features = rules.crit, rules.max_features
    random_split, use_presort = rules.random_split, rules.use_presort
    features, rng, cand = ws.features, ws.rng, ws.cand
    Xf, sidx, tmp, ybuf, sort_stack = ws.Xf, ws.sidx, ws.tmp, ws.ybuf, ws.sort_stack
    buf = ws.scan
    min_samples_leaf, min_weight_leaf = rules.min_samples_leaf, rules.min_weight_leaf
    n_features = features.shape[0]
    m = end - start
    stot, s2 = node_sums(samples, start, end, y_cls, y_reg, w, crit, buf, ybuf)
    is_sparse = node_pos.shape[0] > 0
    mono = data.mono
    has_mono = mono.shape[0] > 0
    node_stamp = 0
    feature_stamp, sparse_results = data.rows[2], data.rows[9]
    sparse_all = False
    if is_sparse:
        for p in range(start, end):
            node_pos[samples[p]] = p
        # A feature without a stored value in the node is constant (zero)
        # there: skipped before its search, as the search would (scikit-learn
        # skips such features by carrying the known constants down the tree).
        node_stamp = _stamp_node_features(data.rows, samples, start, end)
        sparse_all = _sparse_node_search(data, rules, ws, samples, start, end, wn, stot)
    rows = samples.reshape((1, samples.shape[0]))  # (gather_column's order)
    # Each examined feature's best split (cand), for the gain-ratio selection.
    n_eval = 0
    n_nonconst = 0  # features drawn and found non-constant in the node
    f_i = 0  # features drawn
    while keep_drawing(f_i, n_features, n_nonconst, max_features):
        j = draw_feature(features, rng, f_i)
        f_i += 1
        if is_sparse and feature_stamp[j] != node_stamp:
            continue  # all zeros in the node: constant, as the searches below find
        cst = mono[j] if has_mono else 0
        if cat_n[j] > 0:
            n_left = 0
            if ws.cat_grouping:
                proxy, n_ch, iv, n_left, _ = _eval_grouping(data, rules, ws, j, samples,
                                                            start, end)
            else:
                proxy, n_ch, iv = _eval_categorical(data, rules, ws, j, samples, start, end)
            if n_ch >= 2:
                n_nonconst += 1
            if proxy == NEG_INF:
                continue
            # Onto the numeric proxies' scale: proxy = -sum_c W_c impurity_c.
            proxy = _proxy_from_children_sum(-proxy, crit, wn, s2)
            thr = np.nan
            ml = 0
        elif is_sparse and crit <= SQUARED_ERROR and cst == 0:
            if sparse_all:  # searched before the loop
                status, proxy, thr, ml, n_left, iv = sparse_result(sparse_results, j)
            else:
                status, proxy, thr, ml, n_left, iv = _sparse_split(
                    data, rules, ws, j, samples, start, end, wn, stot)
            if status == 0:  # constant in the node
                continue
            n_nonconst += 1
            if status == 1:  # no valid threshold
                continue
        else:
            # Gather the feature, missing values last (a sparse column, for
            # absolute error, Poisson or a constrained feature: expanded to
            # the node's samples, as dense).
            vals = ybuf if random_split else Xf
            ids = tmp if random_split else sidx
            n_nm = 0
            n_miss = 0
            if is_sparse:
                n_nm = _gather_sparse(csc, j, samples, start, end, node_pos, vals, ids)
            elif use_presort:  # already in order: a gather replaces the sort
                n_nm, n_miss = gather_column(X, j, presorted, j, start, end, vals, ids)
            else:
                n_nm, n_miss = gather_column(X, j, rows, 0, start, end, vals, ids)
            if n_nm == 0:
                continue
            if random_split:
                # One candidate: the plateaus, all m samples scanned as one run.
                thr, nl, ml_b = random_plateaus(ybuf, tmp, Xf, sidx, rng, n_nm, m)
                if nl < 0:
                    continue
                n_nonconst += 1
                proxy, n_left, _ = _scan_sorted(Xf, sidx, m, 0, y_cls, y_reg, w, rules, buf,
                                                wn, stot, (float(cst), lo, hi))
                if proxy == NEG_INF:
                    continue
            else:
                if not use_presort:
                    sort2(Xf, sidx, n_nm, sort_stack)
                if Xf[n_nm - 1] <= Xf[0] + FEATURE_THRESHOLD and n_miss == 0:
                    continue
                n_nonconst += 1
                if n_miss == 0 and crit == SQUARED_ERROR and cst == 0:
                    # The common case of regression and boosting, called
                    # directly: its tight loop takes five arrays.
                    proxy, n_left, ml_b = _scan_squared_error(
                        Xf, sidx, n_nm, y_reg, w, wn, stot, min_samples_leaf,
                        min_weight_leaf)
                else:
                    proxy, n_left, ml_b = _scan_sorted(Xf, sidx, n_nm, n_miss, y_cls, y_reg,
                                                       w, rules, buf, wn, stot,
                                                       (float(cst), lo, hi))
                if proxy == NEG_INF:
                    continue
                thr = midpoint_threshold(Xf, n_left, n_nm)
            ml = missing_side(ml_b, n_miss, n_left, m)
            iv = 0.0
            if crit == GAIN_RATIO:  # (random: the left plateau holds its missing samples)
                iv = gain_ratio_info(w, sidx, n_left, m if random_split else n_nm, m,
                                     ml_b and not random_split, wn)
        set_split(cand, n_eval, j, proxy, thr, ml, n_left,
                  imp - _children_impurity_sum(proxy, crit, wn, s2) / wn, iv)
        n_eval += 1
    return choose_split(cand, n_eval, crit, ws.ratio_epsilon, best_out)


@njit(cache=True, nogil=True)
def node_sums(samples, start, end, y_cls, y_reg, w, crit, buf, ybuf):
    """The node's sums the split search needs: ``(stot, s2)``, its weighted
    target sum and ``s2`` as :func:`_children_impurity_sum` takes it (sum w
    y^2; Poisson: sum w y ln y); classification: the class weights into
    ``buf.ctot`` (both zero); absolute error: the ranks of
    :func:`node_ranks` into ``buf`` (``ybuf``: scratch)."""
    ctot = buf.ctot
    s2 = 0.0
    stot = 0.0
    if crit == SQUARED_ERROR:
        for p in range(start, end):
            i = samples[p]
            wy = w[i] * y_reg[i]
            stot += wy
            s2 += wy * y_reg[i]
    elif crit == ABSOLUTE_ERROR:
        for p in range(start, end):
            i = samples[p]
            stot += w[i] * y_reg[i]
    elif crit == POISSON:
        for p in range(start, end):
            i = samples[p]
            stot += w[i] * y_reg[i]
            s2 += w[i] * _xlny(y_reg[i])
    else:
        for c in range(ctot.shape[0]):
            ctot[c] = 0.0
        for p in range(start, end):
            i = samples[p]
            ctot[y_cls[i]] += w[i]
    if crit == ABSOLUTE_ERROR:
        node_ranks(samples, start, end, y_reg, w, ybuf, buf.rank, buf.cum_w, buf.cum_wy,
                   buf.ysort)
    return stot, s2


@njit(cache=True, nogil=True)
def random_node_sums(samples, start, end, y_cls, y_reg, w, crit, ctot, node_w, node_wy,
                     node_c):
    """:func:`node_sums` of a node searched with random thresholds (``crit``
    up to SQUARED_ERROR), the same bits, and the node's arrays its scans
    read in its order: the weights into ``node_w``, and the classes into
    ``node_c`` (classification) or ``w y`` into ``node_wy`` (regression).
    Returns (stot, s2, unit): ``unit`` when every weight in the node is 1."""
    s2 = 0.0
    stot = 0.0
    other = False
    if crit == SQUARED_ERROR:
        for p in range(start, end):
            i = samples[p]
            wi = w[i]
            wy = wi * y_reg[i]
            stot += wy
            s2 += wy * y_reg[i]
            node_w[p - start] = wi
            node_wy[p - start] = wy
            other |= wi != 1.0
    else:
        m = end - start
        for p in range(start, end):
            i = samples[p]
            wi = w[i]
            node_w[p - start] = wi
            node_c[p - start] = y_cls[i]
            other |= wi != 1.0
        n_classes = ctot.shape[0]
        if other:
            for c in range(n_classes):
                ctot[c] = 0.0
            for q in range(m):
                ctot[node_c[q]] += node_w[q]
        else:
            # Unit weights: counts (exact), one vectorised pass per class
            # but the last, no chain of additions through ctot.
            rest = m
            for c in range(n_classes - 1):
                nc = 0
                for q in range(m):
                    nc += node_c[q] == c
                ctot[c] = nc
                rest -= nc
            ctot[n_classes - 1] = rest
    return stot, s2, not other


@njit(cache=True, nogil=True)
def gather_column(X, j, order, row, start, end, vals, ids):
    """Column ``j`` of a dense X at the samples ``order[row, start:end]`` (the
    node's ``samples`` as a one-row view, or the presorted orders): the values
    in ``vals[:n_nm]`` and their samples in ``ids[:n_nm]`` in that order, the
    samples of missing values at the end of ``ids[:end - start]`` (last seen
    first). Returns (n_nm, n_miss)."""
    m = end - start
    n_nm = 0
    n_miss = 0
    for p in range(start, end):
        i = order[row, p]
        x = X[i, j]
        if x != x:
            n_miss += 1
            ids[m - n_miss] = i
        else:
            vals[n_nm] = x
            ids[n_nm] = i
            n_nm += 1
    return n_nm, n_miss


@njit(cache=True, nogil=True)
def draw_feature(features, rng, f_i):
    """The next feature of the node's random order: swap a uniform draw of
    ``features[f_i:]`` into ``features[f_i]`` and return it (Fisher-Yates,
    as scikit-learn's splitters); the first draw (``f_i`` 0) starts from
    ``features`` in order.

    ``rng[1]`` counts the draws made since ``features`` was last in order
    (0 in a fresh workspace: ``features`` an arange, ``rng`` zeros). The
    first draw puts back only what those draws moved, O(draws) instead of
    O(n_features) a node: positions ``[0, n)`` and, for each ``q < n``
    holding ``v = features[q] >= n``, position ``v`` (a swap at step ``q``
    took ``v`` from there, and positions below the step are never touched
    again, so every moved position ``>= n`` is such a ``v``)."""
    if f_i == 0:
        n_prev = np.intp(rng[1])
        for q in range(n_prev):
            v = features[q]
            if v >= n_prev:
                features[v] = v
            features[q] = q
    r = f_i + rng_randint(rng, features.shape[0] - f_i)
    j = features[r]
    features[r] = features[f_i]
    features[f_i] = j
    rng[1] = f_i + 1
    return j


@njit(cache=True, nogil=True, inline="always")
def keep_drawing(n_drawn, n_features, n_nonconst, max_features):
    """Whether a node's split search draws another feature, scikit-learn's
    rule (``node_split_best`` / ``node_split_random``): every drawn feature
    counts towards ``max_features``, a constant one too (all values equal or
    missing in the node, a sparse column without a stored value there, a
    categorical feature with fewer than two codes); past ``max_features``
    the draws go on only while none drawn was non-constant, so a node with a
    non-constant feature always evaluates one. A non-constant feature
    without a valid threshold (``min_samples_leaf`` ...) counts as
    non-constant. Stops when every feature was drawn."""
    return n_drawn < n_features and (n_drawn < max_features or n_nonconst == 0)


@njit(cache=True, nogil=True)
def gain_ratio_info(w, sidx, n_left, n_nm, m, ml_b, wn):
    """C4.5's split information of a scanned split (left: ``sidx[:n_left]``,
    and the missing ``sidx[n_nm:m]`` when ``ml_b``)."""
    wl = 0.0
    for q in range(n_left):
        wl += w[sidx[q]]
    if ml_b:
        for q in range(n_nm, m):
            wl += w[sidx[q]]
    return _split_info(wl, wn - wl) if 0.0 < wl < wn else 0.0


@njit(cache=True, nogil=True)
def choose_split(cand, n_eval, crit, ratio_epsilon, best_out):
    """Copy the chosen split among the ``n_eval`` candidates (one per
    examined feature) into ``best_out[0]``: the largest proxy (the first of
    equals), or for the gain ratio C4.5's rule (see :func:`find_split`).
    Returns False when there is none (the node stays a leaf)."""
    if n_eval == 0:
        return False
    best = -1
    if crit == GAIN_RATIO and ratio_epsilon >= 0.0:
        # Li Hang's C4.5 (notes B §8.5 a): the largest gain ratio, and a
        # leaf when it is below epsilon.
        best_ratio = NEG_INF
        for k in range(n_eval):
            if cand[k].split_info <= 0.0:
                continue
            ratio = cand[k].gain / cand[k].split_info
            if ratio > best_ratio:
                best_ratio = ratio
                best = k
        if best >= 0 and best_ratio < ratio_epsilon:
            return False
    elif crit == GAIN_RATIO:
        mean_gain = 0.0
        for k in range(n_eval):
            mean_gain += cand[k].gain
        mean_gain /= n_eval
        best_ratio = NEG_INF
        for k in range(n_eval):
            # Round-off can put the best gain a hair below an equal mean.
            if cand[k].gain < mean_gain - 1e-12 or cand[k].split_info <= 0.0:
                continue
            ratio = cand[k].gain / cand[k].split_info
            if ratio > best_ratio:
                best_ratio = ratio
                best = k
    else:
        best_proxy = NEG_INF
        for k in range(n_eval):
            if cand[k].proxy > best_proxy:
                best_proxy = cand[k].proxy
                best = k
    if best < 0:
        return False
    best_out[0] = cand[best]
    return True


@njit(cache=True, nogil=True)
def find_split_dense(data, bufs, rules, samples, start, end, wn, imp, best_out):
    """:func:`find_split` for a dense X of numeric features without
    constraints, the common case (the splitter of
    :func:`skml.tree._builder_kernels.build_tree_dense`): same candidates, same
    order, same bits; Quinlan's C4.5 selection for the gain ratio.

    ``data`` is a :data:`DenseData` and ``bufs`` a :data:`DenseBuffers`, the
    arrays this search reads and no others. numba counts the references of
    every array a function receives, an atomic increment and decrement per
    call unless LLVM's pruning removes them, which it does not in a function
    this large: :func:`find_split`, which receives the whole data and
    workspace (the sparse, categorical and constrained searches' too), paid
    ~1.2 us a call for them, more than the search of a small node. For the
    same reason the random candidate is written out here: as a call, its
    eight arrays cost ~100 ns per feature.
    """
    X, presorted, y_cls, y_reg, w = data
    features, cand, rng, Xf, sidx, sort_stack, ybuf, tmp, buf = bufs
    crit, max_features, n_classes = rules.crit, rules.max_features, rules.n_classes
    random_split, use_presort = rules.random_split, rules.use_presort
    min_samples_leaf, min_weight_leaf = rules.min_samples_leaf, rules.min_weight_leaf
    ctot, cl = buf.ctot, buf.cl
    # The random thresholds' node arrays (absolute error's buffers, unused
    # by the other criteria): the node's weights, w y, classes in its order.
    node_w, node_wy, node_c = buf.cum_w, buf.cum_wy, buf.rank
    n_features = features.shape[0]
    m = end - start
    fast_random = random_split and crit <= SQUARED_ERROR
    unit = False
    if fast_random:
        stot, s2, unit = random_node_sums(samples, start, end, y_cls, y_reg, w, crit, ctot,
                                          node_w, node_wy, node_c)
    else:
        stot, s2 = node_sums(samples, start, end, y_cls, y_reg, w, crit, buf, ybuf)
    rows = samples.reshape((1, samples.shape[0]))  # (gather_column's order)
    no_bounds = (0.0, NEG_INF, np.inf)
    n_eval = n_nonconst = f_i = 0  # candidates, non-constant features, drawn
    while keep_drawing(f_i, n_features, n_nonconst, max_features):
        j = draw_feature(features, rng, f_i)
        f_i += 1
        if random_split:  # (never presorted)
            if fast_random:
                # The gather and the extremes in one pass, then the left sums
                # over the node's arrays in its order (no indirection, no
                # branch: a right sample adds exact zeros), as the sorted scan
                # of random_plateaus' two plateaus adds them: the same bits.
                # A feature with a missing value in the node takes the
                # general way below.
                lo = np.inf
                hi = -np.inf
                n_nm = m
                for q in range(m):
                    x = X[samples[start + q], j]
                    if x != x:
                        n_nm = -1
                        break
                    ybuf[q] = x
                    lo = min(lo, x)
                    hi = max(hi, x)
                if n_nm == m:
                    if hi <= lo + FEATURE_THRESHOLD:
                        continue  # constant (random_threshold's rule)
                    thr = lo + rng_random(rng) * (hi - lo)
                    if thr == hi:
                        thr = lo
                    n_nonconst += 1
                    wl = 0.0
                    sl = 0.0
                    n_left = 0
                    if unit and crit <= GAIN_RATIO and n_classes <= 16:
                        # Unit weights: integer counts, one vectorised pass
                        # per class but the last (sums of ones in any order
                        # are exact: the same bits), no chain through cl.
                        for q in range(m):
                            n_left += ybuf[q] <= thr
                        rest = n_left
                        for k in range(n_classes - 1):
                            nk = 0
                            for q in range(m):
                                nk += (ybuf[q] <= thr) & (node_c[q] == k)
                            cl[k] = nk
                            rest -= nk
                        cl[n_classes - 1] = rest
                        wl = float(n_left)
                    elif unit:
                        # (Products by 0 or 1, not selects, which numba
                        # leaves as branches: x + 0.0 is x, the same bits.)
                        for q in range(m):
                            b = ybuf[q] <= thr
                            sl += node_wy[q] * b
                            n_left += b
                        wl = float(n_left)
                    elif crit <= GAIN_RATIO:
                        for k in range(n_classes):
                            cl[k] = 0.0
                        for q in range(m):
                            b = ybuf[q] <= thr
                            wq = node_w[q] * b
                            wl += wq
                            cl[node_c[q]] += wq
                            n_left += b
                    else:
                        for q in range(m):
                            b = ybuf[q] <= thr
                            wl += node_w[q] * b
                            sl += node_wy[q] * b
                            n_left += b
                    wr = wn - wl
                    if (n_left < min_samples_leaf or m - n_left < min_samples_leaf
                            or wl < min_weight_leaf or wr < min_weight_leaf
                            or wl <= 0.0 or wr <= 0.0):
                        continue
                    if crit <= GAIN_RATIO:
                        proxy = _class_children_proxy(cl, ctot, n_classes, crit, wl, wr)
                    else:
                        sr = stot - sl
                        proxy = sl * sl / wl + sr * sr / wr
                    if not proxy > NEG_INF:  # (NaN: the scan keeps no candidate)
                        continue
                    iv = 0.0
                    if crit == GAIN_RATIO and 0.0 < wl < wn:
                        iv = _split_info(wl, wn - wl)
                    set_split(cand, n_eval, j, proxy, thr, missing_side(False, 0, n_left, m),
                              n_left, imp - _children_impurity_sum(proxy, crit, wn, s2) / wn,
                              iv)
                    n_eval += 1
                    continue
            n_nm, n_miss = gather_column(X, j, rows, 0, start, end, ybuf, tmp)
            if n_nm == 0:
                continue
            thr, nl, ml_b = random_plateaus(ybuf, tmp, Xf, sidx, rng, n_nm, m)
            if nl < 0:
                continue
            n_nonconst += 1
            proxy, n_left, _ = _scan_sorted(Xf, sidx, m, 0, y_cls, y_reg, w, rules, buf, wn,
                                            stot, no_bounds)
            if proxy == NEG_INF:
                continue
        else:
            if use_presort:
                n_nm, n_miss = gather_column(X, j, presorted, j, start, end, Xf, sidx)
            else:
                n_nm, n_miss = gather_column(X, j, rows, 0, start, end, Xf, sidx)
            if n_nm == 0:
                continue
            if not use_presort:
                sort2(Xf, sidx, n_nm, sort_stack)
            if Xf[n_nm - 1] <= Xf[0] + FEATURE_THRESHOLD and n_miss == 0:
                continue
            n_nonconst += 1
            if n_miss == 0 and crit == SQUARED_ERROR:
                proxy, n_left, ml_b = _scan_squared_error(
                    Xf, sidx, n_nm, y_reg, w, wn, stot, min_samples_leaf, min_weight_leaf)
            else:
                proxy, n_left, ml_b = _scan_sorted(Xf, sidx, n_nm, n_miss, y_cls, y_reg, w,
                                                   rules, buf, wn, stot, no_bounds)
            if proxy == NEG_INF:
                continue
            thr = midpoint_threshold(Xf, n_left, n_nm)
        iv = 0.0
        if crit == GAIN_RATIO:  # (random: the left plateau holds its missing samples)
            iv = gain_ratio_info(w, sidx, n_left, m if random_split else n_nm, m,
                                 ml_b and not random_split, wn)
        set_split(cand, n_eval, j, proxy, thr, missing_side(ml_b, n_miss, n_left, m),
                  n_left, imp - _children_impurity_sum(proxy, crit, wn, s2) / wn, iv)
        n_eval += 1
    return choose_split(cand, n_eval, crit, -1.0, best_out)


@njit(cache=True, nogil=True)
def partition_numeric(X, samples, start, end, j, thr, missing_left, tmp):
    """Reorder ``samples[start:end]`` as [left | right]; returns the boundary."""
    nl = 0
    for p in range(start, end):
        # Without a branch (the side of a sample is a coin toss for the
        # branch predictor): both places written, the wrong one overwritten
        # later (by the next left sample, the next right one or the copy back).
        i = samples[p]
        x = X[i, j]
        go_left = missing_left if x != x else x <= thr
        samples[start + nl] = i
        tmp[p - start - nl] = i
        nl += go_left
    nr = end - start - nl
    for q in range(nr):
        samples[start + nl + q] = tmp[q]
    return start + nl


@njit(cache=True, nogil=True)
def partition_categorical(X, samples, start, end, j, n_slots, tmp, slot_count):
    """Reorder ``samples[start:end]`` grouped by code; returns #children."""
    n_children = _counting_sort(X, j, n_slots, samples, start, end, tmp, slot_count)
    for p in range(start, end):
        samples[p] = tmp[p]
    return n_children


@njit(cache=True, nogil=True)
def presort_features(X, samples, cat_n):
    """Each numeric feature's ordering of ``samples`` (missing values last)."""
    n_features = X.shape[1]
    n = samples.shape[0]
    out = np.zeros((n_features, n), dtype=np.int32)
    vals = np.empty(n)
    ids = np.empty(n, dtype=np.intp)
    stack = np.empty(max(130, 4 * (int(np.log2(n + 1)) + 2)), dtype=np.intp)
    rows = samples.reshape((1, n))
    for j in range(n_features):
        if cat_n[j] > 0:
            continue
        n_nm = gather_column(X, j, rows, 0, 0, n, vals, ids)[0]
        sort2(vals, ids, n_nm, stack)
        for p in range(n):
            out[j, p] = ids[p]
    return out


@njit(cache=True, nogil=True)
def partition_presorted(presorted, cat_n, samples, start, end, child_end, n_children,
                        group, tmp):
    """Split every numeric feature's sorted run ``[start, end)`` by child, stably.

    ``samples[start:end]`` has just been partitioned into ``n_children``
    consecutive groups ending at ``child_end[:n_children]``; each feature's
    ordering is rearranged the same way and stays sorted inside each group.
    """
    g = 0
    for p in range(start, end):
        while p >= child_end[g]:
            g += 1
        group[samples[p]] = g
    for j in range(presorted.shape[0]):
        if cat_n[j] > 0:
            continue
        row = presorted[j]
        if n_children == 2:
            # Left ones compact in place; right ones wait in tmp.
            nl = start
            nr = 0
            for p in range(start, end):
                i = row[p]
                if group[i] == 0:
                    row[nl] = i
                    nl += 1
                else:
                    tmp[nr] = i
                    nr += 1
            for q in range(nr):
                row[nl + q] = tmp[q]
            continue
        for c in range(n_children):
            tmp[c] = start if c == 0 else child_end[c - 1]
        for p in range(start, end):
            i = row[p]
            c = group[i]
            tmp[n_children + tmp[c] - start] = i
            tmp[c] += 1
        for p in range(start, end):
            row[p] = tmp[n_children + p - start]
