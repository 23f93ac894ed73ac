"""
Contrastive embedding of digits
===============================

:class:`skml.contrastive.ContrastiveEmbedding` (SimCLR's NT-Xent loss, notes A §8)
trains a small network so that two randomly perturbed views of the same digit
land close together and views of different digits apart. No label is used;
the labels only colour the plot. After 40 short epochs on 600 digits the
classes gather in regions of the plane; a :class:`skml.decomposition.PCA`
projection is beside it for reference.
"""

import warnings

import matplotlib.pyplot as plt
from sklearn.datasets import load_digits
from sklearn.exceptions import ConvergenceWarning

from skml.contrastive import ContrastiveEmbedding
from skml.decomposition import PCA

X, y = load_digits(return_X_y=True)
X, y = X[:600] / 16.0, y[:600]
warnings.simplefilter("ignore", ConvergenceWarning)  # 40 epochs only, on purpose
embeddings = {
    "PCA (2 components)": PCA(n_components=2).fit_transform(X),
    "ContrastiveEmbedding (2 components)": ContrastiveEmbedding(
        n_components=2, hidden_layer_sizes=(64,), max_iter=40, batch_size=128,
        random_state=0).fit_transform(X),
}
fig, axes = plt.subplots(1, 2, figsize=(10, 4.3))
for ax, (name, Z) in zip(axes, embeddings.items()):
    ax.scatter(Z[:, 0], Z[:, 1], c=y, cmap="tab10", s=6)
    ax.set_title(name)
    ax.set_xticks([])
    ax.set_yticks([])
fig.tight_layout()
