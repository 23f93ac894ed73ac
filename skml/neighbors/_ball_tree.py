"""Ball tree: nested balls, triangle-inequality pruning (notes A §5.2)."""

import functools
import heapq

import numpy as np
from sklearn.utils.validation import check_array

from ..utils._docstrings import fill_doc
from ..utils._magnitude import magnitude_scale
from ..metrics import _distance_kernels as dk
from ..metrics.pairwise import metric_transform
from ._ball_tree_kernels import build_ball_tree
from ._kd_tree import (
    KD_TREE_METRICS,
    TREE_ATTRIBUTES_DOC,
    BinaryTree,
    metric_code,
    n_tree_nodes,
)
from ._tree_kernels import BALL

__all__ = ["BallTree"]

# metric name -> fixed Minkowski p (None: take the p argument; nan: not a
# Minkowski metric): the KD-tree's metrics and more.
BALL_TREE_METRICS = {
    **KD_TREE_METRICS,
    "seuclidean": 2.0,
    "mahalanobis": 2.0,
    "haversine": np.nan,
    "canberra": np.nan,
    "hamming": np.nan,
    "braycurtis": np.nan,
    "jaccard": np.nan,
    "dice": np.nan,
    "rogerstanimoto": np.nan,
    "sokalmichener": np.nan,
    "russellrao": np.nan,
    "sokalsneath": np.nan,
}
# The metrics with a kernel code of their own (those of skml.metrics.pairwise;
# the boolean ones read a coordinate as true when non-zero).
_OTHER_CODES = {
    "haversine": dk.HAVERSINE, "canberra": dk.CANBERRA, "hamming": dk.HAMMING,
    "braycurtis": dk.BRAYCURTIS, "jaccard": dk.JACCARD, "dice": dk.DICE,
    "rogerstanimoto": dk.ROGERSTANIMOTO, "sokalmichener": dk.ROGERSTANIMOTO,
    "russellrao": dk.RUSSELLRAO, "sokalsneath": dk.SOKALSNEATH,
}


def _metric_transform(metric, p, n_features, kwargs):
    """The linear map of a weighted metric (see ``metric_transform``), named BallTree."""
    try:
        return metric_transform(metric, n_features, p=p, **kwargs)
    except (TypeError, ValueError) as exc:
        raise type(exc)(f"BallTree: {exc}") from None


# A node's lower bound d(q, c) - radius is lowered by this relative slack (as
# in the kernels) so that rounding never prunes a tied point.
_BOUND_SLACK = 1e-12


def _bind(func, kwargs):
    """``func`` with its keyword arguments bound (no ** per call when none)."""
    return functools.partial(func, **kwargs) if kwargs else func


def _pyfunc_radii(func, sorted_rows, start, end, centroids):
    """Each node's radius under a Python metric: max of func(centre, point)."""
    radius = np.zeros(start.shape[0])
    start, end = start.tolist(), end.tolist()
    for node in range(len(start)):
        c = centroids[node]
        far = 0.0
        for pos in range(start[node], end[node]):
            d = func(c, sorted_rows[pos])
            if d > far:
                far = d
        radius[node] = far
    return radius


class _PyfuncSearch:
    """Depth-first k-nearest and radius searches calling a Python metric.

    The ball tree of a callable metric (as scikit-learn's, slow but exact
    for a true metric): the numba kernels cannot call Python, so the same
    search runs here, one call of ``func(q, centre)`` per node bound and of
    ``func(q, x)`` per point of a leaf reached. Nodes are pruned by the
    triangle inequality, ``func(q, c) - radius``; ties go to the smaller
    index.
    """

    def __init__(self, tree):
        self.func = _bind(tree._func, tree.metric_params)
        # Python lists of row views and ints: no array indexing per call.
        self.rows = list(tree._sorted_data)
        self.idx = tree.idx_array.tolist()
        self.start, self.end = tree.node_start.tolist(), tree.node_end.tolist()
        self.centroids = list(tree._centroids)
        self.radius = tree._ball_radius.tolist()
        self.first_leaf = tree.n_nodes // 2

    def lower_bound(self, q, node):
        dc = float(self.func(q, self.centroids[node]))
        rad = self.radius[node]
        return max(dc - rad - _BOUND_SLACK * (abs(dc) + rad), 0.0)

    def children(self, q, node):
        """The two children and their bounds, nearer first."""
        left, right = 2 * node + 1, 2 * node + 2
        lb_left, lb_right = self.lower_bound(q, left), self.lower_bound(q, right)
        if lb_right < lb_left:
            return (right, lb_right), (left, lb_left)
        return (left, lb_left), (right, lb_right)

    def knn(self, q, k, skip):
        """Sorted (distances, indices) of the k nearest points to q."""
        func, rows, idx = self.func, self.rows, self.idx
        heap = []  # (-distance, -index): heap[0] is the worst point kept
        worst = np.inf  # -heap[0][0] once the heap is full
        stack = [(0, 0.0)]
        while stack:
            node, bound = stack.pop()
            if bound > worst:
                continue
            if node >= self.first_leaf:
                for pos in range(self.start[node], self.end[node]):
                    d = func(q, rows[pos])
                    if d > worst or idx[pos] == skip:
                        continue  # (the common case: one comparison)
                    item = (-float(d), -idx[pos])
                    if len(heap) < k:
                        heapq.heappush(heap, item)
                    elif item > heap[0]:
                        heapq.heapreplace(heap, item)
                    if len(heap) == k:
                        worst = -heap[0][0]
                continue
            near, far = self.children(q, node)
            stack.append(far)
            stack.append(near)  # (visited first)
        best = sorted((-d, -i) for d, i in heap)
        return [d for d, _ in best], [i for _, i in best]

    def within(self, q, r, skip):
        """Indices (increasing) and distances of the points within r of q."""
        found = []
        stack = [0]
        while stack:
            node = stack.pop()
            if self.lower_bound(q, node) > r:
                continue
            if node < self.first_leaf:
                stack.extend((2 * node + 2, 2 * node + 1))
                continue
            for pos in range(self.start[node], self.end[node]):
                i = self.idx[pos]
                if i != skip:
                    d = float(self.func(q, self.rows[pos]))
                    if d <= r:
                        found.append((i, d))
        found.sort()
        return [i for i, _ in found], [d for _, d in found]


@fill_doc(**{"tree attributes": TREE_ATTRIBUTES_DOC})
class BallTree(BinaryTree):
    """Ball tree for fast exact nearest-neighbour queries (notes A §5.2).

    Like the KD-tree, each internal node splits its points at the median of
    the coordinate of largest spread (a complete binary tree, leaves of
    ``leaf_size`` to ``2 * leaf_size`` points), but a node is described by a
    ball, the mean of its points and the largest distance from it, rather
    than a box. A query prunes a node when ``d(q, centre) - radius`` (a lower
    bound by the triangle inequality) exceeds the current k-th distance. Only
    the triangle inequality is used, so any true metric works, and the
    bound does not loosen with the dimension as fast as a box's.

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points to index.
    leaf_size : int, default=40
        Number of points at which to stop splitting.
    metric : str or callable, default="minkowski"
        One of "minkowski", "euclidean", "manhattan", "chebyshev" (aliases
        "l2", "l1", "cityblock", "infinity"), "seuclidean" (needs ``V``),
        "mahalanobis" (needs ``VI`` or ``V``), "haversine" (2 features:
        latitude and longitude in radians), "canberra", "hamming",
        "braycurtis", and the boolean metrics "jaccard", "dice",
        "rogerstanimoto", "sokalmichener", "russellrao", "sokalsneath"
        (a coordinate is true when non-zero); formulas in
        :func:`skml.metrics.pairwise.pairwise_distances`. Or a callable
        ``metric(x, y, **kwargs)`` of two 1-d rows, a true metric (the
        triangle inequality prunes the search): the search then runs in
        Python, one call per node bound and per point scanned (slow, as
        scikit-learn's; ``kernel_density`` is not available).
    p : float, default=2
        Order of the Minkowski distance, ``1 <= p <= inf``.
    **kwargs
        Metric arguments: ``V`` (seuclidean variances, or mahalanobis
        covariance), ``VI`` (mahalanobis inverse covariance), ``w``
        (Minkowski weights: ``(sum w_i |x_i - y_i|^p)^(1/p)``); a callable
        metric's keyword arguments.

    Attributes
    ----------
    <tree attributes>
    node_bounds : ndarray of shape (1, n_nodes, n_features)
        Centre of each node's ball (in the coordinates of the metric's map:
        scaled by ``V``, ``VI`` or ``w`` where given).
    node_data : structured ndarray of shape (n_nodes,)
        Per node ``idx_start``, ``idx_end``, ``is_leaf`` and ``radius``.

    See Also
    --------
    KDTree : Boxes instead of balls; faster in low dimension for Minkowski
        metrics.
    NearestNeighbors : The estimator interface (``algorithm="ball_tree"``).

    Notes
    -----
    Build O(d n log n); a query costs about O(log n) node visits when the
    intrinsic dimension is low. braycurtis and dice break the triangle
    inequality, so their nodes are never pruned (every query scans all
    points: exact, and as slow as brute force). Weighted metrics (seuclidean, mahalanobis,
    weighted Minkowski) are handled by mapping the data once so that the
    metric becomes a plain Minkowski distance: the kernels then see four
    metrics only. Leaf scans compare reduced distances (no root); a node's
    bound costs one distance to its centre. Ties are broken by the smaller
    training index. ``dualtree`` and ``breadth_first`` are accepted and do not
    change the result.

    References
    ----------
    S. M. Omohundro, "Five balltree construction algorithms", ICSI Technical
    Report TR-89-063, 1989.

    Examples
    --------
    A metric the KD-tree lacks: great-circle distances between (latitude,
    longitude) pairs in radians, here London, Paris and New York.

    >>> import numpy as np
    >>> from skml.neighbors import BallTree
    >>> cities = np.radians([[51.5, -0.1], [48.9, 2.4], [40.7, -74.0]])
    >>> tree = BallTree(cities, leaf_size=2, metric="haversine")
    >>> dist, ind = tree.query(np.radians([[50.1, 8.7]]), k=2)  # Frankfurt
    >>> ind
    array([[1, 0]])
    >>> (dist * 6371).round(-1)  # kilometres on the Earth's mean radius
    array([[470., 640.]])
    """

    _kind = BALL

    def __init__(self, X, leaf_size=40, metric="minkowski", p=2, **kwargs):
        self._check_params(leaf_size, metric, p, BALL_TREE_METRICS, callable_ok=True)
        self.data = check_array(X, dtype=np.float64, order="C", copy=True,
                                input_name="X")
        n, m = self.data.shape
        self.leaf_size = leaf_size
        self.metric = metric
        self._func = metric if callable(metric) else None
        if self._func is not None:
            self._init_pyfunc(kwargs)
            return
        fixed_p = BALL_TREE_METRICS[metric]
        self.p = float(p) if fixed_p is None else fixed_p
        if metric in _OTHER_CODES:
            self._code, self._p = _OTHER_CODES[metric], 1.0
        else:
            self._code, self._p = metric_code(self.p)
        if metric == "haversine" and m != 2:
            raise ValueError("BallTree: metric='haversine' needs 2 features "
                             f"(latitude, longitude in radians); X has {m}.")
        self.metric_params = dict(kwargs)
        self._map = _metric_transform(metric, self.p, m, kwargs)
        data = self._transform(self.data)
        # Extreme magnitudes (as in KDTree): index X / s, s a power of two.
        # Not for the scale-free metrics (angles, ratios, equalities).
        self._scale = 1.0 if metric in _OTHER_CODES else magnitude_scale(data)
        if self._scale != 1.0:
            data = data / self._scale
        self.n_nodes = n_tree_nodes(n, leaf_size)
        idx, start, end, centroids, radius = build_ball_tree(
            np.ascontiguousarray(data), self.n_nodes, self._code, self._p)
        self.idx_array = idx
        self.node_start, self.node_end = start, end
        self._centroids, self._ball_radius = centroids, radius
        self.node_bounds = (centroids * self._scale)[np.newaxis]
        self.node_data = self._node_data(start, end, radius * self._scale)
        self._sorted_data = np.ascontiguousarray(data[idx])

    def _init_pyfunc(self, kwargs):
        """The tree of a Python metric ``func(x, y, **kwargs)`` (see ``_PyfuncSearch``).

        The layout is built as for the Euclidean metric (splits on the
        coordinate of largest spread, centres the means), then each node's
        radius is measured with the callable.
        """
        self.p = None
        self._code, self._p, self._map, self._scale = dk.EUCLIDEAN, 2.0, None, 1.0
        self.metric_params = dict(kwargs)
        self.n_nodes = n_tree_nodes(self.data.shape[0], self.leaf_size)
        idx, start, end, centroids, _ = build_ball_tree(
            self.data, self.n_nodes, self._code, self._p)
        self._sorted_data = np.ascontiguousarray(self.data[idx])
        radius = _pyfunc_radii(_bind(self._func, self.metric_params),
                               list(self._sorted_data), start, end, centroids)
        self.idx_array, self.node_start, self.node_end = idx, start, end
        self._centroids, self._ball_radius = centroids, radius
        self.node_bounds = centroids[np.newaxis]
        self.node_data = self._node_data(start, end, radius)

    def _node_data(self, start, end, radius):
        node_data = np.zeros(self.n_nodes, dtype=[
            ("idx_start", np.intp), ("idx_end", np.intp), ("is_leaf", np.intp),
            ("radius", np.float64)])
        node_data["idx_start"], node_data["idx_end"] = start, end
        node_data["is_leaf"] = np.arange(self.n_nodes) >= self.n_nodes // 2
        node_data["radius"] = radius
        return node_data

    def __repr__(self):
        return (f"BallTree(n_samples={self.data.shape[0]}, leaf_size={self.leaf_size}, "
                f"metric={self.metric!r}, p={self.p})")

    def _knn(self, X, k, *, exclude_self=False, n_jobs=None):
        if self._func is None:
            return super()._knn(X, k, exclude_self=exclude_self, n_jobs=n_jobs)
        search = _PyfuncSearch(self)
        dist = np.empty((X.shape[0], k))
        ind = np.empty((X.shape[0], k), dtype=np.int64)
        for r in range(X.shape[0]):
            dist[r], ind[r] = search.knn(X[r], k, r if exclude_self else -1)
        return dist, ind

    def _radius(self, X, r, *, exclude_self=False, n_jobs=None):
        if self._func is None:
            return super()._radius(X, r, exclude_self=exclude_self, n_jobs=n_jobs)
        search = _PyfuncSearch(self)
        r_all = np.broadcast_to(np.asarray(r, dtype=np.float64), (X.shape[0],))
        rows = [search.within(X[q], r_all[q], q if exclude_self else -1)
                for q in range(X.shape[0])]
        counts = [len(ind) for ind, _ in rows]
        indptr = np.concatenate([[0], np.cumsum(counts)]).astype(np.int64)
        indices = np.array([i for ind, _ in rows for i in ind], dtype=np.int64)
        dist = np.array([d for _, dists in rows for d in dists], dtype=np.float64)
        return indptr, indices, dist

    def kernel_density(self, X, h, kernel="gaussian", atol=0, rtol=1e-8,
                       breadth_first=True, return_log=False):
        if self._func is not None:
            raise ValueError("BallTree.kernel_density: not available for a callable "
                             "metric; use one of the metric names.")
        return super().kernel_density(X, h, kernel=kernel, atol=atol, rtol=rtol,
                                      breadth_first=breadth_first,
                                      return_log=return_log)

    kernel_density.__doc__ = BinaryTree.kernel_density.__doc__

    def two_point_correlation(self, X, r, dualtree=False):
        if self._func is None:
            return super().two_point_correlation(X, r, dualtree=dualtree)
        Xq = self._tree_query(X)
        r = np.asarray(r, dtype=np.float64)
        if np.any(np.isnan(r)):
            raise ValueError("BallTree.two_point_correlation: r contains NaN.")
        _, _, dist = self._radius(Xq, float(r.max(initial=-1.0)))
        dist = np.sort(dist)
        return np.searchsorted(dist, r, side="right").astype(np.int64)

    two_point_correlation.__doc__ = BinaryTree.two_point_correlation.__doc__

    def _transform(self, X):
        return X if self._map is None else X @ self._map

    def _node_arrays(self):
        return self._centroids, np.empty((0, 0)), self._ball_radius
