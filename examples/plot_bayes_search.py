"""
Bayesian optimisation of an SVM's C and gamma
=============================================

:class:`skml.model_selection.BayesSearchCV` (notes A §11.1) tunes ``C`` and
``gamma`` of an RBF :class:`skml.svm.SVC` on 600 digits: after five random
settings, each step fits a Gaussian process to the cross-validated scores seen
so far and evaluates the setting of largest expected improvement. scikit-learn's
``RandomizedSearchCV`` draws the same number of settings from the same
log-uniform ranges. Left and centre: the settings each search evaluated, coloured
by their 3-fold accuracy (the Bayesian search gathers where gamma is right);
right: each setting's accuracy in the order evaluated (dots) and the best found so
far (lines). After its five random starts the Bayesian search stays among good
settings; random search keeps sampling poor ones, although with two parameters a
lucky draw can find as good a setting as early.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import loguniform
from sklearn.datasets import load_digits
from sklearn.model_selection import RandomizedSearchCV

from skml.model_selection import BayesSearchCV
from skml.svm import SVC

X, y = load_digits(return_X_y=True)
X, y = X[:600] / 16.0, y[:600]
n_iter = 20
searches = {
    "BayesSearchCV (skml)": BayesSearchCV(
        SVC(), {"C": (1e-3, 1e3, "log-uniform"), "gamma": (1e-5, 1e2, "log-uniform")},
        n_iter=n_iter, n_initial_points=5, cv=3, random_state=0),
    "RandomizedSearchCV (scikit-learn)": RandomizedSearchCV(
        SVC(), {"C": loguniform(1e-3, 1e3), "gamma": loguniform(1e-5, 1e2)},
        n_iter=n_iter, cv=3, random_state=0),
}

fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
for ax, (name, search) in zip(axes[:2], searches.items()):
    search.fit(X, y)
    res = search.cv_results_
    C = np.array(res["param_C"], dtype=float)
    gamma = np.array(res["param_gamma"], dtype=float)
    score = res["mean_test_score"]
    points = ax.scatter(C, gamma, c=score, cmap="viridis", vmin=0, vmax=1, s=40,
                        edgecolors="k", linewidths=0.4)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_xlabel("C")
    ax.set_ylabel("gamma")
    ax.set_title(f"{name}\nbest accuracy {search.best_score_:.3f}", fontsize=10)
    order = np.arange(1, len(score) + 1)
    line, = axes[2].plot(order, np.maximum.accumulate(score), "-", label=f"{name}: best so far")
    axes[2].plot(order, score, "o", ms=4, color=line.get_color(), alpha=0.6)
fig.colorbar(points, ax=axes[1], label="mean 3-fold accuracy")
axes[2].set_xlabel("settings evaluated")
axes[2].set_ylabel("mean 3-fold accuracy")
axes[2].legend(fontsize=8)
fig.tight_layout()
