"""skml: classical machine-learning algorithms from scratch, as scikit-learn estimators.

Subpackages mirror scikit-learn's: ``skml.linear_model``, ``skml.preprocessing``,
``skml.optim`` (gradient optimisers shared by the iterative estimators) and
``skml.utils``. Every estimator drops into ``Pipeline`` and ``GridSearchCV``.
"""

__version__ = "0.1.0.dev0"
