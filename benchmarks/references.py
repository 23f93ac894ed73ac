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
