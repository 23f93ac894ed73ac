"""
Kernel logistic regression on circles
=====================================

Two rings cannot be split by a line: :class:`skml.linear_model.LogisticRegression`
(left) is no better than chance. :class:`skml.kernel_ridge.KernelLogisticRegression`
(notes B §5.10) fits the same log-loss to the representer form
:math:`f(x) = \\sum_n a_n k(x_n, x) + b`; with the RBF kernel (right) its
probability contours follow the rings. The test accuracy is in each title.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_circles
from sklearn.model_selection import train_test_split

from skml.kernel_ridge import KernelLogisticRegression
from skml.linear_model import LogisticRegression

X, y = make_circles(n_samples=300, factor=0.4, noise=0.12, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)

models = {"LogisticRegression": LogisticRegression(),
          "KernelLogisticRegression (rbf)": KernelLogisticRegression(kernel="rbf", C=1.0)}
xx, yy = np.meshgrid(np.linspace(-1.6, 1.6, 150), np.linspace(-1.6, 1.6, 150))
grid = np.c_[xx.ravel(), yy.ravel()]

fig, axes = plt.subplots(1, 2, figsize=(9, 4.2), sharey=True)
for ax, (name, model) in zip(axes, models.items()):
    model.fit(X_train, y_train)
    proba = model.predict_proba(grid)[:, 1].reshape(xx.shape)
    ax.contourf(xx, yy, proba, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.7)
    ax.contour(xx, yy, proba, levels=[0.5], colors="k", linewidths=1)
    ax.scatter(X_test[:, 0], X_test[:, 1], c=y_test, cmap="RdBu_r", s=12, edgecolors="k",
               linewidths=0.3)
    ax.set_title(f"{name}: {model.score(X_test, y_test):.2f}")
    ax.set_aspect("equal")
fig.tight_layout()
