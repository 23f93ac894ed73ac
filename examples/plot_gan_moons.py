"""
A GAN on two half moons, and the game at its optimum
====================================================

:class:`skml.generative.GAN` (notes B §7.7) trains a generator (two hidden
layers of 64 units, 2-d Gaussian latent draws) against a discriminator on 1000
points of two half moons. Left: the training data and 1000 draws of
:meth:`~skml.generative.GAN.sample`, on the discriminator's logit
(:meth:`~skml.generative.GAN.score_samples`, positive where it takes a point for
data). Centre: the value of the game :math:`V(G, D)` along the training,
which approaches :math:`-\\log 4` as the two players balance.

Right, the theory of the same section on the line: for data :math:`N(0, 1)` and a
generator :math:`N(\\mu, 1)`, :func:`skml.generative.optimal_discriminator`
gives :math:`D^* = p_{data} / (p_{data} + p_g)`, and
:func:`skml.generative.gan_value_at_optimum` gives
:math:`V(G, D^*) = -\\log 4 + 2\\,\\mathrm{JSD}(p_{data} \\| p_g)`, smallest
exactly when :math:`\\mu = 0`.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import norm
from sklearn.datasets import make_moons

from skml.generative import GAN, gan_value_at_optimum, optimal_discriminator

X, _ = make_moons(n_samples=1000, noise=0.05, random_state=0)
gan = GAN(latent_dim=2, max_iter=150, batch_size=64, learning_rate_init=0.002,
          random_state=0).fit(X)
samples = gan.sample(1000)

fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
xx, yy = np.meshgrid(np.linspace(-1.5, 2.5, 120), np.linspace(-1.0, 1.5, 90))
logit = gan.score_samples(np.c_[xx.ravel(), yy.ravel()]).reshape(xx.shape)
limit = np.abs(logit).max()
axes[0].contourf(xx, yy, logit, levels=15, cmap="RdBu_r", vmin=-limit, vmax=limit, alpha=0.6)
axes[0].scatter(X[:, 0], X[:, 1], s=3, c="k", label="data")
axes[0].scatter(samples[:, 0], samples[:, 1], s=3, c="C1", label="GAN.sample")
axes[0].set_title("data, samples and the discriminator's logit")
axes[0].legend(loc="lower left", markerscale=4)

axes[1].plot(gan.value_curve_, lw=1)
axes[1].axhline(-np.log(4), color="k", ls=":", label=r"$-\log 4$")
axes[1].set_xlabel("epoch")
axes[1].set_ylabel(r"$V(G, D)$ on the training batches")
axes[1].set_title("value of the game during training")
axes[1].legend()

x = np.linspace(-8, 8, 4001)
dx = x[1] - x[0]
p_data = norm.pdf(x)
for mu in (0.0, 1.0, 3.0):
    axes[2].plot(x, optimal_discriminator(p_data, norm.pdf(x, loc=mu)),
                 label=rf"$D^*$ for $\mu$ = {mu:g}")
axes[2].set_xlim(-5, 7)
axes[2].set_xlabel("x")
axes[2].set_ylabel(r"$D^*(x)$")
inset = axes[2].inset_axes([0.62, 0.42, 0.35, 0.36])
mus = np.linspace(-4, 4, 81)
inset.plot(mus, [gan_value_at_optimum(p_data, norm.pdf(x, loc=m), dx=dx) for m in mus])
inset.axhline(-np.log(4), color="k", ls=":")
inset.set_xlabel(r"$\mu$", fontsize=8)
inset.set_title(r"$V(G, D^*)$", fontsize=8)
inset.tick_params(labelsize=7)
axes[2].legend(loc="lower left", fontsize=8)
axes[2].set_title(r"data $N(0, 1)$, generator $N(\mu, 1)$")
fig.tight_layout()
