"""The one growth loop of every tree builder, and its node store.

:func:`grow` grows a tree depth-first (node ids in pre-order, left child
first, as scikit-learn) or best-first (``max_leaf_nodes > 0``: always
expanding the frontier node with the largest weighted impurity decrease),
whatever the split search: the exact search of
:mod:`skml.tree._builder_kernels` (sorted or presorted features, dense or
sparse X, multiway categorical splits) and the histogram search of
:mod:`skml.tree._hist_kernels` both run this loop. The loop owns the node
store (:data:`NODE` records, the values, the category pool), the stack and
the frontier; the search owns its buffers.

A *splitter* is a split search in three parts: ``data``, the namedtuple
of what it reads (its class names the splitter, :func:`register_splitter`),
``config``, its fixed settings (scalars), and ``ws``, its workspace (the
buffers). The class of ``data`` selects, at compile time, the jitted
functions (hooks) the loop calls, and numba inlines their code into the
loop: one loop is compiled per splitter, as fast as a loop written for it.
The hooks are found by type rather than passed as function arguments
because numba cannot cache a function that takes a dispatcher argument (the
cache key holds the dispatcher's address, so the loop would be recompiled in
every process). The parts stay apart because numba counts the references of
every array in a tuple it takes apart: reaching ``ws.ybuf`` costs one count,
``splitter.ws.ybuf`` one per array of the workspace, at every node (the
loop was 14% slower so).

The hooks, for a splitter ``data, config, ws``, rules ``rules``
(:data:`GrowthRules`) and the node being grown ``node`` (a :data:`NODE`
record, segment ``samples[node.start:node.end]``):

``stats(data, config, ws, rules, samples, node, value_row) -> (wn, impurity)``
    Weighted size and impurity of the node; writes its value.
``search(data, config, ws, rules, samples, node, wn, impurity, best) -> found``
    The best split, into the :data:`SPLIT` record ``best[0]`` (``feature``
    and ``gain`` at least).
``apply(data, config, ws, rules, samples, node, best) -> n_pool``
    Partitions the segment and writes ``threshold``, ``missing_left`` and
    ``split_pos`` (binary split; returns 0), or groups it by code (multiway
    split; returns the number of category-pool entries to reserve).
``n_children(data, config, ws, samples, node) -> int``
    Children of the split node.
``push_children(data, config, ws, rules, samples, nodes, nd, stack, top) -> top``
    Pushes the children of the split node ``nd`` in reverse order (they then
    get consecutive ids, in order), with :func:`push`; returns the new top.
``release(data, config, ws, node)``
    The node stays a leaf: free what the search holds for it (called only
    when it holds something, ``node.work >= 0``).

numba's on-disk cache of :func:`grow` is keyed on this file, not on the
hooks it calls: after a change to a hook (``_builder_kernels.py``,
``_hist_kernels.py``, ``_multioutput_kernels.py``) or to the search they
call (``_splitter_kernels.py``), change this file too (this comment will
do), or the cached loop keeps the old code. (Last: the Poisson criterion,
the monotonicity bounds and their medians, the Poisson scan's count of
positive targets, the multi-output splitter's own push_children, the
threaded histograms, CART's category groupings, Li Hang's C4.5; the shared
feature gather, random thresholds and rank sums, multi-output absolute error
and Poisson; the shared pieces inlined; the gather and the exact search's
hooks given arrays, not tuples; one grouping candidate, one presort choice;
find_split's gather written out; release only what is held; the threaded partition; random thresholds in one pass.)
(max_features counting every drawn feature, constant ones too: feat/mf; the sparse search's per-node buckets: feat/spd.)
(The random splitter's coin for missing values: feat/rsplit.)
(Sparse views without copies: feat/smem.)
(The random splitter's node arrays and branchless left sums: feat/xtree.)
Since skml.utils._numba_cache's locator keys every skml kernel's cache on all of
skml's sources, these notes are no longer needed: any edit invalidates the cache.
"""

from collections import namedtuple

import numpy as np
from numba import njit, types
from numba.extending import overload

from ._splitter_kernels import EPSILON, SPLIT, child_key, root_key

TREE_LEAF = -1
TREE_UNDEFINED = -2

# A node while the tree grows. The first nine fields are the columns of
# skml.tree._tree.Tree; the others are growth state: the node's segment
# samples[start:end], its depth, where its binary split puts the boundary,
# its weighted impurity decrease (best-first order), its random-stream key,
# and what the split search holds for it (the histogram slot; -1 if none).
NODE = np.dtype([
    ("left", np.intp), ("right", np.intp), ("feature", np.intp),
    ("threshold", np.float64), ("missing_left", np.uint8), ("impurity", np.float64),
    ("n_node_samples", np.intp), ("weighted_n_node_samples", np.float64),
    ("category_offset", np.intp),
    ("start", np.intp), ("end", np.intp), ("depth", np.intp), ("split_pos", np.intp),
    ("improvement", np.float64), ("key", np.uint64), ("work", np.intp),
], align=True)

# A node to create: its segment, depth, parent, its slot in the parent (side
# 0/1, or category code), what the search holds for it (as NODE.work).
STACK_ENTRY = np.dtype([
    ("start", np.intp), ("end", np.intp), ("depth", np.intp), ("parent", np.intp),
    ("slot", np.intp), ("work", np.intp),
], align=True)

# The growth settings of one tree (the histogram search uses the criterion
# SQUARED_ERROR, n_values 1, no random split, no presort).
GrowthRules = namedtuple("GrowthRules", [
    "crit", "n_values", "max_features", "random_split", "max_depth",
    "min_samples_split", "min_samples_leaf", "min_weight_leaf",
    "min_impurity_decrease", "max_leaf_nodes", "seed", "presort",
])

# The grown tree: NODE records and values (trimmed), the category pool
# (absent codes filled), the depth.
Grown = namedtuple("Grown", ["nodes", "value", "pool", "max_depth"])

# The growth's own arrays: the node records and their values (room for the
# tree's bound on nodes), the stack and the frontier (one more). A forest
# grows its trees in one store, made once (see :func:`grow_in`).
GrowthStore = namedtuple("GrowthStore", ["nodes", "value", "stack", "frontier"])

_HOOK_NAMES = ("stats", "search", "apply", "n_children", "push_children", "release")
_HOOKS = {}


def register_splitter(cls, **hooks):
    """Make the namedtuple class ``cls`` (of a splitter's ``data``) a
    splitter: ``hooks`` maps every name of the module docstring's list to a
    jitted function. The loop inlines their Python code (numba's
    ``inline="always"``); a hook may call other jitted functions, but not
    another hook."""
    if sorted(hooks) != sorted(_HOOK_NAMES):
        raise ValueError(f"A splitter needs the hooks {_HOOK_NAMES}; got {sorted(hooks)}.")
    _HOOKS[cls] = hooks


def _hook_of(data, name):
    """The Python function of the hook ``name`` of the splitter whose data
    has the type ``data`` (None: not a splitter)."""
    if isinstance(data, types.BaseNamedTuple) and data.instance_class in _HOOKS:
        return _HOOKS[data.instance_class][name].py_func
    return None


# The hooks as the loop calls them: numba resolves each, at compile time, to
# the hook of its first argument's (data's) class and inlines it.


def stats(data, config, ws, rules, samples, node, value_row):
    raise NotImplementedError("splitter hooks run inside numba only")


def search(data, config, ws, rules, samples, node, wn, imp, best):
    raise NotImplementedError("splitter hooks run inside numba only")


def apply(data, config, ws, rules, samples, node, best):
    raise NotImplementedError("splitter hooks run inside numba only")


def n_children(data, config, ws, samples, node):
    raise NotImplementedError("splitter hooks run inside numba only")


def push_children(data, config, ws, rules, samples, nodes, nd, stack, top):
    raise NotImplementedError("splitter hooks run inside numba only")


def release(data, config, ws, node):
    raise NotImplementedError("splitter hooks run inside numba only")


@overload(stats, inline="always")
def _stats(data, config, ws, rules, samples, node, value_row):
    fn = _hook_of(data, "stats")
    if fn is not None:
        return fn


@overload(search, inline="always")
def _search(data, config, ws, rules, samples, node, wn, imp, best):
    fn = _hook_of(data, "search")
    if fn is not None:
        return fn


@overload(apply, inline="always")
def _apply(data, config, ws, rules, samples, node, best):
    fn = _hook_of(data, "apply")
    if fn is not None:
        return fn


@overload(n_children, inline="always")
def _n_children(data, config, ws, samples, node):
    fn = _hook_of(data, "n_children")
    if fn is not None:
        return fn


@overload(push_children, inline="always")
def _push_children(data, config, ws, rules, samples, nodes, nd, stack, top):
    fn = _hook_of(data, "push_children")
    if fn is not None:
        return fn


@overload(release, inline="always")
def _release(data, config, ws, node):
    fn = _hook_of(data, "release")
    if fn is not None:
        return fn


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
def root_samples(w):
    """The root's samples (:func:`fitted_samples`) and the total weight."""
    w_root = 0.0
    for i in range(w.shape[0]):
        w_root += w[i]
    return fitted_samples(w), w_root


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
    node.work = entry.work
    return node


@njit(cache=True, nogil=True)
def push(stack, top, start, end, depth, parent, slot, work):
    """Put a node to create on the stack; returns the new top."""
    e = stack[top]
    e.start = start
    e.end = end
    e.depth = depth
    e.parent = parent
    e.slot = slot
    e.work = work
    return top + 1


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
def _fill_category_pool(nodes, node_count, pool):
    """Categorical nodes: absent codes (and unseen ones, the last slot) go to
    the most populated child."""
    for nd in range(node_count):
        off = nodes[nd].category_offset
        if off < 0:
            continue
        n_slots = nodes[nd].split_pos  # see grow: a multiway node's code slots
        big = -1
        for s in range(n_slots):
            c = pool[off + s]
            if c >= 0 and (big < 0 or nodes[c].n_node_samples > nodes[big].n_node_samples):
                big = c
        for s in range(n_slots + 1):
            if pool[off + s] < 0:
                pool[off + s] = big


@njit(cache=True, nogil=True)
def growth_store(cap, n_values):
    """A :data:`GrowthStore` for trees of up to ``cap`` nodes whose values
    are ``n_values`` wide."""
    # Not zeroed: a node, its value row, a stack or frontier entry is written
    # before it is read, and only the pages used are touched (zeroing the
    # 2 n nodes' arrays took ~10% of an ExtraTreeClassifier's fit, 225k x 20).
    return GrowthStore(np.empty(cap, dtype=NODE), np.empty((cap, n_values)),
                       np.empty(cap + 1, dtype=STACK_ENTRY), np.empty(cap + 1, dtype=np.intp))


@njit(cache=True, nogil=True)
def grow(data, config, ws, rules, samples, w_root, cap, n_values, root_work):
    """Grow a tree on ``samples`` (the rows of nonzero weight, reordered in
    place into the leaves' segments) with the splitter ``data, config, ws``
    (see the module docstring); returns a
    :data:`Grown`.

    ``w_root`` is the total weight (the impurity decreases are weighted by
    it), ``cap`` a bound on the number of nodes, ``n_values`` the width of a
    node's value, ``root_work`` what the search holds for the root.
    """
    return grow_in(growth_store(cap, n_values), data, config, ws, rules, samples, w_root,
                   root_work)


@njit(cache=True, nogil=True)
def grow_in(store, data, config, ws, rules, samples, w_root, root_work):
    """:func:`grow` in the arrays of ``store`` (a :data:`GrowthStore` with
    room for the tree's nodes). The grown records are a view of the store:
    their reader (tree_from_grown) copies each field out anyway (a copy of
    the records, 128 bytes a node, was one more transient block per tree),
    and must do so before another tree grows in the same store."""
    nodes, value, stack, frontier = store.nodes, store.value, store.stack, store.frontier
    pool = np.full(16, TREE_LEAF, dtype=np.intp)
    pool_used = 0
    best = np.zeros(1, dtype=SPLIT)
    n_frontier = 0
    n_leaves = 1
    best_first = rules.max_leaf_nodes > 0
    node_count = 0
    max_depth_seen = 0

    top = push(stack, 0, 0, samples.shape[0], 0, -1, 0, root_work)
    while True:
        if top == 0:
            if not best_first or n_frontier == 0:
                break
            nd = pop_best(nodes, frontier, n_frontier)
            n_frontier -= 1
            node = nodes[nd]
            n_ch = n_children(data, config, ws, samples, node)
            if n_leaves + n_ch - 1 > rules.max_leaf_nodes:
                node.feature = TREE_UNDEFINED
                node.threshold = TREE_UNDEFINED
                node.category_offset = TREE_LEAF
                if node.work >= 0:
                    release(data, config, ws, node)
                continue
            n_leaves += n_ch - 1
            top = push_children(data, config, ws, rules, samples, nodes, nd, stack, top)
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
        value[nd, :] = 0.0
        if node.depth > max_depth_seen:
            max_depth_seen = node.depth
        wn, imp = stats(data, config, ws, rules, samples, node, value[nd])
        node.impurity = imp
        node.weighted_n_node_samples = wn
        m = node.end - node.start
        impr = 0.0
        is_leaf = (node.depth >= rules.max_depth or m < rules.min_samples_split
                   or m < 2 * rules.min_samples_leaf or wn < 2.0 * rules.min_weight_leaf
                   or imp <= EPSILON)
        if not is_leaf:
            if not search(data, config, ws, rules, samples, node, wn, imp, best):
                is_leaf = True
            else:
                # Weighted impurity decrease, scikit-learn's definition.
                impr = wn / w_root * best[0].gain
                if impr + EPSILON < rules.min_impurity_decrease:
                    is_leaf = True
        if is_leaf:
            if node.work >= 0:  # (an inlined hook copies its tuples: not for nothing)
                release(data, config, ws, node)
            continue
        node.feature = best[0].feature
        node.improvement = impr
        n_pool = apply(data, config, ws, rules, samples, node, best)
        if n_pool > 0:
            pool = _grow_pool(pool, pool_used + n_pool)
            node.category_offset = pool_used
            node.split_pos = n_pool - 1  # its number of code slots
            pool_used += n_pool
        if best_first:
            frontier[n_frontier] = nd
            n_frontier += 1
            continue
        top = push_children(data, config, ws, rules, samples, nodes, nd, stack, top)

    _fill_category_pool(nodes, node_count, pool)
    return Grown(nodes[:node_count], value[:node_count].copy(), pool[:pool_used].copy(),
                 max_depth_seen)
