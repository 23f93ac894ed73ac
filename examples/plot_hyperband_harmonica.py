"""
Hyperband and Harmonica: two cheaper searches
=============================================

Left: :class:`skml.model_selection.HyperbandSearchCV` (Li et al.'s Hyperband,
built on the successive halving of notes A §11.3) tunes an
:class:`skml.linear_model.SGDClassifier` on digits with the number of epochs as
the resource. Each bracket trades many settings started with few epochs against
few settings trained to the full 27 epochs; every point is one setting's 3-fold
accuracy at the epochs it had reached, and training continues where it stopped
when a setting survives.

Right: :class:`skml.model_selection.HarmonicaSearchCV` (notes A §2.4) treats
eight two-valued hyper-parameters of the same classifier as the bits of a
Boolean function, fits a sparse low-degree polynomial of the score to 24 random
settings (:class:`skml.boolean.HarmonicaRegressor`), fixes the bits of its
largest monomials, and samples the remaining bits in a second stage. The points
in colour agree with the bits fixed after the first stage: the second stage
samples only among them (the few settings near zero have ``alpha = 0.1``, a
penalty that shrinks the weights to almost nothing).
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import loguniform
from sklearn.datasets import load_digits

from skml.linear_model import SGDClassifier
from skml.model_selection import HarmonicaSearchCV, HyperbandSearchCV

X, y = load_digits(return_X_y=True)
X = X / 16.0
fig, axes = plt.subplots(1, 2, figsize=(12, 4.3))

hyperband = HyperbandSearchCV(
    SGDClassifier(tol=None, random_state=0),
    {"alpha": loguniform(1e-6, 1e-1), "eta0": loguniform(1e-3, 1.0),
     "learning_rate": ["constant", "optimal", "invscaling"]},
    resource="max_iter", max_resource=27, eta=3, cv=3, random_state=0,
).fit(X, y)
res = hyperband.cv_results_
for b in np.unique(res["bracket"]):
    rows = res["bracket"] == b
    jitter = 1 + 0.06 * (b - 1.5)  # brackets side by side at each resource
    axes[0].scatter(res["n_resources"][rows] * jitter, res["mean_test_score"][rows], s=14,
                    label=f"bracket {b}: {len(np.unique(res['candidate'][rows]))} settings")
axes[0].set_xscale("log", base=3)
axes[0].set_xlabel("epochs reached (max_iter)")
axes[0].set_ylabel("mean 3-fold accuracy")
axes[0].set_title(f"HyperbandSearchCV: best {hyperband.best_score_:.3f}", fontsize=10)
axes[0].legend(fontsize=8)

harmonica = HarmonicaSearchCV(
    SGDClassifier(max_iter=10, tol=None, random_state=0),
    {"loss": ["hinge", "log_loss"], "penalty": ["l2", "l1"], "alpha": [1e-4, 1e-1],
     "fit_intercept": [True, False], "average": [False, True],
     "learning_rate": ["optimal", "constant"], "eta0": [0.01, 1.0], "shuffle": [True, False]},
    n_samples=24, n_stages=2, cv=3, random_state=0,
).fit(X, y)
res = harmonica.cv_results_
# The bits fixed after the first stage: those of its kept monomials.
first = {k for monomial in harmonica.stage_supports_[0] for k in monomial}
agrees = np.array([all(p[k] == harmonica.fixed_params_[k] for k in first)
                   for p in res["params"]])
order = np.arange(1, len(agrees) + 1)
axes[1].scatter(order[~agrees], res["mean_test_score"][~agrees], c="0.6", s=14,
                label="other settings")
axes[1].scatter(order[agrees], res["mean_test_score"][agrees], c="C3", s=18,
                label="agrees with the bits fixed after stage 1")
axes[1].set_xlabel("settings in the order evaluated")
axes[1].set_ylabel("mean 3-fold accuracy")
axes[1].set_title(f"HarmonicaSearchCV: best {harmonica.best_score_:.3f}", fontsize=10)
axes[1].legend(fontsize=8)
fig.tight_layout()
print("monomials kept at each stage:", harmonica.stage_supports_)
print("fixed:", harmonica.fixed_params_)
