"""Compiled SMO solver for the kernel SVMs (notes B §5.7, libsvm's ``Solver``).

One solver for every dual the estimators need (Fan, Chen and Lin 2005):

    min_a  f(a) = 1/2 a' Q a + p' a   s.t.  y' a = 0,  0 <= a_t <= C_t,

with ``Q_ij = y_i y_j K(x_i, x_j)`` and ``y_t = +-1``. C-SVC is ``p = -1``;
epsilon-SVR is the 2l-variable problem ``(a, a*)`` with ``y = (+1, -1)`` and
``p = (eps - z, eps + z)`` (notes B §5.12). Minimising ``f`` is maximising the
notes' dual ``W(a) = -f(a)``.

Each iteration picks the pair ``(i, j)`` by libsvm's second-order working-set
selection (WSS2): ``i`` maximises ``-y_t G_t`` over the indices that may move
up, ``j`` minimises the exact decrease ``-b^2 / a`` of ``f`` along the pair's
feasible direction, then solves the two-variable problem in closed form and
clips it to the box (the notes' steps 2-5). It stops when the maximal KKT
violation ``m(a) - M(a)`` is at most ``tol``.

Speed comes from libsvm's two devices, kept here in flat arrays:

* a least-recently-used cache of kernel rows (float32, like libsvm's
  ``Qfloat``), bounded by ``n_slots`` rows;
* shrinking: every ``min(n, 1000)`` iterations, bounded variables that cannot
  move are swapped to the end and the loops run over the active prefix only.
  Variables are permuted physically (rows of X too) so every loop is over a
  contiguous range; the cache swaps its columns with them.

All functions are array-in/array-out; the kernel is chosen by a small integer.
"""

from collections import namedtuple

import numpy as np
from numba import njit
from numba.core import types
from numba.extending import overload

LINEAR, POLY, RBF, SIGMOID, PRECOMPUTED = 0, 1, 2, 3, 4
LOWER, UPPER, FREE = 0, 1, 2
# libsvm's TAU: the curvature used when K is not positive definite along the
# pair direction (sigmoid kernel, duplicated points).
TAU = 1e-12
INF = np.inf

# -- the solver's state, by name (issue 26 seam 2) ------------------------------
# numba compiles a namedtuple as a tuple whose fields are read by name at no
# cost, so the kernels below pass these three bundles instead of long
# positional lists, and no function unpacks a tuple by position.

Kernel = namedtuple("Kernel", ["X", "sq", "code", "gamma", "coef0", "degree", "permute_x"])
Kernel.__doc__ = """The kernel and the data it reads.

``X`` is dense (m, d), the (m, m) kernel matrix (``code == PRECOMPUTED``) or
CSR as ``(data, indices, indptr)``; ``sq`` its squared row norms (rbf);
``permute_x`` says rows of dense X are swapped with the variables."""

SMOState = namedtuple(
    "SMOState", ["xrow", "perm", "y", "p", "C", "QD", "alpha", "G", "G_bar", "status"])
SMOState.__doc__ = """Per-variable arrays of the dual, permuted together by shrinking.

``xrow`` the row of X behind each variable, ``perm`` its input position,
``y`` the +-1 signs, ``p`` the linear term, ``C`` the upper bounds,
``QD`` the diagonal of Q, ``G = Q alpha + p``, ``G_bar`` the part of G due to
the variables at their upper bound, ``status`` LOWER / UPPER / FREE."""

RowCache = namedtuple(
    "RowCache",
    ["data", "length", "owner", "prev", "next", "free", "counts", "key_slot",
     "buf", "work", "ones", "ident"])
RowCache.__doc__ = """Least-recently-used cache of kernel rows in flat arrays.

``data[s]`` the row held by slot s (float32, as libsvm's Qfloat),
``length[s]`` how much of it is valid, ``owner[s]`` its key (-1 free);
``prev`` / ``next`` the LRU links, with index n_slots the sentinel (its
``next`` is the oldest row); ``free[:counts[N_FREE]]`` the stack of free
slots; ``key_slot[key]`` the slot of row ``key`` or -1. SVR rows of Q are
assembled in ``buf[counts[SVR_BUF]]`` (two buffers, alternating); ``work`` is
scratch for BLAS inner products; ``ones`` / ``ident`` the SVR kernel-row
signs and columns."""
N_FREE, SVR_BUF = 0, 1

SMOOptions = namedtuple("SMOOptions", ["tol", "shrinking", "max_iter", "n_slots"])
SMOOptions.__doc__ = "The solver's stopping rule, shrinking switch and cache size."


@njit(cache=True, nogil=True, inline="always")
def _from_dot(s, sq_a, sq_b, code, gamma, coef0, degree):
    """The kernel value from the inner product ``s = <x_a, x_b>``."""
    if code == LINEAR:
        return s
    if code == POLY:
        return (gamma * s + coef0) ** degree
    if code == RBF:
        return np.exp(-gamma * (sq_a + sq_b - 2.0 * s))
    return np.tanh(gamma * s + coef0)


# -- the data: a dense array, or CSR as (data, indices, indptr) (issue 20) -----
# The solver reads X only through the four helpers below; numba picks the
# dense or the CSR body by the type of X at compile time. CSR rows need
# sorted, unique column indices; their inner product is a merge,
# O(nnz_a + nnz_b). CSR data are never permuted (``permute_x`` is False):
# variables reach rows through ``xrow``.
#
# Dense and CSR inner products are bit for bit the same number (issue 21):
# column k is added into accumulator k % 4, in increasing k, and the four
# are summed as (s0 + s1) + (s2 + s3). A zero entry adds ±0, which changes
# no sum, so the CSR merge (stored entries only) reproduces the dense loop
# exactly. SMO's working-set choice breaks exact ties by position, so a last
# bit of difference in one kernel value could send a sparse fit down another
# path than the dense one and stop it elsewhere within ``tol``; with equal
# kernel values both fits take the same steps. The four independent chains
# keep the dense loop fast without ``fastmath`` (which would let LLVM reorder
# the sum differently in the two bodies). Nothing here is compiled with
# fastmath for the same reason.


def _entry(X, a, b):  # pragma: no cover - compiled through the overload
    raise NotImplementedError


def _row_dot(X, a, b):  # pragma: no cover
    raise NotImplementedError


def _rows_dot(X, start, end, r, work):  # pragma: no cover
    raise NotImplementedError


def _swap_rows(X, i, j):  # pragma: no cover
    raise NotImplementedError


@overload(_entry, inline="always")
def _ol_entry(X, a, b):
    if isinstance(X, types.Array):
        return lambda X, a, b: X[a, b]
    return lambda X, a, b: 0.0  # no precomputed kernel is sparse


@njit(cache=True, nogil=True)
def _dense_dot(X, a, b):
    """<X[a], X[b]> with column k in accumulator k % 4 (see above)."""
    d = X.shape[1]
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    k = 0
    while k + 4 <= d:
        s0 += X[a, k] * X[b, k]
        s1 += X[a, k + 1] * X[b, k + 1]
        s2 += X[a, k + 2] * X[b, k + 2]
        s3 += X[a, k + 3] * X[b, k + 3]
        k += 4
    if k < d:
        s0 += X[a, k] * X[b, k]
    if k + 1 < d:
        s1 += X[a, k + 1] * X[b, k + 1]
    if k + 2 < d:
        s2 += X[a, k + 2] * X[b, k + 2]
    return (s0 + s1) + (s2 + s3)


@njit(cache=True, nogil=True)
def _csr_dot(data, indices, indptr, a, b):
    """<x_a, x_b> of CSR rows, summed exactly as ``_dense_dot`` sums them."""
    p, p1 = indptr[a], indptr[a + 1]
    q, q1 = indptr[b], indptr[b + 1]
    s0 = 0.0
    s1 = 0.0
    s2 = 0.0
    s3 = 0.0
    while p < p1 and q < q1:
        ip, iq = indices[p], indices[q]
        if ip == iq:
            v = data[p] * data[q]
            lane = ip & 3
            if lane == 0:
                s0 += v
            elif lane == 1:
                s1 += v
            elif lane == 2:
                s2 += v
            else:
                s3 += v
            p += 1
            q += 1
        elif ip < iq:
            p += 1
        else:
            q += 1
    return (s0 + s1) + (s2 + s3)


@overload(_row_dot, inline="always")
def _ol_row_dot(X, a, b):
    if isinstance(X, types.Array):
        return lambda X, a, b: _dense_dot(X, a, b)

    def csr(X, a, b):
        data, indices, indptr = X
        return _csr_dot(data, indices, indptr, a, b)
    return csr


@overload(_rows_dot, inline="always")
def _ol_rows_dot(X, start, end, r, work):
    def rows(X, start, end, r, work):
        for t in range(start, end):
            work[t] = _row_dot(X, t, r)
    return rows


@njit(cache=True, nogil=True)
def row_sq_norms(X, m):
    """``<x_t, x_t>`` of the ``m`` rows, summed as the solver's inner products.

    ``X`` dense (m, d) or CSR as ``(data, indices, indptr)``; the rbf kernel
    reads these, so dense and sparse fits see the same numbers.
    """
    out = np.empty(m)
    for t in range(m):
        out[t] = _row_dot(X, t, t)
    return out


@overload(_swap_rows, inline="always")
def _ol_swap_rows(X, i, j):
    if isinstance(X, types.Array):
        def dense(X, i, j):
            for k in range(X.shape[1]):
                tmp = X[i, k]
                X[i, k] = X[j, k]
                X[j, k] = tmp
        return dense
    return lambda X, i, j: None


@njit(cache=True, nogil=True, inline="always")
def _kernel(ker, a, b):
    """k(x_a, x_b) for rows a and b of X (entries of X when precomputed)."""
    if ker.code == PRECOMPUTED:
        return _entry(ker.X, a, b)
    s = _row_dot(ker.X, a, b)
    return _from_dot(s, ker.sq[a], ker.sq[b], ker.code, ker.gamma, ker.coef0,
                     ker.degree)


# No fastmath: dense and CSR rows must give the same bits (see _dense_dot).
@njit(cache=True, nogil=True)
def _kernel_row(ker, r, cols, contiguous, y, y_r, start, end, out, work):
    """out[t] = y_r y[t] k(x_r, x_cols[t]) for t in [start, end), as float32.

    When the rows are contiguous (``cols[t] == t``: C-SVC with X permuted, or
    the SVR cache rows) the inner products are computed first into ``work``,
    then mapped to kernel values.
    """
    code, gamma, coef0, degree = ker.code, ker.gamma, ker.coef0, ker.degree
    if contiguous and code != PRECOMPUTED and end - start >= 32:
        _rows_dot(ker.X, start, end, r, work)
        sq = ker.sq
        sq_r = sq[r]
        for t in range(start, end):
            out[t] = y_r * y[t] * _from_dot(work[t], sq_r, sq[t], code, gamma,
                                            coef0, degree)
        return
    for t in range(start, end):
        out[t] = y_r * y[t] * _kernel(ker, r, cols[t])


@njit(cache=True, nogil=True)
def _new_cache(n_slots, n_keys, n_buf):
    """An empty cache of ``n_slots`` rows of width ``n_keys``.

    ``n_buf`` is the length of the two SVR row buffers (0 for C-SVC).
    """
    data = np.empty((n_slots, n_keys), dtype=np.float32)
    # one allocation for the five slot-indexed int rows (as before the
    # restructuring); the fields are views of it
    meta = np.zeros((5, n_slots + 1), dtype=np.int64)
    length, owner, prev, nxt, free = meta[0], meta[1], meta[2], meta[3], meta[4]
    owner[:] = -1
    prev[n_slots] = n_slots
    nxt[n_slots] = n_slots
    for s in range(n_slots):
        free[s] = n_slots - 1 - s
    counts = np.zeros(2, dtype=np.int64)
    counts[N_FREE] = n_slots
    key_slot = -np.ones(n_keys, dtype=np.int64)
    svr_l = n_keys if n_buf > 0 else 0
    return RowCache(
        data, length, owner, prev, nxt, free, counts, key_slot,
        np.empty((2, n_buf), dtype=np.float32), np.empty(n_keys),
        np.ones(svr_l), np.arange(svr_l))


@njit(cache=True, nogil=True)
def _lru_remove(cache, s):
    cache.next[cache.prev[s]] = cache.next[s]
    cache.prev[cache.next[s]] = cache.prev[s]


@njit(cache=True, nogil=True)
def _lru_push(cache, s):
    head = cache.prev.shape[0] - 1
    last = cache.prev[head]
    cache.next[last] = s
    cache.prev[s] = last
    cache.next[s] = head
    cache.prev[head] = s


@njit(cache=True, nogil=True)
def _cache_slot(key, cache):
    """Slot of row ``key``, made most recent, and the length already valid.

    A miss takes a free slot or evicts the least recently used row.
    """
    s = cache.key_slot[key]
    if s >= 0:
        _lru_remove(cache, s)
        _lru_push(cache, s)
        return s, cache.length[s]
    n_slots = cache.data.shape[0]
    n_free = cache.counts[N_FREE]
    if n_free > 0:
        s = cache.free[n_free - 1]
        cache.counts[N_FREE] = n_free - 1
    else:
        s = cache.next[n_slots]
        _lru_remove(cache, s)
        cache.key_slot[cache.owner[s]] = -1
    cache.key_slot[key] = s
    cache.owner[s] = key
    cache.length[s] = 0
    _lru_push(cache, s)
    return s, 0


@njit(cache=True, nogil=True)
def _cache_swap(i, j, cache):
    """Swap positions i < j in the position-keyed (C-SVC) cache, as libsvm."""
    key_slot, owner, length, data = cache.key_slot, cache.owner, cache.length, cache.data
    si = key_slot[i]
    sj = key_slot[j]
    key_slot[i] = sj
    key_slot[j] = si
    if si >= 0:
        owner[si] = j
    if sj >= 0:
        owner[sj] = i
    for s in range(data.shape[0]):
        key = owner[s]
        if key < 0:
            continue
        if length[s] > i:
            if length[s] > j:
                tmp = data[s, i]
                data[s, i] = data[s, j]
                data[s, j] = tmp
            else:
                # column j was never computed for this row: drop it (libsvm)
                _lru_remove(cache, s)
                key_slot[key] = -1
                owner[s] = -1
                length[s] = 0
                n_free = cache.counts[N_FREE]
                cache.free[n_free] = s
                cache.counts[N_FREE] = n_free + 1


@njit(cache=True, nogil=True)
def _get_Q(i, length, svr_l, ker, xrow, y, cache):
    """Row i of Q on positions [0, length), as a float32 view.

    C-SVC: the cache holds Q rows in position space, computed only as far as
    needed (the active prefix). SVR: it holds full kernel rows of the l real
    samples; the row of Q is assembled with the signs in one of two
    alternating buffers, as libsvm's ``SVR_Q``.
    """
    if svr_l == 0:
        s, start = _cache_slot(i, cache)
        if start < length:
            _kernel_row(ker, xrow[i], xrow, ker.permute_x, y, y[i], start, length,
                        cache.data[s], cache.work)
            cache.length[s] = length
        return cache.data[s]
    r = xrow[i]
    s, start = _cache_slot(r, cache)
    if start < svr_l:
        # a plain kernel row over the l samples, in their original order
        _kernel_row(ker, r, cache.ident, True, cache.ones, 1.0, 0, svr_l,
                    cache.data[s], cache.work)
        cache.length[s] = svr_l
    b = cache.counts[SVR_BUF]
    cache.counts[SVR_BUF] = 1 - b
    out = cache.buf[b]
    row = cache.data[s]
    y_i = y[i]
    for t in range(length):
        out[t] = y_i * y[t] * row[xrow[t]]
    return out


@njit(cache=True, nogil=True)
def _update_status(alpha, C, status, t):
    if alpha[t] >= C[t]:
        status[t] = UPPER
    elif alpha[t] <= 0:
        status[t] = LOWER
    else:
        status[t] = FREE


@njit(cache=True, nogil=True)
def _swap(a, i, j):
    tmp = a[i]
    a[i] = a[j]
    a[j] = tmp


@njit(cache=True, nogil=True)
def _swap_index(i, j, svr_l, ker, st, cache):
    """Exchange variables i and j everywhere (libsvm's ``swap_index``)."""
    if i == j:
        return
    if i > j:
        i, j = j, i
    if svr_l == 0:
        _cache_swap(i, j, cache)
    if ker.permute_x:
        _swap_rows(ker.X, i, j)
        _swap(ker.sq, i, j)
    else:
        _swap(st.xrow, i, j)
    _swap(st.perm, i, j)
    _swap(st.y, i, j)
    _swap(st.p, i, j)
    _swap(st.C, i, j)
    _swap(st.QD, i, j)
    _swap(st.alpha, i, j)
    _swap(st.G, i, j)
    _swap(st.G_bar, i, j)
    _swap(st.status, i, j)


@njit(cache=True, nogil=True)
def _be_shrunk(t, Gmax1, Gmax2, y, G, status):
    if status[t] == UPPER:
        if y[t] == 1:
            return -G[t] > Gmax1
        return -G[t] > Gmax2
    if status[t] == LOWER:
        if y[t] == 1:
            return G[t] > Gmax2
        return G[t] > Gmax1
    return False


@njit(cache=True, nogil=True)
def _wss2(active_size, tol, svr_l, ker, st, cache):
    """libsvm's second-order working-set selection; j = -1 when optimal.

    ``i`` maximises ``-y_t G_t`` over I_up (first-order choice), then ``j``
    minimises ``-b_ij^2 / a_ij``, the decrease of f along the pair, over the
    indices of I_low with ``b_ij > 0``. The stopping test is
    ``m(a) - M(a) = Gmax + Gmax2 < tol``.
    """
    y, G, QD, status = st.y, st.G, st.QD, st.status
    Gmax = -INF
    Gmax2 = -INF
    i = -1
    for t in range(active_size):
        if y[t] == 1:
            if status[t] != UPPER and -G[t] >= Gmax:
                Gmax = -G[t]
                i = t
        else:
            if status[t] != LOWER and G[t] >= Gmax:
                Gmax = G[t]
                i = t
    j = -1
    if i < 0:
        return i, j
    Q_i = _get_Q(i, active_size, svr_l, ker, st.xrow, st.y, cache)
    QD_i = QD[i]
    y_i = y[i]
    obj_diff_min = INF
    for t in range(active_size):
        if y[t] == 1:
            if status[t] != LOWER:
                grad_diff = Gmax + G[t]
                if G[t] >= Gmax2:
                    Gmax2 = G[t]
                if grad_diff > 0:
                    quad = QD_i + QD[t] - 2.0 * y_i * Q_i[t]
                    if quad <= 0:
                        quad = TAU
                    obj_diff = -(grad_diff * grad_diff) / quad
                    if obj_diff <= obj_diff_min:
                        j = t
                        obj_diff_min = obj_diff
        else:
            if status[t] != UPPER:
                grad_diff = Gmax - G[t]
                if -G[t] >= Gmax2:
                    Gmax2 = -G[t]
                if grad_diff > 0:
                    quad = QD_i + QD[t] + 2.0 * y_i * Q_i[t]
                    if quad <= 0:
                        quad = TAU
                    obj_diff = -(grad_diff * grad_diff) / quad
                    if obj_diff <= obj_diff_min:
                        j = t
                        obj_diff_min = obj_diff
    if Gmax + Gmax2 < tol:
        return i, -1
    return i, j


@njit(cache=True, nogil=True)
def _reconstruct_gradient(active_size, svr_l, ker, st, cache):
    """Recompute G on the shrunk variables from G_bar and the free alphas."""
    y, p, alpha, G, G_bar, status = st.y, st.p, st.alpha, st.G, st.G_bar, st.status
    n = y.shape[0]
    if active_size == n:
        return
    for t in range(active_size, n):
        G[t] = G_bar[t] + p[t]
    n_free = 0
    for t in range(active_size):
        if status[t] == FREE:
            n_free += 1
    if n_free * n > 2 * active_size * (n - active_size):
        for t in range(active_size, n):
            Q_t = _get_Q(t, active_size, svr_l, ker, st.xrow, st.y, cache)
            acc = 0.0
            for s in range(active_size):
                if status[s] == FREE:
                    acc += alpha[s] * Q_t[s]
            G[t] += acc
    else:
        for s in range(active_size):
            if status[s] == FREE:
                Q_s = _get_Q(s, n, svr_l, ker, st.xrow, st.y, cache)
                a_s = alpha[s]
                for t in range(active_size, n):
                    G[t] += a_s * Q_s[t]


@njit(cache=True, nogil=True)
def _do_shrinking(active_size, unshrink, tol, svr_l, ker, st, cache):
    """libsvm's shrinking; returns the new active size and unshrink flag.

    A bounded variable whose gradient says it would only move further out of
    the box (beyond the current extreme violations) leaves the active set.
    Near convergence (``m - M <= 10 tol``) everything is unshrunk once.
    """
    y, G, status = st.y, st.G, st.status
    Gmax1 = -INF  # max -y_t G_t over the indices that may move up
    Gmax2 = -INF  # max  y_t G_t over the indices that may move down
    for t in range(active_size):
        if y[t] == 1:
            if status[t] != UPPER and -G[t] >= Gmax1:
                Gmax1 = -G[t]
            if status[t] != LOWER and G[t] >= Gmax2:
                Gmax2 = G[t]
        else:
            if status[t] != UPPER and -G[t] >= Gmax2:
                Gmax2 = -G[t]
            if status[t] != LOWER and G[t] >= Gmax1:
                Gmax1 = G[t]
    n = y.shape[0]
    if not unshrink and Gmax1 + Gmax2 <= tol * 10:
        unshrink = True
        _reconstruct_gradient(active_size, svr_l, ker, st, cache)
        active_size = n
    t = 0
    while t < active_size:
        if _be_shrunk(t, Gmax1, Gmax2, y, G, status):
            active_size -= 1
            while active_size > t:
                if not _be_shrunk(active_size, Gmax1, Gmax2, y, G, status):
                    _swap_index(t, active_size, svr_l, ker, st, cache)
                    break
                active_size -= 1
        t += 1
    return active_size, unshrink


@njit(cache=True, nogil=True)
def _take_step(i, j, Q_i, y, C, QD, alpha, G):
    """Solve the two-variable problem in closed form and clip it to the box.

    Moves along the feasible direction keeping ``y_i a_i + y_j a_j`` fixed
    (notes B §5.7 steps 2-5, in libsvm's form). Returns the two changes.
    """
    C_i = C[i]
    C_j = C[j]
    old_i = alpha[i]
    old_j = alpha[j]
    if y[i] != y[j]:
        quad = QD[i] + QD[j] + 2.0 * Q_i[j]
        if quad <= 0:
            quad = TAU
        delta = (-G[i] - G[j]) / quad
        diff = alpha[i] - alpha[j]
        alpha[i] += delta
        alpha[j] += delta
        if diff > 0:
            if alpha[j] < 0:
                alpha[j] = 0.0
                alpha[i] = diff
        else:
            if alpha[i] < 0:
                alpha[i] = 0.0
                alpha[j] = -diff
        if diff > C_i - C_j:
            if alpha[i] > C_i:
                alpha[i] = C_i
                alpha[j] = C_i - diff
        else:
            if alpha[j] > C_j:
                alpha[j] = C_j
                alpha[i] = C_j + diff
    else:
        quad = QD[i] + QD[j] - 2.0 * Q_i[j]
        if quad <= 0:
            quad = TAU
        delta = (G[i] - G[j]) / quad
        total = alpha[i] + alpha[j]
        alpha[i] -= delta
        alpha[j] += delta
        if total > C_i:
            if alpha[i] > C_i:
                alpha[i] = C_i
                alpha[j] = total - C_i
        else:
            if alpha[j] < 0:
                alpha[j] = 0.0
                alpha[i] = total
        if total > C_j:
            if alpha[j] > C_j:
                alpha[j] = C_j
                alpha[i] = total - C_j
        else:
            if alpha[i] < 0:
                alpha[i] = 0.0
                alpha[j] = total
    return alpha[i] - old_i, alpha[j] - old_j


@njit(cache=True, nogil=True)
def smo_solve(ker, xrow, svr_l, y, p, C, opts, trace):
    """Solve the dual by SMO with WSS2, a kernel-row cache and shrinking.

    Parameters
    ----------
    ker : Kernel
        The data and the kernel. ``ker.X`` has shape (m, d) (row ``xrow[t]``
        for variable t), or is the (m, m) kernel matrix when
        ``ker.code == PRECOMPUTED``, or CSR ``(data, indices, indptr)``.
        With ``ker.permute_x`` (C-SVC with a built-in kernel on dense X) rows
        of X and ``ker.sq`` are swapped in place with the variables, so kernel
        rows are computed over contiguous memory (``xrow`` stays the
        identity).
    xrow : int64 ndarray of shape (n,)
        Row of X behind each variable (modified).
    svr_l : int
        0 for a C-SVC problem; l for the 2l-variable epsilon-SVR problem
        (then ``X`` has the l samples and ``xrow[t] = t mod l``).
    y, p, C : ndarray of shape (n,)
        Signs (+-1), linear term and upper bounds (modified: pass copies).
    opts : SMOOptions
        ``tol`` (stop when the maximal violation ``m(a) - M(a) <= tol``),
        ``shrinking``, ``max_iter`` and ``n_slots`` (kernel rows the cache
        may hold; at least 2 are used).
    trace : ndarray of shape (n_trace,)
        Receives ``f(a)`` after each of the first ``n_trace`` iterations.

    Returns
    -------
    alpha : ndarray of shape (n,)
        The solution, in the input order.
    rho : float
        The threshold: the decision function is ``sum y_t a_t K(x_t, x) - rho``.
    obj : float
        ``f(alpha)`` (minimised).
    n_iter : int
    status : int
        0 converged, 1 stopped at ``max_iter``.
    """
    tol, max_iter = opts.tol, opts.max_iter
    n = y.shape[0]
    alpha = np.zeros(n)
    status = np.zeros(n, dtype=np.int8)
    for t in range(n):
        _update_status(alpha, C, status, t)
    QD = np.empty(n)
    for t in range(n):
        QD[t] = _kernel(ker, xrow[t], xrow[t])
    st = SMOState(
        xrow, np.arange(n), y, p, C, QD, alpha,
        p.copy(),  # G = Q alpha + p with alpha = 0
        np.zeros(n),  # G_bar: sum of C_t Q[:, t] over the variables at the upper bound
        status)
    G, G_bar = st.G, st.G_bar

    n_keys = n if svr_l == 0 else svr_l
    n_slots = max(2, min(opts.n_slots, n_keys))
    cache = _new_cache(n_slots, n_keys, n if svr_l > 0 else 0)

    active_size = n
    unshrink = False
    obj = 0.0
    n_trace = trace.shape[0]
    it = 0
    counter = min(n, 1000) + 1
    converged = False
    while it < max_iter:
        counter -= 1
        if counter == 0:
            counter = min(n, 1000)
            if opts.shrinking:
                active_size, unshrink = _do_shrinking(
                    active_size, unshrink, tol, svr_l, ker, st, cache)
        i, j = _wss2(active_size, tol, svr_l, ker, st, cache)
        if j < 0:
            # optimal on the active set: check the whole problem
            _reconstruct_gradient(active_size, svr_l, ker, st, cache)
            active_size = n
            i, j = _wss2(active_size, tol, svr_l, ker, st, cache)
            if j < 0:
                converged = True
                break
            counter = 1  # shrink again at the next iteration
        it += 1

        Q_i = _get_Q(i, active_size, svr_l, ker, st.xrow, st.y, cache)
        Q_j = _get_Q(j, active_size, svr_l, ker, st.xrow, st.y, cache)
        d_i, d_j = _take_step(i, j, Q_i, y, C, QD, alpha, G)
        # exact change of f along the step (G is still the old gradient)
        obj += (G[i] * d_i + G[j] * d_j
                + 0.5 * (QD[i] * d_i * d_i + QD[j] * d_j * d_j)
                + Q_i[j] * d_i * d_j)
        if it <= n_trace:
            trace[it - 1] = obj
        for t in range(active_size):
            G[t] += Q_i[t] * d_i + Q_j[t] * d_j

        up_i = status[i] == UPPER
        up_j = status[j] == UPPER
        _update_status(alpha, C, status, i)
        _update_status(alpha, C, status, j)
        if up_i != (status[i] == UPPER):
            Q_i = _get_Q(i, n, svr_l, ker, st.xrow, st.y, cache)
            c = -C[i] if up_i else C[i]
            for t in range(n):
                G_bar[t] += c * Q_i[t]
        if up_j != (status[j] == UPPER):
            Q_j = _get_Q(j, n, svr_l, ker, st.xrow, st.y, cache)
            c = -C[j] if up_j else C[j]
            for t in range(n):
                G_bar[t] += c * Q_j[t]

    if not converged:
        _reconstruct_gradient(active_size, svr_l, ker, st, cache)

    rho = _calculate_rho(n, y, G, status)
    obj = 0.0
    for t in range(n):
        obj += alpha[t] * (G[t] + p[t])
    obj *= 0.5
    alpha_out = np.empty(n)
    for t in range(n):
        alpha_out[st.perm[t]] = alpha[t]
    return alpha_out, rho, obj, it, 0 if converged else 1


@njit(cache=True, nogil=True)
def _calculate_rho(n, y, G, status):
    """libsvm's threshold: the mean of y_t G_t over free variables, else the
    middle of the feasible interval."""
    n_free = 0
    ub = INF
    lb = -INF
    sum_free = 0.0
    for t in range(n):
        yG = y[t] * G[t]
        if status[t] == UPPER:
            if y[t] == -1:
                ub = min(ub, yG)
            else:
                lb = max(lb, yG)
        elif status[t] == LOWER:
            if y[t] == 1:
                ub = min(ub, yG)
            else:
                lb = max(lb, yG)
        else:
            n_free += 1
            sum_free += yG
    if n_free > 0:
        return sum_free / n_free
    # a one-sided interval (a class without samples): take its finite end
    if ub == INF:
        return lb
    if lb == -INF:
        return ub
    return (ub + lb) / 2.0
