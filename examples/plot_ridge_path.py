"""
Ridge: the coefficients shrink as alpha grows
=============================================

:class:`skml.linear_model.Ridge` (notes B §2.3, ridge regression) on the diabetes
data for ``alpha`` from 1e-3 to 1e4: each line is one coefficient. At a small
``alpha`` they are those of least squares (:class:`skml.linear_model.LinearRegression`,
the dots at the left edge); as ``alpha`` grows every coefficient is pulled
towards zero, smoothly and never exactly to zero (the Lasso's path, in
another example, sets them to zero one by one). scikit-learn's ``Ridge`` at
the same values is drawn dashed: the lines coincide.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn import linear_model as sk_linear_model
from sklearn.datasets import load_diabetes

from skml.linear_model import LinearRegression, Ridge

X, y = load_diabetes(return_X_y=True)
X = (X - X.mean(axis=0)) / X.std(axis=0)
alphas = np.logspace(-3, 4, 30)

ours = np.array([Ridge(alpha=a).fit(X, y).coef_ for a in alphas])
theirs = np.array([sk_linear_model.Ridge(alpha=a).fit(X, y).coef_ for a in alphas])
ols = LinearRegression().fit(X, y).coef_

fig, ax = plt.subplots(figsize=(7, 4.5))
colors = plt.cm.tab10(np.arange(X.shape[1]))
for j in range(X.shape[1]):
    ax.plot(alphas, ours[:, j], color=colors[j], label=load_diabetes().feature_names[j])
    ax.plot(alphas, theirs[:, j], "--", color="k", linewidth=0.6)
    ax.plot(alphas[0], ols[j], "o", color=colors[j])
ax.set_xscale("log")
ax.axhline(0, color="0.5", linewidth=0.5)
ax.set_xlabel("alpha")
ax.set_ylabel("coefficient (standardised features)")
ax.set_title("Ridge path on diabetes (dashed: scikit-learn)")
ax.legend(ncol=2, fontsize=7, loc="upper right")
fig.tight_layout()

# %%
# The largest difference from scikit-learn's coefficients over the path:
print("max |coef_skml - coef_sklearn|:", f"{np.abs(ours - theirs).max():.1e}")
