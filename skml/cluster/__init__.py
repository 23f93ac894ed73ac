"""Clustering: agglomerative (linkage), k-means (Lloyd, Hamerly), kernel k-means, spectral clustering (notes A §7, notes B §10)."""

# One import line per estimator module (kept sorted).
from ._agglomerative import AgglomerativeClustering
from ._graph import (
    cut,
    graph_laplacian,
    normalized_cut,
    ratio_cut,
    similarity_graph,
)
from ._kernel_kmeans import KernelKMeans
from ._kmeans import KMeans, kmeans_plusplus
from ._spectral import SpectralClustering

__all__ = [
    "AgglomerativeClustering",
    "KMeans",
    "KernelKMeans",
    "SpectralClustering",
    "cut",
    "graph_laplacian",
    "kmeans_plusplus",
    "normalized_cut",
    "ratio_cut",
    "similarity_graph",
]

from skml.utils._doc_link import link_docs as _link_docs  # noqa: E402
_link_docs(__name__)  # the "?" docs link of the HTML repr
