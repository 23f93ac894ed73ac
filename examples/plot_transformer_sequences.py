"""
A transformer reads token sequences
===================================

:class:`skml.attention.TransformerClassifier` (notes B §7.6) on a toy task no
bag of tokens can solve: a sequence of 8 tokens is positive when its first
token is larger than its last. Order matters, so the model needs its
positional encoding; a :class:`skml.linear_model.LogisticRegression` on token
counts stays at the majority-class rate. Left: the transformer's training loss;
right: both models' test accuracy.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skml.attention import TransformerClassifier
from skml.linear_model import LogisticRegression

rng = np.random.RandomState(0)
X = rng.randint(0, 6, size=(1200, 8))
y = (X[:, 0] > X[:, -1]).astype(int)
X_train, X_test, y_train, y_test = X[:900], X[900:], y[:900], y[900:]

with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    model = TransformerClassifier(n_layers=1, n_heads=2, d_model=16, vocab_size=6,
                                  max_iter=40, batch_size=64, learning_rate_init=0.005,
                                  random_state=0).fit(X_train, y_train)
counts = lambda A: np.stack([(A == v).sum(axis=1) for v in range(6)], axis=1)  # noqa: E731
bag = LogisticRegression().fit(counts(X_train), y_train)

fig, (ax_loss, ax_acc) = plt.subplots(1, 2, figsize=(10, 3.8))
ax_loss.plot(model.loss_curve_)
ax_loss.set_xlabel("epoch")
ax_loss.set_ylabel("training loss")
ax_loss.set_title("TransformerClassifier(1 layer, 2 heads, d_model=16)")
scores = {"Transformer": model.score(X_test, y_test),
          "LogisticRegression\non token counts": bag.score(counts(X_test), y_test)}
ax_acc.bar(list(scores), list(scores.values()), color=["C0", "C7"])
ax_acc.axhline(max(np.mean(y_test), 1 - np.mean(y_test)), ls="--", color="k", lw=0.8,
               label="majority class")
ax_acc.set_ylim(0, 1)
ax_acc.set_ylabel("test accuracy")
ax_acc.legend()
fig.tight_layout()
