"""Numba kernels of tree growth (depth-first and best-first): the one growth
loop, :func:`grow`, and the exact splitter's hooks.

The whole growth loop runs in numba: a full-depth tree on 15k samples has
tens of thousands of nodes, and a Python-level loop would cost more than the
split searches themselves. The storage layout is described in
:mod:`skml.tree._tree`; prediction walks the packed layout of
:mod:`skml.tree._packed`.
"""

from collections import namedtuple

import numpy as np
from numba import njit
from numba.extending import overload

# numba's on-disk cache of a kernel is keyed on the file that defines it, not
# on the kernels it calls: after a change to _splitter_kernels.py or to the
# histogram splitter's hooks (_hist_kernels.py), change this file too (this
# comment will do), or the cached growth loop keeps the old search.
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
# random-stream key and, in histogram growth, its histogram slot.
NODE = np.dtype([
    ("left", np.intp), ("right", np.intp), ("feature", np.intp),
    ("threshold", np.float64), ("missing_left", np.uint8), ("impurity", np.float64),
    ("n_node_samples", np.intp), ("weighted_n_node_samples", np.float64),
    ("category_offset", np.intp),
    ("start", np.intp), ("end", np.intp), ("depth", np.intp), ("split_pos", np.intp),
    ("improvement", np.float64), ("key", np.uint64), ("hist", np.intp),
], align=True)

# A node to create: its segment, depth, parent, its slot in the parent (side
# 0/1, or category code) and, in histogram growth, its histogram slot.
STACK_ENTRY = np.dtype([
    ("start", np.intp), ("end", np.intp), ("depth", np.intp), ("parent", np.intp),
    ("slot", np.intp), ("hist", np.intp),
], align=True)

# The growth settings of one tree (both builders; the histogram one reads
# neither crit, n_values, random_split nor presort).
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
    node.hist = entry.hist
    return node


@njit(cache=True, nogil=True)
def push(stack, top, start, end, depth, parent, slot, hist):
    """Put a node to create on the stack; returns the new top."""
    e = stack[top]
    e.start = start
    e.end = end
    e.depth = depth
    e.parent = parent
    e.slot = slot
    e.hist = hist
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
        top = push(stack, top, node.split_pos, node.end, depth, nd, 1, 0)
        return push(stack, top, node.start, node.split_pos, depth, nd, 0, 0)
    # A categorical node's segment is grouped by code: one child per run.
    j = node.feature
    k = cat_n[j]
    p = node.end
    while p > node.start:
        code = _code(X[samples[p - 1], j], k)
        q = p - 1
        while q > node.start and _code(X[samples[q - 1], j], k) == code:
            q -= 1
        top = push(stack, top, q, p, depth, nd, code, 0)
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


# -- the splitters' hooks ---------------------------------------------------------
# The growth loop below is written once for every split finder. A splitter is
# a named tuple holding its data and buffers; its type chooses, at compile
# time, the functions the loop calls on it (registered by register_splitter).
# Passing the functions themselves as arguments (numba first-class functions)
# would also work, but numba cannot cache a kernel compiled for function
# arguments: the loop would be compiled again in every process. All
# splitters have the fields ``data`` (a TreeData), ``crit``, ``ybuf`` and
# ``wbuf`` (node_stats' buffers), which the loop reads directly.
_HOOKS = {}


def register_splitter(cls, *, root, find, split, push_children, release):
    """Declare the growth hooks of the splitter named tuple ``cls``.

    ``root(sp, samples)``: prepare the root, return its ``hist`` slot.
    ``find(sp, rules, samples, node, wn, imp, w_root, best)``: the node's best
    split into ``best[0]``; True if it splits (``min_impurity_decrease``
    included), then ``node.improvement`` is set. ``split(sp, samples, node,
    split)``: partition the node's segment, set its threshold, missing side and
    ``split_pos``; return the number of category slots of a multiway split
    (0 for a binary one). ``push_children(sp, stack, top, nodes, nd, samples)``:
    push the children of the split node, return the new top. ``release(sp,
    node)``: the node is a leaf for good.
    """
    _HOOKS[cls] = dict(root=root, find=find, split=split, push_children=push_children,
                       release=release)


def _hook(splitter, name):
    return _HOOKS[splitter.instance_class][name]


def splitter_root(sp, samples):
    raise NotImplementedError  # compiled only: see register_splitter


def splitter_find(sp, rules, samples, node, wn, imp, w_root, best):
    raise NotImplementedError


def splitter_split(sp, samples, node, split):
    raise NotImplementedError


def splitter_push_children(sp, stack, top, nodes, nd, samples):
    raise NotImplementedError


def splitter_release(sp, node):
    raise NotImplementedError


@overload(splitter_root, jit_options={"nogil": True})
def _ov_root(sp, samples):
    f = _hook(sp, "root")
    return lambda sp, samples: f(sp, samples)


@overload(splitter_find, jit_options={"nogil": True})
def _ov_find(sp, rules, samples, node, wn, imp, w_root, best):
    f = _hook(sp, "find")
    return lambda sp, rules, samples, node, wn, imp, w_root, best: f(
        sp, rules, samples, node, wn, imp, w_root, best)


@overload(splitter_split, jit_options={"nogil": True})
def _ov_split(sp, samples, node, split):
    f = _hook(sp, "split")
    return lambda sp, samples, node, split: f(sp, samples, node, split)


@overload(splitter_push_children, jit_options={"nogil": True})
def _ov_push_children(sp, stack, top, nodes, nd, samples):
    f = _hook(sp, "push_children")
    return lambda sp, stack, top, nodes, nd, samples: f(sp, stack, top, nodes, nd, samples)


@overload(splitter_release, jit_options={"nogil": True})
def _ov_release(sp, node):
    f = _hook(sp, "release")
    return lambda sp, node: f(sp, node)


# -- the growth loop -----------------------------------------------------------------
@njit(cache=True, nogil=True)
def grow(sp, rules, samples, w_root, cap, n_values):
    """Grow a tree with the splitter ``sp`` (see :func:`register_splitter`).

    ``samples`` are the fitted samples (reordered in place: each node owns a
    segment), ``w_root`` the total weight, ``cap`` a bound on the node count,
    ``rules`` a :data:`GrowthRules`. ``max_leaf_nodes < 0`` grows depth-first
    (node ids in pre-order, left child first, as scikit-learn); otherwise
    best-first, always expanding the frontier node with the largest weighted
    impurity decrease. Returns the :data:`NODE` records and values (trimmed),
    the category pool of the multiway nodes and the depth.
    """
    n = samples.shape[0]
    nodes = np.zeros(cap, dtype=NODE)
    value = np.zeros((cap, n_values))
    pool = np.full(16, TREE_LEAF, dtype=np.intp)
    pool_used = 0
    best = np.zeros(1, dtype=SPLIT)
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

    top = push(stack, 0, 0, n, 0, -1, 0, splitter_root(sp, samples))
    while True:
        if top == 0:
            if not best_first or n_frontier == 0:
                break
            nd = pop_best(nodes, frontier, n_frontier)
            n_frontier -= 1
            node = nodes[nd]
            n_ch = 2
            if node.category_offset >= 0:
                n_ch = _n_categorical_children(sp.data.X, samples, node, sp.data.cat_n)
            if n_leaves + n_ch - 1 > max_leaf_nodes:
                node.feature = TREE_UNDEFINED
                node.threshold = TREE_UNDEFINED
                node.category_offset = TREE_LEAF
                splitter_release(sp, node)
                continue
            n_leaves += n_ch - 1
            top = splitter_push_children(sp, stack, top, nodes, nd, samples)
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
        data = sp.data
        wn, imp = node_stats(samples, start, end, data.y_cls, data.y_reg, data.w, sp.crit,
                             value[nd], sp.ybuf, sp.wbuf)
        node.impurity = imp
        node.weighted_n_node_samples = wn
        m = end - start
        if (depth >= rules.max_depth or m < rules.min_samples_split
                or m < 2 * min_samples_leaf or wn < 2.0 * min_weight_leaf
                or imp <= EPSILON
                or not splitter_find(sp, rules, samples, node, wn, imp, w_root, best)):
            splitter_release(sp, node)
            continue
        node.feature = best[0].feature
        n_slots = splitter_split(sp, samples, node, best[0])
        if n_slots > 0:
            pool = _grow_pool(pool, pool_used + n_slots + 1)
            node.category_offset = pool_used
            pool_used += n_slots + 1  # + 1: the default (unseen code) child
            node.threshold = np.nan
        if best_first:
            frontier[n_frontier] = nd
            n_frontier += 1
            continue
        top = splitter_push_children(sp, stack, top, nodes, nd, samples)
    return (nodes[:node_count].copy(), value[:node_count].copy(),
            pool[:pool_used].copy(), max_depth_seen)


# -- the exact splitter ----------------------------------------------------------------
# Every threshold between sorted values (or one random threshold per feature),
# multiway categorical splits; find_split does the search.
ExactSplitter = namedtuple("ExactSplitter", [
    "data", "crit", "rules", "ws", "ybuf", "wbuf", "group", "ps_tmp", "child_end",
])


@njit(cache=True, nogil=True)
def _exact_root(sp, samples):
    return 0


@njit(cache=True, nogil=True)
def _exact_find(sp, rules, samples, node, wn, imp, w_root, best):
    sp.ws.rng[0] = node.key
    if not find_split(sp.data, sp.rules, sp.ws, samples, node.start, node.end, wn, imp,
                      best):
        return False
    # Weighted impurity decrease, scikit-learn's definition.
    impr = wn / w_root * best[0].gain
    if impr + EPSILON < rules.min_impurity_decrease:
        return False
    node.improvement = impr
    return True


@njit(cache=True, nogil=True)
def _exact_split(sp, samples, node, split):
    data = sp.data
    X, cat_n, presorted = data.X, data.cat_n, data.presorted
    ws = sp.ws
    use_presort = sp.rules.use_presort
    start = node.start
    end = node.end
    j = split.feature
    child_end = sp.child_end
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
                                n_children, sp.group, sp.ps_tmp)
        return n_slots
    node.threshold = split.threshold
    node.missing_left = split.missing_left
    node.split_pos = partition_numeric(X, samples, start, end, j, split.threshold,
                                       split.missing_left != 0, ws.tmp)
    if use_presort:
        child_end[0] = node.split_pos
        child_end[1] = end
        partition_presorted(presorted, cat_n, samples, start, end, child_end,
                            2, sp.group, sp.ps_tmp)
    return 0


@njit(cache=True, nogil=True)
def _exact_push_children(sp, stack, top, nodes, nd, samples):
    return _push_children(stack, top, nodes, nd, sp.data.X, samples, sp.data.cat_n)


@njit(cache=True, nogil=True)
def _exact_release(sp, node):
    pass


register_splitter(ExactSplitter, root=_exact_root, find=_exact_find, split=_exact_split,
                  push_children=_exact_push_children, release=_exact_release)


@njit(cache=True, nogil=True)
def _default_children(nodes, pool, cat_n):
    """Categorical nodes: absent codes (and unseen ones, slot n_slots) go to
    the most populated child."""
    for nd in range(nodes.shape[0]):
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


@njit(cache=True, nogil=True)
def build_tree(X, y_cls, y_reg, w, cat_n, rules):
    """Grow a tree with the exact splitter; returns what :func:`grow` returns.

    ``rules`` is a :data:`GrowthRules`. ``presort``: 1 keeps every numeric
    feature presorted, 0 sorts the examined features in each node, -1
    chooses (presort when at least half of the features are examined per
    node).
    """
    n_total, n_features = X.shape
    samples = fitted_samples(w)
    n = samples.shape[0]
    w_root = 0.0
    for i in range(n_total):
        w_root += w[i]
    n_val = max(rules.n_values, 1)
    max_slots = 1
    for j in range(n_features):
        max_slots = max(max_slots, cat_n[j] + 1)
    ws = split_workspace(n_total, n_features, max_slots, n_val)
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
    if rules.presort < 0:  # automatic
        use_presort = ((not random_split) and n_numeric > 0
                       and 2 * rules.max_features >= n_features)
    else:
        use_presort = rules.presort > 0 and not random_split and n_numeric > 0
    if use_presort:
        presorted = presort_features(X, samples, cat_n)
    else:
        presorted = np.zeros((0, 0), dtype=np.int32)
    sp = ExactSplitter(
        TreeData(X, y_cls, y_reg, w, cat_n, presorted), rules.crit,
        SplitRules(rules.crit, rules.n_values, rules.max_features, random_split,
                   rules.min_samples_leaf, rules.min_weight_leaf, use_presort),
        ws, ws.ybuf, ws.wbuf,
        np.zeros(n_total if use_presort else 0, dtype=np.intp),
        np.zeros(n_total + max_slots + 2 if use_presort else 0, dtype=np.intp),
        np.zeros(max_slots + 1, dtype=np.intp),
    )
    # Every internal node has >= 2 children and every leaf >= 1 sample, so a
    # tree on n samples has at most 2n - 1 nodes.
    nodes, value, pool, depth = grow(sp, rules, samples, w_root, 2 * n, n_val)
    _default_children(nodes, pool, cat_n)
    return nodes, value, pool, depth
