"""
Agglomerative clustering: dendrogram
====================================

:class:`skml.cluster.AgglomerativeClustering` (Ward linkage) merges the two
closest clusters until one is left. With ``compute_distances=True`` it stores
the merge heights in ``distances_``; with ``children_`` they make the linkage
matrix SciPy's ``dendrogram`` draws. The cut at three clusters agrees with
scikit-learn's ``AgglomerativeClustering`` on the same data.
"""

import matplotlib.pyplot as plt
import numpy as np
from scipy.cluster.hierarchy import dendrogram
from sklearn import cluster as sk_cluster
from sklearn.datasets import load_iris
from sklearn.metrics import adjusted_rand_score

from skml.cluster import AgglomerativeClustering

X = load_iris().data[::3]
model = AgglomerativeClustering(n_clusters=3, compute_full_tree=True,
                                compute_distances=True).fit(X)

# Leaf counts under each merge, then the (n - 1) x 4 linkage matrix.
n = len(X)
counts = np.zeros(len(model.children_))
for i, (a, b) in enumerate(model.children_):
    counts[i] = sum(1 if c < n else counts[c - n] for c in (a, b))
linkage = np.column_stack([model.children_, model.distances_, counts])

fig, ax = plt.subplots(figsize=(10, 4))
dendrogram(linkage, ax=ax, color_threshold=linkage[-3, 2] + 1e-9, no_labels=True)
ax.set_ylabel("Ward merge distance")
ax.set_title("skml AgglomerativeClustering on iris (50 flowers)")
fig.tight_layout()

sk = sk_cluster.AgglomerativeClustering(n_clusters=3).fit(X)
print("ARI between skml and scikit-learn at 3 clusters:",
      adjusted_rand_score(model.labels_, sk.labels_))
