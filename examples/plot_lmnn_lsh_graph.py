"""
LMNN for k-NN, and an LSH neighbour graph for scikit-learn
==========================================================

Left: :class:`skml.metric_learning.LargeMarginNearestNeighbor` (notes A §6.2)
learns a linear map under which each digit's three nearest same-class neighbours
come closer than any digit of another class, by a margin. Left and centre: 500
test digits mapped to the plane by PCA and by LMNN (started from PCA, trained on
500 other digits); the titles give the 3-NN test accuracy
(:class:`skml.neighbors.KNeighborsClassifier`) in each plane.

Right: :class:`skml.neighbors.LSHKNeighborsTransformer` (notes A §5.7) builds an
approximate 10-nearest-neighbour graph of the digits by locality-sensitive
hashing, as a sparse matrix that scikit-learn's ``Isomap`` takes with
``metric="precomputed"``: the graph replaces Isomap's exact neighbour search.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.manifold import Isomap
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline

from skml.decomposition import PCA
from skml.metric_learning import LargeMarginNearestNeighbor
from skml.neighbors import KNeighborsClassifier, LSHKNeighborsTransformer

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X[:1000] / 16.0, y[:1000], test_size=0.5,
                                                    random_state=0)
fig, axes = plt.subplots(1, 3, figsize=(15, 4.3))
for ax, (name, reducer) in zip(axes[:2], [
        ("PCA", PCA(n_components=2)),
        ("LMNN", LargeMarginNearestNeighbor(n_neighbors=3, n_components=2, max_iter=100,
                                             random_state=0))]):
    model = make_pipeline(reducer, KNeighborsClassifier(3))
    model.fit(X_train, y_train)
    Z = model[:-1].transform(X_test)
    ax.scatter(Z[:, 0], Z[:, 1], c=y_test, cmap="tab10", s=6)
    ax.set_title(f"digits, {name} to 2-d: 3-NN test accuracy {model.score(X_test, y_test):.2f}",
                 fontsize=10)
full = KNeighborsClassifier(3).fit(X_train, y_train)
axes[0].set_xlabel(f"(all 64 pixels: {full.score(X_test, y_test):.2f})")

digits, labels = load_digits(return_X_y=True)
digits, labels = digits[:1000] / 16.0, labels[:1000]
graph = LSHKNeighborsTransformer(n_neighbors=10, n_tables=16, n_hashes=6, bucket_width=1.5,
                                 random_state=0).fit_transform(digits)
embedding = Isomap(n_neighbors=10, metric="precomputed").fit_transform(graph)
points = axes[2].scatter(embedding[:, 0], embedding[:, 1], c=labels, cmap="tab10", s=6)
axes[2].set_title("digits: scikit-learn's Isomap on skml's LSH 10-NN graph", fontsize=10)
fig.colorbar(points, ax=axes[2], label="digit", ticks=range(10))
for ax in axes:
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
