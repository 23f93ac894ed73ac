"""Unsupervised exact neighbour search (notes A §5.1-5.3)."""

from ..utils import validate_params
from ..utils._docstrings import FITTED_FEATURE_ATTRIBUTES, fill_doc
from ._base import (
    COVER_HART_REFERENCES_DOC,
    KNeighborsMixin,
    NeighborsBase,
    RadiusNeighborsMixin,
    training_data,
)

__all__ = ["NearestNeighbors"]


@fill_doc(references=COVER_HART_REFERENCES_DOC,
          **{"fitted feature attributes": FITTED_FEATURE_ATTRIBUTES})
class NearestNeighbors(KNeighborsMixin, RadiusNeighborsMixin, NeighborsBase):
    """Exact (or, with ``algorithm="lsh"``, approximate) k-nearest and radius search.

    The exact searches of notes A §5.1-5.3: the k nearest training points of
    a query (the k-NN rule's first step), and the R-near neighbours (every
    point within distance R), by brute force or with a KD-tree or ball tree
    (§5.2); approximately with ``algorithm="lsh"`` (§5.7).

    Parameters
    ----------
    n_neighbors : int, default=5
        Number of neighbours of :meth:`kneighbors` by default.
    radius : float, default=1.0
        Radius of :meth:`radius_neighbors` by default.
    algorithm : {"auto", "brute", "kd_tree", "ball_tree", "lsh"}, default="auto"
        ``"brute"``: blocks of query-to-training distances (BLAS for the
        Euclidean and cosine distances) and a bounded-heap selection per row.
        ``"kd_tree"``: a :class:`KDTree` (Minkowski metrics with ``p >= 1``).
        ``"ball_tree"``: a :class:`BallTree` (its metrics: weighted, boolean, ...).
        ``"auto"``: as scikit-learn, the KD-tree when it supports the metric,
        the data have at most 15 features and ``n_neighbors < n_samples / 2``;
        the ball tree for the metrics only it supports; brute otherwise.
        ``"lsh"``: approximate search by locality-sensitive hashing, the
        index of notes A §5.7 (an :class:`LSHNearestNeighbors`; metrics
        "euclidean", "manhattan" and "cosine"): the candidates of a query
        are the points that share one of its L buckets, re-ranked by their
        exact distance, so a true neighbour can be missed (radius queries
        too); a query with fewer than k candidates is answered by brute
        force (``lsh_params["fallback"]``). Never chosen by ``"auto"``.
    leaf_size : int, default=30
        Leaf size of the KD-tree.
    metric : str, default="minkowski"
        "minkowski" (with ``p``), "euclidean", "manhattan", "chebyshev",
        "cosine" (``1 - cos``, brute force only), "haversine" (great-circle
        distance of (latitude, longitude) in radians; brute force or the
        ball tree, which ``"auto"`` picks as scikit-learn) or "precomputed"
        (X is a distance matrix; brute force only). Aliases "l1", "l2", "cityblock",
        "infinity" are accepted, and so is a ``sklearn.metrics.DistanceMetric``
        object of the Euclidean, Manhattan or Chebyshev distance (it names
        the metric; the distances are computed here). The other
        DistanceMetric objects keep their parameters private: pass the
        metric's name with ``p`` / ``metric_params`` instead.
        Also every other metric of scikit-learn's brute force and ball tree
        (formulas in :func:`skml.metrics.pairwise.pairwise_distances`):
        "sqeuclidean", "seuclidean" (``V``), "mahalanobis" (``VI`` or ``V``),
        "correlation", "canberra", "braycurtis", "hamming",
        "nan_euclidean", the boolean "jaccard", "dice", "rogerstanimoto",
        "sokalmichener", "russellrao", "sokalsneath", "yule"; or a callable
        ``metric(x, y, **metric_params)`` (brute force or the ball tree,
        which ``"auto"`` picks as scikit-learn; the tree calls it from
        Python, one call per node bound and per point scanned).
    p : float, default=2
        Order of the Minkowski distance, ``0 < p <= inf`` (``p < 1`` is not a
        metric and uses brute force).
    metric_params : dict, default=None
        Extra metric arguments, as scikit-learn: ``"p"`` (overrides ``p``,
        with scikit-learn's warning) and, for ``metric="minkowski"``, ``"w"``:
        per-feature weights, :math:`(\\sum_i w_i |x_i - z_i|^p)^{1/p}`
        (brute force or the ball tree; ``"auto"`` picks the ball tree, as
        scikit-learn, since the KD-tree takes no weights); ``"V"``
        (seuclidean), ``"VI"`` or ``"V"`` (mahalanobis); a callable metric's
        keyword arguments. A key the metric does not take: TypeError.
        Without ``V`` / ``VI``, as scikit-learn 1.9: the trees refuse the
        metric; the brute force estimates it from the training data
        (``var(X, ddof=1)``, ``inv(cov(X.T))``) for ``kneighbors()`` /
        ``radius_neighbors()`` without X and refuses other queries
        (ValueError).
    lsh_params : dict, default=None
        With ``algorithm="lsh"`` (ignored otherwise): parameters of the
        :class:`LSHNearestNeighbors` index, its defaults for the keys not
        given: ``"family"``, ``"n_tables"`` (L), ``"n_hashes"`` (k),
        ``"bucket_width"`` (w; ``"auto"`` adapts it to the data),
        ``"max_candidates"``, ``"multi_probe"``, ``"fallback"``,
        ``"random_state"`` and ``"c"``. The metric, ``n_neighbors``,
        ``radius`` and ``n_jobs`` are this estimator's. An unknown key or a
        bad value raises ``ValueError``.
    n_jobs : int, default=None
        Threads for the queries (blocks of query points); ``-1`` all cores.
        ``None``: one thread for the KD-tree; for brute force, as many as
        the BLAS thread limit (as scikit-learn's brute force follows its
        OpenMP limit), each with single-threaded BLAS.

    Attributes
    ----------
    effective_metric_ : str
        The metric used: "minkowski" with ``p`` 1, 2 or inf becomes
        "manhattan", "euclidean" or "chebyshev".
    effective_metric_params_ : dict
        ``{"p": p}`` for a general Minkowski metric (with ``"w"`` when
        weighted), else empty.
    <fitted feature attributes>
    n_samples_fit_ : int
        Number of training points.

    See Also
    --------
    KNeighborsClassifier : Majority vote of the k nearest neighbours.
    KNeighborsRegressor : Mean of the k nearest neighbours' targets.
    KDTree : The tree behind ``algorithm="kd_tree"``.
    BallTree : The tree behind ``algorithm="ball_tree"``.
    LSHNearestNeighbors : The index behind ``algorithm="lsh"``.

    Notes
    -----
    Brute force costs O(n_queries n d) time with O(block x n) memory: the
    distances are computed a block of query rows at a time (16 MiB), and
    each row's k smallest entries are kept in a bounded max-heap (one
    comparison for most entries, so O(n) per row rather than a sort).
    Dense Euclidean queries never store the distances: tiles of 64 queries
    by 2048 training points are one BLAS product each, folded into the
    heaps while in cache, ranked by ``||y||^2 - 2 x.y`` (``||x||^2`` is the
    same along a row). Sparse (CSR) Euclidean queries take their products
    through an inverted index of the training rows (per feature, the rows
    that store it; O(nnz) memory) into one dense accumulator per thread;
    sparse radius queries rank by ``||x||^2 - 2 x.y + ||y||^2``
    (:func:`skml.metrics.pairwise.euclidean_distances`). The k
    selected entries (and the radius candidates near the boundary) are then
    measured by direct differences, so a duplicate is at distance 0 and both
    engines return the same distances. Equal distances are ordered by training index, in
    both engines. ``kneighbors(None)`` queries the training points, each
    excluded from its own neighbours (a duplicate of it is not excluded).

    <references>

    Examples
    --------
    >>> from skml.neighbors import NearestNeighbors
    >>> X = [[0.0], [1.0], [3.0], [7.0]]
    >>> nn = NearestNeighbors(n_neighbors=2).fit(X)
    >>> dist, ind = nn.kneighbors([[2.5]])
    >>> ind
    array([[2, 1]])
    >>> dist
    array([[0.5, 1.5]])
    """

    def __init__(self, *, n_neighbors=5, radius=1.0, algorithm="auto", leaf_size=30,
                 metric="minkowski", p=2, metric_params=None, lsh_params=None,
                 n_jobs=None):
        self.n_neighbors = n_neighbors
        self.radius = radius
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.metric = metric
        self.p = p
        self.metric_params = metric_params
        self.lsh_params = lsh_params
        self.n_jobs = n_jobs

    def fit(self, X, y=None):
        """Index the training points.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or \
                (n_samples, n_samples) if metric="precomputed"
            Training points; or a fitted neighbours estimator, KDTree or
            BallTree, whose training points are indexed.
        y : Ignored
            Not used, present for API consistency.

        Returns
        -------
        self : NearestNeighbors
            The fitted estimator.
        """
        validate_params(self)
        return self._fit_index(self._validate_query(training_data(X), reset=True))
