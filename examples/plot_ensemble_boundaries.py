"""
Bagging, voting and stacking: decision boundaries
=================================================

One deep tree overfits the two moons; the ensembles of notes B §9 smooth its
boundary in different ways. :class:`skml.ensemble.BaggingClassifier` averages
trees grown on bootstrap samples (notes B §9.2: it lowers variance);
:class:`skml.ensemble.VotingClassifier` averages the probabilities of three
different models (a tree, logistic regression, Gaussian naive Bayes; B §9.7);
:class:`skml.ensemble.StackingClassifier` learns how to weigh the same three
with a logistic regression on their out-of-fold outputs (B §9.6). The test
accuracy of each is in its title.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons
from sklearn.model_selection import train_test_split

from skml.ensemble import BaggingClassifier, StackingClassifier, VotingClassifier
from skml.linear_model import LogisticRegression
from skml.naive_bayes import GaussianNB
from skml.tree import DecisionTreeClassifier

X, y = make_moons(n_samples=300, noise=0.3, random_state=0)
X_train, X_test, y_train, y_test = train_test_split(X, y, test_size=0.5, random_state=0)


def members():
    return [("tree", DecisionTreeClassifier(max_depth=5, random_state=0)),
            ("logistic", LogisticRegression()),
            ("gnb", GaussianNB())]


models = {
    "one tree": DecisionTreeClassifier(random_state=0),
    "bagging (30 trees)": BaggingClassifier(DecisionTreeClassifier(), n_estimators=30,
                                            random_state=0),
    "soft voting": VotingClassifier(members(), voting="soft"),
    "stacking": StackingClassifier(members(), final_estimator=LogisticRegression()),
}

xx, yy = np.meshgrid(np.linspace(-2, 3, 150), np.linspace(-1.5, 2, 150))
grid = np.c_[xx.ravel(), yy.ravel()]
fig, axes = plt.subplots(1, 4, figsize=(14, 3.6), sharey=True)
for ax, (name, model) in zip(axes, models.items()):
    model.fit(X_train, y_train)
    proba = model.predict_proba(grid)[:, 1].reshape(xx.shape)
    ax.contourf(xx, yy, proba, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.7)
    ax.contour(xx, yy, proba, levels=[0.5], colors="k", linewidths=1)
    ax.scatter(X_test[:, 0], X_test[:, 1], c=y_test, cmap="RdBu_r", s=12,
               edgecolors="k", linewidths=0.3)
    ax.set_title(f"{name}: {model.score(X_test, y_test):.2f}")
fig.tight_layout()
