"""Decision trees: CART, ID3 and C4.5 classifiers, least-squares and LAD regressors.

One builder (``skml.tree._tree.grow_tree``) grows every tree, and will be
shared with the forests and gradient boosting. ``export_text`` and
``plot_tree`` show a fitted tree.
"""

# One import line per estimator module (kept sorted).
from ._classes import DecisionTreeClassifier, DecisionTreeRegressor
from ._export import export_text, plot_tree

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "export_text", "plot_tree"]
