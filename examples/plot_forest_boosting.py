"""
Random forest and gradient boosting: error against ensemble size
================================================================

:class:`skml.ensemble.RandomForestClassifier` (bagged CART trees with random
feature subsets) and :class:`skml.ensemble.GradientBoostingClassifier`
(shallow regression trees fitted to the log-loss gradient, notes A §3, B §9)
on a noisy synthetic problem, beside scikit-learn's. The forest's error
flattens as trees are added; boosting keeps lowering the training loss, and
its test error levels off.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn import ensemble as sk_ensemble
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

from skml.ensemble import GradientBoostingClassifier, RandomForestClassifier

X, y = make_classification(n_samples=1200, n_features=12, n_informative=6, flip_y=0.05,
                           random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
sizes = [1, 2, 5, 10, 20, 40, 80]

fig, ax = plt.subplots(figsize=(7, 4.3))
for lib, RF, color in [("skml", RandomForestClassifier, "C0"),
                       ("scikit-learn", sk_ensemble.RandomForestClassifier, "C1")]:
    errors = [1 - RF(n_estimators=n, random_state=0).fit(X_train, y_train).score(X_test, y_test)
              for n in sizes]
    ax.plot(sizes, errors, "o-" if lib == "skml" else "s--", color=color,
            label=f"{lib} RandomForestClassifier")
for lib, GB, color in [("skml", GradientBoostingClassifier, "C2"),
                       ("scikit-learn", sk_ensemble.GradientBoostingClassifier, "C3")]:
    gb = GB(n_estimators=max(sizes), max_depth=3, random_state=0).fit(X_train, y_train)
    errors = [np.mean(p != y_test) for p in gb.staged_predict(X_test)]
    ax.plot(np.arange(1, len(errors) + 1), errors, "-" if lib == "skml" else "--", color=color,
            label=f"{lib} GradientBoostingClassifier (staged)")
ax.set_xscale("log")
ax.set_xlabel("number of trees")
ax.set_ylabel("test error")
ax.legend(fontsize=8)
fig.tight_layout()
