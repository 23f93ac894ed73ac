"""Small numpy reference estimators for skml classes without a scikit-learn peer.

Each is the textbook formula in a few lines, deliberately unoptimised, so the
benchmark can compare outputs and time against a plain implementation. They
validate their input as any scikit-learn transformer does, so that the timing
compares the computation rather than the fixed cost of ``validate_data``.
"""

import numpy as np
from sklearn.base import BaseEstimator, TransformerMixin
from sklearn.utils.validation import validate_data


class MeanNormalizerReference(TransformerMixin, BaseEstimator):
    """Notes B §1.3 (c): ``(x - mean) / (max - min)``, constant columns by 1."""

    def fit(self, X, y=None):
        X = validate_data(self, X, dtype=np.float64)
        self.mean_ = X.mean(axis=0)
        data_range = X.max(axis=0) - X.min(axis=0)
        self.scale_ = np.where(data_range == 0, 1.0, data_range)
        return self

    def transform(self, X):
        X = validate_data(self, X, dtype=np.float64, reset=False)
        return (X - self.mean_) / self.scale_


class QuadraticFeatureMapReference(TransformerMixin, BaseEstimator):
    """Notes B §1.5 (D1): ``[vec(x x^T); sqrt(2 c) x; c]`` by numpy broadcasting."""

    def __init__(self, coef0=1.0):
        self.coef0 = coef0

    def fit(self, X, y=None):
        validate_data(self, X, dtype=np.float64)
        return self

    def transform(self, X):
        X = validate_data(self, X, dtype=np.float64, reset=False)
        n = X.shape[0]
        outer = (X[:, :, None] * X[:, None, :]).reshape(n, -1)
        return np.hstack([outer, np.sqrt(2.0 * self.coef0) * X,
                          np.full((n, 1), self.coef0)])


class DistanceToAnchorsReference(TransformerMixin, BaseEstimator):
    """Distances to fixed anchors by scikit-learn's pairwise distances."""

    def __init__(self, anchors=None, p=2):
        self.anchors = anchors
        self.p = p

    def fit(self, X, y=None):
        validate_data(self, X, dtype=np.float64)
        return self

    def transform(self, X):
        from sklearn.metrics.pairwise import euclidean_distances, manhattan_distances

        X = validate_data(self, X, dtype=np.float64, reset=False)
        distance = euclidean_distances if self.p == 2 else manhattan_distances
        return distance(X, np.asarray(self.anchors, dtype=np.float64))
