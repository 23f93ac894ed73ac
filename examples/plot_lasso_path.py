"""
Lasso: the regularisation path
==============================

:class:`skml.linear_model.Lasso` (cyclic coordinate descent with soft
thresholding, notes B §3) on the diabetes data, refitted along a decreasing
grid of ``alpha`` with warm starts. Coefficients leave zero one by one as the
penalty weakens. scikit-learn's ``Lasso`` (dashed) traces the same path.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn import linear_model as sk_linear
from sklearn.datasets import load_diabetes
from sklearn.preprocessing import StandardScaler

from skml.linear_model import Lasso

data = load_diabetes()
X = StandardScaler().fit_transform(data.data)
y = data.target - data.target.mean()
alphas = np.logspace(1.5, -1.5, 40)

paths = {}
for name, model in [("skml", Lasso(warm_start=True, max_iter=5000)),
                    ("scikit-learn", sk_linear.Lasso(warm_start=True, max_iter=5000))]:
    coefs = []
    for alpha in alphas:
        model.set_params(alpha=alpha).fit(X, y)
        coefs.append(model.coef_.copy())
    paths[name] = np.array(coefs)

fig, ax = plt.subplots(figsize=(8, 4.5))
for j, feature in enumerate(data.feature_names):
    ax.plot(alphas, paths["skml"][:, j], color=f"C{j}", label=feature)
    ax.plot(alphas, paths["scikit-learn"][:, j], "--", color="k", lw=0.6)
ax.set_xscale("log")
ax.invert_xaxis()
ax.set_xlabel("alpha (decreasing)")
ax.set_ylabel("coefficient")
ax.set_title("Lasso path on diabetes (skml solid, scikit-learn dashed)")
ax.legend(fontsize=7, ncol=2)
fig.tight_layout()
print("largest difference between the paths:",
      np.abs(paths["skml"] - paths["scikit-learn"]).max().round(4))
