"""Numba kernels of tree growth (depth-first and best-first).

The whole growth loop runs in numba: a full-depth tree on 15k samples has
tens of thousands of nodes, and a Python-level loop would cost more than the
split searches themselves. The storage layout is described in
:mod:`skml.tree._tree`; prediction walks the packed layout of
:mod:`skml.tree._packed`.
"""

from collections import namedtuple

import numpy as np
from numba import njit

# numba's on-disk cache of a kernel is keyed on the file that defines it, not
# on the kernels it calls: after a change to _splitter_kernels.py, change this
# file too (this comment will do), or the cached growth keeps the old search.
from ._splitter_kernels import (
    EPSILON,
    SPLIT,
    SplitRules,
    TreeData,
    child_key,
    find_split,
    node_stats,
    partition_categorical,
    partition_numeric,
    partition_presorted,
    partition_sparse,
    presort_features,
    root_key,
    split_workspace,
)

TREE_LEAF = -1
TREE_UNDEFINED = -2

# A node while the tree grows. The first nine fields are the columns of
# skml.tree._tree.Tree (cut out by grow_tree); the others are growth state:
# the node's segment samples[start:end], its depth, where its binary split
# puts the boundary, its weighted impurity decrease (best-first order), its
# random-stream key.
NODE = np.dtype([
    ("left", np.intp), ("right", np.intp), ("feature", np.intp),
    ("threshold", np.float64), ("missing_left", np.uint8), ("impurity", np.float64),
    ("n_node_samples", np.intp), ("weighted_n_node_samples", np.float64),
    ("category_offset", np.intp),
    ("start", np.intp), ("end", np.intp), ("depth", np.intp), ("split_pos", np.intp),
    ("improvement", np.float64), ("key", np.uint64),
], align=True)

# A node to create: its segment, depth, parent, its slot in the parent (side
# 0/1, or category code).
STACK_ENTRY = np.dtype([
    ("start", np.intp), ("end", np.intp), ("depth", np.intp), ("parent", np.intp),
    ("slot", np.intp),
], align=True)

# The growth settings of one tree.
GrowthRules = namedtuple("GrowthRules", [
    "crit", "n_values", "max_features", "random_split", "max_depth",
    "min_samples_split", "min_samples_leaf", "min_weight_leaf",
    "min_impurity_decrease", "max_leaf_nodes", "seed", "presort",
])


@njit(cache=True, nogil=True)
def fitted_samples(w):
    """Indices of the samples of nonzero weight (scikit-learn drops the others)."""
    n_total = w.shape[0]
    n = 0
    for i in range(n_total):
        if w[i] != 0.0:
            n += 1
    samples = np.empty(n, dtype=np.intp)
    k = 0
    for i in range(n_total):
        if w[i] != 0.0:
            samples[k] = i
            k += 1
    return samples


@njit(cache=True, nogil=True)
def new_node(nodes, nd, entry, key):
    """Initialise ``nodes[nd]`` (a leaf until split) from its stack entry."""
    node = nodes[nd]
    node.left = TREE_LEAF
    node.right = TREE_LEAF
    node.feature = TREE_UNDEFINED
    node.threshold = float(TREE_UNDEFINED)
    node.missing_left = 0
    node.impurity = 0.0
    node.n_node_samples = entry.end - entry.start
    node.weighted_n_node_samples = 0.0
    node.category_offset = TREE_LEAF
    node.start = entry.start
    node.end = entry.end
    node.depth = entry.depth
    node.split_pos = 0
    node.improvement = 0.0
    node.key = key
    return node


@njit(cache=True, nogil=True)
def push(stack, top, start, end, depth, parent, slot):
    """Put a node to create on the stack; returns the new top."""
    e = stack[top]
    e.start = start
    e.end = end
    e.depth = depth
    e.parent = parent
    e.slot = slot
    return top + 1


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
def _push_children(stack, top, nodes, nd, X, samples, cat_n):
    """Push the children of the split node ``nd`` in reverse order, so that
    they get consecutive ids in order (depth-first: pre-order ids, left child
    first, as scikit-learn)."""
    node = nodes[nd]
    depth = node.depth + 1
    if node.category_offset < 0:
        top = push(stack, top, node.split_pos, node.end, depth, nd, 1)
        return push(stack, top, node.start, node.split_pos, depth, nd, 0)
    # A categorical node's segment is grouped by code: one child per run.
    j = node.feature
    k = cat_n[j]
    p = node.end
    while p > node.start:
        code = _code(X[samples[p - 1], j], k)
        q = p - 1
        while q > node.start and _code(X[samples[q - 1], j], k) == code:
            q -= 1
        top = push(stack, top, q, p, depth, nd, code)
        p = q
    return top


@njit(cache=True, nogil=True)
def link_child(nodes, pool, parent, slot, nd):
    """Record node ``nd`` as the child of ``parent`` in ``slot``."""
    par = nodes[parent]
    if par.category_offset >= 0:
        pool[par.category_offset + slot] = nd
        if par.left == TREE_LEAF:
            par.left = nd
        par.right = nd
    elif slot == 0:
        par.left = nd
    else:
        par.right = nd


@njit(cache=True, nogil=True)
def pop_best(nodes, frontier, n_frontier):
    """Remove and return the frontier node of largest improvement (the first
    of equals); the frontier's last node takes its place."""
    kb = 0
    for q in range(1, n_frontier):
        if nodes[frontier[q]].improvement > nodes[frontier[kb]].improvement:
            kb = q
    nd = frontier[kb]
    frontier[kb] = frontier[n_frontier - 1]
    return nd


@njit(cache=True, nogil=True)
def _grow_pool(pool, needed):
    if needed <= pool.shape[0]:
        return pool
    new = np.full(max(needed, 2 * pool.shape[0]), TREE_LEAF, dtype=np.intp)
    new[:pool.shape[0]] = pool
    return new


@njit(cache=True, nogil=True)
def build_tree(X, csc, y_cls, y_reg, w, cat_n, rules):
    """Grow a tree; returns its :data:`NODE` records and values (trimmed),
    the category pool and the depth.

    ``X`` is dense (n_samples, n_features), or for a sparse X a placeholder
    and ``csc`` its CSC (data, indices, indptr), empty for a dense one (see
    :data:`~skml.tree._splitter_kernels.TreeData`). ``rules`` is a
    :data:`GrowthRules`. ``presort``: 1 keeps every numeric
    feature presorted, 0 sorts the examined features in each node, -1
    chooses (presort when at least half of the features are examined per
    node). ``max_leaf_nodes < 0`` grows depth-first (node ids in pre-order,
    left child first, as scikit-learn); otherwise best-first, always
    expanding the frontier node with the largest weighted impurity decrease.
    """
    n_total = w.shape[0]
    n_features = cat_n.shape[0]
    is_sparse = csc[2].shape[0] > 0
    samples = fitted_samples(w)
    n = samples.shape[0]
    w_root = 0.0
    for i in range(n_total):
        w_root += w[i]
    n_val = max(rules.n_values, 1)
    max_slots = 1
    for j in range(n_features):
        max_slots = max(max_slots, cat_n[j] + 1)
    # Every internal node has >= 2 children and every leaf >= 1 sample, so a
    # tree on n samples has at most 2n - 1 nodes.
    cap = 2 * n
    nodes = np.zeros(cap, dtype=NODE)
    value = np.zeros((cap, n_val))
    pool = np.full(16, TREE_LEAF, dtype=np.intp)
    pool_used = 0
    ws = split_workspace(n_total, n_features, max_slots, n_val, is_sparse)
    best = np.zeros(1, dtype=SPLIT)
    # Presorting: every numeric feature is sorted once at the root and its
    # order is carried down by stable partitions, O(m) per feature and node
    # instead of an O(m log m) sort. It pays off when most features are
    # examined at each node (all of them for a plain tree); a forest drawing
    # a few features per node sorts just those instead.
    n_numeric = 0
    for j in range(n_features):
        if cat_n[j] == 0:
            n_numeric += 1
    random_split = rules.random_split
    if is_sparse:
        use_presort = False
    elif rules.presort < 0:  # automatic
        use_presort = ((not random_split) and n_numeric > 0
                       and 2 * rules.max_features >= n_features)
    else:
        use_presort = rules.presort > 0 and not random_split and n_numeric > 0
    if use_presort:
        presorted = presort_features(X, samples, cat_n)
    else:
        presorted = np.zeros((0, 0), dtype=np.int32)
    group = np.zeros(n_total if use_presort else 0, dtype=np.intp)
    ps_tmp = np.zeros(n_total + max_slots + 2 if use_presort else 0, dtype=np.intp)
    child_end = np.zeros(max_slots + 1, dtype=np.intp)
    data = TreeData(X, csc, y_cls, y_reg, w, cat_n, presorted)
    split_rules = SplitRules(rules.crit, rules.n_values, rules.max_features, random_split,
                             rules.min_samples_leaf, rules.min_weight_leaf, use_presort)
    crit = rules.crit
    min_samples_leaf = rules.min_samples_leaf
    min_weight_leaf = rules.min_weight_leaf
    max_leaf_nodes = rules.max_leaf_nodes
    node_count = 0
    max_depth_seen = 0

    # Stack (depth-first) or frontier (best-first) of pending work.
    stack = np.zeros(cap + 1, dtype=STACK_ENTRY)
    frontier = np.zeros(cap + 1, dtype=np.intp)
    n_frontier = 0
    n_leaves = 1
    best_first = max_leaf_nodes > 0

    top = push(stack, 0, 0, n, 0, -1, 0)
    while True:
        if top == 0:
            if not best_first or n_frontier == 0:
                break
            nd = pop_best(nodes, frontier, n_frontier)
            n_frontier -= 1
            node = nodes[nd]
            n_ch = 2
            if node.category_offset >= 0:
                n_ch = _n_categorical_children(X, samples, node, cat_n)
            if n_leaves + n_ch - 1 > max_leaf_nodes:
                node.feature = TREE_UNDEFINED
                node.threshold = TREE_UNDEFINED
                node.category_offset = TREE_LEAF
                continue
            n_leaves += n_ch - 1
            top = _push_children(stack, top, nodes, nd, X, samples, cat_n)
            continue

        top -= 1
        entry = stack[top]
        parent = entry.parent
        nd = node_count
        node_count += 1
        if parent >= 0:
            link_child(nodes, pool, parent, entry.slot, nd)
            key = child_key(nodes[parent].key, entry.slot)
        else:
            key = root_key(rules.seed)
        node = new_node(nodes, nd, entry, key)
        start = node.start
        end = node.end
        depth = node.depth
        if depth > max_depth_seen:
            max_depth_seen = depth
        wn, imp = node_stats(samples, start, end, y_cls, y_reg, w, crit,
                             value[nd], ws.ybuf, ws.wbuf)
        node.impurity = imp
        node.weighted_n_node_samples = wn
        m = end - start
        impr = 0.0
        is_leaf = (depth >= rules.max_depth or m < rules.min_samples_split
                   or m < 2 * min_samples_leaf or wn < 2.0 * min_weight_leaf
                   or imp <= EPSILON)
        if not is_leaf:
            ws.rng[0] = key
            found = find_split(data, split_rules, ws, samples, start, end, wn, imp, best)
            if not found:
                is_leaf = True
            else:
                # Weighted impurity decrease, scikit-learn's definition.
                impr = wn / w_root * best[0].gain
                if impr + EPSILON < rules.min_impurity_decrease:
                    is_leaf = True
        if is_leaf:
            continue
        split = best[0]
        j = split.feature
        node.feature = j
        node.improvement = impr
        if cat_n[j] > 0:
            n_slots = cat_n[j] + 1
            n_children = partition_categorical(X, samples, start, end, j, n_slots,
                                               ws.tmp, ws.slot_count)
            if use_presort:
                c = 0
                pos = start
                for q in range(n_slots):
                    if ws.slot_count[q] > 0:
                        pos += ws.slot_count[q]
                        child_end[c] = pos
                        c += 1
                partition_presorted(presorted, cat_n, samples, start, end, child_end,
                                    n_children, group, ps_tmp)
            pool = _grow_pool(pool, pool_used + n_slots + 1)
            node.category_offset = pool_used
            pool_used += n_slots + 1  # + 1: the default (unseen code) child
            node.threshold = np.nan
        else:
            node.threshold = split.threshold
            node.missing_left = split.missing_left
            if is_sparse:
                node.split_pos = partition_sparse(csc, samples, start, end, j,
                                                  split.threshold, ws)
            else:
                node.split_pos = partition_numeric(X, samples, start, end, j,
                                                   split.threshold,
                                                   split.missing_left != 0, ws.tmp)
            if use_presort:
                child_end[0] = node.split_pos
                child_end[1] = end
                partition_presorted(presorted, cat_n, samples, start, end, child_end,
                                    2, group, ps_tmp)
        if best_first:
            frontier[n_frontier] = nd
            n_frontier += 1
            continue
        top = _push_children(stack, top, nodes, nd, X, samples, cat_n)

    # Categorical nodes: absent codes (and unseen ones, slot n_slots) go to
    # the most populated child.
    for nd in range(node_count):
        off = nodes[nd].category_offset
        if off < 0:
            continue
        n_slots = cat_n[nodes[nd].feature] + 1
        big = -1
        for s in range(n_slots):
            c = pool[off + s]
            if c >= 0 and (big < 0 or nodes[c].n_node_samples > nodes[big].n_node_samples):
                big = c
        for s in range(n_slots + 1):
            if pool[off + s] < 0:
                pool[off + s] = big
    return (nodes[:node_count].copy(), value[:node_count].copy(),
            pool[:pool_used].copy(), max_depth_seen)
