"""
Differential privacy: noise scales, a private mean and the RDP accountant
=========================================================================

Left (notes B §13.2-13.3): the noise a mechanism adds for privacy
:math:`\\varepsilon` to a query of sensitivity 1. The Laplace mechanism's scale
(:class:`skml.privacy.LaplaceMechanism`, pure :math:`\\varepsilon`-DP) falls like
:math:`1/\\varepsilon`; for the Gaussian mechanism at :math:`\\delta = 10^{-5}`,
the classic calibration (:func:`skml.privacy.classic_gaussian_sigma`, valid for
:math:`\\varepsilon < 1` only) asks for more noise than Balle and Wang's analytic
one (:func:`skml.privacy.analytic_gaussian_sigma`).

Centre: :func:`skml.privacy.dp_mean` of the ages of the 442 diabetes patients,
clipped to [0, 100] (unbounded DP, n private); the error of the private mean against the true one, over
200 draws per :math:`\\varepsilon`, falls like :math:`1/(n \\varepsilon)`.

Right (B §13.5): the privacy spent by DP-SGD's steps, each a Gaussian mechanism
on a Poisson-sampled lot (1% of the rows), by the Rényi-DP accountant
(:func:`skml.privacy.compute_rdp` and :func:`skml.privacy.rdp_to_epsilon`), for
three noise multipliers.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes

from skml.privacy import (DEFAULT_ORDERS, LaplaceMechanism, analytic_gaussian_sigma,
                          classic_gaussian_sigma, compute_rdp, dp_mean, rdp_to_epsilon)

fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
epsilons = np.logspace(-2, 1, 30)
delta = 1e-5
axes[0].loglog(epsilons, [LaplaceMechanism(e).scale for e in epsilons],
               label=r"Laplace scale $1/\varepsilon$")
axes[0].loglog(epsilons, [analytic_gaussian_sigma(e, delta) for e in epsilons],
               label=r"Gaussian $\sigma$, analytic")
small = epsilons[epsilons < 1]
axes[0].loglog(small, [classic_gaussian_sigma(e, delta) for e in small], "--",
               label=r"Gaussian $\sigma$, classic ($\varepsilon < 1$)")
axes[0].set_xlabel(r"$\varepsilon$")
axes[0].set_ylabel("noise scale (sensitivity 1)")
axes[0].legend()

data = load_diabetes(scaled=False)
age = data.data[:, list(data.feature_names).index("age")]
rng = np.random.RandomState(0)
eps_mean = [0.01, 0.03, 0.1, 0.3, 1.0, 3.0]
errors = [np.mean([abs(dp_mean(age, e, (0, 100), random_state=rng) - age.mean())
                   for _ in range(200)]) for e in eps_mean]
axes[1].loglog(eps_mean, errors, "o-", label="dp_mean (unbounded DP: noisy sum over noisy count)")
axes[1].loglog(eps_mean, [100 / (len(age) * e) for e in eps_mean], "k:",
               label=r"$(b - a)/(n\varepsilon)$")
axes[1].set_xlabel(r"$\varepsilon$")
axes[1].set_ylabel("mean absolute error of the mean age (years)")
axes[1].set_title(f"mean age of {len(age)} patients: {age.mean():.1f}")
axes[1].legend()

steps = np.unique(np.logspace(0, 4, 25).astype(int))
for sigma in (0.8, 1.1, 2.0):
    spent = [rdp_to_epsilon(DEFAULT_ORDERS, compute_rdp(0.01, sigma, s), delta)[0]
             for s in steps]
    axes[2].loglog(steps, spent, label=f"noise multiplier {sigma}")
axes[2].set_xlabel("DP-SGD steps (sampling rate 0.01)")
axes[2].set_ylabel(r"$\varepsilon$ spent at $\delta = 10^{-5}$")
axes[2].legend()
fig.tight_layout()
