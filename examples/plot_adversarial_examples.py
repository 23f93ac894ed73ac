"""
Adversarial examples on digits
==============================

A :class:`skml.linear_model.LogisticRegression` reads digits well, yet a small
change to every pixel, chosen along the gradient of its loss, flips its answer.
:class:`skml.adversarial.FGSM` takes one step of size ``eps`` in the
:math:`\\ell_\\infty` ball, :class:`skml.adversarial.PGD` ten projected steps
(notes A §10). Left: accuracy under attack as ``eps`` grows
(:func:`skml.adversarial.robust_score`); right: one digit before and after PGD.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.model_selection import train_test_split

from skml.adversarial import FGSM, PGD, robust_score
from skml.linear_model import LogisticRegression

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
X_test, y_test = X_test[:200], y_test[:200]
clf = LogisticRegression(max_iter=500).fit(X_train, y_train)

epsilons = [0.0, 0.02, 0.05, 0.1, 0.15, 0.2]
scores = {"FGSM": [], "PGD (10 steps)": []}
for eps in epsilons:
    if eps == 0:
        clean = clf.score(X_test, y_test)
        for v in scores.values():
            v.append(clean)
        continue
    scores["FGSM"].append(robust_score(clf, X_test, y_test, FGSM(clf, eps=eps, clip=(0, 1))))
    scores["PGD (10 steps)"].append(robust_score(
        clf, X_test, y_test, PGD(clf, eps=eps, n_iter=10, clip=(0, 1), random_state=0)))

fig = plt.figure(figsize=(11, 3.8))
ax = fig.add_subplot(1, 3, (1, 1))
for name, s in scores.items():
    ax.plot(epsilons, s, "o-", label=name)
ax.set_xlabel(r"$\varepsilon$ ($\ell_\infty$, pixels in [0, 1])")
ax.set_ylabel("test accuracy under attack")
ax.legend()

x0, y0 = X_test[:1], y_test[:1]
x_adv = PGD(clf, eps=0.1, n_iter=10, clip=(0, 1), random_state=0).generate(x0, y0)
for i, (img, title) in enumerate([(x0, "clean"), (x_adv, "PGD, eps = 0.1")]):
    a = fig.add_subplot(1, 3, i + 2)
    a.imshow(img.reshape(8, 8), cmap="gray_r", vmin=0, vmax=1)
    a.set_title(f"{title}: predicted {clf.predict(img)[0]}")
    a.axis("off")
fig.tight_layout()
