"""Exact nearest neighbours: brute force, KD-tree and ball tree (notes A §5.1-5.3)."""

# One import line per estimator module (kept sorted).
from ._ball_tree import BallTree
from ._classification import KNeighborsClassifier
from ._kd_tree import KDTree
from ._lsh import LSHKNeighborsTransformer, LSHNearestNeighbors
from ._regression import KNeighborsRegressor
from ._unsupervised import NearestNeighbors

__all__ = ["BallTree", "KDTree", "KNeighborsClassifier", "KNeighborsRegressor",
           "LSHKNeighborsTransformer", "LSHNearestNeighbors", "NearestNeighbors"]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
