"""The exact split search for multi-output targets, as a splitter of the growth loop.

A target of ``k`` outputs (``y`` of shape (n_samples, k)) is split by the
*mean over the outputs* of the per-output impurity, as scikit-learn's
multi-output trees (Breiman et al. 1984 sum the per-output criteria; the mean
only rescales it): Gini or entropy of each output's class counts, or each
output's weighted variance. A candidate is ranked by the sum over the outputs
of the single-output proxies of :mod:`skml.tree._splitter_kernels`, so a
one-output target ranks candidates exactly as the single-output search.

This is a splitter of its own (the data class :data:`MultiTreeData`, see
:mod:`skml.tree._grower`) rather than a branch inside the single-output
search, so that the single-output kernels, the hot path of every forest and
boosting fit, are not touched: one more loop is compiled, for this data type
only. The partition, children-count and release hooks are the exact
search's (they read only X, the presorted orders and the workspace); the
children are pushed without the monotonicity bounds. Numeric
features, dense or sparse X, missing values, best or random thresholds;
criteria gini, entropy and squared error (the estimators refuse the others
with a multi-output y).

Layout of the targets: ``y_reg`` (n_samples, k) float, or ``y_cls``
(n_samples, k) int holding the *slot* ``o * max_n_classes + class`` of each
output's class, so that one flat array of ``k * max_n_classes`` weights holds
every output's class counts (an output with fewer classes leaves its last
slots at zero, which add nothing to Gini or entropy). A node's value is that
flat row: class proportions per output, or the ``k`` means.
"""

from collections import namedtuple

import numpy as np
from numba import njit

# numba's on-disk cache of a kernel is keyed on the file that defines it: after
# a change to _splitter_kernels.py or _builder_kernels.py (whose hooks this
# splitter reuses), change this file and _grower.py too (a comment will do).
from ._builder_kernels import _apply, _n_children, _release
from ._grower import fitted_samples, grow, push, register_splitter
from ._splitter_kernels import (
    ENTROPY,
    FEATURE_THRESHOLD,
    GINI,
    NEG_INF,
    SQUARED_ERROR,
    SplitRules,
    TreeData,
    _class_impurity,
    _gather_sparse,
    _xlogx,
    presort_features,
    rng_randint,
    rng_random,
    sort2,
    split_workspace,
)

__all__ = ["MultiTreeData", "build_tree_multioutput"]

# The fields of TreeData, with 2-d targets (see the module docstring) and no
# monotonicity constraints (an empty ``mono``).
MultiTreeData = namedtuple("MultiTreeData", TreeData._fields)


@njit(cache=True, nogil=True)
def multioutput_node_stats(samples, start, end, y_cls, y_reg, w, crit, value):
    """Weighted size and mean per-output impurity of a node; writes its value
    (every output's class proportions, or the ``k`` means) to ``value``."""
    wn = 0.0
    value[:] = 0.0
    if crit != SQUARED_ERROR:
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
    k = y_reg.shape[1]
    imp = 0.0
    for p in range(start, end):
        wn += w[samples[p]]
    if wn <= 0.0:
        return wn, 0.0
    for o in range(k):
        s = 0.0
        s2 = 0.0
        for p in range(start, end):
            i = samples[p]
            wy = w[i] * y_reg[i, o]
            s += wy
            s2 += wy * y_reg[i, o]
        mean = s / wn
        value[o] = mean
        imp += max(s2 / wn - mean * mean, 0.0)
    return wn, imp / k


@njit(cache=True, nogil=True)
def _add(y_cls, y_reg, crit, i, wi, sums):
    """Add sample ``i`` (weight ``wi``) to the flat running sums."""
    if crit == SQUARED_ERROR:
        for o in range(y_reg.shape[1]):
            sums[o] += wi * y_reg[i, o]
    else:
        for o in range(y_cls.shape[1]):
            sums[y_cls[i, o]] += wi


@njit(cache=True, nogil=True)
def _proxy(crit, k, cl, ctot, wl, wr):
    """Sum over the outputs of the single-output proxies (``-sum_c W_c i_c``
    up to a constant) of a candidate with left sums ``cl``.

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
    summed multi-output proxy; ``buf`` is the :data:`ScanBuffers` (``cl``,
    ``ctot``, ``cmiss`` hold the flat sums). Returns (proxy,
    n_left_non_missing, missing_left)."""
    cl, ctot, cmiss = buf.cl, buf.ctot, buf.cmiss
    crit = rules.crit
    min_samples_leaf, min_weight_leaf = rules.min_samples_leaf, rules.min_weight_leaf
    m = n_nm + n_miss
    best = NEG_INF
    best_pos = -1
    best_ml = False
    wmiss = 0.0
    cmiss[:] = 0.0
    for q in range(n_nm, m):
        i = sidx[q]
        wmiss += w[i]
        _add(y_cls, y_reg, crit, i, w[i], cmiss)
    n_pass = 2 if n_miss > 0 else 1
    for ps in range(n_pass):
        miss_left = ps == 1
        wl = wmiss if miss_left else 0.0
        for s in range(cl.shape[0]):
            cl[s] = cmiss[s] if miss_left else 0.0
        last = n_nm if (n_miss > 0 and not miss_left) else n_nm - 1
        for p in range(last):
            i = sidx[p]
            wi = w[i]
            wl += wi
            _add(y_cls, y_reg, crit, i, wi, cl)
            if p + 1 < n_nm and Xf[p + 1] <= Xf[p] + FEATURE_THRESHOLD:
                continue
            n_left = p + 1 + (n_miss if miss_left else 0)
            if n_left < min_samples_leaf or m - n_left < min_samples_leaf:
                continue
            wr = wtot - wl
            if wl < min_weight_leaf or wr < min_weight_leaf or wl <= 0.0 or wr <= 0.0:
                continue
            proxy = _proxy(crit, k, cl, ctot, wl, wr)
            if proxy > best:
                best = proxy
                best_pos = p + 1
                best_ml = miss_left
    return best, best_pos, best_ml


@njit(cache=True, nogil=True)
def find_split_multioutput(data, rules, ws, samples, start, end, wn, imp, best_out):
    """Best split of the node ``samples[start:end]`` for a multi-output target.

    As the single-output ``find_split`` (features in the node's random order
    until ``max_features`` non-constant ones were seen, presorted or sorted
    values, missing values tried on both sides, one random threshold per
    feature with ``random_split``; ties keep the first), numeric features
    only. ``imp`` is the node's mean per-output impurity; the gain written to
    ``best_out[0]`` is the decrease of that mean.
    """
    X, y_cls, y_reg, w = data.X, data.y_cls, data.y_reg, data.w
    presorted = data.presorted
    crit, max_features = rules.crit, rules.max_features
    random_split, use_presort = rules.random_split, rules.use_presort
    features, rng = ws.features, ws.rng
    Xf, sidx, tmp, ybuf, sort_stack = ws.Xf, ws.sidx, ws.tmp, ws.ybuf, ws.sort_stack
    ctot = ws.scan.ctot
    k = y_reg.shape[1] if crit == SQUARED_ERROR else y_cls.shape[1]
    n_features = features.shape[0]
    m = end - start
    # Node totals: the flat sums, and sum_o sum_i w y_o^2 for the gain.
    ctot[:] = 0.0
    s2 = 0.0
    for p in range(start, end):
        i = samples[p]
        _add(y_cls, y_reg, crit, i, w[i], ctot)
    if crit == SQUARED_ERROR:
        for o in range(k):  # output by output, in the single-output order
            s2_o = 0.0
            for p in range(start, end):
                i = samples[p]
                wy = w[i] * y_reg[i, o]
                s2_o += wy * y_reg[i, o]
            s2 += s2_o
    is_sparse = ws.node_pos.shape[0] > 0
    if is_sparse:
        for p in range(start, end):
            ws.node_pos[samples[p]] = p
    found = False
    best_proxy = NEG_INF
    n_visited = 0
    f_i = 0
    for q in range(n_features):
        features[q] = q
    while f_i < n_features and n_visited < max_features:
        r = f_i + rng_randint(rng, n_features - f_i)
        j = features[r]
        features[r] = features[f_i]
        features[f_i] = j
        f_i += 1
        n_nm = 0
        n_miss = 0
        if random_split:
            vals = ybuf
            ids = tmp
        else:
            vals = Xf
            ids = sidx
        if is_sparse:
            n_nm = _gather_sparse(data.csc, j, samples, start, end, ws.node_pos, vals, ids)
        elif use_presort:
            for p in range(start, end):
                i = presorted[j, p]
                x = X[i, j]
                if x != x:
                    n_miss += 1
                    ids[m - n_miss] = i
                else:
                    vals[n_nm] = x
                    ids[n_nm] = i
                    n_nm += 1
        else:
            for p in range(start, end):
                i = samples[p]
                x = X[i, j]
                if x != x:
                    n_miss += 1
                    ids[m - n_miss] = i
                else:
                    vals[n_nm] = x
                    ids[n_nm] = i
                    n_nm += 1
        if n_nm == 0:
            continue
        if random_split:
            lo = np.inf
            hi = -np.inf
            for q in range(n_nm):
                lo = min(lo, ybuf[q])
                hi = max(hi, ybuf[q])
            if hi <= lo + FEATURE_THRESHOLD:
                continue
            n_visited += 1
            thr = lo + rng_random(rng) * (hi - lo)
            if thr == hi:
                thr = lo
            # Two plateaus (left values, right values): one candidate.
            nl = 0
            for q in range(n_nm):
                if ybuf[q] <= thr:
                    sidx[nl] = tmp[q]
                    Xf[nl] = lo
                    nl += 1
            nr = nl
            for q in range(n_nm):
                if ybuf[q] > thr:
                    sidx[nr] = tmp[q]
                    Xf[nr] = hi
                    nr += 1
            for q in range(n_nm, m):
                sidx[q] = tmp[q]
            proxy, n_left, ml_b = _scan_multioutput(Xf, sidx, n_nm, n_miss, y_cls, y_reg,
                                                    w, rules, k, ws.scan, wn)
            if proxy == NEG_INF or (n_left != nl and n_left != n_nm):
                continue
            if n_left == n_nm:
                thr = np.inf
        else:
            if not use_presort:
                sort2(Xf, sidx, n_nm, sort_stack)
            if Xf[n_nm - 1] <= Xf[0] + FEATURE_THRESHOLD and n_miss == 0:
                continue
            n_visited += 1
            proxy, n_left, ml_b = _scan_multioutput(Xf, sidx, n_nm, n_miss, y_cls, y_reg,
                                                    w, rules, k, ws.scan, wn)
            if proxy == NEG_INF:
                continue
            if n_left == n_nm:
                thr = np.inf
            else:
                thr = 0.5 * (Xf[n_left - 1] + Xf[n_left])
                if thr == Xf[n_left] or thr == np.inf or thr == -np.inf:
                    thr = Xf[n_left - 1]
        if proxy <= best_proxy:
            continue
        best_proxy = proxy
        found = True
        ml = 1 if ml_b else 0
        if n_miss == 0:
            ml = 1 if n_left > m - n_left else 0
        if crit == GINI:
            children = k * wn - proxy
        elif crit == SQUARED_ERROR:
            children = s2 - proxy
        else:
            children = -proxy
        b = best_out[0]
        b.feature = j
        b.proxy = proxy
        b.threshold = thr
        b.missing_left = ml
        b.n_left = n_left
        b.gain = imp - children / (k * wn)
        b.split_info = 0.0
    return found


@njit(cache=True, nogil=True)
def _stats(data, config, ws, rules, samples, node, value_row):
    return multioutput_node_stats(samples, node.start, node.end, data.y_cls, data.y_reg,
                                  data.w, rules.crit, value_row)


@njit(cache=True, nogil=True)
def _search(data, config, ws, rules, samples, node, wn, imp, best):
    ws.rng[0] = node.key
    return find_split_multioutput(data, config, ws, samples, node.start, node.end, wn,
                                  imp, best)


@njit(cache=True, nogil=True)
def _push_children(data, config, ws, rules, samples, nodes, nd, stack, top):
    """Push the two children of the binary split node ``nd``, right then left
    (pre-order ids, left child first); no bounds rows (no constraints)."""
    node = nodes[nd]
    depth = node.depth + 1
    top = push(stack, top, node.split_pos, node.end, depth, nd, 1, -1)
    return push(stack, top, node.start, node.split_pos, depth, nd, 0, -1)


register_splitter(MultiTreeData, stats=_stats, search=_search, apply=_apply,
                  n_children=_n_children, push_children=_push_children, release=_release)


@njit(cache=True, nogil=True)
def build_tree_multioutput(X, csc, y_cls, y_reg, w, rules):
    """Grow a multi-output tree (numeric features) with this splitter; as
    :func:`~skml.tree._builder_kernels.build_tree`, ``rules.n_values`` being
    the width of a node's flat value (``k * max_n_classes``, or ``k``)."""
    n_total = w.shape[0]
    n_features = X.shape[1] if csc[2].shape[0] == 0 else csc[2].shape[0] - 1
    is_sparse = csc[2].shape[0] > 0
    cat_n = np.zeros(n_features, dtype=np.intp)
    samples = fitted_samples(w)
    n = samples.shape[0]
    w_root = 0.0
    for i in range(n_total):
        w_root += w[i]
    n_val = max(rules.n_values, 1)
    random_split = rules.random_split
    if is_sparse:
        use_presort = False
    elif rules.presort < 0:
        use_presort = (not random_split) and 2 * rules.max_features >= n_features
    else:
        use_presort = rules.presort > 0 and not random_split
    if use_presort:
        presorted = presort_features(X, samples, cat_n)
    else:
        presorted = np.zeros((0, 0), dtype=np.int32)
    # No monotonicity constraints (refused with several outputs, as scikit-learn).
    data = MultiTreeData(X, csc, y_cls, y_reg, w, cat_n, presorted,
                         np.zeros(0, dtype=np.int8))
    config = SplitRules(rules.crit, rules.n_values, rules.max_features, random_split,
                        rules.min_samples_leaf, rules.min_weight_leaf, use_presort,
                        is_sparse)
    ws = split_workspace(n_total, n_features, 1, n_val, is_sparse, use_presort)
    return grow(data, config, ws, rules, samples, w_root, 2 * n, n_val, -1)


# Checked by the estimators: the criteria this search implements.
MULTIOUTPUT_CRITERIA = (GINI, ENTROPY, SQUARED_ERROR)
