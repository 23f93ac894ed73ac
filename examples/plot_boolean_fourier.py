"""
Fourier coefficients of a Boolean function
==========================================

For :math:`x \\in \\{0, 1\\}^n`, every function is a sum of parities
:math:`\\chi_S(x) = \\prod_{i \\in S} (-1)^{x_i}` weighted by its Fourier
coefficients :math:`\\hat f(S)`. :class:`skml.boolean.LowDegreeFourierRegressor`
(the LMN algorithm, notes A §2.3) estimates every coefficient up to a degree
from samples; :class:`skml.boolean.HarmonicaRegressor` (notes A §2.4) fits a
sparse set of them with the Lasso. The target depends on 3 of 12 bits:
:math:`f = 2 \\chi_{\\{3, 7\\}} - 1.5 \\chi_{\\{0\\}} + \\chi_{\\{1, 5, 9\\}}` plus noise.
"""

import matplotlib.pyplot as plt
import numpy as np

from skml.boolean import HarmonicaRegressor, LowDegreeFourierRegressor

rng = np.random.default_rng(0)
X = rng.integers(0, 2, size=(600, 12))
Z = 1 - 2 * X
y = 2.0 * Z[:, 3] * Z[:, 7] - 1.5 * Z[:, 0] + Z[:, 1] * Z[:, 5] * Z[:, 9]
y = y + rng.normal(0, 0.3, len(y))

lmn = LowDegreeFourierRegressor(degree=3).fit(X, y)
harmonica = HarmonicaRegressor(degree=3, alpha=0.05).fit(X, y)

fig, axes = plt.subplots(2, 1, figsize=(10, 5.5), sharex=True)
sets = lmn.feature_sets_
axes[0].vlines(np.arange(len(sets)), 0, lmn.coef_, lw=1)
axes[0].set_title(f"LowDegreeFourierRegressor(degree=3): all {len(sets)} coefficients estimated")
lookup = {S: c for S, c in zip(harmonica.feature_sets_, harmonica.coef_)} \
    if hasattr(harmonica, "feature_sets_") else {}
h = np.array([lookup.get(S, 0.0) for S in sets])
axes[1].vlines(np.arange(len(sets)), 0, h, lw=1, color="C1")
axes[1].set_title(f"HarmonicaRegressor(degree=3, alpha=0.05): support {harmonica.support_}")
for ax in axes:
    ax.axhline(0, color="0.7", lw=0.5)
    ax.set_ylabel(r"$\hat f(S)$")
axes[1].set_xlabel("set S (by size, then lexicographic)")
for S in [(0,), (3, 7), (1, 5, 9)]:
    i = sets.index(S)
    axes[0].annotate(str(S), (i, lmn.coef_[i]), fontsize=8, ha="center",
                     va="bottom" if lmn.coef_[i] > 0 else "top")
fig.tight_layout()
