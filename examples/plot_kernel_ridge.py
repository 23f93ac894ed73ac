"""
Kernel ridge regression and the kernels
=======================================

:class:`skml.kernel_ridge.KernelRidge` solves :math:`(K + \\alpha I) a = y` for
the dual coefficients with a kernel from :mod:`skml.metrics.pairwise`. Left:
fits of a noisy sine with the linear, polynomial, RBF and Laplacian kernels,
scikit-learn's ``KernelRidge`` with the RBF kernel dashed; right: the RBF
kernel matrix :func:`skml.metrics.pairwise.pairwise_kernels` of the sorted
inputs.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn import kernel_ridge as sk_kernel_ridge

from skml.kernel_ridge import KernelRidge
from skml.metrics.pairwise import pairwise_kernels

rng = np.random.RandomState(0)
X = np.sort(rng.uniform(0, 6, 60))[:, None]
y = np.sin(X).ravel() + rng.normal(0, 0.2, len(X))
grid = np.linspace(0, 6, 300)[:, None]

fig, (ax, ax_k) = plt.subplots(1, 2, figsize=(11, 4), gridspec_kw={"width_ratios": [1.6, 1]})
ax.plot(X, y, "o", color="0.6", ms=3)
for kernel, params in [("linear", {}), ("poly", {"degree": 3}), ("rbf", {"gamma": 1.0}),
                       ("laplacian", {"gamma": 1.0})]:
    model = KernelRidge(alpha=0.1, kernel=kernel, **params).fit(X, y)
    ax.plot(grid, model.predict(grid), label=f"skml, {kernel}")
sk = sk_kernel_ridge.KernelRidge(alpha=0.1, kernel="rbf", gamma=1.0).fit(X, y)
ax.plot(grid, sk.predict(grid), "k--", lw=1, label="scikit-learn, rbf")
ax.legend(fontsize=8)
ax.set_title("KernelRidge(alpha=0.1)")
image = ax_k.imshow(pairwise_kernels(X, metric="rbf", gamma=1.0), cmap="viridis")
fig.colorbar(image, ax=ax_k)
ax_k.set_title("RBF kernel matrix (gamma=1)")
fig.tight_layout()
