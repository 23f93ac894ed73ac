"""
Spectral clustering on two moons
================================

:class:`skml.cluster.SpectralClustering` (notes A §7) embeds the points with the
eigenvectors of a graph Laplacian (here of a k-nearest-neighbour graph) and runs
k-means there. The random-walk and symmetric normalised Laplacians both separate
the moons, which k-means on the raw coordinates cuts in half. scikit-learn's
``SpectralClustering`` with the same graph is on the right.
"""

import matplotlib.pyplot as plt
from sklearn import cluster as sk_cluster
from sklearn.datasets import make_moons
from sklearn.metrics import adjusted_rand_score

from skml.cluster import KMeans, SpectralClustering

X, y = make_moons(n_samples=400, noise=0.07, random_state=0)
models = {
    "skml KMeans": KMeans(n_clusters=2, random_state=0),
    'skml Spectral, laplacian="rw"': SpectralClustering(
        n_clusters=2, affinity="nearest_neighbors", n_neighbors=10, laplacian="rw",
        random_state=0),
    'skml Spectral, laplacian="sym"': SpectralClustering(
        n_clusters=2, affinity="nearest_neighbors", n_neighbors=10, laplacian="sym",
        random_state=0),
    "scikit-learn Spectral": sk_cluster.SpectralClustering(
        n_clusters=2, affinity="nearest_neighbors", n_neighbors=10, random_state=0),
}
fig, axes = plt.subplots(1, 4, figsize=(14, 3.4))
for ax, (name, model) in zip(axes, models.items()):
    labels = model.fit_predict(X)
    ax.scatter(X[:, 0], X[:, 1], c=labels, cmap="coolwarm", s=6)
    ax.set_title(f"{name}\nARI {adjusted_rand_score(y, labels):.2f}", fontsize=9)
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
