"""
k nearest neighbours: decision regions and the trees' query time
================================================================

Left and centre: :class:`skml.neighbors.KNeighborsClassifier` on two noisy half
moons with ``k = 1`` and ``k = 15`` (the k-NN rule, notes A §5.1): one neighbour
follows every noisy point, fifteen smooth the boundary. Right: the time of a
10-nearest-neighbour query against the dimension, for a brute-force search
(:class:`skml.neighbors.NearestNeighbors` with ``algorithm="brute"``), a
:class:`skml.neighbors.KDTree` and a :class:`skml.neighbors.BallTree` over the
same 4000 uniform points (notes A §5.2): the trees prune most of the data in
low dimension and lose that advantage as the dimension grows (the curse of
dimensionality). The times are measured on the machine that built these pages
and move with its load.
"""

from time import perf_counter

import matplotlib.pyplot as plt
import numpy as np
from sklearn.datasets import make_moons

from skml.neighbors import BallTree, KDTree, KNeighborsClassifier, NearestNeighbors

X, y = make_moons(n_samples=300, noise=0.3, random_state=0)
xx, yy = np.meshgrid(np.linspace(X[:, 0].min() - 0.5, X[:, 0].max() + 0.5, 150),
                     np.linspace(X[:, 1].min() - 0.5, X[:, 1].max() + 0.5, 150))
grid = np.c_[xx.ravel(), yy.ravel()]

fig, axes = plt.subplots(1, 3, figsize=(14, 4.2))
for ax, k in zip(axes[:2], [1, 15]):
    clf = KNeighborsClassifier(n_neighbors=k).fit(X, y)
    proba = clf.predict_proba(grid)[:, 1].reshape(xx.shape)
    ax.contourf(xx, yy, proba, levels=np.linspace(0, 1, 11), cmap="RdBu_r", alpha=0.8)
    ax.scatter(X[:, 0], X[:, 1], c=y, cmap="RdBu_r", edgecolors="k", linewidths=0.3, s=12)
    loo = np.mean(clf.predict(None) == y)  # each point left out of its own vote
    ax.set_title(f"KNeighborsClassifier, k = {k}\nleave-one-out accuracy {loo:.2f}")


def best_time(run, repeats=3):
    times = []
    for _ in range(repeats):
        start = perf_counter()
        run()
        times.append(perf_counter() - start)
    return min(times)


rng = np.random.RandomState(0)
dims = [2, 4, 8, 16, 32]
engines = {
    "brute force": lambda P: NearestNeighbors(n_neighbors=10, algorithm="brute").fit(P).kneighbors,
    "KDTree": lambda P: (lambda Q: KDTree(P).query(Q, k=10)),
    "BallTree": lambda P: (lambda Q: BallTree(P).query(Q, k=10)),
}
times = {name: [] for name in engines}
for d in dims:
    P, Q = rng.uniform(size=(4000, d)), rng.uniform(size=(400, d))
    for name, make in engines.items():
        query = make(P)
        query(Q[:5])  # compile the numba kernels outside the timing
        times[name].append(best_time(lambda: query(Q)) / len(Q) * 1e6)
for name, t in times.items():
    axes[2].plot(dims, t, "o-", label=name)
axes[2].set_xscale("log", base=2)
axes[2].set_yscale("log")
axes[2].yaxis.set_minor_formatter(plt.NullFormatter())
axes[2].set_xticks(dims, [str(d) for d in dims])
axes[2].set_xlabel("dimension (4000 uniform points)")
axes[2].set_ylabel("microseconds per 10-NN query")
axes[2].set_title("Exact search: trees against brute force")
axes[2].legend()
fig.tight_layout()
