"""Packed trees: the one prediction layout of trees, forests and boosting.

Traversal is memory-bound for deep trees and latency-bound for shallow ones,
so a tree (or all the trees of an ensemble, end to end) is packed into one
16-byte :data:`PACKED_NODE` record per node, a float64 and an int64:

* binary node: the threshold, and ``right << 21 | missing_left << 20 |
  feature`` with ``right`` the global record of the right child (up to 2^42
  records, 2^20 - 1 features);
* leaf: anything, and ``-1``;
* categorical (multiway) node: the number ``K`` of category codes of its
  feature, and ``-(2 + (offset << 21 | feature))``, where ``pool[offset +
  c]`` is the record of the child of code ``c`` (``c = K`` for a missing
  value, ``c = K + 1`` for a code unseen at fit), as in
  :class:`skml.tree._tree.Tree`'s ``category_children``.

The nodes are renumbered in pre-order, so a binary node's left child is the
next record (usually on the same cache line) and needs no field. A numeric
step tests ``child >= 0`` and reads two fields of one record; leaves and the
categorical case hide behind that test, so trees without categorical nodes
pay nothing for them. On 40 full-depth trees of the 20k x 20 benchmark set
this is about 20% faster than 32-byte records with both children; on 100
depth-3 boosting trees about 20% faster than walking the tree arrays (an
integer field, not a float64 one, keeps a conversion off each step's
dependency chain).
``node_id`` maps each record back to its node id in its own tree, the ids
``apply`` and ``decision_path`` report.
"""

from typing import NamedTuple

import numpy as np
from numba import njit
from scipy import sparse

__all__ = ["PackedTrees", "apply_packed", "apply_packed_csr", "decision_path_packed", "leaf_ids",
           "pack_trees", "record_ids", "sum_leaf_values"]

_RIGHT_SHIFT = 21
_MISSING_LEFT = 1 << 20
_FEATURE_MASK = _MISSING_LEFT - 1
MAX_FEATURES = _FEATURE_MASK

PACKED_NODE = np.dtype([("threshold", np.float64), ("child", np.int64)])


class PackedTrees(NamedTuple):
    """Trees packed end to end (see the module docstring)."""

    nodes: np.ndarray  # (n_records,) PACKED_NODE
    values: np.ndarray  # (n_records, n_values) leaf values, or (n_records, 0)
    roots: np.ndarray  # (n_trees,) record of each tree's root
    pool: np.ndarray  # children records of the categorical nodes
    node_id: np.ndarray  # (n_records,) node id of each record in its tree, or None
    # (pack_trees(compact=True): the ids are the records' offsets from their roots)


@njit(cache=True, nogil=True)
def _preorder(left, right, cat_offset, cat_children, cat_k):
    """Node ids in pre-order (each node, then its left, then its right subtree;
    a categorical node's children in increasing id order)."""
    n = left.shape[0]
    order = np.empty(n, dtype=np.intp)
    stack = np.empty(n + 1, dtype=np.intp)
    pushed = np.zeros(n, dtype=np.bool_)
    stack[0] = 0
    top = 1
    k = 0
    while top > 0:
        top -= 1
        nd = stack[top]
        order[k] = nd
        k += 1
        if left[nd] < 0:
            continue
        off = cat_offset[nd]
        if off < 0:
            stack[top] = right[nd]
            stack[top + 1] = left[nd]
            top += 2
            continue
        # Absent codes repeat the most populated child: push each child once,
        # largest id first so that the smallest is walked first.
        first = top
        for s in range(cat_k[nd] + 2):
            c = cat_children[off + s]
            if c >= 0 and not pushed[c]:
                pushed[c] = True
                stack[top] = c
                top += 1
        for a in range(first + 1, top):  # insertion sort, decreasing ids
            c = stack[a]
            b = a - 1
            while b >= first and stack[b] < c:
                stack[b + 1] = stack[b]
                b -= 1
            stack[b + 1] = c
    return order


@njit(cache=True, nogil=True)
def _pack_binary(left, right, feature, threshold, missing_left, value, roots, base,
                 nodes, values, node_id):
    """:func:`pack_trees` of trees without categorical nodes, stored end to end
    in the flat arrays (tree ``t``'s nodes at ``roots[t]:roots[t + 1]``, its
    own ids from 0), in one pass: each tree walked in pre-order (as
    :func:`_preorder`), its records written at its root onwards. The
    records are those from ``base`` on of the whole packing (right children
    numbered so)."""
    n_trees = roots.shape[0]
    n_total = left.shape[0]
    n_values = values.shape[1]
    new_id = np.empty(n_total, dtype=np.int64)
    stack = np.empty(n_total + 1, dtype=np.intp)
    for t in range(n_trees):
        root = roots[t]
        # pre-order: the ids node_id[root:end], then each node's new record
        k = root
        stack[0] = 0
        top = 1
        while top > 0:
            top -= 1
            nd = stack[top]
            node_id[k] = nd
            new_id[root + nd] = k + base
            k += 1
            if left[root + nd] >= 0:
                stack[top] = right[root + nd]
                stack[top + 1] = left[root + nd]
                top += 2
        for r in range(root, k):
            g = root + node_id[r]
            nodes[r].threshold = threshold[g]
            if left[g] < 0:
                nodes[r].child = -1
            else:
                ml = _MISSING_LEFT if missing_left[g] != 0 else 0
                nodes[r].child = ((new_id[root + right[g]] << _RIGHT_SHIFT) | ml
                                  | np.int64(feature[g]))
            for v in range(n_values):
                values[r, v] = value[g, v]


# Records packed by one call of _pack_binary: the trees' arrays are copied
# end to end a chunk at a time (about 3 MiB), not all at once (a forest's
# whole size again, at the end of its fit: its peak memory).
_PACK_CHUNK = 1 << 16


def _pack_flat(trees, sizes, roots, n_values, compact):
    """:func:`_pack_binary` of ``trees``; None if one has a categorical node."""
    if any(t.has_categorical_nodes for t in trees):
        return None
    names = ("children_left", "children_right", "feature", "threshold", "missing_go_to_left")
    n_records = int(roots[-1]) + sizes[-1]
    nodes = np.empty(n_records, dtype=PACKED_NODE)
    values = np.empty((n_records, n_values))
    # With compact=True the node ids are kept only if some tree's are not
    # in pre-order already: each chunk's ids go to a chunk-sized buffer, and
    # the whole array is made (the earlier chunks' ids being their offsets)
    # at the first chunk out of order (a forest's 8 bytes a node, at its
    # fit's peak, saved).
    node_id = None if compact else np.empty(n_records, dtype=np.intp)
    first = 0
    while first < len(trees):
        last = first + 1
        while last < len(trees) and roots[last] + sizes[last] - roots[first] <= _PACK_CHUNK:
            last += 1
        a, b = int(roots[first]), int(roots[last - 1]) + sizes[last - 1]
        chunk = trees[first:last]
        if len(chunk) == 1:
            parts = tuple(getattr(chunk[0], name) for name in names)
        else:
            parts = tuple(np.concatenate([getattr(t, name) for t in chunk]) for name in names)
        if not n_values:
            value = np.empty((b - a, 0))
        elif len(chunk) == 1:
            value = chunk[0].value.reshape(b - a, n_values)
        else:
            value = np.concatenate([t.value.reshape(-1, n_values) for t in chunk])
        chunk_roots = roots[first:last] - a
        ids = np.empty(b - a, dtype=np.intp) if node_id is None else node_id[a:b]
        _pack_binary(*parts, value, chunk_roots, a, nodes[a:b], values[a:b], ids)
        if node_id is None and not _ids_in_order(ids, chunk_roots):
            node_id = np.empty(n_records, dtype=np.intp)
            node_id[a:b] = ids
            _offsets_from_roots(node_id[:a], roots[:first])
        first = last
    return PackedTrees(nodes, values, roots, np.zeros(0, dtype=np.intp), node_id)


@njit(cache=True, nogil=True)
def _offsets_from_roots(node_id, roots):
    """Fill ``node_id`` with each record's offset from its tree's root (the
    ids of trees numbered in pre-order)."""
    t = 0
    for r in range(node_id.shape[0]):
        while t + 1 < roots.shape[0] and r >= roots[t + 1]:
            t += 1
        node_id[r] = r - roots[t]


@njit(cache=True, nogil=True)
def _ids_in_order(node_id, roots):
    """Whether every record holds node ``record - root`` of its tree (trees
    grown depth-first are numbered in pre-order already)."""
    t = 0
    for r in range(node_id.shape[0]):
        while t + 1 < roots.shape[0] and r >= roots[t + 1]:
            t += 1
        if node_id[r] != r - roots[t]:
            return False
    return True


def pack_trees(trees, with_values=True, compact=False):
    """Pack :class:`~skml.tree._tree.Tree` objects end to end.

    ``with_values=False`` leaves the leaf values out (a zero-width array):
    a tree's own packing, whose values its owner may still rewrite (boosting
    sets the leaf values after the growth), keeps only the structure.
    ``compact=True`` stores ``node_id`` as None when every tree's nodes are
    numbered in pre-order already (depth-first growth), as the records are:
    a record's node id is then its offset from its tree's root (8 bytes a
    node saved; :func:`leaf_ids` and :func:`record_ids` read both). Trees
    without categorical nodes are packed by one compiled pass over all of
    them (:func:`_pack_binary`; ~1 us a boosting tree, against ~25 us for
    the array operations per tree the categorical case takes).
    """
    if trees[0].n_features > MAX_FEATURES:
        raise ValueError(f"Tree prediction supports up to {MAX_FEATURES} features.")
    sizes = [t.node_count for t in trees]
    n_values = trees[0].value.shape[1] * trees[0].value.shape[2] if with_values else 0
    roots = np.zeros(len(sizes), dtype=np.intp)
    np.cumsum(np.asarray(sizes[:-1], dtype=np.intp), out=roots[1:])
    packed = _pack_flat(trees, sizes, roots, n_values, compact)
    if packed is not None:
        return packed
    n_records = sum(sizes)
    nodes = np.empty(n_records, dtype=PACKED_NODE)
    # A multi-output tree's values flat, output after output.
    values = np.empty((n_records, n_values))
    node_id = np.empty(n_records, dtype=np.intp)
    pools = []
    pool_base = 0
    for tree, root, size in zip(trees, roots, sizes):
        feature = tree.feature.astype(np.int64)
        cat_offset = tree.category_offset
        is_cat = cat_offset >= 0
        cat_k = np.where(is_cat, tree.n_category_slots[np.maximum(feature, 0)], 0)
        order = _preorder(tree.children_left, tree.children_right, cat_offset,
                          tree.category_children, cat_k)
        new_id = np.empty(size, dtype=np.int64)
        new_id[order] = np.arange(size)
        leaf = tree.children_left[order] < 0
        right = new_id[np.where(leaf, 0, tree.children_right[order])] + root
        f = feature[order]
        ml = (tree.missing_go_to_left[order] != 0).astype(np.int64)
        child = np.where(leaf, -1, (right << _RIGHT_SHIFT) | (ml * _MISSING_LEFT) | f)
        threshold = tree.threshold[order]
        if is_cat.any():
            cat = is_cat[order] & ~leaf
            pool = tree.category_children
            pools.append(np.where(pool >= 0, new_id[np.maximum(pool, 0)] + root, -1))
            offset = (cat_offset[order] + pool_base).astype(np.int64)
            child = np.where(cat, -(2 + ((offset << _RIGHT_SHIFT) | f)), child)
            threshold = np.where(cat, cat_k[order], threshold)
            pool_base += pool.shape[0]
        nodes["threshold"][root:root + size] = threshold
        nodes["child"][root:root + size] = child
        node_id[root:root + size] = order
        if with_values:
            values[root:root + size] = tree.value[order].reshape(size, n_values)
    pool = (np.concatenate(pools).astype(np.intp) if pools
            else np.zeros(0, dtype=np.intp))
    return PackedTrees(nodes, values, roots, pool, node_id)


def leaf_ids(packed, X):
    """Leaf node id (in its own tree) of every row of ``X`` in each packed
    tree, shape (n_rows, n_trees); ``X`` C-contiguous float64, or a sparse matrix."""
    roots = packed.roots
    if sparse.issparse(X):
        X = sparse.csr_matrix(X, dtype=np.float64)
        leaves = apply_packed_csr(X.data, X.indices, X.indptr, X.shape[1],
                                  packed.nodes, packed.pool, roots)
    else:
        leaves = apply_packed(X, packed.nodes, packed.pool, roots)
    return record_ids(packed, leaves, roots)


def record_ids(packed, records, roots):
    """Node ids (in their own trees) of ``records`` of the trees of ``roots``
    (broadcast along the last axis of ``records``)."""
    if packed.node_id is None:
        return records - roots
    return packed.node_id[records]


@njit(cache=True, nogil=True, inline="always")
def _category_child(X, i, nodes, pool, nd, child):
    v = -child - 2
    x = X[i, v & _FEATURE_MASK]
    base = v >> _RIGHT_SHIFT
    k = np.int64(nodes[nd].threshold)
    if x != x:
        return pool[base + k]
    if x < 0 or x >= k:
        return pool[base + k + 1]
    return pool[base + np.int64(x)]


@njit(cache=True, nogil=True, inline="always")
def _binary_child(X, i, nodes, nd, child):
    x = X[i, child & _FEATURE_MASK]
    if x <= nodes[nd].threshold or (x != x and (child & _MISSING_LEFT) != 0):
        return nd + 1
    return child >> _RIGHT_SHIFT


@njit(cache=True, nogil=True, inline="always")
def _leaf(X, i, nodes, pool, nd):
    """The leaf record row ``i`` of ``X`` reaches from record ``nd``."""
    while True:
        child = nodes[nd].child
        if child >= 0:
            nd = _binary_child(X, i, nodes, nd, child)
        elif child == -1:
            return nd
        else:
            nd = _category_child(X, i, nodes, pool, nd, child)


@njit(cache=True, nogil=True)
def sum_leaf_values(X, nodes, values, pool, roots, columns, scale, out):
    """``out[i, columns[t] + k] += scale * values[leaf of row i in tree t, k]``.

    Tree-major, so one tree's nodes stay in cache across the rows; each
    row's sum runs over the trees in the same order whatever rows share the
    call, which keeps predictions independent of how the work is split.
    ``scale`` is boosting's learning rate (1.0, exact, for a forest).
    """
    n = X.shape[0]
    n_values = values.shape[1]
    for t in range(roots.shape[0]):
        root = roots[t]
        c = columns[t]
        if n_values == 1:  # regression, boosting: no inner loop
            for i in range(n):
                out[i, c] += scale * values[_leaf(X, i, nodes, pool, root), 0]
            continue
        for i in range(n):
            nd = _leaf(X, i, nodes, pool, root)
            for k in range(n_values):
                out[i, c + k] += scale * values[nd, k]
    return out


@njit(cache=True, nogil=True)
def apply_packed(X, nodes, pool, roots):
    """Leaf record of every row in every tree, shape (n_rows, n_trees)."""
    n = X.shape[0]
    out = np.empty((n, roots.shape[0]), dtype=np.intp)
    for t in range(roots.shape[0]):
        root = roots[t]
        for i in range(n):
            out[i, t] = _leaf(X, i, nodes, pool, root)
    return out


@njit(cache=True, nogil=True)
def apply_packed_csr(data, indices, indptr, n_features, nodes, pool, roots):
    """:func:`apply_packed` on CSR rows: each row is scattered into one dense
    buffer, walked down every tree, and its entries reset, so a row costs its
    stored values plus its paths, and memory is one row."""
    n = indptr.shape[0] - 1
    out = np.empty((n, roots.shape[0]), dtype=np.intp)
    row = np.zeros((1, n_features))
    for i in range(n):
        for q in range(indptr[i], indptr[i + 1]):
            row[0, indices[q]] += data[q]  # += sums duplicate entries
        for t in range(roots.shape[0]):
            out[i, t] = _leaf(row, 0, nodes, pool, roots[t])
        for q in range(indptr[i], indptr[i + 1]):
            row[0, indices[q]] = 0.0
    return out


@njit(cache=True, nogil=True)
def _step(X, i, nodes, pool, nd):
    """One step down from the internal record ``nd``."""
    child = nodes[nd].child
    if child >= 0:
        return _binary_child(X, i, nodes, nd, child)
    return _category_child(X, i, nodes, pool, nd, child)


@njit(cache=True, nogil=True)
def decision_path_packed(X, nodes, pool, root):
    """CSR (indptr, indices) of the records each row visits in one tree."""
    n = X.shape[0]
    indptr = np.zeros(n + 1, dtype=np.intp)
    for i in range(n):
        nd = root
        c = 1
        while nodes[nd].child != -1:
            nd = _step(X, i, nodes, pool, nd)
            c += 1
        indptr[i + 1] = indptr[i] + c
    indices = np.empty(indptr[n], dtype=np.intp)
    for i in range(n):
        nd = root
        k = indptr[i]
        indices[k] = nd
        while nodes[nd].child != -1:
            nd = _step(X, i, nodes, pool, nd)
            k += 1
            indices[k] = nd
    return indptr, indices
