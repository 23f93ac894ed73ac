"""Numba kernels of forest prediction: every tree's leaf value, summed per row.

The traversal is memory-bound, so after fit the trees are packed into one
16-byte record per node, two float64: the threshold, and an integer code
holding the right child and the feature (with the side of a missing value).
The nodes are renumbered in pre-order, so a left child is the next record
(usually on the same cache line) and needs no field. A step down a tree
then reads one record instead of the five arrays of :class:`skml.tree._tree.Tree`
(about 20% faster than 32-byte records with both children, on 40
full-depth trees of the 20k x 20 benchmark set).
"""

import numpy as np
from numba import njit

__all__ = ["pack_forest", "sum_leaf_values"]

# Record field 1 is ``-1`` for a leaf, else ``right * _SHIFT + code + _OFFSET``
# with ``code`` the feature if a missing value goes right, ``-(feature + 1)``
# if it goes left: exact in a float64 (53 bits) for up to 2^32 nodes and
# 2^20 features.
_BITS = 21
_SHIFT = 1 << _BITS
_OFFSET = 1 << (_BITS - 1)
MAX_FEATURES = _OFFSET - 1


@njit(cache=True, nogil=True)
def _preorder(left, right):
    """Node ids in pre-order (each node, then its left, then its right subtree)."""
    n = left.shape[0]
    order = np.empty(n, dtype=np.intp)
    stack = np.empty(n + 1, dtype=np.intp)
    stack[0] = 0
    top = 1
    k = 0
    while top > 0:
        top -= 1
        nd = stack[top]
        order[k] = nd
        k += 1
        if left[nd] >= 0:
            stack[top] = right[nd]
            stack[top + 1] = left[nd]
            top += 2
    return order


def pack_forest(trees):
    """Concatenate binary trees into ``(nodes, values, roots)`` (see the module doc)."""
    if trees[0].n_features > MAX_FEATURES:
        raise ValueError(f"Forest prediction supports up to {MAX_FEATURES} features.")
    sizes = [t.node_count for t in trees]
    roots = np.concatenate([[0], np.cumsum(sizes)[:-1]]).astype(np.intp)
    nodes = np.empty((sum(sizes), 2))
    values = np.empty((sum(sizes), trees[0].value.shape[2]))
    for tree, root, size in zip(trees, roots, sizes):
        order = _preorder(tree.children_left, tree.children_right)
        new_id = np.empty(size, dtype=np.int64)
        new_id[order] = np.arange(size)
        leaf = tree.children_left[order] < 0
        right = new_id[np.where(leaf, 0, tree.children_right[order])] + root
        feature = tree.feature[order].astype(np.int64)
        code = np.where(tree.missing_go_to_left[order] != 0, -(feature + 1), feature)
        nodes[root:root + size, 0] = tree.threshold[order]
        field = right * _SHIFT + code + _OFFSET
        nodes[root:root + size, 1] = np.where(leaf, -1.0, field)
        values[root:root + size] = tree.value[order, 0, :]
    return nodes, values, roots


@njit(cache=True, nogil=True)
def sum_leaf_values(X, nodes, values, roots, out):
    """``out[i] += values[leaf of row i in tree t]`` for every tree, in tree order.

    Tree-major, so one tree's nodes stay in cache across the rows; each
    row's sum runs over the trees in the same order whatever rows share the
    call, which keeps predictions independent of how the work is split.
    """
    n = X.shape[0]
    n_values = values.shape[1]
    for t in range(roots.shape[0]):
        root = roots[t]
        for i in range(n):
            nd = root
            while True:
                field = nodes[nd, 1]
                if field < 0.0:
                    break
                v = np.int64(field)
                code = (v & (_SHIFT - 1)) - _OFFSET
                if code < 0:
                    x = X[i, -code - 1]
                    go_left = x != x or x <= nodes[nd, 0]
                else:
                    x = X[i, code]
                    go_left = x <= nodes[nd, 0]  # False for NaN: it goes right
                nd = nd + 1 if go_left else v >> _BITS
            for k in range(n_values):
                out[i, k] += values[nd, k]
    return out
