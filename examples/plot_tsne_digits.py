"""
t-SNE on digits
===============

:class:`skml.manifold.TSNE` (notes A §9) maps 500 handwritten digits (64 pixels
each) to the plane. skml's exact gradient and scikit-learn's Barnes-Hut
``TSNE`` run the same number of iterations from the same PCA start; the
classes separate in both. Few iterations keep the example quick.
"""

import matplotlib.pyplot as plt
from sklearn import manifold as sk_manifold
from sklearn.datasets import load_digits

from skml.manifold import TSNE

X, y = load_digits(return_X_y=True)
X, y = X[:500] / 16.0, y[:500]
params = dict(n_components=2, perplexity=30.0, max_iter=300, init="pca", random_state=0)
embeddings = {
    "skml TSNE (exact)": TSNE(method="exact", **params).fit_transform(X),
    "scikit-learn TSNE (Barnes-Hut)": sk_manifold.TSNE(**params).fit_transform(X),
}

fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
for ax, (name, Y) in zip(axes, embeddings.items()):
    scatter = ax.scatter(Y[:, 0], Y[:, 1], c=y, cmap="tab10", s=8)
    ax.set_title(name)
    ax.set_xticks([])
    ax.set_yticks([])
fig.colorbar(scatter, ax=axes, ticks=range(10), label="digit")
