"""
Gaussian process regression
===========================

:class:`skml.gaussian_process.GaussianProcessRegressor` (notes A §11.1) with a
constant times RBF kernel plus white noise, its hyperparameters set by
maximising the log marginal likelihood. The posterior mean and a
two-standard-deviation band on noisy samples of :math:`x \\sin x`, beside
scikit-learn's regressor with the same kernel.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn import gaussian_process as sk_gp
from sklearn.gaussian_process import kernels as sk_kernels

from skml.gaussian_process import GaussianProcessRegressor
from skml.gaussian_process.kernels import RBF, ConstantKernel, WhiteKernel

rng = np.random.RandomState(0)
X = np.sort(rng.uniform(0, 10, 25))[:, None]
y = (X * np.sin(X)).ravel() + rng.normal(0, 0.5, len(X))
grid = np.linspace(0, 10, 300)[:, None]

models = {
    "skml": GaussianProcessRegressor(
        ConstantKernel(1.0) * RBF(1.0) + WhiteKernel(0.1), n_restarts_optimizer=2, random_state=0),
    "scikit-learn": sk_gp.GaussianProcessRegressor(
        sk_kernels.ConstantKernel(1.0) * sk_kernels.RBF(1.0) + sk_kernels.WhiteKernel(0.1),
        n_restarts_optimizer=2, random_state=0),
}
fig, axes = plt.subplots(1, 2, figsize=(11, 4), sharey=True)
for ax, (name, gp) in zip(axes, models.items()):
    gp.fit(X, y)
    mean, std = gp.predict(grid, return_std=True)
    ax.plot(grid, grid * np.sin(grid), "k:", label=r"$x \sin x$")
    ax.plot(grid, mean, color="C0", label="posterior mean")
    ax.fill_between(grid.ravel(), mean - 2 * std, mean + 2 * std, color="C0", alpha=0.2,
                    label="mean ± 2 std")
    ax.plot(X, y, "o", color="C1", ms=4, label="observations")
    ax.set_title(f"{name} GaussianProcessRegressor")
    print(f"{name}: {gp.kernel_}")
axes[0].legend(fontsize=8)
fig.tight_layout()
