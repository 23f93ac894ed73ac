"""Agglomerative (linkage-based) clustering (notes A §7.1).

Start from singletons and repeatedly merge the two closest clusters; the
linkage says what "closest" means between clusters:

* ``single``: the closest pair of members, ``min d(a, b)``;
* ``complete``: the farthest pair, ``max d(a, b)``;
* ``average``: the mean over all pairs (UPGMA);
* ``ward``: the increase of the within-cluster sum of squares, reported as
  ``sqrt(2 |A| |B| / (|A| + |B|)) ||mean(A) - mean(B)||``.

All four are reducible (merging ``A`` and ``B`` never brings the result
closer to a third cluster than ``A`` or ``B`` was), so the hierarchy can be
built by a nearest-neighbour chain with the Lance-Williams update in
``O(n^2)`` time over the ``n(n-1)/2`` pairwise distances; single linkage is
the minimum spanning tree (Prim, distances computed on the fly, ``O(n)``
memory).
"""

from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClusterMixin
from sklearn.utils.validation import check_memory

from ..utils import Interval, Options, validate_params
from ..utils._docstrings import (
    CLUSTER_LABELS_RETURNS,
    FITTED_FEATURE_ATTRIBUTES,
    SELF_RETURNS,
    Y_IGNORED,
    fill_doc,
)
from ..utils._magnitude import magnitude_scale
from ..utils._parallel import resolve_n_jobs, run_in_threads
from ..utils.validation import validate_data
from . import _agglomerative_kernels as _k
from ._structured_linkage import connectivity_graph, structured_linkage_tree

__all__ = ["AgglomerativeClustering"]

_LINKAGES = {"ward": _k.WARD, "complete": _k.COMPLETE, "average": _k.AVERAGE,
             "single": _k.SINGLE}
_METRICS = {"euclidean": _k.EUCLIDEAN, "l2": _k.EUCLIDEAN,
            "manhattan": _k.MANHATTAN, "l1": _k.MANHATTAN, "cosine": _k.COSINE}


def _condensed_distances(X, metric, n_jobs):
    """The ``n(n-1)/2`` distances of the rows of ``X``, pdist's layout."""
    n = X.shape[0]
    norms = np.sqrt(np.einsum("ij,ij->i", X, X)) if metric == _k.COSINE else (
        np.empty(0))
    out = np.empty(n * (n - 1) // 2)
    n_threads = resolve_n_jobs(n_jobs)
    # Row i holds n - i - 1 pairs: cut the rows into blocks of equal pair
    # counts so the threads finish together.
    pairs_before = np.concatenate([[0], np.cumsum(np.arange(n - 1, 0, -1))])
    n_blocks = 1 if n_threads == 1 else 4 * n_threads
    edges = np.searchsorted(pairs_before, np.linspace(0, out.size, n_blocks + 1))
    edges[0], edges[-1] = 0, n
    blocks = [(a, b) for a, b in zip(edges[:-1], edges[1:]) if b > a]
    run_in_threads(
        lambda block: _k.condensed_distances_rows(X, metric, norms, *block, out),
        blocks, n_threads)
    return out


def _linkage_tree(X, linkage, metric, n_jobs):
    """Merges in height order: ``children`` (n-1, 2) and ``heights`` (n-1,).

    ``X`` is the data, or the condensed distances when ``metric`` is None.
    """
    code = _LINKAGES[linkage]
    if metric is None:
        D = X
        n = int(round((1 + np.sqrt(1 + 8 * D.size)) / 2))
    else:
        n = X.shape[0]
    if code == _k.SINGLE:
        if metric is None:
            a, b, h = _k.prim_condensed(D, n)
        else:
            # min and the minimum spanning tree only compare distances:
            # squared euclidean ones give the same tree without the roots.
            kernel_metric = _k.SQEUCLIDEAN if metric == _k.EUCLIDEAN else metric
            norms = np.sqrt(np.einsum("ij,ij->i", X, X)) if metric == _k.COSINE \
                else np.empty(0)
            a, b, h = _k.prim_points(X, kernel_metric, norms)
            if metric == _k.EUCLIDEAN:
                h = np.sqrt(h)
    else:
        squared = metric == _k.EUCLIDEAN and code in (_k.WARD, _k.COMPLETE)
        if metric is not None:
            D = _condensed_distances(X, _k.SQEUCLIDEAN if squared else metric,
                                     n_jobs)
        a, b, h = _k.nn_chain(D, n, code)[:3]
        if squared:
            h = np.sqrt(np.maximum(h, 0.0))
    order = np.argsort(h, kind="stable")
    children, _ = _k.label_merges(a[order], b[order], n)
    return children, h[order]


@fill_doc(**{"fitted feature attributes": FITTED_FEATURE_ATTRIBUTES})
class AgglomerativeClustering(ClusterMixin, BaseEstimator):
    """Agglomerative clustering: merge the two closest clusters until k remain.

    The notes' linkage-based clustering (notes A §7.1), which they only name,
    with the four linkages of scikit-learn's :class:`sklearn.cluster.AgglomerativeClustering`.
    Ward, complete and average linkage run the nearest-neighbour chain over
    the condensed pairwise distances (``O(n^2)`` time and
    ``n(n-1)/2`` floats); single linkage runs Prim's minimum spanning tree with
    distances computed on the fly (``O(n^2 d)`` time, ``O(n)`` memory).

    Parameters
    ----------
    n_clusters : int or None, default=2
        Number of clusters to find; None when ``distance_threshold`` is set.
    metric : {"euclidean", "l2", "manhattan", "l1", "cosine", "precomputed"} \
            or callable, default="euclidean"
        Distance between samples. ``"precomputed"``: ``X`` is a square
        distance matrix (its upper triangle is read). A callable maps ``X``
        to such a matrix. Ward linkage takes ``"euclidean"`` (``"l2"``) only.
    memory : str or object with a ``cache`` method, default=None
        Caches the tree (joblib's :class:`joblib.Memory` or a directory).
    connectivity : array-like, sparse matrix, callable or None, default=None
        Structured clustering: an (n_samples, n_samples) graph whose stored
        (nonzero) entries are the pairs allowed to merge, e.g.
        ``kneighbors_graph(X, 10)``, or a callable of ``X`` returning one. Two
        clusters merge only if an edge joins them. The graph is made symmetric
        and, if disconnected, completed with one edge between the closest
        points of each pair of components (with a warning). None: any two
        clusters may merge.
    compute_full_tree : "auto" or bool, default="auto"
        With ``connectivity``, ``False`` stops building the tree after
        ``n_samples - n_clusters`` merges (faster for many clusters);
        ``"auto"`` stops early when ``n_clusters >= max(100, 0.02 *
        n_samples)``, as scikit-learn does. The tree of unstructured
        clustering is always built in full, as scikit-learn's is. ``False``
        with ``distance_threshold`` raises, as in scikit-learn.
    linkage : {"ward", "complete", "average", "single"}, default="ward"
        Which distance between clusters to use (see Notes).
    distance_threshold : float or None, default=None
        Merges at heights at or above this value are not performed; the
        number of clusters follows. Needs ``n_clusters=None``.
    compute_distances : bool, default=False
        Keep ``distances_`` even without ``distance_threshold``.
    n_jobs : int or None, default=None
        Threads computing the pairwise distances (joblib's meaning). Not a
        parameter of scikit-learn's class.

    Attributes
    ----------
    n_clusters_ : int
        Number of clusters found.
    labels_ : ndarray of shape (n_samples,)
        Cluster of each sample, numbered in the order of their first sample.
    n_leaves_ : int
        Number of leaves of the tree (``n_samples``).
    n_connected_components_ : int
        Connected components of the connectivity graph before its completion
        (1 without a graph).
    children_ : ndarray of shape (n_merges, 2)
        Merge ``i`` joins nodes ``children_[i]`` (smaller id first) into node
        ``n_samples + i``; nodes below ``n_samples`` are samples. Without a
        graph, merges are in increasing height, as in
        :func:`scipy.cluster.hierarchy.linkage`; with one, in the order they
        were made (heights may then decrease: a merge can bring a cluster
        closer to one it could not reach before). ``n_merges`` is
        ``n_samples - 1``, or ``n_samples - n_clusters`` for a tree stopped
        early.
    distances_ : ndarray of shape (n_merges,)
        Height of each merge; set with ``distance_threshold`` or
        ``compute_distances=True``.
    <fitted feature attributes>

    See Also
    --------
    skml.cluster.KMeans : Centroid-based clustering.
    skml.cluster.SpectralClustering : Clustering by graph cuts.

    Notes
    -----
    The notes (A §7.1) name linkage-based clustering without a linkage rule;
    the four here are the standard ones, with the Lance-Williams updates
    ``d(k, A∪B) = max(d(k, A), d(k, B))`` (complete),
    ``(|A| d(k, A) + |B| d(k, B)) / (|A| + |B|)`` (average) and, for ward on
    squared distances,
    ``((|k|+|A|) d(k, A) + (|k|+|B|) d(k, B) - |k| d(A, B)) / (|k|+|A|+|B|)``.

    The merges (``children_``, ``distances_``) equal scipy's and
    scikit-learn's up to the order of merges at tied heights; ``labels_``
    describe the same partition but may number the clusters differently.
    Data of extreme magnitude are rescaled by a power of two (exact) before
    the distances are taken.

    With a connectivity graph the candidate merges are the graph's edges,
    kept in a heap with lazy deletion. The linkage to a merged cluster
    follows scikit-learn's structured rule: complete and average linkage
    combine the two parts' linkages to a neighbour only where both parts
    touch it (maximum, or size-weighted mean), else keep the one that does;
    ward recomputes the exact cost from the cluster means; single linkage
    is the minimum spanning tree of the graph (Kruskal). The merges equal
    scikit-learn's up to ties.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.cluster import AgglomerativeClustering
    >>> X = np.array([[1, 2], [1, 4], [1, 0], [4, 2], [4, 4], [4, 0]])
    >>> AgglomerativeClustering(n_clusters=2).fit(X).labels_
    array([0, 0, 0, 1, 1, 1])
    """

    _parameter_constraints = {
        "n_clusters": [Interval(Integral, 1, None, closed="left"), None],
        "metric": [Options(set(_METRICS) | {"precomputed"}), callable],
        "memory": [str, "memory", None],
        "compute_full_tree": [Options({"auto"}), "boolean"],
        "linkage": [Options(set(_LINKAGES))],
        "distance_threshold": [Interval(Real, 0, None, closed="left"), None],
        "compute_distances": ["boolean"],
        "n_jobs": [Integral, None],
        "connectivity": ["array-like", callable, None],  # sparse has a shape
    }

    def __init__(
        self,
        n_clusters=2,
        *,
        metric="euclidean",
        memory=None,
        connectivity=None,
        compute_full_tree="auto",
        linkage="ward",
        distance_threshold=None,
        compute_distances=False,
        n_jobs=None,
    ):
        self.n_clusters = n_clusters
        self.metric = metric
        self.memory = memory
        self.connectivity = connectivity
        self.compute_full_tree = compute_full_tree
        self.linkage = linkage
        self.distance_threshold = distance_threshold
        self.compute_distances = compute_distances
        self.n_jobs = n_jobs

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.pairwise = self.metric == "precomputed"
        return tags

    def _check_params(self):
        constraints = dict(self._parameter_constraints)
        # "memory" is not one of the named forms: checked by hand below,
        # as connectivity is in fit.
        constraints.pop("memory")
        validate_params(self, constraints=constraints)
        if not (self.memory is None or isinstance(self.memory, str)
                or hasattr(self.memory, "cache")):
            raise ValueError(
                "The 'memory' parameter of AgglomerativeClustering must be None, "
                f"a str or an object with a 'cache' method. Got {self.memory!r}.")
        if (self.n_clusters is None) == (self.distance_threshold is None):
            raise ValueError(
                "Exactly one of n_clusters and distance_threshold must be set; "
                "the other must be None.")
        if self.distance_threshold is not None and self.compute_full_tree is False:
            raise ValueError(
                "compute_full_tree must be True if distance_threshold is set.")
        if self.linkage == "ward" and self.metric not in ("euclidean", "l2"):
            raise ValueError(
                f"metric={self.metric!r} was given with linkage='ward': ward "
                "linkage works with euclidean distances only ('euclidean', 'l2').")

    def _n_clusters_to_stop(self, n):
        """Clusters left when the structured tree stops (1: the full tree)."""
        full = self.compute_full_tree
        if full == "auto":
            full = (self.distance_threshold is not None
                    or self.n_clusters < max(100, 0.02 * n))
        return 1 if full else self.n_clusters

    def _distances_input(self, X):
        """What the tree builder takes: (data or condensed distances, metric code)."""
        n = X.shape[0]
        if self.metric == "precomputed" or callable(self.metric):
            if callable(self.metric):
                X = np.asarray(self.metric(X), dtype=np.float64)
            if X.ndim != 2 or X.shape[0] != X.shape[1] or X.shape[0] != n:
                raise ValueError(
                    "The distance matrix must be square, of shape (n_samples, "
                    f"n_samples); got {X.shape}.")
            condensed = X[np.triu_indices(n, k=1)]
            if not np.isfinite(condensed).all():
                raise ValueError("The distance matrix contains NaN or infinity.")
            return condensed, None
        metric = _METRICS[self.metric]
        if metric == _k.COSINE and not np.any(X, axis=1).all():
            raise ValueError(
                "Cosine distance is undefined for zero rows: X contains an "
                "all-zero sample.")
        return X, metric

    @fill_doc(y=Y_IGNORED, returns=SELF_RETURNS)
    def fit(self, X, y=None):
        """Build the hierarchy of X and cut it.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            Samples, or distances between them with ``metric="precomputed"``.
        <y>

        <returns>
        """
        self._check_params()
        X = validate_data(self, X, dtype=np.float64, ensure_min_samples=2)
        n = X.shape[0]
        if self.n_clusters is not None and self.n_clusters > n:
            raise ValueError(
                f"n_clusters={self.n_clusters} must be <= n_samples={n}.")
        data, metric = self._distances_input(X)
        # Every linkage here is scale-equivariant (cosine: invariant), so a
        # power-of-two rescaling keeps squares and sums finite at any unit.
        scale = magnitude_scale(data)
        if scale != 1.0:
            data = data / scale
        memory = check_memory(self.memory)
        n_components = 1
        if self.connectivity is None:
            children, heights = memory.cache(_linkage_tree)(
                data, self.linkage, metric, self.n_jobs)
        else:
            if metric is None:
                # The square distance matrix, rescaled: the tree reads its entries.
                points = (np.asarray(self.metric(X), dtype=np.float64)
                          if callable(self.metric) else X) / scale
            else:
                points = data
            connectivity = self.connectivity
            if callable(connectivity):
                connectivity = connectivity(X)
            graph, n_components = connectivity_graph(connectivity, points, metric)
            children, heights = memory.cache(structured_linkage_tree)(
                points, graph, self.linkage, metric, n - self._n_clusters_to_stop(n))
        if scale != 1.0 and metric != _k.COSINE:
            heights = heights * scale
        self.children_ = children
        self.n_leaves_ = n
        self.n_connected_components_ = n_components
        if self.distance_threshold is not None or self.compute_distances:
            self.distances_ = heights
        else:
            self.__dict__.pop("distances_", None)
        if self.distance_threshold is not None:
            self.n_clusters_ = int(np.count_nonzero(
                heights >= self.distance_threshold)) + 1
        else:
            self.n_clusters_ = self.n_clusters
        self.labels_ = _k.cut_labels(children, n, self.n_clusters_)
        return self

    @fill_doc(y=Y_IGNORED, returns=CLUSTER_LABELS_RETURNS)
    def fit_predict(self, X, y=None):
        """Fit and return ``labels_``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features) or (n_samples, n_samples)
            As in :meth:`fit`.
        <y>

        <returns>
        """
        return self.fit(X).labels_
