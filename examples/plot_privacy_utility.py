"""
Privacy against utility: DP-SGD over epsilon
============================================

:class:`skml.privacy.DPSGDClassifier` (notes B §13) trains a logistic model with
per-example gradient clipping and Gaussian noise, the noise chosen by its RDP
accountant so that the whole run is :math:`(\\varepsilon, \\delta)`-differentially
private. A smaller :math:`\\varepsilon` means more noise and a lower test
accuracy; the dashed line is the same model without privacy
(:class:`skml.linear_model.LogisticRegression`).
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_classification
from sklearn.model_selection import train_test_split

from skml.linear_model import LogisticRegression
from skml.privacy import DPSGDClassifier

X, y = make_classification(n_samples=3000, n_features=10, n_informative=5, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)

epsilons = [0.01, 0.02, 0.05, 0.1, 0.3, 1.0, 5.0]
accuracy = []
for eps in epsilons:
    runs = [DPSGDClassifier(target_epsilon=eps, delta=1e-5, epochs=5, random_state=seed)
            .fit(X_train, y_train).score(X_test, y_test) for seed in range(3)]
    accuracy.append((np.mean(runs), np.std(runs)))
accuracy = np.array(accuracy)
baseline = LogisticRegression().fit(X_train, y_train).score(X_test, y_test)

fig, ax = plt.subplots(figsize=(7, 4))
ax.errorbar(epsilons, accuracy[:, 0], yerr=accuracy[:, 1], fmt="o-", capsize=3,
            label=r"DPSGDClassifier, $\delta = 10^{-5}$ (mean of 3 seeds)")
ax.axhline(baseline, ls="--", color="k", label="LogisticRegression, no privacy")
ax.set_xscale("log")
ax.set_xlabel(r"privacy budget $\varepsilon$")
ax.set_ylabel("test accuracy")
ax.legend()
fig.tight_layout()
