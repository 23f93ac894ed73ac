"""Clustering: k-means by Lloyd's algorithm (notes A §7.2, notes B §10.3)."""

# One import line per estimator module (kept sorted).
from ._kmeans import KMeans, kmeans_plusplus

__all__ = ["KMeans", "kmeans_plusplus"]
