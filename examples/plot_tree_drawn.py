"""
A decision tree drawn
=====================

:class:`skml.tree.DecisionTreeClassifier` (CART, Gini, notes B §8.7) grown on
iris and drawn with :func:`skml.tree.plot_tree`; :func:`skml.tree.export_text`
prints the same tree as text. The splits are those of scikit-learn's tree on
the same data, printed below for comparison.
"""

import matplotlib.pyplot as plt
from sklearn import tree as sk_tree
from sklearn.datasets import load_iris

from skml.tree import DecisionTreeClassifier, export_text, plot_tree

iris = load_iris()
clf = DecisionTreeClassifier(max_depth=3, random_state=0).fit(iris.data, iris.target)

fig, ax = plt.subplots(figsize=(10, 5.5))
plot_tree(clf, feature_names=iris.feature_names, class_names=list(iris.target_names),
          filled=True, rounded=True, ax=ax, fontsize=8)
ax.set_title("skml DecisionTreeClassifier(max_depth=3) on iris")

# %%
# The same tree as text, then scikit-learn's:
print(export_text(clf, feature_names=list(iris.feature_names)))
sk = sk_tree.DecisionTreeClassifier(max_depth=3, random_state=0).fit(iris.data, iris.target)
print(sk_tree.export_text(sk, feature_names=list(iris.feature_names)))
