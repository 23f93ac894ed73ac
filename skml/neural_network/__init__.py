"""Neural networks: multilayer perceptrons for classification and regression."""

# One import line per estimator module (kept sorted).
from ._multilayer_perceptron import MLPClassifier, MLPRegressor

__all__ = ["MLPClassifier", "MLPRegressor"]
