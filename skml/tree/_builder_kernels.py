"""The exact split search as a splitter of the growth loop, and its builder.

:func:`build_tree` grows a tree with :func:`skml.tree._grower.grow` (the
one growth loop, depth-first or best-first, all in numba: a full-depth tree
on 15k samples has tens of thousands of nodes, and a Python-level loop would
cost more than the split searches themselves) and the exact search of
:mod:`skml.tree._splitter_kernels`: sorted or presorted numeric features,
dense or sparse X, multiway categorical splits; :func:`build_tree_dense`
grows the same tree for the common case (dense X, numeric features, no
constraints) with a splitter that carries nothing else. The storage layout is
described in :mod:`skml.tree._tree`; prediction walks the packed layout of
:mod:`skml.tree._packed`.
"""

from collections import namedtuple

import numpy as np
from numba import njit

# numba's on-disk cache of a kernel is keyed on the file that defines it (a
# hash of its text: touching it is not enough), not on the kernels it calls:
# after a change to _splitter_kernels.py, change this file and _grower.py too
# (these comments will do), or the cached growth keeps the old search.
# (Last: CART's binary groupings of categories, Li Hang's C4.5 selection; the shared
# feature gather, random thresholds and rank sums, inlined; the gather and the hooks
# given arrays, not tuples; the sparse search's per-node buckets.)
# (Random thresholds without missing values: one pass for the left sums, no scan.)
# (The random splitter's missing values: one side by a coin, scikit-learn's rule.)
# (Sparse X: the caller's CSR values read in place, a column view of positions, none
# for the whole-node search; feat/smem.)
# (The random splitter's node arrays and branchless left sums, feat/xtree.)
from ._grower import (
    NODE,
    Grown,
    TREE_LEAF,
    TREE_UNDEFINED,
    GrowthRules,
    grow,
    grow_in,
    growth_store,
    push,
    register_splitter,
    root_samples,
)
from ._splitter_kernels import (
    GAIN_RATIO,
    DenseBuffers,
    DenseData,
    SplitRules,
    TreeData,
    find_split,
    find_split_dense,
    sparse_rows,
    node_stats,
    partition_categorical,
    partition_numeric,
    partition_presorted,
    partition_sparse,
    presort_chosen,
    presort_if_chosen,
    split_workspace,
)

__all__ = ["NODE", "TREE_LEAF", "TREE_UNDEFINED", "GrowthRules", "build_tree",
           "build_tree_dense"]

# The exact split search is the growth loop's splitter (see
# skml.tree._grower) of the data TreeData, the settings SplitRules and the
# workspace SplitWorkspace (with presorting, the presorted partitions'
# buffers too) of skml.tree._splitter_kernels.
#
# Monotonicity constraints (data.mono not empty): a node's NODE.work is its
# row of ws.bounds, the (lo, hi) bounds of its value, which the node's value
# is clipped to (stats) and its split's children values must keep (search).
# The children of a split on a constrained feature get new rows, bounded on
# one side by the split's middle value (the mean of the children's values),
# as scikit-learn's builder; other children share their parent's row.
# Without constraints every work is -1 and none of this runs.


@njit(cache=True, nogil=True)
def _code(x, k):
    """Category code of ``x`` among ``k`` (NaN is code ``k``)."""
    return k if x != x else int(x)


@njit(cache=True, nogil=True)
def _n_categorical_children(X, samples, node, cat_n):
    """Children of a categorical split: the runs of equal codes in its segment."""
    j = node.feature
    n_ch = 0
    last_code = -1
    for p in range(node.start, node.end):
        code = _code(X[samples[p], j], cat_n[j])
        if code != last_code:
            n_ch += 1
            last_code = code
    return n_ch


@njit(cache=True, nogil=True)
def _clip_value(value_row, lo, hi, classify):
    """Clip a constrained node's value (class 0's proportion for a binary
    classifier, whose other proportion follows) to its bounds."""
    v = value_row[0]
    if v < lo:
        value_row[0] = lo
    elif v > hi:
        value_row[0] = hi
    if classify and value_row.shape[0] == 2:
        value_row[1] = 1.0 - value_row[0]


@njit(cache=True, nogil=True)
def _node_bounds(bounds, work):
    """The value bounds (lo, hi) of a node of NODE.work ``work`` (none: -1)."""
    if work < 0:
        return -np.inf, np.inf
    return bounds[work, 0], bounds[work, 1]


@njit(cache=True, nogil=True)
def _stats(data, config, ws, rules, samples, node, value_row):
    # The tuples' arrays taken out before any call: the inlined copies of
    # data and ws then die in the block they were made in (and cost nothing).
    y_cls, y_reg, w = data.y_cls, data.y_reg, data.w
    ybuf, wbuf, bounds = ws.ybuf, ws.wbuf, ws.bounds
    wn, imp = node_stats(samples, node.start, node.end, y_cls, y_reg, w, rules.crit,
                         value_row, ybuf, wbuf)
    if node.work >= 0:
        _clip_value(value_row, bounds[node.work, 0], bounds[node.work, 1],
                    rules.crit <= GAIN_RATIO)
    return wn, imp


@njit(cache=True, nogil=True)
def _search(data, config, ws, rules, samples, node, wn, imp, best):
    ws.rng[0] = node.key
    lo, hi = _node_bounds(ws.bounds, node.work)
    # One call site: two made the unconstrained growth ~8% slower.
    return find_split(data, config, ws, samples, node.start, node.end, wn, imp, best,
                      lo, hi)


@njit(cache=True, nogil=True)
def _apply(data, config, ws, rules, samples, node, best):
    """Partition the node's segment by the split ``best[0]``; returns the
    category-pool entries a multiway split takes (0 for a binary one)."""
    X, csc, cat_n, presorted = data.X, data.csc, data.cat_n, data.presorted
    tmp, slot_count, child_end, group, ps_tmp = (ws.tmp, ws.slot_count, ws.child_end,
                                                 ws.group, ws.ps_tmp)
    group_side, cat_grouping = ws.group_side, ws.cat_grouping
    node_pos, side, ybuf, sidx = ws.node_pos, ws.side, ws.ybuf, ws.sidx
    split = best[0]
    j = split.feature
    start = node.start
    end = node.end
    use_presort = config.use_presort
    if cat_n[j] > 0 and cat_grouping:
        # CART's grouping: the codes of side 1 left, as a binary split (the
        # builder's _pool_groupings stores it as a categorical node).
        code_side = group_side[j]
        k = cat_n[j]
        nl = 0
        for p in range(start, end):
            i = samples[p]
            code = _code(X[i, j], k)
            if code_side[code]:
                samples[start + nl] = i
                nl += 1
            else:
                tmp[p - start - nl] = i
        for q in range(end - start - nl):
            samples[start + nl + q] = tmp[q]
        node.split_pos = start + nl
        node.threshold = np.nan
        node.missing_left = 0
    elif cat_n[j] > 0:
        n_slots = cat_n[j] + 1
        n_children = partition_categorical(X, samples, start, end, j, n_slots,
                                           tmp, slot_count)
        if use_presort:
            c = 0
            pos = start
            for q in range(n_slots):
                if slot_count[q] > 0:
                    pos += slot_count[q]
                    child_end[c] = pos
                    c += 1
            partition_presorted(presorted, cat_n, samples, start, end, child_end,
                                n_children, group, ps_tmp)
        node.threshold = np.nan
        return n_slots + 1  # + 1: the default (unseen code) child
    else:
        node.threshold = split.threshold
        node.missing_left = split.missing_left
        if config.is_sparse:
            node.split_pos = partition_sparse(csc, samples, start, end, j,
                                              split.threshold, node_pos, side, ybuf,
                                              sidx, tmp)
        else:
            node.split_pos = partition_numeric(X, samples, start, end, j,
                                               split.threshold, split.missing_left != 0,
                                               tmp)
    if use_presort:  # a binary split (numeric, or a grouping of codes)
        child_end[0] = node.split_pos
        child_end[1] = end
        partition_presorted(presorted, cat_n, samples, start, end, child_end,
                            2, group, ps_tmp)
    return 0


@njit(cache=True, nogil=True)
def _n_children(data, config, ws, samples, node):
    if node.category_offset < 0:
        return 2
    return _n_categorical_children(data.X, samples, node, data.cat_n)


@njit(cache=True, nogil=True)
def _push_children(data, config, ws, rules, samples, nodes, nd, stack, top):
    """Push the children of the split node ``nd`` in reverse order, so that
    they get consecutive ids in order (depth-first: pre-order ids, left child
    first, as scikit-learn)."""
    X, cat_n, mono = data.X, data.cat_n, data.mono
    y_cls, y_reg, w = data.y_cls, data.y_reg, data.w
    counts, ybuf, wbuf = ws.counts, ws.ybuf, ws.wbuf
    bounds, n_bounds = ws.bounds, ws.n_bounds
    node = nodes[nd]
    depth = node.depth + 1
    if node.category_offset < 0:
        work_left = node.work
        work_right = node.work
        if node.work >= 0 and mono[node.feature] != 0:
            work_left, work_right = _child_bounds(y_cls, y_reg, w, mono, rules.crit,
                                                  counts, ybuf, wbuf, bounds, n_bounds,
                                                  samples, node)
        top = push(stack, top, node.split_pos, node.end, depth, nd, 1, work_right)
        return push(stack, top, node.start, node.split_pos, depth, nd, 0, work_left)
    # A categorical node's segment is grouped by code: one child per run.
    j = node.feature
    k = cat_n[j]
    p = node.end
    while p > node.start:
        code = _code(X[samples[p - 1], j], k)
        q = p - 1
        while q > node.start and _code(X[samples[q - 1], j], k) == code:
            q -= 1
        top = push(stack, top, q, p, depth, nd, code, node.work)
        p = q
    return top


@njit(cache=True, nogil=True)
def _child_bounds(y_cls, y_reg, w, mono, crit, v, ybuf, wbuf, b, n_bounds, samples,
                  node):
    """Bounds rows (of ``b``, ``n_bounds[0]`` used) of the children of a
    split on a constrained feature: the parent's bounds, cut at the middle of
    the children's (unclipped) values, the left child below it for an
    increasing constraint, above it for a decreasing one. ``v``, ``ybuf``,
    ``wbuf``: scratch (the workspace's counts, ybuf, wbuf)."""
    node_stats(samples, node.start, node.split_pos, y_cls, y_reg, w, crit, v, ybuf,
               wbuf)
    v_left = v[0]
    node_stats(samples, node.split_pos, node.end, y_cls, y_reg, w, crit, v, ybuf, wbuf)
    lo = b[node.work, 0]
    hi = b[node.work, 1]
    # The search kept both values in [lo, hi]; the clip guards the round-off
    # of the sums here (and the absolute error, whose search compares lower
    # medians), so that the children's bounds nest in the parent's.
    middle = min(max(0.5 * (v_left + v[0]), lo), hi)
    k = n_bounds[0]
    n_bounds[0] = k + 2
    b[k, 0] = lo
    b[k, 1] = hi
    b[k + 1, 0] = lo
    b[k + 1, 1] = hi
    if mono[node.feature] > 0:
        b[k, 1] = middle
        b[k + 1, 0] = middle
    else:
        b[k, 0] = middle
        b[k + 1, 1] = middle
    return k, k + 1


@njit(cache=True, nogil=True)
def _release(data, config, ws, node):
    pass


register_splitter(TreeData, stats=_stats, search=_search, apply=_apply,
                  n_children=_n_children, push_children=_push_children, release=_release)


# The exact search of a dense X of numeric features without constraints, the
# common case (build_tree_dense), as a splitter of its own: its hooks take out
# of DenseTreeData and the workspace only the arrays they use, at their top,
# before any branch (so numba's per-block pruning drops the reference counts
# of the inlined copies), and its search, find_split_dense, receives no
# others. With the general splitter (hooks and find_split carrying the
# sparse, categorical and constrained searches' arrays too) NRT_incref and
# NRT_decref took 26% of a default DecisionTreeRegressor's fit and 60% of an
# ExtraTreeRegressor's (perf, 15k x 20): at every node, tens of atomic
# pairs that LLVM's pruning left. ``cat_n`` is all zeros (for
# partition_presorted). The grown tree is the general splitter's, bit for bit.
DenseTreeData = namedtuple("DenseTreeData", ["X", "presorted", "y_cls", "y_reg", "w",
                                             "cat_n"])


@njit(cache=True, nogil=True)
def _stats_dense(data, config, ws, rules, samples, node, value_row):
    y_cls, y_reg, w = data.y_cls, data.y_reg, data.w
    ybuf, wbuf = ws.ybuf, ws.wbuf
    return node_stats(samples, node.start, node.end, y_cls, y_reg, w, rules.crit,
                      value_row, ybuf, wbuf)


@njit(cache=True, nogil=True)
def _search_dense(data, config, ws, rules, samples, node, wn, imp, best):
    dense = DenseData(data.X, data.presorted, data.y_cls, data.y_reg, data.w)
    bufs = DenseBuffers(ws.features, ws.cand, ws.rng, ws.Xf, ws.sidx, ws.sort_stack,
                        ws.ybuf, ws.tmp, ws.scan)
    bufs.rng[0] = node.key
    return find_split_dense(dense, bufs, config, samples, node.start, node.end, wn, imp,
                            best)


@njit(cache=True, nogil=True)
def _partition_dense(X, presorted, cat_n, samples, node, split, use_presort, tmp,
                     child_end, group, ps_tmp):
    """Partition a dense node's segment by the numeric split ``split`` (the
    presorted orders too); returns the boundary."""
    pos = partition_numeric(X, samples, node.start, node.end, split.feature,
                            split.threshold, split.missing_left != 0, tmp)
    if use_presort:
        child_end[0] = pos
        child_end[1] = node.end
        partition_presorted(presorted, cat_n, samples, node.start, node.end, child_end,
                            2, group, ps_tmp)
    return pos


@njit(cache=True, nogil=True)
def _apply_dense(data, config, ws, rules, samples, node, best):
    X, presorted, cat_n = data.X, data.presorted, data.cat_n
    tmp, child_end, group, ps_tmp = ws.tmp, ws.child_end, ws.group, ws.ps_tmp
    node.split_pos = _partition_dense(X, presorted, cat_n, samples, node, best[0],
                                      config.use_presort, tmp, child_end, group, ps_tmp)
    node.threshold = best[0].threshold
    node.missing_left = best[0].missing_left
    return 0


@njit(cache=True, nogil=True)
def _two_children(data, config, ws, samples, node):
    return 2


@njit(cache=True, nogil=True)
def push_binary(data, config, ws, rules, samples, nodes, nd, stack, top):
    """Push the two children of the binary split node ``nd``, right then left
    (pre-order ids, left child first); no bounds rows (no constraints)."""
    node = nodes[nd]
    depth = node.depth + 1
    top = push(stack, top, node.split_pos, node.end, depth, nd, 1, -1)
    return push(stack, top, node.start, node.split_pos, depth, nd, 0, -1)


register_splitter(DenseTreeData, stats=_stats_dense, search=_search_dense,
                  apply=_apply_dense, n_children=_two_children, push_children=push_binary,
                  release=_release)


@njit(cache=True, nogil=True)
def _is_grouping(node, cat_n):
    return node.left != TREE_LEAF and node.category_offset < 0 and cat_n[node.feature] > 0


@njit(cache=True, nogil=True)
def _pool_groupings(grown, samples, X, cat_n):
    """Store each grouping split (grown as a binary split on a categorical
    feature) as a categorical node of two children: each code present at
    the node maps to its child; absent codes, a missing value the node did
    not see and unseen codes go to the more populated child (the left one
    of equals), as for multiway nodes. ``samples`` are the grown tree's
    rows, each node's segment ``[start, end)`` cut at ``split_pos``."""
    nodes = grown.nodes
    n_extra = 0
    for nd in range(nodes.shape[0]):
        if _is_grouping(nodes[nd], cat_n):
            n_extra += cat_n[nodes[nd].feature] + 2
    if n_extra == 0:
        return grown
    old = grown.pool
    pool = np.full(old.shape[0] + n_extra, TREE_LEAF, dtype=np.intp)
    pool[:old.shape[0]] = old
    off = old.shape[0]
    for nd in range(nodes.shape[0]):
        node = nodes[nd]
        if not _is_grouping(node, cat_n):
            continue
        j = node.feature
        k = cat_n[j]
        left = node.left
        right = node.right
        for p in range(node.start, node.end):
            pool[off + _code(X[samples[p], j], k)] = left if p < node.split_pos else right
        big = left
        if nodes[right].n_node_samples > nodes[left].n_node_samples:
            big = right
        for s in range(k + 2):
            if pool[off + s] < 0:
                pool[off + s] = big
        node.category_offset = off
        off += k + 2
    return Grown(nodes, grown.value, pool, grown.max_depth)


@njit(cache=True, nogil=True)
def build_tree(X, csc, y_cls, y_reg, w, cat_n, mono, rules, cat_grouping=False,
               ratio_epsilon=-1.0):
    """Grow a tree with the exact split search; returns a
    :data:`~skml.tree._grower.Grown` (its :data:`NODE` records and values,
    the category pool and the depth).

    ``X`` is dense (n_samples, n_features), or for a sparse X a placeholder
    and ``csc`` its arrays (:func:`~skml.tree._tree.sparse_views`), empty
    for a dense one (see :data:`~skml.tree._splitter_kernels.TreeData`). ``rules`` is a
    :data:`GrowthRules`. ``presort``: 1 keeps every numeric
    feature presorted, 0 sorts the examined features in each node, -1
    chooses (presort when at least half of the features are examined per
    node). ``max_leaf_nodes < 0`` grows depth-first (node ids in pre-order,
    left child first, as scikit-learn); otherwise best-first, always
    expanding the frontier node with the largest weighted impurity decrease.
    ``mono`` holds each feature's monotonicity constraint (int8 -1/0/1; for
    a classifier on class 0's proportion), empty for none.
    ``cat_grouping``: categorical features are split in two groups of codes
    (CART's grouping) instead of one child per code; ``ratio_epsilon >= 0``:
    the gain-ratio criterion takes Li Hang's selection with that epsilon
    (see :func:`~skml.tree._splitter_kernels.find_split`).
    """
    n_total = w.shape[0]
    n = 0
    for i in range(n_total):
        n += w[i] != 0.0  # (the rows root_samples keeps)
    scratch = tree_scratch(csc, cat_n, mono, rules, n, n_total, cat_grouping, ratio_epsilon)
    return _build_tree(X, csc, y_cls, y_reg, w, cat_n, mono, rules, scratch)


@njit(cache=True, nogil=True)
def tree_scratch(csc, cat_n, mono, rules, n, n_total, cat_grouping=False, ratio_epsilon=-1.0):
    """The buffers :func:`build_tree` grows a tree in, for trees of up to
    ``n`` rows of nonzero weight among ``n_total`` with these settings:
    ``(workspace, row structure, growth store)``. A forest makes them once
    and grows all its trees in them (:func:`build_tree_in`): made for each
    tree, tens of MiB of mostly untouched blocks freed after each one left
    the heap in pieces that the next tree's blocks did not fit, and a
    sparse forest's resident memory grew with them."""
    n_features = cat_n.shape[0]
    is_sparse = csc[2].shape[0] > 0
    n_val = max(rules.n_values, 1)
    max_slots = 1
    for j in range(n_features):
        max_slots = max(max_slots, cat_n[j] + 1)
    use_presort = presort_chosen(cat_n, rules, is_sparse)
    # Bounds rows: the root's, and two per split on a constrained feature.
    ws = split_workspace(n_total, n_features, max_slots, n_val, is_sparse, use_presort,
                         2 * n + 1 if mono.shape[0] > 0 else 0, 1, cat_grouping,
                         ratio_epsilon)
    # Every internal node has >= 2 children and every leaf >= 1 sample, so a
    # tree on n samples has at most 2n - 1 nodes.
    return ws, sparse_rows(csc, n_features, rules), growth_store(max(2 * n, 1), n_val)


@njit(cache=True, nogil=True)
def build_tree_in(X, csc, y_cls, y_reg, w, cat_n, mono, rules, scratch):
    """:func:`build_tree` in ``scratch`` (:func:`tree_scratch`, made for
    these settings and at least this tree's rows), which later trees reuse:
    the same tree, bit for bit. The returned records are a view of the
    scratch's store: read them before growing the next tree in it."""
    ws = scratch[0]
    # The small accumulators start each tree at zero, as made.
    ws.counts[:] = 0.0
    ws.child_end[:] = 0
    ws.scan.cl[:] = 0.0
    ws.scan.ctot[:] = 0.0
    ws.scan.cmiss[:] = 0.0
    ws.n_bounds[0] = 0
    ws.group_side[:] = 0
    ws.code_stats[:] = 0.0
    return _build_tree(X, csc, y_cls, y_reg, w, cat_n, mono, rules, scratch)


@njit(cache=True, nogil=True)
def _build_tree(X, csc, y_cls, y_reg, w, cat_n, mono, rules, scratch):
    ws, rows, store = scratch
    n_features = cat_n.shape[0]
    is_sparse = csc[2].shape[0] > 0
    samples, w_root = root_samples(w)
    n_val = max(rules.n_values, 1)
    # Presorting: every numeric feature is sorted once at the root and its
    # order is carried down by stable partitions, O(m) per feature and node
    # instead of an O(m log m) sort. It pays off when most features are
    # examined at each node (all of them for a plain tree); a forest drawing
    # a few features per node sorts just those instead.
    random_split = rules.random_split
    use_presort, presorted = presort_if_chosen(X, samples, cat_n, rules, is_sparse)
    data = TreeData(X, csc, y_cls, y_reg, w, cat_n, presorted, mono, rows)
    config = SplitRules(rules.crit, rules.n_values, rules.max_features, random_split,
                        rules.min_samples_leaf, rules.min_weight_leaf, use_presort,
                        is_sparse)
    root_work = -1
    if mono.shape[0] > 0:
        ws.bounds[0, 0] = -np.inf
        ws.bounds[0, 1] = np.inf
        ws.n_bounds[0] = 1
        root_work = 0
    grown = grow_in(store, data, config, ws, rules, samples, w_root, root_work)
    if ws.cat_grouping:
        return _pool_groupings(grown, samples, X, cat_n)
    return grown


@njit(cache=True, nogil=True)
def build_tree_dense(X, y_cls, y_reg, w, rules):
    """:func:`build_tree` for a dense ``X`` of numeric features without
    monotonicity constraints (nor Li Hang's C4.5 selection), with the
    splitter :data:`DenseTreeData` (see there): the same tree, bit for bit."""
    n_total = w.shape[0]
    n_features = X.shape[1]
    cat_n = np.zeros(n_features, dtype=np.intp)
    samples, w_root = root_samples(w)
    n = samples.shape[0]
    n_val = max(rules.n_values, 1)
    use_presort, presorted = presort_if_chosen(X, samples, cat_n, rules, False)
    data = DenseTreeData(X, presorted, y_cls, y_reg, w, cat_n)
    config = SplitRules(rules.crit, rules.n_values, rules.max_features, rules.random_split,
                        rules.min_samples_leaf, rules.min_weight_leaf, use_presort, False)
    ws = split_workspace(n_total, n_features, 1, n_val, False, use_presort)
    return grow(data, config, ws, rules, samples, w_root, 2 * n, n_val, -1)
