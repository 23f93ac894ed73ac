"""
Randomised smoothing: certified radii
=====================================

:class:`skml.adversarial.SmoothedClassifier` wraps any classifier and predicts
the class it returns most often when Gaussian noise is added to the input
(notes A §10.4). If that class has probability at least :math:`p_A` under the
noise, no :math:`\\ell_2` perturbation smaller than a radius that depends only on
:math:`p_A` changes the smoothed prediction:
:func:`skml.adversarial.greedy_filling_radius` gives it, :math:`\\sigma
\\Phi^{-1}(p_A)` for Gaussian noise (A §10.6) and a smaller radius for noise
uniform in a ball, which shrinks with the dimension (A §10.5). Left: those radii
against :math:`p_A`. Right: the certified accuracy on digits of a smoothed
:class:`skml.linear_model.LogisticRegression` (trained on noisy copies) at each
radius: the share of test digits that are classified correctly *and* certified
at least that far. More noise certifies larger radii at lower clean accuracy. With 200 noise draws
per digit the lower confidence bound on :math:`p_A` stays below about 0.97, which
caps every radius: the cliff at the right of each curve.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from skml.adversarial import SmoothedClassifier, greedy_filling_radius
from skml.linear_model import LogisticRegression

fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
p_a = np.linspace(0.5, 0.999, 200)
axes[0].plot(p_a, greedy_filling_radius(p_a, "gaussian", sigma=1.0),
             label="Gaussian, $\\sigma$ = 1")
for d in (2, 10, 64):
    axes[0].plot(p_a, greedy_filling_radius(p_a, "uniform_ball", sigma=1.0, n_features=d),
                 label=f"uniform in a ball of radius 1, d = {d}")
axes[0].set_xlabel("$p_A$, probability of the top class under the noise")
axes[0].set_ylabel("certified $\\ell_2$ radius")
axes[0].set_title("greedy_filling_radius")
axes[0].legend(fontsize=8)

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=200, random_state=0)
radii_grid = np.linspace(0, 1.2, 61)
for sigma in (0.12, 0.25, 0.5):
    clf = SmoothedClassifier(LogisticRegression(max_iter=300), sigma=sigma, n_samples=200,
                             train_noise=True, random_state=0).fit(X_train, y_train)
    labels, radii = clf.certify(X_test)
    correct = labels == y_test
    axes[1].step(radii_grid, [np.mean(correct & (radii >= r)) for r in radii_grid],
                 where="post", label=f"$\\sigma$ = {sigma}")
axes[1].set_xlabel("$\\ell_2$ radius")
axes[1].set_ylabel("certified accuracy (200 test digits)")
axes[1].set_title("SmoothedClassifier(LogisticRegression)")
axes[1].legend()
fig.tight_layout()
