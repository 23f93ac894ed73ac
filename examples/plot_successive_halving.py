"""
Successive halving: candidates and resources per round
======================================================

:class:`skml.model_selection.SuccessiveHalvingSearchCV` (notes A §11) gives 16
settings of an :class:`skml.linear_model.SGDClassifier` a few epochs each, keeps
the better half, trains those further (training continues where it stopped), and
so on. Each line is one candidate's cross-validated score against the epochs it
has received; the survivors are the lines that reach the right.
scikit-learn's ``HalvingRandomSearchCV`` spends its budget the same way but
refits each survivor from scratch.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.stats import loguniform
from sklearn.datasets import load_digits

from skml.linear_model import SGDClassifier
from skml.model_selection import SuccessiveHalvingSearchCV

X, y = load_digits(return_X_y=True)
X = X / 16.0
search = SuccessiveHalvingSearchCV(
    SGDClassifier(tol=None, random_state=0),
    {"alpha": loguniform(1e-6, 1e-1), "eta0": loguniform(1e-3, 1.0),
     "learning_rate": ["constant", "optimal", "invscaling"]},
    n_candidates=16, resource="max_iter", max_resource=32, factor=2, cv=3, random_state=0,
).fit(X, y)

res = search.cv_results_
fig, ax = plt.subplots(figsize=(7, 4.5))
for c in np.unique(res["candidate"]):
    rows = np.flatnonzero(res["candidate"] == c)
    rows = rows[np.argsort(res["iter"][rows])]
    ax.plot(res["n_resources"][rows], res["mean_test_score"][rows], "o-", ms=3, lw=1,
            color="C3" if c == res["candidate"][search.best_index_] else "0.6")
ax.set_xscale("log", base=2)
ax.set_xlabel("epochs received (max_iter)")
ax.set_ylabel("mean 3-fold accuracy")
ax.set_title(f"candidates per round: {search.n_candidates_}; best in red")
fig.tight_layout()
print("best:", search.best_params_, round(search.best_score_, 3))
