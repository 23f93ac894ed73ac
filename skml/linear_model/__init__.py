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

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
