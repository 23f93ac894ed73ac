"""Numba kernels of tree growth (depth-first and best-first).

The whole growth loop runs in numba: a full-depth tree on 15k samples has
tens of thousands of nodes, and a Python-level loop would cost more than the
split searches themselves. The storage layout is described in
:mod:`skml.tree._tree`; prediction walks the packed layout of
:mod:`skml.tree._packed`.
"""

import numpy as np
from numba import njit

# numba's on-disk cache of a kernel is keyed on the file that defines it, not
# on the kernels it calls: after a change to _splitter_kernels.py, change this
# file too (this comment will do), or the cached growth keeps the old search.
from ._splitter_kernels import (
    EPSILON,
    child_key,
    find_split,
    node_stats,
    partition_categorical,
    partition_numeric,
    partition_presorted,
    presort_features,
    root_key,
)

TREE_LEAF = -1
TREE_UNDEFINED = -2


@njit(cache=True, nogil=True)
def _grow_pool(pool, needed):
    if needed <= pool.shape[0]:
        return pool
    new = np.full(max(needed, 2 * pool.shape[0]), TREE_LEAF, dtype=np.intp)
    new[:pool.shape[0]] = pool
    return new


@njit(cache=True, nogil=True)
def build_tree(X, y_cls, y_reg, w, crit, n_classes, cat_n, max_features,
               random_split, max_depth, min_samples_split, min_samples_leaf,
               min_weight_leaf, min_impurity_decrease, max_leaf_nodes, seed, presort):
    """Grow a tree; returns its node arrays (trimmed) and the category pool.

    ``presort``: 1 keeps every numeric feature presorted, 0 sorts the
    examined features in each node, -1 chooses (presort when at least half
    of the features are examined per node). ``max_leaf_nodes < 0`` grows
    depth-first (node ids in pre-order, left child first, as scikit-learn);
    otherwise best-first, always expanding the
    frontier node with the largest weighted impurity decrease.
    """
    n_total, n_features = X.shape
    # Zero-weight samples take no part in the fit (scikit-learn drops them).
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
    w_root = 0.0
    for i in range(n_total):
        w_root += w[i]
    n_val = max(n_classes, 1)
    max_slots = 1
    for j in range(n_features):
        max_slots = max(max_slots, cat_n[j] + 1)
    # Every internal node has >= 2 children and every leaf >= 1 sample, so a
    # tree on n samples has at most 2n - 1 nodes.
    cap = 2 * n
    left = np.full(cap, TREE_LEAF, dtype=np.intp)
    right = np.full(cap, TREE_LEAF, dtype=np.intp)
    feature = np.full(cap, TREE_UNDEFINED, dtype=np.intp)
    threshold = np.full(cap, float(TREE_UNDEFINED))
    missing_left = np.zeros(cap, dtype=np.uint8)
    impurity = np.zeros(cap)
    n_node = np.zeros(cap, dtype=np.intp)
    wn_node = np.zeros(cap)
    value = np.zeros((cap, n_val))
    cat_offset = np.full(cap, TREE_LEAF, dtype=np.intp)
    node_start = np.zeros(cap, dtype=np.intp)
    node_end = np.zeros(cap, dtype=np.intp)
    node_depth = np.zeros(cap, dtype=np.intp)
    split_pos = np.zeros(cap, dtype=np.intp)
    improvement = np.zeros(cap)
    # Each node's random stream (see _splitter_kernels): keyed by the seed
    # and the node's path, so the search order cannot change the tree.
    node_key = np.zeros(cap, dtype=np.uint64)
    rng = np.zeros(1, dtype=np.uint64)
    pool = np.full(16, TREE_LEAF, dtype=np.intp)
    pool_used = 0
    # Workspaces of the split search.
    nw = max(n_total, n_features, max_slots) + 2
    ws_f = np.zeros((8, nw))
    ws_i = np.zeros((7, max(nw, 130)), dtype=np.intp)
    ws_c = np.zeros((4, n_val))
    ws_mae = np.zeros((5, nw))
    rank = np.zeros(n_total, dtype=np.intp)
    features = np.arange(n_features)
    best = np.zeros(6)
    # Presorting: every numeric feature is sorted once at the root and its
    # order is carried down by stable partitions, O(m) per feature and node
    # instead of an O(m log m) sort. It pays off when most features are
    # examined at each node (all of them for a plain tree); a forest drawing
    # a few features per node sorts just those instead.
    n_numeric = 0
    for j in range(n_features):
        if cat_n[j] == 0:
            n_numeric += 1
    if presort < 0:  # automatic
        use_presort = (not random_split) and n_numeric > 0 and 2 * max_features >= n_features
    else:
        use_presort = presort > 0 and not random_split and n_numeric > 0
    if use_presort:
        presorted = presort_features(X, samples, cat_n)
    else:
        presorted = np.zeros((0, 0), dtype=np.int32)
    group = np.zeros(n_total if use_presort else 0, dtype=np.intp)
    ps_tmp = np.zeros(n_total + max_slots + 2 if use_presort else 0, dtype=np.intp)
    child_end = np.zeros(max_slots + 1, dtype=np.intp)
    node_count = 0
    max_depth_seen = 0

    # Stack (depth-first) or frontier (best-first) of pending work.
    st_start = np.zeros(cap + 1, dtype=np.intp)
    st_end = np.zeros(cap + 1, dtype=np.intp)
    st_depth = np.zeros(cap + 1, dtype=np.intp)
    st_parent = np.zeros(cap + 1, dtype=np.intp)
    st_slot = np.zeros(cap + 1, dtype=np.intp)
    frontier = np.zeros(cap + 1, dtype=np.intp)
    n_frontier = 0
    n_leaves = 1
    best_first = max_leaf_nodes > 0

    top = 0
    st_start[0] = 0
    st_end[0] = n
    st_depth[0] = 0
    st_parent[0] = -1
    st_slot[0] = 0
    top = 1
    while True:
        if top == 0:
            if not best_first or n_frontier == 0:
                break
            # Expand the frontier node with the largest improvement.
            kb = 0
            for q in range(1, n_frontier):
                if improvement[frontier[q]] > improvement[frontier[kb]]:
                    kb = q
            nd = frontier[kb]
            frontier[kb] = frontier[n_frontier - 1]
            n_frontier -= 1
            s0 = node_start[nd]
            e0 = node_end[nd]
            if cat_offset[nd] >= 0:
                j = feature[nd]
                n_ch = 0
                last_code = -1
                for p in range(s0, e0):
                    x = X[samples[p], j]
                    code = cat_n[j] if x != x else int(x)
                    if code != last_code:
                        n_ch += 1
                        last_code = code
            else:
                n_ch = 2
            if n_leaves + n_ch - 1 > max_leaf_nodes:
                feature[nd] = TREE_UNDEFINED
                threshold[nd] = TREE_UNDEFINED
                cat_offset[nd] = TREE_LEAF
                continue
            n_leaves += n_ch - 1
            # Push its children in reverse so they get consecutive ids in order.
            if cat_offset[nd] >= 0:
                j = feature[nd]
                p = e0
                while p > s0:
                    x = X[samples[p - 1], j]
                    code = cat_n[j] if x != x else int(x)
                    q = p - 1
                    while q > s0:
                        x2 = X[samples[q - 1], j]
                        c2 = cat_n[j] if x2 != x2 else int(x2)
                        if c2 != code:
                            break
                        q -= 1
                    st_start[top] = q
                    st_end[top] = p
                    st_slot[top] = code
                    st_parent[top] = nd
                    st_depth[top] = node_depth[nd] + 1
                    top += 1
                    p = q
            else:
                for side in range(1, -1, -1):
                    st_start[top] = s0 if side == 0 else split_pos[nd]
                    st_end[top] = split_pos[nd] if side == 0 else e0
                    st_slot[top] = side
                    st_parent[top] = nd
                    st_depth[top] = node_depth[nd] + 1
                    top += 1
            continue

        top -= 1
        start = st_start[top]
        end = st_end[top]
        depth = st_depth[top]
        parent = st_parent[top]
        slot = st_slot[top]
        nd = node_count
        node_count += 1
        if parent >= 0:
            if cat_offset[parent] >= 0:
                pool[cat_offset[parent] + slot] = nd
                if left[parent] == TREE_LEAF:
                    left[parent] = nd
                right[parent] = nd
            elif slot == 0:
                left[parent] = nd
            else:
                right[parent] = nd
        node_start[nd] = start
        node_end[nd] = end
        node_depth[nd] = depth
        node_key[nd] = root_key(seed) if parent < 0 else child_key(node_key[parent], slot)
        if depth > max_depth_seen:
            max_depth_seen = depth
        wn, imp = node_stats(samples, start, end, y_cls, y_reg, w, crit,
                             value[nd], ws_f[1], ws_f[2])
        impurity[nd] = imp
        n_node[nd] = end - start
        wn_node[nd] = wn
        m = end - start
        impr = 0.0
        is_leaf = (depth >= max_depth or m < min_samples_split
                   or m < 2 * min_samples_leaf or wn < 2.0 * min_weight_leaf
                   or imp <= EPSILON)
        if not is_leaf:
            rng[0] = node_key[nd]
            found = find_split(X, y_cls, y_reg, w, samples, start, end, crit,
                               n_classes, cat_n, max_features, random_split,
                               min_samples_leaf, min_weight_leaf, wn, imp,
                               features, ws_f, ws_i, ws_c, rank, ws_mae, best,
                               presorted, use_presort, rng)
            if not found:
                is_leaf = True
            else:
                # Weighted impurity decrease, scikit-learn's definition.
                impr = wn / w_root * best[4]
                if impr + EPSILON < min_impurity_decrease:
                    is_leaf = True
        if is_leaf:
            continue
        j = int(best[0])
        feature[nd] = j
        improvement[nd] = impr
        if cat_n[j] > 0:
            n_slots = cat_n[j] + 1
            n_children = partition_categorical(X, samples, start, end, j, n_slots,
                                               ws_i[2], ws_i[1])
            if use_presort:
                c = 0
                pos = start
                for q in range(n_slots):
                    if ws_i[1][q] > 0:
                        pos += ws_i[1][q]
                        child_end[c] = pos
                        c += 1
                partition_presorted(presorted, cat_n, samples, start, end, child_end,
                                    n_children, group, ps_tmp)
            pool = _grow_pool(pool, pool_used + n_slots + 1)
            cat_offset[nd] = pool_used
            pool_used += n_slots + 1  # + 1: the default (unseen code) child
            threshold[nd] = np.nan
        else:
            threshold[nd] = best[1]
            missing_left[nd] = np.uint8(best[2])
            split_pos[nd] = partition_numeric(X, samples, start, end, j, best[1],
                                              best[2] != 0.0, ws_i[2])
            if use_presort:
                child_end[0] = split_pos[nd]
                child_end[1] = end
                partition_presorted(presorted, cat_n, samples, start, end, child_end,
                                    2, group, ps_tmp)
        if best_first:
            frontier[n_frontier] = nd
            n_frontier += 1
            continue
        if cat_offset[nd] >= 0:
            p = end
            while p > start:
                x = X[samples[p - 1], j]
                code = cat_n[j] if x != x else int(x)
                q = p - 1
                while q > start:
                    x2 = X[samples[q - 1], j]
                    c2 = cat_n[j] if x2 != x2 else int(x2)
                    if c2 != code:
                        break
                    q -= 1
                st_start[top] = q
                st_end[top] = p
                st_slot[top] = code
                st_parent[top] = nd
                st_depth[top] = depth + 1
                top += 1
                p = q
        else:
            for side in range(1, -1, -1):
                st_start[top] = start if side == 0 else split_pos[nd]
                st_end[top] = split_pos[nd] if side == 0 else end
                st_slot[top] = side
                st_parent[top] = nd
                st_depth[top] = depth + 1
                top += 1

    # Categorical nodes: absent codes (and unseen ones, slot n_slots) go to
    # the most populated child.
    for nd in range(node_count):
        off = cat_offset[nd]
        if off < 0:
            continue
        n_slots = cat_n[feature[nd]] + 1
        big = -1
        for s in range(n_slots):
            c = pool[off + s]
            if c >= 0 and (big < 0 or n_node[c] > n_node[big]):
                big = c
        for s in range(n_slots + 1):
            if pool[off + s] < 0:
                pool[off + s] = big
    return (left[:node_count].copy(), right[:node_count].copy(),
            feature[:node_count].copy(), threshold[:node_count].copy(),
            missing_left[:node_count].copy(), impurity[:node_count].copy(),
            n_node[:node_count].copy(), wn_node[:node_count].copy(),
            value[:node_count].copy(), cat_offset[:node_count].copy(),
            pool[:pool_used].copy(), max_depth_seen)
