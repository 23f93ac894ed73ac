"""
Bias, variance and learning curves
==================================

The model diagnostics of the notes on regression trees of growing depth,
fitted to a noisy sine. Left: :func:`skml.model_selection.bias_variance_decomposition`
(notes B §2.5) refits each tree on 50 bootstrap samples of a 100-point
training set and splits its expected squared error against the true function
into bias² and variance (the noise of the targets is drawn for scale): a
stump's error is mostly bias; depth removes it, and past a few levels the error stops
falling while the variance stays. Right: :func:`skml.model_selection.learning_curve`
(notes B §11.3) for a stump (the training and validation curves meet at a poor
score: high bias, more data will not help) and a fully grown tree (no training
error and a gap to the validation error: high variance).
"""

import matplotlib.pyplot as plt
import numpy as np

from skml.model_selection import bias_variance_decomposition, learning_curve
from skml.tree import DecisionTreeRegressor

rng = np.random.RandomState(0)


def true_fn(X):
    return np.sin(2 * X[:, 0])


X = rng.uniform(-3, 3, (400, 1))
y = true_fn(X) + rng.normal(0, 0.3, len(X))
X_test = np.linspace(-3, 3, 100)[:, None]
y_test = true_fn(X_test) + rng.normal(0, 0.3, len(X_test))

depths = range(1, 11)
parts = [bias_variance_decomposition(DecisionTreeRegressor(max_depth=d), X[:100], y[:100],
                                     X_test, y_test, true_fn=true_fn, n_rounds=50,
                                     random_state=0)
         for d in depths]

fig, (ax, ax_lc) = plt.subplots(1, 2, figsize=(11, 4))
for key, label, style in [("bias", "bias²", "-o"), ("variance", "variance", "-s"),
                          ("expected_loss", "expected loss", "-k")]:
    ax.plot(depths, [p[key] for p in parts], style, label=label, ms=4)
ax.axhline(parts[0]["noise"], color="0.5", linestyle=":", label="noise")
ax.set_xlabel("max_depth")
ax.set_title("bias² + variance = expected loss")
ax.legend()

for depth, color in [(1, "C0"), (None, "C3")]:
    sizes, train, test = learning_curve(DecisionTreeRegressor(max_depth=depth), X, y,
                                        train_sizes=np.linspace(0.1, 1.0, 6), cv=5,
                                        scoring="neg_mean_squared_error")
    name = "stump" if depth == 1 else "deep tree"
    ax_lc.plot(sizes, -train.mean(axis=1), "--", color=color, label=f"{name}, train")
    ax_lc.plot(sizes, -test.mean(axis=1), "-", color=color, label=f"{name}, validation")
ax_lc.set_xlabel("training set size")
ax_lc.set_ylabel("mean squared error")
ax_lc.set_title("learning curves")
ax_lc.legend()
fig.tight_layout()
