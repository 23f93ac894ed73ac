"""
SNE and t-SNE: the crowding problem
===================================

:class:`skml.manifold.SNE` is Hinton and Roweis's original stochastic neighbour
embedding (notes A §9.2): the same perplexity-calibrated neighbour
probabilities as :class:`skml.manifold.TSNE` (§9.1), matched in the plane by a
Gaussian kernel. A Gaussian has light tails: moderately distant points
cannot be placed far enough apart (the crowding problem), so SNE's groups stay
loose and the gaps between them narrow, while t-SNE's heavy-tailed Student kernel
pulls each group together and opens the gaps. Both embed the
same 400 digits from the same PCA start.
"""

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits

from skml.manifold import SNE, TSNE

X, y = load_digits(return_X_y=True)
X, y = X[:400] / 16.0, y[:400]
embeddings = {
    "SNE (Gaussian kernel in the map)": SNE(perplexity=30.0, max_iter=300, init="pca",
                                            random_state=0).fit_transform(X),
    "t-SNE (Student-t kernel, exact gradient)": TSNE(
        perplexity=30.0, max_iter=300, init="pca", method="exact",
        random_state=0).fit_transform(X),
}

fig, axes = plt.subplots(1, 2, figsize=(10, 4.5))
for ax, (name, Y) in zip(axes, embeddings.items()):
    points = ax.scatter(Y[:, 0], Y[:, 1], c=y, cmap="tab10", s=8)
    ax.set_title(name)
    ax.set_xticks([])
    ax.set_yticks([])
fig.colorbar(points, ax=axes, label="digit", ticks=range(10))
