"""
A small convnet on digits
=========================

:class:`skml.neural_network.ConvNetClassifier` (notes B §7) with one 3x3
convolution of 8 filters and a 2x2 max-pool, trained on 8x8 digits. Left: the
loss per epoch beside a :class:`skml.neural_network.MLPClassifier` of similar
size; right: the eight learned filters.
"""

import warnings

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning
from sklearn.model_selection import train_test_split

from skml.neural_network import ConvNetClassifier, MLPClassifier

X, y = load_digits(return_X_y=True)
X = X / 16.0
X_train, X_test, y_train, y_test = train_test_split(X, y, random_state=0)
common = dict(learning_rate_init=0.01, batch_size=32, max_iter=15, random_state=0, tol=0.0)
cnn = ConvNetClassifier(image_shape=(8, 8), layers=[("conv", 8, 3), ("maxpool", 2)], **common)
mlp = MLPClassifier(hidden_layer_sizes=(64,), **common)
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)  # 15 epochs only, on purpose
    for model in (cnn, mlp):
        model.fit(X_train, y_train)

fig = plt.figure(figsize=(11, 3.6))
ax = fig.add_subplot(1, 2, 1)
ax.plot(cnn.loss_curve_, label=f"ConvNet, test accuracy {cnn.score(X_test, y_test):.3f}")
ax.plot(mlp.loss_curve_, label=f"MLP (64), test accuracy {mlp.score(X_test, y_test):.3f}")
ax.set_yscale("log")
ax.set_xlabel("epoch")
ax.set_ylabel("training loss")
ax.legend()
filters = cnn.coefs_[0]  # (height, width, in_channels, out_channels)
for k in range(8):
    a = fig.add_subplot(2, 8, [5, 6, 7, 8, 13, 14, 15, 16][k])
    a.imshow(filters[:, :, 0, k], cmap="RdBu_r")
    a.set_xticks([])
    a.set_yticks([])
fig.suptitle("ConvNetClassifier: conv(8 filters, 3x3) + maxpool(2) + softmax", fontsize=10)
fig.tight_layout()
