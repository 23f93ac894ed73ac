"""The exact split search for multi-output targets, as a splitter of the growth loop.

A target of ``k`` outputs (``y`` of shape (n_samples, k)) is split by the
*mean over the outputs* of the per-output impurity, as scikit-learn's
multi-output trees (Breiman et al. 1984 sum the per-output criteria; the mean
only rescales it): Gini or entropy of each output's class counts, or each
output's weighted variance, mean absolute deviation from its weighted median
(``absolute_error``) or half Poisson deviance (``poisson``). A candidate is
ranked by the sum over the outputs of the single-output proxies of
:mod:`skml.tree._splitter_kernels`, each computed with the single-output
formula, so a one-output target ranks candidates exactly as the
single-output search. A Poisson split is refused when any output's child
would have a zero mean (its deviance is infinite), as scikit-learn's.

This is a splitter of its own (the data class :data:`MultiTreeData`, see
:mod:`skml.tree._grower`) rather than a branch inside the single-output
search, so that the single-output kernels, the hot path of every forest and
boosting fit, are not touched: one more loop is compiled, for this data type
only. It shares the single-output search's pieces that do not depend on the
target (the feature gather, the random thresholds, the midpoint, the node
statistics of one output, the absolute error's rank sums); the partition,
children-count and release hooks are the exact search's (they read only X,
the presorted orders and the workspace); the children are pushed without the
monotonicity bounds. Numeric features, dense or sparse X, missing values,
best or random thresholds; every criterion but C4.5's gain ratio.

Layout of the targets: ``y_reg`` (k, n_samples) float, output-major (one
contiguous row per output, the single-output kernels' 1-d target), or
``y_cls`` (n_samples, k) int holding the *slot* ``o * max_n_classes + class``
of each output's class, so that one flat array of ``k * max_n_classes``
weights holds every output's class counts (an output with fewer classes
leaves its last slots at zero, which add nothing to Gini or entropy). A
node's value is that flat row: class proportions per output, or the ``k``
means (medians for absolute error).

The running sums of a scan are flat rows too: classification, the class
weights; regression, each output's ``sum w y`` in the first ``k`` entries
and, for Poisson, its number of positive targets in the next ``k`` (exact
counts: a child's sum, the node's minus the other's, rounds to some 1e-15
instead of 0). Absolute error keeps one set of the single-output rank
buffers (Fenwick trees over the node's y-ranks, prefix sums) per output,
one after the other in the :data:`ScanBuffers` arrays.
"""

from collections import namedtuple

import numpy as np
from numba import njit

# numba's on-disk cache of a kernel is keyed on the file that defines it: after
# a change to _splitter_kernels.py or _builder_kernels.py (whose hooks this
# splitter reuses) or to _grower.py (whose loop build_tree_multioutput
# compiles in), change this file too (a comment will do).
# (Last: absolute error and Poisson, the shared gather and threshold kernels, inlined;
# the growth loop's release only for a node holding something.)
# (The random splitter's missing values on one side by a coin.)
from ._builder_kernels import _apply, _n_children, _release, push_binary
from ._grower import grow, register_splitter, root_samples
from ._splitter_kernels import (
    ABSOLUTE_ERROR,
    ENTROPY,
    EPSILON,
    FEATURE_THRESHOLD,
    GINI,
    NEG_INF,
    POISSON,
    SQUARED_ERROR,
    SplitRules,
    TreeData,
    _bit_add,
    _class_impurity,
    _sad_of_set,
    _xlny,
    _xlogx,
    draw_feature,
    gather_feature,
    keep_drawing,
    midpoint_threshold,
    missing_side,
    node_ranks,
    node_stats,
    presort_if_chosen,
    random_plateaus,
    set_split,
    sort2,
    split_workspace,
)

__all__ = ["MultiTreeData", "build_tree_multioutput"]

# The fields of TreeData, with 2-d targets (see the module docstring) and no
# monotonicity constraints (an empty ``mono``).
MultiTreeData = namedtuple("MultiTreeData", TreeData._fields)
# (the multi-output search reads no row structure: ``rows`` is left empty)
_NO_ROWS = (np.zeros(1, dtype=np.int64), np.zeros(0, dtype=np.int32),
            np.zeros(0, dtype=np.int64))


@njit(cache=True, nogil=True)
def multioutput_node_stats(samples, start, end, y_cls, y_reg, w, crit, value, ybuf, wbuf):
    """Weighted size and mean per-output impurity of a node; writes its value
    (every output's class proportions, or the ``k`` means or medians) to
    ``value``. A regression output's impurity and value are those of the
    single-output :func:`node_stats`, bit for bit."""
    wn = 0.0
    if crit <= ENTROPY:
        value[:] = 0.0
        k = y_cls.shape[1]
        for p in range(start, end):
            i = samples[p]
            wi = w[i]
            wn += wi
            for o in range(k):
                value[y_cls[i, o]] += wi
        nc = value.shape[0] // k
        imp = 0.0
        for o in range(k):
            imp += _class_impurity(value[o * nc:(o + 1) * nc], wn, crit)
        if wn > 0.0:
            value /= wn
        return wn, imp / k
    k = y_reg.shape[0]
    imp = 0.0
    for o in range(k):
        wn, imp_o = node_stats(samples, start, end, y_cls[0], y_reg[o], w, crit,
                               value[o:o + 1], ybuf, wbuf)
        imp += imp_o
    return wn, imp / k


@njit(cache=True, nogil=True)
def _add(y_cls, y_reg, crit, i, wi, sums):
    """Add sample ``i`` (weight ``wi``) to the flat running sums (see the
    module docstring)."""
    if crit <= ENTROPY:
        for o in range(y_cls.shape[1]):
            sums[y_cls[i, o]] += wi
        return
    k = y_reg.shape[0]
    for o in range(k):
        y = y_reg[o, i]
        sums[o] += wi * y
        if crit == POISSON and y > 0.0:
            sums[k + o] += 1.0


@njit(cache=True, nogil=True)
def _add_ranks(y_reg, buf, i, wi):
    """Add sample ``i`` to every output's Fenwick trees (absolute error)."""
    k = y_reg.shape[0]
    n_total = buf.rank.shape[0] // k
    stride = buf.bit_w.shape[0] // k
    for o in range(k):
        r = buf.rank[o * n_total + i]
        a = o * stride
        _bit_add(buf.bit_w[a:a + stride], r, wi)
        _bit_add(buf.bit_wy[a:a + stride], r, wi * y_reg[o, i])


@njit(cache=True, nogil=True)
def _proxy(crit, k, cl, ctot, wl, wr, buf, m):
    """Sum over the outputs of the single-output proxies (``-sum_c W_c i_c``
    up to a constant) of a candidate with left sums ``cl``; -inf for a
    Poisson split with an output of zero mean in a child.

    Each output's proxy is computed with the single-output search's formula,
    in its order of operations, so one output gives its proxy bit for bit and
    two identical outputs exactly twice it (the same splits win)."""
    proxy = 0.0
    if crit == SQUARED_ERROR:
        for o in range(k):
            a = cl[o]
            b = ctot[o] - a
            proxy += a * a / wl + b * b / wr
        return proxy
    if crit == POISSON:
        for o in range(k):
            sl = cl[o]
            sr = ctot[o] - sl
            npos_l = cl[k + o]
            if sl <= EPSILON or sr <= EPSILON or npos_l == 0.0 or npos_l == ctot[k + o]:
                return NEG_INF
            proxy += sl * np.log(sl / wl) + sr * np.log(sr / wr)
        return proxy
    if crit == ABSOLUTE_ERROR:
        stride = buf.bit_w.shape[0] // k
        for o in range(k):
            a = o * stride
            b = a + stride
            bit_w, bit_wy = buf.bit_w[a:b], buf.bit_wy[a:b]
            cum_w, cum_wy, ysort = buf.cum_w[a:b], buf.cum_wy[a:b], buf.ysort[a:b]
            proxy += -(_sad_of_set(bit_w, bit_wy, cum_w, cum_wy, ysort, m, False)
                       + _sad_of_set(bit_w, bit_wy, cum_w, cum_wy, ysort, m, True))
        return proxy
    nc = cl.shape[0] // k
    for o in range(k):
        if crit == GINI:
            sl2 = 0.0
            sr2 = 0.0
            for s in range(o * nc, (o + 1) * nc):
                a = cl[s]
                b = ctot[s] - a
                sl2 += a * a
                sr2 += b * b
            proxy += sl2 / wl + sr2 / wr
        else:
            p = -_xlogx(wl) - _xlogx(wr)
            for s in range(o * nc, (o + 1) * nc):
                a = cl[s]
                p += _xlogx(a) + _xlogx(ctot[s] - a)
            proxy += p
    return proxy


@njit(cache=True, nogil=True)
def _scan_multioutput(Xf, sidx, n_nm, n_miss, y_cls, y_reg, w, rules, k, buf, wtot):
    """Best threshold of one feature (see ``_scan_sorted`` of the single-output
    search: the same candidates, checks and missing-value passes) with the
    summed multi-output proxy; ``buf`` is the :data:`ScanBuffers` (``cl`` and
    ``ctot`` hold the flat sums, and for absolute error the rank buffers one
    set per output). Returns (proxy, n_left_non_missing, missing_left)."""
    cl, ctot = buf.cl, buf.ctot
    crit = rules.crit
    min_samples_leaf, min_weight_leaf = rules.min_samples_leaf, rules.min_weight_leaf
    m = n_nm + n_miss
    ranked = crit == ABSOLUTE_ERROR
    stride = buf.bit_w.shape[0] // k
    best = NEG_INF
    best_pos = -1
    best_ml = False
    n_pass = 2 if n_miss > 0 else 1
    for ps in range(n_pass):
        miss_left = ps == 1
        # The missing samples start on the left in the second pass (their
        # sums added in the single-output search's order).
        wl = 0.0
        cl[:] = 0.0
        if ranked:
            for o in range(k):
                buf.bit_w[o * stride:o * stride + m + 1] = 0.0
                buf.bit_wy[o * stride:o * stride + m + 1] = 0.0
        if miss_left:
            for q in range(n_nm, m):
                i = sidx[q]
                wl += w[i]
                _add(y_cls, y_reg, crit, i, w[i], cl)
                if ranked:
                    _add_ranks(y_reg, buf, i, w[i])
        last = n_nm if (n_miss > 0 and not miss_left) else n_nm - 1
        for p in range(last):
            i = sidx[p]
            wi = w[i]
            wl += wi
            _add(y_cls, y_reg, crit, i, wi, cl)
            if ranked:
                _add_ranks(y_reg, buf, i, wi)
            if p + 1 < n_nm and Xf[p + 1] <= Xf[p] + FEATURE_THRESHOLD:
                continue
            n_left = p + 1 + (n_miss if miss_left else 0)
            if n_left < min_samples_leaf or m - n_left < min_samples_leaf:
                continue
            wr = wtot - wl
            if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
                continue
            proxy = _proxy(crit, k, cl, ctot, wl, wr, buf, m)
            if proxy > best:
                best = proxy
                best_pos = p + 1
                best_ml = miss_left
    return best, best_pos, best_ml


@njit(cache=True, nogil=True)
def _node_totals(data, rules, ws, samples, start, end, k):
    """The node's flat sums into ``ctot`` (and for absolute error each
    output's ranks); returns the sum over the outputs of the term the
    children's impurity sums add to the proxy (``sum w y^2``, Poisson's
    ``sum w y ln y``; 0 otherwise)."""
    y_cls, y_reg, w = data.y_cls, data.y_reg, data.w
    crit = rules.crit
    buf = ws.scan
    ctot = buf.ctot
    ctot[:] = 0.0
    for p in range(start, end):
        i = samples[p]
        _add(y_cls, y_reg, crit, i, w[i], ctot)
    s2 = 0.0
    if crit == SQUARED_ERROR or crit == POISSON:
        for o in range(k):  # output by output, in the single-output order
            s2_o = 0.0
            for p in range(start, end):
                i = samples[p]
                y = y_reg[o, i]
                if crit == SQUARED_ERROR:
                    wy = w[i] * y
                    s2_o += wy * y
                else:
                    s2_o += w[i] * _xlny(y)
            s2 += s2_o
    elif crit == ABSOLUTE_ERROR:
        n_total = buf.rank.shape[0] // k
        stride = buf.bit_w.shape[0] // k
        for o in range(k):
            a = o * stride
            node_ranks(samples, start, end, y_reg[o], w, ws.ybuf,
                       buf.rank[o * n_total:(o + 1) * n_total], buf.cum_w[a:a + stride],
                       buf.cum_wy[a:a + stride], buf.ysort[a:a + stride])
    return s2


@njit(cache=True, nogil=True)
def find_split_multioutput(data, rules, ws, samples, start, end, wn, imp, best_out):
    """Best split of the node ``samples[start:end]`` for a multi-output target.

    As the single-output ``find_split`` (features in the node's random order
    until ``max_features`` were drawn and one was non-constant,
    :func:`keep_drawing`; presorted or sorted
    values, missing values tried on both sides, or with ``random_split`` one
    random split per feature, :func:`random_plateaus`; ties keep the
    first), numeric features
    only. ``imp`` is the node's mean per-output impurity; the gain written to
    ``best_out[0]`` is the decrease of that mean.
    """
    y_cls, y_reg, w = data.y_cls, data.y_reg, data.w
    crit, max_features = rules.crit, rules.max_features
    random_split, use_presort = rules.random_split, rules.use_presort
    features, rng = ws.features, ws.rng
    Xf, sidx, tmp, ybuf, sort_stack = ws.Xf, ws.sidx, ws.tmp, ws.ybuf, ws.sort_stack
    k = y_cls.shape[1] if crit <= ENTROPY else y_reg.shape[0]
    n_features = features.shape[0]
    m = end - start
    s2 = _node_totals(data, rules, ws, samples, start, end, k)
    X, csc, presorted = data.X, data.csc, data.presorted
    node_pos = ws.node_pos
    is_sparse = node_pos.shape[0] > 0
    if is_sparse:
        for p in range(start, end):
            node_pos[samples[p]] = p
    found = False
    best_proxy = NEG_INF
    n_nonconst = 0  # features drawn and found non-constant in the node
    f_i = 0  # features drawn
    while keep_drawing(f_i, n_features, n_nonconst, max_features):
        j = draw_feature(features, rng, f_i)
        f_i += 1
        if random_split:
            n_nm, n_miss = gather_feature(X, csc, presorted, j, samples, start, end,
                                          node_pos, ybuf, tmp, use_presort)
        else:
            n_nm, n_miss = gather_feature(X, csc, presorted, j, samples, start, end,
                                          node_pos, Xf, sidx, use_presort)
        if n_nm == 0:
            continue
        if random_split:
            # One candidate: the plateaus, all m samples scanned as one run.
            thr, nl, ml_b = random_plateaus(ybuf, tmp, Xf, sidx, rng, n_nm, m)
            if nl < 0:
                continue
            n_nonconst += 1
            proxy, n_left, _ = _scan_multioutput(Xf, sidx, m, 0, y_cls, y_reg, w, rules, k,
                                                 ws.scan, wn)
            if proxy == NEG_INF:
                continue
        else:
            if not use_presort:
                sort2(Xf, sidx, n_nm, sort_stack)
            if Xf[n_nm - 1] <= Xf[0] + FEATURE_THRESHOLD and n_miss == 0:
                continue
            n_nonconst += 1
            proxy, n_left, ml_b = _scan_multioutput(Xf, sidx, n_nm, n_miss, y_cls, y_reg,
                                                    w, rules, k, ws.scan, wn)
            if proxy == NEG_INF:
                continue
            thr = midpoint_threshold(Xf, n_left, n_nm)
        if proxy <= best_proxy:
            continue
        best_proxy = proxy
        found = True
        if crit == GINI:
            children = k * wn - proxy
        elif crit == SQUARED_ERROR or crit == POISSON:
            children = s2 - proxy
        else:
            children = -proxy
        set_split(best_out, 0, j, proxy, thr, missing_side(ml_b, n_miss, n_left, m), n_left,
                  imp - children / (k * wn), 0.0)
    return found


@njit(cache=True, nogil=True)
def _stats(data, config, ws, rules, samples, node, value_row):
    return multioutput_node_stats(samples, node.start, node.end, data.y_cls, data.y_reg,
                                  data.w, rules.crit, value_row, ws.ybuf, ws.wbuf)


@njit(cache=True, nogil=True)
def _search(data, config, ws, rules, samples, node, wn, imp, best):
    ws.rng[0] = node.key
    return find_split_multioutput(data, config, ws, samples, node.start, node.end, wn,
                                  imp, best)


register_splitter(MultiTreeData, stats=_stats, search=_search, apply=_apply,
                  n_children=_n_children, push_children=push_binary, release=_release)


@njit(cache=True, nogil=True)
def build_tree_multioutput(X, csc, y_cls, y_reg, w, rules):
    """Grow a multi-output tree (numeric features) with this splitter; as
    :func:`~skml.tree._builder_kernels.build_tree`, ``rules.n_values`` being
    the width of a node's flat value (``k * max_n_classes``, or ``k``)."""
    n_total = w.shape[0]
    n_features = X.shape[1] if csc[2].shape[0] == 0 else csc[2].shape[0] - 1
    is_sparse = csc[2].shape[0] > 0
    cat_n = np.zeros(n_features, dtype=np.intp)
    samples, w_root = root_samples(w)
    n = samples.shape[0]
    n_val = max(rules.n_values, 1)
    random_split = rules.random_split
    use_presort, presorted = presort_if_chosen(X, samples, cat_n, rules, is_sparse)
    # No monotonicity constraints (refused with several outputs, as scikit-learn).
    data = MultiTreeData(X, csc, y_cls, y_reg, w, cat_n, presorted,
                         np.zeros(0, dtype=np.int8), _NO_ROWS)
    config = SplitRules(rules.crit, rules.n_values, rules.max_features, random_split,
                        rules.min_samples_leaf, rules.min_weight_leaf, use_presort,
                        is_sparse)
    # Poisson's sums carry each output's count of positive targets after
    # them; absolute error, one set of rank buffers per output.
    n_sums = 2 * n_val if rules.crit == POISSON else n_val
    n_rank_sets = y_reg.shape[0] if rules.crit == ABSOLUTE_ERROR else 1
    ws = split_workspace(n_total, n_features, 1, n_sums, is_sparse, use_presort, 0,
                         n_rank_sets)
    return grow(data, config, ws, rules, samples, w_root, 2 * n, n_val, -1)


# Checked by the estimators: the criteria this search implements.
MULTIOUTPUT_CRITERIA = (GINI, ENTROPY, SQUARED_ERROR, ABSOLUTE_ERROR, POISSON)
