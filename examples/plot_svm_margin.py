"""
SVM margin and support vectors
==============================

:class:`skml.svm.SVC` trained by SMO (notes A §1, B §5) on two 2-d blobs with a
linear kernel: the decision boundary :math:`w^\\top x + b = 0`, the margins
:math:`w^\\top x + b = \\pm 1`, and the support vectors circled. scikit-learn's
``SVC`` (libsvm) is fitted beside it; both solve the same dual problem, so the
boundaries coincide and the support vectors are the same points.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn import svm as sk_svm
from sklearn.datasets import make_blobs

from skml.svm import SVC

X, y = make_blobs(n_samples=80, centers=[[0, 0], [3, 3]], cluster_std=1.0, random_state=0)

models = {"skml SVC": SVC(kernel="linear", C=1.0), "scikit-learn SVC": sk_svm.SVC(kernel="linear", C=1.0)}
xx, yy = np.meshgrid(np.linspace(X[:, 0].min() - 1, X[:, 0].max() + 1, 200),
                     np.linspace(X[:, 1].min() - 1, X[:, 1].max() + 1, 200))
grid = np.c_[xx.ravel(), yy.ravel()]

fig, axes = plt.subplots(1, 2, figsize=(9, 4), sharey=True)
for ax, (name, model) in zip(axes, models.items()):
    model.fit(X, y)
    z = model.decision_function(grid).reshape(xx.shape)
    ax.contourf(xx, yy, z, levels=[-100, -1, 0, 1, 100], colors=["#f4c2c2", "#fbe3e3", "#dde8f6", "#b8cfee"])
    ax.contour(xx, yy, z, levels=[-1, 0, 1], colors="k", linestyles=["--", "-", "--"], linewidths=1)
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="coolwarm", s=20, edgecolors="k", linewidths=0.3)
    sv = model.support_vectors_
    ax.scatter(sv[:, 0], sv[:, 1], s=120, facecolors="none", edgecolors="k", linewidths=1.2)
    ax.set_title(f"{name}: {len(sv)} support vectors")
fig.tight_layout()

# %%
# The two solutions agree to the solver's tolerance.
a, b = models.values()
print("largest |w_skml - w_sklearn|:", np.abs(a.coef_ - b.coef_).max().round(3))
print("same support vectors:", set(a.support_) == set(b.support_))
