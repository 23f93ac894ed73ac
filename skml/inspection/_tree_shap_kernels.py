"""Numba kernels of exact TreeSHAP (notes A §12.4), over flat tree arrays.

Every tree of a model sits in one set of arrays indexed by a global node id,
passed to the kernels as one :data:`FlatTrees` (built by
:class:`skml.inspection._tree_shap.TreeEnsemble`): one :data:`NODE` record
per node with ``left``/``right`` (global ids, ``-1`` at a leaf),
``feature``, ``threshold``, the missing-value direction and ``cover`` (the
weighted number of training samples); ``values`` (leaf values, one column
per output); and for multiway (categorical) nodes
``cat_offset`` into ``pool`` (the child of each code, then of a missing
value, then of an unseen code, as :class:`skml.tree._tree.Tree`) and the
distinct children ``kids[kids_ptr[node]:kids_ptr[node + 1]]``. Tree ``t``
starts at ``roots[t]`` and adds ``scales[t] * values`` to output columns
``columns[t]:columns[t] + n_values``.

Two games, two kernels:

* :func:`path_dependent_shap`: the game of Lundberg et al. (2018),
  Algorithm 2, its weights computed as integrals (see the kernel). The
  value of a coalition ``S`` is the tree's output when the features outside
  ``S`` are integrated out with the training cover: at a node whose feature
  is absent, each child is weighted by ``cover[child] / cover[node]``. One
  depth-first walk per row and tree keeps, for the unique features on the
  path, the proportion of absent (``z``) and present (``o``) ones that still
  reach the node (a feature met again multiplies its earlier fractions).
  Where Algorithm 2 keeps the weights of the subset sizes (EXTEND) and
  removes a feature's share at a leaf (UNWIND), the walk keeps the product
  ``prod_k (z_k (1 - t) + o_k t)`` at a few quadrature nodes ``t``: at a
  leaf, feature ``i`` gets ``(o_i - z_i) * value *`` the integral over
  [0, 1] of that product without its own factor, which is Algorithm 2's
  sum of unwound weights. ``O(N Q + L D Q)`` per row and tree (``N``
  nodes, ``L`` leaves, ``D`` depth, ``Q = D // 2 + 1`` nodes) against
  Algorithm 2's ``O(N D + L D^2)``.
* :func:`interventional_shap`: Lundberg et al. (2020), the exact values
  of the game ``v(S) = f(x_S, b_{not S})`` for each background row ``b``,
  averaged. Walking the tree with both rows, a node where ``x`` and ``b``
  part ways on a feature not yet decided branches into "the feature comes
  from ``x``" and "from ``b``". A leaf reached with ``P`` features from ``x``
  and ``N`` from ``b`` is worth its value exactly for the coalitions holding
  those ``P`` and none of those ``N``, a game whose Shapley values are
  ``(P-1)! N! / (P+N)!`` for each of the ``P`` and ``-P! (N-1)! / (P+N)!``
  for each of the ``N``: ``O(nodes visited + P + N per leaf)`` per pair.

Rows are independent; the kernels loop over rows, then trees, so one
tree's arrays stay in cache for all the background rows of a row. The walks
are depth first with explicit stacks, not recursive: numba's on-disk cache
of a self-recursive function crashed when loaded (numba 0.68).
"""

from collections import namedtuple

import numpy as np
from numba import njit


NODE = np.dtype([("threshold", np.float64), ("cover", np.float64), ("left", np.int32),
                 ("right", np.int32), ("feature", np.int32), ("flags", np.int32)],
                align=True)
"""One 32-byte record per node, so a step reads one cache line (the walks
are latency-bound): children are global ids (-1 at a leaf); ``flags`` bit 0
is "missing values go left", bit 1 "categorical (multiway) node"."""
MISSING_LEFT = 1
CATEGORICAL = 2

FlatTrees = namedtuple("FlatTrees", ["nodes", "values", "cat_offset", "cat_k", "pool",
                                     "kids_ptr", "kids", "roots", "columns", "scales"])
"""The trees of one model as flat arrays, one argument of the kernels: the
nodes (:data:`NODE` records, global ids), their ``values``, the categorical
(multiway) nodes' ``cat_offset``/``cat_k`` into ``pool`` and distinct
children ``kids[kids_ptr[node]:kids_ptr[node + 1]]``, and per tree its
``roots``, first output column (``columns``) and ``scales`` (see the module
docstring). numba passes the tuple's arrays like separate arguments."""


@njit(cache=True, nogil=True, inline="always")
def _child(x, nodes, nd, cat_offset, cat_k, pool):
    """The child of ``nd`` that the row ``x`` goes to (the trees' own rules)."""
    node = nodes[nd]
    v = x[node.feature]
    if (node.flags & CATEGORICAL) == 0:
        if v <= node.threshold or (v != v and (node.flags & MISSING_LEFT) != 0):
            return np.int64(node.left)
        return np.int64(node.right)
    off = cat_offset[nd]
    k = cat_k[nd]
    if v != v:
        return pool[off + k]
    if v < 0 or v >= k:
        return pool[off + k + 1]
    return pool[off + np.int64(v)]


# --------------------------------------------------------------------------
# Path-dependent TreeSHAP (Algorithm 2)
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _extend(pf, pz, po, pw, s, u, zero, one, feat, recip):
    """Append (feat, zero, one) to the path at ``s`` holding ``u`` elements.
    ``recip[k] = 1 / k``: multiplications instead of divisions in the loop."""
    pf[s + u] = feat
    pz[s + u] = zero
    po[s + u] = one
    pw[s + u] = 1.0 if u == 0 else 0.0
    one_u = one * recip[u + 1]
    zero_u = zero * recip[u + 1]
    for i in range(u - 1, -1, -1):
        pw[s + i + 1] += one_u * pw[s + i] * (i + 1)
        pw[s + i] = zero_u * pw[s + i] * (u - i)


@njit(cache=True, nogil=True, inline="always")
def _unwind(pf, pz, po, pw, s, u, idx):
    """Remove element ``idx`` from the path at ``s`` (``u + 1`` elements)."""
    one = po[s + idx]
    zero = pz[s + idx]
    n = pw[s + u]
    if one != 0.0:
        for j in range(u - 1, -1, -1):
            t = pw[s + j]
            pw[s + j] = n * (u + 1) / ((j + 1) * one)
            n = t - pw[s + j] * zero * (u - j) / (u + 1)
    else:
        for j in range(u - 1, -1, -1):
            pw[s + j] = pw[s + j] * (u + 1) / (zero * (u - j))
    for j in range(idx, u):
        pf[s + j] = pf[s + j + 1]
        pz[s + j] = pz[s + j + 1]
        po[s + j] = po[s + j + 1]


@njit(cache=True, nogil=True, inline="always")
def _unwound_sum(pz, po, pw, s, u, idx, recip):
    """Sum of the path weights with element ``idx`` removed (path unchanged)."""
    one = po[s + idx]
    zero = pz[s + idx]
    total = 0.0
    if one != 0.0:
        n = pw[s + u]
        a = (u + 1) / one
        b = zero * recip[u + 1]
        for j in range(u - 1, -1, -1):
            t = n * a * recip[j + 1]
            total += t
            n = pw[s + j] - t * b * (u - j)
    else:
        a = (u + 1) / zero
        for j in range(u - 1, -1, -1):
            total += pw[s + j] * a * recip[u - j]
    return total


@njit(cache=True, nogil=True, inline="always")
def _kids(nd, nodes, kids_ptr, kids, q):
    """Child number ``q`` of the internal node ``nd``."""
    if (nodes[nd].flags & CATEGORICAL) == 0:
        return np.int64(nodes[nd].left if q == 0 else nodes[nd].right)
    return kids[kids_ptr[nd] + q]


@njit(cache=True, nogil=True, inline="always")
def _n_kids(nd, nodes, kids_ptr):
    if (nodes[nd].flags & CATEGORICAL) == 0:
        return 2
    return kids_ptr[nd + 1] - kids_ptr[nd]


@njit(cache=True, nogil=True, inline="always")
def _path_tree(root, x, trees, t_q, w_q, path, stack, phi, col, scale):
    """The path-dependent SHAP values of one tree for the row ``x``, added
    to ``phi[:, col:]``; depth first with an explicit stack (numba's cache
    does not survive recursive functions). ``path`` and ``stack`` are the
    workspaces of :func:`_path_workspace`.

    The path is indexed by depth: entry ``d`` is the split above the node
    at depth ``d`` (feature ``e_f[d]``, the fractions ``e_z[d]``, ``e_o[d]``
    of the absent and present cases reaching it, already multiplied by those
    of an earlier split on the same feature, whose entry ``e_prev[d]`` it
    shadows); ``state[f]`` is the deepest entry of feature ``f`` (-1 none).
    ``g[d, q]`` is the product of ``e_z (1 - t) + e_o t`` over the unshadowed
    entries at the quadrature node ``t = t_q[q]``, ``e_inv[d, q]`` the
    reciprocal of entry ``d``'s factor. A frame is (node, depth, cover
    fraction of the node in its parent, whether ``x`` goes there); ``wg`` is
    scratch for a leaf.
    """
    nodes, values, kids_ptr, kids = trees.nodes, trees.values, trees.kids_ptr, trees.kids
    cat_offset, cat_k, pool = trees.cat_offset, trees.cat_k, trees.pool
    e_f, e_z, e_o, e_prev, e_inv, g, wg, state = path
    stack_nd, stack_depth, stack_r, stack_hot = stack
    nv = values.shape[1]
    nq = t_q.shape[0]
    stack_nd[0] = root
    stack_depth[0] = 0
    top = 1
    cur = 0  # depth of the path's last entry
    for q in range(nq):
        g[0, q] = 1.0
    while top > 0:
        top -= 1
        nd = stack_nd[top]
        d = stack_depth[top]
        r = stack_r[top]
        h = stack_hot[top]
        while cur >= d and cur > 0:  # back up to the parent's path
            state[e_f[cur]] = e_prev[cur]
            cur -= 1
        while True:  # down the first reachable child without a push
            if d > 0:
                j = e_f[d]  # written by the parent
                p = state[j]
                z = r
                o = h
                if p >= 0:
                    z *= e_z[p]
                    o *= e_o[p]
                    for q in range(nq):
                        f_q = z + (o - z) * t_q[q]
                        g[d, q] = g[d - 1, q] * f_q * e_inv[p, q]
                        e_inv[d, q] = 1.0 / f_q
                else:
                    for q in range(nq):
                        f_q = z + (o - z) * t_q[q]
                        g[d, q] = g[d - 1, q] * f_q
                        e_inv[d, q] = 1.0 / f_q
                e_z[d] = z
                e_o[d] = o
                e_prev[d] = p
                state[j] = d
                cur = d
            if nodes[nd].left < 0:
                for q in range(nq):
                    wg[q] = w_q[q] * g[d, q]
                for e in range(1, d + 1):
                    f = e_f[e]
                    if state[f] != e:
                        continue  # shadowed by a deeper split on the same feature
                    s = 0.0
                    for q in range(nq):
                        s += wg[q] * e_inv[e, q]
                    c = scale * (e_o[e] - e_z[e]) * s
                    for k in range(nv):
                        phi[f, col + k] += c * values[nd, k]
                break
            j = np.int64(nodes[nd].feature)
            e_f[d + 1] = j
            hot = _child(x, nodes, nd, cat_offset, cat_k, pool)
            w = nodes[nd].cover
            inv = 1.0 / w if w > 0.0 else 0.0
            p = state[j]
            reach_o = 1.0 if p < 0 else e_o[p]
            reach_z = 1.0 if p < 0 else e_z[p]
            nxt = -1
            for q in range(_n_kids(nd, nodes, kids_ptr)):
                c = _kids(nd, nodes, kids_ptr, kids, q)
                rc = nodes[c].cover * inv
                hc = 1.0 if c == hot else 0.0
                if rc * reach_z == 0.0 and hc * reach_o == 0.0:
                    continue  # a child no case reaches adds nothing
                if nxt < 0:
                    nxt = c
                    r = rc
                    h = hc
                    continue
                stack_nd[top] = c
                stack_depth[top] = d + 1
                stack_r[top] = rc
                stack_hot[top] = hc
                top += 1
            if nxt < 0:
                break
            nd = nxt
            d += 1
    while cur > 0:  # leave ``state`` clean for the next tree
        state[e_f[cur]] = e_prev[cur]
        cur -= 1


@njit(cache=True, nogil=True)
def _path_workspace(d, max_depth, max_kids, nq):
    """The workspaces of :func:`_path_tree`: ``path`` (the entries by depth
    and ``state``, all -1: no feature on the path) and ``stack`` (frames)."""
    size = max_depth + 2
    e_f = np.zeros(size, dtype=np.int64)
    e_z = np.empty(size)
    e_o = np.empty(size)
    e_prev = np.empty(size, dtype=np.int64)
    e_inv = np.empty((size, nq))
    g = np.empty((size, nq))
    wg = np.empty(nq)
    state = np.full(d, -1, dtype=np.int64)
    depth = (max_depth + 2) * max_kids + 1
    stack_nd = np.empty(depth, dtype=np.int64)
    stack_depth = np.empty(depth, dtype=np.int64)
    stack_r = np.empty(depth)
    stack_hot = np.empty(depth)
    return ((e_f, e_z, e_o, e_prev, e_inv, g, wg, state),
            (stack_nd, stack_depth, stack_r, stack_hot))


@njit(cache=True, nogil=True)
def path_dependent_shap(X, trees, max_depth, max_kids, t_q, w_q, out):
    """``out[i, f, c] +=`` the path-dependent SHAP values of row ``i``.

    Lundberg et al.'s Algorithm 2 keeps, along the path, the weights of the
    subset sizes (EXTEND, UNWIND: ``O(D)`` per node and ``O(D^2)`` per
    leaf). Here the same sums are integrals (Yu et al. 2022, Linear
    TreeSHAP): the weight ``|S|! (m - |S| - 1)! / m!`` of Algorithm 2 is
    ``int_0^1 t^|S| (1 - t)^(m - |S| - 1) dt``, so feature ``i``'s credit at
    a leaf is ``(o_i - z_i) v int_0^1 prod_{k != i} (z_k (1 - t) + o_k t) dt``,
    the integral of a polynomial of degree < ``max_depth``, which the
    Gauss-Legendre rule with nodes ``t_q`` and weights ``w_q`` on [0, 1]
    computes exactly for ``len(t_q) >= max_depth / 2``. ``O(len(t_q))`` per
    node and per path entry at a leaf, and nothing to copy or unwind.
    """
    n, d = X.shape
    roots, columns, scales = trees.roots, trees.columns, trees.scales
    path, stack = _path_workspace(d, max_depth, max_kids, t_q.shape[0])
    # blocks of rows per tree: a tree's nodes stay in cache for the block
    for start in range(0, n, 64):
        stop = min(start + 64, n)
        for t in range(roots.shape[0]):
            for i in range(start, stop):
                x = X[i]
                phi = out[i]
                _path_tree(roots[t], x, trees, t_q, w_q, path, stack, phi, columns[t],
                           scales[t])
    return out


@njit(cache=True, nogil=True)
def cover_expectation(trees, max_depth, max_kids, out):
    """``out[c] +=`` each tree's cover-weighted mean leaf value (the
    path-dependent game's value of the empty coalition), scaled: each leaf
    weighted by the product of ``cover[child] / cover[node]`` above it."""
    nodes, values, kids_ptr, kids = trees.nodes, trees.values, trees.kids_ptr, trees.kids
    roots, columns, scales = trees.roots, trees.columns, trees.scales
    size = (max_depth + 2) * max_kids + 1
    stack_nd = np.empty(size, dtype=np.int64)
    stack_w = np.empty(size)
    for t in range(roots.shape[0]):
        stack_nd[0] = roots[t]
        stack_w[0] = scales[t]
        top = 1
        while top > 0:
            top -= 1
            nd = stack_nd[top]
            w = stack_w[top]
            if nodes[nd].left < 0:
                for k in range(values.shape[1]):
                    out[columns[t] + k] += w * values[nd, k]
                continue
            for q in range(_n_kids(nd, nodes, kids_ptr)):
                c = _kids(nd, nodes, kids_ptr, kids, q)
                if nodes[c].cover > 0.0:
                    stack_nd[top] = c
                    stack_w[top] = w * (nodes[c].cover / nodes[nd].cover)
                    top += 1
    return out


# --------------------------------------------------------------------------
# Interventional TreeSHAP
# --------------------------------------------------------------------------


@njit(cache=True, nogil=True, inline="always")
def _pair_tree(root, x, b, trees, coef_x, coef_b, path, stack, phi, col, scale):
    """Walk one tree with the rows ``x`` and ``b`` (explicit stack; numba's
    cache does not survive recursive functions). A frame is (node, depth,
    the feature its parent decided and for which row: 1 ``x``, 2 ``b``, 0
    none); ``list_*`` hold the decided features of the current path, in
    depth order, and ``state[f]`` the side of each (the workspaces of
    :func:`_pair_workspace`). ``phi[f, k]`` receives the credits
    (``phi[f, col + k] += scale * credit``)."""
    nodes, values = trees.nodes, trees.values
    cat_offset, cat_k, pool = trees.cat_offset, trees.cat_k, trees.pool
    state, list_f, list_depth, list_side = path
    stack_nd, stack_depth, stack_f, stack_side = stack
    nv = values.shape[1]
    stack_nd[0] = root
    stack_depth[0] = 0
    stack_side[0] = 0
    stack_f[0] = -1
    top = 1
    n_list = 0
    n_x = 0
    n_b = 0
    while top > 0:
        top -= 1
        nd = stack_nd[top]
        depth = stack_depth[top]
        # back up to this frame's parent: undo the decisions made below it
        while n_list > 0 and list_depth[n_list - 1] >= depth:
            n_list -= 1
            state[list_f[n_list]] = 0
            if list_side[n_list] == 1:
                n_x -= 1
            else:
                n_b -= 1
        side = stack_side[top]
        if side != 0:
            f = stack_f[top]
            state[f] = side
            list_f[n_list] = f
            list_depth[n_list] = depth
            list_side[n_list] = side
            n_list += 1
            if side == 1:
                n_x += 1
            else:
                n_b += 1
        if nodes[nd].left < 0:
            cx = coef_x[n_x, n_b]
            cb = coef_b[n_x, n_b]
            for e in range(n_list):
                c = scale * (cx if list_side[e] == 1 else -cb)
                f = list_f[e]
                for k in range(nv):
                    phi[f, col + k] += c * values[nd, k]
            continue
        j = np.int64(nodes[nd].feature)
        sj = state[j]
        if sj == 1:
            nxt = _child(x, nodes, nd, cat_offset, cat_k, pool)
        elif sj == 2:
            nxt = _child(b, nodes, nd, cat_offset, cat_k, pool)
        else:
            nxt = _child(x, nodes, nd, cat_offset, cat_k, pool)
            go_b = _child(b, nodes, nd, cat_offset, cat_k, pool)
            if nxt != go_b:
                stack_nd[top] = go_b
                stack_depth[top] = depth + 1
                stack_f[top] = j
                stack_side[top] = 2
                top += 1
                stack_nd[top] = nxt
                stack_depth[top] = depth + 1
                stack_f[top] = j
                stack_side[top] = 1
                top += 1
                continue
        stack_nd[top] = nxt
        stack_depth[top] = depth + 1
        stack_side[top] = 0
        stack_f[top] = -1
        top += 1
    # leave ``state`` clean for the next pair
    for e in range(n_list):
        state[list_f[e]] = 0


@njit(cache=True, nogil=True)
def _pair_workspace(d, max_depth):
    """The workspaces of :func:`_pair_tree`: ``path`` (``state``, all 0: no
    feature decided, and the decided features' list) and ``stack`` (frames)."""
    state = np.zeros(d, dtype=np.int8)
    size = 2 * (max_depth + 2)
    stack_nd = np.empty(size, dtype=np.int64)
    stack_depth = np.empty(size, dtype=np.int64)
    stack_f = np.empty(size, dtype=np.int64)
    stack_side = np.empty(size, dtype=np.int8)
    list_f = np.empty(max_depth + 2, dtype=np.int64)
    list_depth = np.empty(max_depth + 2, dtype=np.int64)
    list_side = np.empty(max_depth + 2, dtype=np.int8)
    return ((state, list_f, list_depth, list_side),
            (stack_nd, stack_depth, stack_f, stack_side))


@njit(cache=True, nogil=True)
def interventional_shap(X, B, trees, max_depth, coef_x, coef_b, out):
    """``out[i, f, c] +=`` the interventional SHAP values of row ``i``
    against the background ``B`` (mean over its rows)."""
    n, d = X.shape
    nv = trees.values.shape[1]
    m = B.shape[0]
    roots, columns, scales = trees.roots, trees.columns, trees.scales
    path, stack = _pair_workspace(d, max_depth)
    phi = np.empty((d, nv))
    for i in range(n):
        x = X[i]
        for t in range(roots.shape[0]):
            phi[:] = 0.0
            for r in range(m):
                _pair_tree(roots[t], x, B[r], trees, coef_x, coef_b, path, stack, phi, 0,
                           1.0)
            c = columns[t]
            s = scales[t] / m
            for f in range(d):
                for k in range(nv):
                    out[i, f, c + k] += s * phi[f, k]
    return out


@njit(cache=True, nogil=True)
def interventional_shap_rescaled(X, B, trees, max_depth, coef_x, coef_b, fx, fb, px, pb,
                                 out):
    """``out[i, f, c] +=`` interventional SHAP values of a transformed output
    (probabilities of a boosting's raw score), as shap's
    ``model_output="probability"``: the raw-score values of each pair
    (``x_i``, ``b_r``), summed over the trees, are multiplied by
    ``(p(x_i) - p(b_r)) / (f(x_i) - f(b_r))`` per output (1 where the raw
    scores are equal), then averaged over ``r``. ``fx``, ``fb`` are the raw
    scores of the rows and the background, ``px``, ``pb`` their transforms;
    the values of a pair sum to ``p(x_i) - p(b_r)``."""
    n, d = X.shape
    K = out.shape[2]
    m = B.shape[0]
    roots, columns, scales = trees.roots, trees.columns, trees.scales
    path, stack = _pair_workspace(d, max_depth)
    phi = np.empty((d, K))
    ratio = np.empty(K)
    for i in range(n):
        x = X[i]
        for r in range(m):
            phi[:] = 0.0
            for t in range(roots.shape[0]):
                _pair_tree(roots[t], x, B[r], trees, coef_x, coef_b, path, stack, phi,
                           columns[t], scales[t])
            for k in range(K):
                gap = fx[i, k] - fb[r, k]
                ratio[k] = (px[i, k] - pb[r, k]) / gap if gap != 0.0 else 1.0
            for f in range(d):
                for k in range(K):
                    out[i, f, k] += phi[f, k] * ratio[k] / m
    return out


@njit(cache=True, nogil=True)
def raw_predict(X, trees, out):
    """``out[i, c] +=`` the trees' scaled leaf values for row ``i``."""
    nodes, values = trees.nodes, trees.values
    cat_offset, cat_k, pool = trees.cat_offset, trees.cat_k, trees.pool
    roots, columns, scales = trees.roots, trees.columns, trees.scales
    nv = values.shape[1]
    for i in range(X.shape[0]):
        x = X[i]
        for t in range(roots.shape[0]):
            nd = np.int64(roots[t])
            while nodes[nd].left >= 0:
                nd = _child(x, nodes, nd, cat_offset, cat_k, pool)
            for k in range(nv):
                out[i, columns[t] + k] += scales[t] * values[nd, k]
    return out
