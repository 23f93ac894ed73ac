"""Locality-sensitive hashing: L tables of k concatenated hashes (notes A §5.4-5.7).

Hashing is one matrix product per block of points; the k codes of a table
are folded into one 64-bit key; each table is the training indices sorted by
key, so a bucket is the slice ``searchsorted(key, "left"):searchsorted(key,
"right")``. A query gathers its buckets in a numba kernel (``_lsh_kernels``)
and re-ranks the distinct candidates by their exact distance.
"""

from numbers import Integral, Real

import numpy as np
from scipy.special import ndtr
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    TransformerMixin,
)
from sklearn.utils.validation import check_is_fitted, check_random_state

from ..utils import Interval, Options, validate_params
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, SELF_RETURNS, fill_doc
from ..utils._magnitude import magnitude_scale
from ..utils._parallel import resolve_n_jobs, row_blocks, run_in_threads
from ..metrics._pairwise_helpers import unit_rows
from ._base import KNeighborsMixin, RadiusNeighborsMixin
from ._lsh_kernels import (
    _NO_INDEX,
    COSINE,
    EUCLIDEAN,
    MANHATTAN,
    build_bucket_slots,
    query_buckets,
    radius_buckets,
)
from ._unsupervised import NearestNeighbors
from ..utils.validation import validate_data

__all__ = ["LSHKNeighborsTransformer", "LSHNearestNeighbors"]

# family -> the distance it is locality-sensitive for (notes A §5.5-5.6).
FAMILY_METRIC = {
    "pstable_gaussian": "euclidean",
    "pstable_cauchy": "manhattan",
    "hyperplane": "cosine",
    "bit_sampling": "hamming",
}
METRIC_FAMILY = {metric: family for family, metric in FAMILY_METRIC.items()}
METRIC_ALIASES = {
    "euclidean": "euclidean",
    "l2": "euclidean",
    "manhattan": "manhattan",
    "cityblock": "manhattan",
    "l1": "manhattan",
    "cosine": "cosine",
    "hamming": "hamming",
}
_KERNEL_CODE = {"euclidean": EUCLIDEAN, "manhattan": MANHATTAN, "hamming": MANHATTAN,
                "cosine": COSINE}
# Floors of Cauchy projections can be huge; clipping keeps the int64 cast
# defined (a point that far out shares a bucket with nothing anyway).
_CODE_BOUND = 2.0**62


def collision_probability(distance, family, bucket_width=4.0):
    """Probability that one hash of ``family`` maps two points to the same code.

    Closed forms of notes A §5.5-5.6 (the p-stable ones from Datar et al.
    2004), with ``r = w / c`` for two points at distance ``c``:

    - "pstable_gaussian" (Euclidean ``c``):
      ``1 - 2 Phi(-r) - 2 / (sqrt(2 pi) r) (1 - exp(-r^2 / 2))``
      (0.3687 at ``w = c = 1``);
    - "pstable_cauchy" (Manhattan ``c``):
      ``(2 / pi) arctan(r) - ln(1 + r^2) / (pi r)``;
    - "hyperplane" (cosine distance ``c = 1 - cos theta``): ``1 - theta / pi``;
    - "bit_sampling" (Hamming distance as a fraction of the features):
      ``1 - c``.

    Parameters
    ----------
    distance : float or array-like
        Distances between the two points, in the family's metric.
    family : {"pstable_gaussian", "pstable_cauchy", "hyperplane", "bit_sampling"}
        The hash family.
    bucket_width : float, default=4.0
        ``w`` of the p-stable families.

    Returns
    -------
    p : float or ndarray
        The collision probability of one hash.
    """
    c = np.asarray(distance, dtype=np.float64)
    if family == "hyperplane":
        return 1.0 - np.arccos(np.clip(1.0 - c, -1.0, 1.0)) / np.pi
    if family == "bit_sampling":
        return 1.0 - c
    if family not in ("pstable_gaussian", "pstable_cauchy"):
        raise ValueError(f"Unknown LSH family {family!r}.")
    with np.errstate(divide="ignore", invalid="ignore"):
        r = bucket_width / c
        if family == "pstable_gaussian":
            p = 1.0 - 2.0 * ndtr(-r) - 2.0 / (np.sqrt(2 * np.pi) * r) * (
                1.0 - np.exp(-(r**2) / 2.0))
        else:
            p = 2.0 / np.pi * np.arctan(r) - np.log1p(r**2) / (np.pi * r)
    return np.where(c == 0.0, 1.0, p)

# The Parameters section of ``fit`` and ``fit_transform``.
_DOC_FIT_PARAMETERS = """
Parameters
----------
X : array-like of shape (n_samples, n_features)
    Training points (0/1 values for bit sampling).
y : Ignored
    Not used, present for API consistency.
"""


class _LSHIndex(BaseEstimator):
    """The hash tables and the query shared by the two public estimators."""

    _parameter_constraints = {
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "radius": [Interval(Real, 0, None, closed="left")],
        "family": [Options({"auto", *FAMILY_METRIC})],
        "metric": [Options({"auto", *METRIC_ALIASES})],
        "n_tables": [Interval(Integral, 1, None, closed="left"), Options({"auto"})],
        "n_hashes": [Interval(Integral, 0, None, closed="left"), Options({"auto"})],
        "c": [Interval(Real, 1, None, closed="neither")],
        "bucket_width": [Interval(Real, 0, None, closed="neither"), Options({"auto"})],
        "max_candidates": [Options({"2L+1"}),
                           Interval(Integral, 1, None, closed="left"), None],
        "multi_probe": [Interval(Integral, 0, None, closed="left")],
        "fallback": [Options({"brute", "raise"})],
        "random_state": ["random_state"],
        "n_jobs": [Integral, None],
    }

    def __init__(self, *, n_neighbors, family, metric, n_tables, n_hashes, bucket_width,
                 max_candidates, multi_probe, fallback, random_state, n_jobs):
        # The parameters of both estimators, stored unchanged; each public
        # __init__ lists them with their defaults (get_params reads it).
        self.n_neighbors = n_neighbors
        self.family = family
        self.metric = metric
        self.n_tables = n_tables
        self.n_hashes = n_hashes
        self.bucket_width = bucket_width
        self.max_candidates = max_candidates
        self.multi_probe = multi_probe
        self.fallback = fallback
        self.random_state = random_state
        self.n_jobs = n_jobs

    # -- fit -------------------------------------------------------------------
    @fill_doc(parameters=_DOC_FIT_PARAMETERS, returns=SELF_RETURNS)
    def fit(self, X, y=None):
        """Hash the training points into the L tables.

        <parameters>

        <returns>
        """
        return self._fit(X)

    def _resolve_family(self):
        metric = None if self.metric == "auto" else METRIC_ALIASES[self.metric]
        family = self.family
        if family == "auto":
            family = METRIC_FAMILY[metric or "euclidean"]
        elif metric is not None and FAMILY_METRIC[family] != metric:
            raise ValueError(
                f"family={family!r} is locality-sensitive for the "
                f"{FAMILY_METRIC[family]!r} distance, not metric={self.metric!r}; use "
                f"metric='auto' or family={METRIC_FAMILY[metric]!r}."
            )
        return family, FAMILY_METRIC[family]

    def _validate(self, X, reset):
        X = validate_data(self, X, reset=reset, dtype=np.float64, order="C")
        family = self.family_ if not reset else self._resolve_family()[0]
        if family == "bit_sampling" and not np.all((X == 0.0) | (X == 1.0)):
            raise ValueError(
                "family='bit_sampling' (Hamming distance) needs binary data: every "
                "value of X must be 0 or 1."
            )
        return X

    def _fit(self, X):
        validate_params(self)
        self.family_, self.effective_metric_ = self._resolve_family()
        X = self._validate(X, reset=True)
        n, d = X.shape
        rng = check_random_state(self.random_state)
        exact_metric = {"hamming": "manhattan"}.get(self.effective_metric_,
                                                    self.effective_metric_)
        self._exact = NearestNeighbors(algorithm="brute", metric=exact_metric,
                                       n_jobs=self.n_jobs).fit(X)
        self.bucket_width_ = self._bucket_width(X, rng)
        L, k = self._table_sizes(n)
        self.n_tables_, self.n_hashes_ = L, k
        self.projections_ = self.offsets_ = self.hash_features_ = None
        if self.family_ == "bit_sampling":
            # Coordinates drawn with replacement: k independent draws from the
            # notes' uniform H, so a table collides with probability (1-c)^k.
            self.hash_features_ = rng.randint(d, size=(L, k))
        else:
            draw = rng.standard_cauchy if self.family_ == "pstable_cauchy" else (
                rng.standard_normal)
            self.projections_ = draw((d, L * k))
            if self.family_ != "hyperplane":
                self.offsets_ = rng.uniform(0.0, self.bucket_width_, L * k)
        # Random odd 64-bit multipliers fold a table's k codes into one key,
        # sum_j code_j m_j mod 2^64 (linear, so a probe's key is key + delta
        # m_j). Two different code vectors share a key with probability about
        # 2^-64 per pair: a negligible merge of buckets.
        self._multipliers = rng.randint(0, 2**64 - 1, size=(L, k), dtype=np.uint64) | (
            np.uint64(1))
        keys = np.empty((n, L), dtype=np.uint64)
        for rows in row_blocks(n, 4 * max(L * k, 1), 1):
            keys[rows] = self._keys(self._codes(X[rows]))
        keys = np.ascontiguousarray(keys.T)  # rows: argsort along contiguous memory
        self.bucket_index_ = np.argsort(keys, axis=1, kind="stable")
        self.bucket_keys_ = np.take_along_axis(keys, self.bucket_index_, 1)
        # Hash slots at most half full: probes end after ~1.5 reads on average.
        n_buckets = max(int(np.count_nonzero(np.diff(row)) + 1)
                        for row in self.bucket_keys_)
        self._slot_bits = max(int(np.ceil(np.log2(2 * n_buckets))), 1)
        self._slots = np.zeros((L, 2**self._slot_bits, 2), dtype=np.int64)
        for t in range(L):
            build_bucket_slots(self.bucket_keys_[t].view(np.int64),
                               self._home(self.bucket_keys_[t]), self._slots[t])
        self.n_samples_fit_ = n
        self._fit_X = X
        # The exact re-ranking of candidates squares coordinates: at X * 1e300
        # (or 1e-300) it runs on X / s (s = 2^e, exact) and distances are
        # multiplied back; s = 1 on ordinary data. Hashing needs no rescaling
        # (projections are sums of products with O(1) weights, and the
        # bucket width is measured on the data).
        self._rank_unit = 1.0
        if self.effective_metric_ == "cosine":
            self._rank_X = unit_rows(X)
        else:
            self._rank_unit = magnitude_scale(X)
            self._rank_X = X if self._rank_unit == 1.0 else X / self._rank_unit
        # int16 codes for the screening of candidates (see the kernel): the
        # training range maps to +-2^14, leaving room for queries twice as far.
        lo, hi = self._rank_X.min(axis=0), self._rank_X.max(axis=0)
        self._code_centre = (lo + hi) / 2
        half_range = float(np.max(hi - lo)) / 2
        self._code_scale = half_range / 2**14 if half_range > 0 else 1.0
        self._rank_X16 = self._int16_codes(self._rank_X)
        return self

    def _table_sizes(self, n):
        """L and k: the parameters, or for "auto" the theorem's choice (notes A §5.7).

        With ``P1 = p(R)`` and ``P2 = p(cR)`` the collision probabilities of
        one hash at the query radius ``R = radius`` and at ``cR`` (``c`` the
        approximation factor), ``rho = ln(1/P1) / ln(1/P2)``, ``k = ceil(log_{1/P2}
        n)`` and ``L = ceil(n^rho)``: then a point within ``R`` of a query
        shares a bucket with it with probability at least ``1 - 1/e``, and
        the ``cR``-far points fill at most ``2L`` slots in expectation
        (``2L+1`` examined points suffice with probability ``>= 1/2 - 1/e``).
        Sets ``rho_`` (NaN when both sizes are given).
        """
        self.rho_ = np.nan
        L, k = self.n_tables, self.n_hashes
        if L != "auto" and k != "auto":
            return int(L), int(k)
        R = getattr(self, "radius", None)
        c = getattr(self, "c", None)
        if R is None or c is None or R <= 0:
            raise ValueError(
                "n_tables='auto' / n_hashes='auto' need the query radius R > 0 and "
                "the approximation factor c of LSHNearestNeighbors(radius=R, c=c)."
            )
        P1, P2 = (float(collision_probability(dist, self.family_, self.bucket_width_))
                  for dist in (R, c * R))
        if not 0.0 < P2 < P1 < 1.0:
            raise ValueError(
                f"The family {self.family_!r} does not separate R={R} from cR={c * R} "
                f"at this bucket width (P1={P1:.4g}, P2={P2:.4g}: need 0 < P2 < P1 "
                "< 1); choose n_tables and n_hashes, or another radius or c."
            )
        self.rho_ = float(np.log(1.0 / P1) / np.log(1.0 / P2))
        if k == "auto":
            k = max(1, int(np.ceil(np.log(max(n, 2)) / np.log(1.0 / P2))))
        if L == "auto":
            L = max(1, int(np.ceil(max(n, 1) ** self.rho_)))
        return int(L), int(k)

    def _bucket_width(self, X, rng):
        """w: the parameter, or for "auto" four times the median distance of a
        sample of training points to their ``n_neighbors``-th neighbour, where
        one p-stable hash collides with probability 0.80 (Gaussian) or 0.62
        (Cauchy), notes A §5.6."""
        if self.bucket_width != "auto":
            return float(self.bucket_width)
        if self.family_ not in ("pstable_gaussian", "pstable_cauchy"):
            return 4.0  # unused by the other families
        n = X.shape[0]
        sample = rng.choice(n, size=min(n, 256), replace=False)
        k = min(self.n_neighbors + 1, n)
        dist = self._exact.kneighbors(X[sample], k)[0][:, -1]
        width = 4.0 * float(np.median(dist))
        return width if width > 0 else max(4.0 * float(dist.max()), 1.0)

    def _int16_codes(self, X):
        codes = np.rint((X - self._code_centre) / self._code_scale)
        np.clip(codes, -(2**15 - 1), 2**15 - 1, out=codes)
        return codes.astype(np.int16)

    # -- hashing -----------------------------------------------------------------
    def _projections(self, X):
        """Scaled projections (m, L, k) whose floor (or sign) are the codes."""
        L, k = self.n_tables_, self.n_hashes_
        if self.family_ == "bit_sampling":
            return X[:, self.hash_features_.ravel()].reshape(X.shape[0], L, k)
        proj = X @ self.projections_
        if self.offsets_ is not None:
            proj += self.offsets_
            proj /= self.bucket_width_
            np.clip(proj, -_CODE_BOUND, _CODE_BOUND, out=proj)
        return proj.reshape(X.shape[0], L, k)

    def _codes(self, X, proj=None):
        proj = self._projections(X) if proj is None else proj
        if self.family_ == "hyperplane":
            return (proj >= 0.0).astype(np.int64)
        if self.family_ == "bit_sampling":
            return proj.astype(np.int64)
        return np.floor(proj).astype(np.int64)

    def _home(self, keys):
        return (keys >> np.uint64(64 - self._slot_bits)).astype(np.int64)

    def _keys(self, codes):
        # Wrap-around uint64 arithmetic is the mod 2^64 of the key.
        return (codes.view(np.uint64) * self._multipliers).sum(axis=2, dtype=np.uint64)

    def _perturbations(self, proj, codes):
        """Single-coordinate moves to neighbouring buckets and their costs.

        Returns ``delta`` (m, L, J) code changes, ``coord`` (J,) the hash they
        change and ``cost`` (m, L, J): the distance of the projection to the
        boundary crossed (p-stable: to the floor or the ceiling, in units of
        w; hyperplane: ``|a.q|``; bit sampling: 0, every flip alike).
        """
        k = self.n_hashes_
        if self.family_ in ("pstable_gaussian", "pstable_cauchy"):
            frac = proj - codes
            delta = np.concatenate([np.full_like(codes, -1), np.ones_like(codes)],
                                   axis=2)
            cost = np.concatenate([frac, 1.0 - frac], axis=2)
            coord = np.tile(np.arange(k), 2)
        else:
            delta = 1 - 2 * codes
            cost = (np.abs(proj) if self.family_ == "hyperplane"
                    else np.zeros(codes.shape))
            coord = np.arange(k)
        return delta, coord, cost

    def _probes(self, X):
        """Tables, keys and home slots of each query's probes, in visiting order.

        First the L buckets of the query (the notes' algorithm), then, with
        ``multi_probe = T``, the T cheapest single-coordinate neighbours of
        each table's bucket, all tables merged by increasing cost.
        """
        L, T = self.n_tables_, self.multi_probe
        proj = self._projections(X)
        codes = self._codes(X, proj)
        keys = self._keys(codes)
        m = X.shape[0]
        tables = np.broadcast_to(np.arange(L), (m, L))
        if T > 0 and self.n_hashes_ > 0:
            delta, coord, cost = self._perturbations(proj, codes)
            T = min(T, delta.shape[2])
            pick = np.argsort(cost, axis=2, kind="stable")[:, :, :T]
            delta = np.take_along_axis(delta, pick, 2)
            cost = np.take_along_axis(cost, pick, 2).reshape(m, L * T)
            mult = self._multipliers[np.arange(L)[:, None], coord[pick]]
            moved = keys[:, :, None] + delta.view(np.uint64) * mult
            order = np.argsort(cost, axis=1, kind="stable")
            moved = np.take_along_axis(moved.reshape(m, L * T), order, 1)
            moved_tables = np.repeat(np.arange(L), T)[order]
            keys = np.hstack([keys, moved])
            tables = np.hstack([tables, moved_tables])
        return (np.ascontiguousarray(tables, dtype=np.int64),
                np.ascontiguousarray(keys).view(np.int64), self._home(keys))

    # -- query -----------------------------------------------------------------
    def _max_examined(self, k):
        if self.max_candidates is None:
            return self.n_samples_fit_
        cap = 2 * self.n_tables_ + 1 if self.max_candidates == "2L+1" else (
            self.max_candidates)
        # A k-NN query needs k points: the cap never stops it below k.
        return max(int(cap), k)

    def _query_data(self, X):
        check_is_fitted(self)
        if X is None:
            return self._fit_X, True
        return self._validate(X, reset=False), False

    def _search(self, Xq, k, exclude_self):
        """LSH candidates only: reduced distances, indices, counts examined."""
        n_q = Xq.shape[0]
        rank_q = self._rank_rows(Xq)
        dist = np.empty((n_q, k))
        ind = np.empty((n_q, k), dtype=np.int64)
        counts = np.empty(n_q, dtype=np.int64)
        code = _KERNEL_CODE[self.effective_metric_]
        cap = self._max_examined(k)

        # Twice k screened on int16 codes, then re-ranked in float64 (the kernel).
        k_screen = min(2 * k, self.n_samples_fit_)

        def run(rows):
            query_buckets((rank_q[rows], self._int16_codes(rank_q[rows])),
                          (self._rank_X, self._rank_X16), (self.bucket_index_, self._slots),
                          self._probes(Xq[rows]), k, k_screen, cap, code,
                          rows.start if exclude_self else -1,
                          dist[rows], ind[rows], counts[rows])

        n_threads = resolve_n_jobs(self.n_jobs, none="blas")
        width = 4 * self.n_tables_ * (1 + self.multi_probe) + 4 * self.n_tables_ * max(
            self.n_hashes_, 1)
        run_in_threads(run, row_blocks(n_q, width, n_threads), n_threads)
        return dist, ind, counts

    def _rank_rows(self, Xq):
        """Query rows in the units of ``_rank_X``."""
        if self.effective_metric_ == "cosine":
            return unit_rows(Xq)
        unit = getattr(self, "_rank_unit", 1.0)
        return Xq if unit == 1.0 else Xq / unit

    def _kneighbors(self, Xq, k, exclude_self):
        dist, ind, _ = self._search(Xq, k, exclude_self)
        metric = self.effective_metric_
        if metric == "euclidean":
            np.sqrt(dist, out=dist)
        elif metric == "hamming":
            dist /= self.n_features_in_
        if getattr(self, "_rank_unit", 1.0) != 1.0:
            dist *= self._rank_unit
        short = np.flatnonzero(ind[:, -1] == _NO_INDEX)
        if short.size:
            if self.fallback == "raise":
                raise ValueError(
                    f"{short.size} of {Xq.shape[0]} queries found fewer than "
                    f"n_neighbors={k} candidates in their buckets; use more tables, "
                    "fewer hashes, a wider bucket_width, multi_probe, or "
                    "fallback='brute'."
                )
            dist[short], ind[short] = self._exact_rows(Xq, short, k, exclude_self)
        return dist, ind

    def _exact_rows(self, Xq, rows, k, exclude_self):
        """Brute-force answer of the queries ``rows`` (the fallback)."""
        dist, ind = self._exact.kneighbors(Xq[rows], k + exclude_self)
        if exclude_self:
            # Drop the query's own index (or, if a duplicate hid it, the last).
            own = ind == rows[:, None]
            own[~own.any(axis=1), -1] = True
            keep = ~own
            dist = dist[keep].reshape(-1, k)
            ind = ind[keep].reshape(-1, k)
        if self.effective_metric_ == "hamming":
            dist = dist / self.n_features_in_
        return dist, ind

    def _radius_csr(self, Xq, radius, exclude_self):
        """CSR pieces of the candidates within ``radius`` (no fallback)."""
        metric = self.effective_metric_
        unit = getattr(self, "_rank_unit", 1.0)
        radius = radius / unit
        r_reduced = {"euclidean": radius * radius,
                     "hamming": radius * self.n_features_in_}.get(metric, radius)
        rank_q = self._rank_rows(Xq)
        code = _KERNEL_CODE[metric]
        cap = self.n_samples_fit_ if self.max_candidates is None else (
            self._max_examined(1))

        def run(rows):
            return radius_buckets(rank_q[rows], self._rank_X,
                                  (self.bucket_index_, self._slots), self._probes(Xq[rows]),
                                  r_reduced, cap, code, rows.start if exclude_self else -1)

        n_threads = resolve_n_jobs(self.n_jobs, none="blas")
        width = 4 * self.n_tables_ * (1 + self.multi_probe + max(self.n_hashes_, 1))
        parts = run_in_threads(run, row_blocks(Xq.shape[0], width, n_threads), n_threads)
        offsets = np.cumsum([0] + [part[1].shape[0] for part in parts[:-1]])
        indptr = np.concatenate(
            [[0]] + [part[0][1:] + off for part, off in zip(parts, offsets)])
        indices = np.concatenate([part[1] for part in parts])
        dist = np.concatenate([part[2] for part in parts])
        if metric == "euclidean":
            np.sqrt(dist, out=dist)
        elif metric == "hamming":
            dist /= self.n_features_in_
        if unit != 1.0:
            dist *= unit
        return indptr.astype(np.int64), indices, dist

    def candidate_counts(self, X=None, n_neighbors=None):
        """Number of distinct training points each query examines.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), default=None
            Query points; ``None`` as in :meth:`kneighbors`.
        n_neighbors : int, default=None
            As in :meth:`kneighbors` (it bounds ``max_candidates`` below).

        Returns
        -------
        counts : ndarray of shape (n_queries,)
            Distinct points whose exact distance was computed, before any
            brute-force fallback.
        """
        Xq, exclude_self = self._query_data(X)
        k = self.n_neighbors if n_neighbors is None else int(n_neighbors)
        return self._search(Xq, k, exclude_self)[2]

    def collision_probability(self, distance, level="hash"):
        """Closed-form collision probability at ``distance`` (notes A §5.5-5.7).

        Parameters
        ----------
        distance : float or array-like
            Distances in the fitted metric (cosine distance, Hamming fraction).
        level : {"hash", "table", "index"}, default="hash"
            One hash (``p``), one table of k hashes (``p^k``), or at least
            one of the L tables (``1 - (1 - p^k)^L``), without multi-probe.

        Returns
        -------
        p : float or ndarray
        """
        check_is_fitted(self)
        p = collision_probability(distance, self.family_, self.bucket_width_)
        if level == "hash":
            return p
        table = p**self.n_hashes_
        if level == "table":
            return table
        if level == "index":
            return 1.0 - (1.0 - table) ** self.n_tables_
        raise ValueError(f"level must be 'hash', 'table' or 'index'; got {level!r}.")


_DOC_PARAMS = """
family : {"auto", "pstable_gaussian", "pstable_cauchy", "hyperplane", \
"bit_sampling"}, default="auto"
    The hash family (notes A §5.5-5.6): ``floor((a.x + b) / w)`` with
    ``a ~ N(0, I)`` (Euclidean) or i.i.d. Cauchy entries (Manhattan) and
    ``b ~ U[0, w)``; ``sign(a.x)`` with ``a ~ N(0, I)`` (random
    hyperplanes, cosine); one coordinate ``x_i`` (bit sampling, Hamming
    on 0/1 data). "auto": the family of ``metric`` (Euclidean if both
    are "auto").
metric : {"auto", "euclidean", "manhattan", "cosine", "hamming"}, \
default="auto"
    Distance of the exact re-ranking; each family has one ("l2", "l1",
    "cityblock" are aliases). "auto": the family's. A metric that does
    not match an explicit family raises ``ValueError``. "hamming" is the
    fraction of differing coordinates, as scikit-learn's.
n_tables : int or "auto", default=10
    L, the number of hash tables. "auto" (LSHNearestNeighbors only) is
    the notes' ``L = n^rho`` (A §5.7 theorem), ``rho = ln(1/P1) /
    ln(1/P2)`` from one hash's collision probabilities ``P1`` at
    ``radius`` and ``P2`` at ``c * radius``.
n_hashes : int or "auto", default=8
    k, hashes concatenated into one table's key. ``0`` puts every point in
    one bucket: brute force. "auto" (LSHNearestNeighbors only) is the
    notes' ``k = ceil(log_{1/P2} n)``.
bucket_width : float or "auto", default=4.0
    w of the p-stable families, in the units of the data's distances
    (ignored by the other families). "auto": four times the median
    distance of 256 sampled training points to their ``n_neighbors``-th
    neighbour (one hash then collides with probability 0.80 at that
    distance for the Gaussian family).
max_candidates : "2L+1", int or None, default=None
    Stop a query after examining this many distinct points (never fewer
    than ``n_neighbors``). "2L+1" is the notes' stopping rule (§5.7,
    counting examined points, errata A §0.12); None examines every
    candidate.
multi_probe : int, default=0
    Extra buckets probed per table: the neighbouring buckets across the
    boundaries nearest to the query's projections (moves of one code by
    +-1, or one flipped bit), cheapest first over all tables. 0: the
    notes' L buckets only.
fallback : {"brute", "raise"}, default="brute"
    A query whose buckets hold fewer than ``n_neighbors`` points:
    answered exactly by brute force ("brute"), or ``ValueError``.
random_state : int, RandomState instance or None, default=None
    Seeds the hash functions.
n_jobs : int, default=None
    Threads for the queries (blocks of query points); ``None`` follows
    the BLAS thread limit, as the brute-force engine.
"""

_DOC_ATTRIBUTES = """
family_ : str
    The family used.
n_tables_, n_hashes_ : int
    L and k used (``n_tables`` and ``n_hashes``, or their "auto" values).
rho_ : float
    ``ln(1/P1) / ln(1/P2)`` behind the "auto" sizes (NaN without them).
bucket_width_ : float
    The bucket width w used.
effective_metric_ : str
    The re-ranking distance: "euclidean", "manhattan", "cosine" or "hamming".
projections_ : ndarray of shape (n_features, n_tables * n_hashes) or None
    The vectors ``a`` (columns; table t holds columns ``t k .. t k + k - 1``);
    None for bit sampling.
offsets_ : ndarray of shape (n_tables * n_hashes,) or None
    The offsets ``b`` of the p-stable families.
hash_features_ : ndarray of shape (n_tables, n_hashes) or None
    The sampled coordinates of bit sampling.
bucket_keys_ : ndarray of shape (n_tables, `n_samples_fit_`), dtype uint64
    Each table's keys, sorted.
bucket_index_ : ndarray of shape (n_tables, `n_samples_fit_`)
    The training indices in the order of ``bucket_keys_``: a bucket is a
    slice of equal keys.
n_samples_fit_ : int
    Number of training points.
"""

_DOC_NOTES = """
Hashing costs one (n, d) x (d, L k) product; the index is L argsorts of
n keys, O(L n log n) time and O(L n) memory (two arrays of n entries per
table, and a hash array of at most 64 n bytes per table mapping a key to
its bucket; no per-point dictionaries). A query hashes the same way, finds
each probed bucket with one lookup in that array, and visits each
distinct candidate once (a "seen" stamp per training point): O(L (1 + T)
+ C d) for C candidates. Candidates are screened on int16 codes of the
points (one scale for all features; random reads of 64-byte rows are
the cost of a query), the best 2k re-ranked with float64 distances, so
the distances returned are exact. Ties are broken by the smaller
training index, as in :class:`NearestNeighbors`.

The notes' parameters (§5.7): with ``P1``, ``P2`` the collision
probabilities at R and cR (:meth:`collision_probability`), ``rho =
log(1/P1) / log(1/P2)``, ``k = log_{1/P2} n`` and ``L = n^rho`` give a
cR-near point with probability at least 1/2 - 1/e when stopping after
2L+1 examined points. In practice (k-NN recall) fewer hashes per table
and more tables or probes work better. The p-stable families need
``bucket_width`` of the order of the neighbour distances: about four
times the distance of the k-th neighbour (``bucket_width="auto"``).

Queries with fewer than ``n_neighbors`` candidates go to the exact brute
force of :class:`NearestNeighbors` (``fallback="brute"``), so the
answer always has ``n_neighbors`` points; with very selective hashes this
makes queries as slow as brute force, and is the sign to add tables or
probes.
"""


# Docstring blocks of the two LSH estimators, placed by ``fill_doc``.
_DOC = {
    "lsh parameters": _DOC_PARAMS,
    "lsh attributes": _DOC_ATTRIBUTES + FITTED_FEATURE_ATTRIBUTES.lstrip("\n"),
    "lsh notes": _DOC_NOTES,
}


@fill_doc(**_DOC)
class LSHNearestNeighbors(KNeighborsMixin, RadiusNeighborsMixin, _LSHIndex):
    """Approximate nearest neighbours by locality-sensitive hashing.

    The LSH index of notes A §5.7: L hash tables, each keyed by k
    concatenated hashes of an LSH family (§5.4-5.6); a query's candidates are
    the union of its L buckets (plus neighbouring buckets with
    ``multi_probe``), re-ranked by their exact distance. Optionally the
    query stops after 2L+1 examined points, the notes' rule.

    Parameters
    ----------
    n_neighbors : int, default=5
        Number of neighbours of :meth:`kneighbors` by default.
    radius : float, default=1.0
        Radius of :meth:`radius_neighbors` by default: the candidates within
        it (the notes' Strategy 2, reporting R-near points). Approximate: a
        point that shares no probed bucket with the query is missed, and
        there is no fallback. Also the ``R`` of :meth:`cr_near_neighbors` and
        of the "auto" table sizes.
    <lsh parameters>
    c : float, default=2.0
        The approximation factor ``c > 1`` of the ``(c, R)``-near-neighbour
        problem (notes A §5.3, §5.7): :meth:`cr_near_neighbors` reports
        points within ``c * radius``, and "auto" ``n_tables``/``n_hashes``
        are chosen for it.

    Attributes
    ----------
    <lsh attributes>

    See Also
    --------
    NearestNeighbors : Exact search (brute force or KD-tree).
    LSHKNeighborsTransformer : The approximate k-NN graph as a transformer.

    Notes
    -----
    <lsh notes>

    References
    ----------
    P. Indyk and R. Motwani, "Approximate nearest neighbors: towards removing
    the curse of dimensionality", STOC 1998.
    M. Datar, N. Immorlica, P. Indyk and V. Mirrokni, "Locality-sensitive
    hashing scheme based on p-stable distributions", SoCG 2004.
    Q. Lv, W. Josephson, Z. Wang, M. Charikar and K. Li, "Multi-probe LSH:
    efficient indexing for high-dimensional similarity search", VLDB 2007.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.neighbors import LSHNearestNeighbors
    >>> X = np.random.RandomState(0).normal(size=(500, 8))
    >>> lsh = LSHNearestNeighbors(n_neighbors=3, n_tables=8, n_hashes=4,
    ...                           random_state=0).fit(X)
    >>> dist, ind = lsh.kneighbors(X[:2])
    >>> ind[:, 0]
    array([0, 1])
    >>> dist[:, 0]
    array([0., 0.])
    """

    def __init__(self, *, n_neighbors=5, radius=1.0, family="auto", metric="auto",
                 n_tables=10, n_hashes=8, bucket_width=4.0, max_candidates=None,
                 multi_probe=0, fallback="brute", random_state=None, n_jobs=None,
                 c=2.0):
        super().__init__(n_neighbors=n_neighbors, family=family, metric=metric,
                         n_tables=n_tables, n_hashes=n_hashes, bucket_width=bucket_width,
                         max_candidates=max_candidates, multi_probe=multi_probe,
                         fallback=fallback, random_state=random_state, n_jobs=n_jobs)
        self.radius = radius
        self.c = c

    def cr_near_neighbors(self, X=None, radius=None, c=None):
        """The notes' Strategy 1: report one ``cR``-near point, or none.

        Notes A §5.7 ("LSH Algorithm", Strategy 1) answers the
        ``(c, R)``-near-neighbour problem: examine the points of the query's
        L buckets (at most ``2L + 1`` of them with ``max_candidates="2L+1"``,
        the notes' rule) and report one whose distance is at most ``c R``;
        report nothing if none of the examined points is. When some point
        lies within ``R``, the theorem (k and L as with "auto") makes the
        answer a ``cR``-near point with probability at least ``1/2 - 1/e``.
        Of the ``cR``-near points examined, the nearest is reported.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), default=None
            Queries; None: the training points, each without itself.
        radius : float, default=None
            ``R``; None is the ``radius`` parameter.
        c : float, default=None
            The approximation factor; None is the ``c`` parameter.

        Returns
        -------
        dist : ndarray of shape (n_queries,)
            Distance to the reported point; ``inf`` when none is reported.
        ind : ndarray of shape (n_queries,)
            Index of the reported training point; -1 when none.
        """
        Xq, exclude_self = self._query_data(X)
        R = self.radius if radius is None else float(radius)
        c = self.c if c is None else float(c)
        if not (np.isfinite(R) and R >= 0):
            raise ValueError(f"radius must be a finite number >= 0; got {radius!r}.")
        if not (np.isfinite(c) and c >= 1):
            raise ValueError(f"c must be a finite number >= 1; got {c!r}.")
        indptr, indices, dist = self._radius_csr(Xq, c * R, exclude_self)
        n_q = Xq.shape[0]
        best_dist = np.full(n_q, np.inf)
        best_ind = np.full(n_q, -1, dtype=np.int64)
        for q in range(n_q):
            lo, hi = indptr[q], indptr[q + 1]
            if hi > lo:
                j = lo + int(np.argmin(dist[lo:hi]))
                best_dist[q], best_ind[q] = dist[j], indices[j]
        return best_dist, best_ind


@fill_doc(**_DOC)
class LSHKNeighborsTransformer(ClassNamePrefixFeaturesOutMixin, KNeighborsMixin,
                               TransformerMixin, _LSHIndex):
    """Approximate k-nearest-neighbour graph by locality-sensitive hashing.

    The sparse graph of :meth:`LSHNearestNeighbors.kneighbors_graph` as a
    transformer (notes A §5.7), following scikit-learn's
    ``KNeighborsTransformer``: in "distance" mode each row holds
    ``n_neighbors + 1`` entries, the sample itself (distance 0, stored
    explicitly) and its ``n_neighbors`` approximate neighbours, ready for
    estimators taking ``metric="precomputed"`` sparse graphs (TSNE, Isomap,
    SpectralClustering with ``affinity="precomputed_nearest_neighbors"``,
    DBSCAN).

    Parameters
    ----------
    mode : {"distance", "connectivity"}, default="distance"
        Entries are distances, or ones (then ``n_neighbors`` per row, the
        sample itself included as its own first neighbour).
    n_neighbors : int, default=5
        Neighbours per sample, besides itself in "distance" mode.
    <lsh parameters>

    Attributes
    ----------
    <lsh attributes>

    See Also
    --------
    LSHNearestNeighbors : The index and its queries.

    Notes
    -----
    <lsh notes>

    References
    ----------
    M. Datar, N. Immorlica, P. Indyk and V. Mirrokni, "Locality-sensitive
    hashing scheme based on p-stable distributions", SoCG 2004.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.neighbors import LSHKNeighborsTransformer
    >>> X = np.random.RandomState(0).normal(size=(200, 5))
    >>> graph = LSHKNeighborsTransformer(n_neighbors=4, n_tables=8, n_hashes=3,
    ...                                  random_state=0).fit_transform(X)
    >>> graph.shape, graph.nnz
    ((200, 200), 1000)
    """

    _parameter_constraints = {
        **_LSHIndex._parameter_constraints,
        "mode": [Options({"distance", "connectivity"})],
    }

    def __init__(self, *, mode="distance", n_neighbors=5, family="auto", metric="auto",
                 n_tables=10, n_hashes=8, bucket_width=4.0, max_candidates=None,
                 multi_probe=0, fallback="brute", random_state=None, n_jobs=None):
        super().__init__(n_neighbors=n_neighbors, family=family, metric=metric,
                         n_tables=n_tables, n_hashes=n_hashes, bucket_width=bucket_width,
                         max_candidates=max_candidates, multi_probe=multi_probe,
                         fallback=fallback, random_state=random_state, n_jobs=n_jobs)
        self.mode = mode

    def _fit(self, X):
        super()._fit(X)
        self._n_features_out = self.n_samples_fit_
        return self

    def transform(self, X):
        """The approximate k-NN graph of X against the training points.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query points.

        Returns
        -------
        Xt : scipy.sparse.csr_matrix of shape (n_queries, `n_samples_fit_`)
            ``Xt[i, j]`` is the distance (or 1) of the edge from i to j; only
            neighbours are stored, each row by increasing distance.
        """
        check_is_fitted(self)
        add_one = self.mode == "distance"
        return self.kneighbors_graph(X, mode=self.mode,
                                     n_neighbors=self.n_neighbors + add_one)

    @fill_doc(parameters=_DOC_FIT_PARAMETERS)
    def fit_transform(self, X, y=None):
        """Fit, then transform X (each sample is its own nearest neighbour).

        <parameters>

        Returns
        -------
        Xt : scipy.sparse.csr_matrix of shape (n_samples, n_samples)
            As :meth:`transform`.
        """
        return self.fit(X).transform(X)
