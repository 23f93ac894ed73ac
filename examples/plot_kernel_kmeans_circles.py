"""
Kernel k-means on circles
=========================

k-means separates clusters by a straight line between the centroids, so it
cannot split two concentric circles. :class:`skml.cluster.KernelKMeans` (notes
A §7) runs the same Lloyd iterations in the feature space of an RBF kernel,
where the rings become separable. :class:`skml.cluster.KMeans` and
scikit-learn's ``KMeans`` are shown for comparison.
"""

import matplotlib.pyplot as plt
from sklearn import cluster as sk_cluster
from sklearn.datasets import make_circles
from sklearn.metrics import adjusted_rand_score

from skml.cluster import KernelKMeans, KMeans

X, y = make_circles(n_samples=400, factor=0.4, noise=0.05, random_state=0)
models = {
    "skml KMeans": KMeans(n_clusters=2, random_state=0),
    "scikit-learn KMeans": sk_cluster.KMeans(n_clusters=2, random_state=0),
    "skml KernelKMeans (RBF, gamma=5)": KernelKMeans(n_clusters=2, kernel="rbf", gamma=5.0,
                                                     n_init=5, random_state=0),
}

fig, axes = plt.subplots(1, 3, figsize=(12, 4))
for ax, (name, model) in zip(axes, models.items()):
    labels = model.fit_predict(X)
    ax.scatter(X[:, 0], X[:, 1], c=labels, cmap="coolwarm", s=10)
    ax.set_title(f"{name}\nARI = {adjusted_rand_score(y, labels):.2f}", fontsize=10)
    ax.set_aspect("equal")
fig.tight_layout()
