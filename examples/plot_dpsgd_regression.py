"""
Differentially private regression: DP-SGD on diabetes
=====================================================

:class:`skml.privacy.DPSGDRegressor` (notes B §13.5) fits a linear least-squares
model by DP-SGD: Poisson-sampled lots, each example's gradient clipped to norm 1,
Gaussian noise added to the sum, the noise scale chosen by the RDP accountant so
that the whole run is :math:`(\\varepsilon, \\delta)`-differentially private
(:math:`\\delta = 10^{-5}`). On the standardised diabetes data (442 patients,
10 features) a small :math:`\\varepsilon` costs much of the explained variance;
the dashed line is :class:`skml.linear_model.LinearRegression` without privacy.
Right: the coefficients of one run at :math:`\\varepsilon = 1` and at
:math:`\\varepsilon = 10` beside the non-private ones (``s1`` and ``s2`` are
nearly collinear: their coefficients move most at little cost to the fit).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_diabetes
from sklearn.model_selection import train_test_split
from sklearn.preprocessing import StandardScaler

from skml.linear_model import LinearRegression
from skml.privacy import DPSGDRegressor

X, y = load_diabetes(return_X_y=True)
X = StandardScaler().fit_transform(X)
y = (y - y.mean()) / y.std()  # the clip norm bounds residual x feature norm
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.3, random_state=0)
exact = LinearRegression().fit(X_train, y_train)

epsilons = [0.3, 1.0, 3.0, 10.0]
r2 = []
for eps in epsilons:
    runs = [DPSGDRegressor(target_epsilon=eps, delta=1e-5, epochs=10, lot_size=32,
                           learning_rate=0.1, random_state=seed)
            .fit(X_train, y_train).score(X_test, y_test) for seed in range(3)]
    r2.append((np.mean(runs), np.std(runs)))
r2 = np.array(r2)

fig, axes = plt.subplots(1, 2, figsize=(11, 4.2))
axes[0].errorbar(epsilons, r2[:, 0], yerr=r2[:, 1], fmt="o-", capsize=3,
                 label="DPSGDRegressor (mean and sd of 3 seeds)")
axes[0].axhline(exact.score(X_test, y_test), color="k", ls="--", label="LinearRegression")
axes[0].set_xscale("log")
axes[0].set_xlabel(r"$\varepsilon$ ($\delta = 10^{-5}$)")
axes[0].set_ylabel("test $R^2$")
axes[0].legend()

width = 0.27
features = np.arange(X.shape[1])
axes[1].bar(features - width, exact.coef_, width, color="k", label="LinearRegression")
for shift, eps in [(0, 1.0), (width, 10.0)]:
    model = DPSGDRegressor(target_epsilon=eps, delta=1e-5, epochs=10, lot_size=32,
                           learning_rate=0.1, random_state=0).fit(X_train, y_train)
    axes[1].bar(features + shift, model.coefs_[0].ravel(), width,
                label=rf"DPSGDRegressor, $\varepsilon$ = {eps:g} (reported {model.epsilon_:.2f})")
axes[1].set_xticks(features, load_diabetes().feature_names)
axes[1].set_ylabel("coefficient (standardised units)")
axes[1].legend(fontsize=8)
fig.tight_layout()
