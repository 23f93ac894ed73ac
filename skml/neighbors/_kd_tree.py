"""KD-tree: median splits, bounding-box pruning (notes A §5.2)."""

import math
from numbers import Integral, Real

import numpy as np
from sklearn.utils import gen_even_slices
from sklearn.utils.validation import check_array

from ..utils import Interval, Options
from ..utils._docstrings import fill_doc
from ..utils._magnitude import magnitude_scale
from ..utils._parallel import resolve_n_jobs, run_in_threads
from ..utils._param_validation import _describe, _satisfies
from ._ball_tree_kernels import HAVERSINE
from ._kd_tree_kernels import CHEBYSHEV, EUCLIDEAN, MANHATTAN, MINKOWSKI, build_tree
from ._tree_density import TreeStatsMixin
from ._tree_kernels import KD, QUERY_KNN, QUERY_RADIUS

__all__ = ["KDTree"]

# metric name -> fixed p (None: take the p argument).
KD_TREE_METRICS = {
    "euclidean": 2.0,
    "l2": 2.0,
    "manhattan": 1.0,
    "cityblock": 1.0,
    "l1": 1.0,
    "chebyshev": np.inf,
    "infinity": np.inf,
    "minkowski": None,
}


def metric_code(p):
    """Kernel code and exponent of the Minkowski distance of order p >= 1."""
    if p == 2:
        return EUCLIDEAN, 2.0
    if p == 1:
        return MANHATTAN, 1.0
    if np.isinf(p):
        return CHEBYSHEV, np.inf
    return MINKOWSKI, float(p)


def reduce_distance(dist, code, p):
    """Map true distances to the kernels' reduced ones (``d**p``)."""
    if code == EUCLIDEAN:
        return np.square(dist)
    if code == MINKOWSKI:
        return np.power(dist, p)
    if code == HAVERSINE:
        return np.square(np.sin(0.5 * np.minimum(dist, np.pi)))
    return np.asarray(dist, dtype=np.float64)


def unreduce_distance(rdist, code, p):
    """Inverse of :func:`reduce_distance`, in place for float arrays."""
    if code == EUCLIDEAN:
        return np.sqrt(rdist, out=rdist)
    if code == MINKOWSKI:
        return np.power(rdist, 1.0 / p, out=rdist)
    if code == HAVERSINE:
        np.clip(rdist, 0.0, 1.0, out=rdist)
        np.sqrt(rdist, out=rdist)
        np.arcsin(rdist, out=rdist)
        return np.multiply(rdist, 2.0, out=rdist)
    return rdist


def check_tree_param(owner, value, name, allowed):
    """ValueError naming ``owner`` and ``name`` unless value meets a constraint.

    The trees are data structures, not estimators: their arguments are
    checked at construction with the estimators' constraint objects.
    """
    if not any(_satisfies(value, c) for c in allowed):
        forms = " or ".join(_describe(c) for c in allowed)
        raise ValueError(f"{owner}: {name} must be {forms}; got {value!r}.")


# The arguments every tree takes, checked alike.
TREE_PARAM_CONSTRAINTS = {
    "leaf_size": [Interval(Integral, 1, None, closed="left")],
    "p": [Interval(Real, 1, None, closed="left")],
}


def n_tree_nodes(n, leaf_size):
    """Nodes of the complete binary tree whose leaves hold leaf_size to 2 leaf_size points."""
    n_levels = int(math.log2(max(1.0, (n - 1) / leaf_size))) + 1
    return 2**n_levels - 1


def _query_slices(n_rows, n_jobs):
    n_parts = min(resolve_n_jobs(n_jobs), max(n_rows, 1))
    return list(gen_even_slices(n_rows, n_parts)), n_parts


class BinaryTree(TreeStatsMixin):
    """Queries shared by :class:`KDTree` and :class:`~skml.neighbors.BallTree`.

    A subclass sets ``_kind`` (``KD`` or ``BALL`` of ``_tree_kernels``),
    ``_node_arrays()`` (its node bounds ``A``, ``B``, ``rad``) and the state
    built by its ``__init__`` (``data``, ``_sorted_data``, ``idx_array``,
    ``node_start``, ``node_end``, ``_code``, ``_p``, ``_scale``); the
    searches of ``_tree_kernels`` serve both.
    """

    def _check_params(self, leaf_size, metric, p, metrics, callable_ok=False):
        """Check the constructor's arguments (messages name the class)."""
        owner = type(self).__name__
        check_tree_param(owner, leaf_size, "leaf_size",
                         TREE_PARAM_CONSTRAINTS["leaf_size"])
        check_tree_param(owner, metric, "metric",
                         [Options(set(metrics))] + ([callable] if callable_ok else []))
        check_tree_param(owner, p, "p", TREE_PARAM_CONSTRAINTS["p"])

    def _kernel_tree(self):
        """The tuple the query kernels take (see ``_tree_kernels``)."""
        A, B, rad = self._node_arrays()
        return (self._sorted_data, self.idx_array, self.node_start, self.node_end,
                A, B, rad)

    def _transform(self, X):
        """Coordinates the tree indexes (the identity for the KD-tree)."""
        return X

    def _tree_query(self, X):
        """Validated queries, transformed and scaled as the indexed points."""
        X = self._transform(self._check_query(X))
        scale = getattr(self, "_scale", 1.0)
        return X if scale == 1.0 else X / scale

    def _check_query(self, X):
        X = check_array(X, dtype=np.float64, order="C", input_name="X")
        if X.shape[1] != self.data.shape[1]:
            raise ValueError(
                f"query data dimension must match training data dimension: X has "
                f"{X.shape[1]} features, the tree {self.data.shape[1]}."
            )
        return X

    # The two query engines below are shared with the estimators
    # (row_offset/exclude_self: the queries are the indexed points).
    def _knn(self, X, k, *, exclude_self=False, n_jobs=None):
        n_q = X.shape[0]
        dist = np.empty((n_q, k))
        ind = np.empty((n_q, k), dtype=np.int64)
        tree, query_knn = self._kernel_tree(), QUERY_KNN[self._kind]

        def run(s):
            query_knn(tree, X[s], k, self._code, self._p, s.start, exclude_self,
                      dist[s], ind[s])

        slices, n_parts = _query_slices(n_q, n_jobs)
        run_in_threads(run, slices, n_parts)  # writes into dist and ind
        return unreduce_distance(dist, self._code, self._p), ind

    def _radius(self, X, r, *, exclude_self=False, n_jobs=None):
        """CSR pieces (indptr, indices, distances) of the radius query."""
        n_q = X.shape[0]
        r_all = np.broadcast_to(np.asarray(r, dtype=np.float64), (n_q,))
        r_red = reduce_distance(r_all, self._code, self._p)
        r_red = np.ascontiguousarray(r_red, dtype=np.float64)
        tree, query_radius = self._kernel_tree(), QUERY_RADIUS[self._kind]

        def run(s):
            return query_radius(tree, X[s], r_red[s], self._code, self._p, s.start,
                                exclude_self)

        parts = run_in_threads(run, *_query_slices(n_q, n_jobs))
        indptr = [np.zeros(1, dtype=np.int64)]
        offset = 0
        for part_indptr, part_ind, _ in parts:
            indptr.append(part_indptr[1:] + offset)
            offset += part_ind.shape[0]
        indptr = np.concatenate(indptr)
        indices = np.concatenate([part[1] for part in parts] or [np.empty(0, np.int64)])
        dist = np.concatenate([part[2] for part in parts] or [np.empty(0)])
        return indptr, indices, unreduce_distance(dist, self._code, self._p)

    def query(self, X, k=1, return_distance=True, dualtree=False, breadth_first=False,
              sort_results=True):
        """The k nearest indexed points of each row of X.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query points.
        k : int, default=1
            Number of neighbours, at most the number of indexed points.
        return_distance : bool, default=True
            Also return the distances.
        dualtree, breadth_first : bool, default=False
            Accepted for compatibility; the result does not depend on them.
        sort_results : bool, default=True
            Accepted for compatibility; results are always sorted by distance
            (then index).

        Returns
        -------
        dist : ndarray of shape (n_queries, k)
            Only when ``return_distance``.
        ind : ndarray of shape (n_queries, k)
            Indices of the neighbours in the indexed data.
        """
        check_tree_param(type(self).__name__, k, "k",
                         [Interval(Integral, 1, None, closed="left")])
        X = self._tree_query(X)
        if k > self.data.shape[0]:
            raise ValueError(
                f"k must be less than or equal to the number of training points: "
                f"k={k}, n_samples={self.data.shape[0]}."
            )
        dist, ind = self._knn(X, k)
        scale = getattr(self, "_scale", 1.0)
        if scale != 1.0:
            dist *= scale
        return (dist, ind) if return_distance else ind

    def query_radius(self, X, r, return_distance=False, count_only=False,
                     sort_results=False):
        """The indexed points within distance r (inclusive) of each row of X.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features)
            Query points.
        r : float or array-like of shape (n_queries,)
            Radius, one for all queries or one per query.
        return_distance : bool, default=False
            Also return the distances (not with ``count_only``).
        count_only : bool, default=False
            Return only the number of neighbours of each query.
        sort_results : bool, default=False
            Sort each query's neighbours by distance (needs
            ``return_distance``).

        Returns
        -------
        count : ndarray of shape (n_queries,)
            When ``count_only``.
        ind : ndarray of shape (n_queries,), dtype=object
            Arrays of neighbour indices.
        dist : ndarray of shape (n_queries,), dtype=object
            Arrays of distances, when ``return_distance``.
        """
        if count_only and return_distance:
            raise ValueError("count_only and return_distance cannot both be true.")
        if sort_results and not return_distance:
            raise ValueError("return_distance must be True if sort_results is True.")
        X = self._tree_query(X)
        r = np.asarray(r, dtype=np.float64)
        if r.ndim > 1 or (r.ndim == 1 and r.shape[0] != X.shape[0]):
            raise ValueError("r must be a scalar or of shape (n_queries,).")
        if np.any(np.isnan(r)):
            raise ValueError("r contains NaN.")
        scale = getattr(self, "_scale", 1.0)
        indptr, indices, dist = self._radius(X, r / scale)
        if scale != 1.0:
            dist *= scale
        if count_only:
            return np.diff(indptr)
        ind = split_rows(indptr, indices)
        if not return_distance:
            return ind
        dists = split_rows(indptr, dist)
        if sort_results:
            for row in range(len(ind)):
                order = np.lexsort((ind[row], dists[row]))
                ind[row], dists[row] = ind[row][order], dists[row][order]
        return ind, dists


# The attributes that KDTree and BallTree share, placed by ``fill_doc``.
TREE_ATTRIBUTES_DOC = """
data : ndarray of shape (n_samples, n_features)
    The indexed points (float64 copy).
idx_array : ndarray of shape (n_samples,)
    Permutation of the points: node ``i`` owns
    ``idx_array[node_start[i]:node_end[i]]``.
"""


@fill_doc(**{"tree attributes": TREE_ATTRIBUTES_DOC})
class KDTree(BinaryTree):
    """KD-tree for fast exact nearest-neighbour queries (notes A §5.2).

    The notes motivate the KD-tree (exact neighbours in low dimension under
    any norm, degrading with the dimension) without a construction; this is
    the standard one. Every internal node splits its points at the median of
    the dimension of largest spread; nodes are stored as a complete binary
    tree whose leaves hold between ``leaf_size`` and ``2 * leaf_size`` points,
    as in scikit-learn. A query descends depth first, nearer child first, and
    prunes a node whose bounding box is farther than the current k-th
    neighbour (a bounded max-heap per query).

    Parameters
    ----------
    X : array-like of shape (n_samples, n_features)
        The points to index.
    leaf_size : int, default=40
        Number of points at which to stop splitting: the tree has
        ``2**L - 1`` nodes with ``L = floor(log2(max(1, (n - 1) / leaf_size))) + 1``.
    metric : {"minkowski", "euclidean", "manhattan", "chebyshev"}, default="minkowski"
        Distance (aliases "l2", "l1", "cityblock", "infinity" accepted).
    p : float, default=2
        Order of the Minkowski distance, ``1 <= p <= inf``; used when
        ``metric="minkowski"``.

    Attributes
    ----------
    <tree attributes>
    node_bounds : ndarray of shape (2, n_nodes, n_features)
        Lower and upper corners of each node's bounding box.

    See Also
    --------
    NearestNeighbors : The estimator interface, which uses this tree.

    Notes
    -----
    Build O(d n log n) (a quickselect per level); a k-nearest query costs about
    O(log n) node visits in low dimension, approaching the brute-force O(n)
    past d ~ 10-20 (the curse of dimensionality). Distances inside the kernels
    are reduced (``sum |x_i - y_i|^p``, no root) and converted at the end.
    Ties are broken by the smaller training index. ``dualtree`` and
    ``breadth_first`` are accepted for compatibility with scikit-learn and
    do not change the result (only its traversal in scikit-learn); this tree
    always walks single-tree depth first.

    References
    ----------
    J. L. Bentley, "Multidimensional binary search trees used for associative
    searching", Communications of the ACM 18(9), 1975.

    Examples
    --------
    >>> import numpy as np
    >>> from skml.neighbors import KDTree
    >>> X = np.array([[0.0, 0.0], [1.0, 0.0], [0.0, 2.0], [3.0, 3.0]])
    >>> tree = KDTree(X, leaf_size=2)
    >>> dist, ind = tree.query([[0.1, 0.0]], k=2)
    >>> ind
    array([[0, 1]])
    >>> dist.round(2)
    array([[0.1, 0.9]])
    """

    _kind = KD

    def __init__(self, X, leaf_size=40, metric="minkowski", p=2):
        self._check_params(leaf_size, metric, p, KD_TREE_METRICS)
        self.data = check_array(X, dtype=np.float64, order="C", copy=True,
                                input_name="X")
        self.leaf_size = leaf_size
        self.metric = metric
        fixed_p = KD_TREE_METRICS[metric]
        self.p = float(p) if fixed_p is None else fixed_p
        self._code, self._p = metric_code(self.p)
        self.n_nodes = n_tree_nodes(self.data.shape[0], leaf_size)
        # Reduced distances are powers of the coordinates: at X * 1e300 they
        # overflow, at X * 1e-300 they underflow. The tree indexes X / s
        # (s = 2^e, exact); queries are divided alike and distances
        # multiplied back. s = 1 (nothing changes) at ordinary magnitudes.
        self._scale = magnitude_scale(self.data)
        data = self.data if self._scale == 1.0 else self.data / self._scale
        idx, start, end, lo, hi = build_tree(data, self.n_nodes)
        self.idx_array = idx
        self.node_start, self.node_end = start, end
        self._bounds = np.stack([lo, hi])
        self.node_bounds = self._bounds if self._scale == 1.0 else (
            self._bounds * self._scale)
        # Leaf points contiguous in memory: the query's inner loop streams them.
        self._sorted_data = data[idx]

    def __repr__(self):
        return (f"KDTree(n_samples={self.data.shape[0]}, leaf_size={self.leaf_size}, "
                f"metric={self.metric!r}, p={self.p})")

    def _node_arrays(self):
        lo, hi = getattr(self, "_bounds", self.node_bounds)
        return lo, hi, np.empty(0)


def split_rows(indptr, values):
    """Object array of the per-row slices of CSR ``values``."""
    out = np.empty(indptr.shape[0] - 1, dtype=object)
    for row in range(out.shape[0]):
        out[row] = values[indptr[row]:indptr[row + 1]]
    return out
