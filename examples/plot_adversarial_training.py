"""
Adversarial training and TRADES on digits
=========================================

Three defences of notes B §12.6-12.7 train the same small network
(:class:`skml.neural_network.MLPClassifier`, one hidden layer of 32 units) on
digits scaled to [0, 1]: plain training,
:class:`skml.adversarial.AdversarialTrainingClassifier` (PGD adversarial
training, Madry et al.: every batch is replaced by its PGD points in the
:math:`\\ell_\\infty` ball of radius 0.1) and
:class:`skml.adversarial.TRADESClassifier` (the clean loss plus ``beta`` times
the worst-case KL divergence in the ball). Each is then attacked on held-out
digits by :class:`skml.adversarial.BIM` (iterated gradient-sign steps) and by
:class:`skml.adversarial.MultiTargetedPGD` (a five-step PGD run towards every wrong
class), at growing radii. The defended
networks give up a little clean accuracy for much more accuracy under attack.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from skml.adversarial import (BIM, AdversarialTrainingClassifier, MultiTargetedPGD,
                              TRADESClassifier, robust_score)
from skml.neural_network import MLPClassifier

# 30 epochs are enough for this picture; the networks would improve a little with more.
warnings.filterwarnings("ignore", category=ConvergenceWarning)

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=200, random_state=0)

network = MLPClassifier((32,), learning_rate_init=0.01, max_iter=30, random_state=0)
models = {
    "plain training": network,
    "PGD adversarial training": AdversarialTrainingClassifier(
        network, attack="pgd", eps=0.1, n_iter=5, clip=(0, 1), random_state=0),
    "TRADES (beta = 6)": TRADESClassifier(
        network, beta=6.0, eps=0.1, n_iter=5, clip=(0, 1), random_state=0),
}
epsilons = [0.0, 0.025, 0.05, 0.075, 0.1, 0.15]
attacks = {
    "BIM": lambda clf, eps: BIM(clf, eps=eps, n_iter=10, clip=(0, 1)),
    "MultiTargetedPGD": lambda clf, eps: MultiTargetedPGD(clf, eps=eps, n_iter=5,
                                                          clip=(0, 1), random_state=0),
}

fig, axes = plt.subplots(1, 2, figsize=(11, 4.2), sharey=True)
for name, model in models.items():
    model.fit(X_train, y_train)
    for ax, (attack_name, attack) in zip(axes, attacks.items()):
        scores = [model.score(X_test, y_test) if eps == 0 else
                  robust_score(model, X_test, y_test, attack(model, eps))
                  for eps in epsilons]
        ax.plot(epsilons, scores, "o-", label=name)
        ax.set_title(f"attacked by {attack_name}")
        ax.set_xlabel(r"$\varepsilon$ ($\ell_\infty$, pixels in [0, 1])")
axes[0].set_ylabel("test accuracy under attack")
axes[0].axvline(0.1, color="grey", lw=0.8, ls=":")
axes[1].axvline(0.1, color="grey", lw=0.8, ls=":")
axes[0].legend()
fig.tight_layout()
