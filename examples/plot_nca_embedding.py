"""
Metric learning: NCA against PCA
================================

:class:`skml.metric_learning.NeighborhoodComponentsAnalysis` (notes A §6) learns
a linear map under which a stochastic nearest neighbour classifies the training
set well. Projected to two dimensions, it separates the digit classes that PCA,
which ignores the labels, mixes; the legend gives the accuracy of a
:class:`skml.neighbors.KNeighborsClassifier` (3 neighbours) in each plane on
held-out digits.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

from skml.decomposition import PCA
from skml.metric_learning import NeighborhoodComponentsAnalysis
from skml.neighbors import KNeighborsClassifier

X, y = load_digits(return_X_y=True)
X_train, X_test, y_train, y_test = train_test_split(X[:800], y[:800], random_state=0)

fig, axes = plt.subplots(1, 2, figsize=(10, 4.3))
for ax, (name, reducer) in zip(axes, [
        ("PCA", PCA(n_components=2)),
        ("NCA", NeighborhoodComponentsAnalysis(n_components=2, max_iter=30, random_state=0))]):
    pipe = make_pipeline(StandardScaler(), reducer, KNeighborsClassifier(3)).fit(X_train, y_train)
    Z = pipe[:-1].transform(X_test)
    ax.scatter(Z[:, 0], Z[:, 1], c=y_test, cmap="tab10", s=8)
    ax.set_title(f"{name}, 2 dimensions: 3-NN test accuracy {pipe.score(X_test, y_test):.2f}")
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
