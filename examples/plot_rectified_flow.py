"""
Rectified flow: samples from two moons
======================================

:class:`skml.generative.RectifiedFlow` (notes A §13) learns a velocity field that
carries Gaussian noise to the data along nearly straight paths, and samples by
integrating it with Euler steps. The straighter the paths, the fewer steps a
sample needs: the panels show the same noise pushed forward with 1, 3 and 50
steps.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import make_moons

from skml.generative import RectifiedFlow

X, _ = make_moons(n_samples=1000, noise=0.06, random_state=0)
flow = RectifiedFlow(hidden_layer_sizes=(64, 64), max_iter=100, batch_size=64,
                     learning_rate_init=0.003, n_steps=50,
                     random_state=0).fit(X)

fig, axes = plt.subplots(1, 4, figsize=(13, 3.4), sharex=True, sharey=True)
axes[0].scatter(X[:, 0], X[:, 1], s=3)
axes[0].set_title("data: two moons")
for ax, n_steps in zip(axes[1:], [1, 3, 50]):
    samples = flow.sample(1000, n_steps=n_steps)
    ax.scatter(samples[:, 0], samples[:, 1], s=3, color="C1")
    ax.set_title(f"samples, {n_steps} Euler step{'s' if n_steps > 1 else ''}")
fig.tight_layout()
