"""Exact nearest neighbours: brute force and KD-tree (notes A §5.1-5.3)."""

# One import line per estimator module (kept sorted).
from ._classification import KNeighborsClassifier
from ._kd_tree import KDTree
from ._lsh import LSHKNeighborsTransformer, LSHNearestNeighbors
from ._regression import KNeighborsRegressor
from ._unsupervised import NearestNeighbors

__all__ = ["KDTree", "KNeighborsClassifier", "KNeighborsRegressor",
           "LSHKNeighborsTransformer", "LSHNearestNeighbors", "NearestNeighbors"]
