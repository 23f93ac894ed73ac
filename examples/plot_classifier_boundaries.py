"""
Decision boundaries of the probabilistic classifiers
====================================================

Five classifiers on the same two-class problem, skml's on the top row and
scikit-learn's namesakes below: :class:`skml.naive_bayes.GaussianNB`,
:class:`skml.discriminant_analysis.LinearDiscriminantAnalysis` and
:class:`skml.discriminant_analysis.QuadraticDiscriminantAnalysis` (notes B §4),
:class:`skml.linear_model.LogisticRegression` and
:class:`skml.neighbors.KNeighborsClassifier`. The colour is the predicted
probability of the second class.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn import discriminant_analysis as sk_da
from sklearn import linear_model as sk_linear
from sklearn import naive_bayes as sk_nb
from sklearn import neighbors as sk_neighbors
from sklearn.datasets import make_classification

from skml.discriminant_analysis import (LinearDiscriminantAnalysis,
                                        QuadraticDiscriminantAnalysis)
from skml.linear_model import LogisticRegression
from skml.naive_bayes import GaussianNB
from skml.neighbors import KNeighborsClassifier

X, y = make_classification(n_samples=200, n_features=2, n_redundant=0, n_informative=2,
                           n_clusters_per_class=1, class_sep=0.8, random_state=3)
X[y == 1] = X[y == 1] @ np.array([[1.6, 0.4], [0.0, 0.5]])
pairs = [
    ("GaussianNB", GaussianNB(), sk_nb.GaussianNB()),
    ("LDA", LinearDiscriminantAnalysis(), sk_da.LinearDiscriminantAnalysis()),
    ("QDA", QuadraticDiscriminantAnalysis(), sk_da.QuadraticDiscriminantAnalysis()),
    ("LogisticRegression", LogisticRegression(), sk_linear.LogisticRegression()),
    ("KNeighbors (15)", KNeighborsClassifier(15), sk_neighbors.KNeighborsClassifier(15)),
]
xx, yy = np.meshgrid(np.linspace(X[:, 0].min() - 0.5, X[:, 0].max() + 0.5, 120),
                     np.linspace(X[:, 1].min() - 0.5, X[:, 1].max() + 0.5, 120))
grid = np.c_[xx.ravel(), yy.ravel()]

fig, axes = plt.subplots(2, len(pairs), figsize=(15, 6), sharex=True, sharey=True)
for col, (name, ours, theirs) in enumerate(pairs):
    for row, (who, model) in enumerate([("skml", ours), ("scikit-learn", theirs)]):
        ax = axes[row, col]
        proba = model.fit(X, y).predict_proba(grid)[:, 1].reshape(xx.shape)
        ax.contourf(xx, yy, proba, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.8)
        ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu_r", edgecolors="k", linewidths=0.3, s=12)
        ax.set_title(f"{who} {name}\naccuracy {model.score(X, y):.2f}", fontsize=9)
fig.tight_layout()
