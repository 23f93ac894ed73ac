"""
PCA: explained variance and the first two components
====================================================

:class:`skml.decomposition.PCA` (notes A §4) on digits: the cumulative
explained variance ratio beside scikit-learn's (the same numbers), and the
digits projected on the first two principal components. Components are
defined up to sign; both libraries fix it the same way.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn import decomposition as sk_decomposition
from sklearn.datasets import load_digits

from skml.decomposition import PCA

X, y = load_digits(return_X_y=True)
ours = PCA().fit(X)
theirs = sk_decomposition.PCA().fit(X)

fig, (ax_var, ax_proj) = plt.subplots(1, 2, figsize=(11, 4.2))
ax_var.plot(np.cumsum(ours.explained_variance_ratio_), label="skml")
ax_var.plot(np.cumsum(theirs.explained_variance_ratio_), "--", label="scikit-learn")
ax_var.set_xlabel("number of components")
ax_var.set_ylabel("cumulative explained variance ratio")
ax_var.legend()
Z = ours.transform(X)
points = ax_proj.scatter(Z[:, 0], Z[:, 1], c=y, cmap="tab10", s=5)
fig.colorbar(points, ax=ax_proj, ticks=range(10))
ax_proj.set_xlabel("PC 1")
ax_proj.set_ylabel("PC 2")
ax_proj.set_title("digits on the first two components (skml)")
fig.tight_layout()
print("largest |projection difference|:", np.abs(Z - theirs.transform(X)).max().round(8))
