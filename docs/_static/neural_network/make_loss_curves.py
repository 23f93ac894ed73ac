"""Draw docs/_static/neural_network/loss_curves.png (run from the repository root).

Left: skml's and scikit-learn's MLPClassifier on digits, same architecture,
adam, same seed. Right: skml's solvers on the same network.
"""

import warnings
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from sklearn import neural_network as sk  # noqa: E402
from sklearn.datasets import load_digits  # noqa: E402
from sklearn.preprocessing import StandardScaler  # noqa: E402

from skml.neural_network import MLPClassifier  # noqa: E402

warnings.filterwarnings("ignore")
X, y = load_digits(return_X_y=True)
X = StandardScaler().fit_transform(X)
common = dict(hidden_layer_sizes=(100,), max_iter=60, tol=0.0, n_iter_no_change=100,
              random_state=0)
fig, (left, right) = plt.subplots(1, 2, figsize=(10, 3.8))
ours = MLPClassifier(**common).fit(X, y)
ref = sk.MLPClassifier(**common).fit(X, y)
left.semilogy(ours.loss_curve_, label="skml adam")
left.semilogy(ref.loss_curve_, "--", label="scikit-learn adam")
left.set(title="digits, 64-100-10 ReLU", xlabel="epoch", ylabel="training loss")
left.legend()
rates = {"sgd": 0.1, "momentum": 0.01, "nesterov": 0.01, "adagrad": 0.05,
         "rmsprop": 1e-3, "adadelta": 1.0, "adam": 1e-3}
for solver, lr in rates.items():
    clf = MLPClassifier(solver=solver, learning_rate_init=lr, **common).fit(X, y)
    right.semilogy(clf.loss_curve_, label=f"{solver} ({lr:g})")
right.set(title="skml solvers (learning_rate_init)", xlabel="epoch")
right.legend(fontsize=8)
fig.tight_layout()
fig.savefig(Path(__file__).with_name("loss_curves.png"), dpi=90)
