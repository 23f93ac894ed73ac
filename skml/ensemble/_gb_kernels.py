"""Numba kernel of gradient-boosting prediction: every tree in one pass.

Calling each tree's ``apply`` costs a Python round trip per tree (100 trees:
100 calls, 100 gathers); the boosted model instead walks all its binary
trees, packed end to end, for each row. Trees with categorical (multiway)
nodes are not packed; the estimator then predicts tree by tree.
"""

import numpy as np
from numba import njit

__all__ = ["pack_trees", "predict_packed"]


def pack_trees(trees, columns):
    """Concatenate binary trees' arrays; child ids become global node ids.

    Returns None if a tree has a categorical node.
    """
    if any(t.has_categorical_nodes for t in trees):
        return None
    sizes = np.array([t.node_count for t in trees], dtype=np.intp)
    offsets = np.zeros(len(trees) + 1, dtype=np.intp)
    np.cumsum(sizes, out=offsets[1:])

    def cat(name):
        return np.concatenate([getattr(t, name) for t in trees])

    shift = np.repeat(offsets[:-1], sizes)
    left, right = cat("children_left"), cat("children_right")
    leaf = left < 0
    left = np.where(leaf, -1, left + shift)
    right = np.where(leaf, -1, right + shift)
    value = np.concatenate([t.value[:, 0, 0] for t in trees])
    return (offsets, left.astype(np.intp), right.astype(np.intp),
            cat("feature").astype(np.intp), cat("threshold").astype(np.float64),
            cat("missing_go_to_left").astype(np.uint8), value,
            np.asarray(columns, dtype=np.intp))


@njit(cache=True, nogil=True)
def predict_packed(X, offsets, left, right, feature, threshold, missing_left, value,
                   columns, t_start, t_end, scale, raw):
    """``raw[i, columns[t]] += scale * value[leaf_t(x_i)]``, trees t_start..t_end-1."""
    # Trees outer, rows inner (as scikit-learn's predict_stages): one tree's
    # few nodes stay in cache while the rows stream by.
    n = X.shape[0]
    for t in range(t_start, t_end):
        c = columns[t]
        root = offsets[t]
        for i in range(n):
            nd = root
            while left[nd] != -1:
                x = X[i, feature[nd]]
                if x <= threshold[nd]:
                    nd = left[nd]
                elif x != x:
                    nd = left[nd] if missing_left[nd] else right[nd]
                else:
                    nd = right[nd]
            raw[i, c] += scale * value[nd]
