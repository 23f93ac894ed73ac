"""k-nearest-neighbour regression (notes A §5.1)."""

import numpy as np
from sklearn.base import RegressorMixin

from ..utils import Options, validate_params
from ._base import (
    FIT_DTYPES,
    KNeighborsMixin,
    NeighborsBase,
    keep_float32,
    neighbor_weights,
)
from ..utils.validation import validate_data

__all__ = ["KNeighborsRegressor"]


class KNeighborsRegressor(KNeighborsMixin, RegressorMixin, NeighborsBase):
    """Regression by the (weighted) mean target of the k nearest training points.

    The k-NN rule of notes A §5.1 with a mean in place of the vote: a
    non-parametric model whose parameter is the dataset. Neighbours come from
    brute force or a KD-tree (§5.2).

    Parameters
    ----------
    n_neighbors : int, default=5
        Number of neighbours k.
    weights : {"uniform", "distance"}, callable or None, default="uniform"
        Weights of the mean: equal; ``1 / distance`` (a query at distance 0
        from training points takes their mean only); or a function mapping
        the (n_queries, k) distances to weights of the same shape.
    algorithm : {"auto", "brute", "kd_tree", "ball_tree"}, default="auto"
        Search engine; see :class:`NearestNeighbors`.
    leaf_size : int, default=30
        Leaf size of the KD-tree.
    p : float, default=2
        Order of the Minkowski distance, ``0 < p <= inf``.
    metric : str, default="minkowski"
        "minkowski", "euclidean", "manhattan", "chebyshev", "cosine" or
        "precomputed"; see :class:`NearestNeighbors`.
    metric_params : dict, default=None
        Extra metric arguments (``"p"``, and ``"w"`` for weighted Minkowski);
        see :class:`NearestNeighbors`.
    n_jobs : int, default=None
        Threads for the neighbour queries; see :class:`NearestNeighbors`.

    Attributes
    ----------
    effective_metric_ : str
        The metric used ("minkowski" with p 1, 2, inf is renamed).
    effective_metric_params_ : dict
        ``{"p": p}`` for a general Minkowski metric, else empty.
    n_features_in_ : int
        Number of features seen during fit.
    feature_names_in_ : ndarray of shape (`n_features_in_`,)
        Names of features seen during fit, when X has string column names.
    n_samples_fit_ : int
        Number of training points.

    See Also
    --------
    KNeighborsClassifier : The classification counterpart.
    NearestNeighbors : The underlying search.

    Notes
    -----
    Fit only stores (and, for the tree, indexes) the data. Prediction costs
    one k-nearest search (see :class:`NearestNeighbors`) and an
    O(n_queries k n_outputs) weighted mean.

    References
    ----------
    T. Hastie, R. Tibshirani and J. Friedman, *The Elements of Statistical
    Learning*, 2nd ed., Springer, 2009, §2.3.2.

    Examples
    --------
    >>> from skml.neighbors import KNeighborsRegressor
    >>> X = [[0.0], [1.0], [2.0], [3.0]]
    >>> y = [0.0, 0.0, 1.0, 1.0]
    >>> reg = KNeighborsRegressor(n_neighbors=2).fit(X, y)
    >>> reg.predict([[1.5]])
    array([0.5])
    """

    _parameter_constraints = {
        **NeighborsBase._parameter_constraints,
        "weights": [Options({"uniform", "distance"}), callable, None],
    }

    def __init__(self, n_neighbors=5, *, weights="uniform", algorithm="auto",
                 leaf_size=30, p=2, metric="minkowski", metric_params=None,
                 n_jobs=None):
        self.n_neighbors = n_neighbors
        self.weights = weights
        self.algorithm = algorithm
        self.leaf_size = leaf_size
        self.p = p
        self.metric = metric
        self.metric_params = metric_params
        self.n_jobs = n_jobs

    def fit(self, X, y):
        """Store the training points and their targets.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features), or \
                (n_samples, n_samples) if metric="precomputed"
            Training points.
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets.

        Returns
        -------
        self : KNeighborsRegressor
            The fitted regressor.
        """
        validate_params(self)
        X, y = validate_data(self, X, y, dtype=FIT_DTYPES, order="C",
                             multi_output=True, y_numeric=True,
                             accept_sparse="csr")
        X = self._check_precomputed(keep_float32(X, self.metric))
        self._y = np.asarray(y, dtype=np.float64)
        return self._fit_index(X)

    def predict(self, X):
        """Mean (or weighted mean) target of the k nearest neighbours.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), or \
                (n_queries, n_samples_fit) if metric="precomputed", or None
            Query points; ``None``: the training points, each excluded from
            its own neighbours.

        Returns
        -------
        y : ndarray of shape (n_queries,) or (n_queries, n_outputs)
            Predicted targets.
        """
        dist, ind = self.kneighbors(X)
        w = neighbor_weights(dist, self.weights)
        y = self._y.reshape(self._y.shape[0], -1)
        if w is None:
            pred = np.mean(y[ind], axis=1)
        else:
            pred = np.einsum("qk,qko->qo", w, y[ind]) / w.sum(axis=1)[:, None]
        return pred.ravel() if self._y.ndim == 1 else pred
