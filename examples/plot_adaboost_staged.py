"""
AdaBoost: test error stage by stage
===================================

:class:`skml.ensemble.AdaBoostClassifier` (SAMME with decision stumps, notes A §3,
B §9) and scikit-learn's ``AdaBoostClassifier`` on the same split of a
two-moons problem: ``staged_predict`` gives the ensemble after each round, so the
test error can be followed as stumps are added.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn import ensemble as sk_ensemble
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split
from sklearn.tree import DecisionTreeClassifier as SkStump

from skml.ensemble import AdaBoostClassifier
from skml.tree import DecisionTreeClassifier

X, y = make_moons(n_samples=600, noise=0.3, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
n_rounds = 150

ours = AdaBoostClassifier(DecisionTreeClassifier(max_depth=1), n_estimators=n_rounds,
                          random_state=0).fit(X_train, y_train)
theirs = sk_ensemble.AdaBoostClassifier(SkStump(max_depth=1), n_estimators=n_rounds,
                                        random_state=0).fit(X_train, y_train)

fig, ax = plt.subplots(figsize=(7, 4))
for name, model, style in [("skml", ours, "-"), ("scikit-learn", theirs, "--")]:
    test_err = [np.mean(p != y_test) for p in model.staged_predict(X_test)]
    train_err = [np.mean(p != y_train) for p in model.staged_predict(X_train)]
    ax.plot(np.arange(1, len(test_err) + 1), test_err, style, color="C0", label=f"{name}, test")
    ax.plot(np.arange(1, len(train_err) + 1), train_err, style, color="C1", label=f"{name}, train")
ax.set_xlabel("boosting rounds (stumps)")
ax.set_ylabel("error")
ax.set_title("AdaBoost (SAMME) on two moons")
ax.legend()
fig.tight_layout()
