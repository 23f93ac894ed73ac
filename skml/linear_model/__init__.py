"""Linear models: least squares, ridge, lasso, perceptron, logistic regression, SGD."""

# One import line per estimator module (kept sorted).

__all__ = []
