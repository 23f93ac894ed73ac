"""k-means by Lloyd's algorithm (notes A §7.2, notes B §10.3), with k-means++ seeding.

Lloyd alternates the notes' two steps until the assignments stop changing:
assign each sample to its nearest centre, then move each centre to the
(weighted) mean of its samples. Neither step can increase the objective
``J = Σ_i w_i ||x_i − μ_{c(i)}||²``. Both steps run fused, block by block, in
a numba kernel (``_kmeans_kernels.lloyd_block``), one block per thread.
"""

import warnings
from concurrent.futures import ThreadPoolExecutor
from contextlib import nullcontext
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.base import (
    BaseEstimator,
    ClassNamePrefixFeaturesOutMixin,
    ClusterMixin,
    TransformerMixin,
)
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils.validation import (
    check_array,
    check_is_fitted,
    check_random_state,
)

from ..metrics._pairwise_helpers import (
    DEFAULT_WORKING_MEMORY,
    row_norms_sq,
    squared_distances,
    unit_rows,
)
from ..metrics.pairwise import euclidean_distances
from ..utils import Interval, Options, check_sample_weight, validate_params
from ..utils._csr_rows import has_duplicates
from ..utils._magnitude import magnitude_scale, safe_magnitude
from ..utils._parallel import numba_threads
from ._kmeans_kernels import (
    center_in_place,
    center_shift,
    center_into,
    column_means,
    elkan_block,
    hamerly_block,
    hamerly_moves,
    inertia_block,
    lloyd_block,
    lloyd_block_sparse,
    manhattan_to_centers,
    max_row_sq_norm,
    objective_from_sums,
    sparse_column_moments,
    sparse_row_sq_norms,
    sparse_sq_dist_to_rows,
    sq_dist_to_label_sparse,
    weighted_sq_norm,
)
from ..utils.validation import validate_data

__all__ = ["KMeans", "kmeans_plusplus"]

_INITS = ("k-means++", "random")
_METRICS = ("euclidean", "manhattan", "cosine")


def kmeans_plusplus(X, n_clusters, *, sample_weight=None, x_squared_norms=None,
                    random_state=None, n_local_trials=None):
    """Greedy k-means++ seeding (Arthur and Vassilvitskii), as scikit-learn does it.

    The first centre is a sample drawn with probability ``∝ w``. Each next
    centre: draw ``2 + ⌊log k⌋`` candidates with probability
    ``∝ w D(x)²`` (``D`` the distance to the nearest centre so far) and keep
    the candidate that lowers the potential ``Σ w D²`` the most.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        The data.
    n_clusters : int
        Number of centres.
    sample_weight : ndarray of shape (n_samples,), default=None
        Sample weights (unit if None).
    x_squared_norms : ndarray of shape (n_samples,), default=None
        Precomputed squared row norms of X.
    random_state : int, RandomState instance or None, default=None
        Draws the candidates.
    n_local_trials : int, default=None
        Candidates per centre; ``None`` means ``2 + int(log(n_clusters))``.

    Returns
    -------
    centers : ndarray of shape (n_clusters, n_features)
        The seeds.
    indices : ndarray of shape (n_clusters,)
        Their rows in X.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.cluster import kmeans_plusplus
    >>> X = np.array([[0.0, 0.0], [0.1, 0.0], [10.0, 10.0], [10.1, 10.0]])
    >>> centers, indices = kmeans_plusplus(X, 2, random_state=0)
    >>> sorted(int(idx) // 2 for idx in indices)  # one seed in each pair
    [0, 1]
    """
    rng = check_random_state(random_state)
    X = check_array(X, dtype=[np.float64, np.float32], order="C", input_name="X",
                    accept_sparse="csr")
    n_samples = X.shape[0]
    sample_weight = check_sample_weight(sample_weight, X, dtype=X.dtype)
    # Dense float32: the distances are taken from the float64 upcast (the
    # expansion cancels in float32, as in euclidean_distances), made here
    # once rather than by each of the k calls (each upcast all of X: 10
    # upcasts of 100k x 20 were about half of a default float32 fit's
    # seeding). The same float64 products, rounded to float32 as before.
    X64 = X.astype(np.float64) if not sp.issparse(X) and X.dtype == np.float32 else X
    if x_squared_norms is None or x_squared_norms.dtype == np.float32:
        # float32 norms are too coarse for the expansion (as in euclidean_distances).
        if sp.issparse(X):
            # row_norms_sq's sums, without temporaries of nnz elements (issue 20)
            x_squared_norms = sparse_row_sq_norms(X.data, X.indptr)
        else:
            x_squared_norms = row_norms_sq(X64)
    x_squared_norms = np.asarray(x_squared_norms, dtype=np.float64).reshape(1, -1)

    def squared_distances_to(rows):
        if sp.issparse(X):
            Y = X[rows]
            out = np.empty((len(rows), n_samples), dtype=X.dtype)
            sparse_sq_dist_to_rows(
                X.data, X.indices, X.indptr,
                np.ascontiguousarray(Y.toarray().T, dtype=np.float64),
                sparse_row_sq_norms(Y.data, Y.indptr), x_squared_norms[0], out)
            return out
        # The unvalidated core of euclidean_distances: X was checked once
        # above, and validating k * (2 + log k) small calls dominates on small data.
        d2 = squared_distances(X64[rows], X64, None, x_squared_norms, same=False,
                               working_memory=DEFAULT_WORKING_MEMORY)
        return d2.astype(X.dtype, copy=False)
    indices = greedy_kmeans_plusplus(squared_distances_to, n_samples, n_clusters,
                                     sample_weight, rng, n_local_trials)
    return _dense_rows(X, indices), indices


def _dense_rows(X, indices):
    """``X[indices]`` as a dense array (k rows: small even for sparse X)."""
    rows = X[indices]
    return rows.toarray() if sp.issparse(rows) else rows


def greedy_kmeans_plusplus(squared_distances_to, n_samples, n_clusters, sample_weight,
                           rng, n_local_trials=None):
    """Indices of greedy k-means++ seeds, for any squared distance.

    ``squared_distances_to(rows)`` returns the (len(rows), n_samples) squared
    distances from the given samples to all of them: Euclidean for
    :func:`kmeans_plusplus`, in feature space for kernel k-means.
    """
    if n_local_trials is None:
        n_local_trials = 2 + int(np.log(n_clusters))
    indices = np.full(n_clusters, -1, dtype=int)
    indices[0] = rng.choice(n_samples, p=sample_weight / sample_weight.sum())
    closest_dist_sq = squared_distances_to([indices[0]])
    current_pot = closest_dist_sq @ sample_weight
    for c in range(1, n_clusters):
        rand_vals = rng.uniform(size=n_local_trials) * current_pot
        candidate_ids = np.searchsorted(
            np.cumsum(sample_weight * closest_dist_sq), rand_vals
        )
        # Rounding can put the last cumulative sum below the draw.
        np.clip(candidate_ids, None, closest_dist_sq.size - 1, out=candidate_ids)
        dist_to_candidates = squared_distances_to(candidate_ids)
        np.minimum(closest_dist_sq, dist_to_candidates, out=dist_to_candidates)
        candidates_pot = dist_to_candidates @ sample_weight.reshape(-1, 1)
        best = int(np.argmin(candidates_pot))
        current_pot = candidates_pot[best]
        closest_dist_sq = dist_to_candidates[best]
        indices[c] = candidate_ids[best]
    return indices


class _Lloyd:
    """One fit's worth of Lloyd passes over fixed data, split into thread blocks."""

    def __init__(self, X, sample_weight, executor, n_threads, bounds=None,
                 weighted_sq_norm=None):
        self.X = X
        self.sample_weight = sample_weight
        self.executor = executor
        edges = np.linspace(0, X.shape[0], n_threads + 1).astype(int)
        self.blocks = list(zip(edges[:-1], edges[1:]))
        # CSR data: plain Lloyd (the bounds would save distances, but each
        # costs only O(nnz) here); labels and centres are the same.
        self.sparse = sp.issparse(X)
        # bounds: None (full scans), "hamerly" or "elkan".
        self.bounds = None if self.sparse else bounds
        if self.bounds is not None:
            # In the dtype of X (float32 data: float32 bounds, issue 12).
            self.upper = np.empty(X.shape[0], dtype=X.dtype)
            # Hamerly: one lower bound per sample; Elkan: one per centre,
            # allocated at the first bounded pass (k is known then).
            self.lower = (np.empty(X.shape[0], dtype=X.dtype)
                          if self.bounds == "hamerly" else None)
        self._max_row_sq_norm = None
        # Σ w ||x||², from the centring pass of fit, or at the first use.
        self._weighted_sq_norm = weighted_sq_norm
        self.previous_centers = None

    @property
    def weighted_sq_norm(self):
        """``Σ w ||x||²``, computed at the first use if not given (not for predict)."""
        if self._weighted_sq_norm is None:
            # Dense X only (the CSR pass sums its objective directly); in
            # float64 also for float32 X, without a float64 copy.
            self._weighted_sq_norm = weighted_sq_norm(self.X, self.sample_weight)
        return self._weighted_sq_norm

    def restart(self):
        """Forget the bounds (a new run from new centres)."""
        self.previous_centers = None

    def _map(self, func):
        if self.executor is None or len(self.blocks) == 1:
            return [func(b) for b in range(len(self.blocks))]
        return list(self.executor.map(func, range(len(self.blocks))))

    def assign(self, centers, labels, update, exact=False):
        """Assignment step (and the sums of the update step if ``update``).

        Returns ``(objective, sums, weights, n_changed)``; the objective is
        that of the new assignment with the old centres, summed directly
        (``inertia_``) if ``exact``; ``n_changed`` counts the labels that
        changed.
        """
        X, sw = self.X, self.sample_weight
        k, d = centers.shape
        centers = np.ascontiguousarray(centers)
        centers_sq = np.einsum("ij,ij->i", centers, centers)
        nb = len(self.blocks)
        sums = np.zeros((nb, k, d), dtype=X.dtype)
        weights = np.zeros((nb, k), dtype=X.dtype)

        if self.sparse:
            centers_t = np.ascontiguousarray(centers.T)  # see lloyd_block_sparse

        def run(b):
            s, e = self.blocks[b]
            if self.sparse:
                return lloyd_block_sparse(
                    X.data, X.indices, X.indptr, s, e, sw, centers_t, centers_sq,
                    labels, sums[b], weights[b], update,
                )
            return lloyd_block(
                X[s:e], sw[s:e], centers, centers_sq, labels[s:e],
                sums[b], weights[b], update, exact,
            )

        # The relabelling after the last update also goes through the bounds
        # (same labels as the full scan, most samples skipped); a fresh
        # assignment (predict) has no bounds and scans.
        bounded = self.bounds is not None and (
            update or self.previous_centers is not None)
        if bounded:
            run = self._bounded_run(centers, labels, sums, weights)

        results = self._map(run)
        n_changed = sum(r[1] for r in results)
        # Summed in block order: the result does not depend on scheduling.
        sums, weights = (sums[0], weights[0]) if nb == 1 else (sums.sum(axis=0),
                                                               weights.sum(axis=0))
        if exact and (bounded or self.sparse):
            objective = self.inertia(centers, labels)
        elif bounded:
            objective = self._objective_from_sums(centers, sums, weights)
        else:
            objective = float(sum(r[0] for r in results))
            if not self.sparse and not exact:
                # The dense kernel leaves out Σ w ||x||² (the same every pass).
                objective = max(objective + self.weighted_sq_norm, 0.0)
        return objective, sums, weights, n_changed

    def _bounded_run(self, centers, labels, sums, weights):
        k = centers.shape[0]
        X, sw = self.X, self.sample_weight
        if self.bounds == "hamerly":
            first = self.previous_centers is None
            if first:
                labels[:] = -1
                self.previous_centers = np.empty(centers.shape)
            if self._max_row_sq_norm is None:
                self._max_row_sq_norm = max_row_sq_norm(X)
            half_gap, drift, safety = hamerly_moves(
                centers, self.previous_centers, first, self._max_row_sq_norm,
                float(np.finfo(X.dtype).eps))
            centers_sq = np.einsum("ij,ij->i", centers, centers)

            def run(b):
                s, e = self.blocks[b]
                return 0.0, hamerly_block(
                    X[s:e], sw[s:e], centers, centers_sq, half_gap, drift,
                    labels[s:e], self.upper[s:e], self.lower[s:e], sums[b],
                    weights[b], safety,
                )

            return run
        # Elkan: drifts and centre-centre distances in float64 (k x k x d: small).
        c64 = centers.astype(np.float64)
        if self.previous_centers is None:
            labels[:] = -1
            drift = np.zeros(k)
        else:
            drift = np.sqrt(((c64 - self.previous_centers) ** 2).sum(axis=1))
        self.previous_centers = c64
        half_cc = 0.5 * np.sqrt(
            ((c64[:, np.newaxis, :] - c64[np.newaxis]) ** 2).sum(axis=2))
        gaps = half_cc.copy()
        np.fill_diagonal(gaps, np.inf)
        half_gap = gaps.min(axis=1)
        # Elkan's bounds and distances in the dtype of X, as scikit-learn:
        # float32 data read and write half the bytes (n k bounds a pass).
        dt = X.dtype
        if self.lower is None or self.lower.shape[1] != k:
            self.lower = np.empty((X.shape[0], k), dtype=dt)
            self.upper = np.empty(X.shape[0], dtype=dt)
        half_cc, half_gap, drift = (half_cc.astype(dt), half_gap.astype(dt),
                                    drift.astype(dt))

        def run(b):
            s, e = self.blocks[b]
            return 0.0, elkan_block(
                X[s:e], sw[s:e], centers, half_cc, half_gap, drift, labels[s:e],
                self.upper[s:e], self.lower[s:e], sums[b], weights[b],
            )

        return run

    def _objective_from_sums(self, centers, sums, weights):
        """``Σ w ||x − c_label||²`` from the cluster sums of the assignment.

        Hamerly's pass computes no distance for the samples it skips, so
        the objective comes from ``Σ w ||x||² − 2 Σ_j c_j·S_j + Σ_j W_j
        ||c_j||²`` (``S_j``, ``W_j`` the weighted sum and weight of cluster
        ``j``), in O(k d). Its rounding error is about ``eps Σ w ||x||²``,
        the total sum of squares of the centred data; ``inertia_`` is
        always summed directly.
        """
        # One numba call: the float64 casts and the three-operand einsum
        # took 50-85 us a pass (2 ms of a 25-pass elkan fit).
        return objective_from_sums(centers, sums, weights, self.weighted_sq_norm)

    def inertia(self, centers, labels):
        X, sw = self.X, self.sample_weight
        if self.sparse:
            d2 = self.squared_distances_to_labels(centers, labels)
            return float(d2 @ sw.astype(np.float64, copy=False))

        def run(b):
            s, e = self.blocks[b]
            return inertia_block(X[s:e], sw[s:e], centers, labels[s:e])

        return float(sum(self._map(run)))

    def squared_distances_to_labels(self, centers, labels):
        """``||x_i − c_label(i)||²`` of every sample (float64)."""
        X = self.X
        if not self.sparse:
            return ((X - centers[labels]) ** 2).sum(axis=1)
        centers = np.ascontiguousarray(centers, dtype=np.float64)
        out = np.empty(X.shape[0])
        sq_dist_to_label_sparse(X.data, X.indices, X.indptr, 0, X.shape[0], centers,
                                np.einsum("ij,ij->i", centers, centers), labels, out)
        return out


def _relocate_empty_clusters(lloyd, sample_weight, centers_old, sums, weights, labels):
    """Give each empty cluster one of the samples farthest from their centres.

    scikit-learn's rule: the ``n_empty`` samples with the largest distance
    to their own (old) centre each become an empty cluster's only member,
    and leave the sums of their old cluster (their label is not changed
    before the next assignment step). Nothing moves when every sample sits
    on its centre (more clusters than distinct samples).
    """
    empty = np.flatnonzero(weights == 0)
    n_empty = empty.shape[0]
    if n_empty == 0:
        return
    X = lloyd.X
    distances = lloyd.squared_distances_to_labels(centers_old, labels)
    if distances.max() == 0:
        # Fewer distinct samples than clusters, all of them centres already:
        # moving one would only empty another cluster, pass after pass.
        return
    far = np.argpartition(distances, -n_empty)[: -n_empty - 1 : -1]
    for new_id, far_idx in zip(empty, far):
        w = sample_weight[far_idx]
        old_id = labels[far_idx]
        x = _dense_rows(X, [far_idx])[0]
        sums[old_id] -= x * w
        sums[new_id] = x * w
        weights[new_id] = w
        weights[old_id] -= w


def _kmeans_single_lloyd(lloyd, centers_init, max_iter, tol, verbose):
    """One run of Lloyd's algorithm from ``centers_init``.

    Stops when an assignment step changes no label (strict convergence) or
    when ``Σ_j ||μ_j^new − μ_j^old||² <= tol``; in the latter case one more
    assignment step makes the labels match the final centres.
    """
    X = lloyd.X
    centers = centers_init
    lloyd.restart()
    # -1: no label yet, so the first pass counts every label as changed.
    labels = np.full(X.shape[0], -1, dtype=np.int32)
    history = []
    strict = False
    for i in range(max_iter):
        objective, sums, weights, n_changed = lloyd.assign(centers, labels,
                                                           update=True)
        history.append(objective)
        if verbose:
            print(f"Iteration {i}, inertia {objective}.")
        if weights.all():
            # Multiply by the reciprocal, as scikit-learn, for identical centres.
            sums *= (1.0 / weights)[:, np.newaxis]
        else:
            _relocate_empty_clusters(lloyd, lloyd.sample_weight, centers, sums,
                                     weights, labels)
            nonzero = weights > 0
            sums[nonzero] *= (1.0 / weights[nonzero])[:, np.newaxis]
            # A cluster still empty (more clusters than distinct samples, or a
            # relocated sample of zero weight) joins the heaviest cluster's
            # centre, as in scikit-learn, rather than the origin.
            sums[~nonzero] = sums[np.argmax(weights)]
        center_shift_tot = center_shift(sums, centers)
        centers = sums
        if not n_changed:
            if verbose:
                print(f"Converged at iteration {i}: strict convergence.")
            strict = True
            break
        if center_shift_tot <= tol:
            if verbose:
                print(
                    f"Converged at iteration {i}: center shift {center_shift_tot} "
                    f"within tolerance {tol}."
                )
            break
    if strict:
        inertia = lloyd.inertia(centers, labels)
    else:
        # The relabelling sums inertia_ in the same pass.
        inertia = lloyd.assign(centers, labels, update=False, exact=True)[0]
    return labels, inertia, centers, i + 1, np.asarray(history)


def _unit_rows(X):
    """Rows of X scaled to unit Euclidean norm, in float64 (zero rows stay 0)."""
    return unit_rows(np.asarray(X, dtype=np.float64))


def _metric_costs(X, centers, metric):
    """(n, k) cost of each sample at each centre: the metric's distance.

    ``metric="manhattan"``: ``Σ_f |x_f − c_f|``. ``metric="cosine"``:
    ``1 − cos(x, c)`` (X and the centres unit rows already, see
    :func:`_unit_rows`; a zero row costs 1 at every centre).
    """
    if metric == "manhattan":
        out = np.empty((X.shape[0], centers.shape[0]))
        manhattan_to_centers(X, np.ascontiguousarray(centers, dtype=X.dtype), out)
        return out
    return np.clip(1.0 - X @ centers.T, 0.0, 2.0)


def _weighted_median(values, weights):
    """Lower weighted median of each column: the first value whose cumulative
    weight reaches half the total (it minimises ``Σ w |x − m|`` per column)."""
    order = np.argsort(values, axis=0, kind="stable")
    cum = np.cumsum(weights[order], axis=0)
    first = np.count_nonzero(cum < 0.5 * cum[-1], axis=0)
    cols = np.arange(values.shape[1])
    return values[order[first, cols], cols]


def _metric_update(X, sample_weight, labels, centers, metric):
    """The update step under ``metric``: each centre minimises its cluster's cost.

    "manhattan": the coordinate-wise weighted median (k-medians). "cosine":
    the normalised weighted sum of the unit samples (spherical k-means),
    which maximises ``Σ w cos(x, c)`` over unit ``c``. A cluster without
    samples (or whose sum is zero) keeps its centre.
    """
    new = centers.copy()
    for j in range(centers.shape[0]):
        members = labels == j
        if not members.any():
            continue
        if metric == "manhattan":
            new[j] = _weighted_median(X[members], sample_weight[members])
        else:
            total = sample_weight[members] @ X[members]
            norm = np.sqrt(total @ total)
            if norm > 0:
                new[j] = total / norm
    return new


def _kmeans_single_metric(X, sample_weight, centers, metric, max_iter, tol, verbose):
    """One run of Lloyd's two steps under a non-Euclidean ``metric``.

    Both steps minimise the same objective ``Σ w D(x, c_label)``: the
    assignment over the labels, the update (:func:`_metric_update`) over
    the centres, so it never increases. A cluster left empty takes the
    sample of largest cost as its centre (that sample's cost drops to 0
    at the next assignment), as in the Euclidean case.
    """
    n, k = X.shape[0], centers.shape[0]
    rows = np.arange(n)
    labels_old = None
    history = []
    for i in range(max_iter):
        costs = _metric_costs(X, centers, metric)
        labels = np.argmin(costs, axis=1).astype(np.int32)  # ties: lowest index
        own = costs[rows, labels]
        history.append(float(own @ sample_weight))
        if verbose:
            print(f"Iteration {i}, objective {history[-1]}.")
        new = _metric_update(X, sample_weight, labels, centers, metric)
        empty = np.flatnonzero(np.bincount(labels, minlength=k) == 0)
        if empty.size and own.max() > 0:
            far = np.argsort(own, kind="stable")[::-1][: empty.size]
            new[empty[: far.size]] = X[far]
        shift = float(((new - centers) ** 2).sum())
        centers = new
        if labels_old is not None and np.array_equal(labels, labels_old):
            break
        if shift <= tol:
            break
        labels_old = labels
    # Always relabelled: a relocation in the last pass moves a centre even
    # when the labels did not change.
    costs = _metric_costs(X, centers, metric)
    labels = np.argmin(costs, axis=1).astype(np.int32)
    inertia = float(costs[rows, labels] @ sample_weight)
    return labels, inertia, centers, i + 1, np.asarray(history)


def _is_private(X, X_in):
    """True if validation gave X memory of its own: fit may then write to X
    although ``copy_x=True`` (a conversion already copied the caller's data).

    Conservative: input that is neither an ndarray, a list or tuple, nor a
    sparse matrix (a DataFrame, an object with ``__array__``) counts as shared.
    """
    if X is X_in:
        return False
    if sp.issparse(X):
        if not sp.issparse(X_in):
            return False
        if X_in.format != "csr":
            return True  # converted to CSR: new arrays
        return not any(np.may_share_memory(a, getattr(X_in, name))
                       for name, a in (("data", X.data), ("indices", X.indices),
                                       ("indptr", X.indptr)))
    if isinstance(X_in, np.ndarray):
        return not np.may_share_memory(X, X_in)
    return isinstance(X_in, (list, tuple))


def _tolerance(X, tol):
    """``tol`` times the mean feature variance of X (dense or CSR)."""
    if not tol:
        return 0.0
    if not sp.issparse(X):
        return float(np.mean(np.var(X, axis=0)) * tol)
    # Per column: Σ_stored (x − mean)² + (n − nnz) mean², without densifying
    # and without temporaries the size of the data (issue 20).
    var = sparse_column_moments(X.data, X.indices, X.shape[0], X.shape[1])[1]
    return float(np.mean(var) * tol)


def _is_same_clustering(labels1, labels2, n_clusters):
    """True if ``labels2`` is a function of ``labels1`` (a relabelling)."""
    pairs = np.unique(labels1.astype(np.int64) * n_clusters + labels2)
    firsts = pairs // n_clusters
    return firsts.shape[0] == np.unique(firsts).shape[0]


class KMeans(
    ClassNamePrefixFeaturesOutMixin, TransformerMixin, ClusterMixin, BaseEstimator
):
    """k-means clustering by Lloyd's algorithm.

    Minimises the within-cluster sum of squares
    ``J = Σ_i w_i ||x_i − μ_{c(i)}||²`` (``inertia_``) by the two
    alternating steps of the notes (notes A §7.2, notes B §10.3): assign
    every sample to its nearest centre, then move every centre to the
    weighted mean of its samples. Each step can only lower ``J``, so the
    algorithm stops at a local minimum; ``n_init`` restarts keep the best.
    Seeds: greedy k-means++ (scikit-learn's default), random samples (the
    notes' initialisation), an array or a callable.

    Parameters
    ----------
    n_clusters : int, default=8
        Number of clusters ``k``.
    init : {"k-means++", "random"}, callable or array-like of shape \
            (n_clusters, n_features), default="k-means++"
        "k-means++": greedy k-means++ (:func:`kmeans_plusplus`). "random":
        ``k`` distinct samples drawn with probability ``∝ w``. A callable
        ``init(X, n_clusters, random_state=rng)`` returning the centres
        (it receives the centred data). An array: the initial centres.
    n_init : "auto" or int, default="auto"
        Runs from different seeds; the one with the lowest inertia is kept.
        "auto": 1 for "k-means++" and arrays, 10 for "random" and callables.
    max_iter : int, default=300
        Maximum Lloyd iterations per run.
    tol : float, default=1e-4
        Convergence when the squared centre shifts sum to at most
        ``tol × mean feature variance of X`` (relative, as scikit-learn).
    verbose : int, default=0
        Print the objective at each iteration.
    random_state : int, RandomState instance or None, default=None
        Seeds the initialisation.
    copy_x : bool, default=True
        If False, X is centred in place during fit and restored after (up
        to rounding).
    algorithm : {"hamerly", "lloyd", "elkan"}, default="hamerly"
        All three run Lloyd's iterations and give the same labels and
        centres (up to the rounding of distances at a near-tie); they differ
        only in the work they skip. "lloyd" scans every centre for every
        sample at each assignment step. "elkan" (as scikit-learn's, Elkan
        2003) keeps per sample an upper bound on the distance to its centre
        and one lower bound per centre, and uses the centre-centre
        distances: a centre is only looked at when the bounds allow it to
        be nearer; ``k`` bounds per sample of memory. "hamerly" (Hamerly
        2010; not in scikit-learn, whose default is "lloyd") keeps one
        lower bound, on the distance to the second-nearest centre, and
        scans all the centres only for samples whose two bounds no longer
        prove the label: two floats per sample (in the dtype of X, rounded
        the safe way, with a margin for the rounding of the scan, so its
        labels are "lloyd"'s bit for bit), and the fastest of the three at
        low dimension (issue 12, 100k x 20, k = 10, one thread: the default
        fit 0.7x scikit-learn's time on float32 and float64 data, "lloyd"
        0.9x). Both bounded variants save most of the work once few samples
        change cluster; CSR input always runs "lloyd".
        Used with ``metric="euclidean"`` only.
    metric : {"euclidean", "manhattan", "cosine"}, default="euclidean"
        The distance ``D`` of the assignment step (notes B §10.3: "k-means
        depends on the distance metric"; the distances of notes B §10.1).
        Each choice comes with the update step that minimises the same
        objective ``Σ w D(x, μ_label)``, so the two steps still never
        increase it. "euclidean": ``D = ||x − μ||²`` and the mean (k-means,
        the notes' algorithm; unchanged behaviour). "manhattan":
        ``D = Σ_f |x_f − μ_f|`` (L1, the notes' Minkowski p = 1) and the
        coordinate-wise weighted median (k-medians). "cosine":
        ``D = 1 − cos(x, μ)`` (the notes' cosine similarity S_c) and the
        normalised weighted sum of the unit samples (spherical k-means;
        the centres are unit vectors). With another metric ``inertia_``,
        ``transform`` and ``score`` use ``D`` (``transform`` returns the L1
        or cosine distances), "k-means++" draws seeds with probability
        ``∝ w D``, ``algorithm`` is not used, X is not centred (and, with
        ``copy_x=False``, not modified), and X must be dense.

    Attributes
    ----------
    cluster_centers_ : ndarray of shape (n_clusters, n_features)
        Centres of the best run.
    labels_ : ndarray of shape (n_samples,)
        Cluster of each training sample.
    inertia_ : float
        ``Σ w ||x − μ_label||²`` on the training data (``Σ w D(x, μ_label)``
        with another ``metric``) (inf, or 0, when it is
        beyond float64 for data of order 1e300 or 1e-300; the fit itself
        runs on rescaled data and is unaffected).
    n_iter_ : int
        Lloyd iterations of the best run.
    inertia_history_ : ndarray of shape (`n_iter_`,)
        The objective after each assignment step of the best run (the new
        labels with the centres they were assigned to); non-increasing up
        to rounding, and ``inertia_`` is at most its last entry. With
        "hamerly" and "elkan" it is computed from the cluster sums (rounding about eps
        times the total sum of squares), since skipped samples have no
        distance.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, if they are all strings.

    See Also
    --------
    kmeans_plusplus : The seeding alone.
    sklearn.cluster.KMeans : The scikit-learn counterpart.

    Notes
    -----
    One Lloyd iteration costs O(n k d) time (the notes' O(K m n)) and O(k d)
    memory per thread: the assignment and the sums of the update step are
    fused in one pass over the data (``_kmeans_kernels.lloyd_block``), the
    samples split in one contiguous block per thread. Distances use
    ``||c||² − 2 x·c`` on the centred data (X minus its mean, for accuracy);
    up to 128 features (64 for float64 data) the products are taken
    GEMM-style on transposed tiles of samples, in the dtype of X (float32
    data stay float32).
    Passes of more than 2·10⁷ multiply-adds (n k d) split the samples over
    ``NUMBA_NUM_THREADS`` threads (numba's setting); smaller ones run on one
    thread, where handing out blocks would cost more than it saves.

    An empty cluster (the notes leave the case open) takes the sample
    farthest from its centre, as in scikit-learn. Ties go to the lowest
    centre index. The notes' objective is the mean ``J / m`` (notes B
    §10.3); ``inertia_`` is the sum. With the same initial centres and
    ``n_init=1`` the labels, centres and inertia equal scikit-learn's (up to
    rounding of the centres).

    References
    ----------
    S. Lloyd, "Least squares quantization in PCM", IEEE Trans. Information
    Theory 28(2), 1982.
    D. Arthur and S. Vassilvitskii, "k-means++: the advantages of careful
    seeding", SODA 2007.
    C. Elkan, "Using the triangle inequality to accelerate k-means", ICML 2003.
    G. Hamerly, "Making k-means even faster", SDM 2010.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.cluster import KMeans
    >>> X = np.array([[1, 2], [1, 4], [1, 0], [10, 2], [10, 4], [10, 0]])
    >>> km = KMeans(n_clusters=2, init=np.array([[0.0, 0.0], [9.0, 0.0]])).fit(X)
    >>> km.labels_
    array([0, 0, 0, 1, 1, 1], dtype=int32)
    >>> km.cluster_centers_
    array([[ 1.,  2.],
           [10.,  2.]])
    >>> km.predict([[0, 0], [12, 3]])
    array([0, 1], dtype=int32)
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left")],
        "init": [Options(set(_INITS)), callable, "array-like"],
        "n_init": [Options({"auto"}), Interval(Integral, 1, None, closed="left")],
        "max_iter": [Interval(Integral, 1, None, closed="left")],
        "tol": [Interval(Real, 0, None, closed="left")],
        "verbose": ["verbose"],
        "random_state": ["random_state"],
        "copy_x": ["boolean"],
        "algorithm": [Options({"lloyd", "elkan", "hamerly"})],
        "metric": [Options(set(_METRICS))],
    }

    def __init__(
        self,
        n_clusters=8,
        *,
        init="k-means++",
        n_init="auto",
        max_iter=300,
        tol=1e-4,
        verbose=0,
        random_state=None,
        copy_x=True,
        algorithm="hamerly",
        metric="euclidean",
    ):
        self.n_clusters = n_clusters
        self.init = init
        self.n_init = n_init
        self.max_iter = max_iter
        self.tol = tol
        self.verbose = verbose
        self.random_state = random_state
        self.copy_x = copy_x
        self.algorithm = algorithm
        self.metric = metric

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True  # CSR/CSC: Lloyd on the stored entries
        return tags

    def fit(self, X, y=None, sample_weight=None):
        """Cluster X.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Weight of each sample in the means and the objective (an integer
            weight acts as that many copies of the sample).

        Returns
        -------
        self : KMeans
            Fitted estimator.
        """
        validate_params(self)
        init = self.init
        if isinstance(init, str) and init not in _INITS:
            raise ValueError(
                f"The 'init' parameter of KMeans must be one of {_INITS}, a "
                f"callable or an array; got {init!r}."
            )
        # No copy here: fit copies X only where it writes to it (issue 12:
        # the dense copy is made by the centring pass; issue 20: CSR data are
        # copied only for duplicates or a rescaling). Dense Euclidean X is
        # checked for NaN and infinity through its column means, taken in
        # the first of the centring pass's two reads of X.
        X_in = X
        fused_check = self.metric == "euclidean" and not sp.issparse(X)
        X = validate_data(
            self, X, dtype=[np.float64, np.float32], order="C", copy=False,
            accept_sparse="csr", ensure_all_finite=not fused_check,
        )
        sparse = sp.issparse(X)
        if fused_check:
            X_mean = column_means(X)
            if not np.isfinite(X_mean).all():
                # The usual message (raises unless a finite sum overflowed).
                validate_data(self, X, reset=False, dtype=None)
        private = _is_private(X, X_in)
        if sparse and self.metric != "euclidean":
            raise ValueError(
                f"KMeans(metric={self.metric!r}) needs dense X; sparse input is "
                "supported with metric='euclidean' only."
            )
        # Duplicate entries would make a row's squared norm wrong: they are
        # summed (a copy unless copy_x=False). Merely unsorted indices (as
        # after a sparse product) change nothing and cost no copy.
        if sparse and not X.has_canonical_format and has_duplicates(X):
            if self.copy_x and not private:
                X, private = X.copy(), True
            # in place, as copy_x=False allows (sums the duplicates only)
            X.sum_duplicates()
        n_samples = X.shape[0]
        if n_samples < self.n_clusters:
            raise ValueError(
                f"n_samples={n_samples} should be >= n_clusters={self.n_clusters}."
            )
        sample_weight = check_sample_weight(sample_weight, X, dtype=X.dtype)
        rng = check_random_state(self.random_state)

        init_is_array = not isinstance(init, str) and not callable(init)
        if self.n_init == "auto":
            n_init = 1 if init_is_array or init == "k-means++" else 10
        else:
            n_init = self.n_init
        if init_is_array:
            init = check_array(
                init, dtype=X.dtype, copy=True, order="C", input_name="init"
            )
            self._check_center_shape(X, init)
            if n_init != 1:
                warnings.warn(
                    "Explicit initial center position passed: performing only one "
                    f"init in KMeans instead of n_init={n_init}.",
                    RuntimeWarning,
                )
                n_init = 1
        if self.metric != "euclidean":
            return self._fit_metric(X, sample_weight, init, n_init, rng)

        # Centring makes ||c||² - 2 x.c far more accurate for data far from 0.
        # Sparse data stay uncentred (centring would densify them), as in
        # scikit-learn.
        w_sq_norm = None
        if sparse:
            X_mean = np.zeros(X.shape[1], dtype=X.dtype)
            magnitude = None
            with np.errstate(over="ignore", under="ignore"):  # recomputed if so
                tol = _tolerance(X, self.tol)
        else:
            if self.copy_x and not private:
                # The copy and the centring in one pass.
                Xc = np.empty_like(X)
                magnitude, w_sq_norm, col_sum, col_sq = center_into(
                    X, Xc, X_mean, sample_weight)
                X, private = Xc, True
            else:
                magnitude, w_sq_norm, col_sum, col_sq = center_in_place(
                    X, X_mean, sample_weight)
            # The mean feature variance, from the centred data in float64.
            with np.errstate(over="ignore", invalid="ignore"):  # recomputed if so
                var = col_sq / n_samples - (col_sum / n_samples) ** 2
                tol = float(np.mean(var) * self.tol) if self.tol else 0.0
        if init_is_array:
            init -= X_mean
        # Squared distances overflow at X * 1e300 and underflow at X * 1e-300:
        # the clustering is scale-invariant, so it runs on X / s (s = 2^e,
        # exact) and the centres and objective are mapped back. s = 1 (and
        # nothing changes) on data of ordinary magnitude.
        s = magnitude_scale(X, magnitude=magnitude, safe=safe_magnitude(X.dtype))
        if s != 1.0:
            if sparse and self.copy_x and not private:
                X, private = X.copy(), True
            # ldexp: 1 / s itself may overflow float32 (s = 2^-140).
            exponent = -int(np.frexp(s)[1] - 1)
            values = X.data if sparse else X
            np.ldexp(values, exponent, out=values)
            if init_is_array:
                np.ldexp(init, exponent, out=init)
            tol = _tolerance(X, self.tol)
            w_sq_norm = None  # of the rescaled data: computed when needed
        # Only k-means++ uses the norms, and recomputes float32 ones in float64.
        x_squared_norms = None
        if isinstance(init, str) and init == "k-means++" and X.dtype == np.float64:
            x_squared_norms = (sparse_row_sq_norms(X.data, X.indptr) if sparse
                               else np.einsum("ij,ij->i", X, X))

        # A Lloyd pass costs n k d multiply-adds; skml's one thread policy decides.
        n_threads = numba_threads(n_samples * self.n_clusters * X.shape[1], n_samples)
        pool = ThreadPoolExecutor(n_threads) if n_threads > 1 else nullcontext()
        best = None
        with pool as executor:
            bounds = None if self.algorithm == "lloyd" else self.algorithm
            if self.n_clusters == 1 and bounds is not None:
                # One centre: every sample's closest, nothing for bounds to
                # skip. scikit-learn warns when elkan was asked for.
                if bounds == "elkan":
                    warnings.warn(
                        "algorithm='elkan' doesn't make sense for a single "
                        "cluster. Using 'lloyd' instead.", RuntimeWarning,
                    )
                bounds = None
            lloyd = _Lloyd(X, sample_weight, executor, n_threads, bounds=bounds,
                           weighted_sq_norm=w_sq_norm)
            for _ in range(n_init):
                centers = self._init_centroids(
                    X, init, x_squared_norms, sample_weight, rng
                )
                if self.verbose:
                    print("Initialization complete")
                run = _kmeans_single_lloyd(
                    lloyd, centers, self.max_iter, tol, self.verbose
                )
                labels, inertia = run[0], run[1]
                if best is None or (
                    inertia < best[1]
                    and not _is_same_clustering(labels, best[0], self.n_clusters)
                ):
                    best = run
        labels, inertia, centers, n_iter, history = best
        if s != 1.0:
            # The objective in the units of X: 1e600 is not a float64, so at
            # X * 1e300 inertia_ is inf (the labels and centres are right).
            with np.errstate(over="ignore", under="ignore"):
                inertia = inertia * s * s
                history = history * s * s
            centers *= s
            if not self.copy_x:
                values = X.data if sparse else X
                values *= s
        if not self.copy_x and not sparse:
            X += X_mean
        centers += X_mean

        self._set_fitted(labels, inertia, centers, n_iter, history)
        return self

    def _fit_metric(self, X, sample_weight, init, n_init, rng):
        """``fit`` under a non-Euclidean metric (k-medians, spherical k-means)."""
        metric = self.metric
        # Cosine: the samples as unit rows once (the metric ignores norms);
        # neither metric needs the centring or rescaling of the Euclidean fit.
        Xm = _unit_rows(X) if metric == "cosine" else X
        sw = sample_weight.astype(np.float64)
        tol = _tolerance(Xm, self.tol)

        def costs_to(rows):
            return _metric_costs(Xm, Xm[rows], metric).T

        best = None
        for _ in range(n_init):
            if isinstance(init, str) and init == "k-means++":
                # Seeds drawn with probability ∝ w D(x) (D the metric's cost),
                # the k-means++ rule for the objective Σ w D.
                seeds = greedy_kmeans_plusplus(costs_to, X.shape[0], self.n_clusters,
                                               sw, rng)
                centers = Xm[seeds].copy()
            else:
                centers = self._init_centroids(X, init, None, sample_weight, rng)
                if metric == "cosine":
                    centers = _unit_rows(centers)
            if self.verbose:
                print("Initialization complete")
            run = _kmeans_single_metric(Xm, sw, centers, metric, self.max_iter, tol,
                                        self.verbose)
            if best is None or run[1] < best[1]:
                best = run
        labels, inertia, centers, n_iter, history = best
        self._set_fitted(labels, inertia, centers.astype(X.dtype), n_iter, history)
        return self

    def _set_fitted(self, labels, inertia, centers, n_iter, history):
        distinct = np.count_nonzero(np.bincount(labels, minlength=self.n_clusters))
        if distinct < self.n_clusters:
            warnings.warn(
                f"Number of distinct clusters ({distinct}) found smaller than "
                f"n_clusters ({self.n_clusters}). Possibly due to duplicate points "
                "in X.",
                ConvergenceWarning,
            )
        self.cluster_centers_ = centers
        self.labels_ = labels
        self.inertia_ = inertia
        self.n_iter_ = n_iter
        self.inertia_history_ = history

    def _check_center_shape(self, X, centers):
        # scikit-learn's two messages, which name the mismatched dimension.
        if centers.shape[0] != self.n_clusters:
            raise ValueError(
                f"The shape of the initial centers {centers.shape} does not match "
                f"the number of clusters {self.n_clusters}."
            )
        if centers.shape[1] != X.shape[1]:
            raise ValueError(
                f"The shape of the initial centers {centers.shape} does not match "
                f"the number of features of the data {X.shape[1]}."
            )

    def _init_centroids(self, X, init, x_squared_norms, sample_weight, rng):
        if isinstance(init, str) and init == "k-means++":
            centers, _ = kmeans_plusplus(
                X, self.n_clusters, sample_weight=sample_weight,
                x_squared_norms=x_squared_norms, random_state=rng,
            )
        elif isinstance(init, str):  # "random": the notes' k random samples
            seeds = rng.choice(
                X.shape[0], size=self.n_clusters, replace=False,
                p=sample_weight / sample_weight.sum(),
            )
            centers = _dense_rows(X, seeds)
        elif callable(init):
            centers = init(X, self.n_clusters, random_state=rng)
            if sp.issparse(centers):
                centers = centers.toarray()  # k x d: small
            centers = check_array(centers, dtype=X.dtype, order="C", input_name="init")
            self._check_center_shape(X, centers)
        else:
            centers = init
        return np.array(centers, dtype=X.dtype, order="C", copy=True)

    @property
    def _n_features_out(self):
        return self.cluster_centers_.shape[0]

    def _check_test_data(self, X):
        X = validate_data(
            self, X, reset=False, dtype=[np.float64, np.float32], order="C",
            accept_sparse="csr",
        )
        if sp.issparse(X) and not X.has_canonical_format and has_duplicates(X):
            X = X.copy()  # summed duplicates (a row's squared norm); unsorted is fine
            X.sum_duplicates()
        return X

    def _labels_objective(self, X, sample_weight):
        if self.metric != "euclidean":
            costs = self._metric_transform(X)
            labels = np.argmin(costs, axis=1).astype(np.int32)
            own = costs[np.arange(X.shape[0]), labels]
            return labels, float(own @ sample_weight.astype(np.float64))
        labels = np.empty(X.shape[0], dtype=np.int32)
        centers = self.cluster_centers_.astype(X.dtype, copy=False)
        # As in fit: exact, and 1 on data of ordinary magnitude.
        s = magnitude_scale(X, centers, safe=safe_magnitude(X.dtype))
        if s != 1.0:
            X, centers = X / s, centers / s
        n_threads = numba_threads(X.shape[0] * self.n_clusters * X.shape[1], X.shape[0])
        with (ThreadPoolExecutor(n_threads) if n_threads > 1 else nullcontext()) as ex:
            lloyd = _Lloyd(X, sample_weight, ex, n_threads)
            inertia = lloyd.assign(centers, labels, update=False, exact=True)[0]
        if s != 1.0:
            with np.errstate(over="ignore", under="ignore"):
                inertia = inertia * s * s
        return labels, inertia

    def predict(self, X):
        """Index of the nearest centre of each sample.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            Cluster of each sample.
        """
        check_is_fitted(self)
        X = self._check_test_data(X)
        return self._labels_objective(X, np.ones(X.shape[0], dtype=X.dtype))[0]

    def fit_predict(self, X, y=None, sample_weight=None):
        """Fit and return the training labels.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        labels : ndarray of shape (n_samples,)
            ``labels_``.
        """
        return self.fit(X, sample_weight=sample_weight).labels_

    def transform(self, X):
        """Distances from every sample to every centre.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_clusters)
            Euclidean distances to ``cluster_centers_``.
        """
        check_is_fitted(self)
        X = self._check_test_data(X)
        if self.metric != "euclidean":
            return self._metric_transform(X)
        return euclidean_distances(X, self.cluster_centers_)

    def _metric_transform(self, X):
        """Distances under ``metric`` from X to the centres (float64)."""
        if sp.issparse(X):
            raise ValueError(
                f"KMeans(metric={self.metric!r}) needs dense X; sparse input is "
                "supported with metric='euclidean' only."
            )
        centers = self.cluster_centers_
        if self.metric == "cosine":
            return _metric_costs(_unit_rows(X), _unit_rows(centers), "cosine")
        return _metric_costs(X, centers.astype(X.dtype), "manhattan")

    def fit_transform(self, X, y=None, sample_weight=None):
        """Fit, then return the distances of the training samples to the centres.

        Parameters
        ----------
        X : {array-like, sparse matrix} of shape (n_samples, n_features)
            Training data.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        X_new : ndarray of shape (n_samples, n_clusters)
            Euclidean distances to ``cluster_centers_``.
        """
        return self.fit(X, sample_weight=sample_weight).transform(X)

    def score(self, X, y=None, sample_weight=None):
        """Opposite of the k-means objective on X.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Data.
        y : None
            Ignored.
        sample_weight : array-like of shape (n_samples,), default=None
            Sample weights.

        Returns
        -------
        score : float
            ``−Σ w min_j ||x − μ_j||²``.
        """
        check_is_fitted(self)
        X = self._check_test_data(X)
        sample_weight = check_sample_weight(sample_weight, X, dtype=X.dtype)
        return -self._labels_objective(X, sample_weight)[1]
