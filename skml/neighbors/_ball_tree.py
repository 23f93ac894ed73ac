"""Ball tree: nested balls, triangle-inequality pruning (notes A §5.2)."""

import numpy as np
from sklearn.utils.validation import check_array

from ..utils._magnitude import magnitude_scale
from ..metrics import _distance_kernels as dk
from ..metrics.pairwise import metric_transform
from ._ball_tree_kernels import build_ball_tree
from ._kd_tree import KD_TREE_METRICS, BinaryTree, metric_code, n_tree_nodes
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
    metric : str, default="minkowski"
        One of "minkowski", "euclidean", "manhattan", "chebyshev" (aliases
        "l2", "l1", "cityblock", "infinity"), "seuclidean" (needs ``V``),
        "mahalanobis" (needs ``VI`` or ``V``), "haversine" (2 features:
        latitude and longitude in radians), "canberra", "hamming",
        "braycurtis", and the boolean metrics "jaccard", "dice",
        "rogerstanimoto", "sokalmichener", "russellrao", "sokalsneath"
        (a coordinate is true when non-zero); formulas in
        :func:`skml.metrics.pairwise.pairwise_distances`.
    p : float, default=2
        Order of the Minkowski distance, ``1 <= p <= inf``.
    **kwargs
        Metric arguments: ``V`` (seuclidean variances, or mahalanobis
        covariance), ``VI`` (mahalanobis inverse covariance), ``w``
        (Minkowski weights: ``(sum w_i |x_i - y_i|^p)^(1/p)``).

    Attributes
    ----------
    data : ndarray of shape (n_samples, n_features)
        The indexed points (float64 copy).
    idx_array : ndarray of shape (n_samples,)
        Permutation of the points: node ``i`` owns
        ``idx_array[node_start[i]:node_end[i]]``.
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
        self._check_params(leaf_size, metric, p, BALL_TREE_METRICS)
        self.data = check_array(X, dtype=np.float64, order="C", copy=True,
                                input_name="X")
        n, m = self.data.shape
        self.leaf_size = leaf_size
        self.metric = metric
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
        node_data = np.zeros(self.n_nodes, dtype=[
            ("idx_start", np.intp), ("idx_end", np.intp), ("is_leaf", np.intp),
            ("radius", np.float64)])
        node_data["idx_start"], node_data["idx_end"] = start, end
        node_data["is_leaf"] = np.arange(self.n_nodes) >= self.n_nodes // 2
        node_data["radius"] = radius * self._scale
        self.node_data = node_data
        self._sorted_data = np.ascontiguousarray(data[idx])

    def __repr__(self):
        return (f"BallTree(n_samples={self.data.shape[0]}, leaf_size={self.leaf_size}, "
                f"metric={self.metric!r}, p={self.p})")

    def _transform(self, X):
        return X if self._map is None else X @ self._map

    def _node_arrays(self):
        return self._centroids, np.empty((0, 0)), self._ball_radius
