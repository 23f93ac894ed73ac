"""Minimal cost-complexity (weakest-link) pruning, notes B §8.9 (C), and
reduced-error pruning on a validation set, notes B §8.9 (B).

With :math:`R(t) = \\frac{W_t}{W} \\, \\mathrm{impurity}(t)` the cost of node
:math:`t` collapsed to a leaf and :math:`R(T_t)` the summed cost of the leaves
of its branch, the weakest link is the internal node of smallest

.. math:: g(t) = \\frac{R(t) - R(T_t)}{|T_t| - 1},

which is pruned, recording :math:`\\alpha_k = g(t)`, until the root is a
leaf. ``ccp_alpha`` keeps pruning while the smallest :math:`g(t)` is at most
``ccp_alpha``. This is scikit-learn's algorithm step for step (same sums in
the same order), so the path matches it to round-off.
"""

import numpy as np
from numba import njit

from ._builder_kernels import TREE_LEAF, TREE_UNDEFINED


@njit(cache=True, nogil=True)
def _weakest_link(parent, child_ptr, child_idx, is_leaf, r_node, ccp_alpha, path):
    n_nodes = parent.shape[0]
    leaves = is_leaf.copy()
    in_subtree = np.ones(n_nodes, dtype=np.bool_)
    r_branch = np.zeros(n_nodes)
    n_leaves = np.zeros(n_nodes, dtype=np.intp)
    for leaf in range(n_nodes):
        if not leaves[leaf]:
            continue
        r_branch[leaf] = r_node[leaf]
        current_r = r_node[leaf]
        nd = leaf
        while nd != 0:
            p = parent[nd]
            r_branch[p] += current_r
            n_leaves[p] += 1
            nd = p
    alphas = np.zeros(n_nodes + 1)
    impurities = np.zeros(n_nodes + 1)
    count = 0
    alphas[0] = 0.0
    impurities[0] = r_branch[0]
    count = 1
    stack = np.empty(n_nodes, dtype=np.intp)
    while not leaves[0]:
        effective = np.inf
        pruned = -1
        for i in range(n_nodes):
            if not in_subtree[i] or leaves[i]:
                continue
            a = (r_node[i] - r_branch[i]) / (n_leaves[i] - 1)
            if a < effective:
                effective = a
                pruned = i
        if not path and ccp_alpha < effective:
            break
        top = 0
        stack[0] = pruned
        top = 1
        while top > 0:
            top -= 1
            nd = stack[top]
            if not in_subtree[nd]:
                continue
            leaves[nd] = False
            in_subtree[nd] = False
            for q in range(child_ptr[nd], child_ptr[nd + 1]):
                stack[top] = child_idx[q]
                top += 1
        leaves[pruned] = True
        in_subtree[pruned] = True
        n_pruned = n_leaves[pruned] - 1
        n_leaves[pruned] = 0
        r_diff = r_node[pruned] - r_branch[pruned]
        r_branch[pruned] = r_node[pruned]
        nd = parent[pruned]
        while nd != -1:
            n_leaves[nd] -= n_pruned
            r_branch[nd] += r_diff
            nd = parent[nd]
        alphas[count] = effective
        impurities[count] = r_branch[0]
        count += 1
    return alphas[:count].copy(), impurities[:count].copy(), in_subtree, leaves


def _structure(tree):
    parent = tree.parents()
    is_leaf = tree.children_left == TREE_LEAF
    counts = np.zeros(tree.node_count + 1, dtype=np.intp)
    lists = [tree.children(nd) for nd in range(tree.node_count)] if tree.has_categorical_nodes else None
    if lists is None:
        counts[1:] = np.where(is_leaf, 0, 2)
        child_ptr = np.cumsum(counts)
        child_idx = np.empty(child_ptr[-1], dtype=np.intp)
        internal = np.flatnonzero(~is_leaf)
        child_idx[child_ptr[internal]] = tree.children_left[internal]
        child_idx[child_ptr[internal] + 1] = tree.children_right[internal]
    else:
        counts[1:] = [len(c) for c in lists]
        child_ptr = np.cumsum(counts)
        child_idx = np.concatenate(lists).astype(np.intp) if child_ptr[-1] else np.empty(0, np.intp)
    r_node = tree.weighted_n_node_samples * tree.impurity / tree.weighted_n_node_samples[0]
    return parent, child_ptr, child_idx, is_leaf, r_node


def pruning_path(tree):
    """``(ccp_alphas, impurities)`` of the weakest-link sequence of ``tree``."""
    alphas, impurities, _, _ = _weakest_link(*_structure(tree), 0.0, True)
    return alphas, impurities


def prune_tree(tree, ccp_alpha):
    """Prune ``tree`` in place to the subtree minimising R(T) + ccp_alpha |T|."""
    if ccp_alpha <= 0.0 or tree.node_count == 1:
        return tree
    _, _, in_subtree, leaves = _weakest_link(*_structure(tree), float(ccp_alpha), False)
    return _compact(tree, in_subtree, leaves)


def reduced_error_prune(tree, leaf_error):
    """Reduced-error pruning, notes B §8.9 (B), in place.

    ``leaf_error[t]`` is the validation error made if node ``t`` were a leaf
    predicting its own ``value``, summed over the validation samples that
    reach ``t``. Bottom-up, a node becomes a leaf when that error is at most
    the error of its (already pruned) branch. Returns the tree.
    """
    parent, child_ptr, child_idx, is_leaf, _ = _structure(tree)
    branch_error = np.where(is_leaf, leaf_error, 0.0)
    leaves = is_leaf.copy()
    # Children always have larger ids than their parent (both growth orders).
    for nd in range(tree.node_count - 1, -1, -1):
        if is_leaf[nd]:
            continue
        sub = branch_error[child_idx[child_ptr[nd]:child_ptr[nd + 1]]].sum()
        # Ties prune (a smaller tree at equal error); the slack absorbs the
        # round-off between summing per leaf and per node.
        if leaf_error[nd] <= sub + 1e-12 * max(abs(sub), 1.0):
            leaves[nd] = True
            branch_error[nd] = leaf_error[nd]
        else:
            branch_error[nd] = sub
    in_subtree = np.zeros(tree.node_count, dtype=bool)
    in_subtree[0] = True
    for nd in range(1, tree.node_count):
        p = parent[nd]
        in_subtree[nd] = in_subtree[p] and not leaves[p]
    leaves &= in_subtree
    return _compact(tree, in_subtree, leaves)


def _compact(tree, in_subtree, leaves):
    """Keep the nodes ``in_subtree`` (ids renumbered in order); ``leaves`` lose their children."""
    if in_subtree.all() and np.array_equal(leaves, tree.children_left == TREE_LEAF):
        return tree
    keep = np.flatnonzero(in_subtree)
    new_id = np.full(tree.node_count, TREE_LEAF, dtype=np.intp)
    new_id[keep] = np.arange(keep.shape[0])
    new_leaf = leaves[keep]

    def remap(a):
        out = new_id[a[keep]]
        out[new_leaf] = TREE_LEAF
        return out

    left, right = remap(tree.children_left), remap(tree.children_right)
    feature = tree.feature[keep].copy()
    feature[new_leaf] = TREE_UNDEFINED
    threshold = tree.threshold[keep].copy()
    threshold[new_leaf] = TREE_UNDEFINED
    offset = tree.category_offset[keep].copy()
    offset[new_leaf] = -1
    pool = tree.category_children.copy()
    if pool.size:
        pool = np.where(pool >= 0, new_id[np.maximum(pool, 0)], pool)
    depth = np.zeros(keep.shape[0], dtype=np.intp)
    for nd in range(keep.shape[0]):  # parents precede children in both orders
        for c in _kids(left, right, offset, pool, tree.n_category_slots, feature, nd):
            depth[c] = depth[nd] + 1
    tree.children_left, tree.children_right = left, right
    tree.feature, tree.threshold, tree.category_offset = feature, threshold, offset
    tree.category_children = pool
    tree.missing_go_to_left = tree.missing_go_to_left[keep]
    tree.impurity = tree.impurity[keep]
    tree.n_node_samples = tree.n_node_samples[keep]
    tree.weighted_n_node_samples = tree.weighted_n_node_samples[keep]
    tree.value = tree.value[keep]
    tree.max_depth = int(depth.max())
    tree._pack = None  # the packed layout of the old structure
    return tree


def _kids(left, right, offset, pool, slots, feature, nd):
    if left[nd] == TREE_LEAF:
        return ()
    if offset[nd] < 0:
        return (left[nd], right[nd])
    k = slots[feature[nd]]
    return np.unique(pool[offset[nd]:offset[nd] + k + 2])
