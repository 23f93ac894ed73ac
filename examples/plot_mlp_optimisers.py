"""
MLP loss curves per optimiser
=============================

:class:`skml.neural_network.MLPClassifier` takes each mini-batch step with one
of the :mod:`skml.optim` optimisers (``solver``). The training loss per epoch
(``loss_curve_``) on digits shows how fast each one descends at its usual
learning rate; scikit-learn's ``MLPClassifier`` with "adam" and "sgd" is drawn
dashed.
"""

import warnings

import matplotlib.pyplot as plt
from sklearn import neural_network as sk_nn
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning

from skml.neural_network import MLPClassifier

X, y = load_digits(return_X_y=True)
X = X / 16.0
common = dict(hidden_layer_sizes=(32,), max_iter=30, batch_size=64, random_state=0, tol=0.0)
rates = {"sgd": 0.1, "momentum": 0.05, "nesterov": 0.05, "adagrad": 0.05,
         "rmsprop": 0.002, "adadelta": 1.0, "adam": 0.002, "adabelief": 0.002}

fig, ax = plt.subplots(figsize=(8, 4.5))
with warnings.catch_warnings():
    warnings.simplefilter("ignore", ConvergenceWarning)
    for i, (solver, rate) in enumerate(rates.items()):
        clf = MLPClassifier(solver=solver, learning_rate_init=rate, **common).fit(X, y)
        ax.plot(clf.loss_curve_, color=f"C{i}", label=f"skml {solver} ({rate})")
    for solver in ["adam", "sgd"]:
        rate = rates[solver]
        sk = sk_nn.MLPClassifier(solver=solver, learning_rate_init=rate, **common).fit(X, y)
        ax.plot(sk.loss_curve_, "--", color=f"C{list(rates).index(solver)}",
                label=f"scikit-learn {solver} ({rate})")
ax.set_yscale("log")
ax.set_xlabel("epoch")
ax.set_ylabel("training loss (log scale)")
ax.set_title("MLPClassifier(32 hidden units) on digits")
ax.legend(fontsize=8, ncol=2)
fig.tight_layout()
