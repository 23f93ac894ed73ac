"""
Regressors on a noisy sine
==========================

Eight of skml's regressors fitted to the same 80 noisy samples of a sine and
drawn over the interval: the smooth fits of :class:`skml.svm.SVR` (RBF kernel,
its epsilon-tube shaded) and :class:`skml.neural_network.MLPRegressor`; the
steps of :class:`skml.neighbors.KNeighborsRegressor` and of the trees in
:class:`skml.ensemble.GradientBoostingRegressor` and
:class:`skml.ensemble.BaggingRegressor`; :class:`skml.linear_model.SGDRegressor`
on the raw input (a line: the model is linear); and two combinations of
three of them, :class:`skml.ensemble.VotingRegressor` (their average) and
:class:`skml.ensemble.StackingRegressor` (a ridge on their out-of-fold
predictions). The test R² is in each title.
"""

import matplotlib.pyplot as plt
import numpy as np

from skml.ensemble import (BaggingRegressor, GradientBoostingRegressor, StackingRegressor,
                           VotingRegressor)
from skml.linear_model import Ridge, SGDRegressor
from skml.neighbors import KNeighborsRegressor
from skml.neural_network import MLPRegressor
from skml.svm import SVR
from skml.tree import DecisionTreeRegressor

rng = np.random.RandomState(0)
X = np.sort(rng.uniform(0, 6, 80))[:, None]
y = np.sin(X[:, 0]) + rng.normal(0, 0.2, len(X))
X_test = rng.uniform(0, 6, (200, 1))
y_test = np.sin(X_test[:, 0]) + rng.normal(0, 0.2, len(X_test))
grid = np.linspace(0, 6, 300)[:, None]


def trio():
    return [("svr", SVR(C=3.0, epsilon=0.2)), ("knn", KNeighborsRegressor(n_neighbors=7)),
            ("tree", DecisionTreeRegressor(max_depth=4))]


models = {
    "SVR": SVR(C=3.0, epsilon=0.2),
    "MLPRegressor": MLPRegressor(hidden_layer_sizes=(32,), solver="lbfgs", max_iter=500,
                                 random_state=0),
    "KNeighborsRegressor": KNeighborsRegressor(n_neighbors=7),
    "GradientBoostingRegressor": GradientBoostingRegressor(n_estimators=60, max_depth=2,
                                                           random_state=0),
    "BaggingRegressor": BaggingRegressor(DecisionTreeRegressor(max_depth=4), n_estimators=20,
                                         random_state=0),
    "SGDRegressor": SGDRegressor(random_state=0),
    "VotingRegressor": VotingRegressor(trio()),
    "StackingRegressor": StackingRegressor(trio(), final_estimator=Ridge()),
}

fig, axes = plt.subplots(2, 4, figsize=(13, 5.5), sharex=True, sharey=True)
for ax, (name, model) in zip(axes.ravel(), models.items()):
    model.fit(X, y)
    pred = model.predict(grid)
    if name == "SVR":
        ax.fill_between(grid[:, 0], pred - model.epsilon, pred + model.epsilon,
                        color="C0", alpha=0.15, linewidth=0)
    ax.plot(X[:, 0], y, "o", color="0.6", ms=3)
    ax.plot(grid[:, 0], pred, color="C0")
    ax.plot(grid[:, 0], np.sin(grid[:, 0]), ":", color="k", linewidth=1)
    ax.set_title(f"{name}: R² {model.score(X_test, y_test):.2f}", fontsize=9)
fig.tight_layout()
