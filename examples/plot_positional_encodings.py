"""
Positions in a transformer: sinusoids, RoPE and a regression on order
=====================================================================

Left: :func:`skml.attention.sinusoidal_positional_encoding`, the table added to
the token embeddings (notes B §7.6): each column is a sinusoid of its own
wavelength. Centre: rotary positional encoding (RoPE, notes A §14.2) rotates the
query at position :math:`m` and the key at position :math:`n` instead, so their
dot product depends only on :math:`m - n`.
:class:`skml.attention.RotaryPositionalEncoding` rotates one query and one key
vector written at every position of a sequence; the curves, one per absolute
position of the query, coincide.

Right: :class:`skml.attention.TransformerRegressor` on sequences of 8 scalar
tokens whose target is the sum of the first half minus the sum of the second
half. Without a positional encoding (``positional="none"``) the model sees a
bag of tokens and cannot tell the halves apart; with RoPE it can.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.exceptions import ConvergenceWarning

from skml.attention import (RotaryPositionalEncoding, TransformerRegressor,
                            sinusoidal_positional_encoding)

fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
P = sinusoidal_positional_encoding(64, 32)
image = axes[0].imshow(P.T, aspect="auto", cmap="RdBu_r", vmin=-1, vmax=1)
axes[0].set_xlabel("position t")
axes[0].set_ylabel("dimension")
axes[0].set_title("sinusoidal_positional_encoding(64, 32)")
fig.colorbar(image, ax=axes[0])

rng = np.random.RandomState(0)
d, T = 16, 48
q, k = rng.normal(size=d), rng.normal(size=d)
rope = RotaryPositionalEncoding(d=d, base=100.0)
Q = rope.transform(np.tile(q, T)[None, :]).reshape(T, d)  # q rotated at every position
K = rope.transform(np.tile(k, T)[None, :]).reshape(T, d)
for m in (16, 20, 24, 28):
    offsets = np.arange(-16, 8)
    axes[1].plot(offsets, [Q[m] @ K[m - o] for o in offsets],
                 "o-", ms=3, label=f"query at m = {m}")
axes[1].set_xlabel("m - n (query position minus key position)")
axes[1].set_ylabel("rotated query . rotated key")
axes[1].set_title("RotaryPositionalEncoding: relative positions only")
axes[1].legend(fontsize=8)

X = rng.uniform(-1, 1, size=(800, 8))
y = X[:, :4].sum(axis=1) - X[:, 4:].sum(axis=1)
X_train, X_test, y_train, y_test = X[:600], X[600:], y[:600], y[600:]
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)  # 40 epochs, on purpose
    for positional in ("none", "rope"):
        model = TransformerRegressor(n_layers=1, n_heads=2, d_model=16, positional=positional,
                                     max_iter=40, learning_rate_init=0.005, random_state=0)
        model.fit(X_train, y_train)
        axes[2].scatter(y_test, model.predict(X_test), s=8,
                        label=f'positional="{positional}": test $R^2$ {model.score(X_test, y_test):.2f}')
axes[2].plot([-4, 4], [-4, 4], "k:", lw=1)
axes[2].set_xlabel("target (first half minus second half)")
axes[2].set_ylabel("TransformerRegressor prediction")
axes[2].legend(fontsize=8)
fig.tight_layout()
