"""Linear models: least squares, ridge, lasso, perceptron, logistic regression, SGD."""

# One import line per estimator module (kept sorted).
from ._lasso import Lasso
from ._least_squares import LinearRegression
from ._logistic import LogisticRegression
from ._perceptron import Perceptron
from ._ridge import Ridge
from ._stochastic_gradient import SGDClassifier, SGDRegressor

__all__ = [
    "Lasso",
    "LinearRegression",
    "LogisticRegression",
    "Perceptron",
    "Ridge",
    "SGDClassifier",
    "SGDRegressor",
]
