"""Decision trees: CART, ID3 and C4.5 classifiers, least-squares and LAD regressors.

One builder (``skml.tree._tree.grow_tree``) grows every tree, and will be
shared with the forests and gradient boosting. ``export_text`` and
``plot_tree`` show a fitted tree; the split criteria are public functions.
"""

# One import line per estimator module (kept sorted).
from ._classes import (
    DecisionTreeClassifier,
    DecisionTreeRegressor,
    ExtraTreeClassifier,
    ExtraTreeRegressor,
)
from ._criteria import (
    entropy,
    gain_ratio,
    gini_impurity,
    information_gain,
    weighted_gini,
)
from ._export import export_text, plot_tree

__all__ = ["DecisionTreeClassifier", "DecisionTreeRegressor", "ExtraTreeClassifier",
           "ExtraTreeRegressor", "entropy", "export_text",
           "gain_ratio", "gini_impurity", "information_gain", "plot_tree",
           "weighted_gini"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
