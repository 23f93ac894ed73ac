"""skml: classical machine-learning algorithms from scratch, as scikit-learn estimators.

Subpackages mirror scikit-learn's (``skml.linear_model``, ``skml.svm``,
``skml.tree``, ``skml.ensemble``, ``skml.neighbors``, ``skml.cluster``, ...);
``skml.optim`` holds the gradient optimisers shared by the iterative
estimators, ``skml.metrics.pairwise`` the shared kernels and distances, and
``skml.utils`` the validation and discovery helpers. Every estimator drops
into ``Pipeline`` and ``GridSearchCV``.
"""

__version__ = "0.1.0.dev0"
