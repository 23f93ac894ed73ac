"""
A convnet regressor and a searched architecture
===============================================

Left: :class:`skml.neural_network.ConvNetRegressor` (the convolutional network of
notes B §7.5 with a linear output and the squared error) reads the digit's
value from the 8x8 image as a number (a toy regression target, far from linear
in the pixels). A linear model (:class:`skml.linear_model.Ridge`) on the same
pixels is the reference; the points are the test images, jittered sideways.

Right: :class:`skml.neural_network.ProxylessNASClassifier` (notes A §11.4)
searches, for each of two residual blocks of a digits classifier, among
operations of three widths and two activations or no operation at all, by
training architecture parameters alongside the weights on sampled paths. The
bars are the final probabilities of the candidates; the most probable one in
each block is the architecture then trained from scratch.
"""

import warnings

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from skml.linear_model import Ridge
from skml.neural_network import ConvNetRegressor, ProxylessNASClassifier

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
value_train, value_test = y_train.astype(float), y_test.astype(float)

fig, axes = plt.subplots(1, 2, figsize=(12, 4.3))
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)  # few epochs, on purpose
    cnn = ConvNetRegressor(image_shape=(8, 8), layers=[("conv", 8, 3), ("maxpool", 2),
                                                       ("dense", 32)],
                           learning_rate_init=0.005, batch_size=32, max_iter=30,
                           random_state=0).fit(X_train, value_train)
    ridge = Ridge(alpha=1e-3).fit(X_train, value_train)
    nas = ProxylessNASClassifier(n_blocks=2, block_width=32, widths=(16, 32, 64),
                                 search_epochs=15, warmup_epochs=3, max_iter=20,
                                 learning_rate_init=0.005, random_state=0)
    nas.fit(X_train, y_train)

jitter = np.random.RandomState(0).uniform(-0.2, 0.2, len(value_test))
for model, name, shift in [(ridge, "Ridge", -0.2), (cnn, "ConvNetRegressor", 0.2)]:
    axes[0].scatter(value_test + shift + jitter / 2, model.predict(X_test), s=5,
                    label=f"{name}: test $R^2$ {model.score(X_test, value_test):.3f}")
axes[0].plot([-0.5, 9.5], [-0.5, 9.5], "k:", lw=1)
axes[0].set_xticks(range(10))
axes[0].set_xlabel("the digit's value")
axes[0].set_ylabel("prediction")
axes[0].legend()

names = ["zero" if c.get("op") == "zero" else f"{c['width']} {c['activation']}"
         for c in nas.candidates_]
width = 0.4
positions = np.arange(len(names))
for b, probabilities in enumerate(nas.architecture_probabilities_):
    axes[1].bar(positions + (b - 0.5) * width, probabilities, width, label=f"block {b + 1}")
axes[1].set_xticks(positions, names, rotation=30)
axes[1].set_ylabel("architecture probability after the search")
chosen = ", ".join(names[nas.candidates_.index(c)] for c in nas.best_architecture_)
axes[1].set_title(f"ProxylessNASClassifier: chosen {chosen}; "
                  f"test accuracy {nas.score(X_test, y_test):.3f}", fontsize=10)
axes[1].legend()
fig.tight_layout()
