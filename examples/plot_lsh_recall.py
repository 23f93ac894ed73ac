"""
LSH: recall against candidates examined
=======================================

:class:`skml.neighbors.LSHNearestNeighbors` (p-stable hashing for the Euclidean
distance, notes A §5) answers a query by computing exact distances only to the
points that share a bucket with it. More hash tables find more of the true
neighbours, at the price of more candidates; more hashes per table make the
buckets smaller. The exact answers come from :class:`skml.neighbors.NearestNeighbors`.
A query whose buckets hold fewer than ``k`` points is answered by brute force
(``fallback="brute"``) and counted as examining the whole training set.
"""

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import load_digits

from skml.neighbors import LSHNearestNeighbors, NearestNeighbors

X = load_digits().data.astype(float)
X /= np.linalg.norm(X, axis=1).mean()
X_train, X_query = X[:1500], X[1500:1700]
k = 10
true = NearestNeighbors(n_neighbors=k).fit(X_train).kneighbors(X_query, return_distance=False)

fig, ax = plt.subplots(figsize=(7, 4.5))
for n_hashes, marker in [(4, "o"), (6, "s"), (8, "^")]:
    points = []
    for n_tables in [2, 4, 8, 16, 32]:
        lsh = LSHNearestNeighbors(n_neighbors=k, n_tables=n_tables, n_hashes=n_hashes,
                                  bucket_width=1.5, fallback="brute", random_state=0)
        lsh.fit(X_train)
        found = lsh.kneighbors(X_query, return_distance=False)
        recall = np.mean([len(set(f) & set(t)) / k for f, t in zip(found, true)])
        counts = lsh.candidate_counts(X_query, n_neighbors=k)
        examined = np.where(counts < k, len(X_train), counts).mean() / len(X_train)
        points.append((examined, recall))
    examined, recall = np.array(points).T
    ax.plot(examined, recall, marker=marker, label=f"{n_hashes} hashes per table")
ax.set_xscale("log")
ax.set_xlabel("fraction of the training set examined per query (2 to 32 tables)")
ax.set_ylabel(f"recall of the {k} nearest neighbours")
ax.set_title("LSH on digits (1500 points, 64 dimensions)")
ax.legend()
fig.tight_layout()
