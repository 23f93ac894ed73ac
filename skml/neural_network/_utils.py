"""Small helpers of the network estimators and the estimators built on them."""

import numpy as np

__all__ = ["class_index"]


def class_index(classes, y, n=None, name="y"):
    """Indices of the labels ``y`` in the sorted ``classes``; ValueError for others.

    With ``n``: one label (used for every row) or ``n`` labels, one per row of X.
    """
    y = np.asarray(y)
    if n is not None:
        y = np.full(n, y[()], dtype=y.dtype) if y.ndim == 0 else y
        if y.shape != (n,):
            raise ValueError(
                f"{name} must be one label or {n} labels, one per row of X; got "
                f"shape {y.shape}.")
    index = np.minimum(np.searchsorted(classes, y), len(classes) - 1)
    bad = classes[index] != y
    if np.any(bad):
        raise ValueError(
            f"{name} holds labels not in classes_ {classes.tolist()!r}: "
            f"{np.unique(y[bad])[:5].tolist()!r}.")
    return index
