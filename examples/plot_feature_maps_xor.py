"""
Feature maps that make a linear classifier non-linear
=====================================================

Notes B §1.5: a linear classifier on transformed features draws a curved
boundary in the original space. :class:`skml.preprocessing.DistanceToAnchors`
is the notes' hand-made transform for XOR, the distances to (0, 0) and (1, 1);
:class:`skml.preprocessing.QuadraticFeatureMap` is the explicit feature map of
the quadratic kernel :math:`(\\langle x, z \\rangle + 1)^2`. Each is followed by
:class:`skml.linear_model.LogisticRegression` in a pipeline; the top row fits the
logistic regression on the raw two coordinates, which cannot separate either
problem. The notes' anchors separate the four corners exactly; around the
noisy corners used here the transformed classes overlap a little.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_circles
from sklearn.pipeline import make_pipeline

from skml.linear_model import LogisticRegression
from skml.preprocessing import DistanceToAnchors, QuadraticFeatureMap

rng = np.random.RandomState(0)
corners = rng.randint(0, 2, size=(200, 2))
X_xor = corners + rng.normal(scale=0.15, size=corners.shape)
y_xor = corners[:, 0] ^ corners[:, 1]
X_circ, y_circ = make_circles(n_samples=200, noise=0.08, factor=0.5, random_state=0)

problems = [
    ("XOR", X_xor, y_xor, DistanceToAnchors(), "DistanceToAnchors"),
    ("circles", X_circ, y_circ, QuadraticFeatureMap(), "QuadraticFeatureMap"),
]
fig, axes = plt.subplots(2, 2, figsize=(9, 8))
for col, (title, X, y, feature_map, map_name) in enumerate(problems):
    xx, yy = np.meshgrid(np.linspace(X[:, 0].min() - 0.3, X[:, 0].max() + 0.3, 150),
                         np.linspace(X[:, 1].min() - 0.3, X[:, 1].max() + 0.3, 150))
    grid = np.c_[xx.ravel(), yy.ravel()]
    for row, (name, model) in enumerate([
            ("LogisticRegression", LogisticRegression()),
            (f"{map_name} + LogisticRegression",
             make_pipeline(feature_map, LogisticRegression()))]):
        ax = axes[row, col]
        model.fit(X, y)
        proba = model.predict_proba(grid)[:, 1].reshape(xx.shape)
        ax.contourf(xx, yy, proba, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.8)
        ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu_r", edgecolors="k", linewidths=0.3, s=12)
        ax.set_title(f"{title}: {name}\ntraining accuracy {model.score(X, y):.2f}", fontsize=9)
fig.tight_layout()
