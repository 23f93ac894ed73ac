"""
The four scalers
================

The scalers of :mod:`skml.preprocessing` (notes B §1.3) on skewed 2-d data:
:class:`skml.preprocessing.StandardScaler` (zero mean, unit variance per
feature), :class:`skml.preprocessing.MinMaxScaler` (each feature to [0, 1]),
:class:`skml.preprocessing.MeanNormalizer` (mean zero, divided by the range)
and :class:`skml.preprocessing.UnitNormScaler` (each *row* to unit length).
"""

import matplotlib.pyplot as plt
import numpy as np

from skml.preprocessing import MeanNormalizer, MinMaxScaler, StandardScaler, UnitNormScaler

rng = np.random.RandomState(0)
X = np.c_[rng.lognormal(1.0, 0.5, 300) * 10, rng.normal(5, 1, 300)]
scalers = [("original", None), ("StandardScaler", StandardScaler()),
           ("MinMaxScaler", MinMaxScaler()), ("MeanNormalizer", MeanNormalizer()),
           ("UnitNormScaler", UnitNormScaler())]
fig, axes = plt.subplots(1, len(scalers), figsize=(15, 3.2))
for ax, (name, scaler) in zip(axes, scalers):
    Z = X if scaler is None else scaler.fit_transform(X)
    ax.scatter(Z[:, 0], Z[:, 1], s=4, c=X[:, 0], cmap="viridis")
    ax.axhline(0, color="0.7", lw=0.5)
    ax.axvline(0, color="0.7", lw=0.5)
    ax.set_title(name, fontsize=10)
fig.tight_layout()
