"""k-nearest-neighbour regression (notes A §5.1)."""

import numpy as np
from sklearn.base import RegressorMixin

from ..utils._docstrings import fill_doc
from ._base import (
    K_NEIGHBORS_DOC,
    K_NEIGHBORS_METHOD_DOC,
    KNeighborsMixin,
    KNeighborsPredictorBase,
    neighbor_weights,
)

__all__ = ["KNeighborsRegressor"]


@fill_doc(**K_NEIGHBORS_DOC)
class KNeighborsRegressor(KNeighborsMixin, RegressorMixin, KNeighborsPredictorBase):
    """Regression by the (weighted) mean target of the k nearest training points.

    The k-NN rule of notes A §5.1 with a mean in place of the vote: a
    non-parametric model whose parameter is the dataset. Neighbours come from
    brute force, a KD-tree or ball tree (§5.2), or approximately from an LSH
    index (§5.7, ``algorithm="lsh"``).

    Parameters
    ----------
    n_neighbors : int, default=5
        Number of neighbours k.
    weights : {"uniform", "distance"}, callable or None, default="uniform"
        Weights of the mean: equal; ``1 / distance`` (a query at distance 0
        from training points takes their mean only); or a function mapping
        the (n_queries, k) distances to weights of the same shape.
    <kneighbors parameters>

    Attributes
    ----------
    <kneighbors attributes>

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

    @fill_doc(parameters=K_NEIGHBORS_METHOD_DOC["fit"])
    def fit(self, X, y):
        """Store the training points and their targets.

        <parameters>
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Targets.

        Returns
        -------
        self : KNeighborsRegressor
            The fitted regressor.
        """
        X, y = self._training_data(X, y, y_numeric=True)
        self._y = np.asarray(y, dtype=np.float64)
        return self._fit_index(X)

    @fill_doc(sections=K_NEIGHBORS_METHOD_DOC["predict"])
    def predict(self, X):
        """Mean (or weighted mean) target of the k nearest neighbours.

        <sections>
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
