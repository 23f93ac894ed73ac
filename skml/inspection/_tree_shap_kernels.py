"""Numba kernels of exact TreeSHAP (notes A §12.4), over flat tree arrays.

Every tree of a model sits in one set of arrays indexed by a global node id
(:class:`skml.inspection._tree_shap.TreeEnsemble`): one :data:`NODE` record
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

* :func:`path_dependent_shap`: Lundberg et al. (2018), Algorithm 2. The
  value of a coalition ``S`` is the tree's output when the features outside
  ``S`` are integrated out with the training cover: at a node whose feature
  is absent, each child is weighted by ``cover[child] / cover[node]``. One
  depth-first walk per row and tree keeps, for the unique features on the
  path, the proportion of absent (``z``) and present (``o``) ones that still
  reach the node, and the weights of the subset sizes (EXTEND); a feature
  met again is first removed (UNWIND). At a leaf, feature ``i`` on the path
  gets ``sum of its unwound weights * (o_i - z_i) * value``.
  ``O(L D^2)`` per row and tree (``L`` leaves, ``D`` depth).
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
def _path_tree(root, x, nodes, values, cat_offset, cat_k, pool, kids_ptr, kids, pf, pz,
               po, pw, stack_nd, stack_ps, stack_pu, stack_z, stack_o, stack_f, phi, col,
               scale, recip):
    """Algorithm 2 over one tree for the row ``x``, depth first with an explicit
    stack (numba's cache does not survive recursive functions).

    A frame is (node, its parent's path at ``ps`` with ``pu`` elements, the
    fractions and feature to append); the node's own path is written right
    after its parent's, so a parent's path is intact while its subtrees are
    walked.
    """
    nv = values.shape[1]
    top = 0
    stack_nd[0] = root
    stack_ps[0] = 0
    stack_pu[0] = 0
    stack_z[0] = 1.0
    stack_o[0] = 1.0
    stack_f[0] = -1
    top = 1
    while top > 0:
        top -= 1
        nd = stack_nd[top]
        ps = stack_ps[top]
        pu = stack_pu[top]
        s = ps + pu
        for i in range(pu):
            pf[s + i] = pf[ps + i]
            pz[s + i] = pz[ps + i]
            po[s + i] = po[ps + i]
            pw[s + i] = pw[ps + i]
        _extend(pf, pz, po, pw, s, pu, stack_z[top], stack_o[top], stack_f[top], recip)
        u = pu  # the path holds u + 1 elements (element 0 is the root's dummy)
        if nodes[nd].left < 0:
            for i in range(1, u + 1):
                w_i = _unwound_sum(pz, po, pw, s, u, i, recip)
                c = scale * w_i * (po[s + i] - pz[s + i])
                f = pf[s + i]
                for k in range(nv):
                    phi[f, col + k] += c * values[nd, k]
            continue
        j = np.int64(nodes[nd].feature)
        hot = _child(x, nodes, nd, cat_offset, cat_k, pool)
        in_zero = 1.0
        in_one = 1.0
        for k in range(1, u + 1):
            if pf[s + k] == j:
                in_zero = pz[s + k]
                in_one = po[s + k]
                _unwind(pf, pz, po, pw, s, u, k)
                u -= 1
                break
        w = nodes[nd].cover
        inv = 1.0 / w if w > 0.0 else 0.0
        for q in range(_n_kids(nd, nodes, kids_ptr)):
            c = _kids(nd, nodes, kids_ptr, kids, q)
            z = in_zero * nodes[c].cover * inv
            one = in_one if c == hot else 0.0
            if one == 0.0 and z == 0.0:
                continue  # a cold child no training sample reached adds nothing
            stack_nd[top] = c
            stack_ps[top] = s
            stack_pu[top] = u + 1
            stack_z[top] = z
            stack_o[top] = one
            stack_f[top] = j
            top += 1


@njit(cache=True, nogil=True)
def path_dependent_shap(X, nodes, values, cat_offset, cat_k, pool, kids_ptr, kids, roots,
                        columns, scales, max_depth, max_kids, out):
    """``out[i, f, c] +=`` the path-dependent SHAP values of row ``i``."""
    n = X.shape[0]
    size = (max_depth + 2) * (max_depth + 3) // 2
    pf = np.empty(size, dtype=np.int64)
    pz = np.empty(size)
    po = np.empty(size)
    pw = np.empty(size)
    depth = (max_depth + 2) * max_kids + 1
    stack_nd = np.empty(depth, dtype=np.int64)
    stack_ps = np.empty(depth, dtype=np.int64)
    stack_pu = np.empty(depth, dtype=np.int64)
    stack_z = np.empty(depth)
    stack_o = np.empty(depth)
    stack_f = np.empty(depth, dtype=np.int64)
    recip = np.zeros(max_depth + 4)  # recip[k] = 1 / k
    recip[1:] = 1.0 / np.arange(1, max_depth + 4)
    for i in range(n):
        x = X[i]
        phi = out[i]
        for t in range(roots.shape[0]):
            _path_tree(roots[t], x, nodes, values, cat_offset, cat_k, pool, kids_ptr, kids,
                       pf, pz, po, pw,
                       stack_nd, stack_ps, stack_pu, stack_z, stack_o, stack_f, phi,
                       columns[t], scales[t], recip)
    return out


@njit(cache=True, nogil=True)
def cover_expectation(nodes, values, kids_ptr, kids, roots, columns, scales, max_depth,
                      max_kids, out):
    """``out[c] +=`` each tree's cover-weighted mean leaf value (the
    path-dependent game's value of the empty coalition), scaled: each leaf
    weighted by the product of ``cover[child] / cover[node]`` above it."""
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
def _pair_tree(root, x, b, nodes, values, cat_offset, cat_k, pool, coef_x, coef_b, state,
               stack_nd, stack_depth, stack_f, stack_side, list_f, list_depth, list_side,
               phi):
    """Walk one tree with the rows ``x`` and ``b`` (explicit stack; numba's
    cache does not survive recursive functions). A frame is (node, depth,
    the feature its parent decided and for which row: 1 ``x``, 2 ``b``, 0
    none); ``list_*`` hold the decided features of the current path, in
    depth order, and ``state[f]`` the side of each. ``phi[f, k]`` receives
    the credits."""
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
                c = cx if list_side[e] == 1 else -cb
                f = list_f[e]
                for k in range(nv):
                    phi[f, k] += c * values[nd, k]
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
def interventional_shap(X, B, nodes, values, cat_offset, cat_k, pool, roots, columns,
                        scales, max_depth, coef_x, coef_b, out):
    """``out[i, f, c] +=`` the interventional SHAP values of row ``i``
    against the background ``B`` (mean over its rows)."""
    n, d = X.shape
    nv = values.shape[1]
    m = B.shape[0]
    state = np.zeros(d, dtype=np.int8)
    size = 2 * (max_depth + 2)
    stack_nd = np.empty(size, dtype=np.int64)
    stack_depth = np.empty(size, dtype=np.int64)
    stack_f = np.empty(size, dtype=np.int64)
    stack_side = np.empty(size, dtype=np.int8)
    list_f = np.empty(max_depth + 2, dtype=np.int64)
    list_depth = np.empty(max_depth + 2, dtype=np.int64)
    list_side = np.empty(max_depth + 2, dtype=np.int8)
    phi = np.empty((d, nv))
    for i in range(n):
        x = X[i]
        for t in range(roots.shape[0]):
            phi[:] = 0.0
            for r in range(m):
                _pair_tree(roots[t], x, B[r], nodes, values, cat_offset, cat_k, pool,
                           coef_x, coef_b,
                           state, stack_nd, stack_depth, stack_f, stack_side, list_f,
                           list_depth, list_side, phi)
            c = columns[t]
            s = scales[t] / m
            for f in range(d):
                for k in range(nv):
                    out[i, f, c + k] += s * phi[f, k]
    return out
