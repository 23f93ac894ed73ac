"""numba kernel of the LSH query: gather the probed buckets, deduplicate, re-rank.

The candidates of a query are the union of its buckets over the tables (and
the extra buckets of multi-probe). Visiting them is a sequential loop with a
"seen" stamp per training point and an early stop (the notes' 2L+1 rule),
which numpy cannot express without materialising every (query, candidate)
pair; the exact re-ranking keeps the k best in the bounded max-heap of the
exact brute-force engine (``_kd_tree_kernels``), so ties are broken by the
smaller training index as there.
"""

import numpy as np
from numba import njit

from ._kd_tree_kernels import (
    _NO_INDEX,
    EUCLIDEAN,
    MANHATTAN,
    _heap_sort,
    _sift_down,
    manhattan_rows,
    sq_euclidean_rows,
)

# Distance codes: the KD-tree's, plus cosine. Reduced distances: squared
# Euclidean, Manhattan (also the Hamming count on 0/1 data), and 1 - u.v on
# unit rows for cosine.
COSINE = 4


@njit(cache=True, nogil=True, inline="always")
def _rdist(Xq, r, X, i, code):
    if code == EUCLIDEAN:
        return sq_euclidean_rows(Xq, r, X, i)
    if code == MANHATTAN:
        return manhattan_rows(Xq, r, X, i)
    acc = 0.0
    for t in range(X.shape[1]):
        acc += Xq[r, t] * X[i, t]
    return max(1.0 - acc, 0.0)


@njit(cache=True, nogil=True, inline="always")
def _qdist(Xq, r, X, i, manhattan):
    # Screening distance on int16 codes, in exact integers. Branch-free in
    # the metric (manhattan is 0 or 1: |diff| = diff * sign(diff)): a
    # run-time branch on it kept the loop from vectorising, 2-3x slower.
    acc = 0
    for t in range(X.shape[1]):
        diff = np.int64(Xq[r, t]) - np.int64(X[i, t])
        sign = np.int64(diff > 0) - np.int64(diff < 0)
        acc += diff * (diff + manhattan * (sign - diff))
    return float(acc)


@njit(cache=True, nogil=True)
def build_bucket_slots(sorted_keys, home, slots):
    """Open-addressing table from a key to its bucket's slice.

    ``sorted_keys`` (n,) are one table's keys (int64 view of the uint64
    keys) in sorted order, ``home`` their home slots (top bits of the key:
    the keys are already uniform hashes). ``slots`` (capacity, 2) receives
    ``(key, start << 32 | end)`` of each bucket by linear probing (16 bytes
    a slot); 0 in the second field marks an empty slot (``end >= 1``). One
    lookup reads one cache line, where a binary search over the sorted keys
    took 17 dependent reads (searchsorted was most of the query time).
    """
    mask = slots.shape[0] - 1
    n = sorted_keys.shape[0]
    s = 0
    while s < n:
        e = s + 1
        while e < n and sorted_keys[e] == sorted_keys[s]:
            e += 1
        h = home[s]
        while slots[h, 1] != 0:
            h = (h + 1) & mask
        slots[h, 0] = sorted_keys[s]
        slots[h, 1] = (s << 32) | e
        s = e


@njit(cache=True, nogil=True, inline="always")
def bucket_range(slots, t, key, h):
    """``(start, end)`` of the bucket of ``key`` in table ``t``: its slice of
    ``bucket_index[t]``, empty when the key has no bucket.

    Linear probing from the home slot ``h`` over ``slots`` (L, capacity, 2)
    as filled by :func:`build_bucket_slots`; shared by the k-nearest and the
    radius queries (inlined: the lookup sits in their innermost loop).
    """
    mask = slots.shape[1] - 1
    start = end = 0
    while slots[t, h, 1] != 0:
        if slots[t, h, 0] == key:
            start = slots[t, h, 1] >> 32
            end = slots[t, h, 1] & 0xFFFFFFFF
            break
        h = (h + 1) & mask
    return start, end


@njit(cache=True, nogil=True, inline="always")
def _gather_candidates(r, tables, probes, max_examined, self_offset, seen, cand):
    """The distinct training points in query r's probed buckets, in visit order.

    Writes them to ``cand[:count]`` and returns ``count``: the probes are
    visited in order, each point once (``seen[i] == r`` marks it taken; the
    query's own point ``r + self_offset`` is skipped unless ``self_offset``
    is -1), stopping after ``max_examined`` points (``cand`` holds
    ``min(max_examined, n)``). Shared by the k-nearest and radius queries;
    ``tables`` and ``probes`` as there.
    """
    bucket_index, slots = tables
    probe_table, probe_key, probe_home = probes
    skip = r + self_offset if self_offset >= 0 else -1
    count = 0
    for p in range(probe_table.shape[1]):
        if count >= max_examined:
            break
        t = probe_table[r, p]
        start, end = bucket_range(slots, t, probe_key[r, p], probe_home[r, p])
        for s in range(start, end):
            i = bucket_index[t, s]
            if seen[i] == r or i == skip:
                continue
            seen[i] = r
            cand[count] = i
            count += 1
            if count >= max_examined:
                return count
    return count


@njit(cache=True, nogil=True)
def query_buckets(queries, points, tables, probes, k, k_screen, max_examined, code,
                  self_offset, out_d, out_i, out_n):
    """k nearest of each query among its probed buckets.

    The candidates are screened on int16 codes of the points (one common
    scale for all features, so the screening ranks by the same metric up to
    a rounding of ~1e-4 of the data's range), keeping the ``k_screen``
    best; those are re-ranked with their float64 distances, so the k
    returned are measured exactly. The random row reads dominate the query:
    64-byte int16 rows made it 5-10 times faster than float64 rows on
    50k x 32 (the codes stay in cache).

    Parameters
    ----------
    queries, points : ``(Xq, Xq16)`` and ``(X, X16)``: the (m, d) queries and
        (n, d) training points (unit rows for cosine) and their int16 codes.
    tables : ``(bucket_index, slots)``, the hash tables: ``bucket_index``
        (L, n) the training indices of each table, sorted by key; ``slots``
        (L, capacity, 2) each table's buckets (``build_bucket_slots``).
    probes : ``(probe_table, probe_key, probe_home)``, (m, P) the probes of
        each query, in the order they are visited: table, key (int64 view)
        and home slot.
    max_examined : stop a query after this many distinct points.
    self_offset : query r is training point ``r + self_offset``, excluded
        from its own candidates; -1 for outside queries.
    out_d, out_i : (m, k) reduced distances and indices, ascending; a query
        with fewer than k candidates keeps inf / ``_NO_INDEX`` at the end.
    out_n : (m,) number of distinct points examined.
    """
    Xq, Xq16 = queries
    X, X16 = points
    seen = np.full(X.shape[0], -1, dtype=np.int32)
    cand = np.empty(min(max_examined, X.shape[0]), dtype=np.int64)
    manhattan = np.int64(code == MANHATTAN)
    sd = np.empty(k_screen)
    si = np.empty(k_screen, dtype=np.int64)
    hd = np.empty(k)
    hi = np.empty(k, dtype=np.int64)
    for r in range(Xq.shape[0]):
        sd[:] = np.inf
        si[:] = _NO_INDEX
        worst = np.inf
        worst_i = _NO_INDEX
        count = _gather_candidates(r, tables, probes, max_examined, self_offset, seen,
                                   cand)
        for c in range(count):
            i = cand[c]
            d = _qdist(Xq16, r, X16, i, manhattan)
            # Candidates arrive in bucket order, not index order: an equal
            # distance wins when its index is smaller.
            if d < worst or (d == worst and i < worst_i):
                _sift_down(sd, si, k_screen, d, i)
                worst = sd[0]
                worst_i = si[0]
        hd[:] = np.inf
        hi[:] = _NO_INDEX
        worst = np.inf
        worst_i = _NO_INDEX
        for j in range(k_screen):
            i = si[j]
            if i == _NO_INDEX:
                continue
            d = _rdist(Xq, r, X, i, code)
            if d < worst or (d == worst and i < worst_i):
                _sift_down(hd, hi, k, d, i)
                worst = hd[0]
                worst_i = hi[0]
        _heap_sort(hd, hi)
        out_d[r] = hd
        out_i[r] = hi
        out_n[r] = count


@njit(cache=True, nogil=True)
def radius_buckets(Xq, X, tables, probes, r_reduced, max_examined, code, self_offset):
    """Candidates within ``r_reduced`` (reduced distance) of each query.

    Same visit as :func:`query_buckets`, every candidate measured in float64.
    Returns CSR pieces: ``indptr`` (m + 1,), ``indices`` and reduced
    ``distances``, each row by increasing index.
    """
    m = Xq.shape[0]
    seen = np.full(X.shape[0], -1, dtype=np.int32)
    cand = np.empty(min(max_examined, X.shape[0]), dtype=np.int64)
    indptr = np.zeros(m + 1, dtype=np.int64)
    ind = np.empty(1024, dtype=np.int64)
    dist = np.empty(1024)
    nnz = 0
    for r in range(m):
        row_start = nnz
        count = _gather_candidates(r, tables, probes, max_examined, self_offset, seen,
                                   cand)
        for c in range(count):
            i = cand[c]
            d = _rdist(Xq, r, X, i, code)
            if d <= r_reduced:
                if nnz == ind.shape[0]:  # grow the buffers by doubling
                    ind = np.concatenate((ind, np.empty_like(ind)))
                    dist = np.concatenate((dist, np.empty_like(dist)))
                ind[nnz] = i
                dist[nnz] = d
                nnz += 1
        order = np.argsort(ind[row_start:nnz])
        ind[row_start:nnz] = ind[row_start:nnz][order]
        dist[row_start:nnz] = dist[row_start:nnz][order]
        indptr[r + 1] = nnz
    return indptr, ind[:nnz].copy(), dist[:nnz].copy()
