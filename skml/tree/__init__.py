"""Decision trees: CART, ID3 and C4.5 classifiers, least-squares and LAD regressors.

One builder (``skml.tree._tree.grow_tree``) grows every tree, and will be
shared with the forests and gradient boosting.
"""

# One import line per estimator module (kept sorted).
from ._classes import DecisionTreeClassifier, DecisionTreeRegressor

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor"]
