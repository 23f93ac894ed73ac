"""
Gaussian mixture ellipses
=========================

:class:`skml.mixture.GaussianMixture` (EM, notes B §10) fitted with each
covariance type on three elongated clusters; each component is drawn as its
two-standard-deviation ellipse. scikit-learn's ``GaussianMixture`` ("full",
dashed) lands on the same components.
"""

import matplotlib.pyplot as plt
import numpy as np
from matplotlib.patches import Ellipse
from sklearn import mixture as sk_mixture

from skml.mixture import GaussianMixture

rng = np.random.RandomState(0)
X = np.vstack([
    rng.randn(150, 2) @ [[2.0, 0.0], [1.2, 0.5]],
    rng.randn(150, 2) @ [[0.5, 0.0], [0.0, 1.5]] + [6, 3],
    rng.randn(150, 2) @ [[1.0, 0.6], [0.0, 0.4]] + [-3, 5],
])


def covariances(gmm):
    cov, kind = gmm.covariances_, gmm.covariance_type
    k, d = gmm.means_.shape
    if kind == "full":
        return cov
    if kind == "tied":
        return np.repeat(cov[None], k, axis=0)
    if kind == "diag":
        return np.array([np.diag(c) for c in cov])
    return np.array([np.eye(d) * c for c in cov])


def draw(ax, gmm, **style):
    for mean, cov in zip(gmm.means_, covariances(gmm)):
        vals, vecs = np.linalg.eigh(cov)
        angle = np.degrees(np.arctan2(vecs[1, 1], vecs[0, 1]))
        w, h = 2 * 2 * np.sqrt(vals[::-1])
        ax.add_patch(Ellipse(mean, w, h, angle=angle, fill=False, **style))


fig, axes = plt.subplots(1, 4, figsize=(14, 3.8), sharex=True, sharey=True)
for ax, kind in zip(axes, ["full", "tied", "diag", "spherical"]):
    gmm = GaussianMixture(n_components=3, covariance_type=kind, random_state=0).fit(X)
    ax.scatter(X[:, 0], X[:, 1], c=gmm.predict(X), cmap="viridis", s=5)
    draw(ax, gmm, color="k", lw=1.5)
    if kind == "full":
        sk = sk_mixture.GaussianMixture(n_components=3, random_state=0).fit(X)
        draw(ax, sk, color="r", lw=1.2, ls="--")
    ax.set_title(f'covariance_type="{kind}"\nBIC = {gmm.bic(X):.0f}', fontsize=10)
fig.tight_layout()
