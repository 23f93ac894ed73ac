"""k-nearest-neighbour classification (notes A §5.1)."""

import warnings

import numpy as np
from sklearn.base import ClassifierMixin
from sklearn.exceptions import DataConversionWarning

from ..utils import encode_labels
from ..utils._docstrings import fill_doc
from ._base import (
    COVER_HART_REFERENCES_DOC,
    K_NEIGHBORS_DOC,
    K_NEIGHBORS_METHOD_DOC,
    KNeighborsMixin,
    KNeighborsPredictorBase,
    neighbor_weights,
)

__all__ = ["KNeighborsClassifier"]


def _column_targets(y):
    """y as (n_samples, n_outputs), and whether it was 2-d (warns for a column)."""
    if y.ndim == 2 and y.shape[1] == 1:
        warnings.warn(
            "A column-vector y was passed when a 1d array was expected. Please "
            "change the shape of y to (n_samples,), for example using ravel().",
            DataConversionWarning,
            stacklevel=3,
        )
    outputs_2d = y.ndim == 2 and y.shape[1] > 1
    return (y if y.ndim == 2 else y.reshape(-1, 1)), outputs_2d


@fill_doc(**K_NEIGHBORS_DOC, references=COVER_HART_REFERENCES_DOC)
class KNeighborsClassifier(KNeighborsMixin, ClassifierMixin, KNeighborsPredictorBase):
    """Classifier by vote of the k nearest training points.

    The notes' k-NN rule (notes A §5.1): "the dataset is the parameter";
    a query takes the majority label of its k nearest training points. The
    notes give no weighting or tie rule; here the vote can be weighted
    (``weights``) and a tie goes to the smallest class label, as in
    scikit-learn. Neighbours come from brute force, a KD-tree or ball tree
    (§5.2), or approximately from an LSH index (§5.7, ``algorithm="lsh"``).

    Parameters
    ----------
    n_neighbors : int, default=5
        Number of neighbours k.
    weights : {"uniform", "distance"}, callable or None, default="uniform"
        Vote weights: equal; ``1 / distance`` (a query at distance 0 from
        training points takes their vote only); or a function mapping the
        (n_queries, k) array of distances to weights of the same shape.
    <kneighbors parameters>

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,) or list of such arrays
        Class labels (one array per output when y is 2-d).
    <kneighbors attributes>
    outputs_2d_ : bool
        Whether y had several columns at fit.

    See Also
    --------
    KNeighborsRegressor : The regression counterpart.
    NearestNeighbors : The underlying search.

    Notes
    -----
    Fit only stores (and, for the tree, indexes) the data: O(n d log n) for
    the tree, O(n d) otherwise. Prediction costs one k-nearest search (see
    :class:`NearestNeighbors`) plus an O(n_queries k) weighted count per
    class. Equal distances are ordered by training index, so which of several
    equidistant k-th neighbours votes is deterministic. Cover and Hart's
    bound: as n grows, the 1-NN error is at most twice the Bayes error.

    <references>

    Examples
    --------
    >>> from skml.neighbors import KNeighborsClassifier
    >>> X = [[0.0], [1.0], [2.0], [3.0]]
    >>> y = [0, 0, 1, 1]
    >>> clf = KNeighborsClassifier(n_neighbors=3).fit(X, y)
    >>> clf.predict([[1.1]])
    array([0])
    >>> clf.predict_proba([[0.9]]).round(3)
    array([[0.667, 0.333]])
    """

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.classifier_tags.multi_label = True
        return tags

    @fill_doc(parameters=K_NEIGHBORS_METHOD_DOC["fit"])
    def fit(self, X, y):
        """Store the training points and their labels.

        <parameters>
        y : array-like of shape (n_samples,) or (n_samples, n_outputs)
            Class labels (any hashable labels).

        Returns
        -------
        self : KNeighborsClassifier
            The fitted classifier.
        """
        X, y = self._training_data(X, y)
        y2d, self.outputs_2d_ = _column_targets(np.asarray(y))
        # One class is valid (scikit-learn's too): every vote goes to it.
        classes, codes = zip(*(encode_labels(col, min_classes=1) for col in y2d.T))
        self.classes_ = list(classes) if self.outputs_2d_ else classes[0]
        self._y = np.stack(codes, axis=1)
        return self._fit_index(X)

    def _class_scores(self, X):
        """Per output: (n_queries, n_classes) sums of the neighbours' weights."""
        dist, ind = self.kneighbors(X)
        w = neighbor_weights(dist, self.weights)
        if w is None:
            w = np.ones_like(dist)
        elif np.any(np.all(w == 0, axis=1)):
            raise ValueError(
                "All neighbors of some sample is getting zero weights. Please "
                "modify 'weights' to avoid this case if you are using a "
                "user-defined function."
            )
        n_q = ind.shape[0]
        classes = self.classes_ if self.outputs_2d_ else [self.classes_]
        scores = []
        for out, classes_k in enumerate(classes):
            n_classes = len(classes_k)
            # Row-major flattening adds each row's weights in neighbour order.
            cells = (np.arange(n_q)[:, None] * n_classes + self._y[ind, out]).ravel()
            counts = np.bincount(cells, weights=w.ravel(), minlength=n_q * n_classes)
            scores.append(counts.reshape(n_q, n_classes))
        return classes, scores

    @fill_doc(sections=K_NEIGHBORS_METHOD_DOC["predict"])
    def predict(self, X):
        """Majority (or weighted) vote of the k nearest neighbours.

        <sections>
            Predicted labels; a tied vote goes to the smallest label.
        """
        classes, scores = self._class_scores(X)
        labels = [c[np.argmax(s, axis=1)] for c, s in zip(classes, scores)]
        return np.stack(labels, axis=1) if self.outputs_2d_ else labels[0]

    def predict_proba(self, X):
        """Weighted share of each class among the k nearest neighbours.

        Parameters
        ----------
        X : array-like of shape (n_queries, n_features), or \
                (n_queries, n_samples_fit) if metric="precomputed", or None
            Query points, as in :meth:`predict`.

        Returns
        -------
        proba : ndarray of shape (n_queries, n_classes) or list of such arrays
            Class probabilities, columns in the order of ``classes_``.
        """
        _, scores = self._class_scores(X)
        probas = [s / s.sum(axis=1, keepdims=True) for s in scores]
        return probas if self.outputs_2d_ else probas[0]
