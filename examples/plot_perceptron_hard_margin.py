"""
The perceptron and the hard-margin SVM
======================================

On linearly separable data both find a separating line, but not the same one.
:class:`skml.linear_model.Perceptron` (Rosenblatt's rule, notes B §3.1) stops at
the first line that makes no mistake, which depends on the order of the
samples: three shuffles give three lines. :class:`skml.svm.HardMarginSVC`
(notes A §1.1, B §5.1) solves for the line of largest margin, held by its
support vectors (circled); its dashed lines are the margin on either side. The
right panel counts the perceptron's mistakes against the Block-Novikoff bound
:math:`(R/\\gamma)^2` as the classes are pushed apart, with :math:`\\gamma` the
hard-margin SVM's margin on the data augmented by a constant coordinate.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_blobs

from skml.linear_model import Perceptron
from skml.svm import HardMarginSVC

X, y = make_blobs(n_samples=80, centers=[[-1.0, -0.6], [1.0, 0.6]], cluster_std=0.6,
                  random_state=0)  # separable, with a narrow margin
svm = HardMarginSVC().fit(X, y)

fig, axes = plt.subplots(1, 2, figsize=(11, 4.5))
ax = axes[0]
ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu_r", edgecolors="k", linewidths=0.3, s=18)
xs = np.linspace(X[:, 0].min() - 0.5, X[:, 0].max() + 0.5, 2)
w, b = svm.coef_[0], svm.intercept_[0]
for offset, style in [(0.0, "-"), (svm.margin_, "--"), (-svm.margin_, "--")]:
    # The decision function is the signed distance <w, x> + b with |w| = 1.
    ax.plot(xs, (offset - b - w[0] * xs) / w[1], "k" + style, lw=1.5 if offset == 0 else 1)
ax.scatter(*X[svm.support_].T, s=120, facecolors="none", edgecolors="k",
           label=f"HardMarginSVC, margin {svm.margin_:.2f}")
for seed, colour in zip(range(3), ["C2", "C4", "C8"]):
    perceptron = Perceptron(random_state=seed).fit(X, y)
    (w_p,), (b_p,) = perceptron.coef_, perceptron.intercept_
    ax.plot(xs, -(b_p + w_p[0] * xs) / w_p[1], color=colour,
            label=f"Perceptron, shuffle {seed}: {perceptron.n_updates_[0]} updates")
ax.set_ylim(X[:, 1].min() - 0.5, X[:, 1].max() + 0.5)
ax.legend(fontsize=8, loc="upper left")
ax.set_title("separating lines")

shifts = np.linspace(0.0, 1.0, 6)
mistakes, bounds = [], []
for shift in shifts:
    Xs = X + np.where(y[:, None] == 1, shift, -shift) * np.array([1.0, 0.7])
    Xa = np.c_[Xs, np.ones(len(Xs))]  # the bias as a weight on a constant feature
    gamma = HardMarginSVC().fit(Xa, y).margin_
    R = np.linalg.norm(Xa, axis=1).max()
    bounds.append((R / gamma) ** 2)
    mistakes.append(np.mean([Perceptron(random_state=s).fit(Xs, y).n_updates_[0]
                             for s in range(5)]))
axes[1].semilogy(shifts, bounds, "o--", label=r"bound $(R/\gamma)^2$")
axes[1].semilogy(shifts, mistakes, "o-", label="perceptron updates (mean of 5 shuffles)")
axes[1].set_xlabel("extra separation of the two classes")
axes[1].set_ylabel("number of updates")
axes[1].set_title("Block-Novikoff mistake bound")
axes[1].legend()
fig.tight_layout()
