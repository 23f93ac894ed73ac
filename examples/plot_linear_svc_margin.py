"""
Soft margin: LinearSVC and the penalty C
========================================

:class:`skml.svm.LinearSVC` with the notes' hinge loss (notes A §1.2-1.3,
B §5.4) on two overlapping blobs, for three values of ``C``. The solid line is
the boundary :math:`\\langle w, x\\rangle + b = 0`, the dashed lines the margins
:math:`\\pm 1`, of width :math:`2/\\lVert w\\rVert`; circled points are inside
their margin or misclassified (:math:`y_i f(x_i) < 1`). A small ``C`` buys a
wide margin with many violations, a large ``C`` the reverse.
scikit-learn's ``LinearSVC`` (liblinear) on the same problem is drawn in grey
dots: both minimise the same primal, so the lines coincide.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn import svm as sk_svm
from sklearn.datasets import make_blobs

from skml.svm import LinearSVC

X, y = make_blobs(n_samples=120, centers=[[0, 0], [2.5, 2.5]], cluster_std=1.1,
                  random_state=1)
xx, yy = np.meshgrid(np.linspace(X[:, 0].min() - 1, X[:, 0].max() + 1, 150),
                     np.linspace(X[:, 1].min() - 1, X[:, 1].max() + 1, 150))
grid = np.c_[xx.ravel(), yy.ravel()]
signs = np.where(y == 1, 1.0, -1.0)

fig, axes = plt.subplots(1, 3, figsize=(12, 4), sharey=True)
for ax, C in zip(axes, [0.01, 0.1, 10.0]):
    model = LinearSVC(loss="hinge", C=C, max_iter=10_000).fit(X, y)
    peer = sk_svm.LinearSVC(loss="hinge", C=C, max_iter=100_000, dual=True).fit(X, y)
    z = model.decision_function(grid).reshape(xx.shape)
    ax.contourf(xx, yy, z, levels=[-100, -1, 0, 1, 100],
                colors=["#f4c2c2", "#fbe3e3", "#dde8f6", "#b8cfee"])
    ax.contour(xx, yy, z, levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"],
               linewidths=1)
    ax.contour(xx, yy, peer.decision_function(grid).reshape(xx.shape), levels=[0],
               colors="0.4", linestyles=":", linewidths=2)
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=18, edgecolors="k",
               linewidths=0.3)
    inside = signs * model.decision_function(X) < 1
    ax.scatter(X[inside, 0], X[inside, 1], s=90, facecolors="none", edgecolors="k",
               linewidths=0.8)
    width = 2 / np.linalg.norm(model.coef_)
    ax.set_title(f"C={C:g}: margin {width:.2f}, {inside.sum()} inside")
fig.tight_layout()

# %%
# The margin shrinks as ``C`` grows, and so does the number of points inside it.
